/* A 3D model's checkpoint (src/engine/checkpoint3d_file.c, docs/fdtd.md "Checkpoints
 * of 3D models"): every header byte flipped in turn, the first and last byte
 * of every section flipped, and the file cut at every section boundary and
 * inside each are each refused by gs_ckpt3_load with one line naming the
 * file; the undamaged file restores a model that ends at the checksum and
 * receiver history of an unbroken run; a file of another place in a split
 * or step is refused. CPU backend, no MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(*n);
  if (fread(b, 1, *n, f) != *n) *n = 0;
  fclose(f);
  return b;
}

static void spill(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(b, 1, n, f);
  fclose(f);
}

/* Loads dir into a fresh model of sc: GS_OK (the model kept in *m), or the
 * refusal checked to be one line naming the file (what: the case). */
static gs_status load(const gs_scene *sc, const char *dir, gs_fdtd3_sim *m, const char *what, long k) {
  char err[1024] = "";
  CHECK(gs_fdtd3_sim_init(m, sc, &gs_backend_cpu, 0, err, sizeof err) == GS_OK);
  gs_status st = gs_ckpt3_load(m, dir, err, sizeof err);
  if (st != GS_OK) {
    CHECKF(err[0] && !strchr(err, '\n') && strstr(err, "checkpoint.gsck"), "%s %ld: reason '%s'", what, k, err);
    gs_fdtd3_sim_free(m);
  }
  return st;
}

int main(void) {
  gs_scene sc;
  gs_scene_synthetic3(&sc, 20, 18, 16, 60);
  sc.pml6[1] = 3;
  sc.pml6[5] = 5;
  char dir[] = "/tmp/gs_ckpt3_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
  gs_fdtd3_sim a, b;
  char err[1024];
  CHECK(gs_fdtd3_sim_init(&a, &sc, &gs_backend_cpu, 0, err, sizeof err) == GS_OK);
  gs_fdtd3_sim_advance(&a, 25);
  CHECK(gs_ckpt3_write(&a, path, err, sizeof err) == GS_OK);
  gs_fdtd3_sim_advance(&a, sc.iterations - 25);
  gs_fdtd3_sim_sync(&a);
  uint64_t want[2], got[2];
  gs_fdtd3_sim_checksum(&a, want);
  size_t n = 0;
  uint8_t *good = slurp(path, &n), *bad = malloc(n);
  CHECK(good && n > 100);
  uint32_t hb = (uint32_t)good[12] | (uint32_t)good[13] << 8;
  int refused = 0, cases = 0;
  for (uint32_t k = 0; k < hb; ++k, ++cases) { /* every header byte */
    memcpy(bad, good, n);
    bad[k] ^= 0xFF;
    spill(path, bad, n);
    refused += load(&sc, dir, &b, "header byte", (long)k) != GS_OK;
  }
  /* Each section: its first and last byte flipped; the file cut at its start and in its middle. */
  gs_fdtd3_state st[GS_FDTD3_MAX_STATE];
  int ns = gs_fdtd3_sim_state(&a, st);
  size_t at = hb;
  for (int s = 0; s < ns; ++s) {
    gs_fdtd3_sim_resume(&a, 25); /* the sections as they were at the checkpoint's step */
    ns = gs_fdtd3_sim_state(&a, st);
    size_t pos[4] = {at, at + st[s].bytes - 1, at, at + st[s].bytes / 2};
    for (int c = 0; c < 4; ++c, ++cases) {
      memcpy(bad, good, n);
      if (c < 2) bad[pos[c]] ^= 0x01;
      spill(path, bad, c < 2 ? n : pos[c]);
      refused += load(&sc, dir, &b, st[s].name, c) != GS_OK;
    }
    at += st[s].bytes;
  }
  CHECKF(at == n, "sections end at %zu of %zu bytes", at, n);
  CHECKF(refused == cases, "%d of %d damaged checkpoints refused", refused, cases);
  /* A rank's file of a set (rank 1 of a 2x1x1 split) is no one-rank checkpoint, nor is a
   * one-rank file rank 1's, nor one of another step than its set's manifest names. */
  const gs_ckpt3_place other = {1, {2, 1, 1}, -1}, one = {0, {1, 1, 1}, -1}, later = {0, {1, 1, 1}, 26};
  CHECK(gs_ckpt3_write_part(&a, &other, path, err, sizeof err) == GS_OK);
  CHECK(gs_fdtd3_sim_init(&b, &sc, &gs_backend_cpu, 0, err, sizeof err) == GS_OK);
  CHECK(gs_ckpt3_read(&b, &one, path, err, sizeof err) != GS_OK && strstr(err, "rank 1's file of a 2x1x1 split"));
  spill(path, good, n);
  CHECK(gs_ckpt3_read(&b, &other, path, err, sizeof err) != GS_OK && strstr(err, "rank 0's file of a 1x1x1 split"));
  CHECK(gs_ckpt3_read(&b, &later, path, err, sizeof err) != GS_OK &&
        strstr(err, "step 25; its set's manifest says 26"));
  gs_fdtd3_sim_free(&b);
  CHECK(load(&sc, dir, &b, "undamaged", 0) == GS_OK);
  CHECK(b.step == 25);
  gs_fdtd3_sim_advance(&b, sc.iterations - 25);
  gs_fdtd3_sim_sync(&b);
  gs_fdtd3_sim_checksum(&b, got);
  CHECK(got[0] == want[0] && got[1] == want[1]);
  CHECK(a.nrx > 0 && memcmp(a.rx_hist, b.rx_hist, sizeof(float) * 6 * (size_t)a.nrx * (size_t)sc.iterations) == 0);
  printf("test_ckpt3_header: %d damaged checkpoints refused (%u header bytes, %d sections); the undamaged one "
         "restarts to the unbroken run's bits\n",
         refused, hb, ns);
  gs_fdtd3_sim_free(&a);
  gs_fdtd3_sim_free(&b);
  unlink(path);
  rmdir(dir);
  free(good);
  free(bad);
  gs_scene_free(&sc);
  return gs_test_done("test_ckpt3_header");
}

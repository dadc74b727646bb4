/* Every byte of a checkpoint header flipped, one at a time, in one rank's
 * file of a real checkpoint (one rank: checkpoint.gsck; several: the last
 * rank's file of the set): gs_ckpt_load refuses each on every rank, one
 * rank saying why in one line naming the file; the undamaged checkpoint
 * loads to the checksum it was written with. Runs on 1 or more ranks. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "comm.h"

#ifndef GS_CKPT_HEADER_BYTES
#define GS_CKPT_HEADER_BYTES 288 /* format 3, for running this against older sources */
#endif

/* Loads dir into m; the status every rank agrees on, and checks that the
 * reason (if any) is said once, in one line naming file. */
static gs_status load(gs_fdtd_sim *m, const gs_comm *c, const char *dir, const char *file, int k) {
  gs_ckpt_old old;
  char err[1024] = "";
  gs_status st = gs_ckpt_load(m, c, dir, &old, err, sizeof err);
  int said = err[0] != '\0', sayers = 0;
  MPI_Allreduce(&said, &sayers, 1, MPI_INT, MPI_SUM, c->world);
  if (st != GS_OK) {
    CHECKF(sayers == 1, "byte %d: %d ranks said why", k, sayers);
    if (said) CHECKF(!strchr(err, '\n') && strstr(err, file), "byte %d: reason '%s'", k, err);
  }
  return st;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  gs_comm c;
  gs_comm_init(&c);
  gs_scene sc;
  gs_scene_synthetic(&sc, 96, 64, 60);
  int dims[2];
  gs_fdtd_decomp(NULL, c.size, sc.nx, sc.ny, dims);
  gs_fdtd_spread sp = {GS_HALO_MPI_HOST, 1, 0, 0};
  gs_fdtd_sim m, m2;
  MPI_Comm cart, cart2;
  char err[512] = "", dir[256] = "/tmp/gs-ckpt-header-XXXXXX", file[64], path[512];
  if (gs_fdtd_sim_open(&m, &sc, &gs_backend_cpu, c.world, dims, &sp, &cart, err, sizeof err) != GS_OK ||
      gs_fdtd_sim_open(&m2, &sc, &gs_backend_cpu, c.world, dims, &sp, &cart2, err, sizeof err) != GS_OK) {
    fprintf(stderr, "sim_open: %s\n", err);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (c.rank == 0 && !mkdtemp(dir)) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, c.world);
  gs_fdtd_sim_advance(&m, 20);
  int64_t prev = -1;
  if (gs_ckpt_save(&m, &c, dims, dir, &prev, err, sizeof err) != GS_OK) {
    fprintf(stderr, "checkpoint: %s\n", err);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  uint64_t want[3], got[3], sum[3];
  gs_fdtd_sim_checksum(&m, sum);
  MPI_Allreduce(sum, want, 3, MPI_UINT64_T, MPI_SUM, c.world);
  if (c.size == 1)
    snprintf(file, sizeof file, "checkpoint.gsck");
  else
    snprintf(file, sizeof file, "checkpoint.s20.r%05d.gsck", c.size - 1);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  /* the undamaged checkpoint */
  CHECK(load(&m2, &c, dir, file, -1) == GS_OK);
  gs_fdtd_sim_refresh(&m2);
  gs_fdtd_sim_checksum(&m2, sum);
  MPI_Allreduce(sum, got, 3, MPI_UINT64_T, MPI_SUM, c.world);
  CHECK(m2.step == 20 && memcmp(got, want, sizeof got) == 0);
  /* each header byte flipped */
  int refused = 0;
  for (int k = 0; k < GS_CKPT_HEADER_BYTES; ++k) {
    if (c.rank == 0) {
      FILE *fp = fopen(path, "r+b");
      int b = fp && fseek(fp, k, SEEK_SET) == 0 ? fgetc(fp) : EOF;
      if (b == EOF || fseek(fp, k, SEEK_SET) != 0 || fputc(b ^ 0xff, fp) == EOF || fclose(fp) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(c.world);
    gs_status st = load(&m2, &c, dir, file, k);
    CHECKF(st != GS_OK, "byte %d flipped: accepted", k);
    refused += st != GS_OK;
    MPI_Barrier(c.world);
    if (c.rank == 0) { /* restore it */
      FILE *fp = fopen(path, "r+b");
      int b = fp && fseek(fp, k, SEEK_SET) == 0 ? fgetc(fp) : EOF;
      if (b == EOF || fseek(fp, k, SEEK_SET) != 0 || fputc(b ^ 0xff, fp) == EOF || fclose(fp) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(c.world);
  }
  if (c.rank == 0) printf("%d of %d header bytes flipped refused\n", refused, GS_CKPT_HEADER_BYTES);
  CHECK(load(&m2, &c, dir, file, -1) == GS_OK);
  gs_ckpt_remove(&c, dir, prev);
  if (c.rank == 0) rmdir(dir);
  gs_fdtd_sim_free(&m);
  gs_fdtd_sim_free(&m2);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&cart2);
  gs_scene_free(&sc);
  int rc = gs_test_done("test_ckpt_header");
  gs_comm_free(&c);
  MPI_Finalize();
  return rc;
}

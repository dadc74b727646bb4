/* libFuzzer target: the 3D checkpoint reader (gs_ckpt3_load) on any bytes
 * as DIR/checkpoint.gsck of a small 3D model (uneven CPML, a receiver), and
 * the same bytes as the manifest of a set over ranks
 * (gs_ckpt3_probe_manifest, for 1 rank and for 8 split 2x2x2).
 * Each input is read twice: as it is, and with its two CRCs made to hold
 * (the data's at offset 80, the header's at its end, where the header's
 * length field is plausible), so that mutations reach the field checks,
 * the section table and the data. Every input must end in GS_OK or a
 * refusal with a one-line reason; never a crash, an undefined operation
 * (UBSan), a leak, or more than the harness's memory limit. At start a
 * real checkpoint is written into ./corpus (run.sh's working corpus) as a
 * seed. */
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "checkpoint.h"
#include "fuzz_input.h"

static gs_scene sc;
static gs_fdtd3_sim sim;
static char dir[256];

static void remove_dir(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
  unlink(path);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  gs_scene_synthetic3(&sc, 10, 9, 14, 12); /* its source and receiver at k = nz / 2 + 5 */
  const int pml[6] = {2, 1, 3, 2, 2, 1};
  for (int k = 0; k < 6; ++k)
    sc.pml6[k] = pml[k];
  char err[512];
  if (gs_fdtd3_sim_init(&sim, &sc, &gs_backend_cpu, 0, err, sizeof err) != GS_OK) abort();
  const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/gs-fuzz-ckpt3-%ld", base, (long)getpid());
  mkdir(dir, 0700);
  atexit(remove_dir);
  struct stat sb;
  if (stat("corpus", &sb) == 0 && S_ISDIR(sb.st_mode)) {
    gs_fdtd3_sim_advance(&sim, 7);
    if (gs_ckpt3_write(&sim, "corpus/seed-checkpoint3d", err, sizeof err) != GS_OK) abort();
    FILE *f = fopen("corpus/seed-manifest3d", "w"); /* a manifest as a set of 8 ranks writes it */
    if (!f) abort();
    fprintf(f, GS_CKPT3_MANIFEST_MAGIC " 1\nranks 8\ndecomp 2x2x2\nstep 7\nscene %016llx\n",
            (unsigned long long)sc.hash);
    if (fclose(f) != 0) abort();
  }
  return 0;
}

static void load(const uint8_t *data, size_t size) {
  char path[512], err[1024] = "";
  snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  gs_status st = gs_ckpt3_load(&sim, dir, err, sizeof err);
  if (st != GS_OK && (!err[0] || strchr(err, '\n'))) abort();
}

static void put32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; ++k)
    p[k] = (uint8_t)(v >> (8 * k));
}

/* The bytes as DIR/checkpoint.manifest of a set of 1 rank and of 8 (2x2x2). */
static void probe(const uint8_t *data, size_t size) {
  char path[512], err[1024] = "";
  snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  const int one[3] = {1, 1, 1}, eight[3] = {2, 2, 2};
  for (int k = 0; k < 2; ++k) {
    int64_t step = -1;
    err[0] = '\0';
    gs_status st = gs_ckpt3_probe_manifest(&sc, dir, k ? 8 : 1, k ? eight : one, &step, err, sizeof err);
    if (st != GS_OK && (!err[0] || strchr(err, '\n'))) abort();
    if (st == GS_OK && (step < 0 || step > sc.iterations)) abort();
  }
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  load(data, size);
  probe(data, size);
  if (size < 16) return 0;
  uint32_t hb = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
  if (hb < 152 + 4 || hb > size) return 0; /* the header's fixed part (version 3) and its CRC */
  uint8_t *b = malloc(size);
  memcpy(b, data, size);
  put32(b + 80, (uint32_t)crc32(0L, b + hb, (uInt)(size - hb)));
  put32(b + hb - 4, (uint32_t)crc32(0L, b, hb - 4));
  load(b, size);
  free(b);
  return 0;
}

/* libFuzzer target: the checkpoint reader (gs_ckpt_load) on any bytes, as
 * the one-rank file DIR/checkpoint.gsck or, for inputs that start like a
 * manifest, as DIR/checkpoint.manifest beside a real 2x1 set. Each
 * checkpoint input is read twice: as it is, and with its two CRCs made to
 * hold (so that mutations get past them to the field checks and the data).
 * Every input must end in GS_OK or a refusal with a one-line reason; never
 * a crash, an undefined operation (UBSan), a leak, or more than the
 * harness's memory limit (tests/fuzz/run.sh: 300 MB).
 * With GS_FUZZ_SEEDS=DIR set, LLVMFuzzerInitialize writes the seed corpus
 * (a real checkpoint after 30 steps, a real manifest) to DIR. */
#include <mpi.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "checkpoint.h"
#include "fuzz_input.h"

/* Open MPI, PMIx and hwloc keep what MPI_Init allocated until exit (some in
 * plugins unloaded by then, which no suppression can name), which
 * LeakSanitizer would report at the end of every run: not ours. libFuzzer's
 * own leak check after each input still runs. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
  return "leak_check_at_exit=0";
}
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:libpmix.so\nleak:libhwloc.so\n"
         "leak:mca_\nleak:__vasprintf_internal\n";
}

static gs_scene sc;
static gs_fdtd_sim sim;
static gs_comm comm;
static char dir[256];

/* Writes bytes to dir/name; aborts on failure (the harness's fault). */
static void put_file(const char *name, const void *data, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
}

/* A real set of the scene split 2x1 at step 0, the manifest input's files. */
static void write_set(const char *seeds) {
  for (int r = 0; r < 2; ++r) {
    int dims[2] = {2, 1}, coords[2] = {r, 0};
    gs_fdtd_part part = gs_fdtd_part_of(&sc, dims, coords);
    gs_fdtd_sim m;
    char err[512], path[512];
    if (gs_fdtd_sim_init_part(&m, &sc, &gs_backend_cpu, 0, &part, 1, err, sizeof err) != GS_OK) abort();
    snprintf(path, sizeof path, "%s/checkpoint.s0.r%05d.gsck", dir, r);
    if (gs_fdtd_checkpoint_write(&m, path, err, sizeof err) != GS_OK) abort();
    gs_fdtd_sim_free(&m);
  }
  if (seeds) {
    char text[256];
    int n =
        snprintf(text, sizeof text, "gpustencil checkpoint manifest 1\nranks 2\ndecomp 2x1\nstep 0\nscene %016llx\n",
                 (unsigned long long)sc.hash);
    char path[512];
    snprintf(path, sizeof path, "%s/manifest", seeds);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) abort();
  }
}

/* Removes the per-process folder at exit (libFuzzer ends with exit()). */
static void remove_dir(void) {
  const char *names[] = {"checkpoint.gsck", "checkpoint.manifest", "checkpoint.s0.r00000.gsck",
                         "checkpoint.s0.r00001.gsck"};
  char path[512];
  for (int k = 0; k < 4; ++k) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    unlink(path);
  }
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  MPI_Init(NULL, NULL);
  gs_comm_init(&comm);
  gs_scene_synthetic(&sc, 48, 40, 60);
  int dims[2] = {1, 1};
  gs_fdtd_spread sp = {GS_HALO_MPI_HOST, 1, 0, 0};
  MPI_Comm cart;
  char err[512];
  if (gs_fdtd_sim_open(&sim, &sc, &gs_backend_cpu, comm.world, dims, &sp, &cart, err, sizeof err) != GS_OK) abort();
  const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/gs-fuzz-ckpt-%ld", base, (long)getpid());
  mkdir(dir, 0700);
  atexit(remove_dir);
  const char *seeds = getenv("GS_FUZZ_SEEDS");
  write_set(seeds);
  if (seeds) { /* a checkpoint after 30 steps, with CPML and receiver history */
    char path[512];
    gs_fdtd_sim_advance(&sim, 30);
    snprintf(path, sizeof path, "%s/checkpoint", seeds);
    if (gs_fdtd_checkpoint_write(&sim, path, err, sizeof err) != GS_OK) abort();
  }
  return 0;
}

/* Loads dir's checkpoint; aborts unless it is GS_OK or a one-line refusal. */
static void load(void) {
  gs_ckpt_old old;
  char err[1024] = "";
  gs_status st = gs_ckpt_load(&sim, &comm, dir, &old, err, sizeof err);
  if (st != GS_OK && (!err[0] || strchr(err, '\n'))) abort();
}

/* The CRCs of a checkpoint file's image (at least a header long) made to
 * hold: the data's (header offset 272), then the header's (its last 4). */
static void fix_crcs(uint8_t *b, size_t size) {
  uint32_t crc = (uint32_t)crc32(0L, b + GS_CKPT_HEADER_BYTES, (uInt)(size - GS_CKPT_HEADER_BYTES));
  for (int k = 0; k < 4; ++k)
    b[272 + k] = (uint8_t)(crc >> (8 * k));
  crc = (uint32_t)crc32(0L, b, GS_CKPT_HEADER_BYTES - 4);
  for (int k = 0; k < 4; ++k)
    b[GS_CKPT_HEADER_BYTES - 4 + k] = (uint8_t)(crc >> (8 * k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char mtag[] = "gpustencil checkpoint manifest";
  char single[512], manifest[512];
  snprintf(single, sizeof single, "%s/checkpoint.gsck", dir);
  snprintf(manifest, sizeof manifest, "%s/checkpoint.manifest", dir);
  if (size >= sizeof mtag - 1 && memcmp(data, mtag, sizeof mtag - 1) == 0) {
    unlink(single);
    put_file("checkpoint.manifest", data, size);
    load();
    unlink(manifest);
    return 0;
  }
  put_file("checkpoint.gsck", data, size);
  load();
  if (size >= GS_CKPT_HEADER_BYTES) {
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    fix_crcs(copy, size);
    put_file("checkpoint.gsck", copy, size);
    free(copy);
    load();
  }
  unlink(single);
  return 0;
}

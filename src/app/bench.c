/* gpustencil bench: benchmarks that print their ratio to a ceiling measured
 * in the same run.
 *   bench scale: the scale kernel's GB/s (bytes read + written) against a
 *   device-to-device copy of the same bytes, for 8/16-bit grey and 8-bit
 *   grey+alpha; checks the kernel's output against the CPU reference.
 *   bench fdtd: one rank: Mcells/s, bytes per cell and GB/s over the copy's;
 *   several ranks: the N-rank time over the 1-rank time of the same job
 *   (3D grids and scene files: bench_fdtd3.c).
 *   bench halo: the ghost exchange alone, GB/s over cudaMemcpyPeer's. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"
#include "fdtd.h"
#include "fdtd3d.h"
#include "fdtd3d_dist.h"
#include "fdtd_opts.h"
#include "log.h"
#include "workbound.h"

const gs_bench_opts gs_bench_defaults = {.mib = 1024, .reps = 20, .size = "8192x8192", .pml = -1, .disp_fraction = -1};

// clang-format off
const gs_opt gs_bench_opt_table[] = {
    {"size",  0, GS_OPT_INT,    offsetof(gs_bench_opts, mib),   "MiB",  1, 1 << 20, "bytes per buffer for bench scale (default 1024)"},
    {"reps",  0, GS_OPT_INT,    offsetof(gs_bench_opts, reps),  "N",    1, 100000,  "timed repetitions; the median is reported (default 20)"},
    {"grid",  0, GS_OPT_STRING, offsetof(gs_bench_opts, size),  "WxH",  0, 0,       "bench fdtd, halo: cells (default 8192x8192; bench fdtd also NXxNYxNZ: 3D)"},
    {"steps", 0, GS_OPT_INT,    offsetof(gs_bench_opts, steps), "N",    1, 1e9,     "bench fdtd: timed steps (default 200; SCENE.in: its own)"},
    {"weak",  0, GS_OPT_FLAG,   offsetof(gs_bench_opts, weak),  NULL,   0, 0,       "bench fdtd on several ranks: --grid is per rank (weak scaling)"},
    {"csv",   0, GS_OPT_STRING, offsetof(gs_bench_opts, csv),   "FILE", 0, 0,       "bench fdtd (3D, or 2D on several ranks), halo: append the result as a CSV row"},
    {"pml",   0, GS_OPT_INT,    offsetof(gs_bench_opts, pml),   "CELLS", 0, 1000,   "bench fdtd, 3D grid: CPML cells on every face (default 10, gprMax's)"},
    {"debye", 0, GS_OPT_INT,    offsetof(gs_bench_opts, debye), "POLES", 1, 15,     "bench fdtd, 3D grid: the soil has POLES Debye poles"},
    {"lorentz", 0, GS_OPT_INT,  offsetof(gs_bench_opts, lorentz), "POLES", 1, 15,   "bench fdtd, 3D grid: the soil has POLES Lorentz poles"},
    {"drude", 0, GS_OPT_INT,    offsetof(gs_bench_opts, drude), "POLES", 1, 15,     "bench fdtd, 3D grid: the soil has POLES Drude poles"},
    {"dispersive-fraction", 0, GS_OPT_DOUBLE, offsetof(gs_bench_opts, disp_fraction), "F", 0, 1,
     "bench fdtd, 3D grid: the soil fills the lower F of the domain in z (default 0.5)"},
    {NULL,    0, 0,             0,                              NULL,   0, 0,       NULL},
};
// clang-format on

/* Refuses (one line on rank 0, the same decision on every rank) a benchmark whose options would
 * take more than GS_BENCH_MAX_SECONDS at the fastest this backend could go (docs/usage.md, "Limits
 * on a job's length"). 1 or 0. */
static int bench_too_long(const gs_run *run, const char *what, double least_seconds) {
  char why[128];
  if (!gs_work_too_long(least_seconds, GS_BENCH_MAX_SECONDS, why, sizeof why)) return 0;
  if (run->comm.rank == 0)
    gs_log_error("bench %s: these options %s: fewer --steps or --reps, or a smaller --grid or --size", what, why);
  return 1;
}

/* The least seconds of bench fdtd: steps over cells (per rank with --weak) on every rank, and
 * with several ranks the one-rank reference of one rank's grid (weak) or the whole (strong). */
static double fdtd_least_seconds(const gs_run *run, const gs_bench_opts *o, double cells, double passes) {
  const int n = run->comm.size, gpu = run->backend->is_gpu;
  const double steps = passes * (double)(GS_BENCH_WARMUP + o->steps);
  if (n == 1) return gs_work_least_seconds(cells, steps, 1, gpu);
  return gs_work_least_seconds(cells * (o->weak ? n : 1), steps, n, gpu) + gs_work_least_seconds(cells, steps, 1, gpu);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

typedef enum { OP_COPY, OP_U8, OP_U16, OP_U8A } bench_op;

/* Median milliseconds of reps runs of op on the backend. */
static float time_op(const gs_backend *b, bench_op op, void *in, void *out, size_t bytes, gs_stream s, int reps) {
  float *ms = gs_xmalloc(sizeof *ms * (size_t)reps);
  gs_event e0 = b->event_create(1), e1 = b->event_create(1);
  for (int r = -2; r < reps; ++r) { /* two warm-up runs */
    b->event_record(e0, s);
    switch (op) {
    case OP_COPY:
      b->copy_d2d(out, in, bytes, s);
      break;
    case OP_U8:
      b->scale_u8(in, out, bytes, gs_scale_params_make(3.0, 8, 1), s);
      break;
    case OP_U16:
      b->scale_u16(in, out, bytes / 2, gs_scale_params_make(3.0, 16, 1), s);
      break;
    case OP_U8A:
      b->scale_u8(in, out, bytes, gs_scale_params_make(3.0, 8, 2), s);
      break;
    }
    b->event_record(e1, s);
    b->event_sync(e1);
    if (r >= 0) ms[r] = b->event_elapsed_ms(e0, e1);
  }
  qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
  float med = ms[reps / 2];
  b->event_destroy(e0);
  b->event_destroy(e1);
  free(ms);
  return med;
}

/* The kernel's output equals the CPU reference on the first and last MiB. */
static int verify(const gs_backend *b, bench_op op, const uint8_t *h_in, void *d_out, size_t bytes) {
  size_t win = bytes < (1u << 20) ? bytes : (1u << 20);
  uint8_t *got = gs_xmalloc(win), *want = gs_xmalloc(win);
  int ok = 1;
  for (int part = 0; part < 2; ++part) {
    size_t off = part ? bytes - win : 0; /* multiples of 16: pixel aligned */
    off &= ~(size_t)15;
    b->copy_d2h(got, (uint8_t *)d_out + off, win, NULL);
    b->stream_sync(NULL);
    if (op == OP_U16)
      gs_scale_u16_ref((const uint16_t *)(h_in + off), (uint16_t *)want, win / 2, gs_scale_params_make(3.0, 16, 1),
                       NULL);
    else
      gs_scale_u8_ref(h_in + off, want, win, gs_scale_params_make(3.0, 8, op == OP_U8A ? 2 : 1), NULL);
    ok &= memcmp(got, want, win) == 0;
  }
  free(got);
  free(want);
  return ok;
}

static int bench_scale(gs_run *run, const gs_bench_opts *o) {
  const gs_backend *b = run->backend;
  size_t bytes = (size_t)o->mib << 20;
  /* Refused before any buffer is made: a host buffer and two device buffers
   * (on the CPU backend all three in host memory). */
  const gs_fdtd_memory need = {.device = 2.0 * (double)bytes, .host = (double)bytes};
  char err[256];
  if (gs_fdtd_memory_check(&run->comm, b, need, err, sizeof err) != GS_OK) {
    if (err[0]) gs_log_error("bench scale: --size %d MiB: %s", (int)o->mib, err);
    return GS_EXIT_USAGE;
  }
  /* four kernels of (reps + 2) runs, each reading and writing the buffer */
  if (bench_too_long(run, "scale", gs_copy_least_seconds(8.0 * (double)(o->reps + 2) * (double)bytes, b->is_gpu)))
    return GS_EXIT_USAGE;
  uint8_t *h = b->host_alloc(bytes);
  uint64_t x = 0x2545F4914F6CDD1Dull + (uint64_t)run->comm.rank;
  for (size_t i = 0; i < bytes; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(h + i, &x, bytes - i < 8 ? bytes - i : 8);
  }
  void *d_in = b->dev_alloc(bytes), *d_out = b->dev_alloc(bytes);
  b->copy_h2d(d_in, h, bytes, NULL);
  b->stream_sync(NULL);
  gs_stream s = b->stream_create(0);
  char where[300];
  snprintf(where, sizeof where, "%s", run->place.gpu >= 0 ? run->place.dev.name : "cpu");
  float copy_ms = time_op(b, OP_COPY, d_in, d_out, bytes, s, (int)o->reps);
  double copy_gbs = 2.0 * (double)bytes / (copy_ms * 1e-3) * 1e-9;
  if (run->comm.rank == 0) {
    printf("bench scale: backend %s on %s, %zu MiB per buffer, median of %d runs\n", b->name, where, bytes >> 20,
           (int)o->reps);
    printf("%-22s %10s %10s %8s %s\n", "kernel", "ms", "GB/s", "ratio", "check");
    printf("%-22s %10.3f %10.1f %8.3f %s\n", "memcpy device-to-device", copy_ms, copy_gbs, 1.0, "-");
  }
  static const struct {
    bench_op op;
    const char *name;
  } ops[] = {{OP_U8, "scale u8 grey"}, {OP_U16, "scale u16 grey"}, {OP_U8A, "scale u8 grey+alpha"}};
  int all_ok = 1;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i) {
    float ms = time_op(b, ops[i].op, d_in, d_out, bytes, s, (int)o->reps);
    int ok = verify(b, ops[i].op, h, d_out, bytes);
    all_ok &= ok;
    double gbs = 2.0 * (double)bytes / (ms * 1e-3) * 1e-9;
    if (run->comm.rank == 0)
      printf("%-22s %10.3f %10.1f %8.3f %s\n", ops[i].name, ms, gbs, gbs / copy_gbs, ok ? "matches CPU" : "MISMATCH");
  }
  fflush(stdout);
  b->stream_destroy(s);
  b->dev_free(d_in);
  b->dev_free(d_out);
  b->host_free(h);
  return all_ok ? GS_EXIT_OK : GS_EXIT_PARTIAL;
}

/* Device-to-device copy GB/s (read + write) of bytes, median of 10. */
double gs_bench_copy_gbs(const gs_backend *b, size_t bytes) {
  void *x = b->dev_alloc(bytes), *y = b->dev_alloc(bytes);
  gs_stream s = b->stream_create(0);
  float ms = time_op(b, OP_COPY, x, y, bytes, s, 10);
  b->stream_destroy(s);
  b->dev_free(x);
  b->dev_free(y);
  return 2.0 * (double)bytes / (ms * 1e-3) * 1e-9;
}

/* Bytes each cell must move per step with the one-pass kernel
 * (docs/performance.md): read Ez, Hx, Hy and the material index, write Ez,
 * Hx, Hy; neighbours' values come from the caches. */
#define GS_FDTD_BYTES_PER_CELL 25.0

/* Appends a row (and the header to an empty file); GS_EXIT_PARTIAL where it
 * cannot (said on one line), else GS_EXIT_OK: the figures were printed, the
 * file the user asked for was not written. */
int gs_bench_csv_row(const char *path, const char *header, const char *fmt, ...) {
  if (!path) return GS_EXIT_OK;
  /* Non-blocking, and only a regular file: a FIFO with no reader must not hang the benchmark. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat sb;
  FILE *fp = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? fdopen(fd, "a") : NULL;
  if (!fp) {
    gs_log_error("bench: --csv %s: %s", path, fd < 0 ? strerror(errno) : "not a regular file to append to");
    if (fd >= 0) close(fd);
    return GS_EXIT_PARTIAL;
  }
  fseek(fp, 0, SEEK_END);
  if (ftell(fp) == 0) fprintf(fp, "%s\n", header);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(fp, fmt, ap);
  va_end(ap);
  fputc('\n', fp);
  if (fclose(fp) == 0) return GS_EXIT_OK;
  gs_log_error("bench: --csv %s: write failed", path);
  return GS_EXIT_PARTIAL;
}

/* Refuses (on every rank, before anything is allocated) a benchmark grid of
 * w x h nodes whose part [coords of dims] does not fit a rank: a 1-rank
 * reference runs the whole grid on rank 0, so a strong-scaling run asks the
 * whole grid of every rank (dims 1x1). */
static int grid_refused(const gs_run *run, const char *what, int64_t w, int64_t h, const int dims[2], int steps) {
  gs_scene sc;
  gs_scene_synthetic(&sc, w, h, steps);
  int r = run->comm.rank, coords[2] = {r / dims[1] % dims[0], r % dims[1]};
  gs_fdtd_part part = gs_fdtd_part_of(&sc, dims, coords);
  char err[512];
  gs_status st = gs_fdtd_memory_check(&run->comm, run->backend, gs_fdtd_memory_need(&sc, &part, GS_FDTD_MAX_DEPTH, 0),
                                      err, sizeof err);
  if (st != GS_OK && err[0]) gs_log_error("bench %s: --grid %lldx%lld: %s", what, (long long)w, (long long)h, err);
  gs_scene_free(&sc);
  return st != GS_OK;
}

/* Several ranks: the 1-rank time of the reference grid (rank 0 alone) and the
 * N-rank time, measured in the same job; strong scaling by default, weak with
 * --weak. */
static int bench_fdtd_ranks(gs_run *run, const gs_bench_opts *o, int64_t w, int64_t h) {
  const gs_fdtd_spread spread = gs_fdtd_spread_of(&o->spread);
  const gs_backend *b = run->backend;
  const gs_comm *c = &run->comm;
  int dims[2];
  if (gs_fdtd_decomp(o->spread.decomp, c->size, w, h, dims) != 0) {
    if (c->rank == 0)
      gs_log_error("bench fdtd: --decomp '%s' is not PXxPY with PX * PY = %d ranks", o->spread.decomp, c->size);
    return GS_EXIT_USAGE;
  }
  int64_t gw = o->weak ? w * dims[0] : w, gh = o->weak ? h * dims[1] : h;
  char err[512] = "", used[64] = "";
  gs_fdtd_timing t1 = {0}, tn = {0};
  MPI_Comm alone;
  GS_MPI_CHECK(MPI_Comm_split(c->world, c->rank == 0 ? 0 : MPI_UNDEFINED, 0, &alone));
  int bad = 0, depth = 1;
  if (alone != MPI_COMM_NULL) {
    gs_scene ref;
    gs_scene_synthetic(&ref, w, h, GS_BENCH_WARMUP + o->steps);
    const int one[2] = {1, 1};
    gs_fdtd_spread single = {GS_HALO_AUTO, 1, 1, spread.graphs};
    bad = gs_fdtd_timed_run(&ref, b, alone, one, &single, GS_BENCH_WARMUP, o->steps, &t1, NULL, 0, NULL, err,
                            sizeof err) != GS_OK;
    if (bad) gs_log_error("bench fdtd: %s", err);
    gs_scene_free(&ref);
    GS_MPI_CHECK(MPI_Comm_free(&alone));
  }
  if (gs_comm_agree(bad, c->world)) return GS_EXIT_USAGE;
  GS_MPI_CHECK(MPI_Bcast(&t1, (int)(sizeof t1 / sizeof(double)), MPI_DOUBLE, 0, c->world));
  gs_scene sc;
  gs_scene_synthetic(&sc, gw, gh, GS_BENCH_WARMUP + o->steps);
  gs_status st = gs_fdtd_timed_run(&sc, b, c->world, dims, &spread, GS_BENCH_WARMUP, o->steps, &tn, used, sizeof used,
                                   &depth, err, sizeof err);
  gs_scene_free(&sc);
  if (st != GS_OK) {
    if (err[0]) gs_log_error("bench fdtd: decomposition %dx%d: %s", dims[0], dims[1], err);
    return GS_EXIT_USAGE;
  }
  int status = GS_EXIT_OK;
  if (c->rank == 0) {
    double cells1 = (double)w * (double)h, cellsn = (double)gw * (double)gh;
    double eff = o->weak ? t1.seconds / tn.seconds : t1.seconds / ((double)c->size * tn.seconds);
    double ms1 = t1.seconds * 1e3 / (double)o->steps, msn = tn.seconds * 1e3 / (double)o->steps;
    double mc1 = cells1 * (double)o->steps / t1.seconds * 1e-6, mcn = cellsn * (double)o->steps / tn.seconds * 1e-6;
    double halo_mb = tn.halo_bytes / (double)o->steps * 1e-6;
    printf("bench fdtd: backend %s, %s scaling, grid %lldx%lld, %d ranks, decomposition %dx%d, transport %s, "
           "overlap %s, halo depth %d, CUDA graphs %s, %lld steps after %d untimed\n",
           b->name, o->weak ? "weak" : "strong", (long long)gw, (long long)gh, c->size, dims[0], dims[1], used,
           spread.overlap ? "on" : "off", depth, tn.graphs ? "on" : "off", (long long)o->steps, GS_BENCH_WARMUP);
    printf("  1 rank  (%lldx%lld): %.4f ms per step, %.1f Mcells/s, CUDA graphs %s\n", (long long)w, (long long)h, ms1,
           mc1, t1.graphs ? "on" : "off");
    printf("  %d ranks: %.4f ms per step, %.1f Mcells/s, efficiency %.1f%% of the 1-rank time, halo %.3f MB per step "
           "and rank (%.2f GB/s of traffic)\n",
           c->size, msn, mcn, 100 * eff, halo_mb, halo_mb / msn);
    fflush(stdout);
    status = gs_bench_csv_row(
        o->csv,
        "kind,scaling,grid_w,grid_h,ranks,decomp,transport,overlap,depth,steps,ms_step_1,ms_step_n,mcells_1,"
        "mcells_n,efficiency,halo_mb_step",
        "fdtd,%s,%lld,%lld,%d,%dx%d,%s,%d,%d,%lld,%.5f,%.5f,%.1f,%.1f,%.4f,%.4f", o->weak ? "weak" : "strong",
        (long long)gw, (long long)gh, c->size, dims[0], dims[1], used, spread.overlap, depth, (long long)o->steps, ms1,
        msn, mc1, mcn, eff, halo_mb);
  }
  return status;
}

/* The exchange alone: o->reps exchanges of the ghost layers of a --grid
 * split over the ranks, GB/s sent per rank, against a cudaMemcpyPeer of the
 * same bytes and of 256 MiB between rank 0's GPU and rank 1's, one way and
 * both ways at once. */
/* Whether every rank's share of a model needing dev device bytes fits its
 * memory (with a fifth to spare), agreed by all ranks so that all go on or
 * none does. */
int gs_bench_parts_fit(gs_run *run, double dev) {
  int tight = dev / run->comm.size * 1.2 > (double)run->backend->mem_available(), any;
  GS_MPI_CHECK(MPI_Allreduce(&tight, &any, 1, MPI_INT, MPI_MAX, run->comm.world));
  return !any;
}

/* Ceilings of an exchange of `bytes`: cudaMemcpyPeer from rank 0's GPU to
 * rank 1's, one way and both ways at once, of those bytes and of 256 MiB
 * (rank 0; zeros where rank 0 sees no second GPU it can reach). Collective. */
static void peer_ceilings(gs_run *run, double bytes, double *same, double *big, double *both_same, double *both_big) {
  const gs_backend *b = run->backend;
  gs_device_desc dd = {0};
  if (b->is_gpu) b->device_describe(b->device_current(), &dd);
  char **bus = gs_comm_allgather_text(dd.pci_bus_id, run->comm.world);
  *same = *big = *both_same = *both_big = 0;
  if (run->comm.rank == 0 && b->peer_copy_gbs) {
    int mine = b->device_current(), other = b->device_by_pci(bus[1]);
    if (other >= 0 && other != mine && b->can_access_peer(mine, other)) {
      *same = b->peer_copy_gbs(mine, other, (size_t)bytes, 0);
      *big = b->peer_copy_gbs(mine, other, (size_t)256 << 20, 0);
      *both_same = b->peer_copy_gbs(mine, other, (size_t)bytes, 1);
      *both_big = b->peer_copy_gbs(mine, other, (size_t)256 << 20, 1);
    }
  }
  gs_comm_free_texts(bus, run->comm.size);
}

/* The rate lines of bench halo: bytes per rank and exchange, the time of one
 * exchange, and the ratios to the ceilings (peer_ceilings). */
static void print_halo_rates(double bytes, double per, double same, double big, double both_same, double both_big) {
  const double gbs = bytes / per * 1e-9;
  printf("  %.1f KB sent per rank and exchange, %.2f us per exchange, %.2f GB/s per rank\n", bytes * 1e-3, per * 1e6,
         gbs);
  if (big > 0) {
    printf("  cudaMemcpyPeer GPU0 -> GPU1: %.2f GB/s for the same bytes (ratio %.3f), %.2f GB/s for 256 MiB (ratio "
           "%.3f)\n",
           same, gbs / same, big, gbs / big);
    printf("  both ways at once (as an exchange sends), each way: %.2f GB/s for the same bytes (ratio %.3f), %.2f GB/s "
           "for 256 MiB (ratio %.3f)\n",
           both_same, gbs / both_same, both_big, gbs / both_big);
  } else
    printf("  no cudaMemcpyPeer ceiling: rank 0 sees no second GPU it can reach\n");
  fflush(stdout);
}

/* bench halo --grid NXxNYxNZ: the ghost exchanges of a 3D model split as
 * fdtd splits it (both layers, H and E, per step), against the copy
 * ceilings. */
static int bench_halo3(gs_run *run, const gs_bench_opts *o, int64_t nx, int64_t ny, int64_t nz) {
  const gs_backend *b = run->backend;
  gs_scene sc;
  gs_scene_synthetic3(&sc, nx, ny, nz, 10);
  double dev, host, bytes, most;
  gs_fdtd3_memory_need(&sc, &dev, &host);
  gs_fdtd3_ranks rk;
  char why[512] = "", used[64];
  const int made = gs_fdtd3_ranks_make(&rk, run->comm.world, &sc, o->spread.decomp,
                                       gs_fdtd_spread_of(&o->spread).transport, why, sizeof why) == 0;
  if (run->comm.size < 2 || !made || !gs_bench_parts_fit(run, dev)) {
    if (run->comm.rank == 0)
      gs_log_error("bench halo: --grid %lldx%lldx%lld: %s", (long long)nx, (long long)ny, (long long)nz,
                   run->comm.size < 2 ? "needs at least 2 ranks"
                   : why[0]           ? why
                                      : "a rank's part does not fit");
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  gs_fdtd3_sim m;
  if (gs_fdtd3_sim_init_part(&m, &sc, b, 0, &rk, why, sizeof why) != GS_OK)
    gs_fatal("gs_fdtd3_sim_init_part", why, __FILE__, __LINE__);
  gs_fdtd3_dist_time_exchanges(&m, 3, &bytes, used, sizeof used); /* warm-up */
  const double secs = gs_fdtd3_dist_time_exchanges(&m, o->reps, &bytes, used, sizeof used);
  gs_fdtd3_sim_free(&m);
  GS_MPI_CHECK(MPI_Allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, run->comm.world));
  double same, big, both_same, both_big;
  peer_ceilings(run, most, &same, &big, &both_same, &both_big);
  int status = GS_EXIT_OK;
  if (run->comm.rank == 0) {
    const double per = secs / (double)o->reps;
    printf("bench halo: backend %s, 3D grid %lldx%lldx%lld, %d ranks, decomposition %dx%dx%d, transport %s (rank 0), "
           "one step's ghost layers (H and E), %lld exchanges\n",
           b->name, (long long)nx, (long long)ny, (long long)nz, run->comm.size, rk.dims[0], rk.dims[1], rk.dims[2],
           used, (long long)o->reps);
    print_halo_rates(most, per, same, big, both_same, both_big);
    status = gs_bench_csv_row(
        o->csv, "kind,nx,ny,nz,ranks,decomp,transport,exchanges,bytes,us_exchange,gbs,peer_same_gbs,peer_256m_gbs",
        "halo3d,%lld,%lld,%lld,%d,%dx%dx%d,%s,%lld,%.0f,%.3f,%.3f,%.3f,%.3f", (long long)nx, (long long)ny,
        (long long)nz, run->comm.size, rk.dims[0], rk.dims[1], rk.dims[2], used, (long long)o->reps, most, per * 1e6,
        most / per * 1e-9, same, big);
  }
  gs_scene_free(&sc);
  return status;
}

static int bench_halo(gs_run *run, const gs_bench_opts *o) {
  const gs_fdtd_spread spread = gs_fdtd_spread_of(&o->spread);
  const gs_backend *b = run->backend;
  const gs_comm *c = &run->comm;
  int64_t w, h;
  int dims[2];
  long long g3[3];
  char tail;
  if (sscanf(o->size, "%lldx%lldx%lld%c", &g3[0], &g3[1], &g3[2], &tail) == 3) {
    if (g3[0] < 32 || g3[1] < 32 || g3[2] < 32 || g3[0] > 100000 || g3[1] > 100000 || g3[2] > 100000) {
      if (c->rank == 0) gs_log_error("bench halo: --grid '%s': 3D grids are 32 to 100000 cells a side", o->size);
      return GS_EXIT_USAGE;
    }
    return bench_halo3(run, o, g3[0], g3[1], g3[2]);
  }
  if (gs_parse_size2(o->size, &w, &h) != 0 || w < 32 || h < 32) {
    if (c->rank == 0) gs_log_error("bench halo: --grid '%s' is not WxH (at least 32x32)", o->size);
    return GS_EXIT_USAGE;
  }
  if (c->size < 2 || gs_fdtd_decomp(o->spread.decomp, c->size, w, h, dims) != 0) {
    if (c->rank == 0)
      gs_log_error("bench halo: needs at least 2 ranks%s", o->spread.decomp ? " and --decomp PXxPY matching them" : "");
    return GS_EXIT_USAGE;
  }
  if (grid_refused(run, "halo", w, h, dims, 10)) return GS_EXIT_USAGE;
  gs_scene sc;
  gs_scene_synthetic(&sc, w, h, 10);
  gs_fdtd_spread sp = {spread.transport, spread.depth ? spread.depth : 1, 1, 0};
  char err[512] = "";
  gs_fdtd_sim m;
  MPI_Comm cart;
  if (gs_fdtd_sim_open(&m, &sc, b, c->world, dims, &sp, &cart, err, sizeof err) != GS_OK) {
    if (err[0]) gs_log_error("bench halo: %s", err);
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  int depth = m.dist.depth;
  char used[64];
  gs_halo_summary(m.dist.halo, used, sizeof used);
  double bytes = gs_halo_bytes_per_exchange(m.dist.halo), most;
  GS_MPI_CHECK(MPI_Allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, c->world));
  double secs = 0;
  for (int pass = 0; pass < 2; ++pass) { /* a warm-up pass, then the timed one */
    gs_fdtd_sim_sync(&m);
    GS_MPI_CHECK(MPI_Barrier(c->world));
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < o->reps; ++k) {
      if (depth > 1) gs_halo_reads_done(m.dist.halo, m.s);
      gs_halo_send(m.dist.halo, m.fields.cur, m.s);
      gs_halo_finish(m.dist.halo, m.fields.cur, m.s);
      gs_halo_wait(m.dist.halo, m.s);
    }
    gs_fdtd_sim_sync(&m);
    double mine = MPI_Wtime() - t0;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &secs, 1, MPI_DOUBLE, MPI_MAX, c->world));
  }
  double peer_same, peer_big, both_same, both_big;
  peer_ceilings(run, most, &peer_same, &peer_big, &both_same, &both_big);
  if (c->rank == 0) {
    double per = secs / (double)o->reps, gbs = most / per * 1e-9;
    printf(
        "bench halo: backend %s, grid %lldx%lld, %d ranks, decomposition %dx%d, transport %s (rank 0), halo depth %d, "
        "%lld exchanges\n",
        b->name, (long long)w, (long long)h, c->size, dims[0], dims[1], used, depth, (long long)o->reps);
    print_halo_rates(most, per, peer_same, peer_big, both_same, both_big);
    gs_bench_csv_row(
        o->csv,
        "kind,grid_w,grid_h,ranks,decomp,transport,depth,exchanges,bytes,us_exchange,gbs,peer_same_gbs,peer_256m_gbs,"
        "peer_both_same_gbs,peer_both_256m_gbs",
        "halo,%lld,%lld,%d,%dx%d,%s,%d,%lld,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", (long long)w, (long long)h, c->size,
        dims[0], dims[1], used, depth, (long long)o->reps, most, per * 1e6, gbs, peer_same, peer_big, both_same,
        both_big);
  }
  gs_fdtd_sim_free(&m);
  MPI_Comm_free(&cart);
  gs_scene_free(&sc);
  return GS_EXIT_OK;
}

/* Seconds of the steps queued between two timing events on stream s. */
typedef struct step_timer {
  const gs_backend *b;
  gs_event e0, e1;
} step_timer;

static step_timer timer_start(const gs_backend *b, gs_stream s) {
  step_timer t = {b, b->event_create(1), b->event_create(1)};
  b->event_record(t.e0, s);
  return t;
}

static double timer_stop(step_timer *t, gs_stream s) {
  t->b->event_record(t->e1, s);
  t->b->event_sync(t->e1);
  double secs = t->b->event_elapsed_ms(t->e0, t->e1) * 1e-3;
  t->b->event_destroy(t->e0);
  t->b->event_destroy(t->e1);
  return secs;
}

/* The rate line of the 2D fdtd benchmark under its header. */
static void print_rate(double cells, int64_t steps, double secs, double bytes_per_cell, double copy_gbs) {
  double mcells = cells * (double)steps / secs * 1e-6, gbs = mcells * 1e6 * bytes_per_cell * 1e-9;
  printf("  %.1f Mcells/s, %.3f ms per step, %.0f bytes per cell, %.1f GB/s = %.3f of the device-to-device copy "
         "(%.1f GB/s)\n",
         mcells, secs * 1e3 / (double)steps, bytes_per_cell, gbs, gbs / copy_gbs, copy_gbs);
  fflush(stdout);
}

/* Seconds of steps steps of m from where it stands, after GS_BENCH_WARMUP untimed
 * ones (which capture the CUDA graph, on the one-step path). */
static double time_steps(const gs_backend *b, gs_fdtd_sim *m, int64_t steps) {
  gs_fdtd_sim_advance(m, GS_BENCH_WARMUP);
  gs_fdtd_sim_sync(m);
  step_timer t = timer_start(b, m->s);
  gs_fdtd_sim_advance(m, steps);
  const double secs = timer_stop(&t, m->s);
  gs_fdtd_sim_sync(m);
  return secs;
}

/* A faster path against the one-step one (t1 seconds) and its ceiling. */
static void print_path(double cells, int64_t steps, double secs, double t1, double ceiling) {
  const double mc = cells * (double)steps / secs * 1e-6;
  printf("  %.1f Mcells/s, %.4f ms per step = %.2fx T = 1, %.2fx the one-step ceiling\n", mc,
         secs * 1e3 / (double)steps, t1 / secs, mc / ceiling);
}

/* One rank, one simulation of the synthetic w x h scene taking each path
 * in turn: one step a launch (T = 1), its ceiling (the copy's GB/s over
 * the bytes a step must move per cell), the grid on chip where it fits (T
 * steps a launch), and passes of T fused steps for every T the backend
 * takes, all measured in this run. */
static int bench_fdtd_one(gs_run *run, const gs_bench_opts *o, int64_t w, int64_t h) {
  const gs_backend *b = run->backend;
  const double copy_gbs = gs_bench_copy_gbs(b, (size_t)1 << 30), cells = (double)w * (double)h;
  const double ceiling = copy_gbs * 1e9 / GS_FDTD_BYTES_PER_CELL * 1e-6;
  gs_scene sc;
  gs_scene_synthetic(&sc, w, h,
                     (3 + GS_FDTD_FUSE_MAX) * (GS_BENCH_WARMUP + o->steps)); /* sources' values for every path */
  gs_fdtd_sim m;
  gs_fdtd_sim_init(&m, &sc, b, 0);
  m.graph.allowed = m.graph.allowed && gs_fdtd_spread_of(&o->spread).graphs;
  gs_fdtd_sim_set_onchip(&m, 0);
  gs_fdtd_sim_set_fuse(&m, 0);
  const double t1 = time_steps(b, &m, o->steps);
  printf("bench fdtd: backend %s on %s, %lld x %lld cells, %lld steps after %d untimed, 10-cell CPML\n", b->name,
         run->place.gpu >= 0 ? run->place.dev.name : "cpu", (long long)w, (long long)h, (long long)o->steps,
         GS_BENCH_WARMUP);
  printf(" T = 1 (one step a launch), CUDA graphs %s:\n", m.graph.exec ? "on" : "off");
  print_rate(cells, o->steps, t1, GS_FDTD_BYTES_PER_CELL, copy_gbs);
  printf("  one-step ceiling: %.1f GB/s / %.0f bytes per cell = %.1f Mcells/s (%.3f ms per step); T = 1 reaches %.3f "
         "of it\n",
         copy_gbs, GS_FDTD_BYTES_PER_CELL, ceiling, cells / ceiling * 1e-6 * 1e3,
         cells * (double)o->steps / t1 * 1e-6 / ceiling);
  if (!gs_fdtd_sim_set_onchip(&m, 1)) {
    printf(" the grid on chip: does not fit this device\n");
  } else {
    printf(" the grid on chip (%s), T = %lld steps a launch (the fields read and written once a launch):\n",
           m.onchip_form, (long long)(o->steps < GS_RX_CHUNK ? o->steps : GS_RX_CHUNK));
    print_path(cells, o->steps, time_steps(b, &m, o->steps), t1, ceiling);
    gs_fdtd_sim_set_onchip(&m, 0);
  }
  if (!b->is_gpu) /* the CPU's twin is the loop of single steps: nothing to time */
    printf(" passes of T fused steps: the GPU's (the CPU twin is the loop of single steps)\n");
  for (int T = 2; b->is_gpu && T <= GS_FDTD_FUSE_MAX; ++T) {
    if (gs_fdtd_sim_set_fuse(&m, T) != T) {
      printf(" passes of %d fused steps: not taken by this backend\n", T);
      break;
    }
    printf(" passes of T = %d fused steps (the fields read and written once a pass):\n", T);
    print_path(cells, o->steps, time_steps(b, &m, o->steps), t1, ceiling);
  }
  fflush(stdout);
  gs_fdtd_sim_free(&m);
  gs_scene_free(&sc);
  return GS_EXIT_OK;
}

/* The 3D options given where there is no synthetic 3D scene: one line, or NULL. */
static const char *misplaced_3d(const gs_bench_opts *o, int scene) {
  const int given = o->pml >= 0 || o->debye || o->lorentz || o->drude || o->disp_fraction >= 0;
  if (!given) return NULL;
  return scene ? "--pml, --debye, --lorentz, --drude and --dispersive-fraction shape the synthetic --grid scene, "
                 "not SCENE.in"
               : "--pml, --debye, --lorentz, --drude and --dispersive-fraction are for 3D grids (--grid NXxNYxNZ)";
}

static int bench_fdtd(gs_run *run, const gs_bench_opts *o) {
  int64_t w, h;
  long long g3[3];
  char tail;
  if (sscanf(o->size, "%lldx%lldx%lld%c", &g3[0], &g3[1], &g3[2], &tail) == 3) {
    if (g3[0] < 32 || g3[1] < 32 || g3[2] < 32 || g3[0] > 100000 || g3[1] > 100000 || g3[2] > 100000) {
      if (run->comm.rank == 0) gs_log_error("bench fdtd: --grid '%s': 3D grids are 32 to 100000 cells a side", o->size);
      return GS_EXIT_USAGE;
    }
    if (bench_too_long(run, "fdtd", fdtd_least_seconds(run, o, (double)g3[0] * (double)g3[1] * (double)g3[2], 1)))
      return GS_EXIT_USAGE;
    return gs_bench_fdtd3(run, o, g3[0], g3[1], g3[2]);
  }
  if (gs_parse_size2(o->size, &w, &h) != 0 || w < 32 || h < 32) {
    if (run->comm.rank == 0) gs_log_error("bench fdtd: --grid '%s' is not WxH (at least 32x32)", o->size);
    return GS_EXIT_USAGE;
  }
  if (misplaced_3d(o, 0)) {
    if (run->comm.rank == 0) gs_log_error("bench fdtd: %s", misplaced_3d(o, 0));
    return GS_EXIT_USAGE;
  }
  const int whole[2] = {1, 1};
  if (grid_refused(run, "fdtd", w, h, whole, (int)(GS_BENCH_WARMUP + o->steps))) return GS_EXIT_USAGE;
  /* one rank times every path: one step a launch, on chip, fused passes of 2..GS_FDTD_FUSE_MAX */
  if (bench_too_long(run, "fdtd",
                     fdtd_least_seconds(run, o, (double)w * (double)h, run->comm.size > 1 ? 1 : 1 + GS_FDTD_FUSE_MAX)))
    return GS_EXIT_USAGE;
  if (run->comm.size > 1) return bench_fdtd_ranks(run, o, w, h);
  return bench_fdtd_one(run, o, w, h);
}

int gs_bench_check(const void *opts, int argc, char **argv, char *err, size_t errlen) {
  const gs_bench_opts *o = opts;
  const int what =
      argc >= 1 && (strcmp(argv[0], "scale") == 0 || strcmp(argv[0], "fdtd") == 0 || strcmp(argv[0], "halo") == 0);
  if (!what || argc > 2 || (argc == 2 && strcmp(argv[0], "fdtd") != 0)) {
    snprintf(err, errlen, "WHAT must be 'scale', 'fdtd', 'fdtd SCENE.in' or 'halo'");
    return 1;
  }
  if (!!o->debye + !!o->lorentz + !!o->drude > 1) {
    snprintf(err, errlen, "fdtd: one of --debye, --lorentz and --drude at a time");
    return 1;
  }
  if (argc == 2 && misplaced_3d(o, 1)) {
    snprintf(err, errlen, "fdtd SCENE.in: %s", misplaced_3d(o, 1));
    return 1;
  }
  gs_fdtd_spread spread;
  return gs_fdtd_spread_parse(&o->spread, &spread, err, errlen);
}

int gs_bench_run(gs_run *run, const void *opts, int argc, char **argv) {
  gs_bench_opts o = *(const gs_bench_opts *)opts;
  char why[256];
  gs_halo_transport t = gs_fdtd_spread_of(&o.spread).transport;
  if (strcmp(argv[0], "scale") != 0 &&
      !gs_halo_transport_possible(t, run->backend, gs_comm_cuda_aware(), why, sizeof why)) {
    if (run->comm.rank == 0) gs_log_error("bench %s: %s", argv[0], why); /* the same on every rank, also on one */
    return GS_EXIT_USAGE;
  }
  if (argc == 2) return gs_bench_fdtd3_scene(run, &o, argv[1]); /* --steps 0: the scene's own */
  if (!o.steps) o.steps = 200;
  if (strcmp(argv[0], "halo") == 0) return bench_halo(run, &o);
  return strcmp(argv[0], "fdtd") == 0 ? bench_fdtd(run, &o) : bench_scale(run, &o);
}

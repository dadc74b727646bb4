/* bench fdtd for 3D models (bench.h): a synthetic soil scene (--grid
 * NXxNYxNZ, shaped by --pml, --debye / --lorentz / --drude and
 * --dispersive-fraction) on one rank or split over all, and a scene file's
 * own steps on one rank. Each prints its Mcells/s against the floor of the
 * step's traffic model (src/engine/fdtd3d_traffic.h): the bytes a step moves
 * at the GB/s of a device-to-device copy measured in the same run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fdtd.h"
#include "fdtd3d.h"
#include "fdtd3d_dist.h"
#include "fdtd3d_traffic.h"
#include "fdtd_opts.h"
#include "log.h"
#include "workbound.h"

/* The copy the floor is measured with: 1 GiB on a GPU (far past its
 * caches), 64 MiB on the CPU backend (its smoke tests). */
static size_t ceiling_bytes(const gs_backend *b) {
  return b->is_gpu ? (size_t)1 << 30 : (size_t)64 << 20;
}

/* Untimed steps before the timed ones: GS_BENCH_WARMUP on a GPU, 2 on the
 * CPU (no first launches or graphs to warm up). */
static int64_t warmup(const gs_backend *b) {
  return b->is_gpu ? GS_BENCH_WARMUP : 2;
}

static const char *where(const gs_run *run) {
  return run->place.gpu >= 0 ? run->place.dev.name : "cpu";
}

/* The synthetic scene's shape: CPML cells, the soil's share of z and its
 * poles (kind GS_DISP_*; 0 poles: none). */
typedef struct soil3 {
  int pml, kind, poles;
  double fraction;
} soil3;

static soil3 soil_of(const gs_bench_opts *o) {
  soil3 s = {o->pml >= 0 ? (int)o->pml : 10, GS_DISP_DEBYE, 0, o->disp_fraction >= 0 ? o->disp_fraction : 0.5};
  if (o->debye) s.kind = GS_DISP_DEBYE, s.poles = (int)o->debye;
  if (o->lorentz) s.kind = GS_DISP_LORENTZ, s.poles = (int)o->lorentz;
  if (o->drude) s.kind = GS_DISP_DRUDE, s.poles = (int)o->drude;
  return s;
}

/* "CPML 10 cells, soil over the lower 0.50 of z (Debye, 2 poles)". */
static void soil_text(const soil3 *s, char *out, size_t n) {
  static const char *const kinds[] = {"Debye", "Lorentz", "Drude"};
  int w = snprintf(out, n, "CPML %d cells, soil over the lower %.2f of z", s->pml, s->fraction);
  if (s->poles && w > 0 && (size_t)w < n)
    snprintf(out + w, n - (size_t)w, " (%s, %d pole%s)", kinds[s->kind], s->poles, s->poles > 1 ? "s" : "");
}

/* Pole q of the synthetic soil, within gprMax's limits at any cell size the
 * grid takes: Debye delta_er 4 / (q + 1), tau 1 ns x 0.2^q; Lorentz delta_er
 * 2.5 / (q + 1), 3 (q + 1) GHz, delta 1e9 / s; Drude 2 kHz, alpha 1e9 (q + 1)
 * / s (0.16 / (q + 1) S/m each). */
static void soil_poles(gs_dispersion *d, int kind, int poles) {
  *d = (gs_dispersion){.name = "soil", .material = 2, .npoles = poles, .kind = kind};
  for (int q = 0; q < poles; ++q) {
    if (kind == GS_DISP_DEBYE) d->deltaer[q] = 4.0 / (q + 1), d->tau[q] = 1e-9 * pow(0.2, q);
    if (kind == GS_DISP_LORENTZ) d->deltaer[q] = 2.5 / (q + 1), d->tau[q] = 3e9 * (q + 1), d->alpha[q] = 1e9;
    if (kind == GS_DISP_DRUDE) d->tau[q] = 2e3, d->alpha[q] = 1e9 * (q + 1);
  }
}

/* gs_scene_synthetic3 shaped by s: s->pml CPML cells on every face, the soil
 * box (material 2) over the lower s->fraction of z (none at 0) with its
 * poles, the dipole and receiver 5 cells above it (within the grid). */
static void synthetic3(gs_scene *sc, const soil3 *s, int64_t nx, int64_t ny, int64_t nz, int64_t iterations) {
  gs_scene_synthetic3(sc, nx, ny, nz, iterations);
  for (int k = 0; k < 6; ++k)
    sc->pml6[k] = s->pml;
  const int64_t top = gs_round_cells(s->fraction * (double)nz); /* the cells the geometry gives the box */
  sc->objs3[0].v[5] = s->fraction * (double)nz * sc->dz;
  sc->nobjs3 = top > 0;
  const int64_t above = top + 5 < nz - 2 ? top + 5 : nz - 2;
  sc->sources[0].k = above;
  sc->rxs[0].k = above;
  if (!s->poles) return;
  sc->disps = gs_xcalloc(1, sizeof *sc->disps);
  soil_poles(&sc->disps[0], s->kind, s->poles);
  sc->ndisps = 1;
}

/* Wall seconds of steps steps of m after warm untimed ones, the slowest
 * rank's when comm is not MPI_COMM_NULL (a part's steps wait on the host for
 * its exchanges, so events on its stream would not see them). */
static double time_fdtd3(gs_fdtd3_sim *m, int64_t warm, int64_t steps, MPI_Comm comm) {
  gs_fdtd3_sim_advance(m, warm);
  gs_fdtd3_sim_sync(m);
  if (comm != MPI_COMM_NULL) GS_MPI_CHECK(MPI_Barrier(comm));
  double t0 = MPI_Wtime();
  gs_fdtd3_sim_advance(m, steps);
  gs_fdtd3_sim_sync(m);
  double mine = MPI_Wtime() - t0, most = mine;
  if (comm != MPI_COMM_NULL) GS_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
  return most;
}

/* The rate lines of a 3D benchmark: steps steps in secs of a model moving
 * t's bytes a step, against a copy of copy_gbs. */
static void print_rate3(double secs, int64_t steps, const gs_fdtd3_traffic *t, const gs_fdtd3_traffic_in *in,
                        double copy_gbs) {
  const double per = secs / (double)steps, gbs = t->total / per * 1e-9, floor_s = t->total / (copy_gbs * 1e9);
  const double c = t->cells;
  printf("  %.1f Mcells/s, %.4f ms per step, %.2f bytes per cell (traffic model), %.1f GB/s = %.3f of the "
         "device-to-device copy (%.1f GB/s)\n",
         c / per * 1e-6, per * 1e3, t->per_cell, gbs, gbs / copy_gbs, copy_gbs);
  printf("  floor %.4f ms per step (%.1f MB a step at the copy's GB/s): the step runs at %.3f of its floor (%.2fx "
         "the floor's time)\n",
         floor_s * 1e3, t->total * 1e-6, floor_s / per, per / floor_s);
  printf("  bytes per cell: fields %.2f, materials %.2f, CPML %.2f, poles %.2f, sources and receivers %.4f, plane "
         "waves %.4f\n",
         t->fields / c, t->materials / c, t->cpml / c, t->poles / c, (t->sources + t->receivers) / c,
         t->planewaves / c);
  if (in->disp_nodes > 0)
    printf("  dispersive E nodes: %.0f (%.3f of 3 per cell; %.0f nodes with any), %.0f pole state floats and %.0f "
           "index bytes each, a map of %.2f bytes a cell\n",
           in->disp_nodes, in->disp_nodes / (3 * c), in->disp_any_nodes, in->disp_floats, in->disp_index_bytes,
           in->disp_map_bytes);
  fflush(stdout);
}

/* Builds sc on b into m: 0, or -1 after one line. */
static int build3(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b) {
  char err[1024];
  if (gs_fdtd3_sim_init(m, sc, b, 0, err, sizeof err) == GS_OK) return 0;
  gs_log_error("bench fdtd: %s", err);
  return -1;
}

/* One rank: builds sc, runs warm untimed steps (warm_apart: in a model
 * built and freed first, so that the timed steps are sc's first ones), times
 * steps steps; prints header, the rates and a --csv row labelled label. */
static int time_one(gs_run *run, const gs_bench_opts *o, const gs_scene *sc, int64_t warm, int warm_apart,
                    int64_t steps, const char *header, const char *label) {
  const gs_backend *b = run->backend;
  double dev, host;
  gs_fdtd3_memory_need(sc, &dev, &host);
  if (dev > (double)b->mem_available() || host > (double)gs_host_mem_available()) {
    gs_log_error("bench fdtd: %s: %lld x %lld x %lld cells do not fit in this rank's memory", label, (long long)sc->nx,
                 (long long)sc->ny, (long long)sc->nz);
    return GS_EXIT_USAGE;
  }
  const double copy_gbs = gs_bench_copy_gbs(b, ceiling_bytes(b));
  gs_fdtd3_sim m;
  if (warm_apart && warm > 0) {
    if (build3(&m, sc, b) != 0) return GS_EXIT_USAGE;
    gs_fdtd3_sim_advance(&m, warm);
    gs_fdtd3_sim_sync(&m);
    gs_fdtd3_sim_free(&m);
  }
  if (build3(&m, sc, b) != 0) return GS_EXIT_USAGE;
  const gs_fdtd3_traffic_in in = gs_fdtd3_traffic_of(&m);
  const gs_fdtd3_traffic t = gs_fdtd3_traffic_model(&in);
  const double secs = time_fdtd3(&m, warm_apart ? 0 : warm, steps, MPI_COMM_NULL);
  gs_fdtd3_sim_free(&m);
  printf("%s\n", header);
  print_rate3(secs, steps, &t, &in, copy_gbs);
  const double per = secs / (double)steps;
  return gs_bench_csv_row(o->csv, "kind,model,nx,ny,nz,steps,ms_step,mcells,bytes_per_cell,copy_gbs,of_floor",
                          "fdtd3d_one,%s,%lld,%lld,%lld,%lld,%.5f,%.1f,%.3f,%.1f,%.4f", label, (long long)sc->nx,
                          (long long)sc->ny, (long long)sc->nz, (long long)steps, per * 1e3, t.cells / per * 1e-6,
                          t.per_cell, copy_gbs, t.total / (copy_gbs * 1e9) / per);
}

/* The one-rank time of sc on rank 0 (every rank gets it; -1 when the whole
 * model does not fit rank 0). */
static double one_rank_fdtd3(gs_run *run, const gs_bench_opts *o, const gs_scene *sc, int fits) {
  double secs = -1;
  if (run->comm.rank == 0 && fits) {
    gs_fdtd3_sim m;
    char err[512];
    if (gs_fdtd3_sim_init(&m, sc, run->backend, 0, err, sizeof err) != GS_OK)
      gs_fatal("gs_fdtd3_sim_init", err, __FILE__, __LINE__);
    secs = time_fdtd3(&m, warmup(run->backend), o->steps, MPI_COMM_NULL);
    gs_fdtd3_sim_free(&m);
  }
  GS_MPI_CHECK(MPI_Bcast(&secs, 1, MPI_DOUBLE, 0, run->comm.world));
  return secs;
}

/* The traffic model of the whole model split over the ranks of comm, m
 * being this rank's part: the dispersive nodes summed. Collective. */
static gs_fdtd3_traffic_in traffic_of_parts(const gs_fdtd3_sim *m, MPI_Comm comm) {
  gs_fdtd3_traffic_in in = gs_fdtd3_traffic_of(m);
  double mine[2] = {in.disp_nodes, in.disp_any_nodes}, all[2];
  int h = in.h_mat_bytes;
  GS_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, comm));
  GS_MPI_CHECK(MPI_Allreduce(&h, &in.h_mat_bytes, 1, MPI_INT, MPI_MAX, comm));
  in.disp_nodes = all[0];
  in.disp_any_nodes = all[1];
  return in;
}

/* bench fdtd --grid NXxNYxNZ on N > 1 ranks: the model sc split as `fdtd`
 * splits it (fdtd3d_dist.h; decomp: --decomp, or the weak split), timed,
 * against rank 0 alone running `one` in the same job when it fits (dev1
 * bytes): sc itself (strong scaling), or one rank's share (--weak). */
static int bench_fdtd3_ranks(gs_run *run, const gs_bench_opts *o, gs_scene *sc, const gs_scene *one, const char *decomp,
                             double dev, double dev1, double copy_gbs) {
  const gs_backend *b = run->backend;
  gs_fdtd3_ranks rk;
  char why[512] = "", shape[160];
  const int made = gs_fdtd3_ranks_make(&rk, run->comm.world, sc, decomp, gs_fdtd_spread_of(&o->spread).transport, why,
                                       sizeof why) == 0;
  if (!made || !gs_bench_parts_fit(run, dev)) {
    if (run->comm.rank == 0)
      gs_log_error("bench fdtd: --grid %lldx%lldx%lld: %s", (long long)sc->nx, (long long)sc->ny, (long long)sc->nz,
                   why[0] ? why : "a rank's part does not fit in its memory");
    return GS_EXIT_USAGE;
  }
  const double t1 = one_rank_fdtd3(run, o, one, dev1 <= (double)b->mem_available());
  gs_fdtd3_sim m;
  const double free0 = (double)b->mem_available();
  if (gs_fdtd3_sim_init_part(&m, sc, b, 0, &rk, why, sizeof why) != GS_OK)
    gs_fatal("gs_fdtd3_sim_init_part", why, __FILE__, __LINE__);
  double used = free0 - (double)b->mem_available(), most_used; /* the part's device memory, as the device sees it */
  GS_MPI_CHECK(MPI_Allreduce(&used, &most_used, 1, MPI_DOUBLE, MPI_MAX, run->comm.world));
  const gs_fdtd3_traffic_in in = traffic_of_parts(&m, run->comm.world);
  const gs_fdtd3_traffic tr = gs_fdtd3_traffic_model(&in);
  const double tn = time_fdtd3(&m, warmup(b), o->steps, run->comm.world);
  gs_fdtd3_sim_free(&m);
  if (run->comm.rank != 0) return GS_EXIT_OK;
  const char *kind = o->weak ? "weak" : "strong";
  soil3 s = soil_of(o);
  soil_text(&s, shape, sizeof shape);
  printf("bench fdtd: backend %s, 3D %lld x %lld x %lld cells, %s scaling, %d ranks, decomposition %dx%dx%d, "
         "transport %s, exchanges %s, %lld steps after %lld untimed, %s\n",
         b->name, (long long)sc->nx, (long long)sc->ny, (long long)sc->nz, kind, run->comm.size, rk.dims[0], rk.dims[1],
         rk.dims[2], gs_halo_transport_name(rk.transport),
         gs_fdtd3_dist_overlap_possible(sc) ? "behind the interior" : "between the H and E passes", (long long)o->steps,
         (long long)warmup(b), shape);
  print_rate3(tn, o->steps, &tr, &in, copy_gbs * run->comm.size);
  printf("  memory of the largest part: %.2f GiB (the device's free memory before and after it was built)\n",
         most_used / (double)(1 << 30));
  const double eff = t1 <= 0 ? 0 : o->weak ? t1 / tn : t1 / ((double)run->comm.size * tn);
  if (t1 > 0)
    printf("  1 rank in the same job (%lld x %lld x %lld): %.3f ms per step; %s scaling %s = %.1f %%\n",
           (long long)one->nx, (long long)one->ny, (long long)one->nz, t1 * 1e3 / (double)o->steps, kind,
           o->weak ? "t1 / tN" : "t1 / (N tN)", 100.0 * eff);
  else
    printf("  1 rank: the whole model does not fit one rank's memory (no ratio)\n");
  fflush(stdout);
  return gs_bench_csv_row(o->csv, "kind,scaling,nx,ny,nz,ranks,decomp,transport,steps,ms_step_1,ms_step_n,efficiency",
                          "fdtd3d,%s,%lld,%lld,%lld,%d,%dx%dx%d,%s,%lld,%.5f,%.5f,%.4f", kind, (long long)sc->nx,
                          (long long)sc->ny, (long long)sc->nz, run->comm.size, rk.dims[0], rk.dims[1], rk.dims[2],
                          gs_halo_transport_name(rk.transport), (long long)o->steps,
                          t1 > 0 ? t1 * 1e3 / (double)o->steps : -1.0, tn * 1e3 / (double)o->steps, eff);
}

/* Weak scaling's split of size ranks when --decomp gives none: the one whose
 * busiest part sends the fewest halo bytes, each part `cells` (ties: the
 * first found, x split first). */
static void weak_dims(int size, const int64_t cells[3], int dims[3]) {
  double best = -1;
  for (int px = 1; px <= size; ++px)
    for (int py = 1; px * py <= size; ++py) {
      if (size % (px * py)) continue;
      const int d[3] = {px, py, size / (px * py)};
      const int64_t nodes[3] = {cells[0] * d[0] + 1, cells[1] * d[1] + 1, cells[2] * d[2] + 1};
      const double bytes = gs_decomp3_halo_bytes(nodes, d, 24.0);
      if (best < 0 || bytes < best) best = bytes, memcpy(dims, d, sizeof d);
    }
}

/* bench fdtd --weak --grid NXxNYxNZ on N ranks: every rank a part of that
 * size (the model NX PX x NY PY x NZ PZ), against one part's model alone. */
static int bench_fdtd3_weak(gs_run *run, const gs_bench_opts *o, int64_t nx, int64_t ny, int64_t nz) {
  const int64_t cells[3] = {nx, ny, nz};
  const soil3 s = soil_of(o);
  int dims[3];
  char why[256], decomp[64];
  if (o->spread.decomp) {
    if (gs_decomp3_parse(o->spread.decomp, run->comm.size, dims, why, sizeof why) != 0) {
      if (run->comm.rank == 0) gs_log_error("bench fdtd: %s", why);
      return GS_EXIT_USAGE;
    }
  } else {
    weak_dims(run->comm.size, cells, dims);
  }
  snprintf(decomp, sizeof decomp, "%dx%dx%d", dims[0], dims[1], dims[2]);
  gs_scene whole, one;
  const int64_t iterations = warmup(run->backend) + o->steps;
  synthetic3(&whole, &s, nx * dims[0], ny * dims[1], nz * dims[2], iterations);
  synthetic3(&one, &s, nx, ny, nz, iterations);
  double dev, dev1, host;
  gs_fdtd3_memory_need(&whole, &dev, &host);
  gs_fdtd3_memory_need(&one, &dev1, &host);
  const int rc = bench_fdtd3_ranks(run, o, &whole, &one, decomp, dev, dev1,
                                   gs_bench_copy_gbs(run->backend, ceiling_bytes(run->backend)));
  gs_scene_free(&whole);
  gs_scene_free(&one);
  return rc;
}

int gs_bench_fdtd3(gs_run *run, const gs_bench_opts *o, int64_t nx, int64_t ny, int64_t nz) {
  const gs_backend *b = run->backend;
  const soil3 s = soil_of(o);
  const int64_t least = nx < ny ? (nx < nz ? nx : nz) : (ny < nz ? ny : nz);
  if (2 * (int64_t)s.pml >= least) {
    if (run->comm.rank == 0)
      gs_log_error("bench fdtd: --pml %d: the grid must be more than %d cells on every axis", s.pml, 2 * s.pml);
    return GS_EXIT_USAGE;
  }
  if (run->comm.size > 1 && o->weak) return bench_fdtd3_weak(run, o, nx, ny, nz);
  gs_scene sc;
  synthetic3(&sc, &s, nx, ny, nz, warmup(b) + o->steps);
  int rc;
  if (run->comm.size > 1) {
    double dev, host;
    gs_fdtd3_memory_need(&sc, &dev, &host);
    rc = bench_fdtd3_ranks(run, o, &sc, &sc, o->spread.decomp, dev, dev, gs_bench_copy_gbs(b, ceiling_bytes(b)));
  } else {
    char header[512], shape[160], label[64];
    soil_text(&s, shape, sizeof shape);
    snprintf(header, sizeof header,
             "bench fdtd: backend %s on %s, 3D %lld x %lld x %lld cells, %lld steps after %lld "
             "untimed, %s",
             b->name, where(run), (long long)nx, (long long)ny, (long long)nz, (long long)o->steps,
             (long long)warmup(b), shape);
    snprintf(label, sizeof label, "synthetic-pml%d-%s%d-f%.2f", s.pml, s.poles ? "poles" : "none", s.poles, s.fraction);
    rc = time_one(run, o, &sc, warmup(b), 0, o->steps, header, label);
  }
  gs_scene_free(&sc);
  return rc;
}

int gs_bench_fdtd3_scene(gs_run *run, const gs_bench_opts *o, const char *path) {
  const gs_backend *b = run->backend;
  if (run->comm.size > 1) {
    if (run->comm.rank == 0)
      gs_log_error("bench fdtd: %s: a scene runs on one rank here (fdtd SCENE.in splits it over ranks)", path);
    return GS_EXIT_USAGE;
  }
  gs_scene sc;
  char err[1024];
  if (gs_scene_load_within(path, gs_fdtd_rank_host_memory(&run->comm), &sc, err, sizeof err) != GS_OK) {
    gs_log_error("bench fdtd: %s", err);
    return GS_EXIT_USAGE;
  }
  if (sc.mode != GS_MODE_3D) {
    gs_log_error("bench fdtd: %s: a 2D scene; bench fdtd SCENE.in times 3D ones (fdtd prints a 2D run's Mcells/s)",
                 path);
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  if (o->steps) sc.iterations = o->steps;
  char why[128];
  const double cells = (double)sc.nx * (double)sc.ny * (double)sc.nz;
  if (gs_work_too_long(gs_work_least_seconds(cells, 2.0 * (double)sc.iterations, 1, b->is_gpu), GS_BENCH_MAX_SECONDS,
                       why, sizeof why)) { /* timed once, and once untimed on a GPU */
    gs_log_error("bench fdtd: %s: %lld steps %s: fewer --steps", path, (long long)sc.iterations, why);
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  const int64_t warm = b->is_gpu ? (sc.iterations < GS_BENCH_WARMUP ? sc.iterations : GS_BENCH_WARMUP) : 0;
  char header[1700], before[96] = "";
  if (warm) snprintf(before, sizeof before, " after a model built and run %lld steps, untimed", (long long)warm);
  snprintf(header, sizeof header,
           "bench fdtd: backend %s on %s, scene %.1024s: 3D %lld x %lld x %lld cells, %lld steps (%s)%s, CPML "
           "%d/%d/%d/%d/%d/%d cells, %d source(s), %d receiver(s)",
           b->name, where(run), path, (long long)sc.nx, (long long)sc.ny, (long long)sc.nz, (long long)sc.iterations,
           o->steps ? "--steps" : "its own", before, sc.pml6[0], sc.pml6[1], sc.pml6[2], sc.pml6[3], sc.pml6[4],
           sc.pml6[5], sc.nsources + sc.nsrc3, sc.nrx);
  const int rc = time_one(run, o, &sc, warm, 1, sc.iterations, header, path);
  gs_scene_free(&sc);
  return rc;
}

/* The fdtd command: options, the run loop over -n runs, receivers.csv,
 * snapshots, B-scans, checkpoints and restarts, progress (docs/fdtd.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fdtd_cmd.h"
#include "fdtd_internal.h"
#include "fsutil.h"
#include "log.h"
#include "progress.h"
#include "snapshot.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------- the command */

const gs_fdtd_opts gs_fdtd_defaults = {.runs = 1};

const gs_opt gs_fdtd_opt_table[] = {
    {"output", 'o', GS_OPT_STRING, offsetof(gs_fdtd_opts, outdir), "DIR", 0, 0,
     "output folder (default: SCENE without .in, plus _out)"},
    {"runs", 'n', GS_OPT_INT, offsetof(gs_fdtd_opts, runs), "N", 1, 100000,
     "model runs, moving sources and receivers by #src_steps/#rx_steps"},
    {"checkpoint-every", 0, GS_OPT_INT, offsetof(gs_fdtd_opts, checkpoint_every), "STEPS", 1, 1e15,
     "write a checkpoint every STEPS steps"},
    {"restart", 0, GS_OPT_STRING, offsetof(gs_fdtd_opts, restart), "DIR", 0, 0, "continue from the checkpoint in DIR"},
    {"stop-after", 0, GS_OPT_INT, offsetof(gs_fdtd_opts, stop_after), "STEPS", 1, 1e15,
     "end the run after STEPS steps (with a checkpoint), as a time-limited job would"},
    {"steps", 0, GS_OPT_INT, offsetof(gs_fdtd_opts, steps), "N", 1, 1e15,
     "override the iteration count of #time_window"},
    {"snapshot-every", 0, GS_OPT_INT, offsetof(gs_fdtd_opts, snapshot_every), "STEPS", 1, 1e15,
     "override #snapshot_png"},
    {"progress", 0, GS_OPT_FLAG, offsetof(gs_fdtd_opts, progress), NULL, 0, 0,
     "show progress on rank 0 (default when a terminal)"},
    {NULL, 0, 0, 0, NULL, 0, 0, NULL},
};

const gs_opt gs_fdtd_spread_opt_table[] = {
    {"decomp", 0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, decomp), "PXxPY", 0, 0,
     "ranks along x and y (default: MPI_Dims_create's split, or the one with the fewest halo bytes)"},
    {"halo-transport", 0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, transport), "T", 0, 0,
     "auto|ipc|mpi-cuda|mpi-host: how ghost layers move between ranks (default auto)"},
    {"halo-depth", 0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, depth), "R", 0, 0,
     "auto|1..8: ghost layers, exchanged every R steps with redundant work (default auto)"},
    {"no-overlap", 0, GS_OPT_FLAG, offsetof(gs_fdtd_spread_opts, no_overlap), NULL, 0, 0,
     "exchange after the whole step (for comparison)"},
    {"no-graphs", 0, GS_OPT_FLAG, offsetof(gs_fdtd_spread_opts, no_graphs), NULL, 0, 0,
     "launch every kernel from the host, no CUDA graphs (for comparison)"},
    {NULL, 0, 0, 0, NULL, 0, 0, NULL},
};

int gs_fdtd_spread_parse(const gs_fdtd_spread_opts *so, gs_fdtd_spread *sp, char *err, size_t errlen) {
  const char *transport = so->transport, *depth = so->depth;
  sp->overlap = !so->no_overlap;
  sp->graphs = !so->no_graphs;
  sp->transport = GS_HALO_AUTO;
  sp->depth = 0;
  if (transport) {
    int t = gs_halo_transport_parse(transport);
    if (t < 0) {
      snprintf(err, errlen, "--halo-transport '%s': expected auto, ipc, mpi-cuda or mpi-host", transport);
      return 1;
    }
    sp->transport = (gs_halo_transport)t;
  }
  if (depth && strcmp(depth, "auto") != 0) {
    char *end;
    long v = strtol(depth, &end, 10);
    if (*end || end == depth || v < 1 || v > GS_FDTD_MAX_DEPTH) {
      snprintf(err, errlen, "--halo-depth '%s': expected auto or 1..%d", depth, GS_FDTD_MAX_DEPTH);
      return 1;
    }
    sp->depth = (int)v;
  }
  return 0;
}

gs_fdtd_spread gs_fdtd_spread_of(const gs_fdtd_spread_opts *so) {
  gs_fdtd_spread sp;
  char err[160];
  if (gs_fdtd_spread_parse(so, &sp, err, sizeof err)) gs_fatal("gs_fdtd_spread_of", err, __FILE__, __LINE__);
  return sp;
}

int gs_fdtd_check(const gs_fdtd_opts *o, int argc, char **argv, char *err, size_t errlen) {
  (void)argv;
  gs_fdtd_spread spread;
  if (gs_fdtd_spread_parse(&o->spread, &spread, err, errlen)) return 1;
  if (argc != 1) {
    snprintf(err, errlen, "expected one scene file, got %d arguments", argc);
    return 1;
  }
  if (o->restart && o->runs > 1) {
    snprintf(err, errlen, "--restart continues one run; it does not combine with -n");
    return 1;
  }
  return 0;
}

/* rx: [receiver][step][Ez, Hx, Hy] for every receiver of the scene. */
static gs_status write_receivers(const gs_scene *sc, const float *rx, int64_t steps, const char *path, char *err,
                                 size_t errlen) {
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  FILE *fp = t.fp;
  fprintf(fp, "time_s");
  for (int k = 0; k < sc->nrx; ++k) {
    const char *n = sc->rxs[k].name;
    fprintf(fp, ",%s_Ez,%s_Hx,%s_Hy", n, n, n);
  }
  fputc('\n', fp);
  for (int64_t s = 0; s < steps; ++s) {
    fprintf(fp, "%.10e", (double)s * sc->dt);
    for (int k = 0; k < sc->nrx; ++k) {
      const float *v = rx + ((size_t)k * (size_t)steps + (size_t)s) * 3;
      fprintf(fp, ",%.9g,%.9g,%.9g", v[0], v[1], v[2]);
    }
    fputc('\n', fp);
  }
  return gs_tmpfile_commit(&t, 0, 0, err, errlen);
}

/* B-scan: Ez of the first receiver, one column per run, time downwards,
 * after background removal (the mean trace over the runs, mostly the direct
 * wave, is subtracted), scaled to the 99.5th percentile of |value|. At most
 * 1000 rows (time decimated) and at least 256 pixels wide. */
static float *gather_receivers(const gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, int run) {
  const gs_scene *sc = m->sc;
  size_t per = 3 * (size_t)m->step;
  float *all = c->rank == 0 ? gs_xcalloc((size_t)sc->nrx * per + 1, sizeof(float)) : NULL;
  float *mine = gs_xmalloc(per * sizeof(float) + 1);
  for (int k = 0; k < sc->nrx; ++k) {
    int64_t i = sc->rxs[k].i + (int64_t)run * sc->rx_di, j = sc->rxs[k].j + (int64_t)run * sc->rx_dj;
    int owner = 0;
    for (int r = 0; r < c->size; ++r) {
      const int64_t *q = parts + 4 * r;
      if (i >= q[0] && i < q[1] && j >= q[2] && j < q[3]) owner = r;
    }
    int local = -1;
    for (int q = 0; q < m->rx.n; ++q)
      if (m->rx.global[q] == k) local = q;
    if (c->rank == owner) {
      for (int64_t s = 0; s < m->step; ++s)
        memcpy(mine + 3 * (size_t)s, m->rx.hist + ((size_t)s * (size_t)m->rx.n + (size_t)local) * 3, 3 * sizeof(float));
      if (owner == 0)
        memcpy(all + (size_t)k * per, mine, per * sizeof(float));
      else
        GS_MPI_CHECK(MPI_Send(mine, (int)per, MPI_FLOAT, 0, 100 + k, c->world));
    } else if (c->rank == 0) {
      GS_MPI_CHECK(MPI_Recv(all + (size_t)k * per, (int)per, MPI_FLOAT, owner, 100 + k, c->world, MPI_STATUS_IGNORE));
    }
  }
  free(mine);
  return all; /* [receiver][step][Ez, Hx, Hy] on rank 0 */
}

int gs_fdtd_run(const gs_comm *c, const gs_backend *backend, const gs_fdtd_opts *o, int argc, char **argv) {
  (void)argc;
  const gs_fdtd_spread spread = gs_fdtd_spread_of(&o->spread);
  int64_t runs = o->runs; /* lowered when --stop-after ends the job early */
  const int root = c->rank == 0;
  gs_scene sc;
  char err[1024];
  gs_status st = gs_scene_load(argv[0], &sc, err, sizeof err);
  if (st != GS_OK) {
    if (root) gs_log_error("%s", err);
    return GS_EXIT_USAGE;
  }
  if (o->steps) sc.iterations = o->steps;
  if (o->snapshot_every) sc.snapshot_every = o->snapshot_every;
  /* Every run's sources and receivers must stay inside the domain. */
  for (int64_t r = 0; r < runs; ++r) {
    for (int k = 0; k < sc.nsources + sc.nrx; ++k) {
      int is_src = k < sc.nsources;
      int64_t i = is_src ? sc.sources[k].i + r * sc.src_di : sc.rxs[k - sc.nsources].i + r * sc.rx_di;
      int64_t j = is_src ? sc.sources[k].j + r * sc.src_dj : sc.rxs[k - sc.nsources].j + r * sc.rx_dj;
      if (i < 1 || i >= sc.nx || j < 1 || j >= sc.ny) {
        if (root)
          gs_log_error("%s: run %lld moves a %s outside the domain (#src_steps/#rx_steps)", argv[0], (long long)r + 1,
                       is_src ? "source" : "receiver");
        gs_scene_free(&sc);
        return GS_EXIT_USAGE;
      }
    }
  }
  /* Decomposition: PX x PY ranks, x along dimension 0. */
  int dims[2];
  if (gs_fdtd_decomp(o->spread.decomp, c->size, sc.nx, sc.ny, dims) != 0) {
    if (root) gs_log_error("fdtd: --decomp '%s' is not PXxPY with PX * PY = %d ranks", o->spread.decomp, c->size);
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  MPI_Comm cart;
  int periods[2] = {0, 0}, coords[2];
  GS_MPI_CHECK(MPI_Cart_create(c->world, 2, dims, periods, 0, &cart));
  GS_MPI_CHECK(MPI_Cart_coords(cart, c->rank, 2, coords));
  gs_fdtd_part part = gs_fdtd_part_of(&sc, dims, coords);
  int64_t mypart[4] = {part.i0, part.i1, part.j0, part.j1};
  int64_t *parts = gs_xmalloc(sizeof *parts * 4 * (size_t)c->size);
  GS_MPI_CHECK(MPI_Allgather(mypart, 4, MPI_INT64_T, parts, 4, MPI_INT64_T, c->world));

  char outdir[1100];
  if (o->outdir) {
    snprintf(outdir, sizeof outdir, "%s", o->outdir);
  } else {
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".in") == 0) bl -= 3;
    snprintf(outdir, sizeof outdir, "%.*s_out", (int)bl, base);
  }
  int bad = 0;
  if (root) {
    bad = gs_mkdirs(outdir, 1) != 0;
    if (bad) gs_log_error("fdtd: %s: %s", outdir, strerror(errno));
    if (!bad && sc.snapshot_every) {
      char sd[1200];
      snprintf(sd, sizeof sd, "%s/snapshots", outdir);
      gs_mkdirs(sd, 1);
    }
  }
  if (gs_comm_agree(bad, c->world)) {
    free(parts);
    MPI_Comm_free(&cart);
    gs_scene_free(&sc);
    return GS_EXIT_USAGE;
  }
  double cells = (double)sc.nx * (double)sc.ny;
  if (root) {
    printf("fdtd: %s%s%s: %lld x %lld cells of %g x %g m, dt %.6g s (stability %g), %lld iterations, %d material(s), "
           "%d source(s), %d receiver(s), PML %d/%d/%d/%d, backend %s, %d run(s)\n",
           sc.title[0] ? "'" : "", sc.title[0] ? sc.title : argv[0], sc.title[0] ? "'" : "", (long long)sc.nx,
           (long long)sc.ny, sc.dx, sc.dy, sc.dt, sc.stability, (long long)sc.iterations, sc.nmaterials - 2,
           sc.nsources, sc.nrx, sc.pml[0], sc.pml[1], sc.pml[2], sc.pml[3], backend->name, (int)runs);
    if (sc.messages)
      for (int k = 2; k < sc.nmaterials; ++k)
        printf("  material %s: er %g, sigma %g S/m\n", sc.materials[k].name, sc.materials[k].er, sc.materials[k].sigma);
    fflush(stdout);
  }

  int depth = gs_fdtd_agree_depth(&sc, backend, &part, spread.depth, cart);
  float *bscan = root && runs > 1 && sc.nrx ? gs_xcalloc((size_t)runs * (size_t)sc.iterations, sizeof(float)) : NULL;
  int status = GS_EXIT_OK;
  double total_steps = 0, t_total = 0;
  uint64_t sum[3] = {0, 0, 0};
  for (int64_t r = 0; r < runs && status == GS_EXIT_OK; ++r) {
    gs_fdtd_sim m;
    st = gs_fdtd_sim_init_part(&m, &sc, backend, (int)r, &part, depth, err, sizeof err);
    /* The lowest failing rank says why; all exit together. */
    int mine = st == GS_OK ? c->size : c->rank, first = c->size;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->world));
    if (first < c->size) {
      if (c->rank == first) gs_log_error("fdtd: decomposition %dx%d: %s", dims[0], dims[1], err);
      if (st == GS_OK) gs_fdtd_sim_free(&m);
      status = GS_EXIT_USAGE;
      break;
    }
    err[0] = '\0';
    if (gs_fdtd_sim_connect(&m, cart, spread.transport, spread.overlap, err, sizeof err) != GS_OK) {
      int me = err[0] ? c->rank : c->size, lowest = c->size;
      GS_MPI_CHECK(MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, c->world));
      if (c->rank == lowest) gs_log_error("fdtd: %s", err);
      gs_fdtd_sim_free(&m);
      status = GS_EXIT_USAGE;
      break;
    }
    m.graph.allowed = m.graph.allowed && spread.graphs;
    if (root && r == 0 && c->size > 1) {
      char tr[64];
      printf("fdtd: %d ranks, decomposition %dx%d, halo transport %s (rank 0), halo depth %d, overlap %s, CUDA graphs "
             "%s\n",
             c->size, dims[0], dims[1], gs_halo_summary(m.dist.halo, tr, sizeof tr), depth,
             spread.overlap ? "on" : "off", m.graph.allowed ? "on" : "off");
      fflush(stdout);
    } else if (root && r == 0 && backend->is_gpu) {
      printf("fdtd: CUDA graphs %s\n", m.graph.allowed ? "on" : "off");
      fflush(stdout);
    }
    int64_t ck_prev = -1;             /* step of this run's last checkpoint set */
    gs_ckpt_old ck_drop = {0, 0, -1}; /* a checkpoint of another layout this run restarted from */
    if (o->restart) {
      err[0] = '\0';
      gs_ckpt_old got;
      if (gs_ckpt_load(&m, c, o->restart, &got, err, sizeof err) != GS_OK) {
        if (err[0]) gs_log_error("fdtd: --restart: %s", err);
        gs_fdtd_sim_free(&m);
        status = GS_EXIT_USAGE;
        break;
      }
      if (root)
        printf("fdtd: restarting at step %lld from %s (written by %d rank(s))\n", (long long)m.step, o->restart,
               got.nranks);
      gs_fdtd_sim_refresh(&m); /* the ghost layers are not in the checkpoint */
      /* The checkpoint read stays until this run writes its own (or completes);
       * one in another folder is never touched. */
      if (strcmp(o->restart, outdir) == 0) {
        if (got.kind == 2 && got.nranks == c->size)
          ck_prev = got.step; /* the same layout: replaced like this run's own */
        else if (!(got.kind == 1 && c->size == 1))
          ck_drop = got;
      }
    }
    int show = root && (o->progress || isatty(2));
    gs_progress *prog = show ? gs_progress_create("fdtd", sc.iterations, "steps") : NULL;
    int64_t first_step = m.step;
    GS_MPI_CHECK(MPI_Barrier(c->world));
    double t0 = now_s();
    int stopped = 0;
    while (m.step < sc.iterations) {
      /* Up to the next step where something happens (graphs replay whole cycles in between). */
      int64_t next = sc.iterations, every[3] = {sc.snapshot_every, o->checkpoint_every, prog ? 64 : 0};
      for (int k = 0; k < 3; ++k)
        if (every[k] && (m.step / every[k] + 1) * every[k] < next) next = (m.step / every[k] + 1) * every[k];
      if (o->stop_after && first_step + o->stop_after < next) next = first_step + o->stop_after;
      gs_fdtd_sim_advance(&m, next - m.step);
      if (sc.snapshot_every && m.step % sc.snapshot_every == 0) {
        char sp[1300];
        if (runs > 1)
          snprintf(sp, sizeof sp, "%s/snapshots/run%03lld_ez_%08lld.png", outdir, (long long)r + 1, (long long)m.step);
        else
          snprintf(sp, sizeof sp, "%s/snapshots/ez_%08lld.png", outdir, (long long)m.step);
        if (gs_fdtd_snapshot(&m, c, parts, sp, err, sizeof err) != GS_OK) {
          gs_log_error("fdtd: snapshot: %s", err);
          status = GS_EXIT_PARTIAL;
        }
      }
      if (o->checkpoint_every && m.step % o->checkpoint_every == 0 && m.step < sc.iterations) {
        gs_ckpt_save(&m, c, dims, outdir, &ck_prev);
        gs_ckpt_drop(c, outdir, &ck_drop);
      }
      if (prog && (m.step & 63) == 0) {
        gs_fdtd_sim_sync(&m);
        gs_progress_update(prog, m.step, (double)(m.step - first_step) * cells * 1e-6);
      }
      if (o->stop_after && m.step - first_step >= o->stop_after && m.step < sc.iterations) {
        stopped = 1;
        break;
      }
    }
    gs_fdtd_sim_sync(&m);
    GS_MPI_CHECK(MPI_Barrier(c->world));
    double secs = now_s() - t0;
    if (prog) gs_progress_end(prog);
    if (stopped) {
      if (ck_prev != m.step) gs_ckpt_save(&m, c, dims, outdir, &ck_prev);
      gs_ckpt_drop(c, outdir, &ck_drop);
      if (root)
        printf("fdtd: stopped after step %lld of %lld; continue with --restart %s\n", (long long)m.step,
               (long long)sc.iterations, outdir);
      gs_fdtd_sim_free(&m);
      runs = r + 1;
      free(bscan);
      bscan = NULL;
      break;
    }
    total_steps += (double)(m.step - first_step);
    t_total += secs;
    float *rx = sc.nrx ? gather_receivers(&m, c, parts, (int)r) : NULL;
    if (root && sc.nrx) {
      char rp[1300];
      if (runs > 1)
        snprintf(rp, sizeof rp, "%s/receivers_run%03lld.csv", outdir, (long long)r + 1);
      else
        snprintf(rp, sizeof rp, "%s/receivers.csv", outdir);
      if (write_receivers(&sc, rx, m.step, rp, err, sizeof err) != GS_OK) {
        gs_log_error("fdtd: %s", err);
        status = GS_EXIT_PARTIAL;
      }
      if (bscan)
        for (int64_t s = 0; s < sc.iterations; ++s)
          bscan[(size_t)r * (size_t)sc.iterations + (size_t)s] = rx[3 * (size_t)s];
    }
    free(rx);
    uint64_t local[3];
    gs_fdtd_sim_checksum(&m, local);
    GS_MPI_CHECK(MPI_Reduce(local, sum, 3, MPI_UINT64_T, MPI_SUM, 0, c->world));
    if (root && runs > 1) printf("fdtd: run %lld of %lld done\n", (long long)r + 1, (long long)runs);
    gs_ckpt_remove(c, outdir, ck_prev); /* the run is complete: its checkpoint is stale */
    gs_ckpt_drop(c, outdir, &ck_drop);
    gs_fdtd_sim_free(&m);
    if (root && r + 1 == runs) {
      printf("checksum Ez=%016" PRIx64 " Hx=%016" PRIx64 " Hy=%016" PRIx64 "\n", sum[0], sum[1], sum[2]);
      printf("fdtd: %.0f steps in %.3f s on %d rank(s): %.1f Mcells/s\n", total_steps, t_total, c->size,
             t_total > 0 ? total_steps * cells / t_total * 1e-6 : 0.0);
    }
  }
  if (root && bscan && status == GS_EXIT_OK) {
    char bp[1300];
    snprintf(bp, sizeof bp, "%s/bscan.png", outdir);
    if (gs_fdtd_write_bscan(bscan, runs, sc.iterations, bp, err, sizeof err) != GS_OK) {
      gs_log_error("fdtd: %s", err);
      status = GS_EXIT_PARTIAL;
    }
  }
  free(bscan);
  free(parts);
  MPI_Comm_free(&cart);
  fflush(stdout);
  gs_scene_free(&sc);
  return status;
}

/* The fdtd command for a 3D model (fdtd3d_cmd.h). */
#include "fdtd3d_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fdtd3d.h"
#include "fdtd3d_dist.h"
#include "fdtd3d_planewave.h"
#include "fdtd3d_snap.h"
#include "fdtd3d_sources.h"
#include "fsutil.h"
#include "gpr_views3d.h"
#include "log.h"
#include "progress.h"
#include "rx_output.h"
#include "survey.h"

/* The scene's transmission lines. */
static int scene_lines(const gs_scene *sc) {
  int lines = 0;
  for (int q = 0; q < sc->nsrc3; ++q)
    lines += sc->src3[q].kind == GS_SRC3_TLINE;
  return lines;
}

/* What 3D models do not take yet: one line on rank 0, or 0. */
static int refused(const gs_comm *c, const gs_fdtd_opts *o, const gs_scene *sc) {
  const int lines = scene_lines(sc);
  const int ckpt = o->checkpoint_every || o->stop_after || o->restart;
  char lines_why[80];
  snprintf(lines_why, sizeof lines_why, "checkpoints hold at most %d transmission lines", GS_FDTD3_CKPT_LINES);
  /* plane waves: 3 sections each; with the fields (6), CPML (24), receivers (1), poles (3) and
   * the lines (5 each) within GS_FDTD3_MAX_STATE (fdtd3d.h) */
  const int pw_sections = sc->npws ? 5 * lines + 3 * sc->npws : 0;
  const char *why = ckpt && lines > GS_FDTD3_CKPT_LINES ? lines_why
                    : ckpt && pw_sections > 94 ? "checkpoints hold transmission lines (5 sections each) and plane "
                                                 "waves (3 each) up to 94 sections"
                    : (o->slice || o->slice_field) && !sc->snapshot_every
                        ? "--slice and --slice-field need --snapshot-every or #snapshot_png"
                        : NULL;
  if (why && c->rank == 0) gs_log_error("fdtd: %s: %s", sc->path, why);
  return why != NULL;
}

/* Every source and receiver of every run inside the domain: 0, or the 1-based run that moves
 * one out, with *what "source" or "receiver". */
static int64_t position_out(const gs_scene *sc, int64_t runs, const char **what) {
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  for (int64_t r = 0; r < runs; ++r) {
    *what = "source";
    for (int q = 0; q < sc->nsources; ++q) {
      const gs_source *s = &sc->sources[q];
      const int64_t p[3] = {s->i + r * sc->src_di, s->j + r * sc->src_dj, s->k + r * sc->src_dk};
      for (int a = 0; a < 3; ++a)
        if (p[a] < (a == s->pol ? 0 : 1) || p[a] >= n[a]) return r + 1;
    }
    for (int q = 0; q < sc->nsrc3; ++q) {
      const gs_source3 *s = &sc->src3[q];
      const int magnetic = s->kind == GS_SRC3_MAGNETIC; /* anywhere in the domain; the only kind that moves */
      const int64_t rm = magnetic ? r : 0;
      const int64_t p[3] = {s->at.i + rm * sc->src_di, s->at.j + rm * sc->src_dj, s->at.k + rm * sc->src_dk};
      for (int a = 0; a < 3; ++a)
        if (p[a] < (magnetic || a == s->at.pol ? 0 : 1) || p[a] >= n[a] + magnetic) return r + 1;
    }
    *what = "receiver";
    for (int q = 0; q < sc->nrx; ++q) {
      const gs_rx *x = &sc->rxs[q];
      const int64_t p[3] = {x->i + r * sc->rx_di, x->j + r * sc->rx_dj, x->k + r * sc->rx_dk};
      for (int a = 0; a < 3; ++a)
        if (p[a] < 0 || p[a] > n[a]) return r + 1;
    }
  }
  return 0;
}

/* Rank 0 says which run moves what out of the domain (one line); 1 when one does, else 0. */
static int positions_refused(const gs_comm *c, const gs_scene *sc, int64_t runs) {
  const char *what = "";
  const int64_t r = position_out(sc, runs, &what);
  if (r && c->rank == 0)
    gs_log_error("fdtd: %s: run %lld moves a %s out of the domain (#src_steps/#rx_steps)", sc->path, (long long)r,
                 what);
  return r != 0;
}

/* Whether the model (a split one: the rank's part, its share of the nodes
 * with its ghost layers) is too large for this rank's memory: 1 with the
 * reason in why, else 0. Local. */
static int short_of_memory(const gs_comm *c, const gs_backend *b, const gs_scene *sc, const gs_fdtd3_ranks *rk,
                           char *why, size_t whylen) {
  double dev, host, share = 1;
  gs_fdtd3_memory_need(sc, &dev, &host);
  host += gs_gpr3_outputs_host_bytes(sc); /* the largest #snapshot / #geometry_view */
  const double n[3] = {(double)sc->nx + 1, (double)sc->ny + 1, (double)sc->nz + 1};
  for (int a = 1; rk && a < 3; ++a)
    share *= (double)(rk->part.hi[a] - rk->part.lo[a] + (rk->dims[a] > 1 ? 2 : 0)) / n[a];
  if (rk) { /* x: the rows as a part lays them out (from a multiple of 32, fdtd3d.c set_extent), padded */
    const int64_t lo = rk->part.lo[0], hi = rk->part.hi[0], org = (lo - (lo > 0)) & ~(int64_t)31;
    const int64_t len = hi + (hi <= sc->nx) - org;
    share *= (double)((len + 31) / 32 * 32) / (double)((sc->nx + 1 + 31) / 32 * 32);
  }
  dev *= share < 1 ? share : 1;
  host *= share < 1 ? share : 1;
  if (rk && share < 1) { /* every rank holds the plane waves' whole 1D grids and tables */
    dev += (1 - share) * gs_fdtd3_pw_memory(sc);
    host += (1 - share) * gs_fdtd3_pw_memory(sc);
  }
  double have_dev, have_host; /* this rank's share of its GPU and of the node's memory */
  gs_fdtd_rank_memory(c, b, &have_dev, &have_host);
  if (!b->is_gpu) {
    host += dev;
    dev = 0;
  }
  const double gib = 1024.0 * 1024.0 * 1024.0;
  gs_log_debug("memory: rank needs %.3f GiB on the %s and %.3f GiB of host memory; it has %.3f and %.3f GiB", dev / gib,
               b->is_gpu ? "GPU" : "host", host / gib, have_dev / gib, have_host / gib);
  const int short_dev = have_dev > 0 && dev > have_dev, bad = short_dev || (have_host > 0 && host > have_host);
  char who[64] = "the model";
  if (rk) snprintf(who, sizeof who, "rank %d's part of the model", c->rank);
  if (bad)
    snprintf(why, whylen, "%.600s: %s needs %.1f GiB of %s memory, the rank has %.1f GiB", sc->path, who,
             (short_dev ? dev : host) / gib, short_dev ? "GPU" : "host", (short_dev ? have_dev : have_host) / gib);
  return bad;
}

/* The same decided on every rank of c; 0 after one line on rank 0. */
static int fits(const gs_comm *c, const gs_backend *b, const gs_scene *sc, const gs_fdtd3_ranks *rk) {
  char why[1024] = "";
  const int bad = short_of_memory(c, b, sc, rk, why, sizeof why);
  if (gs_fdtd3_dist_agree(bad ? GS_ERR_USAGE : GS_OK, c->world, why, sizeof why) == GS_OK) return 1;
  if (c->rank == 0) gs_log_error("fdtd: %s", why);
  return 0;
}

/* The lines' outputs of a model on one rank (*tl and *vi to free); returns their count. */
static int local_lines(const gs_fdtd3_sim *m, gs_fdtd3_line_record **tl, float **vi) {
  const int ntl = gs_fdtd3_src_lines(m);
  const size_t n = (size_t)(m->sc->iterations + 1);
  *tl = gs_xcalloc((size_t)ntl + 1, sizeof **tl);
  *vi = gs_xmalloc(sizeof(float) * 2 * n * (size_t)ntl + 1);
  for (int q = 0; q < ntl; ++q)
    gs_fdtd3_src_line(m, q, &(*tl)[q], *vi + (size_t)q * 2 * n, *vi + ((size_t)q * 2 + 1) * n);
  return ntl;
}

/* Whether the receiver files run r writes are in outdir (a run marked finished whose files
 * were removed since is run again). */
static int receivers_there(const gs_scene *sc, const char *outdir, int64_t r, int64_t runs) {
  char hp[1700], cp[1300];
  gs_survey_receiver_paths(sc->path, outdir, r, runs, hp, cp);
  return (!(sc->nrx || scene_lines(sc)) || access(hp, F_OK) == 0) && (!sc->nrx || access(cp, F_OK) == 0);
}

/* MODEL.h5 and receivers.csv of run r from hist ([step][receiver][6], every
 * receiver of the scene) and the ntl lines' outputs tl; 1 (the reason in err) when they could
 * not be written. */
static int save(const gs_scene *sc, const gs_fdtd3_sim *m, const float *hist, const gs_fdtd3_line_record *tl, int ntl,
                const char *outdir, int64_t r, int64_t runs, char *err, size_t errlen) {
  char hp[1700], cp[1300];
  gs_survey_receiver_paths(sc->path, outdir, r, runs, hp, cp);
  if (!sc->nrx && !ntl) return 0;
  /* both tried: one that cannot be written does not cost the other (err: the first failure) */
  char err2[1024];
  const int h5 = gs_rx3_write_h5(sc, hist, m->step, (int)r, tl, ntl, hp, err, errlen) != GS_OK;
  const int csv =
      sc->nrx && gs_rx3_write_csv(sc, hist, m->step, cp, h5 ? err2 : err, h5 ? sizeof err2 : errlen) != GS_OK;
  return h5 || csv;
}

/* What a run needs besides its model. */
typedef struct run3 {
  const gs_comm *c;
  const gs_fdtd_opts *o;
  const gs_scene *sc;
  const gs_fdtd3_ranks *rk; /* the split over the ranks, or NULL on one rank */
  const char *outdir;
  char model[512]; /* the input's name without folder and extension */
  gs_fdtd3_slice slice;
  int64_t r, first_step, saved; /* the run, where it started, its last checkpoint's step (-1: none) */
  double steps;                 /* stepped by this job (a restart's run counts from its checkpoint) */
  int status;                   /* GS_EXIT_OK, or GS_EXIT_PARTIAL after a failed output */
  int snaps_off;                /* a snapshot failed: no more are tried (a full disk says it once) */
  int shared;                   /* the survey's runs shared out over groups: a line a run, no progress bar */
  gs_fdtd3_model_cache *cache;  /* the geometry, built for the group's first run, and finished runs' models */
  const char *resume;           /* the checkpoint folder the next run continues from, or NULL */
  int started;                  /* a run has started in this job (the folder cleaned of killed runs) */
  gs_fdtd_scenes *scenes;       /* each run's scene where the input's #python blocks differ per run, or NULL */
  int output_said;              /* an output failed and was said: later failures are not said again */
  int outdir_made;              /* the output folder exists (made once the first run is set up) */
} run3;

/* An output that could not be written, known on every rank: the status becomes partial (exit 1)
 * and rank 0 says err, the job's first such failure only (a full disk fails every later output
 * too; the first is what to fix). */
static void output_failed(run3 *x, const char *what, const char *err) {
  if (x->c->rank == 0 && !x->output_said) gs_log_error("fdtd: %s%s", what, err);
  x->output_said = 1;
  x->status = GS_EXIT_PARTIAL;
}

/* The next step where something happens: a progress update (every 64
 * steps), a PNG or gprMax snapshot, a checkpoint, --stop-after, the end. */
static int64_t next_event(const run3 *x, int64_t step) {
  const int64_t every[3] = {64, x->sc->snapshot_every, x->o->checkpoint_every};
  int64_t next = gs_gpr3_next_snapshot(x->sc, step);
  for (int k = 0; k < 3; ++k)
    if (every[k] && (step / every[k] + 1) * every[k] < next) next = (step / every[k] + 1) * every[k];
  if (x->o->stop_after && x->first_step + x->o->stop_after < next) next = x->first_step + x->o->stop_after;
  return next;
}

/* The slice now as snapshots/[runNNN_]COMP_AXISAT_STEP.png; a failure makes the status partial. */
static void take_snapshot(run3 *x, gs_fdtd3_sim *m) {
  char name[64], path[1400], err[1024];
  if (x->snaps_off) return;
  gs_fdtd3_slice_name(m, &x->slice, name, sizeof name);
  if (x->o->runs > 1)
    snprintf(path, sizeof path, "%s/snapshots/run%03lld_%s_%08lld.png", x->outdir, (long long)x->r + 1, name,
             (long long)m->step);
  else
    snprintf(path, sizeof path, "%s/snapshots/%s_%08lld.png", x->outdir, name, (long long)m->step);
  const gs_status st = x->rk ? gs_fdtd3_slice_png_split(m, x->rk, &x->slice, path, err, sizeof err)
                             : gs_fdtd3_slice_png(m, &x->slice, path, err, sizeof err);
  if (st != GS_OK) { /* the same status on every rank */
    output_failed(x, "snapshot: ", err);
    x->snaps_off = 1;
  }
}

/* #snapshot files due now (gprMax's): a failure is said (the job's first) and the run goes on, partial. */
static void gpr_snapshots(run3 *x, gs_fdtd3_sim *m) {
  if (gs_gpr3_snapshots_due(m, x->rk, x->outdir, x->model, (int)x->o->runs, !x->output_said)) {
    x->output_said = 1;
    x->status = GS_EXIT_PARTIAL;
  }
}

/* Collective: a checkpoint now; 0, or 1 when it could not be written (said; the job ends with
 * status 1, its previous checkpoint whole). */
static int checkpoint(run3 *x, gs_fdtd3_sim *m) {
  char err[1024] = "";
  if (gs_ckpt3_save_set(m, x->rk, x->outdir, err, sizeof err) == GS_OK) return 0;
  output_failed(x, "checkpoint: ", err);
  return 1;
}

/* Steps to the end, or to --stop-after, with the snapshots, checkpoints
 * and progress on the way; 1 when stopped early, 2 when a checkpoint
 * failed (the job ends). */
static int step_run(run3 *x, gs_fdtd3_sim *m, double *secs) {
  const int64_t iterations = x->sc->iterations;
  int show = (x->o->progress || isatty(2)) && x->c->rank == 0 && !x->shared, stopped = 0;
  gs_progress *prog = show ? gs_progress_create("fdtd", iterations, "steps") : NULL;
  double cells = (double)x->sc->nx * (double)x->sc->ny * (double)x->sc->nz, t0 = gs_now_s();
  /* #snapshot files (gprMax's): a failure is reported and the run goes on, partial. */
  gpr_snapshots(x, m);
  while (m->step < iterations && !stopped) {
    gs_fdtd3_sim_advance(m, next_event(x, m->step) - m->step);
    gpr_snapshots(x, m);
    if (prog) {
      gs_fdtd3_sim_sync(m);
      gs_progress_update(prog, m->step, (double)(m->step - x->first_step) * cells * 1e-6);
    }
    if (x->sc->snapshot_every && m->step % x->sc->snapshot_every == 0) take_snapshot(x, m);
    if (x->o->checkpoint_every && m->step % x->o->checkpoint_every == 0 && m->step < iterations) {
      if (checkpoint(x, m)) {
        stopped = 2;
        break;
      }
      x->saved = m->step;
    }
    stopped = x->o->stop_after && m->step - x->first_step >= x->o->stop_after && m->step < iterations;
  }
  gs_fdtd3_sim_sync(m);
  *secs += gs_now_s() - t0;
  x->steps += (double)(m->step - x->first_step);
  if (prog) gs_progress_end(prog);
  if (stopped == 1) {
    if (x->saved != m->step && checkpoint(x, m)) return 2;
    if (x->c->rank == 0)
      printf("fdtd: stopped after step %lld of %lld%s; continue with --restart %s%s\n", (long long)m->step,
             (long long)iterations, x->o->runs > 1 ? " of a survey's run" : "", x->outdir,
             x->o->runs > 1 ? " and the same -n" : "");
  }
  return stopped;
}

/* Sets up run x->r: its model (on arrays the cache keeps where it can), --restart's checkpoint,
 * the output folder once the first run is known to start, the geometry outputs; 0, or an exit
 * status with m freed. */
static int open_run(const gs_backend *b, run3 *x, gs_fdtd3_sim *m) {
  char err[1024];
  if (gs_fdtd3_sim_init_cached(m, x->sc, b, (int)x->r, x->rk, x->cache, err, sizeof err) != GS_OK) {
    if (x->c->rank == 0) gs_log_error("fdtd: %s", err); /* the same reason on every rank */
    return GS_EXIT_USAGE;
  }
  if (x->resume) {
    if (gs_ckpt3_restore(m, x->rk, x->resume, err, sizeof err) != GS_OK) {
      if (x->c->rank == 0) gs_log_error("fdtd: --restart: %s", err); /* the same reason on every rank */
      gs_fdtd3_sim_free(m);
      return GS_EXIT_USAGE;
    }
    if (x->c->rank == 0) printf("fdtd: restarting at step %lld from %s\n", (long long)m->step, x->resume);
  }
  /* The output folder once the first run is known to start (a refused scene leaves none), then
   * what killed runs left there (a refused one keeps the checkpoint that was there). */
  const int made = x->outdir_made ? 0 : gs_fdtd_make_outdir(x->c, x->outdir, x->sc->snapshot_every != 0, x->scenes);
  if (made) {
    gs_fdtd3_sim_free(m);
    return made == 2 ? GS_EXIT_USAGE : GS_EXIT_PARTIAL;
  }
  x->outdir_made = 1;
  if (!x->started) gs_ckpt_clean(x->c, x->outdir, x->o->restart);
  x->started = 1;
  const gs_status views =
      x->rk ? gs_gpr3_geometry_outputs_split(x->sc, x->rk, (int)x->r, (int)x->o->runs, x->outdir, err, sizeof err)
            : gs_gpr3_geometry_outputs(x->sc, (int)x->r, (int)x->o->runs, x->outdir, err, sizeof err);
  if (views != GS_OK) { /* agreed over the ranks; a file that cannot be written ends the job with status 1 */
    output_failed(x, "geometry output: ", err);
    gs_fdtd3_sim_free(m);
    return views == GS_ERR_IO ? GS_EXIT_PARTIAL : GS_EXIT_USAGE;
  }
  x->first_step = m->step;
  x->saved = -1;
  return 0;
}

/* A stepped run's outputs (receivers, lines, the survey's marker) and, for the survey's last
 * run, the checksum into sum; its model then kept for a later run. The status, agreed. */
static int close_run(run3 *x, gs_fdtd3_sim *m, uint64_t sum[2]) {
  char err[1024];
  float *hist = x->rk ? gs_fdtd3_dist_receivers(m) : m->rx_hist, *vi; /* every receiver and line, on rank 0 */
  gs_fdtd3_line_record *tl;
  const int ntl = x->rk ? gs_fdtd3_dist_lines(m, &tl, &vi) : local_lines(m, &tl, &vi);
  if (x->c->rank == 0 && save(x->sc, m, hist, tl, ntl, x->outdir, x->r, x->o->runs, err, sizeof err))
    output_failed(x, "", err);
  int status = x->status;
  free(tl);
  free(vi);
  if (x->rk) {
    free(hist);
    status = gs_comm_agree(status, x->c->world); /* the next run on every rank, or on none */
  }
  /* only the survey's last run's checksum is printed: it reads every field back (200 MB at 8 M cells) */
  if (x->r == x->o->runs - 1) gs_fdtd3_sim_checksum(m, sum);
  gs_fdtd3_sim_keep(m, x->cache);      /* a later run of this scene starts on its arrays */
  gs_ckpt_remove(x->c, x->outdir, -1); /* the run is complete: its checkpoints (and a restart's here) go */
  /* marked finished only with all its files (a --restart runs it again otherwise, as in 2D) */
  if (x->o->runs > 1 && x->c->rank == 0 && status == GS_EXIT_OK &&
      gs_survey_mark(x->outdir, x->r, x->sc->path, NULL, 0) != 0)
    status = GS_EXIT_PARTIAL;
  if (x->rk) status = gs_comm_agree(status, x->c->world);
  return status;
}

/* One run: set up, step (with progress), outputs; 0, or an exit status; *stopped set when
 * --stop-after ended it. */
static int run_model(const gs_backend *b, run3 *x, uint64_t sum[2], double *secs, int *stopped) {
  gs_fdtd3_sim m;
  double mark[4] = {gs_now_s()}; /* GPUSTENCIL_DEBUG: where a survey's run spends its time (phases) */
  const int opened = open_run(b, x, &m);
  if (opened) return opened;
  mark[1] = gs_now_s();
  *stopped = step_run(x, &m, secs);
  mark[2] = gs_now_s();
  if (*stopped) {
    gs_fdtd3_sim_free(&m);
    return x->status; /* partial after a failed checkpoint */
  }
  const int reused = m.reused, status = close_run(x, &m, sum);
  mark[3] = gs_now_s();
  if (x->c->rank == 0)
    gs_log_debug("fdtd: run %lld: %s and outputs set up in %.3f s, stepped in %.3f s, saved, kept and marked in "
                 "%.3f s",
                 (long long)x->r + 1, reused ? "set up on the previous run's arrays" : "built", mark[1] - mark[0],
                 mark[2] - mark[1], mark[3] - mark[2]);
  return status;
}

/* Run x->r, on its own scene where the input's #python blocks give every run
 * one (fdtd_scene.h; run 1's is x->sc); 0, or an exit status. */
static int run_once(const gs_backend *b, run3 *x, uint64_t sum[2], double *secs, int *stopped) {
  if (!x->scenes || !x->scenes->per_run || x->r == 0) return run_model(b, x, sum, secs, stopped);
  gs_scene sc;
  if (gs_fdtd_scene_load(x->scenes, x->c, x->r, &sc) != 0) return GS_EXIT_USAGE;
  const gs_scene *first = x->sc;
  int status = GS_EXIT_USAGE;
  if (!positions_refused(x->c, &sc, x->o->runs)) {
    x->sc = &sc;
    /* built for another scene (the cache knows scenes by address): this run's geometry may differ, so it builds
     * its model whole */
    gs_fdtd3_model_cache_free(x->cache);
    status = run_model(b, x, sum, secs, stopped);
    gs_fdtd3_model_cache_free(x->cache);
    x->sc = first;
  }
  gs_scene_free(&sc);
  return status;
}

/* The split of the model over the ranks (NULL on one rank: the whole
 * model; --decomp must then be 1x1x1); 0, or -1 after one line on rank 0. */
static int make_split(const gs_comm *c, const gs_fdtd_opts *o, const gs_scene *sc, gs_fdtd3_ranks *rk,
                      const gs_fdtd3_ranks **out) {
  char why[256];
  int dims[3];
  *out = NULL;
  if (c->size == 1) {
    if (!o->spread.decomp || gs_decomp3_parse(o->spread.decomp, 1, dims, why, sizeof why) == 0) return 0;
    gs_log_error("fdtd: %s: --decomp %s", sc->path, why);
    return -1;
  }
  if (gs_fdtd3_ranks_make(rk, c->world, sc, o->spread.decomp, gs_fdtd_spread_of(&o->spread).transport, why,
                          sizeof why) != 0) {
    if (c->rank == 0) gs_log_error("fdtd: %s: %s", sc->path, why);
    return -1;
  }
  *out = rk;
  return 0;
}

/* What one group of ranks did over its runs. */
typedef struct group_totals {
  double steps, secs; /* steps run and the seconds they took, over the group's runs */
  double span;        /* seconds from the group's first run's set-up to its last run's files */
  int64_t ran;        /* runs this group ran whole in this job (not one resumed from a checkpoint) */
  uint64_t sum[2];    /* the checksum of the group's last run */
  int64_t last;       /* that run (-1: none) */
} group_totals;

/* A restarted survey: whether run x->r finished before (its files are kept untouched, a line
 * says so); -1 where its marker is another input's (said); agreed over the group. */
static int skip_finished(const run3 *x) {
  if (!x->o->restart || x->o->runs < 2) return 0;
  const int finished = gs_survey_finished(x->c, x->outdir, x->r, x->sc->path);
  if (finished <= 0) return finished;
  if (gs_comm_agree(x->c->rank == 0 && !receivers_there(x->sc, x->outdir, x->r, x->o->runs), x->c->world)) {
    if (x->c->rank == 0)
      printf("fdtd: run %lld of %lld is marked finished but its receiver files are gone: it runs again\n",
             (long long)x->r + 1, (long long)x->o->runs);
    return 0;
  }
  if (x->c->rank == 0)
    printf("fdtd: run %lld of %lld finished before: its files are kept\n", (long long)x->r + 1, (long long)x->o->runs);
  return 1;
}

/* What a run set up on a copy of x did to the job's state, back into x. */
static void share_state(run3 *x, const run3 *s) {
  x->status = s->status > x->status ? s->status : x->status;
  x->snaps_off |= s->snaps_off;
  x->output_said |= s->output_said;
  x->started |= s->started;
  x->outdir_made |= s->outdir_made;
}

enum { kTurnSteps = 8 }; /* steps queued on one run's stream before the next run's turn */

/* Steps the n runs side by side to their end, a few steps of each in turn, so that the GPU runs
 * their kernels (each run on its own stream) together; snapshots and progress as step_run's. */
static void step_side_by_side(run3 *xs, gs_fdtd3_sim *ms, int n, double *secs) {
  const run3 *x = &xs[0];
  const int64_t iterations = x->sc->iterations;
  const int show = (x->o->progress || isatty(2)) && x->c->rank == 0 && !x->shared;
  gs_progress *prog = show ? gs_progress_create("fdtd", iterations, "steps") : NULL;
  const double cells = (double)x->sc->nx * (double)x->sc->ny * (double)x->sc->nz * n, t0 = gs_now_s();
  for (int k = 0; k < n; ++k)
    gpr_snapshots(&xs[k], &ms[k]);
  for (int64_t at = ms[0].step; at < iterations;) {
    const int64_t to = next_event(x, at);
    for (int64_t s = at; s < to; s += kTurnSteps)
      for (int k = 0; k < n; ++k)
        gs_fdtd3_sim_advance(&ms[k], to - s < kTurnSteps ? to - s : kTurnSteps);
    at = to;
    for (int k = 0; k < n; ++k) {
      gpr_snapshots(&xs[k], &ms[k]);
      if (x->sc->snapshot_every && at % x->sc->snapshot_every == 0) take_snapshot(&xs[k], &ms[k]);
      for (int j = 0; j < n; ++j) /* a failed output is said once (each run still tries its own) */
        xs[j].output_said |= xs[k].output_said;
    }
    if (prog) {
      gs_fdtd3_sim_sync(&ms[0]);
      gs_progress_update(prog, at, (double)at * cells * 1e-6);
    }
  }
  for (int k = 0; k < n; ++k) {
    gs_fdtd3_sim_sync(&ms[k]);
    xs[k].steps += (double)(ms[k].step - xs[k].first_step);
  }
  *secs += gs_now_s() - t0;
  if (prog) gs_progress_end(prog);
}

/* Runs rs[0..n) of the group side by side on this rank's device, each on its own model and
 * stream (the models kept for the next runs); a line per finished run. 0, or an exit status. */
static int run_side_by_side(const gs_backend *b, run3 *x, const int64_t *rs, int n, group_totals *t,
                            gs_survey_clock *clock) {
  run3 *xs = gs_xcalloc((size_t)n, sizeof *xs);
  gs_fdtd3_sim *ms = gs_xcalloc((size_t)n, sizeof *ms);
  const double before = t->secs, wall = gs_now_s();
  int status = GS_EXIT_OK, opened = 0;
  while (opened < n && status == GS_EXIT_OK) {
    xs[opened] = *x;
    xs[opened].r = rs[opened];
    xs[opened].steps = 0;
    const double t0 = gs_now_s();
    status = open_run(b, &xs[opened], &ms[opened]);
    share_state(x, &xs[opened]);
    if (status == GS_EXIT_OK && x->c->rank == 0)
      gs_log_debug("fdtd: run %lld: %s and outputs set up in %.3f s, side by side with %d other run(s)",
                   (long long)rs[opened] + 1, ms[opened].reused ? "set up on the previous run's arrays" : "built",
                   gs_now_s() - t0, n - 1);
    opened += status == GS_EXIT_OK;
  }
  /* the runs set up step to their end and are saved as one at a time would have, whatever stopped
   * a later one's set-up or an earlier one's files; the job's status is the worst */
  if (opened) step_side_by_side(xs, ms, opened, &t->secs);
  gs_survey_clock_together(clock, opened);
  for (int k = 0; k < opened; ++k) {
    const int closed = close_run(&xs[k], &ms[k], t->sum);
    share_state(x, &xs[k]);
    x->steps += xs[k].steps;
    t->last = rs[k];
    t->ran += closed == GS_EXIT_OK;
    if (x->c->rank == 0 && closed == GS_EXIT_OK)
      gs_survey_clock_done(clock, rs[k], x->o->runs, t->secs - before, gs_now_s() - wall);
    status = closed > status ? closed : status;
  }
  free(xs);
  free(ms);
  return status;
}

/* The group's next runs from x->r on, up to n of them, into rs, past those a restarted survey
 * finished before; x->r moves past them. Their count; *refused set where a marker is another
 * input's (said): the runs before it are still given, as one at a time would run them. */
static int next_runs(run3 *x, int64_t stride, int n, int64_t *rs, gs_survey_clock *clock, int *refused) {
  int got = 0;
  for (; x->r < x->o->runs && got < n; x->r += stride) {
    const int finished = skip_finished(x);
    if (finished < 0) {
      *refused = 1;
      return got;
    }
    if (finished)
      gs_survey_clock_skip(clock);
    else
      rs[got++] = x->r;
  }
  return got;
}

/* The runs first, first + stride, ... of the survey on the ranks of g (all
 * ranks, stride 1: one run after the other; or a survey's group), `side` of
 * them at a time side by side on a rank's device; a line per finished run when
 * the runs are shared out or side by side. Returns a GS_EXIT_* status. */
static int run_group(const gs_comm *g, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc,
                     gs_fdtd_scenes *scenes, const char *outdir, const gs_fdtd3_slice *slice, int64_t first,
                     int64_t stride, int side, group_totals *t) {
  gs_fdtd3_ranks ranks;
  gs_fdtd3_model_cache cache = {0};
  run3 x = {.c = g,
            .o = o,
            .sc = sc,
            .outdir = outdir,
            .slice = *slice,
            .status = GS_EXIT_OK,
            .shared = stride > 1,
            .cache = &cache,
            .scenes = scenes};
  *t = (group_totals){.last = -1};
  const double began = gs_now_s(); /* the survey's pace counts the split's set-up too */
  if (make_split(g, o, sc, &ranks, &x.rk) != 0 || !fits(g, b, sc, x.rk)) return GS_EXIT_USAGE;
  gs_model_name(sc->path, x.model, sizeof x.model);
  if (g->rank == 0 && x.rk && first == 0)
    printf("fdtd: %d ranks%s, decomposition %dx%dx%d, 1 ghost layer, halo transport %s, exchanges %s\n", g->size,
           stride > 1 ? " a run" : "", x.rk->dims[0], x.rk->dims[1], x.rk->dims[2],
           gs_halo_transport_name(x.rk->transport),
           gs_fdtd3_dist_overlap_possible(sc) ? "behind the interior" : "between the H and E passes");
  int status = GS_EXIT_OK, stopped = 0, resumed = 0;
  gs_survey_clock clock = gs_survey_clock_start(first, stride, o->runs);
  for (x.r = first; x.r < o->runs && status == GS_EXIT_OK && !stopped;) {
    int64_t rs[GS_FDTD3_KEPT_MAX];
    int refused = 0;
    const int n = next_runs(&x, stride, side, rs, &clock, &refused);
    if (n > 1) {
      status = run_side_by_side(b, &x, rs, n, t, &clock);
    } else if (n == 1) {
      const int64_t next = x.r;
      x.r = rs[0];
      x.resume = !resumed && o->restart && (o->runs == 1 || gs_survey_checkpoint_in(g, o->restart)) ? o->restart : NULL;
      resumed = resumed || o->restart;
      const double before = t->secs, wall = gs_now_s();
      status = run_once(b, &x, t->sum, &t->secs, &stopped);
      t->last = x.r;
      t->ran += status == GS_EXIT_OK && !stopped && !x.resume; /* a resumed run ran mostly in a job before */
      if ((stride > 1 || side > 1) && g->rank == 0 && status == GS_EXIT_OK)
        gs_survey_clock_done(&clock, x.r, o->runs, t->secs - before, gs_now_s() - wall);
      x.r = next;
    }
    if (refused) status = GS_EXIT_USAGE;
    fflush(stdout);
    if (n == 0 || refused) break;
  }
  t->steps = x.steps;
  t->span = gs_now_s() - began;
  gs_fdtd3_model_cache_free(&cache);
  return stopped && status == GS_EXIT_OK ? -1 : status;
}

/* Ranks a run of the survey: --ranks-per-run, or one where every rank holds
 * the whole model and no option asks for a split or for the runs in turn
 * (--decomp, checkpoints, --stop-after), else all (the runs one after the
 * other, each split); -1 after one line on rank 0. Collective. */
static int group_size(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc) {
  const int rule = gs_survey_group_rule(c, o, sc->path, o->runs);
  if (rule) return rule;
  char why[1024];
  return gs_comm_agree(short_of_memory(c, b, sc, NULL, why, sizeof why), c->world) ? c->size : 1;
}

/* By default a rank's GPU takes runs side by side until they hold about this many cells together:
 * a smaller model leaves an H200 partly idle (docs/fdtd.md, "Surveys"). */
static const double kSideCells = 32e6;

/* How many runs of its model a rank's device holds at once (its GPU and host memory). */
static int64_t models_that_fit(const gs_comm *c, const gs_backend *b, const gs_scene *sc) {
  double dev, host, have_dev, have_host;
  gs_fdtd3_memory_need(sc, &dev, &host);
  host += gs_gpr3_outputs_host_bytes(sc);
  gs_fdtd_rank_memory(c, b, &have_dev, &have_host);
  if (!b->is_gpu) host += dev;
  double most = GS_FDTD3_KEPT_MAX;
  if (b->is_gpu && have_dev > 0 && dev > 0 && have_dev / dev < most) most = have_dev / dev;
  if (have_host > 0 && host > 0 && have_host / host < most) most = have_host / host;
  return most < 1 ? 1 : (int64_t)most;
}

/* The runs a rank takes side by side: --runs-per-gpu, or on a GPU as many as together hold about
 * kSideCells cells; never more than the group's share of the runs or than the memory holds, and 1
 * where a run is split over ranks, where runs go one at a time (checkpoints, --stop-after, a
 * restart's checkpoint), or where #python blocks give each run its own scene. The same on every
 * rank, with a line on rank 0 where the memory holds fewer than asked. Collective. */
static int side_by_side(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, int per_run,
                        gs_fdtd_scenes *scenes) {
  const int64_t share = (o->runs + c->size / per_run - 1) / (c->size / per_run);
  const char *why = per_run > 1                            ? "each run is split over ranks"
                    : o->stop_after || o->checkpoint_every ? "checkpoints need the runs one at a time"
                    : scenes && scenes->per_run            ? "#python blocks give each run its own scene"
                    : o->restart && gs_survey_checkpoint_in(c, o->restart) ? "the restart continues a checkpoint"
                                                                           : NULL;
  if (why && o->runs_per_gpu > 1 && share > 1 && c->rank == 0)
    printf("fdtd: --runs-per-gpu %lld: one run at a time (%s)\n", (long long)o->runs_per_gpu, why);
  if (why || share < 2) return 1;
  const double cells = (double)sc->nx * (double)sc->ny * (double)sc->nz;
  int64_t want = o->runs_per_gpu ? o->runs_per_gpu : b->is_gpu ? (int64_t)(kSideCells / (cells > 1 ? cells : 1)) : 1;
  want = want < share ? want : share;
  want = want < GS_FDTD3_KEPT_MAX ? (want > 1 ? want : 1) : GS_FDTD3_KEPT_MAX;
  int fit = (int)models_that_fit(c, b, sc), least;
  GS_MPI_CHECK(MPI_Allreduce(&fit, &least, 1, MPI_INT, MPI_MIN, c->world));
  if (least < want && o->runs_per_gpu && c->rank == 0)
    printf("fdtd: --runs-per-gpu %lld: the memory holds %d models: %d runs side by side\n", (long long)o->runs_per_gpu,
           least, least);
  return (int)(least < want ? least : want);
}

/* The job's last lines on rank 0: the last run's checksum, steps and time
 * (the slowest group's), from every group's totals; for a survey, its pace in
 * runs an hour over the runs alone (the process's start and end left out). */
static void report(const gs_comm *c, const gs_fdtd_opts *o, const gs_scene *sc, const group_totals *t, int leader) {
  double mine[3] = {leader ? t->steps : 0, t->secs, t->span}, all[3]; /* summed; the slowest group's two */
  int64_t done = leader ? t->ran : 0, runs_ran;
  uint64_t sum[2] = {0, 0}, last[2];
  if (leader && t->last == o->runs - 1) sum[0] = t->sum[0], sum[1] = t->sum[1];
  GS_MPI_CHECK(MPI_Reduce(&mine[0], &all[0], 1, MPI_DOUBLE, MPI_SUM, 0, c->world));
  GS_MPI_CHECK(MPI_Reduce(&mine[1], &all[1], 2, MPI_DOUBLE, MPI_MAX, 0, c->world));
  GS_MPI_CHECK(MPI_Reduce(&done, &runs_ran, 1, MPI_INT64_T, MPI_SUM, 0, c->world));
  const double span = all[2];
  GS_MPI_CHECK(MPI_Reduce(sum, last, 2, MPI_UINT64_T, MPI_SUM, 0, c->world));
  const int ran = gs_comm_agree(leader && t->last == o->runs - 1, c->world); /* resumed: it may have run before */
  if (c->rank != 0) return;
  const double updates = (double)sc->nx * (double)sc->ny * (double)sc->nz * all[0];
  if (ran) printf("checksum E=%016" PRIx64 " H=%016" PRIx64 "\n", last[0], last[1]);
  printf("fdtd: %.0f steps in %.3f s on %d rank(s): %.1f Mcells/s\n", all[0], all[1], c->size,
         all[1] > 0 ? updates / all[1] * 1e-6 : 0.0);
  if (o->runs > 1 && runs_ran > 0 && span > 0)
    printf("fdtd: survey: %lld run(s) in %.3f s, from the first run's set-up to the last run's files: %.0f runs an "
           "hour\n",
           (long long)runs_ran, span, (double)runs_ran * 3600.0 / span);
}

/* The header line of a 3D model on rank 0. */
static void announce(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, int per_run,
                     int side) {
  if (c->rank != 0) return;
  printf("fdtd: %s: 3D, %lld x %lld x %lld cells of %g x %g x %g m, dt %g s, %lld iterations, %d material(s), %d "
         "source(s), %d receiver(s), PML %d/%d/%d/%d/%d/%d, backend %s, %lld run(s)\n",
         sc->path, (long long)sc->nx, (long long)sc->ny, (long long)sc->nz, sc->dx, sc->dy, sc->dz, sc->dt,
         (long long)sc->iterations, sc->nmaterials - 2, sc->nsources + sc->nsrc3, sc->nrx, sc->pml6[0], sc->pml6[1],
         sc->pml6[2], sc->pml6[3], sc->pml6[4], sc->pml6[5], b->name, (long long)o->runs);
  if (per_run < c->size) printf("fdtd: the runs shared out over %d groups of %d rank(s)\n", c->size / per_run, per_run);
  if (side > 1) printf("fdtd: %d runs side by side on each rank's %s\n", side, b->is_gpu ? "GPU" : "device");
}

int gs_fdtd3_run(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, const char *outdir,
                 gs_fdtd_scenes *scenes) {
  const int root = c->rank == 0;
  if (refused(c, o, sc)) return GS_EXIT_USAGE;
  if (positions_refused(c, sc, o->runs)) return GS_EXIT_USAGE;
  char err[1024];
  gs_fdtd3_slice slice;
  if (gs_fdtd3_slice_parse(sc, o->slice, o->slice_field, &slice, err, sizeof err) != GS_OK) {
    if (root) gs_log_error("fdtd: %s: %s", sc->path, err);
    return GS_EXIT_USAGE;
  }
  const int per_run = group_size(c, b, o, sc);
  if (per_run <= 0) return GS_EXIT_USAGE;
  const int groups = c->size / per_run, color = c->rank / per_run;
  if (groups > 1 && (o->stop_after || o->checkpoint_every)) {
    if (root)
      gs_log_error("fdtd: %s: --stop-after and --checkpoint-every need the runs one after the other "
                   "(--ranks-per-run %d)",
                   sc->path, c->size);
    return GS_EXIT_USAGE;
  }
  const int side = side_by_side(c, b, o, sc, per_run, scenes);
  announce(c, b, o, sc, per_run, side);
  gs_log_debug("fdtd: %d group(s) of %d rank(s), %d run(s) side by side", groups, per_run, side);
  gs_comm group;
  if (groups > 1) gs_comm_split(c, color, &group);
  group_totals t;
  int status = run_group(groups > 1 ? &group : c, b, o, sc, scenes, outdir, &slice, color, groups, side, &t);
  const int leader = groups > 1 ? group.rank == 0 : root;
  if (groups > 1) gs_comm_free(&group);
  gs_log_debug("fdtd: the group's runs done");
  const int stopped = status < 0;
  if (stopped) status = GS_EXIT_OK;
  status = gs_comm_agree(status, c->world);
  if (status != GS_EXIT_USAGE && !stopped) report(c, o, sc, &t, leader);
  fflush(stdout);
  return status;
}

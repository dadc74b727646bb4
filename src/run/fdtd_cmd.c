/* The fdtd command: a scene loaded on every rank, then a 2D model's runs here (a 3D model's in
 * fdtd3d_cmd.c): the loop over -n runs, receivers.csv, snapshots, B-scans, checkpoints and
 * restarts, progress (docs/fdtd.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fdtd3d_cmd.h"
#include "fdtd_cmd.h"
#include "fdtd_internal.h"
#include "fdtd_scene.h"
#include "fsutil.h"
#include "gpr_views.h"
#include "log.h"
#include "progress.h"
#include "rx_output.h"
#include "snapshot.h"
#include "survey.h"
#include "workbound.h"

/* Collective: every receiver's history (steps x 3 floats), sent to rank 0
 * by the rank that holds it in this run; NULL on the other ranks. */
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

/* One invocation of the command: what its runs share. */
typedef struct fdtd_job {
  const gs_comm *c;      /* the ranks that run this job's runs: all, or a survey's group */
  const gs_comm *world;  /* all the ranks */
  int64_t first, stride; /* the runs of this group: first, first + stride, ... (0, 1: all of them) */
  int stopped;           /* --stop-after or a failure ended the runs early */
  const char *resume;    /* the checkpoint folder the next run continues from, or NULL */
  int started;           /* a run has started in this job (the folder cleaned of killed runs) */
  int ran_last;          /* this group ran the survey's last run in this job (its checksum is the job's) */
  const gs_backend *backend;
  const gs_fdtd_opts *o;
  const char *scene_path;
  gs_fdtd_spread spread;
  gs_fdtd_scenes scenes; /* each run's scene (the input's #python blocks may differ per run) */
  gs_scene sc;
  int64_t runs; /* -n; lowered when --stop-after ends the job early */
  int root;     /* this is rank 0 */
  int dims[2];  /* ranks along x and y */
  MPI_Comm cart;
  gs_fdtd_part part; /* this rank's nodes */
  int64_t *parts;    /* every rank's part: i0, i1, j0, j1 each */
  int depth;         /* the halo depth every rank uses */
  char outdir[1100];
  double cells;                /* of the grid, for the rates */
  float *bscan;                /* rank 0, several runs with receivers: the first one's Ez, [run][step] */
  double total_steps, t_total; /* of the completed runs */
  uint64_t sum[3];             /* the last run's checksum (rank 0) */
  int status;                  /* GS_EXIT_* */
  int snaps_off;               /* a snapshot failed to be written: no more are tried (a full disk says it once) */
  int output_said;             /* an output failed and was said: later failures are not said again */
  int outdir_made;             /* the output folder exists (made once the first run is set up) */
} fdtd_job;

/* The checkpoints of one run. */
typedef struct run_ckpt {
  int64_t prev;     /* step of this run's last checkpoint set (-1: none) */
  gs_ckpt_old drop; /* a checkpoint of another layout this run restarted from */
} run_ckpt;

/* 0 when every run's sources and receivers stay inside the domain, or 1
 * (said on rank 0). */
static int check_positions(const fdtd_job *j) {
  const gs_scene *sc = &j->sc;
  for (int64_t r = 0; r < j->runs; ++r)
    for (int k = 0; k < sc->nsources + sc->nrx; ++k) {
      int is_src = k < sc->nsources;
      int64_t i = is_src ? sc->sources[k].i + r * sc->src_di : sc->rxs[k - sc->nsources].i + r * sc->rx_di;
      int64_t jj = is_src ? sc->sources[k].j + r * sc->src_dj : sc->rxs[k - sc->nsources].j + r * sc->rx_dj;
      /* Receivers may sit on the outer boundary (gprMax records 0 there);
       * sources must be inside it, where the field is updated. */
      int edge = is_src ? 1 : 0;
      if (i < edge || i > sc->nx - edge || jj < edge || jj > sc->ny - edge) {
        if (j->root)
          gs_log_error("%s: run %lld moves a %s %s (#src_steps/#rx_steps)", j->scene_path, (long long)r + 1,
                       is_src ? "source" : "receiver",
                       is_src ? "onto or past the domain's boundary" : "outside the domain");
        return 1;
      }
    }
  return 0;
}

/* An output that could not be written (a full disk, a folder in its place), known on every rank:
 * the job's status becomes partial (exit 1) and rank 0 says err, the job's first such failure
 * only (a full disk fails every later output too; the first is what to fix). */
static void output_failed(fdtd_job *j, const char *what, const char *err) {
  if (j->root && !j->output_said) gs_log_error("fdtd: %s%s", what, err);
  j->output_said = 1;
  j->status = GS_EXIT_PARTIAL;
}

/* Refuses a job whose steps would run for good or for days (docs/usage.md, "Limits on a job's
 * length"): more than GS_IDLE_MAX_STEPS steps with no source (the fields stay zero), or more than
 * GS_FDTD_MAX_SECONDS at the fastest this backend could step. The steps of this job: --stop-after's
 * when given (a long model goes on with --restart), every run's. 1 (said on rank 0) or 0. */
static int too_long(const fdtd_job *j) {
  const gs_scene *sc = &j->sc;
  const double iterations = (double)sc->iterations, after = (double)j->o->stop_after;
  const double steps = after > 0 && after < iterations ? after : iterations * (double)j->runs;
  const double cells = (double)sc->nx * (double)sc->ny * (sc->mode == GS_MODE_3D ? (double)sc->nz : 1.0);
  const int sources = sc->nsources + sc->nsrc3 + sc->npws;
  char why[256] = "", took[128];
  if (!sources && steps > GS_IDLE_MAX_STEPS)
    snprintf(why, sizeof why, "%.0f steps with no source (the fields stay zero): at most %.0f", steps,
             GS_IDLE_MAX_STEPS);
  else if (gs_work_too_long(gs_work_least_seconds(cells, steps, j->c->size, j->backend->is_gpu), GS_FDTD_MAX_SECONDS,
                            took, sizeof took))
    snprintf(why, sizeof why, "%.0f steps of %.0f cells on %d rank(s) %s: fewer steps, or --stop-after and --restart",
             steps, cells, j->c->size, took);
  if (why[0] && j->root) gs_log_error("fdtd: %s: %s", j->scene_path, why);
  return why[0] != 0;
}

/* Loads run r's scene with the options' overrides (fdtd_scene.h); 0, or 1 on
 * every rank (said once; nothing to free). */
static int load_scene(fdtd_job *j, int64_t r) {
  if (gs_fdtd_scene_load(&j->scenes, j->c, r, &j->sc) != 0) return 1;
  if (r == 0 && too_long(j)) { /* the job's length, known from run 1 */
    gs_scene_free(&j->sc);
    return 1;
  }
  if (j->sc.mode != GS_MODE_3D && check_positions(j)) {
    gs_scene_free(&j->sc);
    return 1;
  }
  j->cells = (double)j->sc.nx * (double)j->sc.ny;
  return 0;
}

/* The Cartesian communicator of the decomposition (x along dimension 0),
 * this rank's part and every rank's. */
static void split_domain(fdtd_job *j) {
  const gs_comm *c = j->c;
  int periods[2] = {0, 0}, coords[2];
  GS_MPI_CHECK(MPI_Cart_create(c->world, 2, j->dims, periods, 0, &j->cart));
  GS_MPI_CHECK(MPI_Cart_coords(j->cart, c->rank, 2, coords));
  j->part = gs_fdtd_part_of(&j->sc, j->dims, coords);
  int64_t mypart[4] = {j->part.i0, j->part.i1, j->part.j0, j->part.j1};
  j->parts = gs_xmalloc(sizeof *j->parts * 4 * (size_t)c->size);
  GS_MPI_CHECK(MPI_Allgather(mypart, 4, MPI_INT64_T, j->parts, 4, MPI_INT64_T, c->world));
}

/* Whether a part of outdir that exists is not a folder (a file named by -o): it could never be
 * made; 1 with "PATH: Not a directory" in err, or 0. */
static int outdir_blocked(const char *outdir, char *err, size_t errlen) {
  char *d = gs_xstrdup(outdir);
  int blocked = 0;
  for (size_t i = 1, n = strlen(d); i <= n && !blocked; ++i) {
    if (d[i] != '/' && d[i] != '\0') continue;
    const char keep = d[i];
    d[i] = '\0';
    struct stat sb;
    blocked = stat(d, &sb) == 0 && !S_ISDIR(sb.st_mode);
    d[i] = keep;
  }
  free(d);
  if (blocked) snprintf(err, errlen, "%s: %s", outdir, strerror(ENOTDIR));
  return blocked;
}

/* The output folder's name, -o or the scene's name without .in plus _out (nothing is made yet: a
 * scene refused later leaves no folder); 0, or 1 on every rank when an output would overwrite one
 * of the scene's inputs. */
static int pick_outdir(fdtd_job *j) {
  if (j->o->outdir) {
    snprintf(j->outdir, sizeof j->outdir, "%s", j->o->outdir);
  } else if (j->sc.output_dir[0]) { /* gprMax's #output_dir */
    snprintf(j->outdir, sizeof j->outdir, "%s", j->sc.output_dir);
  } else {
    const char *base = strrchr(j->scene_path, '/');
    base = base ? base + 1 : j->scene_path;
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".in") == 0) bl -= 3;
    snprintf(j->outdir, sizeof j->outdir, "%.*s_out", (int)bl, base);
  }
  /* an output written over one of the files the scene read would lose it (gprMax's layout: -o the scene's folder) */
  char err[2600];
  int bad = gs_scene_check_inputs(&j->sc, j->runs, j->outdir, err, sizeof err) != 0 ||
            outdir_blocked(j->outdir, err, sizeof err);
  if (gs_comm_agree(bad, j->c->world)) {
    if (j->root) gs_log_error("fdtd: %s", bad ? err : "an output would overwrite an input file (on another rank)");
    return 1;
  }
  return 0;
}

int gs_fdtd_make_outdir(const gs_comm *c, const char *outdir, int snapshots, gs_fdtd_scenes *scenes) {
  int bad = 0;
  if (c->rank == 0) {
    char sd[1200];
    snprintf(sd, sizeof sd, "%.1100s/snapshots", outdir);
    const char *failed = gs_mkdirs(outdir, 1) != 0 ? outdir : snapshots && gs_mkdirs(sd, 1) != 0 ? sd : NULL;
    bad = failed != NULL;
    if (bad) gs_log_error("fdtd: %s: %s", failed, strerror(errno));
  }
  if (gs_comm_agree(bad, c->world)) return 1;
  return scenes ? gs_fdtd_scenes_outdir(scenes, c, outdir) : 0;
}

/* Rank 0: one line on the scene and the run, the materials with #messages. */
static void print_scene(const fdtd_job *j) {
  const gs_scene *sc = &j->sc;
  if (j->world->rank != 0) return;
  int nrx = 0; /* the #rx receivers, not the hidden helpers of a current output */
  for (int k = 0; k < sc->nrx; ++k)
    nrx += !sc->rxs[k].hidden;
  printf("fdtd: %s%s%s: %lld x %lld cells of %g x %g m, dt %.6g s (stability %g), %lld iterations, %d material(s), "
         "%d source(s), %d receiver(s), PML %d/%d/%d/%d, backend %s, %d run(s)\n",
         sc->title[0] ? "'" : "", sc->title[0] ? sc->title : j->scene_path, sc->title[0] ? "'" : "", (long long)sc->nx,
         (long long)sc->ny, sc->dx, sc->dy, sc->dt, sc->stability, (long long)sc->iterations, sc->nmaterials - 2,
         sc->nsources, nrx, sc->pml[0], sc->pml[1], sc->pml[2], sc->pml[3], j->backend->name, (int)j->runs);
  if (sc->messages)
    for (int k = 2; k < sc->nmaterials; ++k)
      printf("  material %s: er %g, sigma %g S/m\n", sc->materials[k].name, sc->materials[k].er,
             sc->materials[k].sigma);
  fflush(stdout);
}

/* Rank 0: how the run is spread over ranks and whether CUDA graphs are on. */
static void print_spread(const fdtd_job *j, const gs_fdtd_sim *m) {
  if (!j->root) return;
  if (j->c->size > 1) {
    char tr[64];
    printf("fdtd: %d ranks, decomposition %dx%d, halo transport %s (rank 0), halo depth %d, overlap %s, CUDA graphs "
           "%s\n",
           j->c->size, j->dims[0], j->dims[1], gs_halo_summary(m->dist.halo, tr, sizeof tr), j->depth,
           j->spread.overlap ? "on" : "off", m->graph.allowed ? "on" : "off");
    fflush(stdout);
  } else if (j->backend->is_gpu) {
    printf("fdtd: CUDA graphs %s\n", m->graph.allowed ? "on" : "off");
    fflush(stdout);
  }
}

/* Sets up run r: this rank's part and its halo. 0, or 1 on every rank (the
 * lowest rank that failed says why; nothing to free). */
static int open_run(const fdtd_job *j, int r, gs_fdtd_sim *m) {
  const gs_comm *c = j->c;
  char err[1024];
  gs_status st = gs_fdtd_sim_init_part(m, &j->sc, j->backend, r, &j->part, j->depth, err, sizeof err);
  int mine = st == GS_OK ? c->size : c->rank, first = c->size;
  GS_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->world));
  if (first < c->size) {
    if (c->rank == first) gs_log_error("fdtd: decomposition %dx%d: %s", j->dims[0], j->dims[1], err);
    if (st == GS_OK) gs_fdtd_sim_free(m);
    return 1;
  }
  err[0] = '\0';
  if (gs_fdtd_sim_connect(m, j->cart, j->spread.transport, j->spread.overlap, err, sizeof err) != GS_OK) {
    int me = err[0] ? c->rank : c->size, lowest = c->size;
    GS_MPI_CHECK(MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, c->world));
    if (c->rank == lowest) gs_log_error("fdtd: %s", err);
    gs_fdtd_sim_free(m);
    return 1;
  }
  if (m->graph.allowed && !j->spread.graphs) gs_log_debug("fdtd: CUDA graphs off: --no-graphs");
  m->graph.allowed = m->graph.allowed && j->spread.graphs;
  if (r == 0) print_spread(j, m);
  return 0;
}

/* --restart: the run goes on from the checkpoint in that folder. 0, or 1 on
 * every rank (the reason said once). */
static int restart_run(const fdtd_job *j, gs_fdtd_sim *m, run_ckpt *ck) {
  const char *dir = j->resume;
  char err[1024];
  err[0] = '\0';
  gs_ckpt_old got;
  if (gs_ckpt_load(m, j->c, dir, &got, err, sizeof err) != GS_OK) {
    if (err[0]) gs_log_error("fdtd: --restart: %s", err);
    return 1;
  }
  if (j->root)
    printf("fdtd: restarting at step %lld from %s (written by %d rank(s))\n", (long long)m->step, dir, got.nranks);
  gs_fdtd_sim_refresh(m); /* the ghost layers are not in the checkpoint */
  /* The checkpoint read stays until this run writes its own (or completes);
   * one in another folder is never touched. */
  if (strcmp(dir, j->outdir) == 0) {
    if (got.kind == 2 && got.nranks == j->c->size)
      ck->prev = got.step; /* the same layout: replaced like this run's own */
    else if (!(got.kind == 1 && j->c->size == 1))
      ck->drop = got;
  }
  return 0;
}

/* The next step where something happens (a snapshot, a checkpoint, a
 * progress update, --stop-after, the end); graphs replay whole cycles in
 * between. */
static int64_t next_event(const fdtd_job *j, int64_t step, int64_t first_step, int progress) {
  int64_t next = j->sc.iterations, every[3] = {j->sc.snapshot_every, j->o->checkpoint_every, progress ? 64 : 0};
  for (int k = 0; k < 3; ++k)
    if (every[k] && (step / every[k] + 1) * every[k] < next) next = (step / every[k] + 1) * every[k];
  for (int k = 0; k < j->sc.nsnaps; ++k) /* gprMax's snapshot T: after T - 1 steps */
    if (j->sc.snaps[k].iteration - 1 > step && j->sc.snaps[k].iteration - 1 < next) next = j->sc.snaps[k].iteration - 1;
  if (j->o->stop_after && first_step + j->o->stop_after < next) next = first_step + j->o->stop_after;
  return next;
}

/* A snapshot's status st (rank 0's: the writer's), agreed by the ranks: a
 * failure makes the job's status partial and ends its snapshots. */
static void snapshot_done(fdtd_job *j, gs_status st, const char *path, const char *err) {
  if (!gs_comm_agree(st != GS_OK, j->c->world)) return;
  char what[1400];
  snprintf(what, sizeof what, "snapshot %.1300s: ", path);
  if (j->root && !j->output_said) gs_log_error("fdtd: %s%s (no more snapshots in this job)", what, err);
  j->output_said = 1;
  j->status = GS_EXIT_PARTIAL;
  j->snaps_off = 1;
}

/* Ez of run r now as snapshots/[runNNN_]ez_STEP.png. */
static void take_snapshot(fdtd_job *j, gs_fdtd_sim *m, int64_t r) {
  char sp[1300], err[1024] = "";
  if (j->snaps_off) return;
  if (j->runs > 1)
    snprintf(sp, sizeof sp, "%s/snapshots/run%03lld_ez_%08lld.png", j->outdir, (long long)r + 1, (long long)m->step);
  else
    snprintf(sp, sizeof sp, "%s/snapshots/ez_%08lld.png", j->outdir, (long long)m->step);
  gs_snapshot_label lab = {(double)m->step * j->sc.dt, m->step, NULL}; /* Ez after step n: the field at n dt */
  snapshot_done(j, gs_fdtd_snapshot(m, j->c, j->parts, &lab, sp, err, sizeof err), sp, err);
}

/* The scene file's name without its folder and its extension (gprMax
 * names its outputs after it). */
/* gprMax's #snapshot files due now (after m->step steps), into
 * OUTDIR/MODEL_snaps (MODELn_snaps with several runs, as gprMax). */
static void take_gpr_snapshots(fdtd_job *j, gs_fdtd_sim *m, int64_t r) {
  char model[512], dir[1700], path[2000], err[1024] = "";
  for (int k = 0; k < j->sc.nsnaps && !j->snaps_off; ++k) {
    if (j->sc.snaps[k].iteration - 1 != m->step) continue;
    gs_model_name(j->scene_path, model, sizeof model);
    if (j->runs > 1)
      snprintf(dir, sizeof dir, "%s/%s%lld_snaps", j->outdir, model, (long long)r + 1);
    else
      snprintf(dir, sizeof dir, "%s/%s_snaps", j->outdir, model);
    snprintf(path, sizeof path, "%s/%s", dir, j->sc.snaps[k].file);
    const int bad = j->root && gs_mkdirs(dir, 1) != 0; /* said as the snapshot's failure */
    if (bad) snprintf(err, sizeof err, "%.1000s: %s", dir, strerror(errno));
    if (gs_comm_agree(bad, j->c->world)) {
      snapshot_done(j, GS_ERR_IO, path, err);
      continue;
    }
    snapshot_done(j, gs_gpr_take_snapshot(m, j->c, &j->sc.snaps[k], path, err, sizeof err), path, err);
  }
}

/* Collective: a checkpoint of run r now; 0, or 1 when it could not be written (said, the job's
 * status partial: the job ends, its previous checkpoint whole). */
static int checkpoint(fdtd_job *j, gs_fdtd_sim *m, run_ckpt *ck) {
  char err[1024] = "";
  if (gs_ckpt_save(m, j->c, j->dims, j->outdir, &ck->prev, err, sizeof err) != GS_OK) {
    output_failed(j, "checkpoint: ", err);
    return 1;
  }
  gs_ckpt_drop(j->c, j->outdir, &ck->drop);
  return 0;
}

/* Steps run r to the end of the time window, or until --stop-after, with
 * the snapshots, checkpoints and progress due on the way. Returns 0 at the
 * end, 1 when it stopped early, 2 when a checkpoint failed (the job ends);
 * *secs: the time the steps took (between barriers). */
static int step_run(fdtd_job *j, gs_fdtd_sim *m, int64_t r, run_ckpt *ck, double *secs) {
  const gs_fdtd_opts *o = j->o;
  const int64_t iterations = j->sc.iterations;
  int show = j->root && (o->progress || isatty(2));
  gs_progress *prog = show ? gs_progress_create("fdtd", iterations, "steps") : NULL;
  const int64_t first_step = m->step;
  GS_MPI_CHECK(MPI_Barrier(j->c->world));
  double t0 = gs_now_s();
  int stopped = 0;
  if (m->step == 0) take_gpr_snapshots(j, m, r);
  while (m->step < iterations) {
    gs_fdtd_sim_advance(m, next_event(j, m->step, first_step, prog != NULL) - m->step);
    if (j->sc.snapshot_every && m->step % j->sc.snapshot_every == 0) take_snapshot(j, m, r);
    take_gpr_snapshots(j, m, r);
    if (o->checkpoint_every && m->step % o->checkpoint_every == 0 && m->step < iterations && checkpoint(j, m, ck)) {
      stopped = 2;
      break;
    }
    if (prog && (m->step & 63) == 0) {
      gs_fdtd_sim_sync(m);
      gs_progress_update(prog, m->step, (double)(m->step - first_step) * j->cells * 1e-6);
    }
    if (o->stop_after && m->step - first_step >= o->stop_after && m->step < iterations) {
      stopped = 1;
      break;
    }
  }
  gs_fdtd_sim_sync(m);
  GS_MPI_CHECK(MPI_Barrier(j->c->world));
  *secs = gs_now_s() - t0;
  if (prog) gs_progress_end(prog);
  return stopped;
}

/* --stop-after ended the run: a checkpoint of where it stands (unless one
 * was just written), and how to go on. */
static void stop_run(fdtd_job *j, gs_fdtd_sim *m, run_ckpt *ck) {
  if (ck->prev != m->step && checkpoint(j, m, ck)) return;
  gs_ckpt_drop(j->c, j->outdir, &ck->drop);
  if (j->root)
    printf("fdtd: stopped after step %lld of %lld%s; continue with --restart %s%s\n", (long long)m->step,
           (long long)j->sc.iterations, j->o->runs > 1 ? " of a survey's run" : "", j->outdir,
           j->o->runs > 1 ? " and the same -n" : "");
}

/* Rank 0: run r's receivers (rx: [receiver][step][Ez, Hx, Hy], steps long)
 * as receivers.csv (receivers_runNNN.csv with several runs) and gprMax's
 * MODEL.h5 (MODEL1.h5 ... MODELN.h5 with several runs, as gprMax 4 names
 * them), and the first one's Ez as the run's B-scan column. */
static void save_receivers(fdtd_job *j, const float *rx, int64_t steps, int64_t r) {
  char rp[1300], hp[1700], err[1024];
  gs_survey_receiver_paths(j->scene_path, j->outdir, r, j->runs, hp, rp);
  /* both tried: one that cannot be written does not cost the other (err: the first failure) */
  char err2[1024];
  const int csv = gs_rx_write_csv(&j->sc, rx, steps, rp, err, sizeof err) != GS_OK;
  const int h5 =
      gs_rx_write_h5(&j->sc, rx, steps, (int)r, hp, csv ? err2 : err, csv ? sizeof err2 : sizeof err) != GS_OK;
  if (csv || h5) output_failed(j, "", err); /* rank 0's status; finish_run agrees it */
  if (j->bscan)
    for (int64_t s = 0; s < j->sc.iterations; ++s)
      j->bscan[(size_t)r * (size_t)j->sc.iterations + (size_t)s] = rx[3 * (size_t)s];
}

/* The outputs of completed run r: its receivers, its checksum (to rank 0);
 * its checkpoints, now stale, go. */
static void finish_run(fdtd_job *j, gs_fdtd_sim *m, int64_t r, run_ckpt *ck) {
  float *rx = j->sc.nrx ? gather_receivers(m, j->c, j->parts, (int)r) : NULL;
  if (j->root && j->sc.nrx) save_receivers(j, rx, m->step, r);
  free(rx);
  j->status = gs_comm_agree(j->status, j->c->world); /* the next run on every rank, or on none */
  uint64_t local[3];
  gs_fdtd_sim_checksum(m, local);
  GS_MPI_CHECK(MPI_Reduce(local, j->sum, 3, MPI_UINT64_T, MPI_SUM, 0, j->c->world));
  if (j->root && j->runs > 1 && j->stride == 1)
    printf("fdtd: run %lld of %lld done\n", (long long)r + 1, (long long)j->runs);
  gs_ckpt_remove(j->c, j->outdir, ck->prev);
  gs_ckpt_drop(j->c, j->outdir, &ck->drop);
  /* the survey's marker once the run's files are whole and its checkpoints gone */
  float *col = j->bscan ? j->bscan + (size_t)r * (size_t)j->sc.iterations : NULL;
  if (j->runs > 1 && j->root && j->status == GS_EXIT_OK &&
      gs_survey_mark(j->outdir, r, j->scene_path, col, col ? (size_t)j->sc.iterations : 0) != 0)
    j->status = GS_EXIT_PARTIAL;
  j->status = gs_comm_agree(j->status, j->c->world);
  j->ran_last = r == j->runs - 1;
}

/* A resumed survey (--restart DIR with -n): whether run r finished before, its files kept
 * untouched and its B-scan column read from its marker; agreed over the group. A marker of
 * another input stops the job (j->status, 1 returned). */
static int finished_before(fdtd_job *j, int64_t r) {
  if (!j->o->restart || j->o->runs < 2) return 0;
  const int finished = gs_survey_finished(j->c, j->outdir, r, j->scene_path);
  if (finished < 0) j->status = GS_EXIT_USAGE;
  if (finished <= 0) return finished < 0;
  char rp[1300], hp[1700];
  gs_survey_receiver_paths(j->scene_path, j->outdir, r, j->runs, hp, rp);
  if (gs_comm_agree(j->root && j->sc.nrx && (access(rp, F_OK) != 0 || access(hp, F_OK) != 0), j->c->world)) {
    if (j->root) /* removed since it was marked: run again */
      printf("fdtd: run %lld of %lld is marked finished but its receiver files are gone: it runs again\n",
             (long long)r + 1, (long long)j->runs);
    return 0;
  }
  const size_t n = (size_t)j->sc.iterations;
  if (j->root && j->bscan && gs_survey_column(j->outdir, r, j->bscan + (size_t)r * n, n) != 0)
    j->status = GS_EXIT_USAGE;
  j->status = gs_comm_agree(j->status, j->c->world);
  if (j->root && j->status == GS_EXIT_OK)
    printf("fdtd: run %lld of %lld finished before: its files are kept\n", (long long)r + 1, (long long)j->runs);
  return 1;
}

/* Run r, from --restart's checkpoint if given. 0 to go on with the next
 * run; 1 when the job ends here (an error, or --stop-after). */
static int run_once(fdtd_job *j, int64_t r) {
  gs_fdtd_sim m;
  run_ckpt ck = {-1, {0, 0, -1}};
  if (open_run(j, (int)r, &m) != 0) {
    j->status = GS_EXIT_USAGE;
    return 1;
  }
  if (j->resume && restart_run(j, &m, &ck) != 0) {
    gs_fdtd_sim_free(&m);
    j->status = GS_EXIT_USAGE;
    return 1;
  }
  /* The output folder once the first run is known to start (a refused scene leaves none), then
   * what killed runs left there (a refused one keeps the checkpoint that was there). */
  const int made = j->outdir_made ? 0 : gs_fdtd_make_outdir(j->c, j->outdir, j->sc.snapshot_every != 0, &j->scenes);
  if (made) {
    gs_fdtd_sim_free(&m);
    j->status = made == 2 ? GS_EXIT_USAGE : GS_EXIT_PARTIAL;
    return 1;
  }
  j->outdir_made = 1;
  if (!j->started) gs_ckpt_clean(j->c, j->outdir, j->o->restart);
  j->started = 1;
  const int64_t first_step = m.step;
  char err[1024] = "";
  int bad = j->root && gs_gpr_write_views(&j->sc, (int)r, (int)j->runs, j->outdir, err, sizeof err) != GS_OK;
  if (gs_comm_agree(bad, j->c->world)) { /* the job ends: a full disk or an unwritable folder */
    output_failed(j, "geometry view: ", err);
    gs_fdtd_sim_free(&m);
    return 1;
  }
  double secs;
  const int how = step_run(j, &m, r, &ck, &secs);
  if (how) {
    if (how == 1) stop_run(j, &m, &ck);
    gs_fdtd_sim_free(&m);
    j->stopped = 1;
    j->runs = r + 1;
    free(j->bscan); /* no B-scan of a job cut short */
    j->bscan = NULL;
    return 1;
  }
  j->total_steps += (double)(m.step - first_step);
  j->t_total += secs;
  finish_run(j, &m, r, &ck);
  gs_fdtd_sim_free(&m);
  return 0;
}

/* The job's last lines on rank 0 of all the ranks: the last run's checksum (from the group that
 * ran it), the steps of every group and the slowest group's seconds. Collective over j->world. */
static void report(const fdtd_job *j) {
  const int leader = j->root, last = leader && j->ran_last;
  double mine[2] = {leader ? j->total_steps : 0, j->t_total}, all[2];
  uint64_t sum[3] = {0, 0, 0}, got[3];
  if (last) memcpy(sum, j->sum, sizeof sum);
  const MPI_Comm w = j->world->world;
  GS_MPI_CHECK(MPI_Reduce(&mine[0], &all[0], 1, MPI_DOUBLE, MPI_SUM, 0, w));
  GS_MPI_CHECK(MPI_Reduce(&mine[1], &all[1], 1, MPI_DOUBLE, MPI_MAX, 0, w));
  GS_MPI_CHECK(MPI_Reduce(sum, got, 3, MPI_UINT64_T, MPI_SUM, 0, w));
  const int ran = gs_comm_agree(last, w); /* a resumed survey's last run may have finished before */
  if (j->world->rank != 0) return;
  if (ran) printf("checksum Ez=%016" PRIx64 " Hx=%016" PRIx64 " Hy=%016" PRIx64 "\n", got[0], got[1], got[2]);
  printf("fdtd: %.0f steps in %.3f s on %d rank(s): %.1f Mcells/s\n", all[0], all[1], j->world->size,
         all[1] > 0 ? all[0] * j->cells / all[1] * 1e-6 : 0.0);
}

/* A survey shared over groups: every run's B-scan column to rank 0 of all the ranks, from the
 * leader of the group that ran it (run r: group r mod stride, whose leader is rank
 * (r mod stride) * group size). Collective over j->world. */
static void gather_bscan(fdtd_job *j) {
  const int64_t n = j->sc.iterations;
  const int me = j->world->rank;
  for (int64_t r = 0; r < j->runs; ++r) {
    const int owner = (int)(r % j->stride) * j->c->size;
    if (owner == 0) continue;
    float *col = j->bscan ? j->bscan + (size_t)r * (size_t)n : NULL;
    if (me == owner)
      GS_MPI_CHECK(MPI_Send(col, (int)n, MPI_FLOAT, 0, 7, j->world->world));
    else if (me == 0)
      GS_MPI_CHECK(MPI_Recv(col, (int)n, MPI_FLOAT, owner, 7, j->world->world, MPI_STATUS_IGNORE));
  }
}

/* The runs one after the other, then the B-scan over them. */
/* Refuses, on every rank, a model that needs more memory than a rank has. */
static int memory_refused(fdtd_job *j) {
  char err[512];
  gs_fdtd_memory need = gs_fdtd_memory_need(&j->sc, &j->part, j->depth, j->root ? j->runs : 0);
  if (gs_fdtd_memory_check(j->c, j->backend, need, err, sizeof err) == GS_OK) return 0;
  if (err[0]) gs_log_error("fdtd: %s: %s", j->scene_path, err);
  j->status = GS_EXIT_USAGE;
  return 1;
}

static void run_all(fdtd_job *j) {
  const gs_scene *sc = &j->sc;
  j->depth = gs_fdtd_agree_depth(sc, j->backend, &j->part, j->spread.depth, j->cart);
  if (gs_comm_agree(memory_refused(j), j->world->world)) { /* said by the group that found it */
    j->status = GS_EXIT_USAGE;
    return;
  }
  if (j->root && j->runs > 1 && sc->nrx) j->bscan = gs_xcalloc((size_t)j->runs * (size_t)sc->iterations, sizeof(float));
  int resumed = 0;
  gs_survey_clock clock = gs_survey_clock_start(j->first, j->stride, j->runs);
  for (int64_t r = j->first; r < j->runs && j->status == GS_EXIT_OK; r += j->stride) {
    if (finished_before(j, r)) {
      gs_survey_clock_skip(&clock);
      continue;
    }
    const char *dir = j->o->restart;
    j->resume = !resumed && dir && (j->runs == 1 || gs_survey_checkpoint_in(j->c, dir)) ? dir : NULL;
    resumed = dir != NULL;
    if (r > 0 && j->scenes.per_run) { /* the input's #python blocks give each run its scene */
      gs_scene_free(&j->sc);
      if (load_scene(j, r) != 0) {
        j->status = GS_EXIT_USAGE;
        break;
      }
    }
    const double solve = j->t_total, wall = gs_now_s();
    if (run_once(j, r)) {
      j->stopped = 1;
      break;
    }
    if (j->stride > 1 && j->root) gs_survey_clock_done(&clock, r, j->runs, j->t_total - solve, gs_now_s() - wall);
  }
  j->status = gs_comm_agree(j->status, j->world->world); /* every group's runs done, or the job ends */
  if (j->status == GS_EXIT_OK && j->stride > 1 && sc->nrx) gather_bscan(j);
  if (j->world->rank == 0 && j->bscan && j->status == GS_EXIT_OK) {
    char bp[1300], err[1024];
    snprintf(bp, sizeof bp, "%s/bscan.png", j->outdir);
    if (gs_fdtd_write_bscan(j->bscan, j->runs, sc->iterations, bp, err, sizeof err) != GS_OK) output_failed(j, "", err);
  }
  j->status = gs_comm_agree(j->status, j->world->world); /* rank 0's B-scan: every rank's status */
  j->stopped = gs_comm_agree(j->stopped, j->world->world);
  if (j->status == GS_EXIT_OK && !j->stopped) report(j);
}

/* Ranks a run of a 2D survey: --ranks-per-run, or one where a rank holds the whole model and no
 * option asks for a split or for the runs in turn (--decomp, checkpoints, --stop-after), else
 * all. -1 after one line on rank 0. Collective over j->c. */
static int group_size(const fdtd_job *j) {
  const int rule = gs_survey_group_rule(j->c, j->o, j->scene_path, j->runs);
  if (rule) return rule;
  const gs_comm *c = j->c;
  const int whole[2] = {1, 1}, at[2] = {0, 0};
  const gs_fdtd_part all = gs_fdtd_part_of(&j->sc, whole, at);
  char err[512];
  const gs_fdtd_memory need = gs_fdtd_memory_need(&j->sc, &all, 1, j->runs);
  return gs_fdtd_memory_check(c, j->backend, need, err, sizeof err) == GS_OK ? 1 : c->size;
}

/* The 2D job on the ranks of j->c (all, or a group of per_run ranks): the split, the output
 * folder's name, the runs. */
static void run_2d(fdtd_job *j, int per_run) {
  if (gs_fdtd_decomp(j->o->spread.decomp, j->c->size, j->sc.nx, j->sc.ny, j->dims) != 0) {
    if (j->world->rank == 0)
      gs_log_error("fdtd: --decomp '%s' is not PXxPY with PX * PY = %d ranks", j->o->spread.decomp, j->c->size);
    j->status = GS_EXIT_USAGE;
    return;
  }
  split_domain(j);
  if (pick_outdir(j) != 0) {
    j->status = GS_EXIT_USAGE;
  } else {
    print_scene(j);
    if (j->stride > 1 && j->world->rank == 0)
      printf("fdtd: the runs shared out over %lld groups of %d rank(s)\n", (long long)j->stride, per_run);
    if (j->o->runs_per_gpu > 1 && j->runs > 1 && j->world->rank == 0) /* a 2D run solves in milliseconds */
      printf("fdtd: --runs-per-gpu: a 2D survey's runs go one at a time on each rank\n");
    run_all(j);
  }
  free(j->bscan);
  free(j->parts);
  MPI_Comm_free(&j->cart);
}

int gs_fdtd_run(const gs_comm *c, const gs_backend *backend, const gs_fdtd_opts *o, int argc, char **argv) {
  (void)argc;
  fdtd_job job = {.c = c,
                  .world = c,
                  .first = 0,
                  .stride = 1,
                  .backend = backend,
                  .o = o,
                  .scene_path = argv[0],
                  .spread = gs_fdtd_spread_of(&o->spread),
                  .runs = o->runs,
                  .root = c->rank == 0,
                  .status = GS_EXIT_OK};
  char why[256];
  if (!gs_halo_transport_possible(job.spread.transport, backend, gs_comm_cuda_aware(), why, sizeof why)) {
    if (job.root) gs_log_error("fdtd: %s", why); /* the same on every rank, also on one */
    return GS_EXIT_USAGE;
  }
  gs_fdtd_scenes_init(&job.scenes, o, job.scene_path, gs_fdtd_rank_host_memory(c));
  if (load_scene(&job, 0) != 0) {
    gs_fdtd_scenes_free(&job.scenes);
    return GS_EXIT_USAGE;
  }
  gs_log_debug("fdtd: scene %s read", job.scene_path);
  if (job.sc.mode != GS_MODE_3D && (o->slice || o->slice_field)) {
    if (job.root) gs_log_error("fdtd: %s: --slice and --slice-field are for 3D models", job.scene_path);
    gs_scene_free(&job.sc);
    gs_fdtd_scenes_free(&job.scenes);
    return GS_EXIT_USAGE;
  }
  if (job.sc.mode == GS_MODE_3D) { /* the 3D engine (src/run/fdtd3d_cmd.c) */
    int st = pick_outdir(&job) != 0 ? GS_EXIT_USAGE : gs_fdtd3_run(c, backend, o, &job.sc, job.outdir, &job.scenes);
    gs_scene_free(&job.sc);
    gs_fdtd_scenes_free(&job.scenes);
    return st;
  }
  const int per_run = group_size(&job);
  if (per_run > 0 && per_run < c->size && (o->stop_after || o->checkpoint_every)) {
    if (job.root)
      gs_log_error("fdtd: %s: --stop-after and --checkpoint-every need the runs one after the other "
                   "(--ranks-per-run %d)",
                   job.scene_path, c->size);
    gs_scene_free(&job.sc);
    gs_fdtd_scenes_free(&job.scenes);
    return GS_EXIT_USAGE;
  }
  if (per_run <= 0) {
    gs_scene_free(&job.sc);
    gs_fdtd_scenes_free(&job.scenes);
    return GS_EXIT_USAGE;
  }
  gs_comm group;
  if (per_run < c->size) { /* the runs shared out: group g runs g, g + groups, ... */
    gs_comm_split(c, c->rank / per_run, &group);
    job.c = &group;
    job.root = group.rank == 0;
    job.first = c->rank / per_run;
    job.stride = c->size / per_run;
  }
  run_2d(&job, per_run);
  if (per_run < c->size) gs_comm_free(&group);
  fflush(stdout);
  gs_scene_free(&job.sc);
  gs_fdtd_scenes_free(&job.scenes);
  return job.status;
}

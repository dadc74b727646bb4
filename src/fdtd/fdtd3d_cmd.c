/* The fdtd command for a 3D model (fdtd3d_cmd.h). */
#include "fdtd3d_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdtd3d.h"
#include "fdtd3d_sources.h"
#include "log.h"
#include "progress.h"
#include "rx_output.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What 3D models do not take yet: one line on rank 0, or 0. */
static int refused(const gs_comm *c, const gs_fdtd_opts *o, const gs_scene *sc) {
  const char *why = c->size > 1 ? "3D models run on one rank (one GPU) so far"
                    : o->checkpoint_every || o->restart || o->stop_after
                        ? "checkpoints of 3D models are not written yet"
                    : o->snapshot_every ? "PNG snapshots of 3D models are not made yet"
                    : o->spread.decomp  ? "--decomp: 3D models run on one rank so far"
                                        : NULL;
  if (why && c->rank == 0) gs_log_error("fdtd: %s: %s", sc->path, why);
  return why != NULL;
}

/* Every source and receiver of every run inside the domain. */
static int positions_ok(const gs_scene *sc, int64_t runs) {
  for (int64_t r = 0; r < runs; ++r) {
    for (int q = 0; q < sc->nsources; ++q) {
      const gs_source *s = &sc->sources[q];
      int64_t p[3] = {s->i + r * sc->src_di, s->j + r * sc->src_dj, s->k + r * sc->src_dk},
              n[3] = {sc->nx, sc->ny, sc->nz};
      for (int a = 0; a < 3; ++a)
        if (p[a] < (a == s->pol ? 0 : 1) || p[a] >= n[a]) return 0;
    }
    for (int q = 0; q < sc->nsrc3; ++q) {
      const gs_source3 *s = &sc->src3[q];
      const int magnetic = s->kind == GS_SRC3_MAGNETIC; /* anywhere in the domain; the only kind that moves */
      const int64_t rm = magnetic ? r : 0;
      int64_t p[3] = {s->at.i + rm * sc->src_di, s->at.j + rm * sc->src_dj, s->at.k + rm * sc->src_dk},
              n[3] = {sc->nx, sc->ny, sc->nz};
      for (int a = 0; a < 3; ++a)
        if (p[a] < (magnetic || a == s->at.pol ? 0 : 1) || p[a] >= n[a] + magnetic) return 0;
    }
    for (int q = 0; q < sc->nrx; ++q) {
      const gs_rx *x = &sc->rxs[q];
      int64_t p[3] = {x->i + r * sc->rx_di, x->j + r * sc->rx_dj, x->k + r * sc->rx_dk},
              n[3] = {sc->nx, sc->ny, sc->nz};
      for (int a = 0; a < 3; ++a)
        if (p[a] < 0 || p[a] > n[a]) return 0;
    }
  }
  return 1;
}

static int fits(const gs_comm *c, const gs_backend *b, const gs_scene *sc) {
  double dev, host;
  gs_fdtd3_memory_need(sc, &dev, &host);
  double have_dev = (double)b->mem_available(), have_host = (double)gs_host_mem_available();
  if (!b->is_gpu) {
    host += dev;
    dev = 0;
  }
  const double gib = 1024.0 * 1024.0 * 1024.0;
  if (dev > have_dev || host > have_host) {
    if (c->rank == 0)
      gs_log_error("fdtd: %s: the model needs %.1f GiB of %s memory, the rank has %.1f GiB", sc->path,
                   (dev > have_dev ? dev : host) / gib, dev > have_dev ? "GPU" : "host",
                   (dev > have_dev ? have_dev : have_host) / gib);
    return 0;
  }
  return 1;
}

static void model_name(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  snprintf(out, n, "%.*s", (int)(dot && dot != base ? dot - base : (long)strlen(base)), base);
}

static int save(const gs_scene *sc, const gs_fdtd3_sim *m, const char *outdir, int64_t r, int64_t runs) {
  char model[512], hp[1700], cp[1300], err[1024];
  model_name(sc->path, model, sizeof model);
  if (runs > 1) {
    snprintf(hp, sizeof hp, "%s/%s%lld.h5", outdir, model, (long long)r + 1);
    snprintf(cp, sizeof cp, "%s/receivers_run%03lld.csv", outdir, (long long)r + 1);
  } else {
    snprintf(hp, sizeof hp, "%s/%s.h5", outdir, model);
    snprintf(cp, sizeof cp, "%s/receivers.csv", outdir);
  }
  const int ntl = gs_fdtd3_src_lines(m);
  if (!sc->nrx && !ntl) return 0;
  gs_gpr_tl *tl = gs_xcalloc((size_t)ntl + 1, sizeof *tl);
  float *vi = gs_xmalloc(sizeof(float) * 2 * (size_t)(sc->iterations + 1) * (size_t)ntl + 1);
  for (int q = 0; q < ntl; ++q)
    gs_fdtd3_src_line(m, q, &tl[q], vi + (size_t)q * 2 * (size_t)(sc->iterations + 1),
                      vi + ((size_t)q * 2 + 1) * (size_t)(sc->iterations + 1));
  int bad = gs_rx3_write_h5(sc, m->rx_hist, m->step, (int)r, tl, ntl, hp, err, sizeof err) != GS_OK ||
            (sc->nrx && gs_rx3_write_csv(sc, m->rx_hist, m->step, cp, err, sizeof err) != GS_OK);
  free(tl);
  free(vi);
  if (bad) gs_log_error("fdtd: %s", err);
  return bad;
}

/* One run: build, step (with progress), outputs; 0, or an exit status. */
static int run_once(const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, const char *outdir, int64_t r,
                    uint64_t sum[2], double *secs) {
  gs_fdtd3_sim m;
  char err[1024];
  if (gs_fdtd3_sim_init(&m, sc, b, (int)r, err, sizeof err) != GS_OK) {
    gs_log_error("fdtd: %s", err);
    return GS_EXIT_USAGE;
  }
  int show = o->progress || isatty(2);
  gs_progress *prog = show ? gs_progress_create("fdtd", sc->iterations, "steps") : NULL;
  double cells = (double)sc->nx * (double)sc->ny * (double)sc->nz, t0 = now_s();
  while (m.step < sc->iterations) {
    int64_t n = sc->iterations - m.step < 64 ? sc->iterations - m.step : 64;
    gs_fdtd3_sim_advance(&m, n);
    if (prog) {
      gs_fdtd3_sim_sync(&m);
      gs_progress_update(prog, m.step, (double)m.step * cells * 1e-6);
    }
  }
  gs_fdtd3_sim_sync(&m);
  *secs += now_s() - t0;
  if (prog) gs_progress_end(prog);
  int status = save(sc, &m, outdir, r, o->runs) ? GS_EXIT_PARTIAL : GS_EXIT_OK;
  gs_fdtd3_sim_checksum(&m, sum);
  gs_fdtd3_sim_free(&m);
  return status;
}

int gs_fdtd3_run(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, const char *outdir) {
  if (refused(c, o, sc)) return GS_EXIT_USAGE;
  if (!positions_ok(sc, o->runs)) {
    gs_log_error("fdtd: %s: a run moves a source or receiver out of the domain (#src_steps/#rx_steps)", sc->path);
    return GS_EXIT_USAGE;
  }
  if (!fits(c, b, sc)) return GS_EXIT_USAGE;
  printf("fdtd: %s: 3D, %lld x %lld x %lld cells of %g x %g x %g m, dt %g s, %lld iterations, %d material(s), %d "
         "source(s), %d receiver(s), PML %d/%d/%d/%d/%d/%d, backend %s, %lld run(s)\n",
         sc->path, (long long)sc->nx, (long long)sc->ny, (long long)sc->nz, sc->dx, sc->dy, sc->dz, sc->dt,
         (long long)sc->iterations, sc->nmaterials - 2, sc->nsources + sc->nsrc3, sc->nrx, sc->pml6[0], sc->pml6[1],
         sc->pml6[2], sc->pml6[3], sc->pml6[4], sc->pml6[5], b->name, (long long)o->runs);
  uint64_t sum[2] = {0, 0};
  double secs = 0;
  int status = GS_EXIT_OK;
  for (int64_t r = 0; r < o->runs && status == GS_EXIT_OK; ++r)
    status = run_once(b, o, sc, outdir, r, sum, &secs);
  if (status != GS_EXIT_USAGE) {
    double updates = (double)sc->nx * (double)sc->ny * (double)sc->nz * (double)sc->iterations * (double)o->runs;
    printf("checksum E=%016" PRIx64 " H=%016" PRIx64 "\n", sum[0], sum[1]);
    printf("fdtd: %.0f steps in %.3f s on 1 rank: %.1f Mcells/s\n", (double)sc->iterations * (double)o->runs, secs,
           secs > 0 ? updates / secs * 1e-6 : 0.0);
  }
  fflush(stdout);
  return status;
}

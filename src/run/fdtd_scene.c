/* Each run's scene for the fdtd command: expanded on rank 0, sent, parsed on
 * every rank (fdtd_scene.h). */
#include "fdtd_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fsutil.h"
#include "log.h"

void gs_fdtd_scenes_init(gs_fdtd_scenes *f, const gs_fdtd_opts *o, const char *path, double host_bytes) {
  memset(f, 0, sizeof *f);
  f->o = o;
  f->path = path;
  f->host_bytes = host_bytes;
  const int have_lib = gs_program_share_dir("python", f->libdir, sizeof f->libdir) == 0;
  f->py = (gs_scene_python){.enabled = !o->no_python,
                            .refusal = "--no-python",
                            .python = o->python ? o->python : "python3",
                            .libdir = have_lib ? f->libdir : NULL,
                            .runs = o->runs,
                            .timeout_s = o->python_timeout > 0 ? o->python_timeout : GS_PYTHON_TIMEOUT_S,
                            .max_output = GS_PYTHON_MAX_OUTPUT};
}

void gs_fdtd_scenes_free(gs_fdtd_scenes *f) {
  gs_scene_text_free(f->text);
  f->text = NULL;
}

/* Collective: 1 when some rank is bad, whose reason (err) is said once, by
 * the lowest bad rank. */
static int agree_refusal(const gs_comm *c, int bad, const char *err) {
  const int first = c->size - gs_comm_agree(bad ? c->size - c->rank : 0, c->world);
  if (first >= c->size) return 0;
  if (c->rank == first) gs_log_error("%s", err);
  return 1;
}

/* Rank 0 expands run r's input and sends it: every rank gets the text, or
 * NULL after rank 0 said why. */
static gs_scene_text *shared_text(gs_fdtd_scenes *f, const gs_comm *c, int64_t r) {
  char err[1200] = "";
  gs_scene_text *t = NULL;
  void *mine = NULL;
  size_t n = 0;
  if (c->rank == 0) {
    f->py.run = r + 1;
    if (gs_scene_text_expand(f->path, &f->py, &t, err, sizeof err) == GS_OK) {
      void *packed = gs_scene_text_pack(t, &n);
      mine = gs_xmalloc(n + 1);
      ((char *)mine)[0] = 1;
      memcpy((char *)mine + 1, packed, n++);
      free(packed);
    } else {
      n = strlen(err) + 2;
      mine = gs_xmalloc(n);
      ((char *)mine)[0] = 0;
      memcpy((char *)mine + 1, err, n - 1);
    }
  }
  char *got = gs_comm_bcast_bytes(mine, &n, 0, c->world);
  free(mine);
  const int sent = n > 0 && got[0];
  if (c->rank != 0 && sent) t = gs_scene_text_unpack(got + 1, n - 1);
  free(got);
  if (!sent) {
    if (c->rank == 0) gs_log_error("%s", err);
    return NULL;
  }
  if (agree_refusal(c, t == NULL, "fdtd: the expanded input file did not arrive intact")) {
    gs_scene_text_free(t);
    return NULL;
  }
  return t;
}

/* MODEL_processed.in (MODELn_processed.in with several runs) in outdir. */
static void processed_path(const gs_fdtd_scenes *f, int64_t r, char *out, size_t n) {
  const char *base = strrchr(f->path, '/');
  base = base ? base + 1 : f->path;
  const char *dot = strrchr(base, '.');
  const int len = (int)(dot && dot != base ? dot - base : (long)strlen(base));
  if (f->o->runs > 1)
    snprintf(out, n, "%s/%.*s%lld_processed.in", f->outdir, len, base, (long long)r + 1);
  else
    snprintf(out, n, "%s/%.*s_processed.in", f->outdir, len, base);
}

/* Rank 0: run r's processed file from the text in hand; 0, or after one line 2 (it would
 * overwrite an input file) or 1 (it could not be written). */
static int write_processed(const gs_fdtd_scenes *f, int64_t r) {
  char path[1400], err[1600];
  processed_path(f, r, path, sizeof path);
  const gs_status st = gs_scene_text_write(f->text, path, err, sizeof err);
  if (st != GS_OK) {
    gs_log_error("fdtd: --write-processed: %s", err);
    return st == GS_ERR_USAGE ? 2 : 1; /* over an input file: refused; else an output that failed */
  }
  printf("fdtd: wrote %s (the input after its #python blocks and #include_file commands)\n", path);
  fflush(stdout);
  return 0;
}

/* The grid, time step and PML of a scene, as the runs of one job must share them. */
static void grid_of(const gs_scene *sc, int64_t n[4], double d[4], int pml[10]) {
  const int64_t nn[4] = {sc->nx, sc->ny, sc->nz, sc->iterations};
  const double dd[4] = {sc->dx, sc->dy, sc->dz, sc->dt};
  memcpy(n, nn, sizeof nn);
  memcpy(d, dd, sizeof dd);
  memcpy(pml, sc->pml, sizeof sc->pml);
  memcpy(pml + 4, sc->pml6, sizeof sc->pml6);
}

/* 0 when sc has run 1's grid (recorded at the first load), else 1 with the reason in err. */
static int same_grid(gs_fdtd_scenes *f, const gs_scene *sc, int64_t r, char *err, size_t errlen) {
  int64_t n[4];
  double d[4];
  int pml[10];
  grid_of(sc, n, d, pml);
  if (!f->have_grid) {
    memcpy(f->grid_n, n, sizeof n);
    memcpy(f->grid_d, d, sizeof d);
    memcpy(f->grid_pml, pml, sizeof pml);
    f->have_grid = 1;
    return 0;
  }
  if (!memcmp(f->grid_n, n, sizeof n) && !memcmp(f->grid_d, d, sizeof d) && !memcmp(f->grid_pml, pml, sizeof pml))
    return 0;
  snprintf(err, errlen,
           "%s: run %lld: its #python blocks give another domain, cell size, time window or PML than run 1's "
           "(the runs of one job share them)",
           f->path, (long long)r + 1);
  return 1;
}

int gs_fdtd_scene_load(gs_fdtd_scenes *f, const gs_comm *c, int64_t r, gs_scene *sc) {
  char err[1600] = "";
  memset(sc, 0, sizeof *sc);
  gs_scene_text *t = shared_text(f, c, r);
  if (!t) return 1;
  const int bad = gs_scene_load_text(t, f->host_bytes, sc, err, sizeof err) != GS_OK;
  f->per_run = gs_scene_text_has_python(t);
  if (c->rank == 0) {
    gs_scene_text_free(f->text);
    f->text = t;
    f->text_run = r;
  } else {
    gs_scene_text_free(t);
  }
  if (agree_refusal(c, bad, err)) return 1;
  if (f->o->steps) sc->iterations = f->o->steps;
  if (f->o->snapshot_every) sc->snapshot_every = f->o->snapshot_every;
  /* before any output: two outputs on one path would overwrite each other silently */
  int refused = gs_scene_check_outputs(sc, f->o->runs, err, sizeof err) || same_grid(f, sc, r, err, sizeof err);
  if (!refused && c->rank == 0 && f->o->write_processed && f->outdir[0]) refused = write_processed(f, r) ? 2 : 0;
  if (gs_comm_agree(refused, c->world)) {
    if (c->rank == 0 && refused == 1) gs_log_error("%s", err);
    gs_scene_free(sc);
    return 1;
  }
  return 0;
}

int gs_fdtd_scenes_outdir(gs_fdtd_scenes *f, const gs_comm *c, const char *outdir) {
  snprintf(f->outdir, sizeof f->outdir, "%s", outdir);
  int bad = 0;
  if (c->rank == 0 && f->o->write_processed && f->text) {
    if (f->per_run)
      bad = write_processed(f, f->text_run);
    else
      for (int64_t r = 0; r < f->o->runs && !bad; ++r)
        bad = write_processed(f, r);
  }
  return gs_comm_agree(bad, c->world);
}

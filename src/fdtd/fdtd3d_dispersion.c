/* Debye dispersion in a 3D model (fdtd3d_dispersion.h). Compiled with
 * -ffp-contract=off: the coefficients repeat gprMax's float32/float64 steps. */
#include "fdtd3d_dispersion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

struct gs_fdtd3_disp {
  gs_fdtd3_disp_args args; /* device pointers */
  gs_fdtd3_disp_coef *coef;
  int64_t *off[3];
  float *t[3];
};

/* numpy's float32 sum (np.sum of gprMax's zt2 array): pairwise, a plain
 * running sum from 0 below 8 elements, else 8 running sums combined
 * pairwise and the rest added (n <= 15 here, so one level). */
static float numpy_sum32(const float *a, int n) {
  float res = 0.0f;
  if (n < 8) {
    for (int i = 0; i < n; ++i)
      res += a[i];
    return 0.0f + res; /* the reduction starts from add's identity */
  }
  float r[8];
  for (int i = 0; i < 8; ++i)
    r[i] = a[i];
  int i = 8; /* n < 16: no second block of eight */
  res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i)
    res += a[i];
  return 0.0f + res;
}

/* gprMax's DispersiveMaterial.calculate_update_coeffsE for Debye poles, with
 * its types under numpy 1.24: w, q, eqt, eqt2, zt, zt2 are float32 array
 * elements; a float32 element with a Python float gives float64, two float32
 * elements give float32 (w / q). The E coefficients as gprMax's (float64,
 * stored float32), EA less e0/dt times the float32 sum of zt2. */
static void debye_coefficients(const gs_scene *sc, const gs_mat3 *mt, const gs_dispersion *d, int npoles,
                               gs_fdtd3_coef *out, gs_fdtd3_disp_coef *dc) {
  float zt2[GS_DISP_MAX_POLES] = {0};
  const double dt = sc->dt;
  for (int p = 0; p < d->npoles; ++p) {
    const float w = (float)(d->deltaer[p] / d->tau[p]), q = (float)(-1 / d->tau[p]);
    const float eqt = (float)exp((double)q * dt), eqt2 = (float)exp((double)q * (dt / 2));
    const float wq = w / q;
    const float zt = (float)((double)wq * (1 - (double)eqt) / dt);
    zt2[p] = (float)((double)wq * (1 - (double)eqt2));
    dc[p] = (gs_fdtd3_disp_coef){(float)(GS_EPS0 * (double)eqt2), eqt, zt};
  }
  const double sum = (double)numpy_sum32(zt2, npoles);
  const double ea = GS_EPS0 * mt->er / dt + 0.5 * mt->se - GS_EPS0 / dt * sum;
  const double eb = GS_EPS0 * mt->er / dt - 0.5 * mt->se - GS_EPS0 / dt * sum;
  *out = (gs_fdtd3_coef){(float)(eb / ea), (float)(1 / sc->dx * 1 / ea), (float)(1 / sc->dy * 1 / ea),
                         (float)(1 / sc->dz * 1 / ea), (float)(1 / ea)};
}

/* The dispersion entry of gprMax material index k (pec 0, free_space 1,
 * then the scene's order; compounds: none), or NULL. */
static const gs_dispersion *dispersion_of(const gs_scene *sc, int k) {
  if (k < 2 || k >= sc->nmaterials) return NULL;
  int e = gs_scene_dispersion_of(sc, k);
  return e < 0 ? NULL : &sc->disps[e];
}

static int max_poles(const gs_scene *sc) {
  int n = 0;
  for (int k = 0; k < sc->ndisps; ++k)
    if (sc->disps[k].material >= 0 && sc->disps[k].npoles > n) n = sc->disps[k].npoles;
  return n;
}

/* The nodes of component c in gprMax's update range whose material is
 * dispersive, as offsets in the kernels' layout (ascending); returns how many. */
static int64_t list_nodes(const gs_fdtd3_sim *m, const gs_geometry3 *g, const uint8_t *disp, int c, int64_t **out) {
  const int64_t lo[3] = {c != 0, c != 1, c != 2};
  const int64_t hi[3] = {g->nx, g->ny, g->nz};
  int64_t n = 0, cap = 0;
  int64_t *off = NULL;
  for (int64_t k = lo[2]; k < hi[2]; ++k)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t i = lo[0]; i < hi[0]; ++i) {
        if (!disp[g->id[c][gs_geometry3_node(g, i, j, k)]]) continue;
        if (n == cap) {
          cap = cap ? 2 * cap : 4096;
          off = gs_xrealloc(off, sizeof *off * (size_t)cap);
        }
        off[n++] = k * m->plane + j * m->pitch + i;
      }
  *out = off;
  return n;
}

static void *upload(const gs_fdtd3_sim *m, const void *host, size_t bytes) {
  void *dev = m->b->dev_alloc(bytes ? bytes : 1);
  if (bytes) m->b->copy_h2d(dev, host, bytes, m->s);
  m->b->stream_sync(m->s);
  return dev;
}

gs_fdtd3_disp *gs_fdtd3_disp_init(gs_fdtd3_sim *m, const gs_geometry3 *g) {
  const gs_scene *sc = m->sc;
  const int npoles = max_poles(sc);
  if (!npoles) return NULL;
  gs_fdtd3_disp *d = gs_xcalloc(1, sizeof *d);
  size_t ncoef = (size_t)GS_FDTD3_MAX_MATERIALS * (size_t)npoles;
  gs_fdtd3_disp_coef *dc = gs_xcalloc(ncoef, sizeof *dc);
  uint8_t *disp = gs_xcalloc((size_t)g->nmat, 1);
  for (int k = 0; k < g->nmat && k < GS_FDTD3_MAX_MATERIALS; ++k) {
    const gs_dispersion *e = dispersion_of(sc, k);
    if (!e) continue;
    disp[k] = 1;
    debye_coefficients(sc, &g->mat[k], e, npoles, &m->coef_host[k], dc + (size_t)k * (size_t)npoles);
  }
  m->b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
  d->coef = upload(m, dc, ncoef * sizeof *dc);
  d->args.npoles = npoles;
  d->args.coef = d->coef;
  for (int c = 0; c < 3; ++c) {
    int64_t *off;
    int64_t n = list_nodes(m, g, disp, c, &off);
    size_t state = sizeof(float) * (size_t)n * (size_t)npoles;
    float *zero = gs_xcalloc(state + 1, 1);
    d->off[c] = upload(m, off, sizeof *off * (size_t)n);
    d->t[c] = upload(m, zero, state);
    d->args.n[c] = n;
    d->args.off[c] = d->off[c];
    d->args.t[c] = d->t[c];
    free(off);
    free(zero);
  }
  free(dc);
  free(disp);
  return d;
}

void gs_fdtd3_disp_after_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a) {
  m->b->fdtd3_disp_a(a, &m->disp->args, m->s);
}

void gs_fdtd3_disp_after_sources(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a) {
  m->b->fdtd3_disp_b(a, &m->disp->args, m->s);
}

void gs_fdtd3_disp_free(gs_fdtd3_sim *m) {
  gs_fdtd3_disp *d = m->disp;
  if (!d) return;
  m->b->dev_free(d->coef);
  for (int c = 0; c < 3; ++c) {
    m->b->dev_free(d->off[c]);
    m->b->dev_free(d->t[c]);
  }
  free(d);
  m->disp = NULL;
}

/* Nodes an object may give its material to: a box's cells and one node
 * more each way; any other shape: the whole grid (a bound, not a count). */
static double object_nodes(const gs_scene *sc, const gs_obj3 *o) {
  const double whole = (double)(sc->nx + 1) * (double)(sc->ny + 1) * (double)(sc->nz + 1);
  if (o->type != GS_O3_BOX) return whole;
  const double d[3] = {sc->dx, sc->dy, sc->dz}, n[3] = {(double)sc->nx, (double)sc->ny, (double)sc->nz};
  double nodes = 1;
  for (int a = 0; a < 3; ++a) {
    double span = fabs(o->v[3 + a] - o->v[a]) / d[a] + 3;
    nodes *= span < n[a] + 1 ? span : n[a] + 1;
  }
  return nodes;
}

double gs_fdtd3_disp_memory(const gs_scene *sc) {
  const int npoles = max_poles(sc);
  if (!npoles) return 0;
  const double whole = (double)(sc->nx + 1) * (double)(sc->ny + 1) * (double)(sc->nz + 1);
  double nodes = 0;
  for (int q = 0; q < sc->nobjs3; ++q)
    if (dispersion_of(sc, sc->objs3[q].material)) nodes += object_nodes(sc, &sc->objs3[q]);
  if (nodes > whole) nodes = whole;
  /* three components: an offset and the poles' floats per listed node; the coefficient table */
  return 3.0 * nodes * (8.0 + 4.0 * npoles) + 12.0 * GS_FDTD3_MAX_MATERIALS * npoles;
}

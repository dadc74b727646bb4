/* Debye, Lorentz and Drude dispersion in a 3D model (fdtd3d_dispersion.h). Compiled with
 * -ffp-contract=off: the coefficients repeat gprMax's float32/float64 steps. */
#include "fdtd3d_dispersion.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fdtd3d_planewave.h"
#include "fdtd3d_sources.h"
#include "parallel.h"

/* glibc defines CMPLX only for GCC >= 4.7; clang (the fuzz builds) has the builtin it uses. */
#if !defined(CMPLX) && defined(__clang__)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

struct gs_fdtd3_disp {
  gs_fdtd3_poles poles;     /* the fused nodes (kernels/fdtd3d_disp.h; device pointers, the map biased) */
  gs_fdtd3_disp_args defer; /* the deferred nodes */
  gs_fdtd3_disp_coef *coef;
  uint8_t *disp; /* host: per material, 1 if dispersive (kept for a survey's next run, gs_fdtd3_sim_keep) */
  uint32_t *map[3];
  float *t[3]; /* the fused nodes' state */
  int64_t nfused[3];
  int64_t *off[3];
  float *dt[3];     /* the deferred nodes' state */
  size_t cap[4][3]; /* bytes allocated for map, t, off, dt (a later run places its nodes in them) */
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

/* numpy 1.24's complex scalars: complex64 (float parts) and complex128. */
typedef struct c64 {
  float re, im;
} c64;
typedef struct c128 {
  double re, im;
} c128;

static c128 wide(c64 z) {
  return (c128){z.re, z.im};
}
static c64 narrow(c128 z) {
  return (c64){(float)z.re, (float)z.im};
}
static c128 mul128(c128 a, c128 b) {
  return (c128){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/* numpy's complex division n / d (Smith's method) as a function `name` of
 * complex type `cplx` whose parts are `real`, every step rounded to `real`
 * (abs: its fabs): one recipe for both widths. */
#define SMITH_DIVISION(name, cplx, real, abs)                                                                          \
  static cplx name(cplx n, cplx d) {                                                                                   \
    if (abs(d.re) >= abs(d.im)) {                                                                                      \
      const real rat = d.im / d.re, scl = (real)1 / (d.re + d.im * rat);                                               \
      return (cplx){(n.re + n.im * rat) * scl, (n.im - n.re * rat) * scl};                                             \
    }                                                                                                                  \
    const real rat = d.re / d.im, scl = (real)1 / (d.im + d.re * rat);                                                 \
    return (cplx){(n.re * rat + n.im) * scl, (n.im * rat - n.re) * scl};                                               \
  }
SMITH_DIVISION(div64, c64, float, fabsf)   /* complex64: in float */
SMITH_DIVISION(div128, c128, double, fabs) /* complex128 */
static c128 exp128(c128 z) {
  double complex r = cexp(CMPLX(z.re, z.im));
  return (c128){creal(r), cimag(r)};
}

/* One pole's w and q (complex64) as gprMax makes them; Drude adds to se. */
static void pole_wq(const gs_dispersion *d, int p, c64 *w, c64 *q, double *se) {
  if (d->kind == GS_DISP_DEBYE) {
    *w = (c64){(float)(d->deltaer[p] / d->tau[p]), 0};
    *q = (c64){(float)(-1 / d->tau[p]), 0};
    return;
  }
  const double wp = 2 * GS_PI * d->tau[p], wp2 = wp * wp, a = d->alpha[p];
  if (d->kind == GS_DISP_DRUDE) {
    *se += wp2 / a;
    *w = (c64){(float)-(wp2 / a), 0};
    *q = (c64){(float)-a, 0};
    return;
  }
  const double root = sqrt(wp2 - a * a);
  *w = narrow(mul128((c128){-0.0, -1.0}, (c128){wp2 * d->deltaer[p] / root, 0})); /* -1j * (...) */
  *q = narrow((c128){-a + 0.0, root});                                            /* -alpha + 1j sqrt(...) */
}

/* gprMax's DispersiveMaterial.calculate_update_coeffsE with its types under
 * numpy 1.24: w, q, eqt, eqt2, zt, zt2 are elements of float32 arrays
 * (complex64 when a Lorentz or Drude material is present); such an element
 * with a Python number gives float64 (complex128), two elements give
 * float32 (complex64: w / q). The E coefficients as gprMax's (float64,
 * stored float32), EA less e0/dt times the float32 sum of zt2's real parts. */
static void pole_coefficients(const gs_scene *sc, const gs_mat3 *mt, const gs_dispersion *d, int npoles, int cplx,
                              gs_fdtd3_coef *out, gs_fdtd3_disp_coef *dc) {
  float zt2[GS_DISP_MAX_POLES] = {0};
  const double dt = sc->dt;
  double se = mt->se;
  for (int p = 0; p < d->npoles; ++p) {
    c64 w, q;
    pole_wq(d, p, &w, &q, &se);
    if (!cplx) {
      const float eqt = (float)exp((double)q.re * dt), eqt2 = (float)exp((double)q.re * (dt / 2));
      const float wq = w.re / q.re;
      zt2[p] = (float)((double)wq * (1 - (double)eqt2));
      dc[p] = (gs_fdtd3_disp_coef){(float)(GS_EPS0 * (double)eqt2), eqt, (float)((double)wq * (1 - (double)eqt) / dt),
                                   0, 0};
      continue;
    }
    const c64 eqt = narrow(exp128(mul128(wide(q), (c128){dt, 0})));
    const c64 eqt2 = narrow(exp128(mul128(wide(q), (c128){dt / 2, 0})));
    const c128 wq = wide(div64(w, q));
    const c64 zt = narrow(div128(mul128(wq, (c128){1 - (double)eqt.re, 0 - (double)eqt.im}), (c128){dt, 0}));
    zt2[p] = narrow(mul128(wq, (c128){1 - (double)eqt2.re, 0 - (double)eqt2.im})).re;
    dc[p] = (gs_fdtd3_disp_coef){(float)(GS_EPS0 * (double)eqt2.re), eqt.re, zt.re, eqt.im, zt.im};
  }
  const double sum = (double)numpy_sum32(zt2, npoles);
  const double ea = GS_EPS0 * mt->er / dt + 0.5 * se - GS_EPS0 / dt * sum;
  const double eb = GS_EPS0 * mt->er / dt - 0.5 * se - GS_EPS0 / dt * sum;
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

/* gprMax's "drudelorentz": every pole array complex64 when one is present. */
static int complex_poles(const gs_scene *sc) {
  for (int k = 0; k < sc->ndisps; ++k)
    if (sc->disps[k].material >= 0 && sc->disps[k].kind != GS_DISP_DEBYE) return 1;
  return 0;
}

/* What mark_planes needs: the model, its geometry, which materials are
 * dispersive, the component and its map, the node range of the update. */
typedef struct mark_job {
  const gs_fdtd3_sim *m;
  const gs_geometry3 *g;
  const uint8_t *disp;
  int c;
  uint32_t *map;
  int64_t lo[3], hi[3];
} mark_job;

/* z planes lo[2] + [k0, k1) of mark_nodes. A plane's offsets start at a
 * multiple of 32 (pitch and bias are), so planes share no map word and
 * threads mark them apart. */
static void mark_planes(void *ctx, int64_t k0, int64_t k1, int part) {
  (void)part;
  const mark_job *q = ctx;
  const gs_fdtd3_sim *m = q->m;
  const gs_geometry3 *g = q->g;
  for (int64_t k = q->lo[2] + k0; k < q->lo[2] + k1; ++k)
    for (int64_t j = q->lo[1]; j < q->hi[1]; ++j)
      for (int64_t i = q->lo[0]; i < q->hi[0]; ++i) {
        if (!q->disp[g->id[q->c][gs_geometry3_node(g, i, j, k)]]) continue;
        const int64_t o = k * m->plane + j * m->pitch + i - m->bias;
        q->map[2 * (o >> 5) + 1] |= 1u << (o & 31);
      }
}

/* Marks, in map (two words a block of 32 nodes: kernels/fdtd3d_kernels.h's
 * gs_fdtd3_poles), the nodes of component c in gprMax's update range, among
 * those m owns, whose material is dispersive. */
static void mark_nodes(const gs_fdtd3_sim *m, const gs_geometry3 *g, const uint8_t *disp, int c, uint32_t *map) {
  mark_job q = {
      .m = m, .g = g, .disp = disp, .c = c, .map = map, .lo = {c != 0, c != 1, c != 2}, .hi = {g->nx, g->ny, g->nz}};
  for (int a = 0; a < 3; ++a) { /* the nodes g holds: all of them, or a rank's owned part */
    q.lo[a] = q.lo[a] > g->lo[a] ? q.lo[a] : g->lo[a];
    q.hi[a] = q.hi[a] < g->hi[a] ? q.hi[a] : g->hi[a];
  }
  if (q.hi[2] > q.lo[2]) gs_parallel_for(q.hi[2] - q.lo[2], gs_parallel_threads(), mark_planes, &q);
}

typedef struct defer_list {
  const gs_fdtd3_sim *m;
  uint32_t *map[3];
  int64_t *off[3], n[3], cap[3];
} defer_list;

/* Node (i, j, k) of component c to the deferred list (fdtd3d_disp.h) if it
 * is a marked node (owned, updated, dispersive), unmarked. */
static void defer_node(void *ctx, int c, int64_t i, int64_t j, int64_t k) {
  defer_list *l = ctx;
  const gs_fdtd3_sim *m = l->m;
  if (!gs_fdtd3_sim_owns(m, i, j, k)) return;
  const int64_t o = k * m->plane + j * m->pitch + i;
  uint32_t *w = &l->map[c][2 * ((o - m->bias) >> 5) + 1];
  const uint32_t bit = 1u << ((o - m->bias) & 31);
  if (!(*w & bit)) return;
  *w &= ~bit;
  if (l->n[c] == l->cap[c]) {
    l->cap[c] = l->cap[c] ? 2 * l->cap[c] : 256;
    l->off[c] = gs_xrealloc(l->off[c], sizeof *l->off[c] * (size_t)l->cap[c]);
  }
  l->off[c][l->n[c]++] = o;
}

/* Every marked node to the deferred lists (GS_FDTD3_DISP=passes), in order. */
static void defer_all(defer_list *l, int c, int64_t blocks) {
  for (int64_t b = 0; b < blocks; ++b)
    for (int s = 0; s < 32; ++s)
      if (l->map[c][2 * b + 1] >> s & 1u) {
        const int64_t o = 32 * b + s + l->m->bias, rest = o % l->m->plane;
        defer_node(l, c, rest % l->m->pitch, rest / l->m->pitch, o / l->m->plane);
      }
}

/* The first slot of each block (running over the fused nodes); returns
 * their count, -1 past 2^32 (slots are 32-bit). */
static int64_t number_slots(uint32_t *map, int64_t blocks) {
  int64_t slot = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    map[2 * b] = (uint32_t)slot;
    slot += __builtin_popcount(map[2 * b + 1]);
    if (slot > (int64_t)UINT32_MAX) return -1;
  }
  return slot;
}

static void *upload(const gs_fdtd3_sim *m, const void *host, size_t bytes) {
  void *dev = m->b->dev_alloc(bytes ? bytes : 1);
  if (bytes) m->b->copy_h2d(dev, host, bytes, m->s);
  m->b->stream_sync(m->s);
  return dev;
}

/* A device array of bytes: p when its cap bytes hold them, else a new one
 * (p freed; one byte for 0), *cap its size. A survey's later runs place
 * their nodes in the arrays of the run before (gs_fdtd3_sim_keep). */
static void *room(const gs_fdtd3_sim *m, void *p, size_t *cap, size_t bytes) {
  if (p && *cap >= bytes) return p;
  if (p) m->b->dev_free(p);
  *cap = bytes ? bytes : 1;
  return m->b->dev_alloc(*cap);
}

gs_fdtd3_disp *gs_fdtd3_disp_init(gs_fdtd3_sim *m, const gs_geometry3 *g) {
  const gs_scene *sc = m->sc;
  const int npoles = max_poles(sc), cplx = complex_poles(sc);
  if (!npoles) return NULL;
  gs_fdtd3_disp *d = gs_xcalloc(1, sizeof *d);
  size_t ncoef = (size_t)GS_FDTD3_MAX_MATERIALS * (size_t)npoles;
  gs_fdtd3_disp_coef *dc = gs_xcalloc(ncoef, sizeof *dc);
  d->disp = gs_xcalloc((size_t)g->nmat, 1);
  for (int k = 0; k < g->nmat && k < GS_FDTD3_MAX_MATERIALS; ++k) {
    const gs_dispersion *e = dispersion_of(sc, k);
    if (!e) continue;
    d->disp[k] = 1;
    pole_coefficients(sc, &g->mat[k], e, npoles, cplx, &m->coef_host[k], dc + (size_t)k * (size_t)npoles);
  }
  m->b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
  d->coef = upload(m, dc, ncoef * sizeof *dc);
  d->poles.npoles = npoles;
  d->poles.cplx = cplx;
  d->poles.coef = d->coef;
  for (int a = 0; a < 3; ++a)
    d->defer.org[a] = m->org[a];
  free(dc);
  return d;
}

/* Component c's fused nodes (map, their slots) and deferred list to the
 * device, their pole state zeroed; where a survey's previous run left
 * arrays (gs_fdtd3_sim_keep), in those. */
static void place_component(gs_fdtd3_sim *m, gs_fdtd3_disp *d, defer_list *l, int c, int64_t fused) {
  const gs_backend *b = m->b;
  const int64_t blocks = m->count / 32, per = (int64_t)d->poles.npoles * (d->poles.cplx ? 2 : 1);
  const size_t map_bytes = sizeof(uint32_t) * 2 * (size_t)blocks, t_bytes = sizeof(float) * (size_t)(fused * per);
  const size_t off_bytes = sizeof(int64_t) * (size_t)l->n[c], dt_bytes = sizeof(float) * (size_t)(l->n[c] * per);
  d->nfused[c] = fused;
  d->poles.map[c] = NULL; /* no fused node: the kernels take none (fdtd3d_kernels.h) */
  d->poles.t[c] = NULL;
  if (fused) {
    d->map[c] = room(m, d->map[c], &d->cap[0][c], map_bytes);
    d->t[c] = room(m, d->t[c], &d->cap[1][c], t_bytes);
    b->copy_h2d(d->map[c], l->map[c], map_bytes, m->s);
    b->zero(d->t[c], t_bytes, m->s);
    d->poles.map[c] = d->map[c] - 2 * (m->bias >> 5); /* indexed by global offset >> 5 (bias: a multiple of 32) */
    d->poles.t[c] = d->t[c];
  }
  d->off[c] = room(m, d->off[c], &d->cap[2][c], off_bytes);
  d->dt[c] = room(m, d->dt[c], &d->cap[3][c], dt_bytes);
  if (off_bytes) b->copy_h2d(d->off[c], l->off[c], off_bytes, m->s);
  if (dt_bytes) b->zero(d->dt[c], dt_bytes, m->s);
  b->stream_sync(m->s); /* before the host lists go */
  d->defer.n[c] = l->n[c];
  d->defer.off[c] = d->off[c];
  d->defer.t[c] = d->dt[c];
}

gs_status gs_fdtd3_disp_place(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  gs_fdtd3_disp *d = m->disp;
  if (!d) return GS_OK;
  /* The kernels take a node's map words by its global block, offset >> 5, in 32 bits
   * (kernels/fdtd3d_node.h, gs_fdtd3_pole_map); offsets are global on a split model. */
  if ((m->bias + m->count - 1) >> 5 > (int64_t)UINT32_MAX) {
    snprintf(err, errlen, "%s: dispersive materials in a model of more than 2^37 nodes are not supported", m->sc->path);
    return GS_ERR_USAGE;
  }
  const int64_t blocks = m->count / 32; /* count: a multiple of the pitch, a multiple of 32 */
  const char *knob = getenv("GS_FDTD3_DISP");
  const int passes = knob && !strcmp(knob, "passes");
  defer_list l = {.m = m};
  gs_status st = GS_OK;
  for (int c = 0; c < 3; ++c) {
    l.map[c] = gs_xcalloc((size_t)blocks * 2, sizeof(uint32_t));
    mark_nodes(m, g, d->disp, c, l.map[c]);
    if (passes) defer_all(&l, c, blocks);
  }
  gs_fdtd3_src_e_nodes(m, defer_node, &l);
  gs_fdtd3_pw_e_nodes(m, defer_node, &l);
  for (int c = 0; c < 3; ++c) {
    const int64_t fused = number_slots(l.map[c], blocks);
    if (fused < 0 && st == GS_OK) {
      snprintf(err, errlen, "%s: more than 2^32 dispersive %c nodes on one device", m->sc->path, "xyz"[c]);
      st = GS_ERR_USAGE;
    }
    if (st == GS_OK) place_component(m, d, &l, c, fused);
    free(l.map[c]);
    free(l.off[c]);
  }
  return st;
}

void gs_fdtd3_disp_poles(const gs_fdtd3_sim *m, gs_fdtd3_step_args *a) {
  if (m->disp) a->poles = m->disp->poles;
}

void gs_fdtd3_disp_after_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a) {
  const gs_fdtd3_disp_args *d = &m->disp->defer;
  if (d->n[0] || d->n[1] || d->n[2]) m->b->fdtd3_disp_a(a, d, m->s);
}

void gs_fdtd3_disp_after_sources(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a) {
  const gs_fdtd3_disp_args *d = &m->disp->defer;
  if (d->n[0] || d->n[1] || d->n[2]) m->b->fdtd3_disp_b(a, d, m->s);
}

int gs_fdtd3_disp_state(gs_fdtd3_sim *m, gs_fdtd3_state *out) {
  const gs_fdtd3_disp *d = m->disp;
  int n = 0;
  if (!d) return 0;
  const size_t per = (size_t)d->poles.npoles * (d->poles.cplx ? 2u : 1u);
  for (int c = 0; c < 3; ++c) {
    if (d->nfused[c]) {
      out[n] = (gs_fdtd3_state){.dev = d->t[c], .bytes = sizeof(float) * per * (size_t)d->nfused[c]};
      snprintf(out[n++].name, sizeof out[0].name, "disp.poles.e%c", "xyz"[c]);
    }
    if (d->defer.n[c]) {
      out[n] = (gs_fdtd3_state){.dev = d->dt[c], .bytes = sizeof(float) * per * (size_t)d->defer.n[c]};
      snprintf(out[n++].name, sizeof out[0].name, "disp.defer.e%c", "xyz"[c]);
    }
  }
  return n;
}

double gs_fdtd3_disp_bytes(const gs_fdtd3_sim *m) {
  const gs_fdtd3_disp *d = m->disp;
  if (!d) return 0;
  const double per = 4.0 * d->poles.npoles * (d->poles.cplx ? 2 : 1);
  double bytes = (double)sizeof(gs_fdtd3_disp_coef) * GS_FDTD3_MAX_MATERIALS * d->poles.npoles;
  for (int c = 0; c < 3; ++c)
    bytes += (d->poles.map[c] ? 8.0 * (double)(m->count / 32) : 0) + per * (double)d->nfused[c] +
             (8.0 + per) * (double)d->defer.n[c];
  return bytes;
}

void gs_fdtd3_disp_free(gs_fdtd3_sim *m) {
  gs_fdtd3_disp *d = m->disp;
  if (!d) return;
  m->b->dev_free(d->coef);
  for (int c = 0; c < 3; ++c) {
    if (d->map[c]) m->b->dev_free(d->map[c]);
    if (d->t[c]) m->b->dev_free(d->t[c]);
    if (d->off[c]) m->b->dev_free(d->off[c]);
    if (d->dt[c]) m->b->dev_free(d->dt[c]);
  }
  free(d->disp);
  free(d);
  m->disp = NULL;
}

/* Nodes an object may give its material to: its bounding box (metres,
 * lo[] to hi[]) in cells and one node more each way; the whole grid for the
 * flat and sector shapes (a bound, not a count). */
static double object_nodes(const gs_scene *sc, const gs_obj3 *o) {
  const double d[3] = {sc->dx, sc->dy, sc->dz}, n[3] = {(double)sc->nx, (double)sc->ny, (double)sc->nz};
  const double *v = o->v;
  double lo[3], hi[3], r = 0;
  for (int a = 0; a < 3; ++a) {
    switch (o->type) {
    case GS_O3_BOX:
      lo[a] = fmin(v[a], v[3 + a]), hi[a] = fmax(v[a], v[3 + a]);
      break;
    case GS_O3_SPHERE:
      lo[a] = v[a] - v[3], hi[a] = v[a] + v[3];
      break;
    case GS_O3_ELLIPSOID:
      lo[a] = v[a] - v[3 + a], hi[a] = v[a] + v[3 + a];
      break;
    case GS_O3_CYLINDER:
    case GS_O3_CONE:
      r = o->type == GS_O3_CONE ? fmax(v[6], v[7]) : v[6];
      lo[a] = fmin(v[a], v[3 + a]) - r, hi[a] = fmax(v[a], v[3 + a]) + r;
      break;
    case GS_O3_FRACTAL: /* its cells (its soils, water and grass are dispersive) */
      if (o->fractal) {
        lo[a] = (double)o->fractal->start[a] * d[a];
        hi[a] = (double)(o->fractal->start[a] + o->fractal->size[a]) * d[a];
        break;
      }
      /* fall through */
    default:
      lo[a] = 0, hi[a] = n[a] * d[a];
    }
  }
  double nodes = 1;
  for (int a = 0; a < 3; ++a) {
    double span = (hi[a] - lo[a]) / d[a] + 3;
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
    if (dispersion_of(sc, sc->objs3[q].material) || sc->objs3[q].type == GS_O3_FRACTAL)
      nodes += object_nodes(sc, &sc->objs3[q]);
  if (nodes > whole) nodes = whole;
  int64_t pitch, plane, count;
  gs_fdtd3_layout(sc->nx, sc->ny, sc->nz, &pitch, &plane, &count);
  /* three components: the poles' floats (two if complex) per dispersive node and an offset
   * if deferred (at most all of them); the map (8 bytes a block of 32 nodes); the coefficients */
  return 3.0 * nodes * (8.0 + 4.0 * npoles * (complex_poles(sc) ? 2 : 1)) + 3.0 * 8.0 * (double)(count / 32) +
         (double)sizeof(gs_fdtd3_disp_coef) * GS_FDTD3_MAX_MATERIALS * npoles;
}

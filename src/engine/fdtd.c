/* The 2D engine (FDTD, Yee: the thin axis's field and the two H across it)
 * of a gprMax scene, its set-up (fdtd.h): a rank's state for the whole grid
 * or its part of a split, the grid and its arrays, materials and their
 * update coefficients, the CFS-CPML slabs with gprMax's HORIPML
 * coefficients, the Hertzian dipole sources and the receivers this rank
 * holds, the paths a step takes (GPUSTENCIL_ONCHIP, GPUSTENCIL_FUSE), and
 * freeing it all. The time step: fdtd_step.c; the split over ranks:
 * fdtd_dist.c; checkpoints: checkpoint.c. Equations, units and layout:
 * docs/fdtd.md. */
#include "fdtd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fdtd_internal.h"
#include "geometry.h"
#include "halo.h"
#include "log.h"

static int owns(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return i >= m->grid.own.i0 && i < m->grid.own.i1 && j >= m->grid.own.j0 && j < m->grid.own.j1;
}

double gs_fdtd_cfs_profile(const gs_cfs_param *p, double depth, double max) {
  if (p->order == 0) return max; /* gprMax fills a constant profile with max itself, not min + (max - min) */
  double d = p->reverse ? 1 - depth : depth;
  return p->min + (max - p->min) * pow(d, p->order);
}

double gs_fdtd_cfs_value(const gs_cfs_param *p, int64_t q, int half, int64_t t, double max) {
  if (p->order == 0) return max;
  /* gprMax's linspace(0, t + 0.5, 2 t + 2) / t: index n holds (n / 2) / t, exactly n / 2 divided */
  const double x = (p->reverse ? (double)(t - q) - 0.5 * half : (double)q + 0.5 * half) / (double)t;
  const double v = p->order == 2 ? x * x : pow(x, p->order);
  return v * (max - p->min) + p->min;
}

/* gprMax computes the HORIPML coefficients with numpy arrays: a constant
 * CFS profile is a float32 array, a polynomial one float64 (linspace). Under
 * numpy 1.24's value-based promotion a Python scalar takes the array's type,
 * so an expression is evaluated in float32 exactly when all its array
 * operands are constant profiles, else in double. np_val carries a value with
 * its numpy kind so that each intermediate is rounded where gprMax rounds. */
typedef struct {
  double v;
  int kind; /* NP_SCALAR (Python float), NP_F32 (constant profile), NP_F64 */
} np_val;
enum { NP_SCALAR, NP_F32, NP_F64 };

/* a op b ('+', '-', '*', '/') in the type numpy would pick for it. */
static np_val np_op(np_val a, char op, np_val b) {
  int kind = a.kind > b.kind ? a.kind : b.kind;
  if (kind == NP_F32) { /* scalars cast to float32 first, the op rounded to float */
    float x = (float)a.v, y = (float)b.v;
    float r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
    return (np_val){r, NP_F32};
  }
  double r = op == '+' ? a.v + b.v : op == '-' ? a.v - b.v : op == '*' ? a.v * b.v : a.v / b.v;
  return (np_val){r, kind};
}

/* A profile's value at one node: a constant profile is float32(max). */
static np_val np_profile(const gs_cfs_param *p, double v) {
  return p->order == 0 ? (np_val){(float)v, NP_F32} : (np_val){v, NP_F64};
}

/* gprMax's PML coefficients of one CFS term at one depth (pml.py,
 * calculate_update_coeffs), each expression associated left to right as
 * written in gprMax and typed as numpy types it (np_op); the results are
 * stored in float32 arrays. HORIPML: tmp = 2 e0 kappa + dt (alpha kappa +
 * sigma), RA = (2 e0 + dt alpha) / tmp, RB = 2 e0 kappa / tmp, RE = (2 e0
 * kappa - dt (alpha kappa + sigma)) / tmp, RF = 2 sigma dt / (kappa tmp).
 * MRIPML: tmp = 2 e0 + dt alpha, RA = kappa + dt sigma / tmp, RB = 2 e0 /
 * tmp, RE = (2 e0 - dt alpha) / tmp, RF = 2 sigma dt / tmp. */
void gs_fdtd_pml_r(const gs_scene *sc, const gs_cfs *cfs, int mripml, double sigma, double kappa, double alpha,
                   float r[4]) {
  np_val e2 = {2 * GS_EPS0, NP_SCALAR}, dt = {sc->dt, NP_SCALAR}, two = {2, NP_SCALAR};
  np_val s = np_profile(&cfs->sigma, sigma), k = np_profile(&cfs->kappa, kappa);
  np_val a = np_profile(&cfs->alpha, alpha);
  np_val two_s_dt = np_op(np_op(two, '*', s), '*', dt);
  if (mripml) {
    np_val tmp = np_op(e2, '+', np_op(dt, '*', a));
    r[0] = (float)np_op(k, '+', np_op(np_op(dt, '*', s), '/', tmp)).v;
    r[1] = (float)np_op(e2, '/', tmp).v;
    r[2] = (float)np_op(np_op(e2, '-', np_op(dt, '*', a)), '/', tmp).v;
    r[3] = (float)np_op(two_s_dt, '/', tmp).v;
    return;
  }
  np_val e2k = np_op(e2, '*', k);
  np_val loss = np_op(dt, '*', np_op(np_op(a, '*', k), '+', s));
  np_val tmp = np_op(e2k, '+', loss);
  r[0] = (float)np_op(np_op(e2, '+', np_op(dt, '*', a)), '/', tmp).v;
  r[1] = (float)np_op(e2k, '/', tmp).v;
  r[2] = (float)np_op(np_op(e2k, '-', loss), '/', tmp).v;
  r[3] = (float)np_op(two_s_dt, '/', np_op(k, '*', tmp)).v;
}

/* gprMax's HORIPML (first order) in the kernels' form (kernels/fdtd_node.h):
 * field += c (k d + psi), then psi = b psi + a d, with d the field
 * difference and psi = RB Phi d_cell, so that k = RA - 1, b = RE and
 * a = -RB RF (gs_fdtd_pml_r's RA, RB, RE, RF of the scene's CFS term). */
void gs_fdtd_horipml_r(const gs_scene *sc, double sigma, double kappa, double alpha, float r[4]) {
  gs_fdtd_pml_r(sc, &sc->cfs[0], 0, sigma, kappa, alpha, r);
}

void gs_fdtd_horipml(const gs_scene *sc, double sigma, double kappa, double alpha, float *b, float *a, float *k) {
  float r[4];
  gs_fdtd_horipml_r(sc, sigma, kappa, alpha, r);
  *b = r[2];
  *a = -(r[1] * r[3]);
  *k = r[0] - 1.0f;
}

/* CPML profiles of one slab: depth of index k's E node and H half node. */
static void pml_profiles(const gs_scene *sc, double sigma_max, int64_t n, int lower, int64_t nodes, float *out) {
  for (int half = 0; half < 2; ++half)
    for (int64_t k = 0; k < nodes; ++k) {
      /* lower slab: node k at depth (n - k) / n; upper: k / n (k from the inner face) */
      double depth = lower ? ((double)n - (double)k - 0.5 * half) / (double)n : ((double)k + 0.5 * half) / (double)n;
      if (depth < 0) depth = 0;
      if (depth > 1) depth = 1;
      const gs_cfs *cfs = &sc->cfs[0];
      double sigma = gs_fdtd_cfs_profile(&cfs->sigma, depth, sigma_max);
      double kappa = gs_fdtd_cfs_profile(&cfs->kappa, depth, cfs->kappa.max);
      double alpha = gs_fdtd_cfs_profile(&cfs->alpha, depth, cfs->alpha.max);
      float *base = out + (size_t)half * 3 * (size_t)nodes;
      gs_fdtd_horipml(sc, sigma, kappa, alpha, &base[k], &base[nodes + k], &base[2 * nodes + k]);
    }
}

void gs_fdtd_sim_init(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run) {
  char err[256];
  if (gs_fdtd_sim_init_part(m, sc, b, run, NULL, 1, err, sizeof err) != GS_OK)
    gs_fatal("gs_fdtd_sim_init", err, __FILE__, __LINE__);
}

/* 1 when nodes [lo, hi) along axis (0 x, 1 y) meet a CPML slab. */
static int meets_slab(const gs_scene *sc, int axis, int64_t lo, int64_t hi) {
  int64_t extent = axis == 0 ? sc->nx : sc->ny;
  int nlo = sc->pml[axis], nhi = sc->pml[axis + 2];
  return (nlo && lo < nlo + 1 && hi > 0) || (nhi && lo < extent && hi > extent - nhi);
}

/* Why part cannot run with depth ghost layers, or NULL. A node recomputes the
 * new H of its lower neighbours and a deep halo computes depth - 1 layers of
 * the neighbours' nodes, none of which may carry CPML state across a rank
 * boundary (docs/fdtd.md). */
static const char *part_problem(const gs_scene *sc, const gs_fdtd_part *p, int depth, char *buf, size_t n) {
  int64_t need = depth > 2 ? depth : 2;
  if (p->i1 - p->i0 < need || p->j1 - p->j0 < need) {
    snprintf(buf, n, "a rank would own %lld x %lld nodes; at least %lld x %lld are needed%s",
             (long long)(p->i1 - p->i0), (long long)(p->j1 - p->j0), (long long)need, (long long)need,
             depth > 2 ? " for this --halo-depth" : "");
    return buf;
  }
  int64_t lo[2] = {p->i0, p->j0}, hi[2] = {p->i1, p->j1}, end[2] = {sc->nx + 1, sc->ny + 1};
  for (int ax = 0; ax < 2; ++ax)
    if ((lo[ax] > 0 && meets_slab(sc, ax, lo[ax] - depth, lo[ax])) ||
        (hi[ax] < end[ax] && meets_slab(sc, ax, hi[ax], hi[ax] + depth - 1))) {
      snprintf(buf, n, "a rank boundary (at node %lld, %lld) falls inside the CPML%s; use fewer ranks or --decomp",
               (long long)(lo[ax] > 0 && meets_slab(sc, ax, lo[ax] - depth, lo[ax]) ? p->i0 : p->i1),
               (long long)(lo[ax] > 0 && meets_slab(sc, ax, lo[ax] - depth, lo[ax]) ? p->j0 : p->j1),
               depth > 1 ? " or within --halo-depth nodes of it" : "");
      return buf;
    }
  return NULL;
}

int gs_fdtd_depth_fit(const gs_scene *sc, const gs_fdtd_part *part, int want) {
  char buf[256];
  for (int d = want < GS_FDTD_MAX_DEPTH ? want : GS_FDTD_MAX_DEPTH; d > 1; --d)
    if (!part_problem(sc, part, d, buf, sizeof buf)) return d;
  return 1;
}

/* The global grid, the nodes this rank owns (part) and the layout of its
 * arrays; GS_ERR_USAGE with the reason in err when the part cannot work. */
static gs_status init_grid(gs_fdtd_sim *m, const gs_fdtd_part *part, int depth, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  gs_fdtd_grid *gr = &m->grid;
  gr->nx = sc->nx;
  gr->ny = sc->ny;
  m->dist.depth = depth;
  gr->g = depth;
  gr->own = *part;
  m->dist.nb[0] = gr->own.i0 > 0;
  m->dist.nb[1] = gr->own.i1 < sc->nx + 1;
  m->dist.nb[2] = gr->own.j0 > 0;
  m->dist.nb[3] = gr->own.j1 < sc->ny + 1;
  if (part_problem(sc, part, depth, err, errlen)) return GS_ERR_USAGE;
  gr->pitch = (gr->own.i1 - gr->own.i0 + 2 * gr->g + 31) / 32 * 32; /* rows start 128-byte aligned */
  gr->rows = gr->own.j1 - gr->own.j0 + 2 * gr->g;
  gr->nelem = (size_t)gr->pitch * (size_t)gr->rows;
  return GS_OK;
}

/* Both buffer sets of Ez, Hx, Hy, zero; the first is current. */
static void init_fields(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  size_t bytes = m->grid.nelem * sizeof(float);
  float *zero = gs_xcalloc(m->grid.nelem, sizeof(float));
  for (int buf = 0; buf < 2; ++buf)
    for (int k = 0; k < 3; ++k) {
      m->fields.buf[buf][k] = b->dev_alloc(bytes);
      b->copy_h2d(m->fields.buf[buf][k], zero, bytes, m->s);
    }
  b->stream_sync(m->s); /* before zero goes */
  free(zero);
  gs_fdtd_make_current(m, 0);
  m->fields.v.pitch = m->grid.pitch;
  m->fields.v.g = m->grid.g;
}

/* gprMax's update coefficients of material mt (float64, stored as float):
 * E: CA, CBx, CBy, srce (pec: zero); H: DA, DBx, DBy. */
static gs_fdtd_coef e_coef(const gs_scene *sc, const gs_material *mt) {
  if (mt->pec) return (gs_fdtd_coef){0, 0, 0, 0};
  double ea = GS_EPS0 * mt->er / sc->dt + 0.5 * mt->sigma, eb = GS_EPS0 * mt->er / sc->dt - 0.5 * mt->sigma;
  return (gs_fdtd_coef){(float)(eb / ea), (float)(1 / sc->dx * 1 / ea), (float)(1 / sc->dy * 1 / ea), (float)(1 / ea)};
}

static gs_fdtd_hcoef h_coef(const gs_scene *sc, const gs_material *mt) {
  double ha = GS_MU0 * mt->mr / sc->dt + 0.5 * mt->sm, hb = GS_MU0 * mt->mr / sc->dt - 0.5 * mt->sm;
  return (gs_fdtd_hcoef){(float)(hb / ha), (float)(1 / sc->dx * 1 / ha), (float)(1 / sc->dy * 1 / ha)};
}

/* One byte per node of the arrays (0, pec's coefficients, outside the grid)
 * from the geometry's node materials, to the device. */
static uint8_t *node_bytes(gs_fdtd_sim *m, const gs_geometry *geo, const uint16_t *ids, uint8_t **dev) {
  const gs_fdtd_part *own = &m->grid.own;
  const int g = m->grid.g;
  uint8_t *host = gs_xcalloc(m->grid.nelem, 1);
  for (int64_t j = own->j0 - g; j < own->j1 + g; ++j)
    for (int64_t i = own->i0 - g; i < own->i1 + g; ++i)
      if (i >= 0 && i <= m->sc->nx && j >= 0 && j <= m->sc->ny)
        host[gs_fdtd_index(m, i, j)] = (uint8_t)ids[gs_geometry_node(geo, i, j)];
  *dev = m->b->dev_alloc(m->grid.nelem);
  m->b->copy_h2d(*dev, host, m->grid.nelem, m->s);
  return host;
}

/* The materials of every node of the arrays (ghosts included) as gprMax
 * builds them (src/model/geometry.c), and their update coefficients. H takes
 * per-node materials only when some node's are magnetic; otherwise the
 * kernels use free space's two numbers. */
static gs_status init_materials(gs_fdtd_sim *m, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const gs_backend *b = m->b;
  const gs_fdtd_part *own = &m->grid.own;
  gs_geometry geo;
  gs_geometry_build(&geo, sc, own->i0 - m->grid.g, own->i1 + m->grid.g, own->j0 - m->grid.g, own->j1 + m->grid.g);
  if (geo.nmat > GS_FDTD_MAX_MATERIALS) {
    snprintf(err, errlen,
             "%s: %d materials with the averaged ones (dielectric smoothing) in one rank's part; at most %d", sc->path,
             geo.nmat, GS_FDTD_MAX_MATERIALS);
    gs_geometry_free(&geo);
    return GS_ERR_USAGE;
  }
  uint8_t *dev;
  m->mat.host = node_bytes(m, &geo, geo.ez, &dev);
  m->fields.v.mat = dev;
  for (int k = 0; k < geo.nmat; ++k) {
    m->mat.coef_host[k] = e_coef(sc, &geo.mat[k]);
    m->mat.hcoef_host[k] = h_coef(sc, &geo.mat[k]);
  }
  m->mat.nmat = geo.nmat;
  m->mat.chx = m->mat.hcoef_host[0].dbx; /* free space */
  m->mat.chy = m->mat.hcoef_host[0].dby;
  m->mat.coef = b->dev_alloc(sizeof m->mat.coef_host);
  b->copy_h2d(m->mat.coef, m->mat.coef_host, sizeof m->mat.coef_host, m->s);
  if (geo.magnetic) {
    uint8_t *hx, *hy;
    free(node_bytes(m, &geo, geo.hx, &hx));
    free(node_bytes(m, &geo, geo.hy, &hy));
    m->mat.hmx = hx;
    m->mat.hmy = hy;
    m->mat.hcoef = b->dev_alloc(sizeof m->mat.hcoef_host);
    b->copy_h2d(m->mat.hcoef, m->mat.hcoef_host, sizeof m->mat.hcoef_host, m->s);
  }
  b->stream_sync(m->s);
  gs_geometry_free(&geo);
  return GS_OK;
}

/* The profiles of slab p's nodes [lo, hi) (this rank's part of them), from
 * the whole slab's: 6 arrays of hi - lo values (b, a, k for E, then for H). */
static float *slab_part_profiles(const gs_scene *sc, const gs_fdtd_slab *p, int n, int lower, int64_t lo, int64_t hi) {
  int64_t gnodes = p->hi - p->lo, nodes = hi - lo;
  float *gprof = gs_xmalloc(6 * (size_t)gnodes * sizeof(float));
  /* gprMax: one sigma_max for every slab, fixed by the first one built. */
  /* gprMax computes sigma max where none is given (None) and where it is 0 */
  double sigma_max = sc->cfs[0].sigma.max > 0 ? sc->cfs[0].sigma.max : gs_geometry_sigma_max(sc);
  pml_profiles(sc, sigma_max, n, lower, gnodes, gprof);
  float *prof = gs_xmalloc(6 * (size_t)nodes * sizeof(float));
  for (int c = 0; c < 6; ++c)
    memcpy(prof + (size_t)c * (size_t)nodes, gprof + (size_t)c * (size_t)gnodes + (size_t)(lo - p->lo),
           (size_t)nodes * sizeof(float));
  free(gprof);
  return prof;
}

/* This rank's part of the CPML slab on scene side `side` (n cells thick), if
 * it has one: its profiles on the device and its auxiliaries (zero), added
 * to m->pml. */
static void init_slab(gs_fdtd_sim *m, int side, int n) {
  const gs_backend *b = m->b;
  const gs_fdtd_part *own = &m->grid.own;
  int dir = side % 2, lower = side < 2;
  int64_t extent = dir == 0 ? m->grid.nx : m->grid.ny;
  gs_fdtd_slab p = {.dir = dir};
  p.lo = lower ? 0 : extent - n;
  p.hi = lower ? n + 1 : extent;
  p.o0 = 0;
  p.o1 = (dir == 0 ? m->grid.ny : m->grid.nx) + 1;
  int64_t alo = dir == 0 ? own->i0 : own->j0, ahi = dir == 0 ? own->i1 : own->j1;
  int64_t olo = dir == 0 ? own->j0 : own->i0, ohi = dir == 0 ? own->j1 : own->i1;
  int64_t lo = p.lo > alo ? p.lo : alo, hi = p.hi < ahi ? p.hi : ahi;
  if (hi <= lo) return;
  int64_t nodes = hi - lo;
  float *prof = slab_part_profiles(m->sc, &p, n, lower, lo, hi);
  p.lo = lo;
  p.hi = hi;
  /* Along the slab: this rank's nodes and the depth - 1 layers a deep halo
   * computes beyond them. */
  olo -= m->dist.depth - 1;
  ohi += m->dist.depth - 1;
  p.o0 = p.o0 > olo ? p.o0 : olo;
  p.o1 = p.o1 < ohi ? p.o1 : ohi;
  float *dprof = b->dev_alloc(6 * (size_t)nodes * sizeof(float));
  b->copy_h2d(dprof, prof, 6 * (size_t)nodes * sizeof(float), m->s);
  p.be = dprof;
  p.ae = dprof + nodes;
  p.ke = dprof + 2 * nodes;
  p.bh = dprof + 3 * nodes;
  p.ah = dprof + 4 * nodes;
  p.kh = dprof + 5 * nodes;
  size_t psi_n = (size_t)nodes * (size_t)(p.o1 - p.o0);
  float *z = gs_xcalloc(psi_n, sizeof(float));
  gs_fdtd_cpml *pml = &m->pml;
  for (int buf = 0; buf < 2; ++buf)
    for (int eh = 0; eh < 2; ++eh) {
      pml->psi[pml->n][buf][eh] = b->dev_alloc(psi_n * sizeof(float));
      b->copy_h2d(pml->psi[pml->n][buf][eh], z, psi_n * sizeof(float), m->s);
    }
  b->stream_sync(m->s);
  free(z);
  free(prof);
  pml->prof[pml->n] = dprof;
  pml->side[pml->n] = side;
  pml->cells[pml->n] = psi_n;
  pml->slab[pml->n++] = p;
}

/* CPML slabs: x- x+ (dir 0), y- y+ (dir 1). */
static void init_cpml(gs_fdtd_sim *m) {
  for (int side = 0; side < 4; ++side)
    if (m->sc->pml[side]) init_slab(m, side, m->sc->pml[side]);
}

/* Regions: an inner box whose nodes (and the neighbours they recompute) lie
 * in no slab, and the strips around it, which carry the slabs (or, without a
 * slab on that side, the outermost row or column, which the marching kernel
 * does not take). */
static void init_regions(gs_fdtd_sim *m) {
  const int *pml = m->sc->pml;
  int64_t X = m->grid.nx + 1, Y = m->grid.ny + 1;
  int64_t x0 = pml[0] ? pml[0] + 2 : 1, y0 = pml[1] ? pml[1] + 2 : 1;
  int64_t x1 = X - (pml[2] ? pml[2] + 1 : 1), y1 = Y - (pml[3] ? pml[3] + 1 : 1);
  if (x0 > X) x0 = X;
  if (y0 > Y) y0 = Y;
  if (x1 < x0) x1 = x0;
  if (y1 < y0) y1 = y0;
  gs_fdtd_region all[5] = {{x0, x1, y0, y1}, {0, X, 0, y0}, {0, X, y1, Y}, {0, x0, y0, y1}, {x1, X, y0, y1}};
  memcpy(m->pml.region, all, sizeof all);
}

/* The class of the source at global node (i, j) (see gs_fdtd_sources): 0
 * inside the interior box, 1 in the ring, d + 1 in the ghost layers at depth
 * d that a deep halo computes, -1 beyond them (not this rank's). */
static int source_class(const gs_fdtd_sim *m, gs_fdtd_region inner, int64_t i, int64_t j) {
  const gs_fdtd_part *own = &m->grid.own;
  int64_t dx = i < own->i0 ? own->i0 - i : i >= own->i1 ? i - own->i1 + 1 : 0;
  int64_t dy = j < own->j0 ? own->j0 - j : j >= own->j1 ? j - own->j1 + 1 : 0;
  int64_t d = dx > dy ? dx : dy;
  if (d == 0) return i >= inner.i0 && i < inner.i1 && j >= inner.j0 && j < inner.j1 ? 0 : 1;
  return d <= m->dist.depth - 1 ? (int)d + 1 : -1;
}

/* The offsets and the values at every step of the sources, in class order
 * (cls[q]: scene source q's class), to the device. */
static void upload_sources(gs_fdtd_sim *m, const int *cls) {
  const gs_scene *sc = m->sc;
  const gs_backend *b = m->b;
  const size_t n = (size_t)m->src.n;
  int64_t *off = gs_xmalloc(sizeof *off * n);
  float *val = gs_xcalloc((size_t)sc->iterations * n, sizeof(float));
  int k = 0;
  for (int c = 0; c < GS_FDTD_MAX_DEPTH + 2; ++c)
    for (int q = 0; q < sc->nsources; ++q) {
      if (cls[q] != c) continue;
      const gs_source *src = &sc->sources[q];
      int64_t i = src->i + (int64_t)m->run * sc->src_di, j = src->j + (int64_t)m->run * sc->src_dj;
      off[k] = (int64_t)gs_fdtd_index(m, i, j);
      /* gprMax: the current of the node's (averaged) material, srce I(t) dl / (dx dy dz),
       * with I at (n + 1/2) dt (gprMax 3: n dt), float as gprMax rounds it. */
      float srce = m->mat.coef_host[m->mat.host[off[k]]].src;
      double late = sc->gprmax3_timing ? 0 : 0.5 * sc->dt, per_volume = sc->dz * (1 / (sc->dx * sc->dy * sc->dz));
      for (int64_t s = 0; s < sc->iterations; ++s) {
        double t = (double)s * sc->dt;
        if (t < src->start || t > src->stop) continue;
        float wave = (float)gs_waveform_value(&sc->waveforms[src->waveform], t - src->start + late);
        val[(size_t)s * n + (size_t)k] = (float)((double)(srce * wave) * per_volume);
      }
      ++k;
    }
  m->src.off = b->dev_alloc(sizeof *off * n);
  m->src.val = b->dev_alloc(sizeof *val * (size_t)sc->iterations * n);
  b->copy_h2d(m->src.off, off, sizeof *off * n, m->s);
  b->copy_h2d(m->src.val, val, sizeof *val * (size_t)sc->iterations * n, m->s);
  b->stream_sync(m->s);
  free(off);
  free(val);
}

/* Sources: the ones this rank owns, and with a deep halo the ones in the
 * ghost layers it computes too; all values precomputed (gprMax: evaluated
 * half a step late). Ordered by class (see gs_fdtd_sources). */
static void init_sources(gs_fdtd_sim *m) {
  const gs_scene *sc = m->sc;
  gs_fdtd_region inner = gs_fdtd_interior_box(m);
  int cls_count[GS_FDTD_MAX_DEPTH + 2] = {0};
  int *cls = gs_xmalloc(sizeof *cls * ((size_t)sc->nsources + 1));
  for (int k = 0; k < sc->nsources; ++k) {
    int64_t i = sc->sources[k].i + (int64_t)m->run * sc->src_di, j = sc->sources[k].j + (int64_t)m->run * sc->src_dj;
    cls[k] = source_class(m, inner, i, j);
    if (cls[k] >= 0) cls_count[cls[k]]++;
  }
  for (int c = 0, sum = 0; c < GS_FDTD_MAX_DEPTH + 2; ++c)
    m->src.cum[c] = sum += cls_count[c];
  m->src.n = m->src.cum[GS_FDTD_MAX_DEPTH + 1];
  if (m->src.n) upload_sources(m, cls);
  free(cls);
}

/* Receivers: the ones this rank owns, their offsets on the device, the
 * device ring of samples, the host history, the stream they are sampled on. */
static void init_receivers(gs_fdtd_sim *m) {
  const gs_scene *sc = m->sc;
  const gs_backend *b = m->b;
  const int64_t run = m->run;
  m->rx.n = 0;
  m->rx.global = gs_xcalloc((size_t)sc->nrx + 1, sizeof *m->rx.global);
  for (int k = 0; k < sc->nrx; ++k)
    if (owns(m, sc->rxs[k].i + run * sc->rx_di, sc->rxs[k].j + run * sc->rx_dj)) m->rx.global[m->rx.n++] = k;
  if (!m->rx.n) return;
  const size_t n = (size_t)m->rx.n;
  int64_t *off = gs_xmalloc(sizeof *off * n);
  for (size_t k = 0; k < n; ++k) {
    const gs_rx *rx = &sc->rxs[m->rx.global[k]];
    off[k] = (int64_t)gs_fdtd_index(m, rx->i + run * sc->rx_di, rx->j + run * sc->rx_dj);
  }
  m->rx.s = b->stream_create(1);
  m->rx.ev_ready = b->event_create(0);
  m->rx.ev_done = b->event_create(0);
  m->rx.off = b->dev_alloc(sizeof *off * n);
  b->copy_h2d(m->rx.off, off, sizeof *off * n, m->s);
  m->rx.buf = b->dev_alloc(sizeof(float) * 3 * n * GS_RX_CHUNK);
  m->rx.hist = gs_xcalloc((size_t)sc->iterations * 3 * n, sizeof(float));
  b->stream_sync(m->s);
  free(off);
}

/* GPUSTENCIL_FUSE's choice for a scene on backend b: T (0: single steps).
 * auto: the GPU takes passes of GS_FDTD_FUSE_AUTO steps where the grid has
 * GS_FDTD_FUSE_MIN_NODES nodes or more (one H200, 10-cell CPML,
 * docs/performance.md: T = 7 the fastest or within 2 % of it
 * from 6144^2 (1.47x one step a launch) to 16384^2 (1.90x); at 4096^2 T = 7
 * loses (0.92x), so smaller grids take single steps); the CPU single steps
 * (its twin is their loop). On several ranks the automatic halo depth is
 * then T, each deep-halo cycle one pass (2 H200s: 94 % of the one-GPU
 * passes' time at 16384^2, against 54 % for the overlapped single steps). */
#define GS_FDTD_FUSE_AUTO 7
#define GS_FDTD_FUSE_MIN_NODES (6144.0 * 6144.0)
int gs_fdtd_fuse_wanted(const gs_scene *sc, const gs_backend *b) {
  const int mode = gs_config_get()->fuse;
  const double nodes = (double)(sc->nx + 1) * (double)(sc->ny + 1);
  if (mode != GS_FUSE_AUTO) return mode;
  return b->is_gpu && nodes >= GS_FDTD_FUSE_MIN_NODES ? GS_FDTD_FUSE_AUTO : 0;
}

static void init_fuse(gs_fdtd_sim *m) {
  gs_fdtd_sim_set_fuse(m, gs_fdtd_fuse_wanted(m->sc, m->b));
}

/* GPUSTENCIL_ONCHIP's choice. auto: the CPU backend takes the twin (the
 * loops of single steps); the GPU keeps the grid on chip where it fits and H
 * is free space everywhere (faster there: docs/performance.md;
 * magnetic H takes the general update at every node, not measured). */
static void init_onchip(gs_fdtd_sim *m) {
  const int mode = gs_config_get()->onchip;
  gs_fdtd_sim_set_onchip(m, mode == GS_ONCHIP_ON || (mode == GS_ONCHIP_AUTO && (!m->b->is_gpu || !m->mat.hmx)));
}

gs_status gs_fdtd_sim_init_part(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                const gs_fdtd_part *part, int depth, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (depth < 1 || depth > GS_FDTD_MAX_DEPTH) gs_fatal("gs_fdtd_sim_init_part", "bad depth", __FILE__, __LINE__);
  m->b = b;
  m->sc = sc;
  m->run = run;
  const gs_fdtd_part whole = {0, sc->nx + 1, 0, sc->ny + 1};
  gs_status st = init_grid(m, part ? part : &whole, depth, err, errlen);
  if (st != GS_OK) return st;
  m->s = b->stream_create(0);
  m->graph.allowed = b->graph_begin != NULL;
  if (!m->graph.allowed) gs_log_debug("fdtd: CUDA graphs off: the %s backend has none", b->name);
  m->pdl = gs_config_get()->pdl;
  init_fields(m);
  st = init_materials(m, err, errlen);
  if (st != GS_OK) return st;
  init_cpml(m);
  init_regions(m);
  init_sources(m);
  init_receivers(m);
  b->stream_sync(m->s);
  init_onchip(m);
  init_fuse(m);
  return GS_OK;
}

void gs_fdtd_sim_free(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  if (m->dist.halo) { /* collective: neighbours may hold this rank's arrays open */
    gs_fdtd_sim_sync(m);
    gs_halo_destroy(m->dist.halo);
    m->dist.halo = NULL;
  }
  for (int buf = 0; buf < 2; ++buf)
    for (int k = 0; k < 3; ++k)
      b->dev_free(m->fields.buf[buf][k]);
  b->dev_free((void *)m->fields.v.mat);
  b->dev_free(m->mat.coef);
  if (m->mat.hmx) {
    b->dev_free((void *)m->mat.hmx);
    b->dev_free((void *)m->mat.hmy);
    b->dev_free(m->mat.hcoef);
  }
  for (int k = 0; k < m->pml.n; ++k) {
    b->dev_free(m->pml.prof[k]);
    for (int buf = 0; buf < 2; ++buf)
      for (int eh = 0; eh < 2; ++eh)
        b->dev_free(m->pml.psi[k][buf][eh]);
  }
  if (m->src.n) {
    b->dev_free(m->src.off);
    b->dev_free(m->src.val);
  }
  if (m->rx.n) {
    b->stream_destroy(m->rx.s);
    b->event_destroy(m->rx.ev_ready);
    b->event_destroy(m->rx.ev_done);
    b->dev_free(m->rx.off);
    b->dev_free(m->rx.buf);
    free(m->rx.hist);
  }
  free(m->mat.host);
  free(m->rx.global);
  if (m->graph.exec) b->graph_free(m->graph.exec);
  if (m->graph.clock) b->dev_free(m->graph.clock);
  if (m->onchip_barrier) b->dev_free(m->onchip_barrier);
  if (m->graph.ev_fork) b->event_destroy(m->graph.ev_fork);
  if (m->graph.ev_join) b->event_destroy(m->graph.ev_join);
  if (m->dist.hi && m->dist.hi != m->s) b->stream_destroy(m->dist.hi);
  if (m->dist.ev_ring) b->event_destroy(m->dist.ev_ring);
  if (m->dist.ev_lo) b->event_destroy(m->dist.ev_lo);
  if (m->dist.ev_sent) b->event_destroy(m->dist.ev_sent);
  b->stream_destroy(m->s);
  memset(m, 0, sizeof *m);
}

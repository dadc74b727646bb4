/* The 2D engine: FDTD (Yee; the thin axis's field and the two H across it) of a
 * gprMax scene on one rank or split over many: materials, CFS-CPML, Hertzian
 * dipole sources, receivers' histories, a rank's checkpoint state (restartable on
 * any split), a split-independent checksum; the distributed step with deep halos and the
 * boundary ring overlapped with the interior (the exchange itself: mpi/halo.c).
 * Equations, units and layout: docs/fdtd.md. */
#include "fdtd.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "config.h"
#include "fdtd_internal.h"
#include "geometry.h"
#include "halo.h"
#include "log.h"
#include "options.h"

/* --halo-depth auto: this depth for parts of at most this many nodes (GPU). */
#define GS_FDTD_AUTO_DEPTH 4
#define GS_FDTD_SMALL_PART (4.0 * 1024 * 1024) /* nodes: R = 8 at or below */
/* The automatic decomposition avoids parts thinner than this (CPML + halo). */
#define GS_FDTD_MIN_PART 32

static int owns(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return i >= m->grid.own.i0 && i < m->grid.own.i1 && j >= m->grid.own.j0 && j < m->grid.own.j1;
}

/* The owned nodes, grown by e layers on the sides with a neighbour. */
static gs_fdtd_region grown_box(const gs_fdtd_sim *m, int e) {
  gs_fdtd_region r = {m->grid.own.i0 - e * m->dist.nb[0], m->grid.own.i1 + e * m->dist.nb[1],
                      m->grid.own.j0 - e * m->dist.nb[2], m->grid.own.j1 + e * m->dist.nb[3]};
  return r;
}

/* The owned nodes less the ring of depth layers along the sides with a
 * neighbour: nodes that neither read ghosts nor are sent (may be empty). */
static gs_fdtd_region interior_box(const gs_fdtd_sim *m) {
  gs_fdtd_region r = grown_box(m, -m->dist.depth);
  return gs_region_meet(r, grown_box(m, 0));
}

/* --------------------------------------------------------------- set-up */

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

/* Makes buffer set k the current one (fields.v points at it). */
static void make_current(gs_fdtd_sim *m, int k) {
  m->fields.cur = k;
  m->fields.v.ez = m->fields.buf[k][0];
  m->fields.v.hx = m->fields.buf[k][1];
  m->fields.v.hy = m->fields.buf[k][2];
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
  make_current(m, 0);
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
  gs_fdtd_region inner = interior_box(m);
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

static gs_fdtd_step_args step_args(const gs_fdtd_sim *m, int in, int out);
static void drop_graph(gs_fdtd_sim *m);

int gs_fdtd_sim_set_onchip(gs_fdtd_sim *m, int on) {
  const gs_fdtd_part *own = &m->grid.own;
  const int whole = own->i0 == 0 && own->j0 == 0 && own->i1 == m->grid.nx + 1 && own->j1 == m->grid.ny + 1;
  m->onchip = 0;
  snprintf(m->onchip_form, sizeof m->onchip_form, "none");
  if (!on || !whole || !m->b->fdtd_run) return 0;
  const gs_fdtd_step_args a = step_args(m, 0, 1);
  m->onchip_blocks = m->b->fdtd_run_fits(&a);
  m->onchip = m->onchip_blocks > 0;
  snprintf(m->onchip_form, sizeof m->onchip_form, "%s", m->onchip ? m->b->fdtd_run_form(&a) : "none");
  gs_log_debug("fdtd: the grid on chip: %s", m->onchip_form);
  if (!m->onchip) return 0;
  /* The launches' scratch, zeroed and its count restarted whenever the path
   * is set up: the step numbers of the edge words count from it, and a
   * plan of another cut would misread words of the last one. */
  const int64_t scratch = m->b->fdtd_run_scratch(&a);
  if (m->onchip_barrier) m->b->stream_sync(m->s); /* (launches that may still use it) */
  if (m->onchip_barrier && scratch > m->onchip_scratch) {
    m->b->dev_free(m->onchip_barrier);
    m->onchip_barrier = NULL;
  }
  if (!m->onchip_barrier) {
    m->onchip_barrier = m->b->dev_alloc((size_t)scratch);
    m->onchip_scratch = scratch;
  }
  m->b->zero(m->onchip_barrier, (size_t)m->onchip_scratch, m->s);
  m->onchip_arrivals = 0;
  return m->onchip;
}

int gs_fdtd_sim_set_fuse(gs_fdtd_sim *m, int T) {
  m->fuse = 0;
  drop_graph(m); /* a pass moves the buffer sets once, whatever T: a graph captured before may no longer match */
  if (T <= 0 || !m->b->fdtd_fuse) return 0;
  if (m->rx.n > GS_FDTD_FUSE_POINTS || m->src.cum[m->dist.depth] > GS_FDTD_FUSE_POINTS) {
    /* A block holding more scans the whole list at every level: on the H200
     * a dense array of 5681 receivers made a pass slower than single steps. */
    gs_log_debug("fdtd: fused passes not taken: %d receivers and %d sources, more than %d: single steps", m->rx.n,
                 m->src.cum[m->dist.depth], GS_FDTD_FUSE_POINTS);
    return 0;
  }
  const gs_fdtd_step_args a = step_args(m, 0, 1);
  const int most = m->b->fdtd_fuse_fits(&a);
  m->fuse = T < most ? T : most;
  if (!most)
    gs_log_debug("fdtd: fused passes not taken by the %s backend for this grid (magnetic H, overlapping slabs, or "
                 "no device support): single steps",
                 m->b->name);
  else
    gs_log_debug("fdtd: %d steps fused a pass%s", m->fuse, m->onchip ? " (while the grid is not on chip: it is)" : "");
  return m->fuse;
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
static int fuse_wanted(const gs_scene *sc, const gs_backend *b) {
  const int mode = gs_config_get()->fuse;
  const double nodes = (double)(sc->nx + 1) * (double)(sc->ny + 1);
  if (mode != GS_FUSE_AUTO) return mode;
  return b->is_gpu && nodes >= GS_FDTD_FUSE_MIN_NODES ? GS_FDTD_FUSE_AUTO : 0;
}

static void init_fuse(gs_fdtd_sim *m) {
  gs_fdtd_sim_set_fuse(m, fuse_wanted(m->sc, m->b));
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

/* ------------------------------------------------------------ time step */

/* s waits for the receivers' last sample. */
static void join_receivers(gs_fdtd_sim *m) {
  if (m->rx.pending) m->b->stream_wait_event(m->s, m->rx.ev_done);
  m->rx.pending = 0;
}

/* The samples of steps [rx.flushed, step) from the device ring (step n in
 * slot n % GS_RX_CHUNK) into rx.hist. */
static void flush_receivers(gs_fdtd_sim *m) {
  int64_t first = m->rx.flushed, count = m->step - first;
  if (!m->rx.n || count <= 0) return;
  join_receivers(m);
  size_t per = 3 * (size_t)m->rx.n;
  int64_t s0 = first % GS_RX_CHUNK, n1 = count < GS_RX_CHUNK - s0 ? count : GS_RX_CHUNK - s0;
  m->b->copy_d2h(m->rx.hist + (size_t)first * per, m->rx.buf + (size_t)s0 * per, sizeof(float) * per * (size_t)n1,
                 m->s);
  if (count > n1)
    m->b->copy_d2h(m->rx.hist + (size_t)(first + n1) * per, m->rx.buf, sizeof(float) * per * (size_t)(count - n1),
                   m->s);
  m->b->stream_sync(m->s);
  m->rx.flushed = m->step;
}

/* Queues the update of the nodes in boxes[0..n) (global, disjoint) on
 * stream st: their parts in region 0 (no CPML in reach: the plain update)
 * and in the strips around it (with the slabs), in one launch on the GPU
 * (kernels/fdtd.cu). */
/* The non-empty parts of box in the five CPML regions, appended to pieces
 * (room for 5 more); returns the new count. */
static int cpml_pieces(const gs_fdtd_sim *m, gs_fdtd_region box, gs_fdtd_region *pieces, int np) {
  for (int k = 0; k < 5; ++k) {
    const gs_fdtd_region r = gs_region_meet(m->pml.region[k], box);
    if (!gs_region_empty(r)) pieces[np++] = r;
  }
  return np;
}

static void update_boxes(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, const gs_fdtd_region *boxes, int n,
                         gs_stream st) {
  gs_fdtd_region pieces[20];
  int np = 0;
  for (int b = 0; b < n; ++b)
    np = cpml_pieces(m, boxes[b], pieces, np);
  if (np) m->b->fdtd_step(slab, pieces, np, st);
}

static void update_box(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, gs_fdtd_region box, gs_stream st) {
  update_boxes(m, slab, &box, 1, st);
}

/* Sources [from, to) of the class order, at step t, into the new Ez. */
static void inject(gs_fdtd_sim *m, int from, int to, gs_tick t, gs_stream st) {
  if (to > from)
    m->b->fdtd_inject(m->fields.buf[1 - m->fields.cur][0], m->src.off + from, m->src.val + from, m->src.n, t, to - from,
                      m->pdl, st);
}

/* What the update kernels read and write in a step from buffer set in to
 * out, the CPML slabs included. */
static gs_fdtd_step_args step_args(const gs_fdtd_sim *m, int in, int out) {
  gs_fdtd_step_args a = {.ez = m->fields.buf[in][0],
                         .hx = m->fields.buf[in][1],
                         .hy = m->fields.buf[in][2],
                         .mat = m->fields.v.mat,
                         .ez_out = m->fields.buf[out][0],
                         .hx_out = m->fields.buf[out][1],
                         .hy_out = m->fields.buf[out][2],
                         .pitch = m->grid.pitch,
                         .g = m->grid.g,
                         .oi = m->grid.own.i0,
                         .oj = m->grid.own.j0,
                         .nx = m->grid.nx,
                         .ny = m->grid.ny,
                         .chx = m->mat.chx,
                         .chy = m->mat.chy,
                         .coef = m->mat.coef,
                         .nmat = m->mat.nmat,
                         .hmx = m->mat.hmx,
                         .hmy = m->mat.hmy,
                         .hcoef = m->mat.hcoef,
                         .nslab = m->pml.n,
                         .concurrent = m->dist.hi && m->dist.hi != m->s,
                         .pdl = m->pdl};
  for (int k = 0; k < m->pml.n; ++k) {
    a.slab[k] = m->pml.slab[k];
    a.slab[k].psi_e_in = m->pml.psi[k][in][0];
    a.slab[k].psi_h_in = m->pml.psi[k][in][1];
    a.slab[k].psi_e_out = m->pml.psi[k][out][0];
    a.slab[k].psi_h_out = m->pml.psi[k][out][1];
  }
  return a;
}

/* Before step k of the deep-halo cycle on several ranks: s waits for what
 * the previous steps on hi and the exchange must have done. */
static void wait_for_neighbours(gs_fdtd_sim *m, int64_t k, int exchanging) {
  const gs_backend *b = m->b;
  const int R = m->dist.depth;
  gs_stream lo = m->s, hi = m->dist.hi;
  if (hi != lo && !m->graph.fresh) b->stream_wait_event(lo, m->dist.ev_ring); /* the previous step's ring */
  /* The overlapped send of the last exchange (on hi) reads this rank's own
   * nodes of the buffer this step overwrites: first step of the cycle for
   * odd R, second for even R (R = 1: the ring, written on hi only). */
  if (hi != lo && R > 1 && k == (R % 2 ? 0 : 1) && !m->graph.fresh) b->stream_wait_event(lo, m->dist.ev_sent);
  if (m->dist.pending && !exchanging) gs_halo_wait(m->dist.halo, lo);
}

/* Queues the receivers' sample of the current fields at step t on their
 * stream, once the previous step is done on s. */
static void sample_receivers(gs_fdtd_sim *m, gs_tick t) {
  const gs_backend *b = m->b;
  gs_stream lo = m->s, hi = m->dist.hi;
  /* The last sample read the buffer this step writes. */
  if (m->rx.pending && !m->graph.fresh) {
    b->stream_wait_event(lo, m->rx.ev_done);
    if (m->dist.halo && hi != lo) b->stream_wait_event(hi, m->rx.ev_done);
  }
  m->rx.pending = 0;
  if (m->step - m->rx.flushed == GS_RX_CHUNK) flush_receivers(m); /* (never while capturing: see capture()) */
  /* lo has all of the previous step here (above: it waited for the ring). */
  b->event_record(m->rx.ev_ready, lo);
  b->stream_wait_event(m->rx.s, m->rx.ev_ready);
  b->fdtd_sample(m->fields.v, m->rx.off, m->rx.n, m->rx.buf, GS_RX_CHUNK, t, m->rx.s);
  b->event_record(m->rx.ev_done, m->rx.s);
  m->rx.pending = 1;
}

/* An exchanging step with overlap: the ring along the neighbours on hi, its
 * exchange sent from there, while the interior runs on s. */
static void overlapped_step(gs_fdtd_sim *m, const gs_fdtd_step_args *sl, gs_tick t, int out) {
  const gs_backend *b = m->b;
  gs_stream lo = m->s, hi = m->dist.hi;
  gs_fdtd_region own = grown_box(m, 0), core = interior_box(m);
  if (gs_region_empty(core)) core = (gs_fdtd_region){own.i0, own.i0, own.j0, own.j0};
  gs_fdtd_region ring[4] = {{own.i0, own.i1, own.j0, core.j0},
                            {own.i0, own.i1, core.j1, own.j1},
                            {own.i0, core.i0, core.j0, core.j1},
                            {core.i1, own.i1, core.j0, core.j1}};
  if (!m->graph.fresh) b->stream_wait_event(hi, m->dist.ev_lo); /* the previous step's interior */
  if (m->dist.pending) gs_halo_wait(m->dist.halo, hi);
  gs_fdtd_region pieces[4];
  int np = 0;
  for (int r = 0; r < 4; ++r)
    if (!gs_region_empty(ring[r])) pieces[np++] = ring[r];
  update_boxes(m, sl, pieces, np, hi);
  inject(m, m->src.cum[0], m->src.cum[1], t, hi);
  b->event_record(m->dist.ev_ring, hi);
  gs_halo_send(m->dist.halo, out, hi);
  b->event_record(m->dist.ev_sent, hi);
  if (!gs_region_empty(core)) update_box(m, sl, core, lo);
  inject(m, 0, m->src.cum[0], t, lo);
  b->event_record(m->dist.ev_lo, lo);
  gs_halo_finish(m->dist.halo, out, hi);
  m->dist.pending = 1;
}

/* One rank, or several (then with the halo):
 *  - a deep-halo step that exchanges nothing (R > 1, all but the last of
 *    every R steps): the owned nodes and e = R - 1 - k ghost layers on s;
 *  - an exchanging step with overlap: the ring of R layers along the
 *    neighbours first on the high-priority stream, its exchange sent from
 *    there, while the interior runs on s; nothing waits on the host for the
 *    device except the MPI transports, which wait for their packing event;
 *  - without overlap: everything on s, then the exchange.
 * The streams are ordered by events: the ring waits for s's previous step
 * (it reads the interior's nodes), s waits for the previous ring. */
void gs_fdtd_sim_step(gs_fdtd_sim *m) {
  const int64_t n = m->step;
  const int out = 1 - m->fields.cur;
  const gs_fdtd_step_args sl = step_args(m, m->fields.cur, out);
  const int R = m->dist.depth;
  const int64_t k = m->dist.halo ? (n - m->dist.k0) % R : R - 1;
  const int exchanging = k == R - 1;
  gs_stream lo = m->s;
  /* The step as the kernels read it: n, or in a graph being captured its
   * offset from the clock word the replays move on. */
  const gs_tick t = m->graph.capturing ? (gs_tick){m->graph.clock, n - m->graph.n0} : gs_tick_at(n);
  if (m->dist.halo) wait_for_neighbours(m, k, exchanging);
  if (m->rx.n) sample_receivers(m, t);
  if (!exchanging) {
    int e = (int)(R - 1 - k);
    update_box(m, &sl, grown_box(m, e), lo);
    inject(m, 0, m->src.cum[1 + e], t, lo);
    if (k == R - 2) gs_halo_reads_done(m->dist.halo, lo);
    m->b->event_record(m->dist.ev_lo, lo);
    m->dist.pending = 0;
  } else if (!m->dist.halo || !m->dist.overlap) {
    if (m->dist.pending) gs_halo_wait(m->dist.halo, lo);
    update_box(m, &sl, grown_box(m, 0), lo);
    inject(m, 0, m->src.cum[1], t, lo);
    if (m->dist.halo) {
      gs_halo_send(m->dist.halo, out, lo);
      gs_halo_finish(m->dist.halo, out, lo);
      m->dist.pending = 1;
    }
  } else {
    overlapped_step(m, &sl, t, out);
  }
  make_current(m, out);
  m->step++;
  m->graph.fresh = 0;
}

/* --------------------------------------------------------- CUDA graphs */

/* Joins the high-priority stream and the receivers' into s: s then follows
 * all queued work. */
static void join_streams(gs_fdtd_sim *m) {
  if (m->dist.hi && m->dist.hi != m->s) {
    m->b->event_record(m->graph.ev_join, m->dist.hi);
    m->b->stream_wait_event(m->s, m->graph.ev_join);
  }
  join_receivers(m);
}

/* After a capture or a replay the step events were last recorded inside the
 * capture; record them again (on s, which has joined everything). */
static void rerecord_events(gs_fdtd_sim *m) {
  if (!m->dist.halo) return;
  m->b->event_record(m->dist.ev_ring, m->s);
  m->b->event_record(m->dist.ev_lo, m->s);
  m->b->event_record(m->dist.ev_sent, m->s);
}

/* Whether a graph can start here: deep-halo phase 0 after an exchange (any
 * step on one rank). */
static int cycle_start(const gs_fdtd_sim *m) {
  if (!m->dist.halo) return 1;
  return m->dist.pending && (m->step - m->dist.k0) % m->dist.depth == 0;
}

/* Steps per graph: whole deep-halo cycles, an even number of steps (the
 * same buffers at each start), at least 16 (16 to 28 for depths 1 to 8). */
static int graph_length(int depth) {
  int base = depth % 2 ? 2 * depth : depth;
  return base * ((16 + base - 1) / base);
}

/* Captures graph.len steps from here (nothing runs; the host state is put
 * back afterwards). */
static void capture(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  m->graph.len = graph_length(m->dist.depth);
  if (!m->graph.clock) {
    m->graph.clock = b->dev_alloc(2 * sizeof(int64_t));
    m->graph.ev_fork = b->event_create(0);
    m->graph.ev_join = b->event_create(0);
    m->graph.clock_host[0] = m->graph.clock_host[1] = -1;
  }
  const int64_t step = m->step;
  const int cur = m->fields.cur, pending = m->dist.pending;
  const gs_fdtd_view v = m->fields.v;
  int64_t x0 = m->dist.halo ? gs_halo_exchanges(m->dist.halo) : 0;
  join_streams(m);
  b->graph_begin(m->s);
  m->graph.n0 = step;
  m->graph.capturing = 1;
  m->graph.fresh = 1;
  if (m->dist.halo) {
    gs_halo_capture(m->dist.halo, m->graph.clock + 1);
    if (m->dist.hi != m->s) { /* the fork, and the step events recorded inside the capture */
      b->event_record(m->graph.ev_fork, m->s);
      b->stream_wait_event(m->dist.hi, m->graph.ev_fork);
      b->event_record(m->dist.ev_ring, m->dist.hi);
      b->event_record(m->dist.ev_sent, m->dist.hi);
      b->event_record(m->dist.ev_lo, m->s);
    }
  }
  for (int k = 0; k < m->graph.len; ++k)
    gs_fdtd_sim_step(m);
  join_streams(m);
  m->graph.exch = m->dist.halo ? (int)(gs_halo_exchanges(m->dist.halo) - x0) : 0;
  b->fdtd_clock(m->graph.clock, m->graph.len, m->graph.exch, 1, m->s);
  m->graph.exec = b->graph_end(m->s);
  m->graph.capturing = 0;
  gs_log_debug("fdtd: CUDA graph captured at step %lld: %d steps and %d halo exchanges a replay", (long long)step,
               m->graph.len, m->graph.exch);
  if (m->dist.halo) gs_halo_capture(m->dist.halo, NULL);
  rerecord_events(m);
  m->step = step;
  m->fields.cur = cur;
  m->dist.pending = pending;
  m->fields.v = v;
}

/* Replays the graph: graph.len steps from here. */
static void replay(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  int64_t x = m->dist.halo ? gs_halo_exchanges(m->dist.halo) : 0;
  if (m->rx.n && m->step + m->graph.len - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m);
  join_streams(m);
  if (m->graph.clock_host[0] != m->step || m->graph.clock_host[1] != x)
    b->fdtd_clock(m->graph.clock, m->step, x, 0, m->s);
  b->graph_launch(m->graph.exec, m->s);
  rerecord_events(m);
  m->step += m->graph.len;
  if (m->dist.halo) gs_halo_advance(m->dist.halo, m->graph.exch);
  m->graph.clock_host[0] = m->step;
  m->graph.clock_host[1] = x + m->graph.exch;
}

/* The steps of the next launch of several (at most most, and end - step):
 * no more than the receivers' ring has room for, flushed first when full;
 * a sample queued by a single step read the buffers this launch writes. */
static int64_t next_launch(gs_fdtd_sim *m, int64_t end, int64_t most) {
  int64_t n = end - m->step < most ? end - m->step : most;
  if (m->rx.n && m->step + n - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m);
  if (m->rx.n && n > GS_RX_CHUNK - (m->step - m->rx.flushed)) n = GS_RX_CHUNK - (m->step - m->rx.flushed);
  join_receivers(m);
  return n;
}

/* What a launch of several steps from the current buffer set reads: the
 * owned nodes, and the sources of the ghost layers a deep-halo cycle
 * updates too (one rank: all). */
static gs_fdtd_run_args run_args(const gs_fdtd_sim *m) {
  const int cur = m->fields.cur;
  return (gs_fdtd_run_args){.set = {step_args(m, cur, 1 - cur), step_args(m, 1 - cur, cur)},
                            .src_off = m->src.off,
                            .src_val = m->src.val,
                            .src_stride = m->src.n,
                            .nsrc = m->src.cum[m->dist.depth],
                            .nrx = m->rx.n,
                            .rx_off = m->rx.off,
                            .rx_out = m->rx.buf,
                            .rx_slots = GS_RX_CHUNK,
                            .t0 = m->step,
                            .piece = m->pml.region,
                            .npiece = 5,
                            .own = grown_box(m, 0),
                            .rows = m->grid.rows};
}

/* One pass of n steps fused (on several ranks n = R, a deep-halo cycle:
 * the CPU twin's single steps then cover the owned nodes and n - 1 ghost
 * layers); the state is then in the other buffer set. */
static void fused_pass(gs_fdtd_sim *m, int64_t n) {
  gs_fdtd_run_args a = run_args(m);
  gs_fdtd_region pieces[5];
  a.piece = pieces;
  a.npiece = cpml_pieces(m, grown_box(m, (int)n - 1), pieces, 0);
  if (m->b->fdtd_fuse(&a, n, m->s) != 0) gs_fatal("fdtd_fuse", "the backend refused a fused pass", __FILE__, __LINE__);
  m->step += n;
  make_current(m, 1 - m->fields.cur);
}

/* count steps in passes of m->fuse steps fused (one rank). */
static void advance_fused(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  while (m->step < end)
    fused_pass(m, next_launch(m, end, m->fuse));
}

/* A deep-halo cycle of R steps as one fused pass, then the exchange into
 * the ghosts of the set it wrote (what the cycle's single steps leave
 * there; not overlapped: the pass is one launch). All on s: it first waits
 * for what the high-priority stream holds (single steps before). */
static void fused_cycle(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  const int R = m->dist.depth;
  gs_stream lo = m->s, hi = m->dist.hi;
  if (hi != lo) {
    b->event_record(m->dist.ev_sent, hi);
    b->stream_wait_event(lo, m->dist.ev_sent);
  }
  if (m->dist.pending) gs_halo_wait(m->dist.halo, lo);
  /* The work queued so far holds the last reads of the ghosts this cycle's
   * exchange overwrites (the other set's: the pass reads the current one). */
  gs_halo_reads_done(m->dist.halo, lo);
  const int64_t n = next_launch(m, m->step + R, R);
  if (n != R) gs_fatal("fused_cycle", "the receivers' ring has no room for a cycle", __FILE__, __LINE__);
  fused_pass(m, n);
  gs_halo_send(m->dist.halo, m->fields.cur, lo);
  gs_halo_finish(m->dist.halo, m->fields.cur, lo);
  m->dist.pending = 1;
  rerecord_events(m); /* single steps after it wait for the pass */
}

/* Several ranks: every whole deep-halo cycle as a fused pass, single steps
 * where count cuts one short. */
static void advance_cycles(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  const int R = m->dist.depth;
  if (m->step == m->dist.k0) gs_log_debug("fdtd: deep-halo cycles of %d steps as fused passes", R);
  while (m->step < end) {
    if ((m->step - m->dist.k0) % R == 0 && end - m->step >= R)
      fused_cycle(m);
    else
      gs_fdtd_sim_step(m);
  }
}

/* count steps with the grid on chip: launches of at most GS_RX_CHUNK steps
 * (the receivers' ring), flushed in between. */
static void advance_onchip(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  while (m->step < end) {
    const int64_t n = next_launch(m, end, end - m->step);
    const int cur = m->fields.cur;
    gs_fdtd_run_args a = run_args(m);
    a.barrier = (uint64_t *)m->onchip_barrier;
    a.barrier_bytes = m->onchip_scratch;
    a.barrier_base = m->onchip_arrivals;
    a.blocks = m->onchip_blocks;
    m->b->fdtd_run(&a, n, m->s);
    m->onchip_arrivals += (uint64_t)m->onchip_blocks * (uint64_t)(n - 1);
    m->step += n;
    if (n % 2) make_current(m, 1 - cur);
  }
}

void gs_fdtd_sim_advance(gs_fdtd_sim *m, int64_t count) {
  if (m->onchip && !m->dist.halo) {
    advance_onchip(m, count);
    return;
  }
  if (m->fuse && !m->dist.halo) {
    advance_fused(m, count);
    return;
  }
  if (m->fuse && m->dist.halo && m->dist.depth >= 2 && m->dist.depth <= m->fuse) {
    advance_cycles(m, count);
    return;
  }
  const int64_t end = m->step + count;
  const int len = graph_length(m->dist.depth);
  while (m->step < end) {
    int64_t left = end - m->step;
    if (m->graph.allowed && !m->graph.exec && cycle_start(m) && left >= len) {
      if (m->rx.n && m->step + len - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m); /* none due while capturing */
      capture(m);
    }
    if (m->graph.exec && left >= m->graph.len && (m->step - m->graph.n0) % m->graph.len == 0 && cycle_start(m))
      replay(m);
    else
      gs_fdtd_sim_step(m);
  }
}

/* Forgets the captured graph (the deep-halo cycle starts anew). */
static void drop_graph(gs_fdtd_sim *m) {
  if (m->graph.exec) {
    gs_log_debug("fdtd: CUDA graph dropped at step %lld (ghost layers refilled)", (long long)m->step);
    m->b->graph_free(m->graph.exec);
  }
  m->graph.exec = NULL;
}

void gs_fdtd_sim_sync(gs_fdtd_sim *m) {
  if (m->dist.hi && m->dist.hi != m->s) m->b->stream_sync(m->dist.hi);
  join_receivers(m);
  flush_receivers(m);
  m->b->stream_sync(m->s);
}

/* Peers of the halo: the ghost boxes of a rank with part p (global nodes it
 * lacks and reads) that the neighbour at (dx, dy) owns, in a fixed order.
 * Fields Ez, Hx, Hy are arrays 0..2; psi of scene side s, E or H, array
 * 3 + 2 s + eh (a: the index along the slab, b: across it). */
static int ghost_boxes(const gs_scene *sc, const gs_fdtd_part *p, int R, int dx, int dy, gs_halo_box_g *out) {
  /* layers of each field a rank reads beyond each side: x-, x+, y-, y+ */
  const int depth[3][4] = {{R, R, R, R}, {R - 1, R - 1, R, R - 1}, {R, R - 1, R - 1, R - 1}};
  int n = 0;
  if (dx && dy && R == 1) return 0; /* corners only matter for deep halos */
  for (int f = 0; f < 3; ++f) {
    int64_t a0 = dx < 0 ? p->i0 - depth[f][0] : dx > 0 ? p->i1 : p->i0;
    int64_t a1 = dx < 0 ? p->i0 : dx > 0 ? p->i1 + depth[f][1] : p->i1;
    int64_t b0 = dy < 0 ? p->j0 - depth[f][2] : dy > 0 ? p->j1 : p->j0;
    int64_t b1 = dy < 0 ? p->j0 : dy > 0 ? p->j1 + depth[f][3] : p->j1;
    if (a1 > a0 && b1 > b0) out[n++] = (gs_halo_box_g){f, a0, a1, b0, b1, 0, 0};
  }
  if (R > 1 && (dx == 0) != (dy == 0))
    for (int side = 0; side < 4; ++side) {
      int dir = side % 2, lower = side < 2, nn = sc->pml[side];
      if (!nn) continue;
      int along = dir == 0 ? dy : dx; /* psi is exchanged along the slab only */
      if (!along || (dir == 0 ? dx : dy)) continue;
      int64_t extent = dir == 0 ? sc->nx : sc->ny;
      int64_t slo = lower ? 0 : extent - nn, shi = lower ? nn + 1 : extent;
      int64_t alo = dir == 0 ? p->i0 : p->j0, ahi = dir == 0 ? p->i1 : p->j1;
      int64_t b0 = slo > alo ? slo : alo, b1 = shi < ahi ? shi : ahi;
      if (b1 <= b0) continue;
      int64_t olo = dir == 0 ? p->j0 : p->i0, ohi = dir == 0 ? p->j1 : p->i1;
      int64_t a0 = along < 0 ? olo - (R - 1) : ohi, a1 = along < 0 ? olo : ohi + R - 1;
      for (int eh = 0; eh < 2; ++eh)
        out[n++] = (gs_halo_box_g){3 + 2 * side + eh, a0, a1, b0, b1, 0, 0};
    }
  return n;
}

gs_status gs_fdtd_sim_connect(gs_fdtd_sim *m, MPI_Comm cart, gs_halo_transport t, int overlap, char *err,
                              size_t errlen) {
  int size, rank, dims[2], periods[2], coords[2];
  GS_MPI_CHECK(MPI_Comm_size(cart, &size));
  if (size == 1) return GS_OK;
  GS_MPI_CHECK(MPI_Comm_rank(cart, &rank));
  GS_MPI_CHECK(MPI_Cart_get(cart, 2, dims, periods, coords));
  const gs_backend *b = m->b;
  gs_halo_array arr[11];
  memset(arr, 0, sizeof arr);
  for (int f = 0; f < 3; ++f)
    arr[f] = (gs_halo_array){{m->fields.buf[0][f], m->fields.buf[1][f]},
                             m->grid.pitch,
                             m->grid.own.i0 - m->grid.g,
                             m->grid.own.j0 - m->grid.g,
                             0,
                             0};
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      arr[3 + 2 * m->pml.side[k] + eh] = (gs_halo_array){{m->pml.psi[k][0][eh], m->pml.psi[k][1][eh]},
                                                         m->pml.slab[k].o1 - m->pml.slab[k].o0,
                                                         m->pml.slab[k].o0,
                                                         m->pml.slab[k].lo,
                                                         0,
                                                         0};
  gs_fdtd_part mine = m->grid.own;
  gs_halo_peer peers[8];
  gs_halo_box_g boxes[8][2][16];
  int np = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int c[2] = {coords[0] + dx, coords[1] + dy};
      if ((!dx && !dy) || c[0] < 0 || c[0] >= dims[0] || c[1] < 0 || c[1] >= dims[1]) continue;
      if (dx && dy && m->dist.depth == 1) continue;
      int q;
      GS_MPI_CHECK(MPI_Cart_rank(cart, c, &q));
      gs_fdtd_part theirs = gs_fdtd_part_of(m->sc, dims, c);
      gs_halo_peer *pe = &peers[np];
      pe->rank = q;
      pe->send_tag = 300 + (dx + 1) + 3 * (dy + 1); /* direction from the sender */
      pe->recv_tag = 300 + (1 - dx) + 3 * (1 - dy);
      pe->nrecv = ghost_boxes(m->sc, &mine, m->dist.depth, dx, dy, boxes[np][1]);
      pe->nsend = ghost_boxes(m->sc, &theirs, m->dist.depth, -dx, -dy, boxes[np][0]);
      pe->send = boxes[np][0];
      pe->recv = boxes[np][1];
      ++np;
    }
  m->dist.halo = gs_halo_create(cart, b, arr, 11, peers, np, t, m->dist.depth > 1, err, errlen);
  if (!m->dist.halo) return GS_ERR_USAGE;
  if (m->graph.allowed && !gs_halo_graphable(m->dist.halo)) {
    char tr[64];
    gs_log_debug("fdtd: CUDA graphs off: the halo transport (%s) needs the host at every exchange",
                 gs_halo_summary(m->dist.halo, tr, sizeof tr));
  }
  m->graph.allowed = m->graph.allowed && gs_halo_graphable(m->dist.halo);
  m->dist.overlap = overlap;
  m->dist.hi = overlap ? b->stream_create(1) : m->s;
  m->dist.ev_ring = b->event_create(0);
  m->dist.ev_lo = b->event_create(0);
  m->dist.ev_sent = b->event_create(0);
  gs_fdtd_sim_refresh(m);
  return GS_OK;
}

void gs_fdtd_sim_refresh(gs_fdtd_sim *m) {
  drop_graph(m);
  if (!m->dist.halo) return;
  gs_fdtd_sim_sync(m);
  gs_halo_exchange(m->dist.halo, m->fields.cur, m->s);
  m->dist.k0 = m->step;
  m->dist.pending = 0;
}

/* Copies field f (0 Ez, 1 Hx, 2 Hy) rows [j0, j1) into host (pitch floats a row). */
void gs_fdtd_sim_read_rows(gs_fdtd_sim *m, int f, int64_t j0, int64_t j1, float *host) {
  if (m->dist.hi && m->dist.hi != m->s) m->b->stream_sync(m->dist.hi);
  float *src = f == 0 ? m->fields.v.ez : f == 1 ? m->fields.v.hx : m->fields.v.hy;
  m->b->copy_d2h(host, src + (size_t)(j0 - m->grid.own.j0 + m->grid.g) * (size_t)m->grid.pitch,
                 sizeof(float) * (size_t)m->grid.pitch * (size_t)(j1 - j0), m->s);
  m->b->stream_sync(m->s);
}

/* ------------------------------------------------------------- checksum */

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

/* Wrapping sum over every node (i, j) of mix64(global index, float bits):
 * independent of how the domain is split. */
void gs_fdtd_sim_checksum(gs_fdtd_sim *m, uint64_t sum[3]) {
  int64_t rows = (int64_t)((64u << 20) / ((size_t)m->grid.pitch * sizeof(float)));
  if (rows < 1) rows = 1;
  float *buf = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch * (size_t)rows);
  for (int f = 0; f < 3; ++f) {
    uint64_t s = 0;
    for (int64_t j0 = m->grid.own.j0; j0 < m->grid.own.j1; j0 += rows) {
      int64_t j1 = j0 + rows > m->grid.own.j1 ? m->grid.own.j1 : j0 + rows;
      gs_fdtd_sim_read_rows(m, f, j0, j1, buf);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = m->grid.own.i0; i < m->grid.own.i1; ++i) {
          uint32_t bits;
          memcpy(&bits, &buf[(size_t)(j - j0) * (size_t)m->grid.pitch + (size_t)(i - m->grid.own.i0 + m->grid.g)], 4);
          uint64_t gi = (uint64_t)j * (uint64_t)(m->sc->nx + 1) + (uint64_t)i;
          s += mix64(gi * 0x9E3779B97F4A7C15ull ^ ((uint64_t)bits << 1 | (uint64_t)f << 40));
        }
    }
    sum[f] = s;
  }
  free(buf);
}

/* ------------------------------------------------------------ parts, runs */

int gs_fdtd_decomp(const char *spec, int size, int64_t nx, int64_t ny, int dims[2]) {
  if (spec) {
    int64_t px, py;
    if (gs_parse_size2(spec, &px, &py) != 0 || px * py != size) return -1;
    dims[0] = (int)px;
    dims[1] = (int)py;
    if (gs_error_rank() == 0) gs_log_debug("fdtd: decomposition %dx%d (--decomp)", dims[0], dims[1]);
    return 0;
  }
  /* Halo cost per rank: a split along x gives column halos (strided, and
   * narrower rows for the update kernel), a split along y row halos
   * (contiguous). Measured on 2 H200s (docs/performance.md): 1x2 reached
   * 98.4% at 16384^2 where 2x1 reached 87%; columns weigh 8 rows here.
   * Parts thinner than GS_FDTD_MIN_PART nodes are avoided where possible. */
  double best = -1;
  int bx = 1, by = size, thin = 0;
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (int px = 1; px <= size; ++px) {
      if (size % px) continue;
      int py = size / px;
      if (pass == 0 && ((px > 1 && (nx + 1) / px < GS_FDTD_MIN_PART) || (py > 1 && (ny + 1) / py < GS_FDTD_MIN_PART)))
        continue;
      double cost = (px > 1 ? 8.0 * (double)(ny + 1) / py : 0) + (py > 1 ? (double)(nx + 1) / px : 0);
      if (best < 0 || cost < best) {
        best = cost;
        bx = px;
        by = py;
        thin = pass;
      }
    }
  dims[0] = bx;
  dims[1] = by;
  if (gs_error_rank() == 0)
    gs_log_debug("fdtd: decomposition %dx%d of %d rank(s): the least halo cost (%g), parts %s %d nodes", bx, by, size,
                 best, thin ? "thinner than" : "at least", GS_FDTD_MIN_PART);
  return 0;
}

/* floor(k * n / parts) without forming k * n, which overflows for the
 * largest grids: with n = q * parts + r it is k * q + floor(k * r / parts). */
static int64_t share_start(int64_t k, int64_t n, int64_t parts) {
  return k * (n / parts) + k * (n % parts) / parts;
}

gs_fdtd_part gs_fdtd_part_of(const gs_scene *sc, const int dims[2], const int coords[2]) {
  gs_fdtd_part p = {share_start(coords[0], sc->nx + 1, dims[0]), share_start(coords[0] + 1, sc->nx + 1, dims[0]),
                    share_start(coords[1], sc->ny + 1, dims[1]), share_start(coords[1] + 1, sc->ny + 1, dims[1])};
  return p;
}

int gs_fdtd_auto_depth(const gs_backend *b, double part_nodes) {
  /* Deep halos trade a little redundant work for fewer exchanges and their
   * latency. On 2 H200s (docs/performance.md, 1x2 split, ipc) R = 4 was the
   * best of 1, 2, 4, 8 for parts of 8192 x 4096 and 16384 x 8192 nodes, and
   * R = 8 for 2000 x 500 (the only way to 80% there). On the CPU backend
   * there is no latency to hide. */
  if (!b->is_gpu) return 1;
  return part_nodes <= GS_FDTD_SMALL_PART ? 8 : GS_FDTD_AUTO_DEPTH;
}

/* The halo depth every rank of comm uses: want, or (want 0) the automatic
 * choice that fits every rank's part. Collective. */
int gs_fdtd_agree_depth(const gs_scene *sc, const gs_backend *b, const gs_fdtd_part *part, int want, MPI_Comm comm) {
  int size;
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (size == 1) return 1;
  int d = want, auto_want = 0;
  if (!d) {
    double nodes = (double)(part->i1 - part->i0) * (double)(part->j1 - part->j0);
    auto_want = gs_fdtd_auto_depth(b, nodes);
    const int T = fuse_wanted(sc, b);
    if (T >= 2) auto_want = T; /* each deep-halo cycle then one fused pass */
    d = gs_fdtd_depth_fit(sc, part, auto_want);
  }
  int all;
  GS_MPI_CHECK(MPI_Allreduce(&d, &all, 1, MPI_INT, MPI_MIN, comm));
  if (want)
    gs_log_debug("fdtd: halo depth %d (--halo-depth)", want);
  else
    gs_log_debug(
        "fdtd: halo depth %d (auto: %d for this rank's %lldx%lld nodes, %d fits its part; the least of all ranks)", all,
        auto_want, (long long)(part->i1 - part->i0), (long long)(part->j1 - part->j0), d);
  return want ? want : all;
}

gs_status gs_fdtd_sim_open(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                           const gs_fdtd_spread *sp, MPI_Comm *cart, char *err, size_t errlen) {
  int rank, periods[2] = {0, 0}, coords[2];
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GS_MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, cart));
  GS_MPI_CHECK(MPI_Cart_coords(*cart, rank, 2, coords));
  gs_fdtd_part part = gs_fdtd_part_of(sc, dims, coords);
  int depth = gs_fdtd_agree_depth(sc, b, &part, sp->depth, *cart);
  err[0] = '\0';
  gs_status st = gs_fdtd_sim_init_part(m, sc, b, 0, &part, depth, err, errlen);
  if (gs_comm_agree(st != GS_OK, *cart)) {
    if (st == GS_OK) gs_fdtd_sim_free(m);
  } else if (gs_fdtd_sim_connect(m, *cart, sp->transport, sp->overlap, err, errlen) != GS_OK) {
    gs_fdtd_sim_free(m);
    st = GS_ERR_USAGE;
  } else {
    if (m->graph.allowed && !sp->graphs) gs_log_debug("fdtd: CUDA graphs off: --no-graphs");
    m->graph.allowed = m->graph.allowed && sp->graphs;
    return GS_OK;
  }
  MPI_Comm_free(cart);
  return st != GS_OK ? st : GS_ERR_USAGE;
}

gs_status gs_fdtd_timed_run(const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                            const gs_fdtd_spread *sp, int64_t warmup, int64_t steps, gs_fdtd_timing *t, char *used,
                            size_t usedlen, int *depth_used, char *err, size_t errlen) {
  MPI_Comm cart;
  gs_fdtd_sim m;
  gs_status st = gs_fdtd_sim_open(&m, sc, b, comm, dims, sp, &cart, err, errlen);
  if (st != GS_OK) return st;
  if (used) {
    if (m.dist.halo)
      gs_halo_summary(m.dist.halo, used, usedlen);
    else
      snprintf(used, usedlen, "none");
  }
  if (depth_used) *depth_used = m.dist.depth;
  gs_fdtd_sim_advance(&m, warmup);
  gs_fdtd_sim_sync(&m);
  int graphed = m.graph.exec != NULL, all_graphed;
  GS_MPI_CHECK(MPI_Allreduce(&graphed, &all_graphed, 1, MPI_INT, MPI_MIN, cart));
  t->graphs = all_graphed;
  int64_t x0 = m.dist.halo ? gs_halo_exchanges(m.dist.halo) : 0;
  GS_MPI_CHECK(MPI_Barrier(cart));
  double t0 = MPI_Wtime();
  gs_fdtd_sim_advance(&m, steps);
  gs_fdtd_sim_sync(&m);
  double local[2] = {MPI_Wtime() - t0, 0};
  if (m.dist.halo) local[1] = gs_halo_bytes_per_exchange(m.dist.halo) * (double)(gs_halo_exchanges(m.dist.halo) - x0);
  double maxv[2];
  GS_MPI_CHECK(MPI_Allreduce(local, maxv, 2, MPI_DOUBLE, MPI_MAX, cart));
  t->seconds = maxv[0];
  t->halo_bytes = maxv[1];
  gs_fdtd_sim_free(&m);
  MPI_Comm_free(&cart);
  return GS_OK;
}

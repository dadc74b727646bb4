/* gpustencil fdtd: 2D FDTD (Yee, TMz) simulation of a gprMax-style scene on
 * one rank or split over many: materials, CFS-CPML, Hertzian dipole sources,
 * receivers, PNG snapshots, B-scans, checkpoints (restartable on any split),
 * a split-independent checksum; the distributed step with deep halos and the
 * boundary ring overlapped with the interior (the exchange itself: mpi/halo.c).
 * Equations, units and layout: docs/fdtd.md. */
#include "fdtd.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "commands.h"
#include "fsutil.h"
#include "halo.h"
#include "log.h"
#include "png_io.h"
#include "progress.h"

#define GS_EPS0 8.8541878128e-12
#define GS_MU0 1.25663706212e-6
#define GS_Z0 376.730313668
#define GS_RX_CHUNK 256
/* --halo-depth auto: this depth for parts of at most this many nodes (GPU). */
#define GS_FDTD_AUTO_DEPTH 4
#define GS_FDTD_SMALL_PART (4.0 * 1024 * 1024) /* nodes: R = 8 at or below */
/* The automatic decomposition avoids parts thinner than this (CPML + halo). */
#define GS_FDTD_MIN_PART 32

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t field_index(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return (size_t)((j - m->oj0 + m->g) * m->pitch + (i - m->oi0 + m->g));
}

static int owns(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return i >= m->oi0 && i < m->oi1 && j >= m->oj0 && j < m->oj1;
}

static gs_fdtd_region meet(gs_fdtd_region a, gs_fdtd_region b) {
  gs_fdtd_region r = {a.i0 > b.i0 ? a.i0 : b.i0, a.i1 < b.i1 ? a.i1 : b.i1, a.j0 > b.j0 ? a.j0 : b.j0,
                      a.j1 < b.j1 ? a.j1 : b.j1};
  if (r.i1 < r.i0) r.i1 = r.i0;
  if (r.j1 < r.j0) r.j1 = r.j0;
  return r;
}

static int empty(gs_fdtd_region r) { return r.i1 <= r.i0 || r.j1 <= r.j0; }

/* The owned nodes, grown by e layers on the sides with a neighbour. */
static gs_fdtd_region grown_box(const gs_fdtd_sim *m, int e) {
  gs_fdtd_region r = {m->oi0 - e * m->nb[0], m->oi1 + e * m->nb[1], m->oj0 - e * m->nb[2], m->oj1 + e * m->nb[3]};
  return r;
}

/* The owned nodes less the ring of depth layers along the sides with a
 * neighbour: nodes that neither read ghosts nor are sent (may be empty). */
static gs_fdtd_region interior_box(const gs_fdtd_sim *m) {
  gs_fdtd_region r = grown_box(m, -m->depth);
  return meet(r, grown_box(m, 0));
}

/* --------------------------------------------------------------- set-up */

static double profile(const gs_cfs_param *p, double depth, double max) {
  double d = p->reverse ? 1 - depth : depth;
  return p->min + (max - p->min) * pow(d, p->order);
}

/* CPML profiles of one slab: depth of index k's E node and H half node. */
static void pml_profiles(const gs_scene *sc, double d, double er, int64_t n, int lower, int64_t nodes, float *out) {
  double sigma_max = sc->cfs_sigma.max >= 0 ? sc->cfs_sigma.max
                                            : 0.8 * (sc->cfs_sigma.order + 1) / (GS_Z0 * d * sqrt(er));
  for (int half = 0; half < 2; ++half)
    for (int64_t k = 0; k < nodes; ++k) {
      /* lower slab: node k at depth (n - k) / n; upper: k / n (k from the inner face) */
      double depth = lower ? ((double)n - (double)k - 0.5 * half) / (double)n : ((double)k + 0.5 * half) / (double)n;
      if (depth < 0) depth = 0;
      if (depth > 1) depth = 1;
      double sigma = profile(&sc->cfs_sigma, depth, sigma_max);
      double kappa = profile(&sc->cfs_kappa, depth, sc->cfs_kappa.max);
      double alpha = profile(&sc->cfs_alpha, depth, sc->cfs_alpha.max);
      if (depth == 0 && sc->cfs_sigma.min == 0) sigma = 0;
      double b = exp(-(sigma / kappa + alpha) * sc->dt / GS_EPS0);
      double a = (sigma == 0 && alpha == 0) ? 0 : sigma / (sigma * kappa + kappa * kappa * alpha) * (b - 1);
      float *base = out + (size_t)half * 3 * (size_t)nodes;
      base[k] = (float)b;
      base[nodes + k] = (float)a;
      base[2 * nodes + k] = (float)(1 / kappa - 1);
    }
}

static double slab_permittivity(const gs_scene *sc, int dir, int64_t lo, int64_t hi) {
  double sum = 0;
  int64_t n = 0;
  int64_t o1 = dir == 0 ? sc->ny : sc->nx;
  for (int64_t a = lo; a < hi; ++a)
    for (int64_t o = 1; o < o1; o += (o1 > 64 ? o1 / 64 : 1)) {
      int m = dir == 0 ? gs_scene_material_at(sc, a, o) : gs_scene_material_at(sc, o, a);
      if (sc->materials[m].pec) continue;
      sum += sc->materials[m].er;
      ++n;
    }
  return n ? sum / (double)n : 1.0;
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
    snprintf(buf, n, "a rank would own %lld x %lld nodes; at least %lld x %lld are needed%s", (long long)(p->i1 - p->i0),
             (long long)(p->j1 - p->j0), (long long)need, (long long)need, depth > 2 ? " for this --halo-depth" : "");
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
  for (int d = want; d > 1; --d)
    if (!part_problem(sc, part, d, buf, sizeof buf)) return d;
  return 1;
}

gs_status gs_fdtd_sim_init_part(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                const gs_fdtd_part *part, int depth, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->b = b;
  m->sc = sc;
  m->run = run;
  m->nx = sc->nx;
  m->ny = sc->ny;
  if (depth < 1 || depth > GS_FDTD_MAX_DEPTH) gs_fatal("gs_fdtd_sim_init_part", "bad depth", __FILE__, __LINE__);
  m->depth = depth;
  m->g = depth;
  gs_fdtd_part whole = {0, sc->nx + 1, 0, sc->ny + 1};
  if (!part) part = &whole;
  m->oi0 = part->i0;
  m->oi1 = part->i1;
  m->oj0 = part->j0;
  m->oj1 = part->j1;
  m->nb[0] = m->oi0 > 0;
  m->nb[1] = m->oi1 < sc->nx + 1;
  m->nb[2] = m->oj0 > 0;
  m->nb[3] = m->oj1 < sc->ny + 1;
  if (part_problem(sc, part, depth, err, errlen)) return GS_ERR_USAGE;
  m->pitch = (m->oi1 - m->oi0 + 2 * m->g + 31) / 32 * 32;
  m->rows = m->oj1 - m->oj0 + 2 * m->g;
  m->nelem = (size_t)m->pitch * (size_t)m->rows;
  m->s = b->stream_create(0);

  float *zero = gs_xcalloc(m->nelem, sizeof(float));
  for (int buf = 0; buf < 2; ++buf)
    for (int k = 0; k < 3; ++k) {
      m->field[buf][k] = b->dev_alloc(m->nelem * sizeof(float));
      b->copy_h2d(m->field[buf][k], zero, m->nelem * sizeof(float), m->s);
    }
  m->cur = 0;
  m->v.ez = m->field[0][0];
  m->v.hx = m->field[0][1];
  m->v.hy = m->field[0][2];
  uint8_t *mat = gs_xcalloc(m->nelem, 1);
  for (int64_t j = m->oj0 - m->g; j < m->oj1 + m->g; ++j)
    for (int64_t i = m->oi0 - m->g; i < m->oi1 + m->g; ++i)
      if (i >= 0 && i <= sc->nx && j >= 0 && j <= sc->ny)
        mat[field_index(m, i, j)] = (uint8_t)gs_scene_material_at(sc, i, j);
  m->mat_host = mat;
  uint8_t *mat_dev = b->dev_alloc(m->nelem);
  b->copy_h2d(mat_dev, mat, m->nelem, m->s);
  m->v.mat = mat_dev;
  m->v.pitch = m->pitch;
  m->v.g = m->g;

  for (int k = 0; k < sc->nmaterials; ++k) {
    const gs_material *mt = &sc->materials[k];
    if (mt->pec) continue; /* all zero: Ez stays 0 */
    double ea = GS_EPS0 * mt->er / sc->dt + 0.5 * mt->sigma, eb = GS_EPS0 * mt->er / sc->dt - 0.5 * mt->sigma;
    m->coef_host[k] = (gs_fdtd_coef){(float)(eb / ea), (float)(1 / (sc->dx * ea)), (float)(1 / (sc->dy * ea)),
                                     (float)(1 / ea)};
  }
  m->coef = b->dev_alloc(sizeof m->coef_host);
  b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
  m->chx = (float)(sc->dt / (GS_MU0 * sc->dx));
  m->chy = (float)(sc->dt / (GS_MU0 * sc->dy));

  /* CPML slabs: x- x+ (dir 0), y- y+ (dir 1). */
  for (int side = 0; side < 4; ++side) {
    int n = sc->pml[side];
    if (n == 0) continue;
    int dir = side % 2, lower = side < 2;
    int64_t extent = dir == 0 ? m->nx : m->ny;
    gs_fdtd_slab p = {.dir = dir};
    p.lo = lower ? 0 : extent - n;
    p.hi = lower ? n + 1 : extent;
    p.o0 = 0;
    p.o1 = (dir == 0 ? m->ny : m->nx) + 1;
    int64_t gnodes = p.hi - p.lo;
    float *gprof = gs_xmalloc(6 * (size_t)gnodes * sizeof(float));
    double er = slab_permittivity(sc, dir, p.lo, p.hi);
    pml_profiles(sc, dir == 0 ? sc->dx : sc->dy, er, n, lower, gnodes, gprof);
    /* This rank's part of the slab. */
    int64_t alo = dir == 0 ? m->oi0 : m->oj0, ahi = dir == 0 ? m->oi1 : m->oj1;
    int64_t olo = dir == 0 ? m->oj0 : m->oi0, ohi = dir == 0 ? m->oj1 : m->oi1;
    int64_t lo = p.lo > alo ? p.lo : alo, hi = p.hi < ahi ? p.hi : ahi;
    if (hi <= lo) {
      free(gprof);
      continue;
    }
    int64_t nodes = hi - lo;
    float *prof = gs_xmalloc(6 * (size_t)nodes * sizeof(float));
    for (int c = 0; c < 6; ++c)
      memcpy(prof + (size_t)c * (size_t)nodes, gprof + (size_t)c * (size_t)gnodes + (size_t)(lo - p.lo),
             (size_t)nodes * sizeof(float));
    free(gprof);
    p.lo = lo;
    p.hi = hi;
    /* Along the slab: this rank's nodes and the depth - 1 layers a deep
     * halo computes beyond them. */
    olo -= depth - 1;
    ohi += depth - 1;
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
    for (int buf = 0; buf < 2; ++buf)
      for (int eh = 0; eh < 2; ++eh) {
        m->psi[m->npml][buf][eh] = b->dev_alloc(psi_n * sizeof(float));
        b->copy_h2d(m->psi[m->npml][buf][eh], z, psi_n * sizeof(float), m->s);
      }
    b->stream_sync(m->s);
    free(z);
    free(prof);
    m->pml_prof[m->npml] = dprof;
    m->pml_side[m->npml] = side;
    m->pml_cells[m->npml] = psi_n;
    m->pml[m->npml++] = p;
  }

  /* Regions: an inner box whose nodes (and the neighbours they recompute)
   * lie in no slab, and the strips around it, which carry the slabs. */
  {
    int64_t X = m->nx + 1, Y = m->ny + 1;
    int64_t x0 = sc->pml[0] ? sc->pml[0] + 2 : 0, y0 = sc->pml[1] ? sc->pml[1] + 2 : 0;
    int64_t x1 = X - (sc->pml[2] ? sc->pml[2] + 1 : 0), y1 = Y - (sc->pml[3] ? sc->pml[3] + 1 : 0);
    if (x0 > X) x0 = X;
    if (y0 > Y) y0 = Y;
    if (x1 < x0) x1 = x0;
    if (y1 < y0) y1 = y0;
    gs_fdtd_region all[5] = {{x0, x1, y0, y1}, {0, X, 0, y0}, {0, X, y1, Y}, {0, x0, y0, y1}, {x1, X, y0, y1}};
    memcpy(m->region, all, sizeof all);
  }

  /* Sources: the ones this rank owns, and with a deep halo the ones in the
   * ghost layers it computes too; all values precomputed (gprMax: evaluated
   * half a step late). Ordered by class (see gs_fdtd_sim.src_cum). */
  {
    gs_fdtd_region inner = interior_box(m);
    int cls_count[GS_FDTD_MAX_DEPTH + 2] = {0};
    int *cls = gs_xmalloc(sizeof *cls * ((size_t)sc->nsources + 1));
    for (int k = 0; k < sc->nsources; ++k) {
      int64_t i = sc->sources[k].i + (int64_t)run * sc->src_di, j = sc->sources[k].j + (int64_t)run * sc->src_dj;
      int64_t dx = i < m->oi0 ? m->oi0 - i : i >= m->oi1 ? i - m->oi1 + 1 : 0;
      int64_t dy = j < m->oj0 ? m->oj0 - j : j >= m->oj1 ? j - m->oj1 + 1 : 0;
      int64_t d = dx > dy ? dx : dy;
      if (d == 0)
        cls[k] = i >= inner.i0 && i < inner.i1 && j >= inner.j0 && j < inner.j1 ? 0 : 1;
      else
        cls[k] = d <= depth - 1 ? (int)d + 1 : -1;
      if (cls[k] >= 0) cls_count[cls[k]]++;
    }
    for (int c = 0, sum = 0; c < GS_FDTD_MAX_DEPTH + 2; ++c) m->src_cum[c] = sum += cls_count[c];
    m->nsrc = m->src_cum[GS_FDTD_MAX_DEPTH + 1];
    if (m->nsrc) {
      int64_t *off = gs_xmalloc(sizeof *off * (size_t)m->nsrc);
      float *val = gs_xcalloc((size_t)sc->iterations * (size_t)m->nsrc, sizeof(float));
      int k = 0;
      for (int c = 0; c < GS_FDTD_MAX_DEPTH + 2; ++c)
        for (int q = 0; q < sc->nsources; ++q) {
          if (cls[q] != c) continue;
          const gs_source *src = &sc->sources[q];
          int64_t i = src->i + (int64_t)run * sc->src_di, j = src->j + (int64_t)run * sc->src_dj;
          off[k] = (int64_t)field_index(m, i, j);
          double srce = m->coef_host[mat[off[k]]].src, scale = srce / (sc->dx * sc->dy);
          for (int64_t n = 0; n < sc->iterations; ++n) {
            double t = (double)n * sc->dt;
            if (t < src->start || t > src->stop) continue;
            val[(size_t)n * (size_t)m->nsrc + (size_t)k] =
                (float)(scale * gs_waveform_value(&sc->waveforms[src->waveform], t - src->start + 0.5 * sc->dt));
          }
          ++k;
        }
      m->src_off = b->dev_alloc(sizeof *off * (size_t)m->nsrc);
      m->src_val = b->dev_alloc(sizeof *val * (size_t)sc->iterations * (size_t)m->nsrc);
      b->copy_h2d(m->src_off, off, sizeof *off * (size_t)m->nsrc, m->s);
      b->copy_h2d(m->src_val, val, sizeof *val * (size_t)sc->iterations * (size_t)m->nsrc, m->s);
      b->stream_sync(m->s);
      free(off);
      free(val);
    }
    free(cls);
  }
  m->nrx = 0;
  m->rx_global = gs_xcalloc((size_t)sc->nrx + 1, sizeof *m->rx_global);
  for (int k = 0; k < sc->nrx; ++k)
    if (owns(m, sc->rxs[k].i + (int64_t)run * sc->rx_di, sc->rxs[k].j + (int64_t)run * sc->rx_dj)) m->rx_global[m->nrx++] = k;
  if (m->nrx) {
    int64_t *off = gs_xmalloc(sizeof *off * (size_t)m->nrx);
    for (int k = 0; k < m->nrx; ++k) {
      const gs_rx *rx = &sc->rxs[m->rx_global[k]];
      off[k] = (int64_t)field_index(m, rx->i + (int64_t)run * sc->rx_di, rx->j + (int64_t)run * sc->rx_dj);
    }
    m->rx_off = b->dev_alloc(sizeof *off * (size_t)m->nrx);
    b->copy_h2d(m->rx_off, off, sizeof *off * (size_t)m->nrx, m->s);
    m->rx_buf = b->dev_alloc(sizeof(float) * 3 * (size_t)m->nrx * GS_RX_CHUNK);
    m->rx_hist = gs_xcalloc((size_t)sc->iterations * 3 * (size_t)m->nrx, sizeof(float));
    b->stream_sync(m->s);
    free(off);
  }
  b->stream_sync(m->s);
  free(zero);
  return GS_OK;
}

void gs_fdtd_sim_free(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  if (m->halo) { /* collective: neighbours may hold this rank's arrays open */
    gs_fdtd_sim_sync(m);
    gs_halo_destroy(m->halo);
    m->halo = NULL;
  }
  for (int buf = 0; buf < 2; ++buf)
    for (int k = 0; k < 3; ++k) b->dev_free(m->field[buf][k]);
  b->dev_free((void *)m->v.mat);
  b->dev_free(m->coef);
  for (int k = 0; k < m->npml; ++k) {
    b->dev_free(m->pml_prof[k]);
    for (int buf = 0; buf < 2; ++buf)
      for (int eh = 0; eh < 2; ++eh) b->dev_free(m->psi[k][buf][eh]);
  }
  if (m->nsrc) {
    b->dev_free(m->src_off);
    b->dev_free(m->src_val);
  }
  if (m->nrx) {
    b->dev_free(m->rx_off);
    b->dev_free(m->rx_buf);
    free(m->rx_hist);
  }
  free(m->mat_host);
  free(m->rx_global);
  if (m->hi && m->hi != m->s) b->stream_destroy(m->hi);
  if (m->ev_ring) b->event_destroy(m->ev_ring);
  if (m->ev_lo) b->event_destroy(m->ev_lo);
  b->stream_destroy(m->s);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ time step */

static void flush_receivers(gs_fdtd_sim *m) {
  int64_t first = m->rx_flushed, count = m->step - first;
  if (!m->nrx || count <= 0) return;
  size_t per = 3 * (size_t)m->nrx;
  m->b->copy_d2h(m->rx_hist + (size_t)first * per, m->rx_buf, sizeof(float) * per * (size_t)count, m->s);
  m->b->stream_sync(m->s);
  m->rx_flushed = m->step;
}

/* Queues the update of the nodes in boxes[0..n) (global, disjoint) on
 * stream st: their parts in region 0 with the plain update, the rest with
 * the CPML slabs; one launch each (kernels/fdtd.cu). */
static void update_boxes(gs_fdtd_sim *m, const gs_fdtd_step_args *plain, const gs_fdtd_step_args *slab,
                         const gs_fdtd_region *boxes, int n, gs_stream st) {
  gs_fdtd_region inner[4], strips[16];
  int ni = 0, ns = 0;
  for (int b = 0; b < n; ++b)
    for (int k = 0; k < 5; ++k) {
      gs_fdtd_region r = meet(m->region[k], boxes[b]);
      if (empty(r)) continue;
      if (k == 0)
        inner[ni++] = r;
      else
        strips[ns++] = r;
    }
  if (ni) m->b->fdtd_step(plain, inner, ni, st);
  if (ns) m->b->fdtd_step(slab, strips, ns, st);
}

static void update_box(gs_fdtd_sim *m, const gs_fdtd_step_args *plain, const gs_fdtd_step_args *slab,
                       gs_fdtd_region box, gs_stream st) {
  update_boxes(m, plain, slab, &box, 1, st);
}

/* Sources [from, to) of the class order, at step n, into the new Ez. */
static void inject(gs_fdtd_sim *m, int from, int to, int64_t n, gs_stream st) {
  if (to > from)
    m->b->fdtd_inject(m->field[1 - m->cur][0], m->src_off + from, m->src_val + (size_t)n * (size_t)m->nsrc + from,
                      to - from, st);
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
  const gs_backend *b = m->b;
  const int64_t n = m->step;
  const int in = m->cur, out = 1 - m->cur;
  gs_fdtd_step_args a = {.ez = m->field[in][0], .hx = m->field[in][1], .hy = m->field[in][2], .mat = m->v.mat,
                         .ez_out = m->field[out][0], .hx_out = m->field[out][1], .hy_out = m->field[out][2],
                         .pitch = m->pitch, .g = m->g, .oi = m->oi0, .oj = m->oj0, .nx = m->nx,
                         .ny = m->ny, .chx = m->chx, .chy = m->chy, .coef = m->coef, .nslab = 0};
  gs_fdtd_step_args sl = a;
  sl.nslab = m->npml;
  for (int k = 0; k < m->npml; ++k) {
    sl.slab[k] = m->pml[k];
    sl.slab[k].psi_e_in = m->psi[k][in][0];
    sl.slab[k].psi_h_in = m->psi[k][in][1];
    sl.slab[k].psi_e_out = m->psi[k][out][0];
    sl.slab[k].psi_h_out = m->psi[k][out][1];
  }
  const int R = m->depth;
  const int64_t k = m->halo ? (n - m->k0) % R : R - 1;
  const int exchanging = k == R - 1;
  gs_stream lo = m->s, hi = m->hi;
  if (m->halo) {
    b->stream_wait_event(lo, m->ev_ring); /* the previous step's ring */
    if (m->pending && !exchanging) gs_halo_wait(m->halo, lo);
  }
  if (m->nrx) {
    if (n - m->rx_flushed == GS_RX_CHUNK) flush_receivers(m);
    b->fdtd_sample(m->v, m->rx_off, m->nrx, m->rx_buf + (size_t)(n - m->rx_flushed) * 3 * (size_t)m->nrx, lo);
  }
  if (!exchanging) {
    int e = (int)(R - 1 - k);
    update_box(m, &a, &sl, grown_box(m, e), lo);
    inject(m, 0, m->src_cum[1 + e], n, lo);
    if (k == R - 2) gs_halo_reads_done(m->halo, lo);
    b->event_record(m->ev_lo, lo);
    m->pending = 0;
  } else if (!m->halo || !m->overlap) {
    if (m->pending) gs_halo_wait(m->halo, lo);
    update_box(m, &a, &sl, grown_box(m, 0), lo);
    inject(m, 0, m->src_cum[1], n, lo);
    if (m->halo) {
      gs_halo_send(m->halo, out, lo);
      gs_halo_finish(m->halo, out, lo);
      m->pending = 1;
    }
  } else {
    gs_fdtd_region own = grown_box(m, 0), core = interior_box(m);
    if (empty(core)) core = (gs_fdtd_region){own.i0, own.i0, own.j0, own.j0};
    gs_fdtd_region ring[4] = {{own.i0, own.i1, own.j0, core.j0},
                              {own.i0, own.i1, core.j1, own.j1},
                              {own.i0, core.i0, core.j0, core.j1},
                              {core.i1, own.i1, core.j0, core.j1}};
    b->stream_wait_event(hi, m->ev_lo); /* the previous step's interior */
    if (m->pending) gs_halo_wait(m->halo, hi);
    gs_fdtd_region pieces[4];
    int np = 0;
    for (int r = 0; r < 4; ++r)
      if (!empty(ring[r])) pieces[np++] = ring[r];
    update_boxes(m, &a, &sl, pieces, np, hi);
    inject(m, m->src_cum[0], m->src_cum[1], n, hi);
    b->event_record(m->ev_ring, hi);
    gs_halo_send(m->halo, out, hi);
    if (!empty(core)) update_box(m, &a, &sl, core, lo);
    inject(m, 0, m->src_cum[0], n, lo);
    b->event_record(m->ev_lo, lo);
    gs_halo_finish(m->halo, out, hi);
    m->pending = 1;
  }
  m->cur = out;
  m->v.ez = m->field[out][0];
  m->v.hx = m->field[out][1];
  m->v.hy = m->field[out][2];
  m->step++;
}

void gs_fdtd_sim_sync(gs_fdtd_sim *m) {
  if (m->hi && m->hi != m->s) m->b->stream_sync(m->hi);
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
    if (a1 > a0 && b1 > b0) out[n++] = (gs_halo_box_g){f, a0, a1, b0, b1};
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
      for (int eh = 0; eh < 2; ++eh) out[n++] = (gs_halo_box_g){3 + 2 * side + eh, a0, a1, b0, b1};
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
    arr[f] = (gs_halo_array){{m->field[0][f], m->field[1][f]}, m->pitch, m->oi0 - m->g, m->oj0 - m->g};
  for (int k = 0; k < m->npml; ++k)
    for (int eh = 0; eh < 2; ++eh)
      arr[3 + 2 * m->pml_side[k] + eh] =
          (gs_halo_array){{m->psi[k][0][eh], m->psi[k][1][eh]}, m->pml[k].o1 - m->pml[k].o0, m->pml[k].o0, m->pml[k].lo};
  gs_fdtd_part mine = {m->oi0, m->oi1, m->oj0, m->oj1};
  gs_halo_peer peers[8];
  gs_halo_box_g boxes[8][2][16];
  int np = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int c[2] = {coords[0] + dx, coords[1] + dy};
      if ((!dx && !dy) || c[0] < 0 || c[0] >= dims[0] || c[1] < 0 || c[1] >= dims[1]) continue;
      if (dx && dy && m->depth == 1) continue;
      int q;
      GS_MPI_CHECK(MPI_Cart_rank(cart, c, &q));
      gs_fdtd_part theirs = gs_fdtd_part_of(m->sc, dims, c);
      gs_halo_peer *pe = &peers[np];
      pe->rank = q;
      pe->send_tag = 300 + (dx + 1) + 3 * (dy + 1); /* direction from the sender */
      pe->recv_tag = 300 + (1 - dx) + 3 * (1 - dy);
      pe->nrecv = ghost_boxes(m->sc, &mine, m->depth, dx, dy, boxes[np][1]);
      pe->nsend = ghost_boxes(m->sc, &theirs, m->depth, -dx, -dy, boxes[np][0]);
      pe->send = boxes[np][0];
      pe->recv = boxes[np][1];
      ++np;
    }
  m->halo = gs_halo_create(cart, b, arr, 11, peers, np, t, m->depth > 1, err, errlen);
  if (!m->halo) return GS_ERR_USAGE;
  m->overlap = overlap;
  m->hi = overlap ? b->stream_create(1) : m->s;
  m->ev_ring = b->event_create(0);
  m->ev_lo = b->event_create(0);
  gs_fdtd_sim_refresh(m);
  return GS_OK;
}

void gs_fdtd_sim_refresh(gs_fdtd_sim *m) {
  if (!m->halo) return;
  gs_fdtd_sim_sync(m);
  gs_halo_exchange(m->halo, m->cur, m->s);
  m->k0 = m->step;
  m->pending = 0;
}

/* Copies field f (0 Ez, 1 Hx, 2 Hy) rows [j0, j1) into host (pitch floats a row). */
void gs_fdtd_sim_read_rows(gs_fdtd_sim *m, int f, int64_t j0, int64_t j1, float *host) {
  if (m->hi && m->hi != m->s) m->b->stream_sync(m->hi);
  float *src = f == 0 ? m->v.ez : f == 1 ? m->v.hx : m->v.hy;
  m->b->copy_d2h(host, src + (size_t)(j0 - m->oj0 + m->g) * (size_t)m->pitch,
                 sizeof(float) * (size_t)m->pitch * (size_t)(j1 - j0), m->s);
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
  int64_t rows = (int64_t)((64u << 20) / ((size_t)m->pitch * sizeof(float)));
  if (rows < 1) rows = 1;
  float *buf = gs_xmalloc(sizeof(float) * (size_t)m->pitch * (size_t)rows);
  for (int f = 0; f < 3; ++f) {
    uint64_t s = 0;
    for (int64_t j0 = m->oj0; j0 < m->oj1; j0 += rows) {
      int64_t j1 = j0 + rows > m->oj1 ? m->oj1 : j0 + rows;
      gs_fdtd_sim_read_rows(m, f, j0, j1, buf);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = m->oi0; i < m->oi1; ++i) {
          uint32_t bits;
          memcpy(&bits, &buf[(size_t)(j - j0) * (size_t)m->pitch + (size_t)(i - m->oi0 + m->g)], 4);
          uint64_t gi = (uint64_t)j * (uint64_t)(m->sc->nx + 1) + (uint64_t)i;
          s += mix64(gi * 0x9E3779B97F4A7C15ull ^ ((uint64_t)bits << 1 | (uint64_t)f << 40));
        }
    }
    sum[f] = s;
  }
  free(buf);
}

/* ------------------------------------------------------------ snapshots */

static void diverging(float v, float scale, uint8_t rgb[3]) {
  float t = scale > 0 ? v / scale : 0;
  if (t > 1) t = 1;
  if (t < -1) t = -1;
  /* blue (-1) - white (0) - red (+1) */
  if (t >= 0) {
    rgb[0] = 255;
    rgb[1] = rgb[2] = (uint8_t)(255 * (1 - t) + 0.5f);
  } else {
    rgb[2] = 255;
    rgb[0] = rgb[1] = (uint8_t)(255 * (1 + t) + 0.5f);
  }
}

static int cmp_float_abs(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The q-quantile (0..1) of |v| over n values, from a sample of at most 2^20. */
static float abs_quantile(const float *v, size_t n, size_t stride, double q) {
  size_t step = n > (1u << 20) ? n / (1u << 20) : 1, m = 0;
  float *s = gs_xmalloc(sizeof *s * (n / step + 1));
  for (size_t k = 0; k < n; k += step) s[m++] = fabsf(v[k * stride]);
  qsort(s, m, sizeof *s, cmp_float_abs);
  float r = m ? s[(size_t)(q * (double)(m - 1))] : 0;
  free(s);
  return r;
}

/* ----------------------------------------------------------- checkpoints */

typedef struct ck_header {
  char magic[8];
  uint32_t version, header_bytes;
  uint64_t scene_hash;
  int64_t step, nx, ny, pitch, rows, iterations, oi0, oj0;
  int32_t nrx, nsrc, run, npml;
  uint64_t data_bytes;
  uint32_t crc, reserved;
  /* version 3: what a restart on another decomposition needs */
  int64_t oi1, oj1;      /* owned nodes [oi0, oi1) x [oj0, oj1) */
  int32_t g, spare;      /* ghost layers of the arrays */
  int32_t pml_side[4];   /* scene side of each CPML slab part, then its extents */
  int64_t pml_box[4][4]; /* lo, hi, o0, o1 */
} ck_header;

static const char ck_magic[8] = {'G', 'S', 'C', 'K', 'P', 'T', '0', '3'};

typedef struct ck_part {
  void *dev; /* device pointer, or NULL for host */
  void *host;
  size_t bytes;
} ck_part;

static int ck_parts(gs_fdtd_sim *m, ck_part *parts) {
  int n = 0;
  parts[n++] = (ck_part){m->v.ez, NULL, m->nelem * sizeof(float)};
  parts[n++] = (ck_part){m->v.hx, NULL, m->nelem * sizeof(float)};
  parts[n++] = (ck_part){m->v.hy, NULL, m->nelem * sizeof(float)};
  for (int k = 0; k < m->npml; ++k) {
    parts[n++] = (ck_part){m->psi[k][m->cur][0], NULL, m->pml_cells[k] * sizeof(float)};
    parts[n++] = (ck_part){m->psi[k][m->cur][1], NULL, m->pml_cells[k] * sizeof(float)};
  }
  if (m->nrx) parts[n++] = (ck_part){NULL, m->rx_hist, sizeof(float) * 3 * (size_t)m->nrx * (size_t)m->step};
  return n;
}

gs_status gs_fdtd_checkpoint_write(gs_fdtd_sim *m, const char *path, char *err, size_t errlen) {
  gs_fdtd_sim_sync(m);
  ck_part parts[16];
  int np = ck_parts(m, parts);
  ck_header h = {.version = 3, .header_bytes = sizeof h, .scene_hash = m->sc->hash, .step = m->step, .nx = m->nx,
                 .ny = m->ny, .pitch = m->pitch, .rows = m->rows, .iterations = m->sc->iterations,
                 .oi0 = m->oi0, .oj0 = m->oj0,
                 .nrx = m->nrx, .nsrc = m->nsrc, .run = m->run, .npml = m->npml};
  memcpy(h.magic, ck_magic, 8);
  h.oi1 = m->oi1;
  h.oj1 = m->oj1;
  h.g = m->g;
  for (int k = 0; k < m->npml; ++k) {
    h.pml_side[k] = m->pml_side[k];
    const gs_fdtd_slab *p = &m->pml[k];
    h.pml_box[k][0] = p->lo;
    h.pml_box[k][1] = p->hi;
    h.pml_box[k][2] = p->o0;
    h.pml_box[k][3] = p->o1;
  }
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  FILE *fp = t.fp;
  int bad = fwrite(&h, sizeof h, 1, fp) != 1;
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t chunk = 64u << 20;
  uint8_t *buf = gs_xmalloc(chunk);
  for (int k = 0; k < np && !bad; ++k) {
    for (size_t off = 0; off < parts[k].bytes && !bad; off += chunk) {
      size_t n = parts[k].bytes - off < chunk ? parts[k].bytes - off : chunk;
      const uint8_t *src;
      if (parts[k].dev) {
        m->b->copy_d2h(buf, (uint8_t *)parts[k].dev + off, n, m->s);
        m->b->stream_sync(m->s);
        src = buf;
      } else {
        src = (const uint8_t *)parts[k].host + off;
      }
      crc = crc32(crc, src, (uInt)n);
      h.data_bytes += n;
      bad |= fwrite(src, 1, n, fp) != n;
    }
  }
  free(buf);
  h.crc = (uint32_t)crc;
  bad |= fseek(fp, 0, SEEK_SET) != 0 || fwrite(&h, sizeof h, 1, fp) != 1;
  return gs_tmpfile_commit(&t, bad, 1, err, errlen);
}

gs_status gs_fdtd_checkpoint_read(gs_fdtd_sim *m, const char *path, char *err, size_t errlen) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return GS_ERR_IO;
  }
  ck_header h;
  gs_status st = GS_OK;
  if (fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, ck_magic, 8) != 0 || h.header_bytes != sizeof h) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint (or truncated header)", path);
    st = GS_ERR_FORMAT;
  } else if (h.scene_hash != m->sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene (hash %016" PRIx64 ", this scene %016" PRIx64 ")", path,
             h.scene_hash, m->sc->hash);
    st = GS_ERR_FORMAT;
  } else if (h.nx != m->nx || h.ny != m->ny || h.pitch != m->pitch || h.rows != m->rows || h.nrx != m->nrx ||
             h.oi0 != m->oi0 || h.oj0 != m->oj0 ||
             h.nsrc != m->nsrc || h.npml != m->npml || h.run != m->run || h.iterations != m->sc->iterations ||
             h.step < 0 || h.step > m->sc->iterations) {
    snprintf(err, errlen, "%s: sizes do not match this run (grid %lldx%lld, run %d, step %lld)", path,
             (long long)h.nx, (long long)h.ny, h.run, (long long)h.step);
    st = GS_ERR_FORMAT;
  }
  if (st != GS_OK) {
    fclose(fp);
    return st;
  }
  m->step = h.step;
  m->rx_flushed = h.step;
  ck_part parts[16];
  int np = ck_parts(m, parts);
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t chunk = 64u << 20, total = 0;
  uint8_t *buf = gs_xmalloc(chunk);
  for (int k = 0; k < np && st == GS_OK; ++k)
    for (size_t off = 0; off < parts[k].bytes && st == GS_OK; off += chunk) {
      size_t n = parts[k].bytes - off < chunk ? parts[k].bytes - off : chunk;
      uint8_t *dst = parts[k].dev ? buf : (uint8_t *)parts[k].host + off;
      if (fread(dst, 1, n, fp) != n) {
        snprintf(err, errlen, "%s: truncated", path);
        st = GS_ERR_FORMAT;
        break;
      }
      crc = crc32(crc, dst, (uInt)n);
      total += n;
      if (parts[k].dev) {
        m->b->copy_h2d((uint8_t *)parts[k].dev + off, buf, n, m->s);
        m->b->stream_sync(m->s);
      }
    }
  free(buf);
  if (st == GS_OK && (total != h.data_bytes || (uint32_t)crc != h.crc || fgetc(fp) != EOF)) {
    snprintf(err, errlen, "%s: corrupt (CRC or length mismatch)", path);
    st = GS_ERR_FORMAT;
  }
  fclose(fp);
  return st;
}

/* Reads count floats from fp into buf, adding them to the CRC; 0 or -1. */
static int ck_take(FILE *fp, float *buf, size_t count, uLong *crc, uint64_t *bytes) {
  if (count && fread(buf, sizeof(float), count, fp) != count) return -1;
  *crc = crc32(*crc, (const Bytef *)buf, (uInt)(count * sizeof(float)));
  *bytes += count * sizeof(float);
  return 0;
}

/* The receivers' scene indices that the nodes [i0, i1) x [j0, j1) hold in
 * run, in scene order (how a rank lists its receivers). */
static int rx_in_box(const gs_scene *sc, int run, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int *out) {
  int n = 0;
  for (int k = 0; k < sc->nrx; ++k) {
    int64_t i = sc->rxs[k].i + (int64_t)run * sc->rx_di, j = sc->rxs[k].j + (int64_t)run * sc->rx_dj;
    if (i >= i0 && i < i1 && j >= j0 && j < j1) out[n++] = k;
  }
  return n;
}

/* Fills this rank's nodes, CPML auxiliaries and receiver histories from the
 * checkpoint files paths[0..n) of one step, written by any decomposition and
 * halo depth: each file's header says which nodes it owns; only the files
 * holding some of this rank's nodes or receivers are read, each whole (its
 * CRC is checked). The ghost layers are left to gs_fdtd_sim_refresh. */
static gs_status ck_read_any(gs_fdtd_sim *m, char **paths, int n, int64_t step, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const gs_backend *b = m->b;
  gs_status st = GS_OK;
  float *f[3];
  for (int k = 0; k < 3; ++k) f[k] = gs_xcalloc(m->nelem, sizeof(float));
  float *psi[4][2] = {{NULL}};
  for (int k = 0; k < m->npml; ++k)
    for (int eh = 0; eh < 2; ++eh) psi[k][eh] = gs_xcalloc(m->pml_cells[k] + 1, sizeof(float));
  int *old_rx = gs_xcalloc((size_t)sc->nrx + 1, sizeof *old_rx);
  int *found = gs_xcalloc((size_t)m->nrx + 1, sizeof *found);
  int64_t covered = 0;
  gs_fdtd_region mine = {m->oi0, m->oi1, m->oj0, m->oj1};
  err[0] = '\0';
  for (int q = 0; q < n && st == GS_OK; ++q) {
    FILE *fp = fopen(paths[q], "rb");
    if (!fp) {
      snprintf(err, errlen, "%s: %s", paths[q], strerror(errno));
      st = GS_ERR_IO;
      break;
    }
    ck_header h;
    if (fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, ck_magic, 8) != 0 || h.header_bytes != sizeof h) {
      snprintf(err, errlen, "%s: not a gpustencil checkpoint of this version (or truncated header)", paths[q]);
      st = GS_ERR_FORMAT;
    } else if (h.scene_hash != sc->hash) {
      snprintf(err, errlen, "%s: made from a different scene", paths[q]);
      st = GS_ERR_FORMAT;
    } else if (h.nx != m->nx || h.ny != m->ny || h.iterations != sc->iterations || h.run != m->run || h.step != step ||
               h.npml < 0 || h.npml > 4 || h.g < 1 || h.oi1 <= h.oi0 || h.oj1 <= h.oj0 || h.pitch < h.oi1 - h.oi0) {
      snprintf(err, errlen, "%s: does not match this run or the rest of its set (grid %lldx%lld, run %d, step %lld)",
               paths[q], (long long)h.nx, (long long)h.ny, h.run, (long long)h.step);
      st = GS_ERR_FORMAT;
    }
    if (st != GS_OK) {
      fclose(fp);
      break;
    }
    gs_fdtd_region theirs = {h.oi0, h.oi1, h.oj0, h.oj1}, both = meet(mine, theirs);
    int nold = rx_in_box(sc, m->run, h.oi0, h.oi1, h.oj0, h.oj1, old_rx);
    int wanted = !empty(both);
    for (int r = 0; r < m->nrx; ++r)
      for (int k = 0; k < nold; ++k) wanted |= old_rx[k] == m->rx_global[r];
    if (!wanted) {
      fclose(fp);
      continue;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t bytes = 0;
    float *row = gs_xmalloc(sizeof(float) * (size_t)h.pitch);
    for (int k = 0; k < 3 && st == GS_OK; ++k)
      for (int64_t lr = 0; lr < h.rows; ++lr) {
        if (ck_take(fp, row, (size_t)h.pitch, &crc, &bytes)) {
          st = GS_ERR_FORMAT;
          break;
        }
        int64_t j = lr - h.g + h.oj0;
        if (j < both.j0 || j >= both.j1) continue;
        for (int64_t i = both.i0; i < both.i1; ++i) f[k][field_index(m, i, j)] = row[i - h.oi0 + h.g];
        if (k == 0) covered += both.i1 - both.i0;
      }
    for (int k = 0; k < h.npml && st == GS_OK; ++k) {
      int64_t lo = h.pml_box[k][0], hi = h.pml_box[k][1], o0 = h.pml_box[k][2], o1 = h.pml_box[k][3];
      int side = h.pml_side[k], dir = side % 2, me = -1;
      for (int t = 0; t < m->npml; ++t)
        if (m->pml_side[t] == side) me = t;
      /* along the slab, the nodes the file's rank owned and those this rank owns */
      int64_t ow0 = dir == 0 ? h.oj0 : h.oi0, ow1 = dir == 0 ? h.oj1 : h.oi1;
      int64_t mo0 = dir == 0 ? m->oj0 : m->oi0, mo1 = dir == 0 ? m->oj1 : m->oi1;
      float *prow = gs_xmalloc(sizeof(float) * (size_t)(o1 - o0 + 1));
      for (int eh = 0; eh < 2 && st == GS_OK; ++eh)
        for (int64_t d = lo; d < hi; ++d) {
          if (ck_take(fp, prow, (size_t)(o1 - o0), &crc, &bytes)) {
            st = GS_ERR_FORMAT;
            break;
          }
          if (me < 0) continue;
          const gs_fdtd_slab *p = &m->pml[me];
          if (d < p->lo || d >= p->hi) continue;
          for (int64_t o = o0; o < o1; ++o)
            if (o >= ow0 && o < ow1 && o >= mo0 && o < mo1)
              psi[me][eh][(d - p->lo) * (p->o1 - p->o0) + (o - p->o0)] = prow[o - o0];
        }
      free(prow);
    }
    if (st == GS_OK && h.nrx != nold) {
      snprintf(err, errlen, "%s: holds %d receivers, its nodes %d", paths[q], h.nrx, nold);
      st = GS_ERR_FORMAT;
    }
    if (st == GS_OK && h.nrx) {
      size_t per = 3 * (size_t)h.nrx;
      float *hist = gs_xmalloc(sizeof(float) * per * (size_t)(step > 0 ? step : 1));
      if (ck_take(fp, hist, per * (size_t)step, &crc, &bytes)) st = GS_ERR_FORMAT;
      for (int r = 0; r < m->nrx && st == GS_OK; ++r)
        for (int k = 0; k < nold; ++k) {
          if (old_rx[k] != m->rx_global[r]) continue;
          found[r] = 1;
          for (int64_t t = 0; t < step; ++t)
            memcpy(m->rx_hist + ((size_t)t * (size_t)m->nrx + (size_t)r) * 3, hist + (size_t)t * per + 3 * (size_t)k,
                   3 * sizeof(float));
        }
      free(hist);
    }
    free(row);
    if (st == GS_OK && (bytes != h.data_bytes || (uint32_t)crc != h.crc || fgetc(fp) != EOF)) st = GS_ERR_FORMAT;
    if (st == GS_ERR_FORMAT && !err[0]) snprintf(err, errlen, "%s: corrupt (CRC or length mismatch)", paths[q]);
    fclose(fp);
  }
  int64_t need = (m->oi1 - m->oi0) * (m->oj1 - m->oj0);
  if (st == GS_OK && covered != need) {
    snprintf(err, errlen, "the checkpoint set covers %lld of this rank's %lld nodes", (long long)covered, (long long)need);
    st = GS_ERR_FORMAT;
  }
  for (int r = 0; r < m->nrx && st == GS_OK; ++r)
    if (!found[r]) {
      snprintf(err, errlen, "the checkpoint set lacks the history of receiver %d", m->rx_global[r] + 1);
      st = GS_ERR_FORMAT;
    }
  if (st == GS_OK) {
    for (int k = 0; k < 3; ++k) b->copy_h2d(m->field[m->cur][k], f[k], m->nelem * sizeof(float), m->s);
    for (int k = 0; k < m->npml; ++k)
      for (int eh = 0; eh < 2; ++eh)
        b->copy_h2d(m->psi[k][m->cur][eh], psi[k][eh], m->pml_cells[k] * sizeof(float), m->s);
    b->stream_sync(m->s);
    m->step = step;
    m->rx_flushed = step;
  }
  for (int k = 0; k < 3; ++k) free(f[k]);
  for (int k = 0; k < m->npml; ++k)
    for (int eh = 0; eh < 2; ++eh) free(psi[k][eh]);
  free(old_rx);
  free(found);
  return st;
}

/* ------------------------------------------------------------ parts, runs */

int gs_fdtd_decomp(const char *spec, int size, int64_t nx, int64_t ny, int dims[2]) {
  if (spec) {
    int64_t px, py;
    if (gs_parse_size2(spec, &px, &py) != 0 || px * py != size) return -1;
    dims[0] = (int)px;
    dims[1] = (int)py;
    return 0;
  }
  /* Halo cost per rank: a split along x gives column halos (strided, and
   * narrower rows for the update kernel), a split along y row halos
   * (contiguous). Measured on 2 H200s (docs/performance.md): 1x2 reached
   * 98.4% at 16384^2 where 2x1 reached 87%; columns weigh 8 rows here.
   * Parts thinner than GS_FDTD_MIN_PART nodes are avoided where possible. */
  double best = -1;
  int bx = 1, by = size;
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
      }
    }
  dims[0] = bx;
  dims[1] = by;
  return 0;
}

gs_fdtd_part gs_fdtd_part_of(const gs_scene *sc, const int dims[2], const int coords[2]) {
  gs_fdtd_part p = {coords[0] * (sc->nx + 1) / dims[0], (coords[0] + 1) * (sc->nx + 1) / dims[0],
                    coords[1] * (sc->ny + 1) / dims[1], (coords[1] + 1) * (sc->ny + 1) / dims[1]};
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
static int agree_depth(const gs_scene *sc, const gs_backend *b, const gs_fdtd_part *part, int want, MPI_Comm comm) {
  int size;
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (size == 1) return 1;
  int d = want;
  if (!d) {
    double nodes = (double)(part->i1 - part->i0) * (double)(part->j1 - part->j0);
    d = gs_fdtd_depth_fit(sc, part, gs_fdtd_auto_depth(b, nodes));
  }
  int all;
  GS_MPI_CHECK(MPI_Allreduce(&d, &all, 1, MPI_INT, MPI_MIN, comm));
  return want ? want : all;
}

gs_status gs_fdtd_timed_run(const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                            const gs_fdtd_spread *sp, int64_t warmup, int64_t steps, gs_fdtd_timing *t, char *used,
                            size_t usedlen, int *depth_used, char *err, size_t errlen) {
  int rank, periods[2] = {0, 0}, coords[2];
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_Comm cart;
  GS_MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, &cart));
  GS_MPI_CHECK(MPI_Cart_coords(cart, rank, 2, coords));
  gs_fdtd_part part = gs_fdtd_part_of(sc, dims, coords);
  int depth = agree_depth(sc, b, &part, sp->depth, cart);
  gs_fdtd_sim m;
  err[0] = '\0';
  gs_status st = gs_fdtd_sim_init_part(&m, sc, b, 0, &part, depth, err, errlen);
  if (gs_comm_agree(st != GS_OK, cart)) {
    if (st == GS_OK) gs_fdtd_sim_free(&m);
    MPI_Comm_free(&cart);
    return st != GS_OK ? st : GS_ERR_USAGE;
  }
  if (gs_fdtd_sim_connect(&m, cart, sp->transport, sp->overlap, err, errlen) != GS_OK) {
    gs_fdtd_sim_free(&m);
    MPI_Comm_free(&cart);
    return GS_ERR_USAGE;
  }
  if (used) {
    if (m.halo)
      gs_halo_summary(m.halo, used, usedlen);
    else
      snprintf(used, usedlen, "none");
  }
  if (depth_used) *depth_used = depth;
  double t0 = 0;
  int64_t x0 = 0;
  for (int64_t k = 0; k < warmup + steps; ++k) {
    if (k == warmup) {
      gs_fdtd_sim_sync(&m);
      if (m.halo) x0 = gs_halo_exchanges(m.halo);
      GS_MPI_CHECK(MPI_Barrier(cart));
      t0 = MPI_Wtime();
    }
    gs_fdtd_sim_step(&m);
  }
  gs_fdtd_sim_sync(&m);
  double local[2] = {MPI_Wtime() - t0, 0};
  if (m.halo) local[1] = gs_halo_bytes_per_exchange(m.halo) * (double)(gs_halo_exchanges(m.halo) - x0);
  double maxv[2];
  GS_MPI_CHECK(MPI_Allreduce(local, maxv, 2, MPI_DOUBLE, MPI_MAX, cart));
  t->seconds = maxv[0];
  t->halo_bytes = maxv[1];
  gs_fdtd_sim_free(&m);
  MPI_Comm_free(&cart);
  return GS_OK;
}

/* ------------------------------------------------------------- the command */

static struct {
  const char *outdir, *restart;
  int64_t checkpoint_every, runs, steps, stop_after, snapshot_every;
  int progress, no_overlap;
  const char *decomp, *transport, *depth;
} o = {.runs = 1};

static const gs_opt fdtd_opts[] = {
    {"output", 'o', GS_OPT_STRING, &o.outdir, "DIR", 0, 0, "output folder (default: SCENE without .in, plus _out)"},
    {"runs", 'n', GS_OPT_INT, &o.runs, "N", 1, 100000, "model runs, moving sources and receivers by #src_steps/#rx_steps"},
    {"checkpoint-every", 0, GS_OPT_INT, &o.checkpoint_every, "STEPS", 1, 1e15, "write a checkpoint every STEPS steps"},
    {"restart", 0, GS_OPT_STRING, &o.restart, "DIR", 0, 0, "continue from the checkpoint in DIR"},
    {"stop-after", 0, GS_OPT_INT, &o.stop_after, "STEPS", 1, 1e15,
     "end the run after STEPS steps (with a checkpoint), as a time-limited job would"},
    {"steps", 0, GS_OPT_INT, &o.steps, "N", 1, 1e15, "override the iteration count of #time_window"},
    {"snapshot-every", 0, GS_OPT_INT, &o.snapshot_every, "STEPS", 1, 1e15, "override #snapshot_png"},
    {"progress", 0, GS_OPT_FLAG, &o.progress, NULL, 0, 0, "show progress on rank 0 (default when a terminal)"},
    {"decomp", 0, GS_OPT_STRING, &o.decomp, "PXxPY", 0, 0, "ranks along x and y (default: MPI_Dims_create)"},
    {"halo-transport", 0, GS_OPT_STRING, &o.transport, "T", 0, 0,
     "auto|ipc|mpi-cuda|mpi-host: how ghost layers move between ranks (default auto)"},
    {"halo-depth", 0, GS_OPT_STRING, &o.depth, "R", 0, 0,
     "auto|1..8: ghost layers, exchanged every R steps with redundant work (default auto)"},
    {"no-overlap", 0, GS_OPT_FLAG, &o.no_overlap, NULL, 0, 0, "exchange after the whole step (for comparison)"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};

int gs_fdtd_spread_parse(const char *transport, const char *depth, int no_overlap, gs_fdtd_spread *sp, char *err,
                         size_t errlen) {
  sp->overlap = !no_overlap;
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

static gs_fdtd_spread spread;

static int fdtd_check(int argc, char **argv, char *err, size_t errlen) {
  (void)argv;
  if (gs_fdtd_spread_parse(o.transport, o.depth, o.no_overlap, &spread, err, errlen)) return 1;
  if (argc != 1) {
    snprintf(err, errlen, "expected one scene file, got %d arguments", argc);
    return 1;
  }
  if (o.restart && o.runs > 1) {
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
static gs_status write_bscan(float *ez, int64_t runs, int64_t steps, const char *path, char *err, size_t errlen) {
  for (int64_t s = 0; s < steps; ++s) {
    double mean = 0;
    for (int64_t r = 0; r < runs; ++r) mean += ez[(size_t)r * (size_t)steps + (size_t)s];
    mean /= (double)runs;
    for (int64_t r = 0; r < runs; ++r) ez[(size_t)r * (size_t)steps + (size_t)s] -= (float)mean;
  }
  float scale = abs_quantile(ez, (size_t)runs * (size_t)steps, 1, 0.995);
  int64_t every = (steps + 999) / 1000, rows = (steps + every - 1) / every;
  int64_t cw = runs < 256 ? (256 + runs - 1) / runs : 1;
  int64_t w = runs * cw;
  uint8_t *img = gs_xmalloc((size_t)w * (size_t)rows * 3);
  for (int64_t y = 0; y < rows; ++y)
    for (int64_t r = 0; r < runs; ++r)
      for (int64_t c = 0; c < cw; ++c)
        diverging(ez[(size_t)r * (size_t)steps + (size_t)(y * every)], scale,
                  img + 3 * ((size_t)y * (size_t)w + (size_t)(r * cw + c)));
  gs_png_format f = {.width = (uint32_t)w, .height = (uint32_t)rows, .depth = 8, .channels = 3};
  gs_status st = gs_png_write_image(path, &f, img, 6, err, errlen);
  free(img);
  return st;
}

/* Checkpoints of a run on several ranks: DIR/checkpoint.s<step>.r<rank>.gsck,
 * one per rank, committed together by DIR/checkpoint.manifest (written last,
 * atomically) naming the step and the decomposition; the previous set is
 * removed after the new manifest is in place. One rank: DIR/checkpoint.gsck. */
static void ck_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank) {
  snprintf(buf, n, "%s/checkpoint.s%lld.r%05d.gsck", dir, (long long)step, rank);
}

static void checkpoint_save(gs_fdtd_sim *m, const gs_comm *c, const int dims[2], const char *dir, int64_t *prev) {
  char path[1400], err[1024];
  if (c->size == 1) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    if (gs_fdtd_checkpoint_write(m, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint", err, __FILE__, __LINE__);
    return;
  }
  ck_rank_path(path, sizeof path, dir, m->step, c->rank);
  if (gs_fdtd_checkpoint_write(m, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint", err, __FILE__, __LINE__);
  GS_MPI_CHECK(MPI_Barrier(c->world)); /* every rank's file is in place */
  if (c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
    gs_tmpfile t;
    if (gs_tmpfile_open(&t, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint manifest", err, __FILE__, __LINE__);
    fprintf(t.fp, "gpustencil checkpoint manifest 1\nranks %d\ndecomp %dx%d\nstep %lld\nscene %016" PRIx64 "\n", c->size,
            dims[0], dims[1], (long long)m->step, m->sc->hash);
    if (gs_tmpfile_commit(&t, 0, 1, err, sizeof err) != GS_OK) gs_fatal("checkpoint manifest", err, __FILE__, __LINE__);
  }
  GS_MPI_CHECK(MPI_Barrier(c->world)); /* the new set is committed: drop the old one */
  if (*prev >= 0) {
    ck_rank_path(path, sizeof path, dir, *prev, c->rank);
    unlink(path);
  }
  *prev = m->step;
}

/* Removes the checkpoint of a completed run. */
static void checkpoint_remove(const gs_comm *c, const char *dir, int64_t step) {
  char path[1400];
  if (c->size == 1) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    unlink(path);
    return;
  }
  if (c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
    unlink(path);
  }
  if (step >= 0) {
    ck_rank_path(path, sizeof path, dir, step, c->rank);
    unlink(path);
  }
}

/* A checkpoint a run restarted from, to remove once the run has written its
 * own (kind 0: none; 1: DIR/checkpoint.gsck; 2: a set of nranks files). */
typedef struct ck_old {
  int kind, nranks;
  int64_t step;
} ck_old;

/* Removes an old checkpoint (collective: the files are shared out over the ranks). */
static void checkpoint_drop(const gs_comm *c, const char *dir, ck_old *old) {
  char path[1400];
  if (old->kind == 1 && c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    unlink(path);
  }
  if (old->kind == 2) {
    for (int r = c->rank; r < old->nranks; r += c->size) {
      ck_rank_path(path, sizeof path, dir, old->step, r);
      unlink(path);
    }
    if (c->size == 1) { /* a 1-rank run keeps no manifest */
      snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
      unlink(path);
    }
  }
  old->kind = 0;
}

/* Collective: loads the checkpoint in dir, written by any number of ranks,
 * decomposition and halo depth (docs/fdtd.md): a set (DIR/checkpoint.manifest
 * and one file per rank) or one file (DIR/checkpoint.gsck); a 1-rank run
 * prefers the one file, several ranks the set. GS_OK on every rank or an
 * error on every rank (the reason in err on the rank that found it); *old
 * says what was read. */
static gs_status checkpoint_load(gs_fdtd_sim *m, const gs_comm *c, const char *dir, ck_old *old, char *err,
                                 size_t errlen) {
  char path[1400], single[1400];
  gs_status st = GS_OK;
  snprintf(single, sizeof single, "%s/checkpoint.gsck", dir);
  snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
  long long info[3] = {0, 0, -1}; /* kind, ranks, step */
  err[0] = '\0';
  if (c->rank == 0) {
    int have_single = access(single, F_OK) == 0, have_set = access(path, F_OK) == 0;
    if (have_single && (c->size == 1 || !have_set)) {
      FILE *fp = fopen(single, "rb");
      ck_header h;
      if (!fp || fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, ck_magic, 8) != 0) {
        snprintf(err, errlen, "%.900s: not a gpustencil checkpoint of this version (or unreadable)", single);
        st = GS_ERR_FORMAT;
      } else {
        info[0] = 1;
        info[1] = 1;
        info[2] = h.step;
      }
      if (fp) fclose(fp);
    } else if (have_set) {
      FILE *fp = fopen(path, "r");
      unsigned long long hash = 0;
      long long px, py;
      if (!fp || fscanf(fp, "gpustencil checkpoint manifest 1 ranks %lld decomp %lldx%lld step %lld scene %llx", &info[1],
                        &px, &py, &info[2], &hash) != 5 || info[1] < 1 || info[2] < 0) {
        snprintf(err, errlen, "%.900s: not a gpustencil checkpoint manifest", path);
        st = GS_ERR_FORMAT;
      } else if (hash != m->sc->hash) {
        snprintf(err, errlen, "%.900s: made from a different scene", path);
        st = GS_ERR_FORMAT;
      } else {
        info[0] = 2;
      }
      if (fp) fclose(fp);
    } else {
      snprintf(err, errlen, "%.900s: no checkpoint there (checkpoint.gsck or checkpoint.manifest)", dir);
      st = GS_ERR_IO;
    }
    if (st != GS_OK) info[0] = 0;
  }
  GS_MPI_CHECK(MPI_Bcast(info, 3, MPI_LONG_LONG, 0, c->world));
  *old = (ck_old){(int)info[0], (int)info[1], info[2]};
  if (info[0] == 1 && c->size == 1) {
    st = gs_fdtd_checkpoint_read(m, single, err, errlen); /* the same layout: read as written */
  } else if (info[0] != 0) {
    int n = (int)info[1];
    char **paths = gs_xcalloc((size_t)n, sizeof *paths);
    for (int r = 0; r < n; ++r) {
      paths[r] = gs_xmalloc(1400);
      if (info[0] == 1)
        snprintf(paths[r], 1400, "%s", single);
      else
        ck_rank_path(paths[r], 1400, dir, info[2], r);
    }
    st = ck_read_any(m, paths, n, info[2], err, errlen);
    for (int r = 0; r < n; ++r) free(paths[r]);
    free(paths);
  } else if (c->rank != 0) {
    st = GS_ERR_FORMAT; /* rank 0 says why */
  }
  /* The lowest rank that failed says why. */
  int me = st != GS_OK ? c->rank : c->size, first = c->size;
  GS_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, c->world));
  if (first < c->size && c->rank != first) err[0] = '\0';
  return first < c->size ? (st != GS_OK ? st : GS_ERR_FORMAT) : GS_OK;
}

/* ------------------------------------------------------------ snapshots */

/* Exact q-quantile of |Ez| over every node of the grid, the same for any
 * split: non-negative floats sort like their bit patterns, so a histogram of
 * the top 16 bits (summed over ranks) finds the bin holding the k-th value and
 * a second histogram of the low 16 bits within it finds the value. Collective. */
static float ez_abs_quantile(gs_fdtd_sim *m, const gs_comm *c, double q) {
  const size_t bins = 65536;
  uint64_t *hist = gs_xcalloc(bins, sizeof *hist);
  int64_t lw = m->oi1 - m->oi0, lh = m->oj1 - m->oj0;
  float *rows = gs_xmalloc(sizeof(float) * (size_t)m->pitch * (size_t)lh);
  gs_fdtd_sim_read_rows(m, 0, m->oj0, m->oj1, rows);
  uint32_t top = 0;
  uint64_t k = (uint64_t)(q * (double)((uint64_t)(m->nx + 1) * (uint64_t)(m->ny + 1) - 1));
  for (int pass = 0; pass < 2; ++pass) {
    memset(hist, 0, bins * sizeof *hist);
    for (int64_t j = 0; j < lh; ++j)
      for (int64_t i = 0; i < lw; ++i) {
        float a = fabsf(rows[(size_t)j * (size_t)m->pitch + (size_t)(i + m->g)]);
        uint32_t b;
        memcpy(&b, &a, 4);
        if (pass == 0)
          hist[b >> 16]++;
        else if ((b >> 16) == top)
          hist[b & 0xFFFFu]++;
      }
    GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, hist, (int)bins, MPI_UINT64_T, MPI_SUM, c->world));
    uint32_t bin = 0;
    while (bin + 1 < bins && hist[bin] <= k) k -= hist[bin++];
    top = pass == 0 ? bin : (top << 16 | bin);
  }
  free(rows);
  free(hist);
  float v;
  memcpy(&v, &top, 4);
  return v;
}

/* Writes Ez as a PNG, y up, in bands of rows from the top: every rank sends
 * its part of each band to rank 0, which colours, filters and compresses the
 * band as one piece of the PNG stream, so no rank holds the whole field.
 * Colour scale: the exact 99.5th percentile of |Ez| (the field at the source
 * would otherwise wash out everything else); material outlines in dark grey.
 * Collective; the status is rank 0's. */
static gs_status snapshot_all(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, const char *path, char *err,
                              size_t errlen) {
  const gs_scene *sc = m->sc;
  const int64_t W = m->nx + 1, H = m->ny + 1, band = 64;
  float scale = ez_abs_quantile(m, c, 0.995);
  int64_t lw = m->oi1 - m->oi0;
  float *mine = gs_xmalloc(sizeof(float) * (size_t)m->pitch * (size_t)band);
  float *block = gs_xmalloc(sizeof(float) * (size_t)lw * (size_t)band);
  float *ez = c->rank == 0 ? gs_xmalloc(sizeof(float) * (size_t)W * (size_t)band) : NULL;
  float *recv = c->rank == 0 ? gs_xmalloc(sizeof(float) * (size_t)W * (size_t)band) : NULL;
  uint8_t *rgb = c->rank == 0 ? gs_xmalloc((size_t)W * 3 * (size_t)band) : NULL;
  uint8_t *matrow = c->rank == 0 ? gs_xmalloc((size_t)W * (size_t)(band + 1)) : NULL;
  uint8_t *prev = c->rank == 0 ? gs_xmalloc((size_t)W * 3) : NULL;
  gs_png_writer *w = NULL;
  gs_status st = GS_OK;
  uint32_t adler = 1;
  if (c->rank == 0) {
    gs_png_format f = {.width = (uint32_t)W, .height = (uint32_t)H, .depth = 8, .channels = 3};
    st = gs_png_writer_open(path, &f, &w, err, errlen);
  }
  for (int64_t top = H; top > 0; top -= band) {
    int64_t j0 = top - band > 0 ? top - band : 0, j1 = top; /* rows [j0, j1), written j1-1 first */
    int64_t r0 = j0 > m->oj0 ? j0 : m->oj0, r1 = j1 < m->oj1 ? j1 : m->oj1;
    if (r1 > r0) { /* my part of the band, packed */
      gs_fdtd_sim_read_rows(m, 0, r0, r1, mine);
      for (int64_t j = r0; j < r1; ++j)
        memcpy(block + (size_t)(j - r0) * (size_t)lw, mine + (size_t)(j - r0) * (size_t)m->pitch + (size_t)m->g,
               sizeof(float) * (size_t)lw);
      if (c->rank != 0) GS_MPI_CHECK(MPI_Send(block, (int)(lw * (r1 - r0)), MPI_FLOAT, 0, 7, c->world));
    }
    if (c->rank != 0) continue;
    for (int r = 0; r < c->size; ++r) {
      const int64_t *q = parts + 4 * r;
      int64_t a0 = j0 > q[2] ? j0 : q[2], a1 = j1 < q[3] ? j1 : q[3], bw = q[1] - q[0];
      if (a1 <= a0) continue;
      const float *src = block;
      if (r != 0) {
        GS_MPI_CHECK(MPI_Recv(recv, (int)(bw * (a1 - a0)), MPI_FLOAT, r, 7, c->world, MPI_STATUS_IGNORE));
        src = recv;
      }
      for (int64_t j = a0; j < a1; ++j)
        memcpy(ez + (size_t)(j - j0) * (size_t)W + (size_t)q[0], src + (size_t)(j - a0) * (size_t)bw,
               sizeof(float) * (size_t)bw);
    }
    if (st != GS_OK) continue;
    /* Materials of the band and the row below it, for the outlines. */
    for (int64_t j = (j0 > 0 ? j0 - 1 : 0); j < j1; ++j)
      for (int64_t i = 0; i < W; ++i) matrow[(size_t)(j - j0 + 1) * (size_t)W + (size_t)i] = (uint8_t)gs_scene_material_at(sc, i, j);
    int64_t rows = j1 - j0;
    for (int64_t y = 0; y < rows; ++y) { /* image row y of the band is grid row j1 - 1 - y */
      int64_t j = j1 - 1 - y;
      const uint8_t *mr = matrow + (size_t)(j - j0 + 1) * (size_t)W, *md = mr - W;
      uint8_t *out = rgb + (size_t)y * (size_t)W * 3;
      for (int64_t i = 0; i < W; ++i) {
        diverging(ez[(size_t)(j - j0) * (size_t)W + (size_t)i], scale, out + 3 * i);
        if ((i > 0 && mr[i - 1] != mr[i]) || (j > 0 && md[i] != mr[i])) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 40;
      }
    }
    size_t rowbytes = (size_t)W * 3, len = (rowbytes + 1) * (size_t)rows;
    uint8_t *filtered = gs_xmalloc(len), *z = gs_xmalloc(gs_png_deflate_bound(len));
    gs_png_filter_rows(rgb, (uint32_t)rows, rowbytes, 3, top == H ? NULL : prev, GS_PNG_FILTER_SUB, filtered);
    memcpy(prev, rgb + (size_t)(rows - 1) * rowbytes, rowbytes);
    size_t zlen = 0;
    uint32_t a = 0;
    st = gs_png_deflate_piece(filtered, len, NULL, 0, 6, top == H, j0 == 0, z, &zlen, &a);
    if (st == GS_OK) st = gs_png_writer_idat(w, z, zlen, err, errlen);
    adler = top == H ? a : gs_png_adler_combine(adler, a, len);
    free(filtered);
    free(z);
  }
  if (c->rank == 0 && w) {
    if (st == GS_OK)
      st = gs_png_writer_finish(w, adler, 1, err, errlen);
    else
      gs_png_writer_abort(w);
  }
  free(mine);
  free(block);
  free(ez);
  free(recv);
  free(rgb);
  free(matrow);
  free(prev);
  return st;
}

/* Rank 0 collects every receiver's history (steps x 3 floats) from its owner. */
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
    for (int q = 0; q < m->nrx; ++q)
      if (m->rx_global[q] == k) local = q;
    if (c->rank == owner) {
      for (int64_t s = 0; s < m->step; ++s)
        memcpy(mine + 3 * (size_t)s, m->rx_hist + ((size_t)s * (size_t)m->nrx + (size_t)local) * 3, 3 * sizeof(float));
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

static int fdtd_run(gs_run *run, int argc, char **argv) {
  (void)argc;
  const gs_comm *c = &run->comm;
  const int root = c->rank == 0;
  gs_scene sc;
  char err[1024];
  gs_status st = gs_scene_load(argv[0], &sc, err, sizeof err);
  if (st != GS_OK) {
    if (root) gs_log_error("%s", err);
    return GS_EXIT_USAGE;
  }
  if (o.steps) sc.iterations = o.steps;
  if (o.snapshot_every) sc.snapshot_every = o.snapshot_every;
  /* Every run's sources and receivers must stay inside the domain. */
  for (int64_t r = 0; r < o.runs; ++r) {
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
  if (gs_fdtd_decomp(o.decomp, c->size, sc.nx, sc.ny, dims) != 0) {
    if (root) gs_log_error("fdtd: --decomp '%s' is not PXxPY with PX * PY = %d ranks", o.decomp, c->size);
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
  if (o.outdir) {
    snprintf(outdir, sizeof outdir, "%s", o.outdir);
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
           sc.nsources, sc.nrx, sc.pml[0], sc.pml[1], sc.pml[2], sc.pml[3], run->backend->name, (int)o.runs);
    if (sc.messages)
      for (int k = 2; k < sc.nmaterials; ++k)
        printf("  material %s: er %g, sigma %g S/m\n", sc.materials[k].name, sc.materials[k].er, sc.materials[k].sigma);
    fflush(stdout);
  }

  int depth = agree_depth(&sc, run->backend, &part, spread.depth, cart);
  float *bscan = root && o.runs > 1 && sc.nrx ? gs_xcalloc((size_t)o.runs * (size_t)sc.iterations, sizeof(float)) : NULL;
  int status = GS_EXIT_OK;
  double total_steps = 0, t_total = 0;
  uint64_t sum[3] = {0, 0, 0};
  for (int64_t r = 0; r < o.runs && status == GS_EXIT_OK; ++r) {
    gs_fdtd_sim m;
    st = gs_fdtd_sim_init_part(&m, &sc, run->backend, (int)r, &part, depth, err, sizeof err);
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
    if (root && r == 0 && c->size > 1) {
      char tr[64];
      printf("fdtd: %d ranks, decomposition %dx%d, halo transport %s (rank 0), halo depth %d, overlap %s\n", c->size,
             dims[0], dims[1], gs_halo_summary(m.halo, tr, sizeof tr), depth, spread.overlap ? "on" : "off");
      fflush(stdout);
    }
    int64_t ck_prev = -1; /* step of this run's last checkpoint set */
    ck_old ck_drop = {0, 0, -1}; /* a checkpoint of another layout this run restarted from */
    if (o.restart) {
      err[0] = '\0';
      ck_old got;
      if (checkpoint_load(&m, c, o.restart, &got, err, sizeof err) != GS_OK) {
        if (err[0]) gs_log_error("fdtd: --restart: %s", err);
        gs_fdtd_sim_free(&m);
        status = GS_EXIT_USAGE;
        break;
      }
      if (root)
        printf("fdtd: restarting at step %lld from %s (written by %d rank(s))\n", (long long)m.step, o.restart,
               got.nranks);
      gs_fdtd_sim_refresh(&m); /* the ghost layers are not in the checkpoint */
      /* The checkpoint read stays until this run writes its own (or completes);
       * one in another folder is never touched. */
      if (strcmp(o.restart, outdir) == 0) {
        if (got.kind == 2 && got.nranks == c->size)
          ck_prev = got.step; /* the same layout: replaced like this run's own */
        else if (!(got.kind == 1 && c->size == 1))
          ck_drop = got;
      }
    }
    int show = root && (o.progress || isatty(2));
    gs_progress *prog = show ? gs_progress_create("fdtd", sc.iterations, "steps") : NULL;
    int64_t first_step = m.step;
    GS_MPI_CHECK(MPI_Barrier(c->world));
    double t0 = now_s();
    int stopped = 0;
    while (m.step < sc.iterations) {
      gs_fdtd_sim_step(&m);
      if (sc.snapshot_every && m.step % sc.snapshot_every == 0) {
        char sp[1300];
        if (o.runs > 1)
          snprintf(sp, sizeof sp, "%s/snapshots/run%03lld_ez_%08lld.png", outdir, (long long)r + 1, (long long)m.step);
        else
          snprintf(sp, sizeof sp, "%s/snapshots/ez_%08lld.png", outdir, (long long)m.step);
        if (snapshot_all(&m, c, parts, sp, err, sizeof err) != GS_OK) {
          gs_log_error("fdtd: snapshot: %s", err);
          status = GS_EXIT_PARTIAL;
        }
      }
      if (o.checkpoint_every && m.step % o.checkpoint_every == 0 && m.step < sc.iterations) {
        checkpoint_save(&m, c, dims, outdir, &ck_prev);
        checkpoint_drop(c, outdir, &ck_drop);
      }
      if (prog && (m.step & 63) == 0) {
        gs_fdtd_sim_sync(&m);
        gs_progress_update(prog, m.step, (double)(m.step - first_step) * cells * 1e-6);
      }
      if (o.stop_after && m.step - first_step >= o.stop_after && m.step < sc.iterations) {
        stopped = 1;
        break;
      }
    }
    gs_fdtd_sim_sync(&m);
    GS_MPI_CHECK(MPI_Barrier(c->world));
    double secs = now_s() - t0;
    if (prog) gs_progress_end(prog);
    if (stopped) {
      if (ck_prev != m.step) checkpoint_save(&m, c, dims, outdir, &ck_prev);
      checkpoint_drop(c, outdir, &ck_drop);
      if (root)
        printf("fdtd: stopped after step %lld of %lld; continue with --restart %s\n", (long long)m.step,
               (long long)sc.iterations, outdir);
      gs_fdtd_sim_free(&m);
      o.runs = r + 1;
      free(bscan);
      bscan = NULL;
      break;
    }
    total_steps += (double)(m.step - first_step);
    t_total += secs;
    float *rx = sc.nrx ? gather_receivers(&m, c, parts, (int)r) : NULL;
    if (root && sc.nrx) {
      char rp[1300];
      if (o.runs > 1)
        snprintf(rp, sizeof rp, "%s/receivers_run%03lld.csv", outdir, (long long)r + 1);
      else
        snprintf(rp, sizeof rp, "%s/receivers.csv", outdir);
      if (write_receivers(&sc, rx, m.step, rp, err, sizeof err) != GS_OK) {
        gs_log_error("fdtd: %s", err);
        status = GS_EXIT_PARTIAL;
      }
      if (bscan)
        for (int64_t s = 0; s < sc.iterations; ++s) bscan[(size_t)r * (size_t)sc.iterations + (size_t)s] = rx[3 * (size_t)s];
    }
    free(rx);
    uint64_t local[3];
    gs_fdtd_sim_checksum(&m, local);
    GS_MPI_CHECK(MPI_Reduce(local, sum, 3, MPI_UINT64_T, MPI_SUM, 0, c->world));
    if (root && o.runs > 1) printf("fdtd: run %lld of %lld done\n", (long long)r + 1, (long long)o.runs);
    checkpoint_remove(c, outdir, ck_prev); /* the run is complete: its checkpoint is stale */
    checkpoint_drop(c, outdir, &ck_drop);
    gs_fdtd_sim_free(&m);
    if (root && r + 1 == o.runs) {
      printf("checksum Ez=%016" PRIx64 " Hx=%016" PRIx64 " Hy=%016" PRIx64 "\n", sum[0], sum[1], sum[2]);
      printf("fdtd: %.0f steps in %.3f s on %d rank(s): %.1f Mcells/s\n", total_steps, t_total, c->size,
             t_total > 0 ? total_steps * cells / t_total * 1e-6 : 0.0);
    }
  }
  if (root && bscan && status == GS_EXIT_OK) {
    char bp[1300];
    snprintf(bp, sizeof bp, "%s/bscan.png", outdir);
    if (write_bscan(bscan, o.runs, sc.iterations, bp, err, sizeof err) != GS_OK) {
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

const gs_command gs_command_fdtd = {
    "fdtd", "SCENE.in [-o DIR] [-n RUNS] [--checkpoint-every N] [--restart DIR] [options]",
    "2D FDTD (Yee, TMz) simulation of a gprMax input file (2D subset: docs/fdtd.md). Writes DIR/receivers.csv,\n"
    "DIR/snapshots/*.png (#snapshot_png), DIR/bscan.png (-n > 1), prints a split-independent checksum and Mcells/s.",
    fdtd_opts, fdtd_run, fdtd_check};

/* gpustencil fdtd: 2D FDTD (Yee, TMz) simulation of a gprMax-style scene on
 * one rank or split over many: materials, CFS-CPML, Hertzian dipole sources,
 * receivers, PNG snapshots, B-scans, checkpoints (restartable on any split),
 * a split-independent checksum; the distributed step with deep halos and the
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
#include "halo.h"
#include "options.h"

#define GS_EPS0 8.8541878128e-12
#define GS_MU0 1.25663706212e-6
#define GS_Z0 376.730313668
#define GS_RX_CHUNK 256
/* --halo-depth auto: this depth for parts of at most this many nodes (GPU). */
#define GS_FDTD_AUTO_DEPTH 4
#define GS_FDTD_SMALL_PART (4.0 * 1024 * 1024) /* nodes: R = 8 at or below */
/* The automatic decomposition avoids parts thinner than this (CPML + halo). */
#define GS_FDTD_MIN_PART 32

static int owns(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return i >= m->oi0 && i < m->oi1 && j >= m->oj0 && j < m->oj1;
}

/* The owned nodes, grown by e layers on the sides with a neighbour. */
static gs_fdtd_region grown_box(const gs_fdtd_sim *m, int e) {
  gs_fdtd_region r = {m->oi0 - e * m->nb[0], m->oi1 + e * m->nb[1], m->oj0 - e * m->nb[2], m->oj1 + e * m->nb[3]};
  return r;
}

/* The owned nodes less the ring of depth layers along the sides with a
 * neighbour: nodes that neither read ghosts nor are sent (may be empty). */
static gs_fdtd_region interior_box(const gs_fdtd_sim *m) {
  gs_fdtd_region r = grown_box(m, -m->depth);
  return gs_region_meet(r, grown_box(m, 0));
}

/* --------------------------------------------------------------- set-up */

static double profile(const gs_cfs_param *p, double depth, double max) {
  double d = p->reverse ? 1 - depth : depth;
  return p->min + (max - p->min) * pow(d, p->order);
}

/* CPML profiles of one slab: depth of index k's E node and H half node. */
static void pml_profiles(const gs_scene *sc, double d, double er, int64_t n, int lower, int64_t nodes, float *out) {
  double sigma_max =
      sc->cfs_sigma.max >= 0 ? sc->cfs_sigma.max : 0.8 * (sc->cfs_sigma.order + 1) / (GS_Z0 * d * sqrt(er));
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
  m->graphs = b->graph_begin != NULL;
  m->pdl = gs_config_get()->pdl;

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
        mat[gs_fdtd_index(m, i, j)] = (uint8_t)gs_scene_material_at(sc, i, j);
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
    m->coef_host[k] =
        (gs_fdtd_coef){(float)(eb / ea), (float)(1 / (sc->dx * ea)), (float)(1 / (sc->dy * ea)), (float)(1 / ea)};
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
   * lie in no slab, and the strips around it, which carry the slabs (or,
   * without a slab on that side, the outermost row or column, which the
   * marching kernel does not take). */
  {
    int64_t X = m->nx + 1, Y = m->ny + 1;
    int64_t x0 = sc->pml[0] ? sc->pml[0] + 2 : 1, y0 = sc->pml[1] ? sc->pml[1] + 2 : 1;
    int64_t x1 = X - (sc->pml[2] ? sc->pml[2] + 1 : 1), y1 = Y - (sc->pml[3] ? sc->pml[3] + 1 : 1);
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
    for (int c = 0, sum = 0; c < GS_FDTD_MAX_DEPTH + 2; ++c)
      m->src_cum[c] = sum += cls_count[c];
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
          off[k] = (int64_t)gs_fdtd_index(m, i, j);
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
    if (owns(m, sc->rxs[k].i + (int64_t)run * sc->rx_di, sc->rxs[k].j + (int64_t)run * sc->rx_dj))
      m->rx_global[m->nrx++] = k;
  if (m->nrx) {
    int64_t *off = gs_xmalloc(sizeof *off * (size_t)m->nrx);
    for (int k = 0; k < m->nrx; ++k) {
      const gs_rx *rx = &sc->rxs[m->rx_global[k]];
      off[k] = (int64_t)gs_fdtd_index(m, rx->i + (int64_t)run * sc->rx_di, rx->j + (int64_t)run * sc->rx_dj);
    }
    m->rx_s = b->stream_create(1);
    m->ev_rx_ready = b->event_create(0);
    m->ev_rx_done = b->event_create(0);
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
    for (int k = 0; k < 3; ++k)
      b->dev_free(m->field[buf][k]);
  b->dev_free((void *)m->v.mat);
  b->dev_free(m->coef);
  for (int k = 0; k < m->npml; ++k) {
    b->dev_free(m->pml_prof[k]);
    for (int buf = 0; buf < 2; ++buf)
      for (int eh = 0; eh < 2; ++eh)
        b->dev_free(m->psi[k][buf][eh]);
  }
  if (m->nsrc) {
    b->dev_free(m->src_off);
    b->dev_free(m->src_val);
  }
  if (m->nrx) {
    b->stream_destroy(m->rx_s);
    b->event_destroy(m->ev_rx_ready);
    b->event_destroy(m->ev_rx_done);
    b->dev_free(m->rx_off);
    b->dev_free(m->rx_buf);
    free(m->rx_hist);
  }
  free(m->mat_host);
  free(m->rx_global);
  if (m->graph) b->graph_free(m->graph);
  if (m->clock) b->dev_free(m->clock);
  if (m->ev_fork) b->event_destroy(m->ev_fork);
  if (m->ev_join) b->event_destroy(m->ev_join);
  if (m->hi && m->hi != m->s) b->stream_destroy(m->hi);
  if (m->ev_ring) b->event_destroy(m->ev_ring);
  if (m->ev_lo) b->event_destroy(m->ev_lo);
  if (m->ev_sent) b->event_destroy(m->ev_sent);
  b->stream_destroy(m->s);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ time step */

/* s waits for the receivers' last sample. */
static void join_receivers(gs_fdtd_sim *m) {
  if (m->rx_pending) m->b->stream_wait_event(m->s, m->ev_rx_done);
  m->rx_pending = 0;
}

/* The samples of steps [rx_flushed, step) from the device ring (step n in
 * slot n % GS_RX_CHUNK) into rx_hist. */
static void flush_receivers(gs_fdtd_sim *m) {
  int64_t first = m->rx_flushed, count = m->step - first;
  if (!m->nrx || count <= 0) return;
  join_receivers(m);
  size_t per = 3 * (size_t)m->nrx;
  int64_t s0 = first % GS_RX_CHUNK, n1 = count < GS_RX_CHUNK - s0 ? count : GS_RX_CHUNK - s0;
  m->b->copy_d2h(m->rx_hist + (size_t)first * per, m->rx_buf + (size_t)s0 * per, sizeof(float) * per * (size_t)n1,
                 m->s);
  if (count > n1)
    m->b->copy_d2h(m->rx_hist + (size_t)(first + n1) * per, m->rx_buf, sizeof(float) * per * (size_t)(count - n1),
                   m->s);
  m->b->stream_sync(m->s);
  m->rx_flushed = m->step;
}

/* Queues the update of the nodes in boxes[0..n) (global, disjoint) on
 * stream st: their parts in region 0 (no CPML in reach: the plain update)
 * and in the strips around it (with the slabs), in one launch on the GPU
 * (kernels/fdtd.cu). */
static void update_boxes(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, const gs_fdtd_region *boxes, int n,
                         gs_stream st) {
  gs_fdtd_region pieces[20];
  int np = 0;
  for (int b = 0; b < n; ++b)
    for (int k = 0; k < 5; ++k) {
      gs_fdtd_region r = gs_region_meet(m->region[k], boxes[b]);
      if (!gs_region_empty(r)) pieces[np++] = r;
    }
  if (np) m->b->fdtd_step(slab, pieces, np, st);
}

static void update_box(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, gs_fdtd_region box, gs_stream st) {
  update_boxes(m, slab, &box, 1, st);
}

/* Sources [from, to) of the class order, at step t, into the new Ez. */
static void inject(gs_fdtd_sim *m, int from, int to, gs_tick t, gs_stream st) {
  if (to > from)
    m->b->fdtd_inject(m->field[1 - m->cur][0], m->src_off + from, m->src_val + from, m->nsrc, t, to - from, m->pdl, st);
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
  gs_fdtd_step_args a = {.ez = m->field[in][0],
                         .hx = m->field[in][1],
                         .hy = m->field[in][2],
                         .mat = m->v.mat,
                         .ez_out = m->field[out][0],
                         .hx_out = m->field[out][1],
                         .hy_out = m->field[out][2],
                         .pitch = m->pitch,
                         .g = m->g,
                         .oi = m->oi0,
                         .oj = m->oj0,
                         .nx = m->nx,
                         .ny = m->ny,
                         .chx = m->chx,
                         .chy = m->chy,
                         .coef = m->coef,
                         .nslab = 0,
                         .concurrent = m->hi && m->hi != m->s,
                         .pdl = m->pdl};
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
  /* The step as the kernels read it: n, or in a graph being captured its
   * offset from the clock word the replays move on. */
  const gs_tick t = m->capturing ? (gs_tick){m->clock, n - m->graph_n0} : gs_tick_at(n);
  if (m->halo) {
    if (hi != lo && !m->fresh) b->stream_wait_event(lo, m->ev_ring); /* the previous step's ring */
    /* The overlapped send of the last exchange (on hi) reads this rank's own
     * nodes of the buffer this step overwrites: first step of the cycle for
     * odd R, second for even R (R = 1: the ring, written on hi only). */
    if (hi != lo && R > 1 && k == (R % 2 ? 0 : 1) && !m->fresh) b->stream_wait_event(lo, m->ev_sent);
    if (m->pending && !exchanging) gs_halo_wait(m->halo, lo);
  }
  if (m->nrx) {
    /* The last sample read the buffer this step writes. */
    if (m->rx_pending && !m->fresh) {
      b->stream_wait_event(lo, m->ev_rx_done);
      if (m->halo && hi != lo) b->stream_wait_event(hi, m->ev_rx_done);
    }
    m->rx_pending = 0;
    if (n - m->rx_flushed == GS_RX_CHUNK) flush_receivers(m); /* (never while capturing: see capture()) */
    /* lo has all of the previous step here (above: it waited for the ring). */
    b->event_record(m->ev_rx_ready, lo);
    b->stream_wait_event(m->rx_s, m->ev_rx_ready);
    b->fdtd_sample(m->v, m->rx_off, m->nrx, m->rx_buf, GS_RX_CHUNK, t, m->rx_s);
    b->event_record(m->ev_rx_done, m->rx_s);
    m->rx_pending = 1;
  }
  if (!exchanging) {
    int e = (int)(R - 1 - k);
    update_box(m, &sl, grown_box(m, e), lo);
    inject(m, 0, m->src_cum[1 + e], t, lo);
    if (k == R - 2) gs_halo_reads_done(m->halo, lo);
    b->event_record(m->ev_lo, lo);
    m->pending = 0;
  } else if (!m->halo || !m->overlap) {
    if (m->pending) gs_halo_wait(m->halo, lo);
    update_box(m, &sl, grown_box(m, 0), lo);
    inject(m, 0, m->src_cum[1], t, lo);
    if (m->halo) {
      gs_halo_send(m->halo, out, lo);
      gs_halo_finish(m->halo, out, lo);
      m->pending = 1;
    }
  } else {
    gs_fdtd_region own = grown_box(m, 0), core = interior_box(m);
    if (gs_region_empty(core)) core = (gs_fdtd_region){own.i0, own.i0, own.j0, own.j0};
    gs_fdtd_region ring[4] = {{own.i0, own.i1, own.j0, core.j0},
                              {own.i0, own.i1, core.j1, own.j1},
                              {own.i0, core.i0, core.j0, core.j1},
                              {core.i1, own.i1, core.j0, core.j1}};
    if (!m->fresh) b->stream_wait_event(hi, m->ev_lo); /* the previous step's interior */
    if (m->pending) gs_halo_wait(m->halo, hi);
    gs_fdtd_region pieces[4];
    int np = 0;
    for (int r = 0; r < 4; ++r)
      if (!gs_region_empty(ring[r])) pieces[np++] = ring[r];
    update_boxes(m, &sl, pieces, np, hi);
    inject(m, m->src_cum[0], m->src_cum[1], t, hi);
    b->event_record(m->ev_ring, hi);
    gs_halo_send(m->halo, out, hi);
    b->event_record(m->ev_sent, hi);
    if (!gs_region_empty(core)) update_box(m, &sl, core, lo);
    inject(m, 0, m->src_cum[0], t, lo);
    b->event_record(m->ev_lo, lo);
    gs_halo_finish(m->halo, out, hi);
    m->pending = 1;
  }
  m->cur = out;
  m->v.ez = m->field[out][0];
  m->v.hx = m->field[out][1];
  m->v.hy = m->field[out][2];
  m->step++;
  m->fresh = 0;
}

/* --------------------------------------------------------- CUDA graphs */

/* Joins the high-priority stream and the receivers' into s: s then follows
 * all queued work. */
static void join_streams(gs_fdtd_sim *m) {
  if (m->hi && m->hi != m->s) {
    m->b->event_record(m->ev_join, m->hi);
    m->b->stream_wait_event(m->s, m->ev_join);
  }
  join_receivers(m);
}

/* After a capture or a replay the step events were last recorded inside the
 * capture; record them again (on s, which has joined everything). */
static void rerecord_events(gs_fdtd_sim *m) {
  if (!m->halo) return;
  m->b->event_record(m->ev_ring, m->s);
  m->b->event_record(m->ev_lo, m->s);
  m->b->event_record(m->ev_sent, m->s);
}

/* Whether a graph can start here: deep-halo phase 0 after an exchange (any
 * step on one rank). */
static int cycle_start(const gs_fdtd_sim *m) {
  if (!m->halo) return 1;
  return m->pending && (m->step - m->k0) % m->depth == 0;
}

/* Steps per graph: whole deep-halo cycles, an even number of steps (the
 * same buffers at each start), at least 16 (16 to 28 for depths 1 to 8). */
static int graph_length(int depth) {
  int base = depth % 2 ? 2 * depth : depth;
  return base * ((16 + base - 1) / base);
}

/* Captures graph_len steps from here (nothing runs; the host state is put
 * back afterwards). */
static void capture(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  m->graph_len = graph_length(m->depth);
  if (!m->clock) {
    m->clock = b->dev_alloc(2 * sizeof(int64_t));
    m->ev_fork = b->event_create(0);
    m->ev_join = b->event_create(0);
    m->clock_host[0] = m->clock_host[1] = -1;
  }
  const int64_t step = m->step;
  const int cur = m->cur, pending = m->pending;
  const gs_fdtd_view v = m->v;
  int64_t x0 = m->halo ? gs_halo_exchanges(m->halo) : 0;
  join_streams(m);
  b->graph_begin(m->s);
  m->graph_n0 = step;
  m->capturing = 1;
  m->fresh = 1;
  if (m->halo) {
    gs_halo_capture(m->halo, m->clock + 1);
    if (m->hi != m->s) { /* the fork, and the step events recorded inside the capture */
      b->event_record(m->ev_fork, m->s);
      b->stream_wait_event(m->hi, m->ev_fork);
      b->event_record(m->ev_ring, m->hi);
      b->event_record(m->ev_sent, m->hi);
      b->event_record(m->ev_lo, m->s);
    }
  }
  for (int k = 0; k < m->graph_len; ++k)
    gs_fdtd_sim_step(m);
  join_streams(m);
  m->graph_exch = m->halo ? (int)(gs_halo_exchanges(m->halo) - x0) : 0;
  b->fdtd_clock(m->clock, m->graph_len, m->graph_exch, 1, m->s);
  m->graph = b->graph_end(m->s);
  m->capturing = 0;
  if (m->halo) gs_halo_capture(m->halo, NULL);
  rerecord_events(m);
  m->step = step;
  m->cur = cur;
  m->pending = pending;
  m->v = v;
}

/* Replays the graph: graph_len steps from here. */
static void replay(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  int64_t x = m->halo ? gs_halo_exchanges(m->halo) : 0;
  if (m->nrx && m->step + m->graph_len - m->rx_flushed > GS_RX_CHUNK) flush_receivers(m);
  join_streams(m);
  if (m->clock_host[0] != m->step || m->clock_host[1] != x) b->fdtd_clock(m->clock, m->step, x, 0, m->s);
  b->graph_launch(m->graph, m->s);
  rerecord_events(m);
  m->step += m->graph_len;
  if (m->halo) gs_halo_advance(m->halo, m->graph_exch);
  m->clock_host[0] = m->step;
  m->clock_host[1] = x + m->graph_exch;
}

void gs_fdtd_sim_advance(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  const int len = graph_length(m->depth);
  while (m->step < end) {
    int64_t left = end - m->step;
    if (m->graphs && !m->graph && cycle_start(m) && left >= len) {
      if (m->nrx && m->step + len - m->rx_flushed > GS_RX_CHUNK) flush_receivers(m); /* none due while capturing */
      capture(m);
    }
    if (m->graph && left >= m->graph_len && (m->step - m->graph_n0) % m->graph_len == 0 && cycle_start(m))
      replay(m);
    else
      gs_fdtd_sim_step(m);
  }
}

/* Forgets the captured graph (the deep-halo cycle starts anew). */
static void drop_graph(gs_fdtd_sim *m) {
  if (m->graph) m->b->graph_free(m->graph);
  m->graph = NULL;
}

void gs_fdtd_sim_sync(gs_fdtd_sim *m) {
  if (m->hi && m->hi != m->s) m->b->stream_sync(m->hi);
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
      for (int eh = 0; eh < 2; ++eh)
        out[n++] = (gs_halo_box_g){3 + 2 * side + eh, a0, a1, b0, b1};
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
      arr[3 + 2 * m->pml_side[k] + eh] = (gs_halo_array){
          {m->psi[k][0][eh], m->psi[k][1][eh]}, m->pml[k].o1 - m->pml[k].o0, m->pml[k].o0, m->pml[k].lo};
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
  m->graphs = m->graphs && gs_halo_graphable(m->halo);
  m->overlap = overlap;
  m->hi = overlap ? b->stream_create(1) : m->s;
  m->ev_ring = b->event_create(0);
  m->ev_lo = b->event_create(0);
  m->ev_sent = b->event_create(0);
  gs_fdtd_sim_refresh(m);
  return GS_OK;
}

void gs_fdtd_sim_refresh(gs_fdtd_sim *m) {
  drop_graph(m);
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
int gs_fdtd_agree_depth(const gs_scene *sc, const gs_backend *b, const gs_fdtd_part *part, int want, MPI_Comm comm) {
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
    m->graphs = m->graphs && sp->graphs;
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
    if (m.halo)
      gs_halo_summary(m.halo, used, usedlen);
    else
      snprintf(used, usedlen, "none");
  }
  if (depth_used) *depth_used = m.depth;
  gs_fdtd_sim_advance(&m, warmup);
  gs_fdtd_sim_sync(&m);
  int graphed = m.graph != NULL, all_graphed;
  GS_MPI_CHECK(MPI_Allreduce(&graphed, &all_graphed, 1, MPI_INT, MPI_MIN, cart));
  t->graphs = all_graphed;
  int64_t x0 = m.halo ? gs_halo_exchanges(m.halo) : 0;
  GS_MPI_CHECK(MPI_Barrier(cart));
  double t0 = MPI_Wtime();
  gs_fdtd_sim_advance(&m, steps);
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

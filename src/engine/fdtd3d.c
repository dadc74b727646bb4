/* One rank's 3D FDTD model (fdtd3d.h). */
#include "fdtd3d.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fdtd3d_dispersion.h"
#include "fdtd3d_dist.h"
#include "fdtd3d_planewave.h"
#include "fdtd3d_sources.h"
#include "fdtd_internal.h"
#include "geometry3d.h"
#include "parallel.h"

static void zero_device(const gs_backend *b, void *dev, size_t bytes, gs_stream s) {
  b->zero(dev, bytes, s);
  b->stream_sync(s);
}

static void *device_zeros(const gs_backend *b, size_t bytes, gs_stream s) {
  void *p = b->dev_alloc(bytes ? bytes : 1);
  zero_device(b, p, bytes, s);
  return p;
}

static int64_t node_at(const gs_fdtd3_sim *m, int64_t i, int64_t j, int64_t k) {
  return k * m->plane + j * m->pitch + i;
}

/* gprMax's materials in its order (pec 0, free_space 1, then #material). */
static gs_mat3 *gprmax_materials(const gs_scene *sc) {
  gs_mat3 *mats = gs_xcalloc((size_t)sc->nmaterials + 1, sizeof *mats);
  for (int k = 0; k < sc->nmaterials; ++k) {
    const gs_material *m = &sc->materials[k];
    gs_mat3 *o = &mats[k == 0 ? 1 : k == 1 ? 0 : k];
    snprintf(o->name, sizeof o->name, "%s", m->name);
    o->er = m->er;
    o->se = m->pec ? INFINITY : m->sigma;
    o->mr = m->mr;
    o->sm = m->sm;
    o->averagable = !m->pec && gs_scene_dispersion_of(sc, k) < 0; /* gprMax: dispersive ones are not */
  }
  return mats;
}

/* gprMax's update coefficients of every material (float64, stored float). */
static void coefficients(gs_fdtd3_sim *m, const gs_geometry3 *g) {
  const gs_scene *sc = m->sc;
  for (int k = 0; k < g->nmat; ++k) {
    const gs_mat3 *mt = &g->mat[k];
    if (k != 0 && isfinite(mt->se)) {
      double ea = GS_EPS0 * mt->er / sc->dt + 0.5 * mt->se, eb = GS_EPS0 * mt->er / sc->dt - 0.5 * mt->se;
      m->coef_host[k] = (gs_fdtd3_coef){(float)(eb / ea), (float)(1 / sc->dx * 1 / ea), (float)(1 / sc->dy * 1 / ea),
                                        (float)(1 / sc->dz * 1 / ea), (float)(1 / ea)};
    }
    double ha = GS_MU0 * mt->mr / sc->dt + 0.5 * mt->sm, hb = GS_MU0 * mt->mr / sc->dt - 0.5 * mt->sm;
    m->hcoef_host[k] = (gs_fdtd3_hcoef){(float)(hb / ha), (float)(1 / sc->dx * 1 / ha), (float)(1 / sc->dy * 1 / ha),
                                        (float)(1 / sc->dz * 1 / ha), (float)(1 / ha)};
  }
}

typedef struct node_copy {
  const gs_fdtd3_sim *m;
  const gs_geometry3 *g;
  int c;
  uint8_t *host;
  int magnetic[GS_PARALLEL_MAX];
} node_copy;

/* z planes [k0, k1) of component c's materials into the kernels' layout. */
static void copy_node_planes(void *ctx, int64_t k0, int64_t k1, int part) {
  (void)part;
  node_copy *nc = ctx;
  const gs_geometry3 *g = nc->g; /* the nodes it holds: all, or the rank's part */
  for (int64_t k = g->lo[2] + k0; k < g->lo[2] + k1; ++k)
    for (int64_t j = g->lo[1]; j < g->hi[1]; ++j)
      for (int64_t i = g->lo[0]; i < g->hi[0]; ++i)
        nc->host[node_at(nc->m, i, j, k) - nc->m->bias] = (uint8_t)g->id[nc->c][gs_geometry3_node(g, i, j, k)];
}

/* One component's node materials in the kernels' layout, to the device. */
static void node_materials(gs_fdtd3_sim *m, const gs_geometry3 *g, int c, uint8_t **dev) {
  node_copy nc = {.m = m, .g = g, .c = c, .host = gs_xcalloc((size_t)m->count, 1)};
  gs_parallel_for(g->hi[2] - g->lo[2], gs_parallel_threads(), copy_node_planes, &nc);
  *dev = m->b->dev_alloc((size_t)m->count);
  m->b->copy_h2d(*dev, nc.host, (size_t)m->count, m->s);
  m->b->stream_sync(m->s);
  free(nc.host);
}

/* z planes [k0, k1): does any H component there have a magnetic material? */
static void find_magnetic(void *ctx, int64_t k0, int64_t k1, int part) {
  node_copy *nc = ctx;
  const gs_geometry3 *g = nc->g;
  const size_t plane = (size_t)((g->hi[0] - g->lo[0]) * (g->hi[1] - g->lo[1]));
  for (int c = 3; c < 6 && !nc->magnetic[part]; ++c)
    for (size_t n = (size_t)k0 * plane; n < (size_t)k1 * plane; ++n)
      if (g->mat[g->id[c][n]].mr != 1 || g->mat[g->id[c][n]].sm != 0) {
        nc->magnetic[part] = 1;
        break;
      }
}

static int magnetic(const gs_geometry3 *g) {
  node_copy nc = {.g = g};
  gs_parallel_for(g->hi[2] - g->lo[2], gs_parallel_threads(), find_magnetic, &nc);
  for (int p = 0; p < GS_PARALLEL_MAX; ++p)
    if (nc.magnetic[p]) return 1;
  return 0;
}

static gs_status init_materials(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  if (g->nmat > GS_FDTD3_MAX_MATERIALS) {
    snprintf(err, errlen, "%s: %d materials with the averaged ones (dielectric smoothing); at most %d", m->sc->path,
             g->nmat, GS_FDTD3_MAX_MATERIALS);
    return GS_ERR_USAGE;
  }
  coefficients(m, g);
  for (int c = 0; c < 3; ++c)
    node_materials(m, g, c, &m->mat[c]);
  if (magnetic(g)) {
    for (int c = 0; c < 3; ++c)
      node_materials(m, g, 3 + c, &m->hmat[c]);
    m->hcoef = m->b->dev_alloc(sizeof m->hcoef_host);
    m->b->copy_h2d(m->hcoef, m->hcoef_host, sizeof m->hcoef_host, m->s);
  }
  m->coef = m->b->dev_alloc(sizeof m->coef_host);
  m->b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
  m->b->stream_sync(m->s);
  return GS_OK;
}

/* gprMax's sigma_max of CFS term cfs: from the first slab it builds (x0,
 * y0, z0, xmax, ymax, zmax), er and mr averaged over one plane of its
 * cells, shared by all; each term with its own sigma order. */
static double sigma_max(const gs_scene *sc, const gs_geometry3 *g, const gs_cfs *cfs) {
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  for (int s = 0; s < 6; ++s) {
    int dir = s % 3, t = sc->pml6[s];
    if (!t) continue;
    int64_t at = s < 3 ? 0 : n[dir] - t, c[3];
    int a = dir == 0 ? 1 : 0, b = dir == 2 ? 1 : 2;
    double er = 0, mr = 0;
    c[dir] = at;
    for (c[b] = 0; c[b] < n[b]; ++c[b])
      for (c[a] = 0; c[a] < n[a]; ++c[a]) {
        const gs_mat3 *m = &g->mat[g->solid[gs_geometry3_cell(g, c[0], c[1], c[2])]];
        er += m->er;
        mr += m->mr;
      }
    er /= (double)(n[a] * n[b]);
    mr /= (double)(n[a] * n[b]);
    return 0.8 * (cfs->sigma.order + 1) / (sqrt(GS_MU0 / GS_EPS0) * d[dir] * sqrt(er * mr));
  }
  return 0;
}

/* The kernels' CPML form of scene sc (fdtd3d_kernels.h). */
static int pml_form(const gs_scene *sc) {
  if (sc->pml_formulation == GS_PML_MRIPML) return sc->ncfs > 1 ? GS_FDTD3_MRIPML2 : GS_FDTD3_MRIPML1;
  return sc->ncfs > 1 ? GS_FDTD3_HORIPML2 : GS_FDTD3_HORIPML1;
}

/* gprMax's float32 RA, RB, RE, RF of each CFS term at depth q of a slab t
 * cells thick, for E (half 0) or H (half 1); smax: each term's sigma max. */
static void depth_coefs(const gs_scene *sc, const double *smax, int64_t q, int half, int64_t t, float r[2][4]) {
  for (int c = 0; c < sc->ncfs; ++c) {
    const gs_cfs *cfs = &sc->cfs[c];
    double sigma = gs_fdtd_cfs_value(&cfs->sigma, q, half, t, smax[c]);
    double kappa = gs_fdtd_cfs_value(&cfs->kappa, q, half, t, cfs->kappa.max);
    double alpha = gs_fdtd_cfs_value(&cfs->alpha, q, half, t, cfs->alpha.max);
    gs_fdtd_pml_r(sc, cfs, sc->pml_formulation == GS_PML_MRIPML, sigma, kappa, alpha, r[c]);
  }
}

/* One slab's profiles to the device. First-order HORIPML: RA - 1, RB, RE,
 * RF of E at depth q / t, then the same of H at (q + 1/2) / t (gprMax's
 * form); the other forms: the K coefficients of each E depth, then of each
 * H depth (gs_fdtd3_pml_coefs). *floats: how many. */
static float *slab_profiles(gs_fdtd3_sim *m, int64_t t, const double *smax, size_t *floats) {
  const gs_scene *sc = m->sc;
  const int form = pml_form(sc);
  const size_t per = form == GS_FDTD3_HORIPML1 ? 4 : GS_FDTD3_PML_K; /* floats a depth */
  *floats = 2 * per * (size_t)t;
  float *h = gs_xmalloc(sizeof(float) * *floats);
  for (int half = 0; half < 2; ++half)
    for (int64_t q = 0; q < t; ++q) {
      float r[2][4] = {{0}}, *base = h + (size_t)half * per * (size_t)t;
      depth_coefs(sc, smax, q, half, t, r);
      if (form != GS_FDTD3_HORIPML1) {
        gs_fdtd3_pml_coefs(form, (const float(*)[4])r, base + (size_t)q * per);
        continue;
      }
      base[q] = r[0][0] - 1.0f; /* gprMax's RA01, float32 */
      for (int c = 1; c < 4; ++c)
        base[c * t + q] = r[0][c];
    }
  float *dev = m->b->dev_alloc(sizeof(float) * *floats);
  m->b->copy_h2d(dev, h, sizeof(float) * *floats, m->s);
  m->b->stream_sync(m->s);
  free(h);
  return dev;
}

/* A slab's profile pointers into prof (slab_profiles' layout). */
static void slab_pointers(gs_fdtd3_slab *p, float *prof, int form) {
  const int64_t t = p->t;
  if (form != GS_FDTD3_HORIPML1) {
    p->ke = prof, p->kh = prof + GS_FDTD3_PML_K * t;
    return;
  }
  p->ra1e = prof, p->rbe = prof + t, p->ree = prof + 2 * t, p->rfe = prof + 3 * t;
  p->ra1h = prof + 4 * t, p->rbh = prof + 5 * t, p->reh = prof + 6 * t, p->rfh = prof + 7 * t;
}

static void init_cpml(gs_fdtd3_sim *m, const gs_geometry3 *g) {
  const gs_scene *sc = m->sc;
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  double smax[GS_SCENE_MAX_CFS]; /* gprMax computes it where none is given (None) and where it is 0 */
  for (int c = 0; c < sc->ncfs; ++c)
    smax[c] = sc->cfs[c].sigma.max > 0 ? sc->cfs[c].sigma.max : sigma_max(sc, g, &sc->cfs[c]);
  m->pml_form = pml_form(sc);
  for (int s = 0; s < 6; ++s) {
    int dir = s % 3;
    int64_t t = sc->pml6[s];
    if (!t || !gs_fdtd3_dist_slab_reaches(m, dir, s >= 3, t)) continue; /* a part far from it */
    int a = dir == 0 ? 1 : 0, b = dir == 2 ? 1 : 2;
    gs_fdtd3_slab *p = &m->slab[m->nslab];
    /* The piece of the face the arrays hold (nodes at n_a, n_b take no correction): all of it on one rank. */
    p->sa = (m->org[a] + m->len[a] < n[a] ? m->org[a] + m->len[a] : n[a]) - m->org[a];
    p->sb = (m->org[b] + m->len[b] < n[b] ? m->org[b] + m->len[b] : n[b]) - m->org[b];
    m->psi_bias[m->nslab] = (m->org[b] * p->sa + m->org[a]) * (dir == 0 ? t : 1);
    size_t cells = (size_t)t * (size_t)p->sa * (size_t)p->sb, floats;
    p->dir = dir;
    p->side = s >= 3;
    p->t = t;
    p->psi2 = sc->ncfs > 1 ? (int64_t)cells : 0; /* the second CFS term's Phi follow the first's */
    float *prof = m->prof[m->nslab] = slab_profiles(m, t, smax, &floats);
    p->d = (float)(dir == 0 ? sc->dx : dir == 1 ? sc->dy : sc->dz);
    slab_pointers(p, prof, m->pml_form);
    m->psi_floats[m->nslab] = cells * (size_t)sc->ncfs;
    for (int set = 0; set < 2; ++set)
      for (int slot = 0; slot < 4; ++slot)
        m->psi[m->nslab][set][slot] = device_zeros(m->b, sizeof(float) * m->psi_floats[m->nslab], m->s);
    m->nslab++;
  }
}

static void free_receivers(gs_fdtd3_sim *m) {
  if (m->rx_off) m->b->dev_free(m->rx_off);
  if (m->rx_ring) m->b->dev_free(m->rx_ring);
  free(m->rx_hist);
  free(m->rx_index);
  m->rx_off = NULL, m->rx_ring = NULL, m->rx_hist = NULL, m->rx_index = NULL;
  m->nrx = 0;
}

/* The receivers at the owned nodes (every one on one rank), in the scene's order. */
static void init_receivers(gs_fdtd3_sim *m) {
  const gs_scene *sc = m->sc;
  m->nrx = 0;
  if (!sc->nrx) return;
  int64_t *off = gs_xmalloc(sizeof *off * (size_t)sc->nrx);
  if (m->split) m->rx_index = gs_xmalloc(sizeof *m->rx_index * (size_t)sc->nrx);
  for (int q = 0; q < sc->nrx; ++q) {
    const gs_rx *r = &sc->rxs[q];
    const int64_t i = r->i + m->run * sc->rx_di, j = r->j + m->run * sc->rx_dj, k = r->k + m->run * sc->rx_dk;
    if (!gs_fdtd3_sim_owns(m, i, j, k)) continue;
    if (m->rx_index) m->rx_index[m->nrx] = q;
    off[m->nrx++] = node_at(m, i, j, k);
  }
  if (!m->nrx) {
    free(off);
    return;
  }
  m->rx_off = m->b->dev_alloc(sizeof *off * (size_t)m->nrx);
  m->b->copy_h2d(m->rx_off, off, sizeof *off * (size_t)m->nrx, m->s);
  m->rx_ring = m->b->dev_alloc(sizeof(float) * 6 * (size_t)m->nrx * GS_RX3_CHUNK);
  m->rx_hist = gs_xcalloc((size_t)sc->iterations * 6 * (size_t)m->nrx, sizeof(float));
  m->b->stream_sync(m->s);
  free(off);
}

/* The nodes m holds: the whole model, or sp's part with its ghost layers;
 * the layout of its arrays and their bias (fdtd3d.h). */
static void set_extent(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp) {
  const int64_t n[3] = {m->sc->nx, m->sc->ny, m->sc->nz};
  m->split = sp != NULL;
  for (int a = 0; a < 3; ++a) {
    m->lo[a] = sp ? sp->part.lo[a] : 0;
    m->hi[a] = sp ? sp->part.hi[a] : n[a] + 1;
    m->org[a] = m->lo[a] - (m->lo[a] > 0);
    /* A part's rows start at a multiple of 32 in x, as one rank's do: the
     * fused kernel's tiles then read aligned rows (fdtd3d.cu). */
    if (a == 0) m->org[a] &= ~(int64_t)31;
    m->len[a] = m->hi[a] + (m->hi[a] <= n[a]) - m->org[a];
  }
  gs_fdtd3_layout(m->len[0] - 1, m->len[1] - 1, m->len[2] - 1, &m->pitch, &m->plane, &m->count);
  m->bias = m->org[2] * m->plane + m->org[1] * m->pitch + m->org[0];
}

/* The geometry of the nodes m holds; a part also paints the plane that
 * gprMax's sigma_max averages (sigma_plane, a whole plane of cells). */
static gs_status build_geometry(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, gs_geometry3 *g, gs_geometry3 *sigma_plane,
                                char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  gs_mat3 *mats = gprmax_materials(sc);
  gs_status st = sp ? gs_fdtd3_dist_geometry(g, sigma_plane, sc, mats, sp, err, errlen)
                    : gs_geometry3_build(g, sc->nx, sc->ny, sc->nz, sc->dx, sc->dy, sc->dz, mats, sc->nmaterials,
                                         sc->objs3, sc->nobjs3, err, errlen);
  free(mats);
  if (st != GS_OK) gs_geometry3_where(err, errlen, sc->path);
  return st;
}

/* Whether cache holds the geometry of m's scene and split sp. */
static int cache_holds(const gs_fdtd3_model_cache *cache, const gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp) {
  return cache && cache->valid && cache->sc == m->sc && cache->sp == sp;
}

/* The geometry of the model (this rank's part and its sigma plane when split):
 * the cache's when it holds this scene's, else built (and kept there when a
 * cache is given). *owned says whether the caller frees them. */
static gs_status geometry_of(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, gs_fdtd3_model_cache *cache, gs_geometry3 **g,
                             gs_geometry3 **plane, gs_geometry3 own[2], char *err, size_t errlen) {
  if (cache_holds(cache, m, sp)) {
    *g = &cache->g, *plane = &cache->plane;
    return GS_OK;
  }
  if (cache) gs_fdtd3_model_cache_free(cache);
  gs_geometry3 *dst = cache ? &cache->g : &own[0], *pl = cache ? &cache->plane : &own[1];
  memset(pl, 0, sizeof *pl);
  gs_status st = build_geometry(m, sp, dst, pl, err, errlen);
  if (st != GS_OK) return st;
  if (cache) *cache = (gs_fdtd3_model_cache){.sc = m->sc, .sp = sp, .g = *dst, .plane = *pl, .valid = 1};
  *g = cache ? &cache->g : dst;
  *plane = cache ? &cache->plane : pl;
  return GS_OK;
}

void gs_fdtd3_model_cache_free(gs_fdtd3_model_cache *cache) {
  for (int k = 0; k < cache->nkept; ++k)
    gs_fdtd3_sim_free(&cache->kept[k]);
  free(cache->kept);
  if (cache->valid) {
    gs_geometry3_free(&cache->g);
    if (cache->sp) gs_geometry3_free(&cache->plane);
  }
  memset(cache, 0, sizeof *cache);
}

void gs_fdtd3_sim_keep(gs_fdtd3_sim *m, gs_fdtd3_model_cache *cache) {
  if (!m->b) return;
  if (!cache || !cache->valid || cache->sc != m->sc || (cache->sp != NULL) != (m->split != 0)) {
    gs_fdtd3_sim_free(m); /* built for another scene (or without a cache): no later run takes it */
    return;
  }
  if (cache->nkept == GS_FDTD3_KEPT_MAX || (cache->nkept && cache->kept[0].b != m->b)) {
    gs_fdtd3_sim_free(m); /* no room, or kept on another backend: no later run takes it */
    return;
  }
  gs_fdtd3_dist_settle(m); /* no exchange left in flight into or out of the arrays */
  m->b->stream_sync(m->s);
  if (!cache->kept) cache->kept = gs_xcalloc(GS_FDTD3_KEPT_MAX, sizeof *cache->kept);
  cache->kept[cache->nkept++] = *m;
  memset(m, 0, sizeof *m);
}

/* Run `run` on the arrays of the model of the same scene and split that m
 * holds (its previous run, gs_fdtd3_sim_keep): the state of a model built
 * for run. Fields, CPML auxiliaries (both sets) and, in gs_fdtd3_disp_place,
 * the pole state are zeroed on the device; what the previous run's sources
 * changed goes back (the materials of the resistive voltage sources' nodes,
 * their coefficient entries past the geometry's); sources, plane waves,
 * the dispersive nodes (the sources' are deferred) and receivers are set up
 * for run as in a built model. The geometry's coefficients, the dispersive
 * ones included, the CPML profiles and a split's exchanges stay. */
static gs_status sim_reset(gs_fdtd3_sim *m, const gs_geometry3 *g, int run, char *err, size_t errlen) {
  const gs_backend *b = m->b;
  m->run = run;
  m->step = m->flushed = 0;
  m->cur = 0;
  m->reused = 1;
  for (int set = 0; set < 2; ++set)
    for (int c = 0; c < 6; ++c)
      b->zero(m->f[set][c], sizeof(float) * (size_t)m->count, m->s);
  for (int s = 0; s < m->nslab; ++s)
    for (int set = 0; set < 2; ++set)
      for (int slot = 0; slot < 4; ++slot)
        b->zero(m->psi[s][set][slot], sizeof(float) * m->psi_floats[s], m->s);
  gs_fdtd3_src_restore(m); /* after the zeroing on m->s, before this run's sources change nodes again */
  gs_fdtd3_src_free(m);
  gs_fdtd3_pw_free(m);
  free_receivers(m);
  memset(m->coef_host + g->nmat, 0, sizeof m->coef_host[0] * (size_t)(GS_FDTD3_MAX_MATERIALS - g->nmat));
  b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
  b->stream_sync(m->s);
  gs_status st = gs_fdtd3_src_init(m, g, err, errlen);
  if (st == GS_OK) st = gs_fdtd3_pw_init(m, err, errlen);
  if (st == GS_OK) st = gs_fdtd3_disp_place(m, g, err, errlen);
  init_receivers(m);
  return st;
}

/* The model the cache keeps, reset for run; on a split, the ranks agree
 * (and their arrays are all zeroed before any neighbour's next exchange
 * writes a ghost layer). */
static gs_status take_kept(gs_fdtd3_sim *m, gs_fdtd3_model_cache *cache, int run, char *err, size_t errlen) {
  *m = cache->kept[--cache->nkept];
  memset(&cache->kept[cache->nkept], 0, sizeof cache->kept[0]);
  gs_status st = sim_reset(m, &cache->g, run, err, errlen);
  if (cache->sp) st = gs_fdtd3_dist_agree(st, cache->sp->comm, err, errlen);
  if (st != GS_OK) gs_fdtd3_sim_free(m);
  return st;
}

gs_status gs_fdtd3_sim_init_cached(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                   const gs_fdtd3_ranks *sp, gs_fdtd3_model_cache *cache, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->b = b;
  m->sc = sc;
  if (cache_holds(cache, m, sp) && cache->nkept && cache->kept[0].b == b) return take_kept(m, cache, run, err, errlen);
  m->run = run;
  m->s = b->stream_create(0);
  set_extent(m, sp);
  gs_geometry3 own[2], *g, *plane;
  gs_status st = geometry_of(m, sp, cache, &g, &plane, own, err, errlen);
  if (st != GS_OK) {
    b->stream_destroy(m->s);
    memset(m, 0, sizeof *m);
    return st;
  }
  st = init_materials(m, g, err, errlen);
  if (st == GS_OK) {
    m->disp = gs_fdtd3_disp_init(m, g); /* before the sources take srce */
    for (int set = 0; set < 2; ++set)
      for (int c = 0; c < 6; ++c)
        m->f[set][c] = device_zeros(b, sizeof(float) * (size_t)m->count, m->s);
    init_cpml(m, sp ? plane : g);
    st = gs_fdtd3_src_init(m, g, err, errlen); /* every source, Hertzian dipoles too (fdtd3d_sources.c) */
    /* plane waves (fdtd3d_planewave.c) */
    if (st == GS_OK) st = gs_fdtd3_pw_init(m, err, errlen);
    /* the dispersive nodes: fused, or deferred where a source or plane wave changes E after the update */
    if (st == GS_OK) st = gs_fdtd3_disp_place(m, g, err, errlen);
    init_receivers(m);
  }
  if (!cache) {
    gs_geometry3_free(g);
    if (sp) gs_geometry3_free(plane);
  }
  if (sp) {
    st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
    if (st == GS_OK) /* the ranks agree on the exchanges; the reason goes to every rank */
      st = gs_fdtd3_dist_agree(gs_fdtd3_dist_connect(m, sp, err, errlen), sp->comm, err, errlen);
  }
  if (st != GS_OK) gs_fdtd3_sim_free(m);
  return st;
}

gs_status gs_fdtd3_sim_init_part(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                 const gs_fdtd3_ranks *sp, char *err, size_t errlen) {
  return gs_fdtd3_sim_init_cached(m, sc, b, run, sp, NULL, err, errlen);
}

gs_status gs_fdtd3_sim_init(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run, char *err,
                            size_t errlen) {
  return gs_fdtd3_sim_init_part(m, sc, b, run, NULL, err, errlen);
}

/* The step's arguments: read set `in`, write the other. The arrays are
 * biased (fdtd3d.h): global offsets index them (bias 0 on one rank). */
static gs_fdtd3_step_args step_args(gs_fdtd3_sim *m, int in) {
  const gs_scene *sc = m->sc;
  float *fi[6], *fo[6];
  for (int c = 0; c < 6; ++c) {
    fi[c] = m->f[in][c] - m->bias;
    fo[c] = m->f[1 - in][c] - m->bias;
  }
  const uint8_t *hm[3];
  for (int c = 0; c < 3; ++c)
    hm[c] = m->hmat[c] ? m->hmat[c] - m->bias : NULL;
  gs_fdtd3_step_args a = {
      .ex = fi[0],
      .ey = fi[1],
      .ez = fi[2],
      .hx = fi[3],
      .hy = fi[4],
      .hz = fi[5],
      .ex_out = fo[0],
      .ey_out = fo[1],
      .ez_out = fo[2],
      .hx_out = fo[3],
      .hy_out = fo[4],
      .hz_out = fo[5],
      .mex = m->mat[0] - m->bias,
      .mey = m->mat[1] - m->bias,
      .mez = m->mat[2] - m->bias,
      .coef = m->coef,
      .pitch = m->pitch,
      .plane = m->plane,
      .nx = sc->nx,
      .ny = sc->ny,
      .nz = sc->nz,
      .dbx = m->hcoef_host[1].dbx,
      .dby = m->hcoef_host[1].dby,
      .dbz = m->hcoef_host[1].dbz,
      .srcm = m->hcoef_host[1].src,
      .hmx = hm[0],
      .hmy = hm[1],
      .hmz = hm[2],
      .hcoef = m->hcoef,
      .nslab = m->nslab,
      .pml_form = m->pml_form,
      .held = {m->org[0], m->org[0] + m->len[0], m->org[1], m->org[1] + m->len[1], m->org[2], m->org[2] + m->len[2]}};
  gs_fdtd3_disp_poles(m, &a);
  for (int s = 0; s < m->nslab; ++s) {
    a.slab[s] = m->slab[s];
    for (int slot = 0; slot < 2; ++slot) {
      a.slab[s].psi_e_in[slot] = m->psi[s][in][slot] - m->psi_bias[s]; /* biased as the fields (0 on one rank) */
      a.slab[s].psi_h_in[slot] = m->psi[s][in][2 + slot] - m->psi_bias[s];
      a.slab[s].psi_e_out[slot] = m->psi[s][1 - in][slot] - m->psi_bias[s];
      a.slab[s].psi_h_out[slot] = m->psi[s][1 - in][2 + slot] - m->psi_bias[s];
    }
  }
  return a;
}

static void flush_receivers(gs_fdtd3_sim *m) {
  int64_t first = m->flushed, count = m->step - first;
  if (!m->nrx || count <= 0) return;
  size_t per = 6 * (size_t)m->nrx;
  int64_t s0 = first % GS_RX3_CHUNK, n1 = count < GS_RX3_CHUNK - s0 ? count : GS_RX3_CHUNK - s0;
  m->b->copy_d2h(m->rx_hist + (size_t)first * per, m->rx_ring + (size_t)s0 * per, sizeof(float) * per * (size_t)n1,
                 m->s);
  if (count > n1)
    m->b->copy_d2h(m->rx_hist + (size_t)(first + n1) * per, m->rx_ring, sizeof(float) * per * (size_t)(count - n1),
                   m->s);
  m->b->stream_sync(m->s);
  m->flushed = m->step;
}

/* One step: receivers see the fields before it (gprMax's order), then the
 * update, then the dipoles' currents on the new E. */
static void step_once(gs_fdtd3_sim *m) {
  const gs_backend *b = m->b;
  const gs_scene *sc = m->sc;
  gs_tick t = gs_tick_at(m->step);
  if (m->nrx) {
    gs_fdtd3_fields v;
    for (int c = 0; c < 6; ++c)
      v.f[c] = m->f[m->cur][c] - m->bias;
    b->fdtd3_sample(v, m->rx_off, m->nrx, m->rx_ring, GS_RX3_CHUNK, t, m->s);
  }
  gs_fdtd3_step_args a = step_args(m, m->cur);
  gs_fdtd3_region all = {0, sc->nx + 1, 0, sc->ny + 1, 0, sc->nz + 1};
  if (m->split) { /* a part: H, the H sources and plane waves' H part, the H ghosts, then E (fdtd3d_dist.c) */
    gs_fdtd3_dist_update(m, &a, t);
  } else {
    b->fdtd3_step(&a, &all, 1, m->s);
    /* gprMax's order: H sources, the dispersive E update (the deferred nodes' after the step), E sources,
     * then the poles' second half (the fused nodes' done by the step itself) */
    if (m->xsrc) gs_fdtd3_src_step(m, &a, t, GS_FDTD3_SRC_H);
    if (m->pw) gs_fdtd3_pw_step(m, &a, t, GS_FDTD3_PW_H); /* gprMax: after the H sources */
  }
  if (m->disp) gs_fdtd3_disp_after_step(m, &a);
  if (m->xsrc) gs_fdtd3_src_step(m, &a, t, GS_FDTD3_SRC_E);
  if (m->pw) gs_fdtd3_pw_step(m, &a, t, GS_FDTD3_PW_E); /* gprMax: after the E sources */
  m->cur = 1 - m->cur;
  if (m->split) gs_fdtd3_dist_after_step(m); /* the E ghosts of the new set */
  if (m->disp) gs_fdtd3_disp_after_sources(m, &a);
  m->step++;
  if (m->step - m->flushed == GS_RX3_CHUNK) flush_receivers(m);
}

void gs_fdtd3_sim_advance(gs_fdtd3_sim *m, int64_t count) {
  for (int64_t k = 0; k < count; ++k)
    step_once(m);
}

void gs_fdtd3_sim_sync(gs_fdtd3_sim *m) {
  if (m->split) gs_fdtd3_dist_settle(m);
  m->b->stream_sync(m->s);
  flush_receivers(m);
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A slab of planes of one field read back, hashed by the threads (sums: order-free). */
typedef struct sum_part {
  const gs_fdtd3_sim *m;
  const float *rows; /* planes k0 .. of field c, as the device holds them */
  int64_t k0;
  int c;
  uint64_t sum[GS_PARALLEL_MAX];
} sum_part;

static void sum_planes(void *ctx, int64_t lo, int64_t hi, int part) {
  sum_part *p = ctx;
  const gs_fdtd3_sim *m = p->m;
  const gs_scene *sc = m->sc;
  uint64_t sum = 0;
  for (int64_t k = p->k0 + lo; k < p->k0 + hi; ++k) {
    const float *row = p->rows + (k - p->k0) * m->plane;
    for (int64_t j = m->lo[1]; j < m->hi[1]; ++j)
      for (int64_t i = m->lo[0]; i < m->hi[0]; ++i) {
        uint32_t bits;
        memcpy(&bits, &row[(j - m->org[1]) * m->pitch + i - m->org[0]], 4);
        uint64_t g = (uint64_t)((k * (sc->ny + 1) + j) * (sc->nx + 1) + i);
        sum += mix64(g * 0x9E3779B97F4A7C15ull ^ ((uint64_t)bits << 1 | (uint64_t)p->c << 40));
      }
  }
  p->sum[part] = sum;
}

/* Over the owned nodes (all of them on one rank), summed over the ranks: read back some 64 MB of
 * planes at a time and hashed on the threads. */
void gs_fdtd3_sim_checksum(gs_fdtd3_sim *m, uint64_t sum[2]) {
  const int64_t per = m->plane > (int64_t)1 << 24 ? 1 : ((int64_t)1 << 24) / m->plane;
  float *rows = gs_xmalloc(sizeof(float) * (size_t)(m->plane * per));
  const int threads = gs_parallel_threads();
  sum_part *p = gs_xcalloc(1, sizeof *p);
  sum[0] = sum[1] = 0;
  for (int c = 0; c < 6; ++c)
    for (int64_t k0 = m->lo[2]; k0 < m->hi[2]; k0 += per) {
      const int64_t n = m->hi[2] - k0 < per ? m->hi[2] - k0 : per;
      m->b->copy_d2h(rows, m->f[m->cur][c] + (k0 - m->org[2]) * m->plane, sizeof(float) * (size_t)(n * m->plane), m->s);
      m->b->stream_sync(m->s);
      *p = (sum_part){.m = m, .rows = rows, .k0 = k0, .c = c};
      const int parts = n < threads ? (int)n : threads;
      gs_parallel_for(n, parts, sum_planes, p);
      for (int q = 0; q < parts; ++q)
        sum[c / 3] += p->sum[q];
    }
  free(p);
  free(rows);
  if (m->split) gs_fdtd3_dist_checksum(m, sum);
}

void gs_fdtd3_sim_free(gs_fdtd3_sim *m) {
  const gs_backend *b = m->b;
  if (!b) return;
  b->stream_sync(m->s);
  gs_fdtd3_dist_free(m);
  gs_fdtd3_disp_free(m);
  gs_fdtd3_src_free(m);
  gs_fdtd3_pw_free(m);
  for (int set = 0; set < 2; ++set)
    for (int c = 0; c < 6; ++c)
      if (m->f[set][c]) b->dev_free(m->f[set][c]);
  for (int c = 0; c < 3; ++c) {
    if (m->mat[c]) b->dev_free(m->mat[c]);
    if (m->hmat[c]) b->dev_free(m->hmat[c]);
  }
  for (int s = 0; s < m->nslab; ++s) {
    b->dev_free(m->prof[s]);
    for (int set = 0; set < 2; ++set)
      for (int slot = 0; slot < 4; ++slot)
        b->dev_free(m->psi[s][set][slot]);
  }
  if (m->coef) b->dev_free(m->coef);
  if (m->hcoef) b->dev_free(m->hcoef);
  free_receivers(m);
  b->stream_destroy(m->s);
  memset(m, 0, sizeof *m);
}

/* The state list: one line per piece (fdtd3d.h). The read set of the
 * fields and CPML auxiliaries is the state; the other set is rewritten
 * whole by the next step. */
int gs_fdtd3_sim_state(gs_fdtd3_sim *m, gs_fdtd3_state *out) {
  static const char *field[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
  int n = 0;
  for (int c = 0; c < 6; ++c)
    out[n++] = (gs_fdtd3_state){.dev = m->f[m->cur][c], .bytes = sizeof(float) * (size_t)m->count};
  for (int c = 0; c < 6; ++c)
    snprintf(out[c].name, sizeof out[c].name, "field.%s", field[c]);
  for (int s = 0; s < m->nslab; ++s) {
    const gs_fdtd3_slab *p = &m->slab[s];
    for (int slot = 0; slot < 4; ++slot) {
      out[n] = (gs_fdtd3_state){.dev = m->psi[s][m->cur][slot], .bytes = sizeof(float) * m->psi_floats[s]};
      snprintf(out[n++].name, sizeof out[0].name, "cpml.%c%s.%s%d", "xyz"[p->dir], p -> side ? "max" : "min",
               slot < 2 ? "e" : "h", slot % 2);
    }
  }
  if (m->nrx) {
    out[n] = (gs_fdtd3_state){.host = m->rx_hist, .bytes = sizeof(float) * 6 * (size_t)m->nrx * (size_t)m->step};
    snprintf(out[n++].name, sizeof out[0].name, "rx.history");
  }
  n += gs_fdtd3_disp_state(m, out + n); /* the dispersive poles */
  n += gs_fdtd3_src_state(m, out + n);  /* the transmission lines */
  n += gs_fdtd3_pw_state(m, out + n);   /* the plane waves' 1D grids */
  /* New state: one more entry here. */
  return n;
}

void gs_fdtd3_sim_resume(gs_fdtd3_sim *m, int64_t step) {
  m->step = step;
  m->flushed = step;
}

void *gs_fdtd3_upload(gs_fdtd3_sim *m, const void *host, size_t bytes, void ***list, int *n) {
  void *dev = m->b->dev_alloc(bytes ? bytes : 1);
  if (bytes) m->b->copy_h2d(dev, host, bytes, m->s);
  m->b->stream_sync(m->s);
  *list = gs_xrealloc(*list, sizeof **list * (size_t)(*n + 1));
  (*list)[(*n)++] = dev;
  return dev;
}

void gs_fdtd3_upload_free(gs_fdtd3_sim *m, void ***list, int *n) {
  for (int q = 0; q < *n; ++q)
    m->b->dev_free((*list)[q]);
  free(*list);
  *list = NULL;
  *n = 0;
}

void gs_fdtd3_memory_need(const gs_scene *sc, double *device, double *host) {
  int64_t pitch, plane, count;
  gs_fdtd3_layout(sc->nx, sc->ny, sc->nz, &pitch, &plane, &count);
  int magnetic = 0;
  for (int k = 0; k < sc->nmaterials; ++k)
    magnetic |= sc->materials[k].mr != 1 || sc->materials[k].sm != 0;
  double nodes = (double)count, pml = 0, steps = (double)sc->iterations;
  const double n[3] = {(double)sc->nx, (double)sc->ny, (double)sc->nz};
  for (int s = 0; s < 6; ++s) /* four auxiliaries of t x n_a x n_b per CFS term, two sets */
    pml += 32.0 * sc->ncfs * sc->pml6[s] * n[(s % 3 + 1) % 3] * n[(s % 3 + 2) % 3];
  /* fields (two sets of six), E (and H) materials, CPML, source values, the receivers' ring */
  *device = 48.0 * nodes + (magnetic ? 6.0 : 3.0) * nodes + pml + 8.0 * steps * sc->nsources +
            24.0 * GS_RX3_CHUNK * sc->nrx + 16.0 * steps * sc->nsrc3 + /* the other sources' values, a line's series */
            gs_fdtd3_disp_memory(sc);                                  /* + dispersive pole state */
  *device += gs_fdtd3_pw_memory(sc);                                   /* the plane waves' 1D grids and tables */
  /* the geometry build (cells: material and edge flags; nodes: six 2-byte materials), host
   * materials, receiver histories */
  *host = 8.0 * n[0] * n[1] * n[2] + 12.0 * nodes + 3.0 * nodes + 24.0 * steps * sc->nrx + 8.0 * steps * sc->nsources +
          24.0 * steps * sc->nsrc3 + gs_fdtd3_disp_memory(sc); /* the pole lists and zeros, made on the host first */
  *host += gs_fdtd3_pw_memory(sc);
}

gs_mat3 *gs_fdtd3_materials(const gs_scene *sc) {
  return gprmax_materials(sc);
}

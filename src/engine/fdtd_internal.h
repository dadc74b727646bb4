/* Helpers shared by the FDTD sources (the 2D engine's fdtd.c, fdtd_step.c and fdtd_dist.c, its
 * checkpoints, the 2D driver and its pictures); not an interface. */
#ifndef GS_FDTD_INTERNAL_H
#define GS_FDTD_INTERNAL_H

#include "fdtd.h"

/* Offset of global node (i, j) in this rank's arrays. */
static inline size_t gs_fdtd_index(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return (size_t)((j - m->grid.own.j0 + m->grid.g) * m->grid.pitch + (i - m->grid.own.i0 + m->grid.g));
}

static inline gs_fdtd_region gs_region_meet(gs_fdtd_region a, gs_fdtd_region b) {
  gs_fdtd_region r = {a.i0 > b.i0 ? a.i0 : b.i0, a.i1 < b.i1 ? a.i1 : b.i1, a.j0 > b.j0 ? a.j0 : b.j0,
                      a.j1 < b.j1 ? a.j1 : b.j1};
  if (r.i1 < r.i0) r.i1 = r.i0;
  if (r.j1 < r.j0) r.j1 = r.j0;
  return r;
}

/* A CFS parameter's profile value at depth (0 at the PML's inner face, 1 at the wall). */
double gs_fdtd_cfs_profile(const gs_cfs_param *p, double depth, double max);
/* gprMax's HORIPML coefficients at one depth in the kernels' form (docs/fdtd.md, "CPML"):
 * b = RE, a = -RB RF, k = RA - 1. */
void gs_fdtd_horipml(const gs_scene *sc, double sigma, double kappa, double alpha, float *b, float *a, float *k);
/* gprMax's first-order HORIPML coefficients RA, RB, RE, RF (float32) of one
 * depth (the 3D engine uses them as they are: gprMax's own form). */
void gs_fdtd_horipml_r(const gs_scene *sc, double sigma, double kappa, double alpha, float r[4]);
/* gprMax's coefficients RA, RB, RE, RF (float32) of CFS term cfs at one
 * depth where its profiles read sigma, kappa, alpha: HORIPML's formulas, or
 * MRIPML's (mripml 1), as gprMax evaluates them (float32 where it does). */
void gs_fdtd_pml_r(const gs_scene *sc, const gs_cfs *cfs, int mripml, double sigma, double kappa, double alpha,
                   float r[4]);
/* A CFS parameter's value at depth index q (0 at the inner face) of a slab t
 * cells thick, for E (half 0) or H (half 1), from gprMax's own arrays
 * (CFS.calculate_values): x = q / t or (q + 1/2) / t, a reversed profile
 * taking the value at index t - q (E) or t - 1 - q (H), then
 * x^order (max - min) + min, x^2 as x x (numpy squares); constant: max. */
double gs_fdtd_cfs_value(const gs_cfs_param *p, int64_t q, int half, int64_t t, double max);

static inline int gs_region_empty(gs_fdtd_region r) {
  return r.i1 <= r.i0 || r.j1 <= r.j0;
}

/* The owned nodes, grown by e layers on the sides with a neighbour. */
static inline gs_fdtd_region gs_fdtd_grown_box(const gs_fdtd_sim *m, int e) {
  gs_fdtd_region r = {m->grid.own.i0 - e * m->dist.nb[0], m->grid.own.i1 + e * m->dist.nb[1],
                      m->grid.own.j0 - e * m->dist.nb[2], m->grid.own.j1 + e * m->dist.nb[3]};
  return r;
}

/* The owned nodes less the ring of depth layers along the sides with a
 * neighbour: nodes that neither read ghosts nor are sent (may be empty). */
static inline gs_fdtd_region gs_fdtd_interior_box(const gs_fdtd_sim *m) {
  gs_fdtd_region r = gs_fdtd_grown_box(m, -m->dist.depth);
  return gs_region_meet(r, gs_fdtd_grown_box(m, 0));
}

/* Makes buffer set k the current one (fields.v points at it). */
static inline void gs_fdtd_make_current(gs_fdtd_sim *m, int k) {
  m->fields.cur = k;
  m->fields.v.ez = m->fields.buf[k][0];
  m->fields.v.hx = m->fields.buf[k][1];
  m->fields.v.hy = m->fields.buf[k][2];
}

/* GPUSTENCIL_FUSE's choice for a scene on backend b: steps a fused pass,
 * 0: single steps (fdtd.c). */
int gs_fdtd_fuse_wanted(const gs_scene *sc, const gs_backend *b);
/* Forgets the captured CUDA graph (the deep-halo cycle starts anew; fdtd_step.c). */
void gs_fdtd_drop_graph(gs_fdtd_sim *m);

#endif

/* The FDTD node update shared, as source, by the CPU twin (fdtd_ref.c) and
 * the CUDA kernel (fdtd.cu): the same expressions in the same order, with no
 * fused multiply-add on either side, give the same bits.
 *
 * One step reads the "in" fields (Ez^n, H^{n-1/2}, CPML psi) and writes the
 * "out" fields (Ez^{n+1}, H^{n+1/2}, psi) for the nodes of a region. The node
 * (i, j) owns Hx(i, j), Hy(i, j) and Ez(i, j); the new Hy(i-1, j) and
 * Hx(i, j-1) its Ez update needs are recomputed from the in fields (the same
 * bits their owners write), so there is no race and a step is one pass. */
#ifndef GS_FDTD_NODE_H
#define GS_FDTD_NODE_H

#include "fdtd_kernels.h"

#ifdef __CUDACC__
#define GS_HD __host__ __device__ __forceinline__
#else
#define GS_HD static inline
#endif

/* A value another thread block may have written since this SM last read it
 * (a neighbour's psi in kernels/fdtd_run_tiles.cu: L1 is not coherent between
 * SMs): read from L2. Plain loads elsewhere. */
#ifdef __CUDA_ARCH__
#define GS_READ_SHARED(p) __ldcg(p)
#else
#define GS_READ_SHARED(p) (*(p))
#endif

GS_HD int64_t gs_fdtd_at(const gs_fdtd_step_args *a, int64_t i, int64_t j) {
  return (j - a->oj + a->g) * a->pitch + (i - a->oi + a->g);
}

/* The word of slab p's psi arrays at node (along, other): its index along
 * the slab's axis and across it, inside the slab. */
GS_HD int64_t gs_fdtd_psi_word(const gs_fdtd_slab *p, int64_t along, int64_t other) {
  return (along - p->lo) * (p->o1 - p->o0) + (other - p->o0);
}

/* New Hx(i, j) from its old value h0 and d = Ez(i, j+1) - Ez(i, j): gprMax's
 * DA Hx - DBy d (c: the node's magnetic coefficients, NULL in free space;
 * DA is exactly 1 without magnetic loss), then the CPML correction of the y
 * slabs among the first nslab; the owner stores psi. The persistent kernel
 * (fields on chip) calls this with values it holds; gs_fdtd_hx_new with the
 * arrays' values: the same expressions either way. */
GS_HD float gs_fdtd_hx_from(const gs_fdtd_step_args *a, int nslab, int64_t i, int64_t j, float h0, float d,
                            const gs_fdtd_hcoef *c, int own) {
  float cb = a->chy, h;
  if (c) {
    cb = c->dby;
    h = c->da * h0 - cb * d;
  } else {
    h = h0 - cb * d;
  }
  for (int s = 0; s < nslab; ++s) {
    const gs_fdtd_slab *p = &a->slab[s];
    if (p->dir != 1 || j < p->lo || j >= p->hi || i < p->o0 || i >= p->o1) continue;
    int64_t q = j - p->lo, w = gs_fdtd_psi_word(p, j, i);
    float psi = own ? p->psi_h_in[w] : GS_READ_SHARED(&p->psi_h_in[w]);
    if (own) p->psi_h_out[w] = p->bh[q] * psi + p->ah[q] * d;
    h = h - cb * (p->kh[q] * d + psi);
  }
  return h;
}

/* New Hy(i, j) from h0 and d = Ez(i+1, j) - Ez(i, j): DA Hy + DBx d, then
 * the x slabs' correction. */
GS_HD float gs_fdtd_hy_from(const gs_fdtd_step_args *a, int nslab, int64_t i, int64_t j, float h0, float d,
                            const gs_fdtd_hcoef *c, int own) {
  float cb = a->chx, h;
  if (c) {
    cb = c->dbx;
    h = c->da * h0 + cb * d;
  } else {
    h = h0 + cb * d;
  }
  for (int s = 0; s < nslab; ++s) {
    const gs_fdtd_slab *p = &a->slab[s];
    if (p->dir != 0 || i < p->lo || i >= p->hi || j < p->o0 || j >= p->o1) continue;
    int64_t q = i - p->lo, w = gs_fdtd_psi_word(p, i, j);
    float psi = own ? p->psi_h_in[w] : GS_READ_SHARED(&p->psi_h_in[w]);
    if (own) p->psi_h_out[w] = p->bh[q] * psi + p->ah[q] * d;
    h = h + cb * (p->kh[q] * d + psi);
  }
  return h;
}

/* New Hx(i, j) = Hx - chy (Ez(i, j+1) - Ez(i, j)) with its CPML correction,
 * from the arrays. Valid for i in [0, nx], j in [0, ny). */
GS_HD float gs_fdtd_hx_new(const gs_fdtd_step_args *a, int64_t i, int64_t j, int own) {
  int64_t k = gs_fdtd_at(a, i, j);
  const gs_fdtd_hcoef *c = a->hmx ? &a->hcoef[a->hmx[k]] : NULL;
  return gs_fdtd_hx_from(a, a->nslab, i, j, a->hx[k], a->ez[k + a->pitch] - a->ez[k], c, own);
}

/* New Hy(i, j) = Hy + chx (Ez(i+1, j) - Ez(i, j)), from the arrays. Valid
 * for i in [0, nx), j in [0, ny]. */
GS_HD float gs_fdtd_hy_new(const gs_fdtd_step_args *a, int64_t i, int64_t j, int own) {
  int64_t k = gs_fdtd_at(a, i, j);
  const gs_fdtd_hcoef *c = a->hmy ? &a->hcoef[a->hmy[k]] : NULL;
  return gs_fdtd_hy_from(a, a->nslab, i, j, a->hy[k], a->ez[k + 1] - a->ez[k], c, own);
}

/* The new Ez(i, j) from its old value e0, its material m and the new H
 * around it (hx: Hx(i, j), hy: Hy(i, j), hy_l: Hy(i-1, j), hx_d: Hx(i, j-1))
 * with the CPML correction of the slabs among the first nslab; interior
 * nodes only (the PEC walls keep Ez = 0). */
GS_HD float gs_fdtd_e_from(const gs_fdtd_step_args *a, int nslab, int64_t i, int64_t j, float e0, uint8_t m, float hx,
                           float hy, float hy_l, float hx_d) {
  float dhy = hy - hy_l;
  float dhx = hx - hx_d;
  gs_fdtd_coef c = a->coef[m];
  float ez = c.ca * e0 + (c.cbx * dhy - c.cby * dhx);
  for (int s = 0; s < nslab; ++s) { /* in slab order: x-, y-, x+, y+ */
    const gs_fdtd_slab *p = &a->slab[s];
    int64_t along = p->dir == 0 ? i : j, other = p->dir == 0 ? j : i;
    if (along < p->lo || along >= p->hi || other < p->o0 || other >= p->o1) continue;
    int64_t q = along - p->lo, w = gs_fdtd_psi_word(p, along, other);
    float d = p->dir == 0 ? dhy : dhx;
    float psi = p->psi_e_in[w];
    p->psi_e_out[w] = p->be[q] * psi + p->ae[q] * d;
    if (p->dir == 0)
      ez = ez + c.cbx * (p->ke[q] * d + psi);
    else
      ez = ez - c.cby * (p->ke[q] * d + psi);
  }
  return ez;
}

/* gs_fdtd_e_from on the arrays' values, stored in ez_out. */
GS_HD void gs_fdtd_e(const gs_fdtd_step_args *a, int64_t i, int64_t j, float hx, float hy, float hy_l, float hx_d) {
  int64_t k = gs_fdtd_at(a, i, j);
  a->ez_out[k] = gs_fdtd_e_from(a, a->nslab, i, j, a->ez[k], a->mat[k], hx, hy, hy_l, hx_d);
}

GS_HD int gs_fdtd_interior(const gs_fdtd_step_args *a, int64_t i, int64_t j) {
  return i >= 1 && i < a->nx && j >= 1 && j < a->ny;
}

/* Everything node (i, j) owns, for 0 <= i <= nx, 0 <= j <= ny, recomputing
 * the neighbours' new H (the GPU's one-pass form). */
GS_HD void gs_fdtd_node(const gs_fdtd_step_args *a, int64_t i, int64_t j) {
  int64_t k = gs_fdtd_at(a, i, j);
  float hx = 0, hy = 0;
  if (j < a->ny) {
    hx = gs_fdtd_hx_new(a, i, j, 1);
    a->hx_out[k] = hx;
  }
  if (i < a->nx) {
    hy = gs_fdtd_hy_new(a, i, j, 1);
    a->hy_out[k] = hy;
  }
  if (gs_fdtd_interior(a, i, j))
    gs_fdtd_e(a, i, j, hx, hy, gs_fdtd_hy_new(a, i - 1, j, 0), gs_fdtd_hx_new(a, i, j - 1, 0));
}

/* 1 when a CPML slab is in reach of region r's updates: at its nodes, or
 * at the neighbours' H they recompute (one node lower in x and y). */
GS_HD int gs_fdtd_slabs_reach(const gs_fdtd_step_args *a, gs_fdtd_region r) {
  for (int q = 0; q < a->nslab; ++q) {
    const gs_fdtd_slab *p = &a->slab[q];
    int64_t al = p->dir == 0 ? r.i0 - 1 : r.j0 - 1, ah = p->dir == 0 ? r.i1 : r.j1;
    int64_t ol = p->dir == 0 ? r.j0 - 1 : r.i0 - 1, oh = p->dir == 0 ? r.j1 : r.i1;
    if (al < p->hi && ah > p->lo && ol < p->o1 && oh > p->o0) return 1;
  }
  return 0;
}

/* 1 when no slab is in reach of region r and H is free space everywhere:
 * such regions take the plain update (the marching kernel, step_plain). */
GS_HD int gs_fdtd_slab_free(const gs_fdtd_step_args *a, gs_fdtd_region r) {
  return !a->hmx && !gs_fdtd_slabs_reach(a, r);
}

/* Whether the fused passes (gs_fdtd_fuse) take the grid of a: H free
 * space everywhere (a node's H coefficients are not held on chip), and at
 * most one slab along each axis at any node (a node's psi words then have
 * fixed places). */
GS_HD int gs_fdtd_fuse_takes(const gs_fdtd_step_args *a) {
  if (a->hmx || a->hmy) return 0;
  for (int p = 0; p < a->nslab; ++p)
    for (int q = p + 1; q < a->nslab; ++q)
      if (a->slab[p].dir == a->slab[q].dir && a->slab[p].lo < a->slab[q].hi && a->slab[q].lo < a->slab[p].hi) return 0;
  return 1;
}

#endif

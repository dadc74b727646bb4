/* The 3D FDTD node update shared, as source, by the CPU twin (fdtd3d_ref.c)
 * and the CUDA kernels (fdtd3d.cu): the same expressions in the same order,
 * with the same explicit fused multiply-adds (fmaf) and no other on
 * either side, give the same bits.
 *
 * Node (i, j, k) owns Ex Ey Ez Hx Hy Hz at (i, j, k). Its E update needs the
 * new H of the nodes one lower in x, y or z; those are recomputed from the
 * in fields where their owner's stored value is not at hand (the same bits),
 * so a step can be one pass with no race. Only the owner writes H's psi. */
#ifndef GS_FDTD3D_NODE_H
#define GS_FDTD3D_NODE_H

#include "fdtd3d_kernels.h"

#ifdef __CUDACC__
#define GS_HD3 __host__ __device__ __forceinline__
#define GS_FMA_CLONES
#else
#include <math.h>
#define GS_HD3 static inline
/* The CPU loops that evaluate these expressions: on x86-64 GCC builds them
 * twice, for FMA hardware (fmaf() one instruction) and without (libm's
 * fmaf(), the same bits, slower), and picks one when the program loads, so
 * the binary runs on any x86-64 and at full speed on the FMA ones. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GS_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define GS_FMA_CLONES
#endif
#endif

/* gprMax 4's compiled update (gcc -O3 -march=native) contracts its sums
 * into fused multiply-adds; these reproduce its contraction, so that our
 * float32 fields equal its own bit for bit in free space (docs/gprmax-rules.md,
 * "Fused multiply-adds"). fmaf() rounds once on the CPU (libm) and the GPU
 * alike, and nothing else is fused (-ffp-contract=off, --fmad=false).
 * H = c0 H - cm dm + cp dp: fmaf(cp, dp, fmaf(c0, H, -(cm dm))). */
GS_HD3 float gs_fdtd3_hsum(float c0, float h, float cm, float dm, float cp, float dp) {
  return fmaf(cp, dp, fmaf(c0, h, -(cm * dm)));
}
/* The same with c0 = 1 (fmaf(1, H, -p) is H - p). */
GS_HD3 float gs_fdtd3_hsum1(float h, float cm, float dm, float cp, float dp) {
  return fmaf(cp, dp, h - cm * dm);
}
/* E = c0 E + cp dp - cm dm: fmaf(-cm, dm, fmaf(c0, E, cp dp)). */
GS_HD3 float gs_fdtd3_esum(float c0, float e, float cp, float dp, float cm, float dm) {
  return fmaf(-cm, dm, fmaf(c0, e, cp * dp));
}

GS_HD3 int64_t gs_fdtd3_at(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return k * a->plane + j * a->pitch + i;
}

/* The slabs whose E (e = 1) or H (e = 0) corrections reach node (i, j, k):
 * bit s for slab s (its depth range along its axis, and the node not on the
 * far face of the other two axes, which take no correction). Worked out once
 * per node and component kind rather than once per component. */
GS_HD3 unsigned gs_fdtd3_slab_mask(const gs_fdtd3_step_args *a, int e, int64_t i, int64_t j, int64_t k) {
  unsigned mask = 0;
  for (int s = 0; s < a->nslab; ++s) { /* 32-bit indices: a side of a grid that fits in memory is far below 2^31 */
    const gs_fdtd3_slab *p = &a->slab[s];
    const int dir = p->dir, t = (int)p->t;
    const int n = (int)(dir == 0 ? i : dir == 1 ? j : k), N = (int)(dir == 0 ? a->nx : dir == 1 ? a->ny : a->nz);
    const int q = p->side ? n - (N - t) : (e ? t - n : t - 1 - n);
    const int ia = (int)(dir == 0 ? j : i), ib = (int)(dir == 2 ? j : k);
    const int na = (int)(dir == 0 ? a->ny : a->nx), nb = (int)(dir == 2 ? a->ny : a->nz);
    if (q >= 0 && q < t && ia < na && ib < nb) mask |= 1u << s;
  }
  return mask;
}

/* The CPML corrections of component comp (0 x, 1 y, 2 z) of E (e = 1) or H
 * (e = 0) at node (i, j, k), value f, in slab order, gprMax's HORIPML form
 * and contraction (fdtd3d_kernels.h): a slab normal to axis dir adds
 * s_dir (RA01 d + RB Phi), d = raw_dir / cell size, and stores the new Phi
 * (H: only if own). s_x, s_y, s_z: the node material's srce or srcm with the
 * sign of its term; raw_x, raw_y, raw_z: the raw differences. mask:
 * gs_fdtd3_slab_mask() of the node. (Selects rather than arrays indexed by
 * dir: no local memory on the GPU.) */
GS_HD3 float gs_fdtd3_cpml(const gs_fdtd3_step_args *a, int e, int comp, int64_t i, int64_t j, int64_t k, float f,
                           float sx, float sy, float sz, float raw_x, float raw_y, float raw_z, int own,
                           unsigned mask) {
  for (int s = 0; s < a->nslab; ++s) {
    const gs_fdtd3_slab *p = &a->slab[s];
    const int dir = p->dir;
    if (!(mask >> s & 1u) || dir == comp) continue;
    const int t = (int)p->t;
    const int n = (int)(dir == 0 ? i : dir == 1 ? j : k), N = (int)(dir == 0 ? a->nx : dir == 1 ? a->ny : a->nz);
    const int q = p->side ? n - (N - t) : (e ? t - n : t - 1 - n);
    const int ia = (int)(dir == 0 ? j : i), ib = (int)(dir == 2 ? j : k);
    const int na = (int)p->sa, nb = (int)p->sb; /* the strides of the piece held (fdtd3d_kernels.h) */
    const int slot = comp == (dir == 0 ? 1 : 0) ? 0 : 1;
    const int64_t w = dir == 0 ? ((int64_t)ib * na + ia) * t + q : ((int64_t)q * nb + ib) * na + ia; /* i fastest */
    const float d = (dir == 0 ? raw_x : dir == 1 ? raw_y : raw_z) / p->d;
    const float c = dir == 0 ? sx : dir == 1 ? sy : sz;
    if (e) {
      const float phi = p->psi_e_in[slot][w];
      p->psi_e_out[slot][w] = fmaf(p->ree[q], phi, -(p->rfe[q] * d));
      f = fmaf(c, fmaf(p->ra1e[q], d, p->rbe[q] * phi), f);
    } else {
      const float phi = p->psi_h_in[slot][w];
      if (own) p->psi_h_out[slot][w] = fmaf(p->reh[q], phi, -(p->rfh[q] * d));
      f = fmaf(c, fmaf(p->ra1h[q], d, p->rbh[q] * phi), f);
    }
  }
  return f;
}

/* Where each component is updated (gprMax 4's ranges, fdtd3d_kernels.h). */
GS_HD3 int gs_fdtd3_hx_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i >= 1 && i <= a->nx && j < a->ny && k < a->nz;
}
GS_HD3 int gs_fdtd3_hy_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i < a->nx && j >= 1 && j <= a->ny && k < a->nz;
}
GS_HD3 int gs_fdtd3_hz_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i < a->nx && j < a->ny && k >= 1 && k <= a->nz;
}
GS_HD3 int gs_fdtd3_ex_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i < a->nx && j >= 1 && j < a->ny && k >= 1 && k < a->nz;
}
GS_HD3 int gs_fdtd3_ey_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i >= 1 && i < a->nx && j < a->ny && k >= 1 && k < a->nz;
}
GS_HD3 int gs_fdtd3_ez_ok(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  return i >= 1 && i < a->nx && j >= 1 && j < a->ny && k < a->nz;
}

/* New Hx, Hy, Hz at a node where they are updated; own: store H's psi. */
GS_HD3 float gs_fdtd3_hx_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dy = a->ez[o + a->pitch] - a->ez[o], dz = a->ey[o + a->plane] - a->ey[o];
  float h, src = a->srcm;
  if (a->hmx) {
    const gs_fdtd3_hcoef c = a->hcoef[a->hmx[o]];
    src = c.src;
    h = gs_fdtd3_hsum(c.da, a->hx[o], c.dby, dy, c.dbz, dz);
  } else {
    h = gs_fdtd3_hsum1(a->hx[o], a->dby, dy, a->dbz, dz);
  }
  if (a->nslab) h = gs_fdtd3_cpml(a, 0, 0, i, j, k, h, 0, -src, src, 0, dy, dz, own, mask);
  return h;
}

GS_HD3 float gs_fdtd3_hy_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dz = a->ex[o + a->plane] - a->ex[o], dx = a->ez[o + 1] - a->ez[o];
  float h, src = a->srcm;
  if (a->hmy) {
    const gs_fdtd3_hcoef c = a->hcoef[a->hmy[o]];
    src = c.src;
    h = gs_fdtd3_hsum(c.da, a->hy[o], c.dbz, dz, c.dbx, dx);
  } else {
    h = gs_fdtd3_hsum1(a->hy[o], a->dbz, dz, a->dbx, dx);
  }
  if (a->nslab) h = gs_fdtd3_cpml(a, 0, 1, i, j, k, h, src, 0, -src, dx, 0, dz, own, mask);
  return h;
}

GS_HD3 float gs_fdtd3_hz_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dx = a->ey[o + 1] - a->ey[o], dy = a->ex[o + a->pitch] - a->ex[o];
  float h, src = a->srcm;
  if (a->hmz) {
    const gs_fdtd3_hcoef c = a->hcoef[a->hmz[o]];
    src = c.src;
    h = gs_fdtd3_hsum(c.da, a->hz[o], c.dbx, dx, c.dby, dy);
  } else {
    h = gs_fdtd3_hsum1(a->hz[o], a->dbx, dx, a->dby, dy);
  }
  if (a->nslab) h = gs_fdtd3_cpml(a, 0, 2, i, j, k, h, -src, src, 0, dx, dy, 0, own, mask);
  return h;
}

/* The same, working out the node's slabs (a neighbour's H recomputed). */
GS_HD3 float gs_fdtd3_hx(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own) {
  return gs_fdtd3_hx_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u);
}
GS_HD3 float gs_fdtd3_hy(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own) {
  return gs_fdtd3_hy_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u);
}
GS_HD3 float gs_fdtd3_hz(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own) {
  return gs_fdtd3_hz_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u);
}

/* New Ex, Ey, Ez from the new H around the node (_im, _jm, _km: the H one
 * node lower in x, y, z), with CPML. */
GS_HD3 float gs_fdtd3_ex(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hz, float hz_jm, float hy,
                         float hy_km, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const gs_fdtd3_coef c = a->coef[a->mex[o]];
  const float dy = hz - hz_jm, dz = hy - hy_km;
  float f = gs_fdtd3_esum(c.ca, a->ex[o], c.cby, dy, c.cbz, dz);
  if (a->nslab) f = gs_fdtd3_cpml(a, 1, 0, i, j, k, f, 0, c.src, -c.src, 0, dy, dz, 1, mask);
  return f;
}

GS_HD3 float gs_fdtd3_ey(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hx, float hx_km, float hz,
                         float hz_im, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const gs_fdtd3_coef c = a->coef[a->mey[o]];
  const float dz = hx - hx_km, dx = hz - hz_im;
  float f = gs_fdtd3_esum(c.ca, a->ey[o], c.cbz, dz, c.cbx, dx);
  if (a->nslab) f = gs_fdtd3_cpml(a, 1, 1, i, j, k, f, -c.src, 0, c.src, dx, 0, dz, 1, mask);
  return f;
}

GS_HD3 float gs_fdtd3_ez(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hy, float hy_im, float hx,
                         float hx_jm, unsigned mask) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const gs_fdtd3_coef c = a->coef[a->mez[o]];
  const float dx = hy - hy_im, dy = hx - hx_jm;
  float f = gs_fdtd3_esum(c.ca, a->ez[o], c.cbx, dx, c.cby, dy);
  if (a->nslab) f = gs_fdtd3_cpml(a, 1, 2, i, j, k, f, c.src, -c.src, 0, dx, dy, 0, 1, mask);
  return f;
}

/* Everything node (i, j, k) owns, recomputing the neighbours' new H (the
 * GPU's one-thread-per-node form). */
GS_HD3 void gs_fdtd3_node(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const unsigned mh = a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u;
  const unsigned me = a->nslab ? gs_fdtd3_slab_mask(a, 1, i, j, k) : 0u;
  float hx = 0, hy = 0, hz = 0;
  if (gs_fdtd3_hx_ok(a, i, j, k)) a->hx_out[o] = hx = gs_fdtd3_hx_m(a, i, j, k, 1, mh);
  if (gs_fdtd3_hy_ok(a, i, j, k)) a->hy_out[o] = hy = gs_fdtd3_hy_m(a, i, j, k, 1, mh);
  if (gs_fdtd3_hz_ok(a, i, j, k)) a->hz_out[o] = hz = gs_fdtd3_hz_m(a, i, j, k, 1, mh);
  if (gs_fdtd3_ex_ok(a, i, j, k))
    a->ex_out[o] = gs_fdtd3_ex(a, i, j, k, hz, gs_fdtd3_hz(a, i, j - 1, k, 0), hy, gs_fdtd3_hy(a, i, j, k - 1, 0), me);
  if (gs_fdtd3_ey_ok(a, i, j, k))
    a->ey_out[o] = gs_fdtd3_ey(a, i, j, k, hx, gs_fdtd3_hx(a, i, j, k - 1, 0), hz, gs_fdtd3_hz(a, i - 1, j, k, 0), me);
  if (gs_fdtd3_ez_ok(a, i, j, k))
    a->ez_out[o] = gs_fdtd3_ez(a, i, j, k, hy, gs_fdtd3_hy(a, i - 1, j, k, 0), hx, gs_fdtd3_hx(a, i, j - 1, k, 0), me);
}

/* New H of node (i, j, k), stored (its owner: psi stored too). */
GS_HD3 void gs_fdtd3_h_node(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const unsigned mh = a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u;
  if (gs_fdtd3_hx_ok(a, i, j, k)) a->hx_out[o] = gs_fdtd3_hx_m(a, i, j, k, 1, mh);
  if (gs_fdtd3_hy_ok(a, i, j, k)) a->hy_out[o] = gs_fdtd3_hy_m(a, i, j, k, 1, mh);
  if (gs_fdtd3_hz_ok(a, i, j, k)) a->hz_out[o] = gs_fdtd3_hz_m(a, i, j, k, 1, mh);
}

/* New E of node (i, j, k) of box r, once the new H of every node of r is
 * stored: reads the stored H of the neighbours in r and recomputes the
 * others' (the same bits either way). */
GS_HD3 void gs_fdtd3_e_node(const gs_fdtd3_step_args *a, gs_fdtd3_region r, int64_t i, int64_t j, int64_t k) {
  const int64_t o = gs_fdtd3_at(a, i, j, k), P = a->pitch, S = a->plane;
  const unsigned me = a->nslab ? gs_fdtd3_slab_mask(a, 1, i, j, k) : 0u;
  if (gs_fdtd3_ex_ok(a, i, j, k)) {
    const float hz_jm = j - 1 >= r.j0 ? a->hz_out[o - P] : gs_fdtd3_hz(a, i, j - 1, k, 0);
    const float hy_km = k - 1 >= r.k0 ? a->hy_out[o - S] : gs_fdtd3_hy(a, i, j, k - 1, 0);
    a->ex_out[o] = gs_fdtd3_ex(a, i, j, k, a->hz_out[o], hz_jm, a->hy_out[o], hy_km, me);
  }
  if (gs_fdtd3_ey_ok(a, i, j, k)) {
    const float hx_km = k - 1 >= r.k0 ? a->hx_out[o - S] : gs_fdtd3_hx(a, i, j, k - 1, 0);
    const float hz_im = i - 1 >= r.i0 ? a->hz_out[o - 1] : gs_fdtd3_hz(a, i - 1, j, k, 0);
    a->ey_out[o] = gs_fdtd3_ey(a, i, j, k, a->hx_out[o], hx_km, a->hz_out[o], hz_im, me);
  }
  if (gs_fdtd3_ez_ok(a, i, j, k)) {
    const float hy_im = i - 1 >= r.i0 ? a->hy_out[o - 1] : gs_fdtd3_hy(a, i - 1, j, k, 0);
    const float hx_jm = j - 1 >= r.j0 ? a->hx_out[o - P] : gs_fdtd3_hx(a, i, j - 1, k, 0);
    a->ez_out[o] = gs_fdtd3_ez(a, i, j, k, a->hy_out[o], hy_im, a->hx_out[o], hx_jm, me);
  }
}

/* The box of nodes where no slab reaches a node's updates nor the
 * neighbours' H it recomputes, and all six components are updated:
 * i in [t_x0 + 1, nx - t_xmax), likewise j and k. */
GS_HD3 gs_fdtd3_region gs_fdtd3_inner(const gs_fdtd3_step_args *a) {
  int64_t lo[3] = {1, 1, 1}, hi[3] = {a->nx, a->ny, a->nz};
  for (int s = 0; s < a->nslab; ++s) {
    const gs_fdtd3_slab *p = &a->slab[s];
    if (p->side == 0 && p->t + 1 > lo[p->dir]) lo[p->dir] = p->t + 1;
    if (p->side == 1) {
      const int64_t e = (p->dir == 0 ? a->nx : p->dir == 1 ? a->ny : a->nz) - p->t;
      if (e < hi[p->dir]) hi[p->dir] = e;
    }
  }
  gs_fdtd3_region r = {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
  return r;
}

#endif

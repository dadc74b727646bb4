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

/* A load from an array that no kernel writes while it reads it (the fields
 * in, materials, coefficients, CPML profiles, psi in, the map, and the new H
 * in the E pass): on the GPU through the read-only path, which also lets
 * the compiler issue it ahead of the stores before it (they cannot alias
 * it), so that a node's loads are in flight together rather than each
 * component's after the last one's stores. The pole state (read and
 * written) and the out arrays never take it. */
#ifdef __CUDA_ARCH__
#define GS_LDG(p) __ldg(p)
#else
#define GS_LDG(p) (*(p))
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

/* The lowest set bit of a nonzero mask (the slab loops visit the slabs
 * that reach a node in slab order, rather than every slab with a test:
 * the GPU's compiler unrolls a loop over all six into predicated code
 * that every node pays for, about 900 instructions a node in the CPML
 * boxes; a loop over the set bits runs once per slab that applies). */
GS_HD3 int gs_fdtd3_lowest(unsigned m) {
#ifdef __CUDA_ARCH__
  return __ffs((int)m) - 1;
#else
  return __builtin_ctz(m);
#endif
}

/* Whether slab p's E (e = 1) or H (e = 0) corrections reach node (i, j, k):
 * its depth range along its axis, and the node not on the far face of the
 * other two axes, which take no correction. */
GS_HD3 int gs_fdtd3_in_slab(const gs_fdtd3_step_args *a, const gs_fdtd3_slab *p, int e, int64_t i, int64_t j,
                            int64_t k) { /* 32-bit indices: a side of a grid that fits in memory is far below 2^31 */
  const int dir = p->dir, t = (int)p->t;
  const int n = (int)(dir == 0 ? i : dir == 1 ? j : k), N = (int)(dir == 0 ? a->nx : dir == 1 ? a->ny : a->nz);
  const int q = p->side ? n - (N - t) : (e ? t - n : t - 1 - n);
  const int ia = (int)(dir == 0 ? j : i), ib = (int)(dir == 2 ? j : k);
  const int na = (int)(dir == 0 ? a->ny : a->nx), nb = (int)(dir == 2 ? a->ny : a->nz);
  return q >= 0 && q < t && ia < na && ib < nb;
}

/* The slabs whose corrections reach node (i, j, k): bit s for slab s.
 * Worked out once per node and component kind rather than once per
 * component. */
GS_HD3 unsigned gs_fdtd3_slab_mask(const gs_fdtd3_step_args *a, int e, int64_t i, int64_t j, int64_t k) {
  unsigned mask = 0;
  for (int s = 0; s < a->nslab; ++s)
    if (gs_fdtd3_in_slab(a, &a->slab[s], e, i, j, k)) mask |= 1u << s;
  return mask;
}

/* One slab's correction of a field value f in the forms beyond first-order
 * HORIPML (pf, fdtd3d_kernels.h) is f + c X; this is X, as gprMax's compiled
 * order2_* and MRIPML updates evaluate it (their fused multiply-adds, read
 * from its build and checked against its functions on random data): d the
 * difference over the cell size, k the depth's coefficients
 * (gs_fdtd3_pml_coefs), p0 and p1 the old Phi of the CFS terms (p1 unused
 * with one term); *n0, *n1 the new Phi. The field takes the old Phi.
 *   HORIPML2: X = fmaf(RB1, p1, fmaf(RA01, d, (RA1 RB0) p0)),
 *             n1 = fmaf(RE1, p1, -(RF1 fmaf(RA0, d, RB0 p0))), n0 = fmaf(RE0, p0, -(RF0 d));
 *   MRIPML1:  X = fmaf(IRA - 1, d, -(IRA p0)), n0 = fmaf(-RC0, p0, fmaf(RE0, p0, RC0 d));
 *   MRIPML2:  psi = fmaf(RB0, p0, RB1 p1), X = fmaf(IRA - 1, d, -(IRA psi)),
 *             n_m = fmaf(RE_m, p_m, RC_m (d - psi)).
 * (f + c X is fmaf(c, X, f) throughout.) */
GS_HD3 float gs_fdtd3_pml_x(int pf, const float *k, float d, float p0, float p1, float *n0, float *n1) {
  if (pf == GS_FDTD3_HORIPML2) {
    *n1 = fmaf(GS_LDG(&k[6]), p1, -(GS_LDG(&k[5]) * fmaf(GS_LDG(&k[3]), d, GS_LDG(&k[4]) * p0)));
    *n0 = fmaf(GS_LDG(&k[8]), p0, -(GS_LDG(&k[7]) * d));
    return fmaf(GS_LDG(&k[2]), p1, fmaf(GS_LDG(&k[0]), d, GS_LDG(&k[1]) * p0));
  }
  if (pf == GS_FDTD3_MRIPML1) {
    *n0 = fmaf(-GS_LDG(&k[2]), p0, fmaf(GS_LDG(&k[3]), p0, GS_LDG(&k[2]) * d));
    *n1 = 0.0f;
    return fmaf(GS_LDG(&k[1]), d, -(GS_LDG(&k[0]) * p0));
  }
  const float psi = fmaf(GS_LDG(&k[2]), p0, GS_LDG(&k[3]) * p1), e = d - psi; /* MRIPML2 */
  *n0 = fmaf(GS_LDG(&k[6]), p0, GS_LDG(&k[4]) * e);
  *n1 = fmaf(GS_LDG(&k[7]), p1, GS_LDG(&k[5]) * e);
  return fmaf(GS_LDG(&k[1]), d, -(GS_LDG(&k[0]) * psi));
}

/* The value of axis dir (0 x, 1 y, 2 z) among x, y, z (a select: no local
 * memory on the GPU). */
GS_HD3 float gs_fdtd3_pick(int dir, float x, float y, float z) {
  return dir == 0 ? x : dir == 1 ? y : z;
}

/* First-order HORIPML's X at one depth (ra1, rb, re, rf: its RA - 1, RB,
 * RE, RF; cell: the slab's cell size) in gprMax's contraction: the
 * correction is f + c X with X = RA1 d + RB Phi, d = raw / cell, and
 * *next = RE Phi - RF d, the new Phi (fdtd3d_kernels.h). */
GS_HD3 float gs_fdtd3_horipml1_x(float ra1, float rb, float re, float rf, float cell, float raw, float phi,
                                 float *next) {
  const float d = raw / cell;
  *next = fmaf(re, phi, -(rf * d));
  return fmaf(ra1, d, rb * phi);
}

/* The corrected value f + c X itself. */
GS_HD3 float gs_fdtd3_horipml1(float ra1, float rb, float re, float rf, float cell, float raw, float c, float f,
                               float phi, float *next) {
  return fmaf(c, gs_fdtd3_horipml1_x(ra1, rb, re, rf, cell, raw, phi, next), f);
}

/* Slab p's X (the correction is f + c X) at depth q, Phi element w (slot
 * slot's array), in form pf, gprMax's contraction (fdtd3d_kernels.h): raw
 * the difference along the slab's axis; the new Phi stored (H: only if
 * own). First-order HORIPML: RA01 d + RB Phi, d = raw / cell size; the
 * other forms gs_fdtd3_pml_x with each CFS term's Phi (the second psi2
 * elements after the first). */
GS_HD3 float gs_fdtd3_cpml_x(const gs_fdtd3_slab *p, int pf, int e, int slot, int q, int64_t w, float raw, int own) {
  if (pf == GS_FDTD3_HORIPML1) {
    float next, x;
    if (e) {
      x = gs_fdtd3_horipml1_x(GS_LDG(&p->ra1e[q]), GS_LDG(&p->rbe[q]), GS_LDG(&p->ree[q]), GS_LDG(&p->rfe[q]), p->d,
                              raw, GS_LDG(&p->psi_e_in[slot][w]), &next);
      p->psi_e_out[slot][w] = next;
      return x;
    }
    x = gs_fdtd3_horipml1_x(GS_LDG(&p->ra1h[q]), GS_LDG(&p->rbh[q]), GS_LDG(&p->reh[q]), GS_LDG(&p->rfh[q]), p->d, raw,
                            GS_LDG(&p->psi_h_in[slot][w]), &next);
    if (own) p->psi_h_out[slot][w] = next;
    return x;
  }
  const float d = raw / p->d;
  const int two = pf != GS_FDTD3_MRIPML1;
  const float *in = e ? p->psi_e_in[slot] : p->psi_h_in[slot];
  float *out = e ? p->psi_e_out[slot] : p->psi_h_out[slot];
  const float p0 = GS_LDG(&in[w]), p1 = two ? GS_LDG(&in[w + p->psi2]) : 0.0f;
  float n0, n1;
  const float x = gs_fdtd3_pml_x(pf, (e ? p->ke : p->kh) + (int64_t)q * GS_FDTD3_PML_K, d, p0, p1, &n0, &n1);
  if (e || own) {
    out[w] = n0;
    if (two) out[w + p->psi2] = n1;
  }
  return x;
}

/* Slab p's correction of component value f: f + c X (gs_fdtd3_cpml_x), c
 * the signed srce or srcm of the component's term along the slab's axis. */
GS_HD3 float gs_fdtd3_cpml_at(const gs_fdtd3_slab *p, int pf, int e, int slot, int q, int64_t w, float raw, float c,
                              float f, int own) {
  return fmaf(c, gs_fdtd3_cpml_x(p, pf, e, slot, q, w, raw, own), f);
}

/* The CPML corrections of component comp (0 x, 1 y, 2 z) of E (e = 1) or H
 * (e = 0) at node (i, j, k), value f, in slab order, form pf: a slab normal
 * to axis dir corrects the two other components (slot 0 the first of them
 * in x, y, z order) through gs_fdtd3_cpml_at. s_x, s_y, s_z: the node
 * material's srce or srcm with the sign of its term; raw_x, raw_y, raw_z:
 * the raw differences; mask: gs_fdtd3_slab_mask() of the node. (Selects
 * rather than arrays indexed by dir: no local memory on the GPU.) */
GS_HD3 float gs_fdtd3_cpml_f(const gs_fdtd3_step_args *a, int pf, int e, int comp, int64_t i, int64_t j, int64_t k,
                             float f, float sx, float sy, float sz, float raw_x, float raw_y, float raw_z, int own,
                             unsigned mask) {
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  for (unsigned left = mask; left; left &= left - 1u) {
    const gs_fdtd3_slab *p = &a->slab[gs_fdtd3_lowest(left)];
    const int dir = p->dir;
    if (dir == comp) continue;
    const int t = (int)p->t;
    const int n = (int)(dir == 0 ? i : dir == 1 ? j : k), N = (int)(dir == 0 ? a->nx : dir == 1 ? a->ny : a->nz);
    const int q = p->side ? n - (N - t) : (e ? t - n : t - 1 - n);
    const int ia = (int)(dir == 0 ? j : i), ib = (int)(dir == 2 ? j : k);
    const int na = (int)p->sa, nb = (int)p->sb; /* the strides of the piece held (fdtd3d_kernels.h) */
    const int slot = comp == (dir == 0 ? 1 : 0) ? 0 : 1;
    const int64_t w = dir == 0 ? ((int64_t)ib * na + ia) * t + q : ((int64_t)q * nb + ib) * na + ia; /* i fastest */
    f = gs_fdtd3_cpml_at(p, pf, e, slot, q, w, gs_fdtd3_pick(dir, raw_x, raw_y, raw_z), gs_fdtd3_pick(dir, sx, sy, sz),
                         f, own);
  }
  return f;
}

/* The same with the slabs' geometry g (gs_fdtd3_geo's s[e]): the depth and
 * element from their affine maps, the same values. */
GS_HD3 float gs_fdtd3_cpml_g(const gs_fdtd3_step_args *a, const gs_fdtd3_slab_geo *g, int pf, int e, int comp,
                             int64_t i, int64_t j, int64_t k, float f, float sx, float sy, float sz, float raw_x,
                             float raw_y, float raw_z, int own, unsigned mask) {
  const int ii = (int)i, jj = (int)j, kk = (int)k;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  for (unsigned left = mask; left; left &= left - 1u) {
    const int s = gs_fdtd3_lowest(left);
    const gs_fdtd3_slab_geo *x = &g[s];
    const int dir = x->dir;
    if (dir == comp) continue;
    const int q = x->qi * ii + x->qj * jj + x->qk * kk + x->q0;
    const int64_t w = x->wi * i + x->wj * j + x->wk * k + x->w0;
    const int slot = comp == (dir == 0 ? 1 : 0) ? 0 : 1;
    f = gs_fdtd3_cpml_at(&a->slab[s], pf, e, slot, q, w, gs_fdtd3_pick(dir, raw_x, raw_y, raw_z),
                         gs_fdtd3_pick(dir, sx, sy, sz), f, own);
  }
  return f;
}

/* The slabs of cand (bits) whose E (e = 1) or H (e = 0) corrections reach
 * node (i, j, k), from the geometry g: gs_fdtd3_slab_mask's answer over
 * cand alone (~0u: all), where the caller knows that no other slab reaches
 * the node (a CPML box's candidates, fdtd3d.cu: a box on one face tests one
 * slab, not six). */
GS_HD3 unsigned gs_fdtd3_geo_mask(const gs_fdtd3_geo *g, int nslab, int e, int64_t i, int64_t j, int64_t k,
                                  unsigned cand) {
  const int ii = (int)i, jj = (int)j, kk = (int)k;
  unsigned mask = 0;
  cand &= (1u << nslab) - 1u;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  for (unsigned left = cand; left; left &= left - 1u) {
    const int s = gs_fdtd3_lowest(left);
    const gs_fdtd3_slab_geo *x = &g->s[e][s];
    if (ii >= x->i0 && ii < x->i1 && jj >= x->j0 && jj < x->j1 && kk >= x->k0 && kk < x->k1) mask |= 1u << s;
  }
  return mask;
}

/* The corrections through g where there is one (the boxes' node updates),
 * else through the slabs themselves (a neighbour's H recomputed, sources,
 * the separate dispersive passes: g NULL). */
GS_HD3 float gs_fdtd3_cpml_any(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, int pf, int e, int comp, int64_t i,
                               int64_t j, int64_t k, float f, float sx, float sy, float sz, float raw_x, float raw_y,
                               float raw_z, int own, unsigned mask) {
  if (g) return gs_fdtd3_cpml_g(a, g->s[e], pf, e, comp, i, j, k, f, sx, sy, sz, raw_x, raw_y, raw_z, own, mask);
  return gs_fdtd3_cpml_f(a, pf, e, comp, i, j, k, f, sx, sy, sz, raw_x, raw_y, raw_z, own, mask);
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

/* The magnetic coefficients of material m (each through GS_LDG). */
GS_HD3 gs_fdtd3_hcoef gs_fdtd3_hcoef_at(const gs_fdtd3_step_args *a, int m) {
  const gs_fdtd3_hcoef *c = &a->hcoef[m];
  const gs_fdtd3_hcoef v = {GS_LDG(&c->da), GS_LDG(&c->dbx), GS_LDG(&c->dby), GS_LDG(&c->dbz), GS_LDG(&c->src)};
  return v;
}

/* The electric coefficients of material m (each through GS_LDG). */
GS_HD3 gs_fdtd3_coef gs_fdtd3_coef_at(const gs_fdtd3_step_args *a, int m) {
  const gs_fdtd3_coef *c = &a->coef[m];
  const gs_fdtd3_coef v = {GS_LDG(&c->ca), GS_LDG(&c->cbx), GS_LDG(&c->cby), GS_LDG(&c->cbz), GS_LDG(&c->src)};
  return v;
}

/* A plain H component, DA H - cm dm + cp dp (the minus term's along axis
 * m, the plus term's along p): its material's coefficients where hm (the
 * component's H materials) is set, else free space's (DA 1); *src: the
 * srcm its CPML terms take. */
GS_HD3 float gs_fdtd3_h_sum(const gs_fdtd3_step_args *a, const uint8_t *hm, int64_t o, float h, int m, float dm, int p,
                            float dp, float *src) {
  if (hm) {
    const gs_fdtd3_hcoef c = gs_fdtd3_hcoef_at(a, GS_LDG(&hm[o]));
    *src = c.src;
    return gs_fdtd3_hsum(c.da, h, gs_fdtd3_pick(m, c.dbx, c.dby, c.dbz), dm, gs_fdtd3_pick(p, c.dbx, c.dby, c.dbz), dp);
  }
  *src = a->srcm;
  return gs_fdtd3_hsum1(h, gs_fdtd3_pick(m, a->dbx, a->dby, a->dbz), dm, gs_fdtd3_pick(p, a->dbx, a->dby, a->dbz), dp);
}

/* New Hx, Hy, Hz at a node where they are updated; own: store H's psi. */
GS_HD3 float gs_fdtd3_hx_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask, int pf,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dy = GS_LDG(&a->ez[o + a->pitch]) - GS_LDG(&a->ez[o]),
              dz = GS_LDG(&a->ey[o + a->plane]) - GS_LDG(&a->ey[o]);
  float src, h = gs_fdtd3_h_sum(a, a->hmx, o, GS_LDG(&a->hx[o]), 1, dy, 2, dz, &src);
  if (a->nslab) h = gs_fdtd3_cpml_any(a, g, pf, 0, 0, i, j, k, h, 0, -src, src, 0, dy, dz, own, mask);
  return h;
}

GS_HD3 float gs_fdtd3_hy_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask, int pf,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dz = GS_LDG(&a->ex[o + a->plane]) - GS_LDG(&a->ex[o]), dx = GS_LDG(&a->ez[o + 1]) - GS_LDG(&a->ez[o]);
  float src, h = gs_fdtd3_h_sum(a, a->hmy, o, GS_LDG(&a->hy[o]), 2, dz, 0, dx, &src);
  if (a->nslab) h = gs_fdtd3_cpml_any(a, g, pf, 0, 1, i, j, k, h, src, 0, -src, dx, 0, dz, own, mask);
  return h;
}

GS_HD3 float gs_fdtd3_hz_m(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, unsigned mask, int pf,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const float dx = GS_LDG(&a->ey[o + 1]) - GS_LDG(&a->ey[o]), dy = GS_LDG(&a->ex[o + a->pitch]) - GS_LDG(&a->ex[o]);
  float src, h = gs_fdtd3_h_sum(a, a->hmz, o, GS_LDG(&a->hz[o]), 0, dx, 1, dy, &src);
  if (a->nslab) h = gs_fdtd3_cpml_any(a, g, pf, 0, 2, i, j, k, h, -src, src, 0, dx, dy, 0, own, mask);
  return h;
}

/* The same, working out the node's slabs (a neighbour's H recomputed). */
GS_HD3 float gs_fdtd3_hx(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, int pf) {
  return gs_fdtd3_hx_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u, pf, 0);
}
GS_HD3 float gs_fdtd3_hy(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, int pf) {
  return gs_fdtd3_hy_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u, pf, 0);
}
GS_HD3 float gs_fdtd3_hz(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int own, int pf) {
  return gs_fdtd3_hz_m(a, i, j, k, own, a->nslab ? gs_fdtd3_slab_mask(a, 0, i, j, k) : 0u, pf, 0);
}

/* Dispersive poles (fdtd3d_kernels.h's gs_fdtd3_poles; fdtd3d_disp.h): gprMax
 * 4's update_electric_dispersive_multipole_A and _B at one node, as its
 * build evaluates them (docs/gprmax-rules.md, "Fused multiply-adds"). phi =
 * sum c0 T over the old state (one pole: just c0 T, gprMax's single-pole
 * function, which differs from 0 + c0 T only in the sign of a zero); A:
 * T = c1 T + c2 e (e: the old E); B: T = T - c2 E_new. Real poles fused
 * (phi = fmaf(c0, T, phi), T = fmaf(c1, T, c2 e), T = fmaf(-c2, E_new, T));
 * complex poles (gprMax's complex64 kernels: C99 complex products, which its
 * build vectorises without fusing) unfused, with E as a complex number
 * (e + 0: -0 becomes +0) and (a + bi)(c + di) = (ac - bd) + (ad + bc)i. */

/* The pole kind a caller is built for, as the CPML form pf: a constant
 * where a kernel is built per kind (GS_FDTD3_PK(npoles, cplx)), so that
 * the loops over the poles unroll and the state's stride is known; 0: the
 * scene's own, read from a->poles (the CPU twin, and kinds with no kernel of
 * their own). Either way the same expressions in the same order. */
#define GS_FDTD3_PK(np, cx) ((np)*2 + (cx))
GS_HD3 int gs_fdtd3_pk_np(const gs_fdtd3_poles *p, int pk) {
  return pk ? pk >> 1 : p->npoles;
}
GS_HD3 int gs_fdtd3_pk_cx(const gs_fdtd3_poles *p, int pk) {
  return pk ? pk & 1 : p->cplx;
}
/* The floats of pole state a node holds: npoles, two a pole when complex. */
GS_HD3 int gs_fdtd3_pk_per(const gs_fdtd3_poles *p, int pk) {
  return gs_fdtd3_pk_np(p, pk) * (gs_fdtd3_pk_cx(p, pk) ? 2 : 1);
}

/* phi after pole q's term (np poles, cx complex), v: the pole's old state
 * (its real part). */
GS_HD3 float gs_fdtd3_phi_term(int np, int cx, const gs_fdtd3_disp_coef *c, int q, float v, float phi) {
  const float c0 = GS_LDG(&c[q].c0);
  if (q > 0) return cx ? phi + c0 * v : fmaf(c0, v, phi);
  return np > 1 ? 0.0f + c0 * v : c0 * v;
}

/* phi of a node of material mat from its old state t. */
GS_HD3 float gs_fdtd3_pole_phi(const gs_fdtd3_poles *p, int mat, const float *t) {
  const gs_fdtd3_disp_coef *c = p->coef + (int64_t)mat * p->npoles;
  const int w = p->cplx ? 2 : 1;
  float phi = 0.0f;
  for (int q = 0; q < p->npoles; ++q)
    phi = gs_fdtd3_phi_term(p->npoles, p->cplx, c, q, t[q * w], phi);
  return phi;
}

/* A of one pole on its state v (re, im). */
GS_HD3 void gs_fdtd3_pole_a(const gs_fdtd3_disp_coef *c, int cplx, float v[2], float e) {
  const float c1 = GS_LDG(&c->c1), c2 = GS_LDG(&c->c2);
  if (!cplx) {
    v[0] = fmaf(c1, v[0], c2 * e);
    return;
  }
  const float c1i = GS_LDG(&c->c1i), c2i = GS_LDG(&c->c2i), tr = v[0], ti = v[1], ec = e + 0.0f;
  v[0] = (c1 * tr - c1i * ti) + (c2 * ec - c2i * 0.0f);
  v[1] = (c1 * ti + c1i * tr) + (c2 * 0.0f + c2i * ec);
}

/* B of one pole on its state v. */
GS_HD3 void gs_fdtd3_pole_b(const gs_fdtd3_disp_coef *c, int cplx, float v[2], float en) {
  const float c2 = GS_LDG(&c->c2);
  if (!cplx) {
    v[0] = fmaf(-c2, en, v[0]);
    return;
  }
  const float c2i = GS_LDG(&c->c2i), ec = en + 0.0f;
  v[0] = v[0] - (c2 * ec - c2i * 0.0f);
  v[1] = v[1] - (c2 * 0.0f + c2i * ec);
}

/* The state t of a node of material mat after A from its old E e, then,
 * with b, B from its new E en (the fused form: each float read and written
 * once; the value between the halves is the float A stores in the separate
 * passes, so the bits are theirs); pk: the pole kind. */
GS_HD3 void gs_fdtd3_pole_update(const gs_fdtd3_poles *p, int pk, int mat, float *t, float e, float en, int b) {
  const int np = gs_fdtd3_pk_np(p, pk), cx = gs_fdtd3_pk_cx(p, pk), w = cx ? 2 : 1;
  const gs_fdtd3_disp_coef *c = p->coef + mat * np; /* mat < 256, np < 16 */
  for (int q = 0; q < np; ++q) {
    float v[2] = {t[q * w], cx ? t[q * w + 1] : 0.0f};
    gs_fdtd3_pole_a(c + q, cx, v, e);
    if (b) gs_fdtd3_pole_b(c + q, cx, v, en);
    t[q * w] = v[0];
    if (cx) t[q * w + 1] = v[1];
  }
}

/* The map word pair of E component comp's block holding offset o, NULL
 * when the component has no fused node (fdtd3d_kernels.h). The block index
 * (o >> 5; o global on a model split over ranks) is taken in 32 bits: the
 * engine refuses dispersive models of more than 2^37 nodes
 * (gs_fdtd3_disp_place). */
GS_HD3 const uint32_t *gs_fdtd3_pole_map(const gs_fdtd3_step_args *a, int comp, int64_t o) {
  const uint32_t *w = a->poles.map[comp];
  return w ? w + 2 * (size_t)(uint32_t)(o >> 5) : 0;
}

/* No fused node (gs_fdtd3_pole_index). */
#define GS_FDTD3_NO_SLOT 0xFFFFFFFFu

/* The slot of E component comp's node at offset o if the E update advances
 * its poles (a fused node, fdtd3d_kernels.h; slots are 32-bit, as the map's
 * first words), else GS_FDTD3_NO_SLOT. The GPU reads the word pair in one
 * 8-byte load (the map's pairs are 8-byte aligned). */
GS_HD3 uint32_t gs_fdtd3_pole_index(const gs_fdtd3_step_args *a, int comp, int64_t o) {
  const uint32_t *w = gs_fdtd3_pole_map(a, comp, o);
  unsigned first = 0, mask = 0; /* no branch past the load: the next component's load need not wait for it */
  if (w) {
#ifdef __CUDA_ARCH__
    const uint2 pair = __ldg((const uint2 *)w);
    first = pair.x, mask = pair.y;
#else
    first = w[0], mask = w[1];
#endif
  }
  const unsigned bit = (unsigned)(o & 31), below = mask & ((1u << bit) - 1u);
#ifdef __CUDA_ARCH__
  const unsigned before = (unsigned)__popc(below);
#else
  const unsigned before = (unsigned)__builtin_popcount(below);
#endif
  return mask >> bit & 1u ? first + before : GS_FDTD3_NO_SLOT;
}

/* The pole state of E component comp's fused node of slot s (NULL for
 * GS_FDTD3_NO_SLOT); pk: the pole kind. */
GS_HD3 float *gs_fdtd3_pole_at(const gs_fdtd3_step_args *a, int pk, int comp, uint32_t s) {
  const gs_fdtd3_poles *p = &a->poles;
  return s == GS_FDTD3_NO_SLOT ? 0 : p->t[comp] + (size_t)s * (size_t)gs_fdtd3_pk_per(p, pk);
}

/* The pole state of E component comp's node at offset o if the E update
 * advances it, else NULL. */
GS_HD3 float *gs_fdtd3_pole_slot(const gs_fdtd3_step_args *a, int pk, int comp, int64_t o) {
  return gs_fdtd3_pole_at(a, pk, comp, gs_fdtd3_pole_index(a, comp, o));
}

/* phi[c] of the fused poles t[c] (NULL where none) of E components of
 * materials mat, from their old state. The three components' loads are
 * independent, so the GPU waits once a pole for the state, not once each. */
GS_HD3 void gs_fdtd3_poles_phi(const gs_fdtd3_step_args *a, int pk, const int mat[3], float *const t[3], float phi[3]) {
  const gs_fdtd3_poles *p = &a->poles;
  const int np = gs_fdtd3_pk_np(p, pk), cx = gs_fdtd3_pk_cx(p, pk), w = cx ? 2 : 1;
  for (int k = 0; k < 3; ++k)
    phi[k] = 0.0f;
  for (int q = 0; q < np; ++q)
    for (int k = 0; k < 3; ++k)
      if (t[k]) phi[k] = gs_fdtd3_phi_term(np, cx, p->coef + mat[k] * np, q, t[k][q * w], phi[k]);
}

/* The fused poles of node o's three E components (materials mat): their
 * state t[c] (NULL where none) and phi[c] from the old state. */
GS_HD3 void gs_fdtd3_poles3(const gs_fdtd3_step_args *a, int pk, int64_t o, const int mat[3], float *t[3],
                            float phi[3]) {
  for (int k = 0; k < 3; ++k)
    t[k] = gs_fdtd3_pole_slot(a, pk, k, o);
  gs_fdtd3_poles_phi(a, pk, mat, t, phi);
}

/* New E f[3] (their sums, at a node no slab reaches: no CPML term) with
 * the fused poles t[c] of the node's components (NULL where none;
 * materials mat, old E e): f - srce phi, and the state advanced (A and B). */
GS_HD3 void gs_fdtd3_e_fused3_at(const gs_fdtd3_step_args *a, int pk, const int mat[3], const float e[3], float f[3],
                                 float *const t[3]) {
  float phi[3];
  gs_fdtd3_poles_phi(a, pk, mat, t, phi);
  for (int k = 0; k < 3; ++k)
    if (t[k]) {
      f[k] = fmaf(-GS_LDG(&a->coef[mat[k]].src), phi[k], f[k]);
      gs_fdtd3_pole_update(&a->poles, pk, mat[k], t[k], e[k], f[k], 1);
    }
}

/* The same at node offset o, its poles found from the map. */
GS_HD3 void gs_fdtd3_e_fused3(const gs_fdtd3_step_args *a, int pk, int64_t o, const int mat[3], const float e[3],
                              float f[3]) {
  float *t[3];
  for (int k = 0; k < 3; ++k)
    t[k] = gs_fdtd3_pole_slot(a, pk, k, o);
  gs_fdtd3_e_fused3_at(a, pk, mat, e, f, t);
}

/* New Ex, Ey, Ez from the new H around the node (_im, _jm, _km: the H one
 * node lower in x, y, z), with CPML. t: the node's pole state, NULL for
 * none; else gprMax's dispersive update with phi (from the old state):
 * "- srce phi" before the CPML terms, and the state advanced: A, and with
 * b B from the final value too (the fused form; b = 0: the separate
 * passes, B after the sources); pk: the pole kind. */
GS_HD3 float gs_fdtd3_ex_p(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hz, float hz_jm,
                           float hy, float hy_km, unsigned mask, float *t, float phi, int b, int pf, int pk,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const int mat = GS_LDG(&a->mex[o]);
  const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat);
  const float dy = hz - hz_jm, dz = hy - hy_km;
  float f = gs_fdtd3_esum(c.ca, GS_LDG(&a->ex[o]), c.cby, dy, c.cbz, dz);
  if (t) f = fmaf(-c.src, phi, f);
  if (a->nslab) f = gs_fdtd3_cpml_any(a, g, pf, 1, 0, i, j, k, f, 0, c.src, -c.src, 0, dy, dz, 1, mask);
  if (t) gs_fdtd3_pole_update(&a->poles, pk, mat, t, GS_LDG(&a->ex[o]), f, b);
  return f;
}

GS_HD3 float gs_fdtd3_ey_p(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hx, float hx_km,
                           float hz, float hz_im, unsigned mask, float *t, float phi, int b, int pf, int pk,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const int mat = GS_LDG(&a->mey[o]);
  const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat);
  const float dz = hx - hx_km, dx = hz - hz_im;
  float f = gs_fdtd3_esum(c.ca, GS_LDG(&a->ey[o]), c.cbz, dz, c.cbx, dx);
  if (t) f = fmaf(-c.src, phi, f);
  if (a->nslab) f = gs_fdtd3_cpml_any(a, g, pf, 1, 1, i, j, k, f, -c.src, 0, c.src, dx, 0, dz, 1, mask);
  if (t) gs_fdtd3_pole_update(&a->poles, pk, mat, t, GS_LDG(&a->ey[o]), f, b);
  return f;
}

GS_HD3 float gs_fdtd3_ez_p(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hy, float hy_im,
                           float hx, float hx_jm, unsigned mask, float *t, float phi, int b, int pf, int pk,
                           const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const int mat = GS_LDG(&a->mez[o]);
  const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat);
  const float dx = hy - hy_im, dy = hx - hx_jm;
  float f = gs_fdtd3_esum(c.ca, GS_LDG(&a->ez[o]), c.cbx, dx, c.cby, dy);
  if (t) f = fmaf(-c.src, phi, f);
  if (a->nslab) f = gs_fdtd3_cpml_any(a, g, pf, 1, 2, i, j, k, f, c.src, -c.src, 0, dx, dy, 0, 1, mask);
  if (t) gs_fdtd3_pole_update(&a->poles, pk, mat, t, GS_LDG(&a->ez[o]), f, b);
  return f;
}

/* The plain update alone (no pole state touched): a node's E again after
 * a source changed H (fdtd3d_src_node.h), which the separate passes redo
 * (the CPML form read from a: these few nodes need no kernel per form). */
GS_HD3 float gs_fdtd3_ex(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hz, float hz_jm, float hy,
                         float hy_km, unsigned mask) {
  return gs_fdtd3_ex_p(a, i, j, k, hz, hz_jm, hy, hy_km, mask, 0, 0.0f, 0, a->pml_form, 0, 0);
}
GS_HD3 float gs_fdtd3_ey(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hx, float hx_km, float hz,
                         float hz_im, unsigned mask) {
  return gs_fdtd3_ey_p(a, i, j, k, hx, hx_km, hz, hz_im, mask, 0, 0.0f, 0, a->pml_form, 0, 0);
}
GS_HD3 float gs_fdtd3_ez(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, float hy, float hy_im, float hx,
                         float hx_jm, unsigned mask) {
  return gs_fdtd3_ez_p(a, i, j, k, hy, hy_im, hx, hx_jm, mask, 0, 0.0f, 0, a->pml_form, 0, 0);
}

/* New H of node (i, j, k), stored (its owner: psi stored too); pf: the
 * CPML form (a->pml_form, a constant where the caller is built per form);
 * cand: the slabs that may reach the node (gs_fdtd3_geo_mask); g: the
 * slabs' geometry (gs_fdtd3_geo_of(a); not NULL where a has slabs). */
GS_HD3 void gs_fdtd3_h_node(const gs_fdtd3_step_args *a, int64_t i, int64_t j, int64_t k, int pf, unsigned cand,
                            const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k);
  const unsigned mh = a->nslab ? gs_fdtd3_geo_mask(g, a->nslab, 0, i, j, k, cand) : 0u;
  if (gs_fdtd3_hx_ok(a, i, j, k)) a->hx_out[o] = gs_fdtd3_hx_m(a, i, j, k, 1, mh, pf, g);
  if (gs_fdtd3_hy_ok(a, i, j, k)) a->hy_out[o] = gs_fdtd3_hy_m(a, i, j, k, 1, mh, pf, g);
  if (gs_fdtd3_hz_ok(a, i, j, k)) a->hz_out[o] = gs_fdtd3_hz_m(a, i, j, k, 1, mh, pf, g);
}

/* Whether a has fused poles (gs_fdtd3_e_node's poles). */
GS_HD3 int gs_fdtd3_has_poles(const gs_fdtd3_step_args *a) {
  return a->poles.map[0] || a->poles.map[1] || a->poles.map[2];
}

/* New E of node (i, j, k) of box r, once the new H of every node of r is
 * stored: reads the stored H of the neighbours in r and recomputes the
 * others' (the same bits either way); with poles (gs_fdtd3_has_poles), the
 * fused poles advanced (pk: their kind, gs_fdtd3_pole_update); pf, cand
 * and g as gs_fdtd3_h_node's. */
GS_HD3 void gs_fdtd3_e_node(const gs_fdtd3_step_args *a, gs_fdtd3_region r, int64_t i, int64_t j, int64_t k, int poles,
                            int pk, int pf, unsigned cand, const gs_fdtd3_geo *g) {
  const int64_t o = gs_fdtd3_at(a, i, j, k), P = a->pitch, S = a->plane;
  const unsigned me = a->nslab ? gs_fdtd3_geo_mask(g, a->nslab, 1, i, j, k, cand) : 0u;
  float *t[3] = {0, 0, 0}, phi[3] = {0, 0, 0};
  if (poles) {
    const int mat[3] = {GS_LDG(&a->mex[o]), GS_LDG(&a->mey[o]), GS_LDG(&a->mez[o])};
    gs_fdtd3_poles3(a, pk, o, mat, t, phi);
  }
  if (gs_fdtd3_ex_ok(a, i, j, k)) {
    const float hz_jm = j - 1 >= r.j0 ? GS_LDG(&a->hz_out[o - P]) : gs_fdtd3_hz(a, i, j - 1, k, 0, pf);
    const float hy_km = k - 1 >= r.k0 ? GS_LDG(&a->hy_out[o - S]) : gs_fdtd3_hy(a, i, j, k - 1, 0, pf);
    a->ex_out[o] = gs_fdtd3_ex_p(a, i, j, k, GS_LDG(&a->hz_out[o]), hz_jm, GS_LDG(&a->hy_out[o]), hy_km, me, t[0],
                                 phi[0], 1, pf, pk, g);
  }
  if (gs_fdtd3_ey_ok(a, i, j, k)) {
    const float hx_km = k - 1 >= r.k0 ? GS_LDG(&a->hx_out[o - S]) : gs_fdtd3_hx(a, i, j, k - 1, 0, pf);
    const float hz_im = i - 1 >= r.i0 ? GS_LDG(&a->hz_out[o - 1]) : gs_fdtd3_hz(a, i - 1, j, k, 0, pf);
    a->ey_out[o] = gs_fdtd3_ey_p(a, i, j, k, GS_LDG(&a->hx_out[o]), hx_km, GS_LDG(&a->hz_out[o]), hz_im, me, t[1],
                                 phi[1], 1, pf, pk, g);
  }
  if (gs_fdtd3_ez_ok(a, i, j, k)) {
    const float hy_im = i - 1 >= r.i0 ? GS_LDG(&a->hy_out[o - 1]) : gs_fdtd3_hy(a, i - 1, j, k, 0, pf);
    const float hx_jm = j - 1 >= r.j0 ? GS_LDG(&a->hx_out[o - P]) : gs_fdtd3_hx(a, i, j - 1, k, 0, pf);
    a->ez_out[o] = gs_fdtd3_ez_p(a, i, j, k, GS_LDG(&a->hy_out[o]), hy_im, GS_LDG(&a->hx_out[o]), hx_jm, me, t[2],
                                 phi[2], 1, pf, pk, g);
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

/* The box kernels' node update by axes (fdtd3d_kernels.h, gs_fdtd3_boxes_ref):
 * where an axis's two slabs (side 0 and side 1) never both reach a node
 * (gs_fdtd3_axes_of), a node has at most one slab term along each axis, and
 * a component takes at most two, along its other two axes. Each term's X
 * (the correction is f + c X, gs_fdtd3_cpml_x) does not read the field, so
 * the two are worked out apart and added in slab order: the expressions
 * and order of gs_fdtd3_h_node and gs_fdtd3_e_node, so the same bits,
 * without their loop over a mask of slabs, whose generic depth, element
 * and select arithmetic made a CPML node cost the GPU 800 (H) to 1,100 (E
 * with poles) instructions (docs/performance.md). Node offsets and Phi
 * elements are 32-bit: the caller's arrays hold fewer than 2^31 elements
 * (gs_fdtd3_axes_of), so that a thread's index arithmetic takes half the
 * registers. */

/* Node (i, j, k)'s offset in 32 bits. */
GS_HD3 int gs_fdtd3_at32(const gs_fdtd3_step_args *a, int i, int j, int k) {
  return k * (int)a->plane + j * (int)a->pitch + i;
}

/* Node (i, j, k)'s slab along each axis whose E (e = 1) or H (e = 0)
 * corrections reach it (s[d], -1: none) with its depth q[d] and Phi
 * element w[d] (gs_fdtd3_slab_geo's maps; g: the slabs' geometry). The
 * element is below t sa sb, and the slab thinner than the cells along its
 * axis (gs_fdtd3_axes_of), so below nx ny nz < 2^31: the maps' sums
 * modulo 2^32 give it exactly. */
GS_HD3 void gs_fdtd3_reach(const gs_fdtd3_geo *g, const gs_fdtd3_axes *ax, int e, int i, int j, int k, int s[3],
                           int q[3], unsigned w[3]) {
  for (int d = 0; d < 3; ++d) {
    s[d] = -1, q[d] = 0, w[d] = 0;
    for (int side = 0; side < 2; ++side) {
      const int n = ax->s[d][side];
      const gs_fdtd3_slab_geo *x = &g->s[e][n < 0 ? 0 : n];
      if (n >= 0 && i >= x->i0 && i < x->i1 && j >= x->j0 && j < x->j1 && k >= x->k0 && k < x->k1) {
        s[d] = n;
        q[d] = x->qi * i + x->qj * j + x->qk * k + x->q0;
        w[d] = (unsigned)x->wi * (unsigned)i + (unsigned)x->wj * (unsigned)j + (unsigned)x->wk * (unsigned)k +
               (unsigned)x->w0;
      }
    }
  }
}

/* X of component comp's term along axis dir (0 where no slab reaches:
 * gs_fdtd3_reach's s, q, w), raw its difference; the new Phi stored. */
GS_HD3 float gs_fdtd3_axis_x(const gs_fdtd3_step_args *a, int pf, int e, int comp, int dir, const int s[3],
                             const int q[3], const unsigned w[3], float raw) {
  if (s[dir] < 0) return 0.0f;
  return gs_fdtd3_cpml_x(&a->slab[s[dir]], pf, e, comp == (dir == 0 ? 1 : 0) ? 0 : 1, q[dir], w[dir], raw, 1);
}

/* f with the terms c1 x1 of slab s1 and c2 x2 of slab s2 (-1: none) added
 * in slab order. */
GS_HD3 float gs_fdtd3_add2(float f, int s1, float c1, float x1, int s2, float c2, float x2) {
  if (s1 >= 0 && s2 >= 0 && s2 < s1) return fmaf(c1, x1, fmaf(c2, x2, f));
  if (s1 >= 0) f = fmaf(c1, x1, f);
  if (s2 >= 0) f = fmaf(c2, x2, f);
  return f;
}

/* New H of node (i, j, k) by axes (pf: the CPML form), each component
 * where it is updated (gs_fdtd3_hx_m's sums and terms). */
GS_HD3 void gs_fdtd3_h_axes(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, const gs_fdtd3_axes *ax, int pf, int i,
                            int j, int k) {
  const int o = gs_fdtd3_at32(a, i, j, k), P = (int)a->pitch, S = (int)a->plane;
  const int nx = (int)a->nx, ny = (int)a->ny, nz = (int)a->nz;
  int s[3], q[3];
  unsigned w[3];
  gs_fdtd3_reach(g, ax, 0, i, j, k, s, q, w);
  if (i >= 1 && i <= nx && j < ny && k < nz) { /* gs_fdtd3_hx_ok */
    const float dy = GS_LDG(&a->ez[o + P]) - GS_LDG(&a->ez[o]), dz = GS_LDG(&a->ey[o + S]) - GS_LDG(&a->ey[o]);
    float src;
    const float h = gs_fdtd3_h_sum(a, a->hmx, o, GS_LDG(&a->hx[o]), 1, dy, 2, dz, &src);
    a->hx_out[o] = gs_fdtd3_add2(h, s[1], -src, gs_fdtd3_axis_x(a, pf, 0, 0, 1, s, q, w, dy), s[2], src,
                                 gs_fdtd3_axis_x(a, pf, 0, 0, 2, s, q, w, dz));
  }
  if (i < nx && j >= 1 && j <= ny && k < nz) { /* gs_fdtd3_hy_ok */
    const float dz = GS_LDG(&a->ex[o + S]) - GS_LDG(&a->ex[o]), dx = GS_LDG(&a->ez[o + 1]) - GS_LDG(&a->ez[o]);
    float src;
    const float h = gs_fdtd3_h_sum(a, a->hmy, o, GS_LDG(&a->hy[o]), 2, dz, 0, dx, &src);
    a->hy_out[o] = gs_fdtd3_add2(h, s[0], src, gs_fdtd3_axis_x(a, pf, 0, 1, 0, s, q, w, dx), s[2], -src,
                                 gs_fdtd3_axis_x(a, pf, 0, 1, 2, s, q, w, dz));
  }
  if (i < nx && j < ny && k >= 1 && k <= nz) { /* gs_fdtd3_hz_ok */
    const float dx = GS_LDG(&a->ey[o + 1]) - GS_LDG(&a->ey[o]), dy = GS_LDG(&a->ex[o + P]) - GS_LDG(&a->ex[o]);
    float src;
    const float h = gs_fdtd3_h_sum(a, a->hmz, o, GS_LDG(&a->hz[o]), 0, dx, 1, dy, &src);
    a->hz_out[o] = gs_fdtd3_add2(h, s[0], -src, gs_fdtd3_axis_x(a, pf, 0, 2, 0, s, q, w, dx), s[1], src,
                                 gs_fdtd3_axis_x(a, pf, 0, 2, 1, s, q, w, dy));
  }
}

/* One E component by axes: CA E + cp dp - cm dm (ca, src: its material's
 * CA and srce, mat the material, e its old value), with fused poles t
 * (NULL: none) "- srce phi", then the terms of slabs s1 (c1 x1) and s2 (c2
 * x2) in slab order, then the poles advanced (gs_fdtd3_ex_p's order). */
GS_HD3 float gs_fdtd3_e_axes1(const gs_fdtd3_step_args *a, int pk, int mat, float ca, float src, float e, float cp,
                              float dp, float cm, float dm, float *t, float phi, int s1, float c1, float x1, int s2,
                              float c2, float x2) {
  float f = gs_fdtd3_esum(ca, e, cp, dp, cm, dm);
  if (t) f = fmaf(-src, phi, f);
  f = gs_fdtd3_add2(f, s1, c1, x1, s2, c2, x2);
  if (t) gs_fdtd3_pole_update(&a->poles, pk, mat, t, e, f, 1);
  return f;
}

/* New E of node (i, j, k) by axes, each component where it is updated, from
 * the new H of the node and of those one lower, all read from the out
 * arrays (stored by now); with poles (gs_fdtd3_has_poles; pk their kind)
 * the fused poles advanced. */
GS_HD3 void gs_fdtd3_e_axes(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, const gs_fdtd3_axes *ax, int pf,
                            int poles, int pk, int i, int j, int k) {
  const int o = gs_fdtd3_at32(a, i, j, k), P = (int)a->pitch, S = (int)a->plane;
  const int nx = (int)a->nx, ny = (int)a->ny, nz = (int)a->nz;
  const int mat[3] = {GS_LDG(&a->mex[o]), GS_LDG(&a->mey[o]), GS_LDG(&a->mez[o])};
  float *t[3] = {0, 0, 0}, phi[3] = {0, 0, 0};
  if (poles) gs_fdtd3_poles3(a, pk, o, mat, t, phi);
  int s[3], q[3];
  unsigned w[3];
  gs_fdtd3_reach(g, ax, 1, i, j, k, s, q, w);
  const float hx = GS_LDG(&a->hx_out[o]), hy = GS_LDG(&a->hy_out[o]), hz = GS_LDG(&a->hz_out[o]);
  if (i < nx && j >= 1 && j < ny && k >= 1 && k < nz) { /* gs_fdtd3_ex_ok */
    const float dy = hz - GS_LDG(&a->hz_out[o - P]), dz = hy - GS_LDG(&a->hy_out[o - S]);
    const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat[0]);
    a->ex_out[o] = gs_fdtd3_e_axes1(a, pk, mat[0], c.ca, c.src, GS_LDG(&a->ex[o]), c.cby, dy, c.cbz, dz, t[0], phi[0],
                                    s[1], c.src, gs_fdtd3_axis_x(a, pf, 1, 0, 1, s, q, w, dy), s[2], -c.src,
                                    gs_fdtd3_axis_x(a, pf, 1, 0, 2, s, q, w, dz));
  }
  if (i >= 1 && i < nx && j < ny && k >= 1 && k < nz) { /* gs_fdtd3_ey_ok */
    const float dz = hx - GS_LDG(&a->hx_out[o - S]), dx = hz - GS_LDG(&a->hz_out[o - 1]);
    const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat[1]);
    a->ey_out[o] = gs_fdtd3_e_axes1(a, pk, mat[1], c.ca, c.src, GS_LDG(&a->ey[o]), c.cbz, dz, c.cbx, dx, t[1], phi[1],
                                    s[0], -c.src, gs_fdtd3_axis_x(a, pf, 1, 1, 0, s, q, w, dx), s[2], c.src,
                                    gs_fdtd3_axis_x(a, pf, 1, 1, 2, s, q, w, dz));
  }
  if (i >= 1 && i < nx && j >= 1 && j < ny && k < nz) { /* gs_fdtd3_ez_ok */
    const float dx = hy - GS_LDG(&a->hy_out[o - 1]), dy = hx - GS_LDG(&a->hx_out[o - P]);
    const gs_fdtd3_coef c = gs_fdtd3_coef_at(a, mat[2]);
    a->ez_out[o] = gs_fdtd3_e_axes1(a, pk, mat[2], c.ca, c.src, GS_LDG(&a->ez[o]), c.cbx, dx, c.cby, dy, t[2], phi[2],
                                    s[0], c.src, gs_fdtd3_axis_x(a, pf, 1, 2, 0, s, q, w, dx), s[1], -c.src,
                                    gs_fdtd3_axis_x(a, pf, 1, 2, 1, s, q, w, dy));
  }
}

#endif

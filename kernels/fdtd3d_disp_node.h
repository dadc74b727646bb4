/* The dispersive node update (fdtd3d_disp.h) shared, as source, by the CPU
 * twin (fdtd3d_disp_ref.c) and the CUDA kernels (fdtd3d_disp.cu). It uses
 * fdtd3d_node.h's CPML correction unchanged. */
#ifndef GS_FDTD3D_DISP_NODE_H
#define GS_FDTD3D_DISP_NODE_H

#include "fdtd3d_disp.h"
#include "fdtd3d_node.h"

/* gprMax's phi and the first half of the pole update at one listed node:
 * phi = sum c0 T (float; one pole: just c0 T, gprMax's single-pole
 * function, which differs from 0 + c0 T only in the sign of a zero),
 * T = c1 T + c2 e (e: the old E), as gprMax's build evaluates them
 * (docs/gprmax-rules.md, "Fused multiply-adds"): real poles fused
 * (phi = fmaf(c0, T, phi), T = fmaf(c1, T, c2 e)); complex poles (gprMax's
 * complex64 kernels: C99 complex products, which its build vectorises
 * without fusing, the fused copies only deciding whether to call
 * __mulsc3) unfused: phi = phi + c0 Re T, T = c1 T + c2 (e' + 0i) with
 * e' = e + 0 (the conversion to complex turns -0 into +0) and
 * (a + bi)(c + di) = (ac - bd) + (ad + bc)i. */
GS_HD3 float gs_fdtd3_disp_phi(const gs_fdtd3_disp_args *d, int mat, float *t, float e) {
  const gs_fdtd3_disp_coef *c = d->coef + (int64_t)mat * d->npoles;
  const int w = d->cplx ? 2 : 1;
  float phi = c[0].c0 * t[0];
  if (d->npoles > 1) phi = 0.0f + phi;
  for (int p = 0; p < d->npoles; ++p) {
    float *tp = t + p * w;
    if (d->cplx) {
      const float tr = tp[0], ti = tp[1], ec = e + 0.0f;
      if (p > 0) phi = phi + c[p].c0 * tr;
      tp[0] = (c[p].c1 * tr - c[p].c1i * ti) + (c[p].c2 * ec - c[p].c2i * 0.0f);
      tp[1] = (c[p].c1 * ti + c[p].c1i * tr) + (c[p].c2 * 0.0f + c[p].c2i * ec);
    } else {
      if (p > 0) phi = fmaf(c[p].c0, tp[0], phi);
      tp[0] = fmaf(c[p].c1, tp[0], c[p].c2 * e);
    }
  }
  return phi;
}

/* Node (i, j, k) of component comp from its offset (global, with the
 * arrays' first node at d->org: a part of a model split over ranks). */
GS_HD3 void gs_fdtd3_disp_ijk(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, int64_t o, int64_t *i,
                              int64_t *j, int64_t *k) {
  const int64_t l = o - (d->org[2] * a->plane + d->org[1] * a->pitch + d->org[0]);
  *k = l / a->plane + d->org[2];
  *j = l % a->plane / a->pitch + d->org[1];
  *i = l % a->pitch + d->org[0];
}

/* A at entry e of component comp: E_out of the node, gprMax's
 * update_electric_dispersive_*_A then its HORIPML update (fdtd3d_node.h's
 * gs_fdtd3_ex/ey/ez with "- srce phi" before the CPML terms). */
GS_HD3 void gs_fdtd3_disp_a_node(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, int comp, int64_t e) {
  const int64_t o = d->off[comp][e], P = a->pitch, S = a->plane;
  int64_t i, j, k;
  gs_fdtd3_disp_ijk(a, d, o, &i, &j, &k);
  float *t = d->t[comp] + e * d->npoles * (d->cplx ? 2 : 1);
  if (comp == 0) {
    const int mat = a->mex[o];
    const gs_fdtd3_coef c = a->coef[mat];
    const float dy = a->hz_out[o] - a->hz_out[o - P], dz = a->hy_out[o] - a->hy_out[o - S];
    const float phi = gs_fdtd3_disp_phi(d, mat, t, a->ex[o]);
    float f = fmaf(-c.src, phi, gs_fdtd3_esum(c.ca, a->ex[o], c.cby, dy, c.cbz, dz));
    if (a->nslab)
      f = gs_fdtd3_cpml(a, 1, 0, i, j, k, f, 0, c.src, -c.src, 0, dy, dz, 1, gs_fdtd3_slab_mask(a, 1, i, j, k));
    a->ex_out[o] = f;
  } else if (comp == 1) {
    const int mat = a->mey[o];
    const gs_fdtd3_coef c = a->coef[mat];
    const float dz = a->hx_out[o] - a->hx_out[o - S], dx = a->hz_out[o] - a->hz_out[o - 1];
    const float phi = gs_fdtd3_disp_phi(d, mat, t, a->ey[o]);
    float f = fmaf(-c.src, phi, gs_fdtd3_esum(c.ca, a->ey[o], c.cbz, dz, c.cbx, dx));
    if (a->nslab)
      f = gs_fdtd3_cpml(a, 1, 1, i, j, k, f, -c.src, 0, c.src, dx, 0, dz, 1, gs_fdtd3_slab_mask(a, 1, i, j, k));
    a->ey_out[o] = f;
  } else {
    const int mat = a->mez[o];
    const gs_fdtd3_coef c = a->coef[mat];
    const float dx = a->hy_out[o] - a->hy_out[o - 1], dy = a->hx_out[o] - a->hx_out[o - P];
    const float phi = gs_fdtd3_disp_phi(d, mat, t, a->ez[o]);
    float f = fmaf(-c.src, phi, gs_fdtd3_esum(c.ca, a->ez[o], c.cbx, dx, c.cby, dy));
    if (a->nslab)
      f = gs_fdtd3_cpml(a, 1, 2, i, j, k, f, c.src, -c.src, 0, dx, dy, 0, 1, gs_fdtd3_slab_mask(a, 1, i, j, k));
    a->ez_out[o] = f;
  }
}

/* B at entry e of component comp: T = T - c2 E_new (real: fmaf(-c2, E_new, T)
 * as gprMax's build; complex: c2 (E_new + 0 + 0i), unfused as there). */
GS_HD3 void gs_fdtd3_disp_b_node(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, int comp, int64_t e) {
  const int64_t o = d->off[comp][e];
  const uint8_t *m = comp == 0 ? a->mex : comp == 1 ? a->mey : a->mez;
  const float en = (comp == 0 ? a->ex_out : comp == 1 ? a->ey_out : a->ez_out)[o];
  const gs_fdtd3_disp_coef *c = d->coef + (int64_t)m[o] * d->npoles;
  if (d->cplx) {
    float *t = d->t[comp] + e * d->npoles * 2;
    const float ec = en + 0.0f; /* E as a complex number: -0 becomes +0 */
    for (int p = 0; p < d->npoles; ++p) {
      t[2 * p] = t[2 * p] - (c[p].c2 * ec - c[p].c2i * 0.0f);
      t[2 * p + 1] = t[2 * p + 1] - (c[p].c2 * 0.0f + c[p].c2i * ec);
    }
  } else {
    float *t = d->t[comp] + e * d->npoles;
    for (int p = 0; p < d->npoles; ++p)
      t[p] = fmaf(-c[p].c2, en, t[p]);
  }
}

#endif

/* The deferred dispersive nodes' updates (fdtd3d_disp.h) shared, as source,
 * by the CPU twin (fdtd3d_disp_ref.c) and the CUDA kernels
 * (fdtd3d_disp.cu): fdtd3d_node.h's E update and pole halves, unchanged. */
#ifndef GS_FDTD3D_DISP_NODE_H
#define GS_FDTD3D_DISP_NODE_H

#include "fdtd3d_disp.h"
#include "fdtd3d_node.h"

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
 * update_electric_dispersive_*_A then its HORIPML update, from the stored
 * new H; the state's A half. */
GS_HD3 void gs_fdtd3_disp_a_node(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, int comp, int64_t e) {
  const int64_t o = d->off[comp][e], P = a->pitch, S = a->plane;
  int64_t i, j, k;
  gs_fdtd3_disp_ijk(a, d, o, &i, &j, &k);
  float *t = d->t[comp] + e * gs_fdtd3_pk_per(&a->poles, 0);
  const unsigned m = a->nslab ? gs_fdtd3_slab_mask(a, 1, i, j, k) : 0u;
  const float phi = gs_fdtd3_pole_phi(&a->poles, (comp == 0 ? a->mex : comp == 1 ? a->mey : a->mez)[o], t);
  if (comp == 0)
    a->ex_out[o] = gs_fdtd3_ex_p(a, i, j, k, a->hz_out[o], a->hz_out[o - P], a->hy_out[o], a->hy_out[o - S], m, t, phi,
                                 0, a->pml_form, 0, 0);
  else if (comp == 1)
    a->ey_out[o] = gs_fdtd3_ey_p(a, i, j, k, a->hx_out[o], a->hx_out[o - S], a->hz_out[o], a->hz_out[o - 1], m, t, phi,
                                 0, a->pml_form, 0, 0);
  else
    a->ez_out[o] = gs_fdtd3_ez_p(a, i, j, k, a->hy_out[o], a->hy_out[o - 1], a->hx_out[o], a->hx_out[o - P], m, t, phi,
                                 0, a->pml_form, 0, 0);
}

/* B at entry e of component comp: T = T - c2 E_new. */
GS_HD3 void gs_fdtd3_disp_b_node(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, int comp, int64_t e) {
  const gs_fdtd3_poles *p = &a->poles;
  const int64_t o = d->off[comp][e];
  const uint8_t *m = comp == 0 ? a->mex : comp == 1 ? a->mey : a->mez;
  const float en = (comp == 0 ? a->ex_out : comp == 1 ? a->ey_out : a->ez_out)[o];
  const gs_fdtd3_disp_coef *c = p->coef + (int64_t)m[o] * p->npoles;
  const int w = p->cplx ? 2 : 1;
  float *t = d->t[comp] + e * p->npoles * w;
  for (int q = 0; q < p->npoles; ++q) {
    float v[2] = {t[q * w], p->cplx ? t[q * w + 1] : 0.0f};
    gs_fdtd3_pole_b(c + q, p->cplx, v, en);
    t[q * w] = v[0];
    if (p->cplx) t[q * w + 1] = v[1];
  }
}

#endif

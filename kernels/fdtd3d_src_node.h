/* The source updates of fdtd3d_src.h shared, as source, by the CPU twin
 * (fdtd3d_src_ref.c) and the CUDA kernel (fdtd3d_src.cu). Both sides are
 * compiled without fused multiply-add, so the float64 and float32
 * expressions give the same bits. The float64 steps repeat gprMax's numpy
 * types: a float32 array element combined with a Python float is float64,
 * two float32 elements stay float32 (docs/gprmax-rules.md, "3D sources"). */
#ifndef GS_FDTD3D_SRC_NODE_H
#define GS_FDTD3D_SRC_NODE_H

#include "fdtd3d_node.h"
#include "fdtd3d_src.h"

/* Magnetic dipole q at step s: H_out -= value, in float64. */
GS_HD3 void gs_fdtd3_src_mag(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, int q, int64_t step) {
  float *h = s->mag_comp[q] == 0 ? a->hx_out : s->mag_comp[q] == 1 ? a->hy_out : a->hz_out;
  const int64_t o = s->mag_off[q];
  h[o] = (float)((double)h[o] - s->mag_val[step * s->nmag + q]);
}

/* New E of component ce at node (i, j, k) again, from the stored new H. */
GS_HD3 void gs_fdtd3_src_e_again(const gs_fdtd3_step_args *a, int ce, int64_t i, int64_t j, int64_t k) {
  const int64_t o = gs_fdtd3_at(a, i, j, k), P = a->pitch, S = a->plane;
  const unsigned mask = a->nslab ? gs_fdtd3_slab_mask(a, 1, i, j, k) : 0u;
  if (ce == 0 && gs_fdtd3_ex_ok(a, i, j, k))
    a->ex_out[o] = gs_fdtd3_ex(a, i, j, k, a->hz_out[o], a->hz_out[o - P], a->hy_out[o], a->hy_out[o - S], mask);
  if (ce == 1 && gs_fdtd3_ey_ok(a, i, j, k))
    a->ey_out[o] = gs_fdtd3_ey(a, i, j, k, a->hx_out[o], a->hx_out[o - S], a->hz_out[o], a->hz_out[o - 1], mask);
  if (ce == 2 && gs_fdtd3_ez_ok(a, i, j, k))
    a->ez_out[o] = gs_fdtd3_ez(a, i, j, k, a->hy_out[o], a->hy_out[o - 1], a->hx_out[o], a->hx_out[o - P], mask);
}

/* The w-th (0..3) E node whose curl reads magnetic dipole q's H node:
 * H along c at (i, j, k) enters the two other components at (i, j, k) and
 * one node up along the third axis of each. */
GS_HD3 void gs_fdtd3_src_mag_e(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, int q, int w) {
  const int c = s->mag_comp[q];
  const int ce = w < 2 ? (c + 1) % 3 : (c + 2) % 3; /* the E component */
  const int up = 3 - c - ce;                        /* the axis along which it differentiates H_c */
  int64_t p[3] = {s->mag_ijk[3 * q], s->mag_ijk[3 * q + 1], s->mag_ijk[3 * q + 2]};
  if (w % 2) p[up] += 1;
  if (p[up] > (up == 0 ? a->nx : up == 1 ? a->ny : a->nz)) return;
  gs_fdtd3_src_e_again(a, ce, p[0], p[1], p[2]);
}

/* Voltage source q at step s. */
GS_HD3 void gs_fdtd3_src_volt(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, int q, int64_t step) {
  float *e = s->volt_comp[q] == 0 ? a->ex_out : s->volt_comp[q] == 1 ? a->ey_out : a->ez_out;
  const int64_t o = s->volt_off[q];
  const double v = s->volt_val[step * s->nvolt + q];
  if (!s->volt_hard[q])
    e[o] = (float)((double)e[o] - v);
  else if (v == v) /* NaN: the source is off this step */
    e[o] = (float)v;
}

/* Hertzian dipole q at step s. */
GS_HD3 void gs_fdtd3_src_hertz(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, int q, int64_t step) {
  float *e = s->hd_comp[q] == 0 ? a->ex_out : s->hd_comp[q] == 1 ? a->ey_out : a->ez_out;
  const int64_t o = s->hd_off[q];
  e[o] = (float)((double)e[o] - s->hd_val[step * s->nhd + q]);
}

GS_HD3 int gs_fdtd3_tl_on(const gs_fdtd3_tline *l, int64_t step) {
  const double time = (double)step * l->dt;
  return time >= l->start && time <= l->stop;
}

/* The current through the line's node from the new H (gprMax's Ix, Iy, Iz:
 * 0 on the first row and column). */
GS_HD3 float gs_fdtd3_tl_current(const gs_fdtd3_step_args *a, const gs_fdtd3_tline *l) {
  const int64_t o = gs_fdtd3_at(a, l->i, l->j, l->k), P = a->pitch, S = a->plane;
  float d1, d2;
  if (l->comp == 0) {
    if (l->j == 0 || l->k == 0) return 0;
    d1 = a->hy_out[o - S] - a->hy_out[o];
    d2 = a->hz_out[o] - a->hz_out[o - P];
  } else if (l->comp == 1) {
    if (l->i == 0 || l->k == 0) return 0;
    d1 = a->hx_out[o] - a->hx_out[o - S];
    d2 = a->hz_out[o - 1] - a->hz_out[o];
  } else {
    if (l->i == 0 || l->j == 0) return 0;
    d1 = a->hx_out[o - P] - a->hx_out[o];
    d2 = a->hy_out[o] - a->hy_out[o - 1];
  }
  return (float)(l->d_a * (double)d1 + l->d_b * (double)d2);
}

/* gprMax's update_current over cells [0, n - 1) of the line. */
GS_HD3 void gs_fdtd3_tl_update_current(const gs_fdtd3_tline *l, float *volt, float *curr, int64_t n, int64_t step) {
  for (int64_t c = 0; c + 1 < n; ++c)
    curr[c] = curr[c] - l->ki * (volt[c + 1] - volt[c]);
  float *f = &curr[GS_FDTD3_TL_SRC - 1];
  *f = (float)((double)*f + l->kinj * (double)l->wave_half[step]);
}

/* gprMax's update_voltage over cells [1, n) of the line, then its ABC. */
GS_HD3 void gs_fdtd3_tl_update_voltage(const gs_fdtd3_tline *l, float *volt, const float *curr, float *abc, int64_t n,
                                       int64_t step) {
  for (int64_t c = 1; c < n; ++c)
    volt[c] = volt[c] - l->kv * (curr[c] - curr[c - 1]);
  float *f = &volt[GS_FDTD3_TL_SRC];
  *f = (float)((double)*f + l->cdl * (double)l->wave_whole[step]);
  volt[0] = (float)(l->h_abc * (double)(volt[1] - abc[0]) + (double)abc[1]);
  abc[0] = volt[0];
  abc[1] = volt[1];
}

/* Step 1 of fdtd3d_src.h for line q. */
GS_HD3 void gs_fdtd3_tl_h(const gs_fdtd3_step_args *a, const gs_fdtd3_tline *l, int64_t step) {
  l->vtotal[step] = l->volt[GS_FDTD3_TL_ANT];
  l->itotal[step] = l->curr[GS_FDTD3_TL_ANT];
  if (!gs_fdtd3_tl_on(l, step)) return;
  l->curr[GS_FDTD3_TL_ANT] = gs_fdtd3_tl_current(a, l);
  gs_fdtd3_tl_update_current(l, l->volt, l->curr, GS_FDTD3_TL_CELLS, step);
}

/* Step 5 for line q: E = -V / d along the line's component. */
GS_HD3 void gs_fdtd3_tl_e(const gs_fdtd3_step_args *a, const gs_fdtd3_tline *l, int64_t step) {
  if (!gs_fdtd3_tl_on(l, step)) return;
  gs_fdtd3_tl_update_voltage(l, l->volt, l->curr, l->abc, GS_FDTD3_TL_CELLS, step);
  float *e = l->comp == 0 ? a->ex_out : l->comp == 1 ? a->ey_out : a->ez_out;
  e[gs_fdtd3_at(a, l->i, l->j, l->k)] = (float)((double)(-l->volt[GS_FDTD3_TL_ANT]) / l->d_comp);
}

#endif

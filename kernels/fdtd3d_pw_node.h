/* The discrete plane wave's expressions (fdtd3d_pw.h), shared as source by
 * the CPU twin (fdtd3d_pw_ref.c, -ffp-contract=off) and the CUDA kernels
 * (fdtd3d_pw.cu, --fmad=false): the fused multiply-adds are the explicit
 * fmaf() calls, where gprMax's compiled Cython (plane_wave.pyx, built with
 * -march=native) has vfmadd/vfnmadd (docs/gprmax-rules.md). */
#ifndef GS_FDTD3D_PW_NODE_H
#define GS_FDTD3D_PW_NODE_H

#include <math.h>

#include "fdtd3d_node.h"
#include "fdtd3d_pw.h"
#include "fdtd3d_src_node.h"

/* 1D index of 3D position p (gprMax's m . (p - origin)). */
GS_HD3 int64_t gs_pw_index(const gs_fdtd3_pw *w, const int64_t p[3]) {
  return w->m[0] * (p[0] - w->origin[0]) + w->m[1] * (p[1] - w->origin[1]) + w->m[2] * (p[2] - w->origin[2]);
}

/* f = c0 f + cp dp - cm dm, as gprMax's compiled 1D update: fma(-cm, dm, fma(c0, f, round(cp dp))). */
GS_HD3 float gs_pw_sum(float c0, float f, float cp, float dp, float cm, float dm) {
  return fmaf(-cm, dm, fmaf(c0, f, cp * dp));
}

/* The 1D grid's H at cell j (its H part; every cell reads E only). */
GS_HD3 void gs_pw_h1(const gs_fdtd3_pw *w, int64_t j, int64_t step) {
  const int64_t n = w->n, M = w->m[3];
  float *hx = w->h1, *hy = w->h1 + n, *hz = w->h1 + 2 * n;
  const float *ex = w->e1, *ey = w->e1 + n, *ez = w->e1 + 2 * n;
  const int mx = w->m[0], my = w->m[1], mz = w->m[2];
  const float *c = w->ch;
  if (j < M) { /* the incident wave enters */
    const float *v = w->half + step * 3 * M;
    hx[j] = (float)(w->proj[3] * (double)v[j]);
    hy[j] = (float)(w->proj[4] * (double)v[M + j]);
    hz[j] = (float)(w->proj[5] * (double)v[2 * M + j]);
    return;
  }
  if (j >= n - M) return;
  hx[j] = gs_pw_sum(c[0], hx[j], c[3], ey[j + mz] - ey[j], c[2], ez[j + my] - ez[j]);
  hy[j] = gs_pw_sum(c[0], hy[j], c[1], ez[j + mx] - ez[j], c[3], ex[j + mz] - ex[j]);
  hz[j] = gs_pw_sum(c[0], hz[j], c[2], ex[j + my] - ex[j], c[1], ey[j + mx] - ey[j]);
  const int64_t i = j - (n - M - w->p); /* PML cell */
  if (i < 0) return;
  const int64_t p = w->p;
  const float cd = c[4];
  /* per component q: the two derivatives (sign +1 for the first, which gprMax subtracts for Hx and Hz and adds for Hy)
   */
  float *h[3] = {hx, hy, hz};
  const float *fa[3] = {ez, ez, ey}, *fb[3] = {ey, ex, ex};
  const int sa[3] = {my, mx, mx}, sb[3] = {mz, mz, my};
  const float da[3] = {w->dy, w->dx, w->dx}, db[3] = {w->dz, w->dz, w->dy};
  for (int q = 0; q < 3; ++q) {
    const float *r = w->rch + q * 4 * p;
    float *ia = w->aux + (q * 4 + 3) * p, *ib = w->aux + (q * 4 + 2) * p; /* gprMax's I?m rows 3 and 2 */
    const float d1 = (fa[q][j + sa[q]] - fa[q][j]) / da[q], d2 = (fb[q][j + sb[q]] - fb[q][j]) / db[q];
    const float m1 = fmaf(r[i], d1, r[p + i] * ia[i]), m2 = fmaf(r[i], d2, r[p + i] * ib[i]);
    const float s = q == 1 ? 1.0f : -1.0f;
    h[q][j] = fmaf(s * cd, m1, h[q][j]);
    h[q][j] = fmaf(-s * cd, m2, h[q][j]);
    ia[i] = fmaf(r[3 * p + i], d1, fmaf(-r[2 * p + i], m1, ia[i]));
    ib[i] = fmaf(r[3 * p + i], d2, fmaf(-r[2 * p + i], m2, ib[i]));
  }
}

/* The 1D grid's E at cell j (its E part; every cell reads H only). gprMax's
 * Ey takes cb/dx for both terms (its code, kept). */
GS_HD3 void gs_pw_e1(const gs_fdtd3_pw *w, int64_t j, int64_t step) {
  const int64_t n = w->n, M = w->m[3];
  float *ex = w->e1, *ey = w->e1 + n, *ez = w->e1 + 2 * n;
  const float *hx = w->h1, *hy = w->h1 + n, *hz = w->h1 + 2 * n;
  const int mx = w->m[0], my = w->m[1], mz = w->m[2];
  const float *c = w->ce;
  if (j < M) {
    const float *v = w->whole + (step + 1) * 3 * M;
    ex[j] = (float)(w->proj[0] * (double)v[j]);
    ey[j] = (float)(w->proj[1] * (double)v[M + j]);
    ez[j] = (float)(w->proj[2] * (double)v[2 * M + j]);
    return;
  }
  if (j >= n - M) return;
  ex[j] = gs_pw_sum(c[0], ex[j], c[2], hz[j] - hz[j - my], c[3], hy[j] - hy[j - mz]);
  ey[j] = gs_pw_sum(c[0], ey[j], c[1], hx[j] - hx[j - mz], c[1], hz[j] - hz[j - mx]);
  ez[j] = gs_pw_sum(c[0], ez[j], c[1], hy[j] - hy[j - mx], c[2], hx[j] - hx[j - my]);
  const int64_t i = j - (n - M - w->p);
  if (i < 0) return;
  const int64_t p = w->p;
  const float cd = c[4];
  float *e[3] = {ex, ey, ez};
  const float *fa[3] = {hz, hz, hy}, *fb[3] = {hy, hx, hx};
  const int sa[3] = {my, mx, mx}, sb[3] = {mz, mz, my};
  const float da[3] = {w->dy, w->dx, w->dx}, db[3] = {w->dz, w->dz, w->dy};
  for (int q = 0; q < 3; ++q) {
    const float *r = w->rce + q * 4 * p;
    float *ia = w->aux + (q * 4 + 1) * p, *ib = w->aux + (q * 4 + 0) * p; /* gprMax's I?j rows 1 and 0 */
    const float d1 = (fa[q][j] - fa[q][j - sa[q]]) / da[q], d2 = (fb[q][j] - fb[q][j - sb[q]]) / db[q];
    const float m1 = fmaf(r[i], d1, r[p + i] * ia[i]), m2 = fmaf(r[i], d2, r[p + i] * ib[i]);
    const float s = q == 1 ? -1.0f : 1.0f;
    e[q][j] = fmaf(s * cd, m1, e[q][j]);
    e[q][j] = fmaf(-s * cd, m2, e[q][j]);
    ia[i] = fmaf(r[3 * p + i], d1, fmaf(-r[2 * p + i], m1, ia[i]));
    ib[i] = fmaf(r[3 * p + i], d2, fmaf(-r[2 * p + i], m2, ib[i]));
  }
}

/* Face list f (0..11) of the H part (e = 0) or E part (e = 1): axis a = f / 4,
 * side f / 2 % 2 (0 the low face), component q = the axis after a (f even)
 * or the one after that (f odd). Fills the node box [lo, hi), the shift from
 * a node to the 3D position whose 1D value it takes, the 1D component and
 * the signed coefficient; the box is cut to the nodes the rank owns (empty:
 * count 0). */
typedef struct gs_pw_face {
  int64_t lo[3], hi[3], shift[3];
  int q, src;
  float coef;
} gs_pw_face;

GS_HD3 int64_t gs_pw_face_init(const gs_fdtd3_pw *w, int e, int f, gs_pw_face *out) {
  const int a = f / 4, side = f / 2 % 2, q = (a + 1 + f % 2) % 3;
  const int cyclic = (f % 2) == 0; /* q follows a: x->y, y->z, z->x */
  for (int d = 0; d < 3; ++d) {
    out->lo[d] = w->lo[d];
    out->shift[d] = 0;
    /* H: its own axis inclusive, the other exclusive; E the other way round */
    out->hi[d] = w->hi[d] + ((d == q) != e ? 1 : 0);
  }
  const int64_t face = side ? w->hi[a] : w->lo[a];
  out->lo[a] = face - (!e && !side ? 1 : 0);
  out->hi[a] = out->lo[a] + 1;
  if (!side) out->shift[a] = e ? -1 : 1;
  for (int d = 0; d < 3; ++d) { /* the nodes this rank owns (shift and index stay global) */
    out->lo[d] = out->lo[d] > w->own_lo[d] ? out->lo[d] : w->own_lo[d];
    out->hi[d] = out->hi[d] < w->own_hi[d] ? out->hi[d] : w->own_hi[d];
    out->hi[d] = out->hi[d] > out->lo[d] ? out->hi[d] : out->lo[d];
  }
  out->q = q;
  out->src = 3 - a - q;
  const float sign = (cyclic == (e != 0)) != (side != 0) ? 1.0f : -1.0f;
  out->coef = sign * (e ? w->ce : w->ch)[1 + a];
  return (out->hi[0] - out->lo[0]) * (out->hi[1] - out->lo[1]) * (out->hi[2] - out->lo[2]);
}

/* Node t of face list f: its position. */
GS_HD3 void gs_pw_face_node(const gs_pw_face *fc, int64_t t, int64_t p[3]) {
  const int64_t nx = fc->hi[0] - fc->lo[0], ny = fc->hi[1] - fc->lo[1];
  p[0] = fc->lo[0] + t % nx;
  p[1] = fc->lo[1] + t / nx % ny;
  p[2] = fc->lo[2] + t / (nx * ny);
}

/* The TFSF correction of node t of face list f: field += coef * incident (fused). */
GS_HD3 void gs_pw_correct(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int e, const gs_pw_face *fc, int64_t t) {
  int64_t p[3], s[3];
  gs_pw_face_node(fc, t, p);
  for (int d = 0; d < 3; ++d)
    s[d] = p[d] + fc->shift[d];
  const float *src = (e ? w->h1 : w->e1) + fc->src * w->n;
  float *const out[6] = {a->ex_out, a->ey_out, a->ez_out, a->hx_out, a->hy_out, a->hz_out};
  float *f = out[(e ? 0 : 3) + fc->q];
  const int64_t o = gs_fdtd3_at(a, p[0], p[1], p[2]);
  f[o] = fmaf(fc->coef, src[gs_pw_index(w, s)], f[o]);
}

/* The r-th (0..3) E node whose curl reads H node t of face list f, updated
 * again from the stored new H (as after a magnetic dipole). */
GS_HD3 void gs_pw_e_again(const gs_fdtd3_step_args *a, const gs_pw_face *fc, int64_t t, int r) {
  int64_t p[3];
  gs_pw_face_node(fc, t, p);
  const int c = fc->q;
  const int ce = r < 2 ? (c + 1) % 3 : (c + 2) % 3;
  const int up = 3 - c - ce;
  if (r % 2) p[up] += 1;
  if (p[up] > (up == 0 ? a->nx : up == 1 ? a->ny : a->nz)) return;
  gs_fdtd3_src_e_again(a, ce, p[0], p[1], p[2]);
}

#endif

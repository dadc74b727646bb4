/* CPU twins of kernels/fdtd.cu: same expressions, same order, no FMA
 * contraction (-ffp-contract=off), so the CPU and GPU backends give the same
 * bits. */
#include "fdtd_kernels.h"

#define AT(v, a, i, j) ((v).a[((j) + (v).g) * (v).pitch + ((i) + (v).g)])

int gs_fdtd_update_h_ref(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry, float chx, float chy, void *stream) {
  (void)stream;
  for (int64_t j = rx.j0; j < rx.j1; ++j)
    for (int64_t i = rx.i0; i < rx.i1; ++i) AT(v, hx, i, j) = AT(v, hx, i, j) - chy * (AT(v, ez, i, j + 1) - AT(v, ez, i, j));
  for (int64_t j = ry.j0; j < ry.j1; ++j)
    for (int64_t i = ry.i0; i < ry.i1; ++i) AT(v, hy, i, j) = AT(v, hy, i, j) + chx * (AT(v, ez, i + 1, j) - AT(v, ez, i, j));
  return 0;
}

int gs_fdtd_update_e_ref(gs_fdtd_view v, gs_fdtd_region r, const gs_fdtd_coef *coef, void *stream) {
  (void)stream;
  for (int64_t j = r.j0; j < r.j1; ++j)
    for (int64_t i = r.i0; i < r.i1; ++i) {
      gs_fdtd_coef c = coef[AT(v, mat, i, j)];
      float dhy = AT(v, hy, i, j) - AT(v, hy, i - 1, j);
      float dhx = AT(v, hx, i, j) - AT(v, hx, i, j - 1);
      AT(v, ez, i, j) = c.ca * AT(v, ez, i, j) + (c.cbx * dhy - c.cby * dhx);
    }
  return 0;
}

static inline int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

int gs_fdtd_pml_h_ref(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, float chx, float chy, void *stream) {
  (void)stream;
  int64_t span = p.o1 - p.o0;
  if (p.dir == 0) {
    for (int64_t j = clamp64(p.o0, rc.j0, rc.j1); j < clamp64(p.o1, rc.j0, rc.j1); ++j)
      for (int64_t i = clamp64(p.lo, rc.i0, rc.i1); i < clamp64(p.hi, rc.i0, rc.i1); ++i) {
        int64_t k = i - p.lo;
        float *psi = &p.psi_h[k * span + (j - p.o0)];
        float d = AT(v, ez, i + 1, j) - AT(v, ez, i, j);
        *psi = p.bh[k] * *psi + p.ah[k] * d;
        AT(v, hy, i, j) = AT(v, hy, i, j) + chx * (p.kh[k] * d + *psi);
      }
  } else {
    for (int64_t j = clamp64(p.lo, rc.j0, rc.j1); j < clamp64(p.hi, rc.j0, rc.j1); ++j)
      for (int64_t i = clamp64(p.o0, rc.i0, rc.i1); i < clamp64(p.o1, rc.i0, rc.i1); ++i) {
        int64_t k = j - p.lo;
        float *psi = &p.psi_h[k * span + (i - p.o0)];
        float d = AT(v, ez, i, j + 1) - AT(v, ez, i, j);
        *psi = p.bh[k] * *psi + p.ah[k] * d;
        AT(v, hx, i, j) = AT(v, hx, i, j) - chy * (p.kh[k] * d + *psi);
      }
  }
  return 0;
}

int gs_fdtd_pml_e_ref(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, const gs_fdtd_coef *coef, void *stream) {
  (void)stream;
  int64_t span = p.o1 - p.o0;
  if (p.dir == 0) {
    for (int64_t j = clamp64(p.o0, rc.j0, rc.j1); j < clamp64(p.o1, rc.j0, rc.j1); ++j)
      for (int64_t i = clamp64(p.lo, rc.i0, rc.i1); i < clamp64(p.hi, rc.i0, rc.i1); ++i) {
        int64_t k = i - p.lo;
        float *psi = &p.psi_e[k * span + (j - p.o0)];
        float d = AT(v, hy, i, j) - AT(v, hy, i - 1, j);
        *psi = p.be[k] * *psi + p.ae[k] * d;
        AT(v, ez, i, j) = AT(v, ez, i, j) + coef[AT(v, mat, i, j)].cbx * (p.ke[k] * d + *psi);
      }
  } else {
    for (int64_t j = clamp64(p.lo, rc.j0, rc.j1); j < clamp64(p.hi, rc.j0, rc.j1); ++j)
      for (int64_t i = clamp64(p.o0, rc.i0, rc.i1); i < clamp64(p.o1, rc.i0, rc.i1); ++i) {
        int64_t k = j - p.lo;
        float *psi = &p.psi_e[k * span + (i - p.o0)];
        float d = AT(v, hx, i, j) - AT(v, hx, i, j - 1);
        *psi = p.be[k] * *psi + p.ae[k] * d;
        AT(v, ez, i, j) = AT(v, ez, i, j) - coef[AT(v, mat, i, j)].cby * (p.ke[k] * d + *psi);
      }
  }
  return 0;
}

int gs_fdtd_inject_ref(float *ez, const int64_t *off, const float *val, int n, void *stream) {
  (void)stream;
  for (int k = 0; k < n; ++k) ez[off[k]] = ez[off[k]] - val[k];
  return 0;
}

int gs_fdtd_sample_ref(gs_fdtd_view v, const int64_t *off, int n, float *out, void *stream) {
  (void)stream;
  for (int k = 0; k < n; ++k) {
    out[3 * k] = v.ez[off[k]];
    out[3 * k + 1] = v.hx[off[k]];
    out[3 * k + 2] = v.hy[off[k]];
  }
  return 0;
}

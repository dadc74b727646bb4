/* 2D FDTD (Yee, TMz) update kernels and their CPU twins.
 *
 * Grid: Ez(i, j) at (i dx, j dy); Hx(i, j) at (i dx, (j + 1/2) dy);
 * Hy(i, j) at ((i + 1/2) dx, j dy). Every array holds (nx + 1 + 2g) x
 * (ny + 1 + 2g) floats, row-major with x fastest, element (i, j) at
 * [(j + g) * pitch + (i + g)] for i in [-g, nx + g], j in [-g, ny + g].
 *
 * Each GPU launcher gs_fdtd_X_cuda() has a CPU twin gs_fdtd_X_ref() with the
 * same signature and the same floating-point expressions, evaluated in the
 * same order without fused multiply-add, so the two give the same bits. All
 * return 0 or a backend error code (cudaError_t). */
#ifndef GS_FDTD_KERNELS_H
#define GS_FDTD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FDTD_MAX_MATERIALS 256

typedef struct gs_fdtd_view {
  float *ez, *hx, *hy;
  const uint8_t *mat; /* material index of each Ez node (same layout) */
  int64_t pitch;      /* elements per row */
  int g;              /* ghost layers */
} gs_fdtd_view;

/* Half-open node range [i0, i1) x [j0, j1). */
typedef struct gs_fdtd_region {
  int64_t i0, i1, j0, j1;
} gs_fdtd_region;

/* Electric update coefficients of one material: Ez = ca Ez + cbx dHy - cby dHx;
 * src = 1 / (eps / dt + sigma / 2) for current sources. */
typedef struct gs_fdtd_coef {
  float ca, cbx, cby, src;
} gs_fdtd_coef;

/* Hx -= chy (Ez(i, j+1) - Ez(i, j)) over r; Hy += chx (Ez(i+1, j) - Ez(i, j))
 * over r. chx = dt / (mu0 dx), chy = dt / (mu0 dy). The caller's region
 * leaves out the nodes whose component lies outside the domain. */
typedef int (*gs_fdtd_update_h_fn)(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry, float chx, float chy,
                                   void *stream);
int gs_fdtd_update_h_ref(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry, float chx, float chy, void *stream);
int gs_fdtd_update_h_cuda(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry, float chx, float chy, void *stream);

/* Ez = ca Ez + (cbx (Hy(i,j) - Hy(i-1,j)) - cby (Hx(i,j) - Hx(i,j-1))) over r,
 * with coef[mat(i, j)] (coef: device memory, GS_FDTD_MAX_MATERIALS entries). */
typedef int (*gs_fdtd_update_e_fn)(gs_fdtd_view v, gs_fdtd_region r, const gs_fdtd_coef *coef, void *stream);
int gs_fdtd_update_e_ref(gs_fdtd_view v, gs_fdtd_region r, const gs_fdtd_coef *coef, void *stream);
int gs_fdtd_update_e_cuda(gs_fdtd_view v, gs_fdtd_region r, const gs_fdtd_coef *coef, void *stream);

/* One CPML slab normal to x (dir 0) or y (dir 1). Profiles are indexed by
 * the node index along dir minus lo: b, a and kinv (1/kappa - 1) for E at
 * nodes, and for H at half nodes (index + 1/2). psi arrays hold
 * (hi - lo) x span values, span = extent of the other direction
 * (rows j0..j1 for dir 0, columns i0..i1 for dir 1), x fastest. */
typedef struct gs_fdtd_pml {
  int dir;
  int64_t lo, hi;     /* along dir: [lo, hi) */
  int64_t o0, o1;     /* along the other direction: [o0, o1) */
  const float *be, *ae, *ke, *bh, *ah, *kh; /* device memory, hi - lo each */
  float *psi_e, *psi_h;
} gs_fdtd_pml;

/* H correction over the slab: for dir 0, dEz = Ez(i+1,j) - Ez(i,j),
 * psi_h = bh psi_h + ah dEz, Hy += chx (kh dEz + psi_h); for dir 1,
 * dEz = Ez(i,j+1) - Ez(i,j), Hx -= chy (kh dEz + psi_h). rclip limits the
 * nodes updated (the component's valid range). */
typedef int (*gs_fdtd_pml_h_fn)(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, float chx, float chy,
                                void *stream);
int gs_fdtd_pml_h_ref(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, float chx, float chy, void *stream);
int gs_fdtd_pml_h_cuda(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, float chx, float chy, void *stream);

/* E correction: dir 0: dH = Hy(i,j) - Hy(i-1,j), psi_e = be psi_e + ae dH,
 * Ez += cbx (ke dH + psi_e); dir 1: dH = Hx(i,j) - Hx(i,j-1),
 * Ez -= cby (ke dH + psi_e). */
typedef int (*gs_fdtd_pml_e_fn)(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, const gs_fdtd_coef *coef,
                                void *stream);
int gs_fdtd_pml_e_ref(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, const gs_fdtd_coef *coef, void *stream);
int gs_fdtd_pml_e_cuda(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rclip, const gs_fdtd_coef *coef, void *stream);

/* Point operations for sources and receivers (n entries, device memory):
 * ez[off[k]] -= val[k] (val already scaled by the material's src); and
 * out[3k..3k+2] = ez, hx, hy at off[k]. */
typedef int (*gs_fdtd_inject_fn)(float *ez, const int64_t *off, const float *val, int n, void *stream);
int gs_fdtd_inject_ref(float *ez, const int64_t *off, const float *val, int n, void *stream);
int gs_fdtd_inject_cuda(float *ez, const int64_t *off, const float *val, int n, void *stream);
typedef int (*gs_fdtd_sample_fn)(gs_fdtd_view v, const int64_t *off, int n, float *out, void *stream);
int gs_fdtd_sample_ref(gs_fdtd_view v, const int64_t *off, int n, float *out, void *stream);
int gs_fdtd_sample_cuda(gs_fdtd_view v, const int64_t *off, int n, float *out, void *stream);

#ifdef __cplusplus
}
#endif
#endif

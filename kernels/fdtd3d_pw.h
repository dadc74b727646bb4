/* gprMax 4's discrete plane wave (#plane_wave_angles, #plane_wave_vector):
 * a total-field/scattered-field box fed by a 1D auxiliary grid along the
 * rational direction m = (mx, my, mz) (Tan and Potter's DPW; docs/gprmax-
 * rules.md, "Discrete plane waves"). Per step, after the fused H and E
 * update of gs_fdtd3_step and the other sources of each part:
 *   H part (GS_FDTD3_PW_H): the 1D grid's H (its first max|m| cells take the
 *     incident wave, the rest the 1D update, its last p cells the 1D PML);
 *     then the scattered-field H nodes just outside the box's faces take
 *     -+ cb_a E_inc (x faces, then y, then z); then every E node whose curl
 *     reads one of those H nodes is updated again from the stored new H
 *     (the fused step computed it before the correction; gs_fdtd3_src_e_again;
 *     not on a part of a split model, whose E pass comes after: again = 0);
 *   E part (GS_FDTD3_PW_E): the 1D grid's E likewise; then the total-field E
 *     nodes on the box's faces take +- cb_a H_inc (x faces, then y, then z:
 *     an edge node takes two corrections in that order).
 * All float32 with gprMax's fused multiply-adds (fmaf) where its compiled
 * Cython fuses them (docs/gprmax-rules.md); the incident values are
 * float32(float64 projection * float32 waveform). Over several ranks every
 * rank steps the whole 1D grid (the same bits everywhere) and corrects only
 * the face nodes it owns: the corrections read the 1D grid alone, never a 3D
 * field, so a face cut by a rank boundary needs no neighbour's values.
 * gs_fdtd3_pw_cuda() and its
 * CPU twin gs_fdtd3_pw_ref() share the expressions of fdtd3d_pw_node.h. */
#ifndef GS_FDTD3D_PW_H
#define GS_FDTD3D_PW_H

#include <stdint.h>

#include "fdtd3d_kernels.h"
#include "tick.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FDTD3_PW_H 1
#define GS_FDTD3_PW_E 2

/* One plane wave (pointers in the memory the kernels see). */
typedef struct gs_fdtd3_pw {
  int m[4];             /* mx, my, mz, max |m| */
  int64_t origin[3];    /* 3D node of 1D index 0 (0, or n_a + 1 where m_a < 0) */
  int64_t lo[3], hi[3]; /* the box's corners (nodes) */
  int64_t n, p;         /* 1D cells; PML cells (the last p of [max|m|, n - max|m|)) */
  int64_t iterations;
  float *e1, *h1;            /* [3][n]: the 1D grid's Ex Ey Ez, Hx Hy Hz */
  float *aux;                /* [3][4][p]: gprMax's Ix, Iy, Iz PML integrals (rows 0-1 E, 2-3 H) */
  const float *rce, *rch;    /* [3][4][p]: RA RB RC RD of the 1D PML for E x y z and H x y z */
  const float *whole, *half; /* [iterations + 1][3][max|m|]: gprMax's waveformvalues_wholedt, _halfdt */
  double proj[6];            /* Ex Ey Ez Hx Hy Hz projections of the incident wave */
  float ce[5], ch[5];        /* the background's E and H coefficients (c0, cb/dx, cb/dy, cb/dz, cb) */
  float dx, dy, dz;          /* the cell sizes, float32 (the 1D PML divides by them) */
  /* The nodes this rank owns, [own_lo, own_hi) (the whole model on one rank): the corrections
   * touch those alone; again: 1 where the E nodes next to the corrected H are updated again
   * (one rank: its fused step computed E first), 0 on a part of a split model (its E pass runs
   * after the H corrections and reads them). */
  int64_t own_lo[3], own_hi[3];
  int again;
} gs_fdtd3_pw;

typedef int (*gs_fdtd3_pw_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int part, gs_tick t, void *stream);
int gs_fdtd3_pw_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int part, gs_tick t, void *stream);
int gs_fdtd3_pw_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int part, gs_tick t, void *stream);

#ifdef __cplusplus
}
#endif
#endif

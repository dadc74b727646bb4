/* The 3D sources other than Hertzian dipoles (issue #18), gprMax 4's
 * semantics (docs/gprmax-rules.md, "3D sources"): magnetic dipoles,
 * voltage sources (resistive and hard) and transmission lines. One call per
 * step, after gs_fdtd3_step (H and E of the step already in the out set),
 * does, in gprMax's order:
 *   1. every transmission line's H part (its total V and I recorded first,
 *      as gprMax's store_outputs does before the step; then the current at
 *      its feed from the new H around the node, then the line's currents);
 *   2. every magnetic dipole: H_out -= value (float64 arithmetic, rounded
 *      once to float32, as gprMax's numpy scalars do);
 *   3. the E nodes whose curl uses a dipole's H node are updated again from
 *      the stored new H (gs_fdtd3_ex/ey/ez of fdtd3d_node.h: the fused step
 *      computed them before the dipole's current; the CPML psi update reads
 *      psi_in and writes psi_out, so doing it again gives the same bits);
 *   4. every voltage source: resistive: E_out -= value; hard: E_out = value;
 *   5. every transmission line's E part (line voltages, then E at its node);
 *   6. every Hertzian dipole: E_out -= value (float64, rounded once).
 * Steps 1-3 are the H part, 4-6 the E part (gs_fdtd3_srcs.part picks
 * them): with dispersive materials the listed nodes' E is redone between
 * the two (gprMax: H sources, then the dispersive E update, then the E
 * sources). gs_fdtd3_sources_cuda() runs this as one single-block kernel; its CPU twin
 * gs_fdtd3_sources_ref() has the same signature and expressions
 * (fdtd3d_src_node.h), no fused multiply-add on either side. */
#ifndef GS_FDTD3D_SRC_H
#define GS_FDTD3D_SRC_H

#include <stddef.h>
#include <stdint.h>

#include "fdtd3d_kernels.h"
#include "tick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gprMax's line: 11 cells kept after the incident run (antenna at 10, the
 * one-way injector at 5). */
#define GS_FDTD3_TL_CELLS 11
#define GS_FDTD3_TL_ANT 10
#define GS_FDTD3_TL_SRC 5

/* One transmission line (all pointers in the memory the kernels see). */
typedef struct gs_fdtd3_tline {
  int64_t i, j, k;                     /* its E node */
  int comp;                            /* 0 x, 1 y, 2 z */
  float *volt, *curr;                  /* [GS_FDTD3_TL_CELLS] line state */
  float *abc;                          /* [2]: the ABC's previous V[0] and V[1] */
  float *vtotal, *itotal;              /* [iterations + 1]: V and I at the antenna cell before each step */
  const float *wave_whole, *wave_half; /* [iterations + 1] */
  float kv, ki;                        /* float32(R c dt / dl), float32((1 / R) c dt / dl) */
  double cdl, kinj;                    /* c dt / dl, (1 / R) c dt / dl (float64, as gprMax's scalars) */
  double h_abc;                        /* (c dt - dl) / (c dt + dl) */
  double d_comp;                       /* the cell size along comp */
  double d_a, d_b;                     /* cell sizes of the current's two terms (Iz: dx, dy) */
  double start, stop, dt;
} gs_fdtd3_tline;

#define GS_FDTD3_SRC_H 1 /* steps 1-3 */
#define GS_FDTD3_SRC_E 2 /* steps 4-6 */
typedef struct gs_fdtd3_srcs {
  int part; /* GS_FDTD3_SRC_H, GS_FDTD3_SRC_E or both (0 is both) */
  int nmag;
  const int64_t *mag_off; /* node offsets */
  const int *mag_comp;    /* 0 Hx, 1 Hy, 2 Hz */
  const int64_t *mag_ijk; /* [3 n]: node indices, for the E nodes around it */
  const double *mag_val;  /* [step][nmag]: subtracted from H */
  int nvolt;
  const int64_t *volt_off;
  const int *volt_comp;   /* 0 Ex, 1 Ey, 2 Ez */
  const double *volt_val; /* [step][nvolt]: resistive: subtracted; hard: the value (NaN: off this step) */
  const int *volt_hard;
  int ntl;
  const gs_fdtd3_tline *tl; /* [ntl] */
  int nhd;                  /* Hertzian dipoles, last (gprMax's order) */
  const int64_t *hd_off;
  const int *hd_comp;
  const double *hd_val; /* [step][nhd]: subtracted from E */
} gs_fdtd3_srcs;

typedef int (*gs_fdtd3_sources_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, gs_tick t, void *stream);
int gs_fdtd3_sources_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, gs_tick t, void *stream);
int gs_fdtd3_sources_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, gs_tick t, void *stream);

#ifdef __cplusplus
}
#endif
#endif

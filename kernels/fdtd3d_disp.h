/* gprMax 4's multi-pole Debye, Lorentz and Drude update (recursive convolution,
 * fields_updates_dispersive: update_electric_dispersive_multipole_A and _B,
 * docs/gprmax-rules.md "Dispersive materials") for the 3D kernels, with the
 * CPU twins and the node expressions shared by both (no fused multiply-add
 * on either side: the same bits).
 *
 * Design: pole state only where a dispersive material is. Per component
 * (Ex, Ey, Ez) a list of the nodes whose material is dispersive (node
 * offsets in fdtd3d_kernels.h's layout, ascending), and per list entry
 * npoles floats of pole state T (gprMax's Tx, Ty, Tz). A step is then
 *   1. gs_fdtd3_step (unchanged, the fused kernel included): every E node,
 *      listed ones too, gets the plain update into E_out;
 *   2. A (gs_fdtd3_disp_a): each listed node's E_out is computed again, in
 *      gprMax's order: phi = sum_p c0_p T_p, T_p = c1_p T_p + c2_p E_in,
 *      E_out = CA E_in + CB dH - CB dH - srce phi, then the CPML terms. The
 *      new H of the whole grid is stored in H_out by then, E_in is still
 *      there (ping-pong sets), and the CPML's E psi update reads psi_in and
 *      writes psi_out, so doing it again for a node gives the same psi;
 *   3. the dipoles' currents (gs_fdtd3_inject) on the new E;
 *   4. B (gs_fdtd3_disp_b): T_p = T_p - c2_p E_new.
 * Non-dispersive scenes run none of this; in dispersive ones the fused
 * kernel is untouched and A costs a second update of the listed nodes only.
 * gprMax runs A and B over every node, where non-dispersive materials have
 * zero coefficients: phi = +0 and E - srce * 0 = E, the plain update's bits,
 * so skipping them changes nothing. */
#ifndef GS_FDTD3D_DISP_H
#define GS_FDTD3D_DISP_H

#include "fdtd3d_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per material (256, as the coefficient table) and pole: c0 = e0 exp(q dt/2),
 * c1 = exp(q dt), c2 = zt, gprMax's updatecoeffsdispersive row (float32, or
 * complex64 with the imaginary parts c1i, c2i when a Lorentz or Drude
 * material is present; phi reads only c0's real part); zeros for
 * non-dispersive materials and poles a material lacks. */
typedef struct gs_fdtd3_disp_coef {
  float c0, c1, c2, c1i, c2i;
} gs_fdtd3_disp_coef;

typedef struct gs_fdtd3_disp_args {
  int npoles;                     /* gprMax's maxpoles (1..15) */
  int cplx;                       /* complex pole state (Lorentz or Drude present): 2 floats a pole */
  const gs_fdtd3_disp_coef *coef; /* [material][pole]: GS_FDTD3_MAX_MATERIALS x npoles */
  int64_t n[3];                   /* listed Ex, Ey, Ez nodes */
  const int64_t *off[3];          /* their offsets (fdtd3d_kernels.h's layout) */
  float *t[3];                    /* pole state: [entry * npoles + pole] (complex: [.. * 2 + re/im]) */
  int64_t org[3];                 /* the arrays' first node (0 on one rank; a part's: fdtd3d.h) */
} gs_fdtd3_disp_args;

/* A: the listed nodes' E_out again, with the dispersive term (a: the step's
 * arguments, gs_fdtd3_step already done over the whole grid). */
typedef int (*gs_fdtd3_disp_a_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);
int gs_fdtd3_disp_a_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);
int gs_fdtd3_disp_a_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);
/* B: the pole state from the final new E (a->ex_out ..., sources added). */
typedef int (*gs_fdtd3_disp_b_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);
int gs_fdtd3_disp_b_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);
int gs_fdtd3_disp_b_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream);

#ifdef __cplusplus
}
#endif
#endif

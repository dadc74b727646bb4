/* gprMax 4's multi-pole Debye, Lorentz and Drude update (recursive convolution,
 * fields_updates_dispersive: update_electric_dispersive_multipole_A and _B,
 * docs/gprmax-rules.md "Dispersive materials") in the 3D kernels.
 *
 * gprMax's step: E with A (phi from the old pole state T, E = CA E + curl
 * - srce phi, T = c1 T + c2 E_old), the CPML terms, the E sources, then B
 * (T = T - c2 E_new). B needs only the node's own final E, so where nothing
 * changes that E after the E update, the E update does both halves itself:
 *
 * Fused nodes (fdtd3d_kernels.h's gs_fdtd3_poles, fdtd3d_node.h): every
 * dispersive node in gprMax's update range but those below. The E kernels
 * (the fused marching kernel and the one-thread-per-node ones alike, and
 * the CPU twin) find the node's slot through a map of two words per 32
 * nodes (first slot, mask), read its npoles floats of state, compute phi,
 * the new E (CPML terms too), then A and B from the old and the final E,
 * and write the state once. Pole state exists for dispersive nodes only,
 * compact (slots in node order); non-dispersive nodes read one map word
 * pair per 32 nodes and nothing else.
 *
 * Deferred nodes (this header): the dispersive nodes whose E something
 * changes after the E update: the E sources' nodes (voltage sources,
 * transmission lines, Hertzian dipoles), the E nodes updated again after a
 * magnetic dipole or a plane wave's H correction, a plane wave's corrected
 * E nodes (a superset is harmless). Per component a list of their offsets
 * (fdtd3d_kernels.h's layout) and npoles floats of state an entry, and the
 * former two passes over the lists alone:
 *   1. gs_fdtd3_step: their E gets the plain update (no state touched);
 *   2. the H sources (and their plain E again);
 *   3. A (gs_fdtd3_disp_a): each listed node's E_out again, with the
 *      dispersive term, reading the final new H (the old E is still in the
 *      in set, and the CPML's E psi update reads psi_in and writes psi_out,
 *      so doing it again gives the same psi), and T = c1 T + c2 E_old;
 *   4. the E sources;
 *   5. B (gs_fdtd3_disp_b): T = T - c2 E_new.
 * Every node takes gprMax's per-node expressions (fdtd3d_node.h) either
 * way, so the bits are the same; with every dispersive node deferred (the
 * environment's GS_FDTD3_DISP=passes, a checking knob) a step is the former
 * separate-pass form, which the CPU tests compare with the fused one.
 * gprMax runs A and B over every node, where non-dispersive materials have
 * zero coefficients: phi = +0 and E - srce * 0 = E, the plain update's bits,
 * so skipping them changes nothing. */
#ifndef GS_FDTD3D_DISP_H
#define GS_FDTD3D_DISP_H

#include "fdtd3d_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deferred nodes; npoles, cplx and the coefficients are the step's
 * (gs_fdtd3_step_args.poles). */
typedef struct gs_fdtd3_disp_args {
  int64_t n[3];          /* listed Ex, Ey, Ez nodes */
  const int64_t *off[3]; /* their offsets (fdtd3d_kernels.h's layout) */
  float *t[3];           /* pole state: [entry * npoles + pole] (complex: [.. * 2 + re/im]) */
  int64_t org[3];        /* the arrays' first node (0 on one rank; a part's: fdtd3d.h) */
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

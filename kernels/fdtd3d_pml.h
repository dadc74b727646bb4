/* The CPML boxes of a 3D step in one pass (kernels/fdtd3d_pml.cu), the
 * form GS_FDTD3_PML=march picks in gs_fdtd3_step_cuda (fdtd3d.cu; the
 * reference form, two one-thread-per-node passes, is GS_FDTD3_PML=boxes).
 * Its CPU twin is gs_fdtd3_pass_ref's H then E pass over the same boxes:
 * the same expressions (fdtd3d_node.h), the same bits; tests/emu compiles
 * the kernel's own source for the CPU (test_fdtd3d emu) and compares them. */
#ifndef GS_FDTD3D_PML_H
#define GS_FDTD3D_PML_H

#include "fdtd3d_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* New H then new E (with CPML, poles, magnetic H: gs_fdtd3_h_store,
 * gs_fdtd3_e_store) of every node of the disjoint boxes box[0..n) (at most
 * 6 nonempty; those gs_fdtd3_split gives after its first), after the new H
 * of every node of fused (gs_fdtd3_split's first box, or empty) is stored
 * in a's out arrays: an E reads the H of a node one lower stored there
 * when that node lies in fused, else computes it. */
int gs_fdtd3_pml_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region fused,
                      void *stream);

#ifdef __cplusplus
}
#endif
#endif

/* CPU twins of kernels/fdtd3d_disp.cu (compiled with -ffp-contract=off). */
#include "fdtd3d_disp.h"
#include "fdtd3d_disp_node.h"

GS_FMA_CLONES int gs_fdtd3_disp_a_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_disp_args *disp, void *stream) {
  (void)stream;
  /* Private copies: stores through the field pointers cannot alias them. */
  const gs_fdtd3_step_args a = *args;
  const gs_fdtd3_disp_args d = *disp;
  for (int c = 0; c < 3; ++c)
    for (int64_t e = 0; e < d.n[c]; ++e)
      gs_fdtd3_disp_a_node(&a, &d, c, e);
  return 0;
}

GS_FMA_CLONES int gs_fdtd3_disp_b_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_disp_args *disp, void *stream) {
  (void)stream;
  const gs_fdtd3_step_args a = *args;
  const gs_fdtd3_disp_args d = *disp;
  for (int c = 0; c < 3; ++c)
    for (int64_t e = 0; e < d.n[c]; ++e)
      gs_fdtd3_disp_b_node(&a, &d, c, e);
  return 0;
}

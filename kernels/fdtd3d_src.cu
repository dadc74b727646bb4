// The 3D sources of fdtd3d_src.h on the GPU: one block, the expressions of
// fdtd3d_src_node.h (shared with the CPU twin, --fmad=false). The sources
// are few, so one block does them all; thread 0 takes the sequential parts
// (gprMax's order, a line's cells), every thread a share of the E nodes
// around the magnetic dipoles.
#include <cuda_runtime.h>

#include "fdtd3d_src.h"
#include "fdtd3d_src_node.h"

namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
    sources_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_srcs s, gs_tick t) {
  const int64_t step = gs_tick_value(t);
  const int part = s.part ? s.part : GS_FDTD3_SRC_H | GS_FDTD3_SRC_E;
  if (part & GS_FDTD3_SRC_H) {
    if (threadIdx.x == 0) {
      for (int q = 0; q < s.ntl; ++q)
        gs_fdtd3_tl_h(&a, &s.tl[q], step);
      for (int q = 0; q < s.nmag; ++q)
        gs_fdtd3_src_mag(&a, &s, q, step);
    }
    __syncthreads(); // the dipoles' H is stored and seen by the block
    for (int w = threadIdx.x; w < 4 * s.nmag; w += kThreads)
      gs_fdtd3_src_mag_e(&a, &s, w / 4, w % 4);
    __syncthreads();
  }
  if (threadIdx.x == 0 && (part & GS_FDTD3_SRC_E)) {
    for (int q = 0; q < s.nvolt; ++q)
      gs_fdtd3_src_volt(&a, &s, q, step);
    for (int q = 0; q < s.ntl; ++q)
      gs_fdtd3_tl_e(&a, &s.tl[q], step);
    for (int q = 0; q < s.nhd; ++q)
      gs_fdtd3_src_hertz(&a, &s, q, step);
  }
}

} // namespace

extern "C" int gs_fdtd3_sources_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *s, gs_tick t, void *stream) {
  const int part = s->part ? s->part : GS_FDTD3_SRC_H | GS_FDTD3_SRC_E;
  const int work =
      ((part & GS_FDTD3_SRC_H) ? s->nmag + s->ntl : 0) + ((part & GS_FDTD3_SRC_E) ? s->nvolt + s->ntl + s->nhd : 0);
  if (work <= 0) return 0;
  sources_kernel<<<1, kThreads, 0, (cudaStream_t)stream>>>(*a, *s, t);
  return (int)cudaGetLastError();
}

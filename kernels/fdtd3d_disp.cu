// The dispersive (Debye, Lorentz, Drude) kernels of kernels/fdtd3d_disp.h: one thread per
// listed node, the expressions of fdtd3d_disp_node.h (shared with the CPU
// twin), compiled with --fmad=false so CPU and GPU agree bit for bit.
#include <cuda_runtime.h>

#include "fdtd3d_disp.h"
#include "fdtd3d_disp_node.h"

namespace {

constexpr int kThreads = 256;

// blockIdx.y: the component; the lists are walked by a grid-stride loop.
__global__ void __launch_bounds__(kThreads) disp_a_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_disp_args d) {
  const int c = blockIdx.y;
  for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < d.n[c]; e += (int64_t)gridDim.x * kThreads)
    gs_fdtd3_disp_a_node(&a, &d, c, e);
}

__global__ void __launch_bounds__(kThreads) disp_b_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_disp_args d) {
  const int c = blockIdx.y;
  for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < d.n[c]; e += (int64_t)gridDim.x * kThreads)
    gs_fdtd3_disp_b_node(&a, &d, c, e);
}

dim3 grid_of(const gs_fdtd3_disp_args *d) {
  int64_t most = d->n[0] > d->n[1] ? d->n[0] : d->n[1];
  most = most > d->n[2] ? most : d->n[2];
  int64_t blocks = (most + kThreads - 1) / kThreads;
  return dim3((unsigned)(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535), 3);
}

} // namespace

extern "C" int gs_fdtd3_disp_a_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream) {
  if (!d->n[0] && !d->n[1] && !d->n[2]) return 0;
  disp_a_kernel<<<grid_of(d), kThreads, 0, (cudaStream_t)stream>>>(*a, *d);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd3_disp_b_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream) {
  if (!d->n[0] && !d->n[1] && !d->n[2]) return 0;
  disp_b_kernel<<<grid_of(d), kThreads, 0, (cudaStream_t)stream>>>(*a, *d);
  return (int)cudaGetLastError();
}

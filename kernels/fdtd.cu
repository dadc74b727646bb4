// 2D FDTD (Yee, TMz) kernels: one pass per step (kernels/fdtd_node.h, shared
// with the CPU twin), compiled with --fmad=false so CPU and GPU agree bit for
// bit.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"

namespace {

constexpr int kBx = 32, kBy = 8;

// Regions that touch no CPML slab take the same code with nslab = 0; the
// slab loops then vanish (nslab is uniform across the grid).
__global__ void __launch_bounds__(kBx *kBy) step_kernel(const gs_fdtd_step_args a, gs_fdtd_region r) {
  int64_t i = r.i0 + (int64_t)blockIdx.x * kBx + threadIdx.x;
  int64_t j = r.j0 + (int64_t)blockIdx.y * kBy + threadIdx.y;
  if (i >= r.i1 || j >= r.j1) return;
  gs_fdtd_node(&a, i, j);
}

__global__ void inject_kernel(float *ez, const int64_t *off, const float *val, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) ez[off[k]] = ez[off[k]] - val[k]; // sources on distinct nodes (checked by the scene parser)
}

__global__ void sample_kernel(gs_fdtd_view v, const int64_t *off, int n, float *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  out[3 * k] = v.ez[off[k]];
  out[3 * k + 1] = v.hx[off[k]];
  out[3 * k + 2] = v.hy[off[k]];
}

} // namespace

extern "C" int gs_fdtd_step_cuda(const gs_fdtd_step_args *a, gs_fdtd_region r, void *stream) {
  if (r.i1 <= r.i0 || r.j1 <= r.j0) return 0;
  dim3 grid((unsigned)((r.i1 - r.i0 + kBx - 1) / kBx), (unsigned)((r.j1 - r.j0 + kBy - 1) / kBy));
  step_kernel<<<grid, dim3(kBx, kBy), 0, (cudaStream_t)stream>>>(*a, r);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd_inject_cuda(float *ez, const int64_t *off, const float *val, int n, void *stream) {
  if (n <= 0) return 0;
  inject_kernel<<<(n + 127) / 128, 128, 0, (cudaStream_t)stream>>>(ez, off, val, n);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd_sample_cuda(gs_fdtd_view v, const int64_t *off, int n, float *out, void *stream) {
  if (n <= 0) return 0;
  sample_kernel<<<(n + 127) / 128, 128, 0, (cudaStream_t)stream>>>(v, off, n, out);
  return (int)cudaGetLastError();
}

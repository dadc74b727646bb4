// 2D FDTD (Yee, TMz) kernels; the same expressions as fdtd_ref.c, compiled
// with --fmad=false, so CPU and GPU agree bit for bit.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"

namespace {

constexpr int kBx = 32, kBy = 8;

__device__ __forceinline__ int64_t idx(const gs_fdtd_view &v, int64_t i, int64_t j) {
  return (j + v.g) * v.pitch + (i + v.g);
}

__global__ void __launch_bounds__(kBx *kBy) update_h_kernel(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry,
                                                            float chx, float chy) {
  int64_t i = rx.i0 < ry.i0 ? rx.i0 : ry.i0;
  int64_t j = rx.j0 < ry.j0 ? rx.j0 : ry.j0;
  i += (int64_t)blockIdx.x * kBx + threadIdx.x;
  j += (int64_t)blockIdx.y * kBy + threadIdx.y;
  int64_t k = idx(v, i, j);
  float e = v.ez[k];
  if (i >= rx.i0 && i < rx.i1 && j >= rx.j0 && j < rx.j1) v.hx[k] = v.hx[k] - chy * (v.ez[k + v.pitch] - e);
  if (i >= ry.i0 && i < ry.i1 && j >= ry.j0 && j < ry.j1) v.hy[k] = v.hy[k] + chx * (v.ez[k + 1] - e);
}

__global__ void __launch_bounds__(kBx *kBy) update_e_kernel(gs_fdtd_view v, gs_fdtd_region r,
                                                            const gs_fdtd_coef *__restrict__ coef) {
  int64_t i = r.i0 + (int64_t)blockIdx.x * kBx + threadIdx.x;
  int64_t j = r.j0 + (int64_t)blockIdx.y * kBy + threadIdx.y;
  if (i >= r.i1 || j >= r.j1) return;
  int64_t k = idx(v, i, j);
  const float4 c = __ldg(reinterpret_cast<const float4 *>(coef) + v.mat[k]);
  float dhy = v.hy[k] - v.hy[k - 1];
  float dhx = v.hx[k] - v.hx[k - v.pitch];
  v.ez[k] = c.x * v.ez[k] + (c.y * dhy - c.z * dhx);
}

__device__ __forceinline__ int64_t clampd(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

// dir 0: threads over (i in slab, j in span); dir 1: (i in span, j in slab).
__global__ void pml_h_kernel(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, float chx, float chy) {
  int64_t span = p.o1 - p.o0;
  if (p.dir == 0) {
    int64_t i = clampd(p.lo, rc.i0, rc.i1) + (int64_t)blockIdx.x * kBx + threadIdx.x;
    int64_t j = clampd(p.o0, rc.j0, rc.j1) + (int64_t)blockIdx.y * kBy + threadIdx.y;
    if (i >= clampd(p.hi, rc.i0, rc.i1) || j >= clampd(p.o1, rc.j0, rc.j1)) return;
    int64_t s = i - p.lo, k = idx(v, i, j);
    float *psi = &p.psi_h[s * span + (j - p.o0)];
    float d = v.ez[k + 1] - v.ez[k];
    float ps = p.bh[s] * *psi + p.ah[s] * d;
    *psi = ps;
    v.hy[k] = v.hy[k] + chx * (p.kh[s] * d + ps);
  } else {
    int64_t i = clampd(p.o0, rc.i0, rc.i1) + (int64_t)blockIdx.x * kBx + threadIdx.x;
    int64_t j = clampd(p.lo, rc.j0, rc.j1) + (int64_t)blockIdx.y * kBy + threadIdx.y;
    if (i >= clampd(p.o1, rc.i0, rc.i1) || j >= clampd(p.hi, rc.j0, rc.j1)) return;
    int64_t s = j - p.lo, k = idx(v, i, j);
    float *psi = &p.psi_h[s * span + (i - p.o0)];
    float d = v.ez[k + v.pitch] - v.ez[k];
    float ps = p.bh[s] * *psi + p.ah[s] * d;
    *psi = ps;
    v.hx[k] = v.hx[k] - chy * (p.kh[s] * d + ps);
  }
}

__global__ void pml_e_kernel(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, const gs_fdtd_coef *__restrict__ coef) {
  int64_t span = p.o1 - p.o0;
  if (p.dir == 0) {
    int64_t i = clampd(p.lo, rc.i0, rc.i1) + (int64_t)blockIdx.x * kBx + threadIdx.x;
    int64_t j = clampd(p.o0, rc.j0, rc.j1) + (int64_t)blockIdx.y * kBy + threadIdx.y;
    if (i >= clampd(p.hi, rc.i0, rc.i1) || j >= clampd(p.o1, rc.j0, rc.j1)) return;
    int64_t s = i - p.lo, k = idx(v, i, j);
    float *psi = &p.psi_e[s * span + (j - p.o0)];
    float d = v.hy[k] - v.hy[k - 1];
    float ps = p.be[s] * *psi + p.ae[s] * d;
    *psi = ps;
    v.ez[k] = v.ez[k] + coef[v.mat[k]].cbx * (p.ke[s] * d + ps);
  } else {
    int64_t i = clampd(p.o0, rc.i0, rc.i1) + (int64_t)blockIdx.x * kBx + threadIdx.x;
    int64_t j = clampd(p.lo, rc.j0, rc.j1) + (int64_t)blockIdx.y * kBy + threadIdx.y;
    if (i >= clampd(p.o1, rc.i0, rc.i1) || j >= clampd(p.hi, rc.j0, rc.j1)) return;
    int64_t s = j - p.lo, k = idx(v, i, j);
    float *psi = &p.psi_e[s * span + (i - p.o0)];
    float d = v.hx[k] - v.hx[k - v.pitch];
    float ps = p.be[s] * *psi + p.ae[s] * d;
    *psi = ps;
    v.ez[k] = v.ez[k] - coef[v.mat[k]].cby * (p.ke[s] * d + ps);
  }
}

__global__ void inject_kernel(float *ez, const int64_t *off, const float *val, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) ez[off[k]] = ez[off[k]] - val[k]; // sources on distinct nodes (checked by the driver)
}

__global__ void sample_kernel(gs_fdtd_view v, const int64_t *off, int n, float *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  out[3 * k] = v.ez[off[k]];
  out[3 * k + 1] = v.hx[off[k]];
  out[3 * k + 2] = v.hy[off[k]];
}

dim3 grid_for(int64_t ni, int64_t nj) {
  return dim3((unsigned)((ni + kBx - 1) / kBx), (unsigned)((nj + kBy - 1) / kBy));
}

} // namespace

extern "C" int gs_fdtd_update_h_cuda(gs_fdtd_view v, gs_fdtd_region rx, gs_fdtd_region ry, float chx, float chy,
                                     void *stream) {
  int64_t i0 = rx.i0 < ry.i0 ? rx.i0 : ry.i0, i1 = rx.i1 > ry.i1 ? rx.i1 : ry.i1;
  int64_t j0 = rx.j0 < ry.j0 ? rx.j0 : ry.j0, j1 = rx.j1 > ry.j1 ? rx.j1 : ry.j1;
  if (i1 <= i0 || j1 <= j0) return 0;
  update_h_kernel<<<grid_for(i1 - i0, j1 - j0), dim3(kBx, kBy), 0, (cudaStream_t)stream>>>(v, rx, ry, chx, chy);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd_update_e_cuda(gs_fdtd_view v, gs_fdtd_region r, const gs_fdtd_coef *coef, void *stream) {
  if (r.i1 <= r.i0 || r.j1 <= r.j0) return 0;
  update_e_kernel<<<grid_for(r.i1 - r.i0, r.j1 - r.j0), dim3(kBx, kBy), 0, (cudaStream_t)stream>>>(v, r, coef);
  return (int)cudaGetLastError();
}

static void pml_extent(const gs_fdtd_pml &p, const gs_fdtd_region &rc, int64_t *ni, int64_t *nj) {
  auto cl = [](int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); };
  if (p.dir == 0) {
    *ni = cl(p.hi, rc.i0, rc.i1) - cl(p.lo, rc.i0, rc.i1);
    *nj = cl(p.o1, rc.j0, rc.j1) - cl(p.o0, rc.j0, rc.j1);
  } else {
    *ni = cl(p.o1, rc.i0, rc.i1) - cl(p.o0, rc.i0, rc.i1);
    *nj = cl(p.hi, rc.j0, rc.j1) - cl(p.lo, rc.j0, rc.j1);
  }
}

extern "C" int gs_fdtd_pml_h_cuda(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, float chx, float chy,
                                  void *stream) {
  int64_t ni, nj;
  pml_extent(p, rc, &ni, &nj);
  if (ni <= 0 || nj <= 0) return 0;
  pml_h_kernel<<<grid_for(ni, nj), dim3(kBx, kBy), 0, (cudaStream_t)stream>>>(v, p, rc, chx, chy);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd_pml_e_cuda(gs_fdtd_view v, gs_fdtd_pml p, gs_fdtd_region rc, const gs_fdtd_coef *coef,
                                  void *stream) {
  int64_t ni, nj;
  pml_extent(p, rc, &ni, &nj);
  if (ni <= 0 || nj <= 0) return 0;
  pml_e_kernel<<<grid_for(ni, nj), dim3(kBx, kBy), 0, (cudaStream_t)stream>>>(v, p, rc, coef);
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

// 2D FDTD (Yee, TMz) kernels: one pass per step (kernels/fdtd_node.h, shared
// with the CPU twin), compiled with --fmad=false so CPU and GPU agree bit for
// bit.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"

namespace {

constexpr int kBx = 32, kBy = 8, kMaxRegions = 8;

// Several regions in one launch: a 1D grid, region z taking blocks
// [first[z], first[z + 1]), bx[z] tiles along x, row-major like a 2D grid.
struct Tiles {
  int n;
  gs_fdtd_region r[kMaxRegions];
  unsigned first[kMaxRegions + 1], bx[kMaxRegions];
};

// The region, tile column and tile row of this block.
__device__ __forceinline__ const gs_fdtd_region &tile_of(const Tiles &t, int64_t &tx, int64_t &ty) {
  unsigned b = blockIdx.x, z = 0;
  while (z + 1 < (unsigned)t.n && b >= t.first[z + 1]) ++z;
  b -= t.first[z];
  tx = b % t.bx[z];
  ty = b / t.bx[z];
  return t.r[z];
}

// Regions that touch no CPML slab take the same code with nslab = 0; the
// slab loops then vanish (nslab is uniform across the grid).
__global__ void __launch_bounds__(kBx *kBy) step_kernel(const gs_fdtd_step_args a, const Tiles t) {
  int64_t tx, ty;
  const gs_fdtd_region &r = tile_of(t, tx, ty);
  int64_t i = r.i0 + tx * kBx + threadIdx.x;
  int64_t j = r.j0 + ty * kBy + threadIdx.y;
  if (i >= r.i1 || j >= r.j1) return;
  gs_fdtd_node(&a, i, j);
}

// Regions with no CPML slab: each warp marches up a 32-column strip for kRows
// rows, keeping Ez of the current row, Hx of the row below, and taking the
// left and right neighbours from the adjacent lanes, so every field is read
// from memory about once per step. Same expressions as fdtd_node.h with
// nslab = 0 (the CPU twin's step_plain), hence the same bits.
#ifndef GS_FDTD_WARPS
#define GS_FDTD_WARPS 4
#endif
#ifndef GS_FDTD_ROWS
#define GS_FDTD_ROWS 16
#endif
#ifndef GS_FDTD_RESTRICT
#define GS_FDTD_RESTRICT 0
#endif
#if GS_FDTD_RESTRICT
#define GS_R __restrict__
#else
#define GS_R
#endif
#ifndef GS_FDTD_UNROLL
#define GS_FDTD_UNROLL 4
#endif
// GS_FDTD_STREAM: outputs stored with evict-first hints (__stcs), so they
// do not push the next rows' inputs out of L2.
#ifndef GS_FDTD_STREAM
#define GS_FDTD_STREAM 0
#endif
#if GS_FDTD_STREAM
#define ST(p, v) __stcs((p), (v))
#else
#define ST(p, v) (*(p) = (v))
#endif
// GS_FDTD_COLS: columns per lane in the marching kernel (1 or 2; 2 loads and
// stores pairs of floats, a warp covering 64 columns).
#ifndef GS_FDTD_COLS
#define GS_FDTD_COLS 1
#endif
constexpr int kWarps = GS_FDTD_WARPS, kRows = GS_FDTD_ROWS, kUnroll = GS_FDTD_UNROLL, kCols = GS_FDTD_COLS;

__global__ void __launch_bounds__(32 * kWarps) step_interior_kernel(const gs_fdtd_step_args a, const Tiles t) {
  int64_t tx, ty;
  const gs_fdtd_region r = tile_of(t, tx, ty);
  const int lane = threadIdx.x & 31;
  const int64_t i = r.i0 + (tx * kWarps + (threadIdx.x >> 5)) * 32 + lane;
  const int64_t js = r.j0 + ty * kRows;
  if (r.i0 + (tx * kWarps + (threadIdx.x >> 5)) * 32 >= r.i1) return; // whole warp out
  const int64_t je = js + kRows < r.j1 ? js + kRows : r.j1;
  const int64_t ic = i < r.i1 ? i : r.i1; // lanes past the region read column i1 (valid memory)
  const bool mine = i < r.i1;
  const int64_t P = a.pitch;
  const float chx = a.chx, chy = a.chy;
  // With GS_FDTD_RESTRICT the compiler may move the next rows' loads above
  // this row's stores (in and out are different buffers).
  const float *GS_R ez = a.ez;
  const float *GS_R hx = a.hx;
  const float *GS_R hy = a.hy;
  const uint8_t *GS_R mat = a.mat;
  float *GS_R hxo = a.hx_out;
  float *GS_R hyo = a.hy_out;
  float *GS_R ezo = a.ez_out;
  int64_t k = (js - a.oj + a.g) * P + (ic - a.oi + a.g);
  // Hx(i, js - 1), new: the row below the strip (outside any slab by construction of the regions).
  float hx_prev = hx[k - P] - chy * (ez[k] - ez[k - P]);
  float ez_c = ez[k];
  const unsigned full = 0xFFFFFFFFu;
#pragma unroll kUnroll
  for (int64_t j = js; j < je; ++j, k += P) {
    float ez_u = ez[k + P];
    float hx_in = hx[k], hy_in = hy[k];
    float ez_r = __shfl_down_sync(full, ez_c, 1);
    if (lane == 31) ez_r = ez[k + 1];
    float hx_c = hx_in - chy * (ez_u - ez_c);
    float hy_c = hy_in + chx * (ez_r - ez_c);
    float hy_l = __shfl_up_sync(full, hy_c, 1);
    if (lane == 0) hy_l = hy[k - 1] + chx * (ez_c - ez[k - 1]);
    if (mine) {
      const float4 c = __ldg(reinterpret_cast<const float4 *>(a.coef) + mat[k]);
      ST(&hxo[k], hx_c);
      ST(&hyo[k], hy_c);
      ST(&ezo[k], c.x * ez_c + (c.y * (hy_c - hy_l) - c.z * (hx_c - hx_prev)));
    }
    hx_prev = hx_c;
    ez_c = ez_u;
  }
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

// Two columns per lane: the same expressions, node by node, as the kernel
// above (hence the same bits); pairs start at even local indices (8-byte
// aligned), so a region may begin with a masked column.
__global__ void __launch_bounds__(32 * kWarps) step_interior2_kernel(const gs_fdtd_step_args a, const Tiles t) {
  int64_t tx, ty;
  const gs_fdtd_region r = tile_of(t, tx, ty);
  const int lane = threadIdx.x & 31;
  const int64_t ibase = ((r.i0 - a.oi + a.g) & ~(int64_t)1) + a.oi - a.g; // global column of the first pair
  const int64_t wbase = ibase + (tx * kWarps + (threadIdx.x >> 5)) * 64;
  if (wbase >= r.i1) return; // whole warp out
  const int64_t i = wbase + 2 * lane;
  const int64_t last = ((r.i1 - 1 - ibase) & ~(int64_t)1) + ibase; // the last pair's first column
  const int64_t ic = i <= last ? i : last; // lanes past the region read the last pair (valid memory)
  const bool m0 = i >= r.i0 && i < r.i1, m1 = i + 1 >= r.i0 && i + 1 < r.i1;
  const int64_t js = r.j0 + ty * kRows;
  const int64_t je = js + kRows < r.j1 ? js + kRows : r.j1;
  const int64_t P = a.pitch;
  const float chx = a.chx, chy = a.chy;
  const float *ez = a.ez, *hx = a.hx, *hy = a.hy;
  const uint8_t *mat = a.mat;
  float *hxo = a.hx_out, *hyo = a.hy_out, *ezo = a.ez_out;
  const float4 *coef = reinterpret_cast<const float4 *>(a.coef);
  int64_t k = (js - a.oj + a.g) * P + (ic - a.oi + a.g);
  const float2 ezd = *reinterpret_cast<const float2 *>(ez + k - P), hxd = *reinterpret_cast<const float2 *>(hx + k - P);
  float2 ez_c = *reinterpret_cast<const float2 *>(ez + k);
  float2 hx_prev = make_float2(hxd.x - chy * (ez_c.x - ezd.x), hxd.y - chy * (ez_c.y - ezd.y));
  const unsigned full = 0xFFFFFFFFu;
#pragma unroll kUnroll
  for (int64_t j = js; j < je; ++j, k += P) {
    const float2 ez_u = *reinterpret_cast<const float2 *>(ez + k + P);
    const float2 hx_in = *reinterpret_cast<const float2 *>(hx + k), hy_in = *reinterpret_cast<const float2 *>(hy + k);
    const uchar2 mt = *reinterpret_cast<const uchar2 *>(mat + k);
    float ez_r1 = __shfl_down_sync(full, ez_c.x, 1);
    if (lane == 31) ez_r1 = ez[k + 2];
    const float2 hx_c = make_float2(hx_in.x - chy * (ez_u.x - ez_c.x), hx_in.y - chy * (ez_u.y - ez_c.y));
    const float2 hy_c = make_float2(hy_in.x + chx * (ez_c.y - ez_c.x), hy_in.y + chx * (ez_r1 - ez_c.y));
    float hy_l0 = __shfl_up_sync(full, hy_c.y, 1);
    if (lane == 0) hy_l0 = hy[k - 1] + chx * (ez_c.x - ez[k - 1]);
    const float4 c0 = __ldg(coef + mt.x), c1 = __ldg(coef + mt.y);
    const float e0 = c0.x * ez_c.x + (c0.y * (hy_c.x - hy_l0) - c0.z * (hx_c.x - hx_prev.x));
    const float e1 = c1.x * ez_c.y + (c1.y * (hy_c.y - hy_c.x) - c1.z * (hx_c.y - hx_prev.y));
    if (m0 && m1) {
      ST(reinterpret_cast<float2 *>(hxo + k), hx_c);
      ST(reinterpret_cast<float2 *>(hyo + k), hy_c);
      ST(reinterpret_cast<float2 *>(ezo + k), make_float2(e0, e1));
    } else {
      if (m0) {
        hxo[k] = hx_c.x;
        hyo[k] = hy_c.x;
        ezo[k] = e0;
      }
      if (m1) {
        hxo[k + 1] = hx_c.y;
        hyo[k + 1] = hy_c.y;
        ezo[k + 1] = e1;
      }
    }
    hx_prev = hx_c;
    ez_c = ez_u;
  }
}

} // namespace

// Launches kernel K over the regions of list (at most kMaxRegions at a time),
// tiles of tw x th nodes.
template <typename K>
static int launch_tiles(K kernel, dim3 block, int tw, int th, const gs_fdtd_step_args *a,
                        const gs_fdtd_region *list, int n, cudaStream_t s, int extra) {
  for (int from = 0; from < n; from += kMaxRegions) {
    Tiles t = {};
    unsigned blocks = 0;
    for (int k = from; k < n && t.n < kMaxRegions; ++k) {
      const gs_fdtd_region &r = list[k];
      t.r[t.n] = r;
      t.first[t.n] = blocks;
      t.bx[t.n] = (unsigned)((r.i1 - r.i0 + extra + tw - 1) / tw); // extra: a leading masked column
      blocks += t.bx[t.n] * (unsigned)((r.j1 - r.j0 + th - 1) / th);
      ++t.n;
    }
    t.first[t.n] = blocks;
    if (blocks == 0) continue;
    kernel<<<blocks, block, 0, s>>>(*a, t);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
  }
  return 0;
}

extern "C" int gs_fdtd_step_cuda(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream) {
  // The marching kernel needs every node of a region to be an interior node
  // with all its H valid, and no slab: the driver's inner region.
  gs_fdtd_region march[64], rest[64];
  int nm = 0, nr = 0;
  for (int k = 0; k < n; ++k) {
    if (r[k].i1 <= r[k].i0 || r[k].j1 <= r[k].j0) continue;
    bool m = a->nslab == 0 && r[k].i0 >= 1 && r[k].j0 >= 1 && r[k].i1 <= a->nx && r[k].j1 <= a->ny;
    if (m ? nm == 64 : nr == 64) return (int)cudaErrorInvalidValue;
    (m ? march[nm++] : rest[nr++]) = r[k];
  }
  cudaStream_t s = (cudaStream_t)stream;
  int e = kCols == 2 ? launch_tiles(step_interior2_kernel, dim3(32 * kWarps), 64 * kWarps, kRows, a, march, nm, s, 1)
                     : launch_tiles(step_interior_kernel, dim3(32 * kWarps), 32 * kWarps, kRows, a, march, nm, s, 0);
  if (e) return e;
  return launch_tiles(step_kernel, dim3(kBx, kBy), kBx, kBy, a, rest, nr, s, 0);
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

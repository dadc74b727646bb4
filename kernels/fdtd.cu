// 2D FDTD (Yee, TMz) kernels: one pass per step (kernels/fdtd_node.h, shared
// with the CPU twin), compiled with --fmad=false so CPU and GPU agree bit for
// bit.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "sm_count.cuh"

namespace {

constexpr int kMaxRegions = 8;

// Several regions in one launch: a 1D grid, region z taking blocks
// [first[z], first[z + 1]), bx[z] tiles along x, row-major like a 2D grid.
struct Tiles {
  int n;
  gs_fdtd_region r[kMaxRegions];
  unsigned first[kMaxRegions + 1], bx[kMaxRegions];
};

// The region, tile column and tile row of this block.
__device__ __forceinline__ const gs_fdtd_region &tile_of(const Tiles &t, unsigned b, int64_t &tx, int64_t &ty) {
  unsigned z = 0;
  while (z + 1 < (unsigned)t.n && b >= t.first[z + 1])
    ++z;
  b -= t.first[z];
  tx = b % t.bx[z];
  ty = b / t.bx[z];
  return t.r[z];
}

// Regions that touch no CPML slab take the same code with nslab = 0; the
// slab loops then vanish (nslab is uniform across the grid).
// Tile b of t, tiles of 32 x kStripRows nodes, thread x of the block
// (32 x kStripRows threads). Measured against flat tiles of 256 nodes in a
// row (no idle thread in the 11-12 wide CPML columns), these are faster
// (docs/performance.md).
constexpr int kStripRows = 8;
__device__ __forceinline__ void strip_tile(const gs_fdtd_step_args &a, const Tiles &t, unsigned b, int x) {
  int64_t tx, ty;
  const gs_fdtd_region &r = tile_of(t, b, tx, ty);
  const int64_t i = r.i0 + tx * 32 + (x & 31), j = r.j0 + ty * kStripRows + (x >> 5);
  if (i < r.i1 && j < r.j1) gs_fdtd_node(&a, i, j);
}

// Programmatic dependent launch (Hopper and later): a kernel launched with
// it (launch() below) may be scheduled while the kernel ahead of it in the
// stream still runs, so the gap between the two shrinks; it waits in
// after_previous() until that kernel has ended and its stores are visible,
// so it reads what it would have read. Launched without it, both are no-ops.
__device__ __forceinline__ void after_previous() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); // the next one may be scheduled now
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__global__ void __launch_bounds__(32 * kStripRows) step_kernel(const gs_fdtd_step_args a, const Tiles t) {
  after_previous();
  strip_tile(a, t, blockIdx.x, threadIdx.x);
}

// Regions with no CPML slab: each warp marches up a strip of 32 C columns for
// `rows` rows (C columns per lane), keeping Ez of the current row, Hx of the
// row below, and taking the left and right neighbours from the adjacent lanes,
// so every field is read from memory about once per step. Same expressions as
// fdtd_node.h with nslab = 0 (the CPU twin's step_plain), hence the same bits.
#ifndef GS_FDTD_WARPS
#define GS_FDTD_WARPS 8
#endif
#ifndef GS_FDTD_ROWS
#define GS_FDTD_ROWS 8
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
// GS_FDTD_COLS: columns per lane in the marching kernel (1, 2 or 4: float,
// float2 or float4 loads and stores; docs/performance.md has the three).
#ifndef GS_FDTD_COLS
#define GS_FDTD_COLS 4
#endif
// GS_FDTD_ROWS_MIN: grids too small to give every SM a full load of warps
// get tiles of fewer rows (halved down to this), so more warps march at once.
#ifndef GS_FDTD_ROWS_MIN
#define GS_FDTD_ROWS_MIN 4
#endif
// GS_FDTD_MINB: minimum resident blocks per SM asked of the compiler (0: none).
#ifndef GS_FDTD_MINB
#define GS_FDTD_MINB 0
#endif
constexpr int kWarps = GS_FDTD_WARPS, kRows = GS_FDTD_ROWS, kUnroll = GS_FDTD_UNROLL, kCols = GS_FDTD_COLS;

__global__ void inject_kernel(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n) {
  after_previous();
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) ez[off[k]] = ez[off[k]] - val[gs_tick_value(t) * stride + k]; // distinct nodes (checked by the parser)
}

__global__ void sample_kernel(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  out += gs_tick_value(t) % slots * 3 * n;
  out[3 * k] = v.ez[off[k]];
  out[3 * k + 1] = v.hx[off[k]];
  out[3 * k + 2] = v.hy[off[k]];
}

// Groups of C columns start at local indices that are multiples of C
// (aligned vectors), so a region may begin with masked columns.
template <int C> struct Vec;
template <> struct Vec<1> {
  typedef float F;
  typedef unsigned char M;
};
template <> struct Vec<2> {
  typedef float2 F;
  typedef uchar2 M;
};
template <> struct Vec<4> {
  typedef float4 F;
  typedef uchar4 M;
};

template <int C>
__device__ __forceinline__ void march_tile(const gs_fdtd_step_args &a, const Tiles &t, unsigned b, int rows) {
  typedef typename Vec<C>::F F;
  typedef typename Vec<C>::M M;
  int64_t tx, ty;
  const gs_fdtd_region r = tile_of(t, b, tx, ty);
  const int lane = threadIdx.x & 31;
  const int64_t ibase = ((r.i0 - a.oi + a.g) & ~(int64_t)(C - 1)) + a.oi - a.g; // global column of the first group
  const int64_t wbase = ibase + (tx * kWarps + (threadIdx.x >> 5)) * 32 * C;
  if (wbase >= r.i1) return; // whole warp out
  const int64_t i = wbase + C * lane;
  // Lanes past the region read the group just after the last one: its first
  // column is the right neighbour of the region's last column (shuffled down);
  // the reads stay inside the allocation (the rows above exist).
  const int64_t last = ((r.i1 - 1 - ibase) & ~(int64_t)(C - 1)) + ibase; // the last group's first column
  const int64_t ic = i <= last ? i : last + C;
  bool m[C], all = true;
#pragma unroll
  for (int q = 0; q < C; ++q) {
    m[q] = i + q >= r.i0 && i + q < r.i1;
    all = all && m[q];
  }
  const int64_t js = r.j0 + ty * rows;
  const int64_t je = js + rows < r.j1 ? js + rows : r.j1;
  const int64_t P = a.pitch;
  const float chx = a.chx, chy = a.chy;
  const float *ez = a.ez, *hx = a.hx, *hy = a.hy;
  const uint8_t *mat = a.mat;
  float *hxo = a.hx_out, *hyo = a.hy_out, *ezo = a.ez_out;
  const float4 *coef = reinterpret_cast<const float4 *>(a.coef);
  int64_t k = (js - a.oj + a.g) * P + (ic - a.oi + a.g);
  float ez_c[C], hx_prev[C];
  {
    F e = *reinterpret_cast<const F *>(ez + k), ed = *reinterpret_cast<const F *>(ez + k - P);
    F hd = *reinterpret_cast<const F *>(hx + k - P);
    const float *pe = reinterpret_cast<const float *>(&e), *ped = reinterpret_cast<const float *>(&ed);
    const float *phd = reinterpret_cast<const float *>(&hd);
#pragma unroll
    for (int q = 0; q < C; ++q) {
      ez_c[q] = pe[q];
      hx_prev[q] = phd[q] - chy * (pe[q] - ped[q]);
    }
  }
  const unsigned full = 0xFFFFFFFFu;
#pragma unroll kUnroll
  for (int64_t j = js; j < je; ++j, k += P) {
    F u = *reinterpret_cast<const F *>(ez + k + P), hxv = *reinterpret_cast<const F *>(hx + k);
    F hyv = *reinterpret_cast<const F *>(hy + k);
    M mv = *reinterpret_cast<const M *>(mat + k);
    const float *ez_u = reinterpret_cast<const float *>(&u), *hx_in = reinterpret_cast<const float *>(&hxv);
    const float *hy_in = reinterpret_cast<const float *>(&hyv);
    const unsigned char *mt = reinterpret_cast<const unsigned char *>(&mv);
    float ez_r = __shfl_down_sync(full, ez_c[0], 1); // Ez right of this lane's last column
    if (lane == 31) ez_r = ez[k + C];
    float hx_c[C], hy_c[C], e[C];
#pragma unroll
    for (int q = 0; q < C; ++q) {
      hx_c[q] = hx_in[q] - chy * (ez_u[q] - ez_c[q]);
      hy_c[q] = hy_in[q] + chx * ((q + 1 < C ? ez_c[q + 1 < C ? q + 1 : q] : ez_r) - ez_c[q]);
    }
    float hy_l = __shfl_up_sync(full, hy_c[C - 1], 1); // Hy left of this lane's first column
    if (lane == 0) hy_l = hy[k - 1] + chx * (ez_c[0] - ez[k - 1]);
#pragma unroll
    for (int q = 0; q < C; ++q) {
      const float4 c = __ldg(coef + mt[q]);
      const float l = q == 0 ? hy_l : hy_c[q > 0 ? q - 1 : 0];
      e[q] = c.x * ez_c[q] + (c.y * (hy_c[q] - l) - c.z * (hx_c[q] - hx_prev[q]));
    }
    if (all) {
      F vx, vy, ve;
      float *px = reinterpret_cast<float *>(&vx), *py = reinterpret_cast<float *>(&vy),
            *pe = reinterpret_cast<float *>(&ve);
#pragma unroll
      for (int q = 0; q < C; ++q) {
        px[q] = hx_c[q];
        py[q] = hy_c[q];
        pe[q] = e[q];
      }
      ST(reinterpret_cast<F *>(hxo + k), vx);
      ST(reinterpret_cast<F *>(hyo + k), vy);
      ST(reinterpret_cast<F *>(ezo + k), ve);
    } else {
#pragma unroll
      for (int q = 0; q < C; ++q)
        if (m[q]) {
          hxo[k + q] = hx_c[q];
          hyo[k + q] = hy_c[q];
          ezo[k + q] = e[q];
        }
    }
#pragma unroll
    for (int q = 0; q < C; ++q) {
      hx_prev[q] = hx_c[q];
      ez_c[q] = ez_u[q];
    }
  }
}

template <int C>
__global__ void __launch_bounds__(32 * kWarps, GS_FDTD_MINB)
    step_interior_vec_kernel(const gs_fdtd_step_args a, const Tiles t, int rows) {
  after_previous();
  march_tile<C>(a, t, blockIdx.x, rows);
}

// Both in one launch: blocks [0, nm) march over tm, the rest update the
// nodes of ts one per thread (tiles of 32 x kStripRows), so a step's update
// is one kernel, not two in a row.
static_assert(kWarps == kStripRows, "the strip blocks of step_both_kernel have the marching blocks' threads");
template <int C>
__global__ void __launch_bounds__(32 * kWarps, GS_FDTD_MINB)
    step_both_kernel(const gs_fdtd_step_args a, const Tiles tm, int rows, unsigned nm, const Tiles ts) {
  after_previous();
  if (blockIdx.x < nm)
    march_tile<C>(a, tm, blockIdx.x, rows);
  else
    strip_tile(a, ts, blockIdx.x - nm, threadIdx.x);
}

} // namespace

// The tiles of up to kMaxRegions regions of list from from; returns the
// blocks (tiles of tw x th nodes; extra: leading masked columns).
static unsigned make_tiles(Tiles &t, const gs_fdtd_region *list, int from, int n, int tw, int th, int extra) {
  t = Tiles{};
  unsigned blocks = 0;
  for (int k = from; k < n && t.n < kMaxRegions; ++k) {
    const gs_fdtd_region &r = list[k];
    t.r[t.n] = r;
    t.first[t.n] = blocks;
    t.bx[t.n] = (unsigned)((r.i1 - r.i0 + extra + tw - 1) / tw);
    blocks += t.bx[t.n] * (unsigned)((r.j1 - r.j0 + th - 1) / th);
    ++t.n;
  }
  t.first[t.n] = blocks;
  return blocks;
}

// Whether this device can launch early (programmatic dependent launch):
// compute capability 9 or later.
static bool device_has_pdl() {
  static int on = -1;
  if (on < 0) {
    int dev = 0, major = 0;
    on = cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9;
  }
  return on;
}

// kernel<<<blocks, threads, 0, s>>>(args...), with programmatic dependent
// launch if pdl and the device allow it (the kernel starts with after_previous()).
template <typename... P, typename... A>
static int launch(bool pdl, void (*kernel)(P...), unsigned blocks, unsigned threads, cudaStream_t s, A... args) {
  cudaLaunchConfig_t c = {};
  c.gridDim = dim3(blocks);
  c.blockDim = dim3(threads);
  c.stream = s;
  cudaLaunchAttribute at;
  at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at.val.programmaticStreamSerializationAllowed = 1;
  c.attrs = &at;
  c.numAttrs = pdl && device_has_pdl() ? 1 : 0;
  return (int)cudaLaunchKernelEx(&c, kernel, args...);
}

// Whether an update launch of this many blocks is launched early
// (programmatic dependent launch). Its blocks then wait on their SMs for the
// kernel ahead; alone on the GPU that costs nothing and saves the gap between
// the kernels (2000x1000 on one H200: 0.020 -> 0.018 ms per step), but beside
// an overlapped exchange on another stream, waiting blocks of a grid of
// several waves hold the SMs the boundary work needs (16384^2 on 2 GPUs:
// 101.6% -> 96.6% efficiency; docs/performance.md). So with
// concurrent streams only grids that fit on the GPU at once are.
static bool early(const gs_fdtd_step_args *a, unsigned blocks) {
  static int wave = 0;
  if (!a->pdl) return false;
  if (!a->concurrent) return true;
  if (!wave) {
    int per = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, step_both_kernel<kCols>, 32 * kWarps, 0) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    wave = gs_sm_count() * per; // the heaviest update kernel's; the others fit at least as many
  }
  return blocks <= (unsigned)wave;
}

// Launches kernel K over the regions of list (at most kMaxRegions at a time),
// tiles as make_tiles; more: the kernel's arguments after the tiles.
template <typename K, typename... More>
static int launch_tiles(K kernel, int tw, int th, const gs_fdtd_step_args *a, const gs_fdtd_region *list, int n,
                        cudaStream_t s, int extra, More... more) {
  for (int from = 0; from < n; from += kMaxRegions) {
    Tiles t;
    unsigned blocks = make_tiles(t, list, from, n, tw, th, extra);
    if (blocks == 0) continue;
    int e = launch(early(a, blocks), kernel, blocks, 32 * kWarps, s, *a, t, more...);
    if (e) return e;
  }
  return 0;
}

extern "C" int gs_fdtd_step_cuda(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream) {
  // The marching kernel needs every node of a region to be an interior node
  // with all its H valid, and no slab in reach: not the node's, nor those of
  // the neighbours' H it recomputes (one node lower in x and y).
  gs_fdtd_region march[64], rest[64];
  int nm = 0, nr = 0;
  for (int k = 0; k < n; ++k) {
    if (r[k].i1 <= r[k].i0 || r[k].j1 <= r[k].j0) continue;
    bool m = r[k].i0 >= 1 && r[k].j0 >= 1 && r[k].i1 <= a->nx && r[k].j1 <= a->ny && gs_fdtd_slab_free(a, r[k]);
    if (m ? nm == 64 : nr == 64) return (int)cudaErrorInvalidValue;
    (m ? march[nm++] : rest[nr++]) = r[k];
  }
  cudaStream_t s = (cudaStream_t)stream;
  // Rows per tile: kRows, halved while the warps would not fill every SM
  // once (at most 32 resident per SM at this kernel's register count).
  const int sms = gs_sm_count();
  if (!sms) return (int)cudaGetLastError();
  int rows = kRows;
  for (;;) {
    int64_t warps = 0;
    for (int k = 0; k < nm; ++k)
      warps += (march[k].i1 - march[k].i0 + kCols - 1 + 32 * kCols - 1) / (32 * kCols) *
               ((march[k].j1 - march[k].j0 + rows - 1) / rows);
    if (rows / 2 < GS_FDTD_ROWS_MIN || warps >= (int64_t)sms * 32) break;
    rows /= 2;
  }
  if (nm > 0 && nr > 0 && nm <= kMaxRegions && nr <= kMaxRegions) { // the usual case: one launch
    Tiles tm, ts;
    unsigned bm = make_tiles(tm, march, 0, nm, 32 * kCols * kWarps, rows, kCols - 1);
    unsigned bs = make_tiles(ts, rest, 0, nr, 32, kStripRows, 0);
    return launch(early(a, bm + bs), step_both_kernel<kCols>, bm + bs, 32 * kWarps, s, *a, tm, rows, bm, ts);
  }
  int e = launch_tiles(step_interior_vec_kernel<kCols>, 32 * kCols * kWarps, rows, a, march, nm, s, kCols - 1, rows);
  if (e) return e;
  return launch_tiles(step_kernel, 32, kStripRows, a, rest, nr, s, 0);
}

extern "C" int gs_fdtd_inject_cuda(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                                   int pdl, void *stream) {
  if (n <= 0) return 0;
  return launch(pdl != 0, inject_kernel, (unsigned)(n + 127) / 128, 128, (cudaStream_t)stream, ez, off, val, stride, t,
                n);
}

extern "C" int gs_fdtd_sample_cuda(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                                   void *stream) {
  if (n <= 0) return 0;
  sample_kernel<<<(n + 127) / 128, 128, 0, (cudaStream_t)stream>>>(v, off, n, out, slots, t);
  return (int)cudaGetLastError();
}

__global__ void clock_kernel(int64_t *c, int64_t v0, int64_t v1, int add) {
  c[0] = add ? c[0] + v0 : v0;
  c[1] = add ? c[1] + v1 : v1;
}

extern "C" int gs_fdtd_clock_cuda(int64_t *c, int64_t v0, int64_t v1, int add, void *stream) {
  clock_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(c, v0, v1, add);
  return (int)cudaGetLastError();
}

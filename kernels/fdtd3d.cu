// 3D FDTD (Yee) kernels: the expressions of kernels/fdtd3d_node.h, shared
// with the CPU twin, compiled with --fmad=false so CPU and GPU agree bit for
// bit. A fused marching kernel takes the box no slab reaches (one pass per
// step); the rest (CPML slabs, magnetic H, the outer nodes) takes two
// one-thread-per-node kernels, new H then new E.
#include <cuda_runtime.h>

#include "fdtd3d_kernels.h"
#include "fdtd3d_node.h"
#include "sm_count.cuh"

namespace {

// The boxes the fused kernel does not take (CPML, magnetic H, outer nodes),
// one launch for all of them: a 1D grid, box z taking blocks [first[z],
// first[z + 1]), each block a tile of 32 x kNodeRows nodes of one plane.
constexpr int kNodeRows = 8;
struct Boxes {
  int n;
  gs_fdtd3_region r[7];
  unsigned first[8], bx[7], by[7];
};

__device__ __forceinline__ bool box_node(const Boxes &b, int64_t &i, int64_t &j, int64_t &k) {
  unsigned blk = blockIdx.x, z = 0;
  while (z + 1 < (unsigned)b.n && blk >= b.first[z + 1])
    ++z;
  blk -= b.first[z];
  const gs_fdtd3_region &r = b.r[z];
  const unsigned plane = b.bx[z] * b.by[z];
  k = r.k0 + blk / plane;
  blk %= plane;
  i = r.i0 + (int64_t)(blk % b.bx[z]) * 32 + threadIdx.x;
  j = r.j0 + (int64_t)(blk / b.bx[z]) * kNodeRows + threadIdx.y;
  return i < r.i1 && j < r.j1;
}

// New H of every node of the boxes (two passes: the E pass reads it).
__global__ void __launch_bounds__(32 * kNodeRows) h_kernel(const gs_fdtd3_step_args a, const Boxes b) {
  int64_t i, j, k;
  if (box_node(b, i, j, k)) gs_fdtd3_h_node(&a, i, j, k);
}

// New E of every node of the boxes; r: the caller's region, whose new H is
// all stored by now (fused kernel and h_kernel).
__global__ void __launch_bounds__(32 * kNodeRows)
    e_kernel(const gs_fdtd3_step_args a, const Boxes b, const gs_fdtd3_region r) {
  int64_t i, j, k;
  if (box_node(b, i, j, k)) gs_fdtd3_e_node(&a, r, i, j, k);
}

// The fused kernel: a block of 32 x kRows threads takes a tile of 32 x kRows
// nodes in (i, j) and marches along k over a chunk of planes. Each thread
// keeps its Ex, Ey of plane k (loaded as plane k + 1 the step before) and its
// new Hx, Hy of plane k - 1 in registers; the new Hz, Hy of the node one
// lower in i come from the lane to the left (shuffles), those of the node one
// lower in j (Hz, Hx) from the row below through shared memory; lane 0 and
// row 0 recompute theirs. Valid in the box gs_fdtd3_inner() gives, with
// free-space H: there the expressions of fdtd3d_node.h have no slab term, so
// the bits are those of the one-thread-per-node kernel.
// Rows per block and minimum resident blocks (register cap 64): measured on
// an H200 at 1024^3 without PML (Mcells/s): 8 rows, 4 blocks: 36,000; 16, 2:
// 38,400; 8, 2 (100 registers): 29,000; 4, 6: 34,900. ncu at 512^3 (8, 4):
// 55 DRAM bytes per cell (51 ideal), 2.1 TB/s, stalls mostly on loads (long
// scoreboard 65%) and the barrier (21%): latency-bound, not traffic-bound.
// With 16, 2: 38,259 Mcells/s at 1024^3 (0.46 of the device copy), 32,036
// with 10 PML cells per face; 39,019 at 512^3 (bench_fdtd3d, H200).
#ifndef GS_FDTD3_ROWS
#define GS_FDTD3_ROWS 16
#endif
#ifndef GS_FDTD3_MINB
#define GS_FDTD3_MINB 2
#endif
constexpr int kRows = GS_FDTD3_ROWS;

struct Cols {
  float ex, ey; // plane k (old)
  float hx, hy; // new, plane k - 1
};

// What a thread reads of plane k (ex_n, ey_n: of plane k + 1; ex_u, ez_u:
// of the row above), loaded one plane ahead so that the loads of the next
// plane are in flight while this one is computed.
struct Plane {
  float ex_n, ey_n, ez, hx, hy, hz, ex_u, ez_u;
  unsigned char mx, my, mz;
};

__device__ __forceinline__ Plane load_plane(const gs_fdtd3_step_args &a, int64_t o) {
  Plane v;
  v.ex_n = __ldg(a.ex + o + a.plane);
  v.ey_n = __ldg(a.ey + o + a.plane);
  v.ez = __ldg(a.ez + o);
  v.hx = __ldg(a.hx + o);
  v.hy = __ldg(a.hy + o);
  v.hz = __ldg(a.hz + o);
  v.ex_u = __ldg(a.ex + o + a.pitch);
  v.ez_u = __ldg(a.ez + o + a.pitch);
  v.mx = __ldg(a.mex + o);
  v.my = __ldg(a.mey + o);
  v.mz = __ldg(a.mez + o);
  return v;
}

__global__ void __launch_bounds__(32 * kRows, GS_FDTD3_MINB)
    march_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_region r, int64_t chunk) {
  __shared__ float s_hz[2][kRows][32], s_hx[2][kRows][32];
  __shared__ float4 s_coef[GS_FDTD3_MAX_MATERIALS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Tiles start at multiples of 32 in i (aligned rows); lanes before r.i0
  // compute their node's plain update (unstored), which is what the first
  // column's left neighbour needs.
  const int64_t i = (r.i0 & ~(int64_t)31) + (int64_t)blockIdx.x * 32 + tx, j = r.j0 + (int64_t)blockIdx.y * kRows + ty;
  const int64_t k0 = r.k0 + (int64_t)blockIdx.z * chunk, k1 = k0 + chunk < r.k1 ? k0 + chunk : r.k1;
  const bool act = i >= r.i0 && i < r.i1 && j < r.j1, edge_r = tx == 31 || i + 1 >= r.i1;
  const int64_t P = a.pitch, S = a.plane;
  const float dbx = a.dbx, dby = a.dby, dbz = a.dbz;
  const float *__restrict__ ex = a.ex, *__restrict__ ey = a.ey, *__restrict__ ez = a.ez;
  const float *__restrict__ hx = a.hx, *__restrict__ hy = a.hy, *__restrict__ hz = a.hz;
  for (int q = ty * 32 + tx; q < GS_FDTD3_MAX_MATERIALS; q += 32 * kRows) {
    const gs_fdtd3_coef c = a.coef[q];
    s_coef[q] = make_float4(c.ca, c.cbx, c.cby, c.cbz);
  }
  __syncthreads();
  int64_t o = gs_fdtd3_at(&a, i < r.i1 ? i : r.i1 - 1, j < r.j1 ? j : r.j1 - 1, k0);
  Cols c;
  c.ex = ex[o];
  c.ey = ey[o];
  {
    const int64_t d = o - S; // new Hx, Hy of plane k0 - 1
    c.hx = hx[d] - dby * (ez[d + P] - ez[d]) + dbz * (c.ey - ey[d]);
    c.hy = hy[d] - dbz * (c.ex - ex[d]) + dbx * (ez[d + 1] - ez[d]);
  }
  const unsigned full = 0xFFFFFFFFu;
  int p = 0;
  Plane cur = load_plane(a, o);
  for (int64_t k = k0; k < k1; ++k, o += S, p ^= 1) {
    Plane nxt = cur;
    if (k + 1 < k1) nxt = load_plane(a, o + S);
    const float ex_n = cur.ex_n, ey_n = cur.ey_n, ez_c = cur.ez;
    float ez_r = __shfl_down_sync(full, ez_c, 1), ey_r = __shfl_down_sync(full, c.ey, 1);
    if (edge_r) {
      ez_r = ez[o + 1];
      ey_r = ey[o + 1];
    }
    const float hx_c = cur.hx - dby * (cur.ez_u - ez_c) + dbz * (ey_n - c.ey);
    const float hy_c = cur.hy - dbz * (ex_n - c.ex) + dbx * (ez_r - ez_c);
    const float hz_c = cur.hz - dbx * (ey_r - c.ey) + dby * (cur.ex_u - c.ex);
    float hz_l = __shfl_up_sync(full, hz_c, 1), hy_l = __shfl_up_sync(full, hy_c, 1);
    if (tx == 0 && i >= r.i0) {
      const int64_t l = o - 1;
      hz_l = hz[l] - dbx * (c.ey - ey[l]) + dby * (ex[l + P] - ex[l]);
      hy_l = hy[l] - dbz * (ex[l + S] - ex[l]) + dbx * (ez_c - ez[l]);
    }
    s_hz[p][ty][tx] = hz_c;
    s_hx[p][ty][tx] = hx_c;
    __syncthreads();
    float hz_d, hx_d;
    if (ty > 0) {
      hz_d = s_hz[p][ty - 1][tx];
      hx_d = s_hx[p][ty - 1][tx];
    } else {
      const int64_t d = o - P;
      hz_d = hz[d] - dbx * (ey[d + 1] - ey[d]) + dby * (c.ex - ex[d]);
      hx_d = hx[d] - dby * (ez_c - ez[d]) + dbz * (ey[d + S] - ey[d]);
    }
    const float4 cx = s_coef[cur.mx], cy = s_coef[cur.my], cz = s_coef[cur.mz]; // ca cbx cby cbz
    const float ex_new = cx.x * c.ex + cx.z * (hz_c - hz_d) - cx.w * (hy_c - c.hy);
    const float ey_new = cy.x * c.ey + cy.w * (hx_c - c.hx) - cy.y * (hz_c - hz_l);
    const float ez_new = cz.x * ez_c + cz.y * (hy_c - hy_l) - cz.z * (hx_c - hx_d);
    if (act) {
      a.hx_out[o] = hx_c;
      a.hy_out[o] = hy_c;
      a.hz_out[o] = hz_c;
      a.ex_out[o] = ex_new;
      a.ey_out[o] = ey_new;
      a.ez_out[o] = ez_new;
    }
    c.hx = hx_c;
    c.hy = hy_c;
    c.ex = ex_n;
    c.ey = ey_n;
    cur = nxt;
  }
}

__global__ void inject_kernel(float *f, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) f[off[k]] = f[off[k]] - val[gs_tick_value(t) * stride + k];
}

__global__ void sample_kernel(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  out += gs_tick_value(t) % slots * 6 * n;
  for (int c = 0; c < 6; ++c)
    out[6 * k + c] = v.f[c][off[k]];
}

int launch_boxes(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region r, cudaStream_t s) {
  Boxes b = {};
  unsigned blocks = 0;
  for (int q = 0; q < n; ++q) {
    b.r[b.n] = box[q];
    b.first[b.n] = blocks;
    b.bx[b.n] = (unsigned)((box[q].i1 - box[q].i0 + 31) / 32);
    b.by[b.n] = (unsigned)((box[q].j1 - box[q].j0 + kNodeRows - 1) / kNodeRows);
    blocks += b.bx[b.n] * b.by[b.n] * (unsigned)(box[q].k1 - box[q].k0);
    ++b.n;
  }
  if (!blocks) return 0;
  h_kernel<<<blocks, dim3(32, kNodeRows), 0, s>>>(*a, b);
  e_kernel<<<blocks, dim3(32, kNodeRows), 0, s>>>(*a, b, r);
  return (int)cudaGetLastError();
}

// Planes per block: the whole depth, halved while the blocks would not give
// every SM 8 of them (but at least 16 planes).
int launch_march(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  const int64_t bx = (r.i1 - (r.i0 & ~(int64_t)31) + 31) / 32, by = (r.j1 - r.j0 + kRows - 1) / kRows, nk = r.k1 - r.k0;
  int64_t chunk = nk;
  const int64_t want = 8 * (int64_t)gs_sm_count();
  while (chunk > 16 && bx * by * ((nk + chunk - 1) / chunk) < want)
    chunk = (chunk + 1) / 2;
  dim3 grid((unsigned)bx, (unsigned)by, (unsigned)((nk + chunk - 1) / chunk));
  march_kernel<<<grid, dim3(32, kRows), 0, s>>>(*a, r, chunk);
  return (int)cudaGetLastError();
}

bool empty(const gs_fdtd3_region &r) {
  return r.i1 <= r.i0 || r.j1 <= r.j0 || r.k1 <= r.k0;
}

} // namespace

// Per region: the fused kernel on the box no slab reaches, then new H and
// new E on the other boxes (whose E reads the H the fused kernel stored).
extern "C" int gs_fdtd3_step_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  for (int q = 0; q < n; ++q) {
    gs_fdtd3_region part[7];
    const int np = gs_fdtd3_split(a, r[q], part);
    int e = empty(part[0]) ? 0 : launch_march(a, part[0], s);
    if (!e) e = launch_boxes(a, part + 1, np - 1, r[q], s);
    if (e) return e;
  }
  return 0;
}

extern "C" int gs_fdtd3_inject_cuda(float *field, const int64_t *off, const float *val, int64_t stride, gs_tick t,
                                    int n, void *stream) {
  if (n <= 0) return 0;
  inject_kernel<<<(n + 127) / 128, 128, 0, (cudaStream_t)stream>>>(field, off, val, stride, t, n);
  return (int)cudaGetLastError();
}

extern "C" int gs_fdtd3_sample_cuda(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                                    void *stream) {
  if (n <= 0) return 0;
  sample_kernel<<<(n + 127) / 128, 128, 0, (cudaStream_t)stream>>>(v, off, n, out, slots, t);
  return (int)cudaGetLastError();
}

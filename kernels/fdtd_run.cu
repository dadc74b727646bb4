// 2D FDTD: several steps in one launch with the whole grid in shared memory
// (issue #20's small grids). A step of a small grid is bound by latency, not
// by bytes: 2000 x 1000 took 18.4 us a step as kernels from a CUDA graph,
// where the update itself needs a few. Here every block keeps one tile of
// the grid (Ez, Hx, Hy and the materials) in its shared memory for the whole
// launch, one block per SM, all resident at once (a cooperative launch), and
// a step costs two grid-wide barriers and the tiles' edges through L2:
//   - H of the tile (in place: a node's new H reads only its own old H), its
//     right column's Hy and top row's Hx published to global memory;
//   - barrier; the left and lower neighbours' published H into the ghosts;
//   - Ez of the tile, then the sources; the left column's and bottom row's
//     Ez published; barrier; the right and upper neighbours' Ez into the
//     ghosts for the next step's H.
// The node updates are fdtd_node.h's (gs_fdtd_hx_from, gs_fdtd_hy_from,
// gs_fdtd_e_from: the CPU twin's expressions), so the bits are those of the
// one-step launches (tests/test_fdtd_gpu.c). CPML psi stays in global
// memory: a node's psi is read and written by its owner alone.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "sm_count.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kRunX = 32, kRunY = 32; // threads of a block: 32 x 32, one block per SM

// How the grid is cut: cx x cy tiles of tw x th nodes (the last ones
// smaller), smem bytes of shared memory a block.
struct RunPlan {
  int cx, cy, tw, th;
  unsigned smem;
};

// This block's nodes [i0, i1) x [j0, j1) and its shared arrays: (tw + 2) x
// (th + 2) nodes with one ghost node on each side, row pitch w.
struct Tile {
  int64_t i0, i1, j0, j1;
  int w;
  float *ez, *hx, *hy;
  uint8_t *mat, *hmx, *hmy;
  __device__ int at(int64_t i, int64_t j) const { return (int)((j - j0 + 1) * w + (i - i0 + 1)); }
};

__device__ Tile tile_of_block(const gs_fdtd_step_args &a, const RunPlan &p, bool magnetic) {
  extern __shared__ float4 run_smem[];
  Tile t;
  const int bx = (int)blockIdx.x % p.cx, by = (int)blockIdx.x / p.cx;
  t.i0 = (int64_t)bx * p.tw;
  t.j0 = (int64_t)by * p.th;
  t.i1 = min(t.i0 + p.tw, a.nx + 1);
  t.j1 = min(t.j0 + p.th, a.ny + 1);
  t.w = p.tw + 2;
  const int n = t.w * (p.th + 2);
  t.ez = reinterpret_cast<float *>(run_smem);
  t.hx = t.ez + n;
  t.hy = t.hx + n;
  t.mat = reinterpret_cast<uint8_t *>(t.hy + n);
  t.hmx = magnetic ? t.mat + n : NULL;
  t.hmy = magnetic ? t.hmx + n : NULL;
  return t;
}

// f(i, j) for every node of the tile, the block's threads over it in 32 x 32 pieces.
template <typename F> __device__ __forceinline__ void each_node(const Tile &t, F f) {
  for (int64_t j = t.j0 + threadIdx.y; j < t.j1; j += kRunY)
    for (int64_t i = t.i0 + threadIdx.x; i < t.i1; i += kRunX)
      f(i, j);
}

// f(k) for k in [0, n), over all the block's threads.
template <typename F> __device__ __forceinline__ void each_of(int64_t n, F f) {
  for (int64_t k = threadIdx.y * kRunX + threadIdx.x; k < n; k += kRunX * kRunY)
    f(k);
}

// The fields of the tile and its ghost ring, and the owned nodes' materials, from the arrays.
__device__ void load_tile(const gs_fdtd_step_args &a, const Tile &t) {
  const int64_t w = t.i1 - t.i0 + 2, h = t.j1 - t.j0 + 2;
  each_of(w * h, [&](int64_t k) {
    const int64_t i = t.i0 - 1 + k % w, j = t.j0 - 1 + k / w;
    const int s = t.at(i, j);
    const bool in = i >= 0 && i <= a.nx && j >= 0 && j <= a.ny;
    const int64_t g = gs_fdtd_at(&a, i, j);
    t.ez[s] = in ? a.ez[g] : 0.f;
    t.hx[s] = in ? a.hx[g] : 0.f;
    t.hy[s] = in ? a.hy[g] : 0.f;
    const bool own = i >= t.i0 && i < t.i1 && j >= t.j0 && j < t.j1;
    if (own) t.mat[s] = a.mat[g];
    if (own && t.hmx) {
      t.hmx[s] = a.hmx[g];
      t.hmy[s] = a.hmy[g];
    }
  });
}

// The owned nodes' fields to a's output arrays.
__device__ void store_tile(const gs_fdtd_step_args &a, const Tile &t) {
  each_node(t, [&](int64_t i, int64_t j) {
    const int s = t.at(i, j);
    const int64_t g = gs_fdtd_at(&a, i, j);
    a.ez_out[g] = t.ez[s];
    a.hx_out[g] = t.hx[s];
    a.hy_out[g] = t.hy[s];
  });
}

// The receivers in this tile: Ez, Hx, Hy at step t into the ring of samples.
__device__ void sample_tile(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int64_t step) {
  float *out = r.rx_out + step % r.rx_slots * 3 * r.nrx;
  each_of(r.nrx, [&](int64_t m) {
    const int64_t off = r.rx_off[m], j = off / a.pitch - a.g, i = off % a.pitch - a.g;
    if (i < t.i0 || i >= t.i1 || j < t.j0 || j >= t.j1) return;
    const int s = t.at(i, j);
    out[3 * m] = t.ez[s];
    out[3 * m + 1] = t.hx[s];
    out[3 * m + 2] = t.hy[s];
  });
}

// The sources in this tile at step t, into the new Ez (after every node's update, as gs_fdtd_inject).
__device__ void inject_tile(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int64_t step) {
  const float *val = r.src_val + step * r.src_stride;
  each_of(r.nsrc, [&](int64_t m) {
    const int64_t off = r.src_off[m], j = off / a.pitch - a.g, i = off % a.pitch - a.g;
    if (i < t.i0 || i >= t.i1 || j < t.j0 || j >= t.j1) return;
    const int s = t.at(i, j);
    t.ez[s] = t.ez[s] - val[m];
  });
}

// New H of the tile; the edges the right and upper neighbours read go to a's output arrays.
__device__ void h_phase(const gs_fdtd_step_args &a, const Tile &t, int ns) {
  const bool right = t.i1 <= a.nx, up = t.j1 <= a.ny;
  each_node(t, [&](int64_t i, int64_t j) {
    const int s = t.at(i, j);
    const int64_t g = gs_fdtd_at(&a, i, j);
    if (j < a.ny) {
      const float h = gs_fdtd_hx_from(&a, ns, i, j, t.hx[s], t.ez[s + t.w] - t.ez[s], t.hmx ? &a.hcoef[t.hmx[s]] : NULL, 1);
      t.hx[s] = h;
      if (up && j == t.j1 - 1) __stcg(a.hx_out + g, h);
    }
    if (i < a.nx) {
      const float h = gs_fdtd_hy_from(&a, ns, i, j, t.hy[s], t.ez[s + 1] - t.ez[s], t.hmy ? &a.hcoef[t.hmy[s]] : NULL, 1);
      t.hy[s] = h;
      if (right && i == t.i1 - 1) __stcg(a.hy_out + g, h);
    }
  });
}

// The left neighbour's Hy and the lower one's Hx beside the tile, as published in h_phase.
__device__ void fetch_h(const gs_fdtd_step_args &a, const Tile &t) {
  const int64_t rows = t.j1 - t.j0, cols = t.i1 - t.i0;
  if (t.i0 > 0)
    each_of(rows, [&](int64_t k) { t.hy[t.at(t.i0 - 1, t.j0 + k)] = __ldcg(a.hy_out + gs_fdtd_at(&a, t.i0 - 1, t.j0 + k)); });
  if (t.j0 > 0)
    each_of(cols, [&](int64_t k) { t.hx[t.at(t.i0 + k, t.j0 - 1)] = __ldcg(a.hx_out + gs_fdtd_at(&a, t.i0 + k, t.j0 - 1)); });
}

__device__ void e_phase(const gs_fdtd_step_args &a, const Tile &t, int ns) {
  each_node(t, [&](int64_t i, int64_t j) {
    if (!gs_fdtd_interior(&a, i, j)) return;
    const int s = t.at(i, j);
    t.ez[s] = gs_fdtd_e_from(&a, ns, i, j, t.ez[s], t.mat[s], t.hx[s], t.hy[s], t.hy[s - 1], t.hx[s - t.w]);
  });
}

// The tile's left column's and bottom row's Ez to a's output arrays (for
// the left and lower neighbours), or (fetch) the right and upper
// neighbours' Ez from there into the ghosts.
__device__ void ez_edges(const gs_fdtd_step_args &a, const Tile &t, bool fetch) {
  const int64_t rows = t.j1 - t.j0, cols = t.i1 - t.i0;
  if (!fetch) {
    if (t.i0 > 0) each_of(rows, [&](int64_t k) { __stcg(a.ez_out + gs_fdtd_at(&a, t.i0, t.j0 + k), t.ez[t.at(t.i0, t.j0 + k)]); });
    if (t.j0 > 0) each_of(cols, [&](int64_t k) { __stcg(a.ez_out + gs_fdtd_at(&a, t.i0 + k, t.j0), t.ez[t.at(t.i0 + k, t.j0)]); });
    return;
  }
  if (t.i1 <= a.nx)
    each_of(rows, [&](int64_t k) { t.ez[t.at(t.i1, t.j0 + k)] = __ldcg(a.ez_out + gs_fdtd_at(&a, t.i1, t.j0 + k)); });
  if (t.j1 <= a.ny)
    each_of(cols, [&](int64_t k) { t.ez[t.at(t.i0 + k, t.j1)] = __ldcg(a.ez_out + gs_fdtd_at(&a, t.i0 + k, t.j1)); });
}

// One step with buffer set a (a reference to a kernel parameter, so its
// members stay parameter loads); last: no ghosts needed after it.
__device__ __forceinline__ void run_step(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int ns,
                                         int64_t step, bool last, cg::grid_group &grid) {
  if (r.nrx) sample_tile(r, a, t, step);
  h_phase(a, t, ns);
  grid.sync();
  fetch_h(a, t);
  __syncthreads();
  e_phase(a, t, ns);
  __syncthreads();
  if (r.nsrc) {
    inject_tile(r, a, t, step);
    __syncthreads();
  }
  if (last) return;
  ez_edges(a, t, false);
  grid.sync();
  ez_edges(a, t, true);
  __syncthreads();
}

__global__ void __launch_bounds__(kRunX * kRunY, 1) run_kernel(const gs_fdtd_run_args r, const RunPlan p, int64_t steps) {
  cg::grid_group grid = cg::this_grid();
  const Tile t = tile_of_block(r.set[0], p, r.set[0].hmx != NULL);
  const gs_fdtd_region box = {t.i0, t.i1, t.j0, t.j1};
  const int ns = gs_fdtd_slabs_reach(&r.set[0], box) ? r.set[0].nslab : 0; // tiles away from the CPML skip its checks
  load_tile(r.set[0], t);
  __syncthreads();
  for (int64_t s = 0; s < steps; ++s) {
    if (s % 2 == 0)
      run_step(r, r.set[0], t, ns, r.t0 + s, s + 1 == steps, grid);
    else
      run_step(r, r.set[1], t, ns, r.t0 + s, s + 1 == steps, grid);
  }
  if ((steps - 1) % 2 == 0)
    store_tile(r.set[0], t);
  else
    store_tile(r.set[1], t);
}

// Shared memory of a tile of tw x th nodes with its ghost ring.
static size_t tile_bytes(int tw, int th, bool magnetic) {
  return (size_t)(tw + 2) * (size_t)(th + 2) * (3 * sizeof(float) + (magnetic ? 3 : 1));
}

// The cut of the grid into at most one tile per SM whose largest tile
// leaves the block's 32 x 32 threads the fewest rounds, among those whose
// tiles fit the shared memory a block may take; false when none fits, or
// the device cannot launch a cooperative grid.
static bool plan_run(const gs_fdtd_step_args *a, RunPlan *p) {
  static int sms = -1, smem_max = 0, coop = 0;
  if (sms < 0) {
    int dev = 0;
    sms = gs_sm_count();
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess) {
      cudaGetLastError();
      coop = 0;
    }
  }
  if (!coop || sms <= 0 || a->oi != 0 || a->oj != 0) return false;
  const int64_t X = a->nx + 1, Y = a->ny + 1;
  const bool magnetic = a->hmx != NULL;
  int64_t best = -1;
  for (int cx = 1; cx <= sms && cx <= X; ++cx)
    for (int cy = 1; cx * cy <= sms && cy <= Y; ++cy) {
      const int64_t tw = (X + cx - 1) / cx, th = (Y + cy - 1) / cy;
      if ((cx - 1) * tw >= X || (cy - 1) * th >= Y) continue; // no empty tile
      if (tile_bytes((int)tw, (int)th, magnetic) > (size_t)smem_max) continue;
      const int64_t rounds = (tw + kRunX - 1) / kRunX * ((th + kRunY - 1) / kRunY);
      const int64_t cost = rounds * 4096 + tw + th; // then the shorter edges
      if (best >= 0 && cost >= best) continue;
      best = cost;
      *p = RunPlan{cx, cy, (int)tw, (int)th, (unsigned)tile_bytes((int)tw, (int)th, magnetic)};
    }
  return best >= 0;
}

} // namespace

extern "C" int gs_fdtd_run_fits_cuda(const gs_fdtd_step_args *a) {
  RunPlan p;
  return plan_run(a, &p);
}

extern "C" int gs_fdtd_run_cuda(const gs_fdtd_run_args *a, int64_t steps, void *stream) {
  if (steps <= 0) return 0;
  RunPlan p;
  if (!plan_run(&a->set[0], &p)) return (int)cudaErrorInvalidConfiguration;
  int e = (int)cudaFuncSetAttribute(run_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.smem);
  if (e) return e;
  void *args[] = {(void *)a, (void *)&p, (void *)&steps};
  return (int)cudaLaunchCooperativeKernel((const void *)run_kernel, dim3((unsigned)(p.cx * p.cy)), dim3(kRunX, kRunY),
                                          args, p.smem, (cudaStream_t)stream);
}

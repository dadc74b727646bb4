// 2D FDTD: several steps in one launch with the whole grid in shared memory
// (issue #20's small grids). A step of a small grid is bound by latency, not
// by bytes: 2000 x 1000 took 18.4 us a step as kernels from a CUDA graph,
// where the update itself needs a few. Here every block keeps one tile of
// the grid (Ez, Hx, Hy and the materials) in its shared memory for the whole
// launch, one block per SM, all resident at once (a cooperative launch), and
// a step costs one grid-wide barrier and the tiles' edges of Ez through L2:
//   - H of the tile, in place (a node's new H reads only its own old H), and
//     of the ghosts its Ez update reads (the left neighbour's Hy, the lower
//     one's Hx: recomputed here from the ghost Ez, so H is never exchanged);
//   - Ez of the tile, then the sources; the four edges of Ez published to
//     global memory; barrier; the neighbours' edges into the ghosts.
// The node updates are fdtd_node.h's (gs_fdtd_hx_from, gs_fdtd_hy_from,
// gs_fdtd_e_from: the CPU twin's expressions), so the bits are those of the
// one-step launches (tests/test_fdtd_gpu.c). CPML psi stays in global
// memory, read from the step's input set and written to its output set by
// the node's owner (a ghost's H reads it only), as the one-step kernels do.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "fdtd_run.cuh"
#include "sm_count.cuh"

namespace {

using gs_run::grid_barrier;
using gs_run::kNoSlab;
using gs_run::kSlabs;

// Blocks an SM runs at once (GS_FDTD_RUN_PER_SM: 1, 2 or 4; a tuning knob,
// docs/performance.md): each has 1024 / that threads (32 columns x kRunY
// rows) and that share of the SM's shared memory; with several, one block's
// barrier waits overlap another's work.
#ifndef GS_FDTD_RUN_PER_SM
#define GS_FDTD_RUN_PER_SM 1
#endif
constexpr int kPerSm = GS_FDTD_RUN_PER_SM;
constexpr int kRunX = 32, kRunY = 32 / kPerSm;

// How the grid is cut: cx x cy tiles of tw x th nodes (the last ones
// smaller), smem bytes of shared memory a block.
struct RunPlan {
  int cx, cy, tw, th;
  unsigned smem;
};

// This block's nodes [i0, i1) x [j0, j1) (nw x nh) and its shared arrays:
// (tw + 2) x (th + 2) nodes with one ghost node on each side, row pitch w;
// local node (li, lj) at (lj + 1) w + li + 1. Nodes of the local box
// [fx0, fx1) x [fy0, fy1) lie in no CPML slab (their update skips the slab
// tests; the frame around it, the rest of the tile, does them);
// (Few members: a block of 1024 threads has 64 registers a thread.)
#ifdef GS_EMULATE
#define run_smem (static_cast<float4 *>(gs_emu_smem()))
#else
extern __shared__ float4 run_smem[];
#endif

struct Tile {
  int i0, j0; // first node (a grid on chip has far fewer than 2^31 nodes)
  int nw, nh, w;
  int fx0, fx1, fy0, fy1;
  int n;         // nodes of each shared array
  bool magnetic; // hmx and hmy held (some H node has magnetic coefficients)
  // The shared arrays, at fixed offsets of the block's shared memory (no
  // registers held for them): the electric coefficients (ca, cbx, cby, src)
  // of every material, then Ez, Hx, Hy, the material of each node, and with
  // magnetic H the materials of each Hx and Hy.
  __device__ float4 *coef() const {
    return run_smem;
  }
  __device__ float *ez() const {
    return reinterpret_cast<float *>(run_smem + GS_FDTD_MAX_MATERIALS);
  }
  __device__ float *hx() const {
    return ez() + n;
  }
  __device__ float *hy() const {
    return ez() + 2 * n;
  }
  __device__ uint8_t *mat() const {
    return reinterpret_cast<uint8_t *>(ez() + 3 * n);
  }
  __device__ uint8_t *hmx() const {
    return mat() + n;
  }
  __device__ uint8_t *hmy() const {
    return mat() + 2 * n;
  }
  // The CPML slab of each local column (x slabs, index li + 1) and row (y
  // slabs, index lj + 1): its index in the step's slab list, kNoSlab, or
  // kSlabs where several overlap (tiny grids: the general update then).
  __device__ uint8_t *xs() const {
    return mat() + (magnetic ? 3 : 1) * n;
  }
  __device__ uint8_t *ys() const {
    return xs() + w;
  }
  __device__ int at(int li, int lj) const {
    return (lj + 1) * w + li + 1;
  }
  __device__ int free_of_slabs(int li, int lj) const {
    return li >= fx0 && li < fx1 && lj >= fy0 && lj < fy1;
  }
  __device__ int frame_nodes() const {
    return nw * nh - (fx1 - fx0) * (fy1 - fy0);
  }
  // Node k of the frame: the rows below and above the free box, then the
  // columns left and right of it in the rows between.
  __device__ void frame_node(int k, int &li, int &lj) const {
    const int below = fy0 * nw, above = (nh - fy1) * nw, sides = fx0 + nw - fx1;
    if (k < below + above) {
      lj = k < below ? k / nw : fy1 + (k - below) / nw;
      li = (k < below ? k : k - below) % nw;
      return;
    }
    k -= below + above;
    lj = fy0 + k / sides;
    const int c = k % sides;
    li = c < fx0 ? c : fx1 + (c - fx0);
  }
};

__device__ __forceinline__ int clamp_local(int64_t v, int64_t lo, int64_t hi) {
  return (int)(v < lo ? lo : v > hi ? hi : v);
}

// The nodes (global [x0, x1) x [y0, y1)) that no slab's extent along its
// axis reaches: a slab at the box's start moves the start past it, any other
// ends the box at its first node (conservative: the upper slabs end at node
// nx - 1, the wall column beyond them takes the general update too).
__device__ void shrink_free(int64_t lo, int64_t hi, int64_t &f0, int64_t &f1) {
  if (lo <= f0)
    f0 = max(f0, hi);
  else
    f1 = min(f1, lo); // a slab above the box's start: nothing from its first node on is free
}

__device__ gs_fdtd_region slab_free_box(const gs_fdtd_step_args &a) {
  int64_t x0 = 0, x1 = a.nx + 1, y0 = 0, y1 = a.ny + 1;
  for (int q = 0; q < a.nslab; ++q) {
    if (a.slab[q].dir == 0)
      shrink_free(a.slab[q].lo, a.slab[q].hi, x0, x1);
    else
      shrink_free(a.slab[q].lo, a.slab[q].hi, y0, y1);
  }
  return gs_fdtd_region{x0, x1, y0, y1};
}

__device__ Tile tile_of_block(const gs_fdtd_step_args &a, const RunPlan &p, bool magnetic) {
  Tile t;
  const int bx = (int)blockIdx.x % p.cx, by = (int)blockIdx.x / p.cx;
  t.i0 = bx * p.tw;
  t.j0 = by * p.th;
  t.nw = (int)min((int64_t)p.tw, a.nx + 1 - t.i0);
  t.nh = (int)min((int64_t)p.th, a.ny + 1 - t.j0);
  t.w = p.tw + 2;
  const gs_fdtd_region f = slab_free_box(a);
  t.fx0 = clamp_local(f.i0 - t.i0, 0, t.nw);
  t.fx1 = clamp_local(f.i1 - t.i0, t.fx0, t.nw);
  t.fy0 = clamp_local(f.j0 - t.j0, 0, t.nh);
  t.fy1 = clamp_local(f.j1 - t.j0, t.fy0, t.nh);
  if (t.fx0 == t.fx1 || t.fy0 == t.fy1) t.fx0 = t.fx1 = t.fy0 = t.fy1 = 0; // no node of the tile is free
  t.n = t.w * (p.th + 2);
  t.magnetic = magnetic;
  return t;
}

// f(li, lj) for local nodes [x0, x1) x [y0, y1), the block's threads over them in 32 x 32 pieces.
template <typename F> __device__ __forceinline__ void each_node(int x0, int x1, int y0, int y1, F f) {
  for (int lj = y0 + (int)threadIdx.y; lj < y1; lj += kRunY)
    for (int li = x0 + (int)threadIdx.x; li < x1; li += kRunX)
      f(li, lj);
}

// f(k) for k in [0, n), over all the block's threads.
template <typename F> __device__ __forceinline__ void each_of(int64_t n, F f) {
  for (int64_t k = threadIdx.y * kRunX + threadIdx.x; k < n; k += kRunX * kRunY)
    f(k);
}

// The fields and materials of the tile and its ghost ring from the arrays.
__device__ void load_tile(const gs_fdtd_step_args &a, const Tile &t) {
  each_of(GS_FDTD_MAX_MATERIALS, [&](int64_t k) {
    const gs_fdtd_coef c = a.coef[k];
    t.coef()[k] = make_float4(c.ca, c.cbx, c.cby, c.src);
  });
  const int w = t.nw + 2, h = t.nh + 2;
  each_of((int64_t)w * h, [&](int64_t k) {
    const int li = (int)(k % w) - 1, lj = (int)(k / w) - 1;
    const int64_t i = t.i0 + li, j = t.j0 + lj;
    const int s = t.at(li, lj);
    const bool in = i >= 0 && i <= a.nx && j >= 0 && j <= a.ny;
    const int64_t g = gs_fdtd_at(&a, i, j);
    t.ez()[s] = in ? a.ez[g] : 0.f;
    t.hx()[s] = in ? a.hx[g] : 0.f;
    t.hy()[s] = in ? a.hy[g] : 0.f;
    t.mat()[s] = in ? a.mat[g] : 0;
    if (t.magnetic) {
      t.hmx()[s] = in ? a.hmx[g] : 0;
      t.hmy()[s] = in ? a.hmy[g] : 0;
    }
  });
}

// The owned nodes' fields to a's output arrays.
__device__ void store_tile(const gs_fdtd_step_args &a, const Tile &t) {
  each_node(0, t.nw, 0, t.nh, [&](int li, int lj) {
    const int s = t.at(li, lj);
    const int64_t g = gs_fdtd_at(&a, t.i0 + li, t.j0 + lj);
    a.ez_out[g] = t.ez()[s];
    a.hx_out[g] = t.hx()[s];
    a.hy_out[g] = t.hy()[s];
  });
}

// f(s, m) for the points of a list (array offsets) in this tile: s the local node.
template <typename F>
__device__ __forceinline__ void each_point(const gs_fdtd_step_args &a, const Tile &t, const int64_t *off, int n, F f) {
  each_of(n, [&](int64_t m) {
    const int64_t j = off[m] / a.pitch - a.g - t.j0, i = off[m] % a.pitch - a.g - t.i0;
    if (i >= 0 && i < t.nw && j >= 0 && j < t.nh) f(t.at((int)i, (int)j), m);
  });
}

// The receivers in this tile: Ez, Hx, Hy at the step into the ring of samples.
__device__ void sample_tile(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int64_t step) {
  float *out = r.rx_out + step % r.rx_slots * 3 * r.nrx;
  each_point(a, t, r.rx_off, r.nrx, [&](int s, int64_t m) {
    out[3 * m] = t.ez()[s];
    out[3 * m + 1] = t.hx()[s];
    out[3 * m + 2] = t.hy()[s];
  });
}

// The sources in this tile at the step, into the new Ez (after every node's update, as gs_fdtd_inject).
__device__ void inject_tile(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int64_t step) {
  const float *val = r.src_val + step * r.src_stride;
  each_point(a, t, r.src_off, r.nsrc, [&](int s, int64_t m) { t.ez()[s] = t.ez()[s] - val[m]; });
}

// New Hx and Hy of local node (li, lj) where they exist (own: also its psi),
// hx / hy: whether to update each.
__device__ __forceinline__ void h_node(const gs_fdtd_step_args &a, const Tile &t, int ns, int li, int lj, bool hx,
                                       bool hy, int own) {
  const int s = t.at(li, lj), n = t.free_of_slabs(li, lj) ? 0 : ns;
  const int64_t i = t.i0 + li, j = t.j0 + lj;
  if (hx)
    t.hx()[s] = gs_fdtd_hx_from(&a, n, i, j, t.hx()[s], t.ez()[s + t.w] - t.ez()[s],
                                t.magnetic ? &a.hcoef[t.hmx()[s]] : NULL, own);
  if (hy)
    t.hy()[s] = gs_fdtd_hy_from(&a, n, i, j, t.hy()[s], t.ez()[s + 1] - t.ez()[s],
                                t.magnetic ? &a.hcoef[t.hmy()[s]] : NULL, own);
}

// The slab maps (Tile::xs, Tile::ys) from the step's slab list.
__device__ void map_slabs(const gs_fdtd_step_args &a, const Tile &t) {
  each_of((int64_t)(t.nw + 2) + (t.nh + 2), [&](int64_t k) {
    const int dir = k < t.nw + 2 ? 0 : 1;
    const int64_t at = dir == 0 ? t.i0 - 1 + k : t.j0 - 1 + (k - (t.nw + 2));
    const uint8_t m = gs_run::slab_at(a, dir, at);
    if (dir == 0)
      t.xs()[k] = m;
    else
      t.ys()[k - (t.nw + 2)] = m;
  });
}

// The CPML correction of slab p (the one slab of its axis at this node) on
// a new H value h (gs_fdtd_hx_from / hy_from with that slab: the same
// expressions): along / other, the node's index along the slab and across;
// own: the node's owner (stores psi), else a ghost (reads it from L2).
__device__ __forceinline__ float slab_h(const gs_fdtd_slab &p, int64_t along, int64_t other, float h, float cb, float d,
                                        bool own) {
  if (other < p.o0 || other >= p.o1) return h;
  const int64_t q = along - p.lo, w = q * (p.o1 - p.o0) + (other - p.o0);
  const float psi = own ? p.psi_h_in[w] : __ldcg(p.psi_h_in + w);
  if (own) p.psi_h_out[w] = p.bh[q] * psi + p.ah[q] * d;
  return p.dir == 1 ? h - cb * (p.kh[q] * d + psi) : h + cb * (p.kh[q] * d + psi);
}

// The CPML correction of slab p on a new Ez (gs_fdtd_e_from's, one slab);
// c: the node's (ca, cbx, cby, src).
__device__ __forceinline__ float slab_e(const gs_fdtd_slab &p, int64_t i, int64_t j, float ez, float4 c, float dhy,
                                        float dhx) {
  const int64_t along = p.dir == 0 ? i : j, other = p.dir == 0 ? j : i;
  if (other < p.o0 || other >= p.o1) return ez;
  const int64_t q = along - p.lo, w = q * (p.o1 - p.o0) + (other - p.o0);
  const float d = p.dir == 0 ? dhy : dhx;
  const float psi = p.psi_e_in[w];
  p.psi_e_out[w] = p.be[q] * psi + p.ae[q] * d;
  return p.dir == 0 ? ez + c.y * (p.ke[q] * d + psi) : ez - c.z * (p.ke[q] * d + psi);
}

// New H of a frame node (or a ghost: own 0) in free-space H through the
// slab maps: at most one slab of each axis, found without searching.
__device__ __forceinline__ void frame_h(const gs_fdtd_step_args &a, const Tile &t, int ns, int li, int lj, bool hx,
                                        bool hy, int own) {
  const uint8_t sx = t.xs()[li + 1], sy = t.ys()[lj + 1];
  if (sx == kSlabs || sy == kSlabs) {
    h_node(a, t, ns, li, lj, hx, hy, own);
    return;
  }
  const int s = t.at(li, lj);
  const int64_t i = t.i0 + li, j = t.j0 + lj;
  const float e = t.ez()[s];
  if (hx) {
    const float d = t.ez()[s + t.w] - e;
    const float h = t.hx()[s] - a.chy * d;
    t.hx()[s] = sy == kNoSlab ? h : slab_h(a.slab[sy], j, i, h, a.chy, d, own);
  }
  if (hy) {
    const float d = t.ez()[s + 1] - e;
    const float h = t.hy()[s] + a.chx * d;
    t.hy()[s] = sx == kNoSlab ? h : slab_h(a.slab[sx], i, j, h, a.chx, d, own);
  }
}

// New Ez of an interior frame node through the slab maps, the two axes'
// slabs in the order of the slab list (as gs_fdtd_e_from loops).
__device__ __forceinline__ void frame_e(const gs_fdtd_step_args &a, const Tile &t, int ns, int li, int lj) {
  const uint8_t sx = t.xs()[li + 1], sy = t.ys()[lj + 1];
  const int s = t.at(li, lj);
  const int64_t i = t.i0 + li, j = t.j0 + lj;
  if (sx == kSlabs || sy == kSlabs) {
    t.ez()[s] =
        gs_fdtd_e_from(&a, ns, i, j, t.ez()[s], t.mat()[s], t.hx()[s], t.hy()[s], t.hy()[s - 1], t.hx()[s - t.w]);
    return;
  }
  const float dhy = t.hy()[s] - t.hy()[s - 1];
  const float dhx = t.hx()[s] - t.hx()[s - t.w];
  const float4 c = t.coef()[t.mat()[s]];
  float ez = c.x * t.ez()[s] + (c.y * dhy - c.z * dhx);
  const uint8_t first = sx < sy ? sx : sy, second = sx < sy ? sy : sx;
  if (first != kNoSlab) ez = slab_e(a.slab[first], i, j, ez, c, dhy, dhx);
  if (second != kNoSlab) ez = slab_e(a.slab[second], i, j, ez, c, dhy, dhx);
  t.ez()[s] = ez;
}

// New H of the tile, and of the ghosts its Ez update reads (the left
// neighbour's Hy, the lower one's Hx: the bits their owners compute, psi
// read, not written), so no exchange of H is needed. Nodes in no slab with
// free-space H take fdtd_node.h's expressions with no slab and no magnetic
// coefficients written out (the same bits, a fraction of the instructions).
__device__ void h_phase(const gs_fdtd_step_args &a, const Tile &t, int ns) {
  const int hx_rows = (int)min((int64_t)t.nh, a.ny - t.j0), hy_cols = (int)min((int64_t)t.nw, a.nx - t.i0);
  const float chx = a.chx, chy = a.chy;
  if (t.magnetic) { // magnetic H: every node through fdtd_node.h
    each_node(0, t.nw, 0, t.nh, [&](int li, int lj) { h_node(a, t, ns, li, lj, lj < hx_rows, li < hy_cols, 1); });
  } else {
    // The frame's nodes (CPML: psi in global memory) spread over all the
    // block's threads, so their loads overlap; then the free box.
    each_of(t.frame_nodes(), [&](int64_t k) {
      int li, lj;
      t.frame_node((int)k, li, lj);
      frame_h(a, t, ns, li, lj, lj < hx_rows, li < hy_cols, 1);
    });
    each_node(t.fx0, t.fx1, t.fy0, t.fy1, [&](int li, int lj) {
      const int s = t.at(li, lj);
      const float e = t.ez()[s];
      if (lj < hx_rows) t.hx()[s] = t.hx()[s] - chy * (t.ez()[s + t.w] - e);
      if (li < hy_cols) t.hy()[s] = t.hy()[s] + chx * (t.ez()[s + 1] - e);
    });
  }
  if (t.magnetic) {
    if (t.i0 > 0) each_of(t.nh, [&](int64_t k) { h_node(a, t, ns, -1, (int)k, false, true, 0); });
    if (t.j0 > 0) each_of(t.nw, [&](int64_t k) { h_node(a, t, ns, (int)k, -1, true, false, 0); });
  } else {
    if (t.i0 > 0) each_of(t.nh, [&](int64_t k) { frame_h(a, t, ns, -1, (int)k, false, true, 0); });
    if (t.j0 > 0) each_of(t.nw, [&](int64_t k) { frame_h(a, t, ns, (int)k, -1, true, false, 0); });
  }
}

// New Ez of the interior nodes: the frame's through fdtd_node.h, then the
// free box's written out (the same expressions with no slab).
__device__ void e_phase(const gs_fdtd_step_args &a, const Tile &t, int ns) {
  // the interior nodes [ex0, ex1) x [ey0, ey1) of the tile (the PEC walls keep Ez = 0)
  const int ex0 = clamp_local(1 - t.i0, 0, t.nw), ex1 = clamp_local(a.nx - t.i0, 0, t.nw);
  const int ey0 = clamp_local(1 - t.j0, 0, t.nh), ey1 = clamp_local(a.ny - t.j0, 0, t.nh);
  each_of(t.frame_nodes(), [&](int64_t k) {
    int li, lj;
    t.frame_node((int)k, li, lj);
    if (li < ex0 || li >= ex1 || lj < ey0 || lj >= ey1) return;
    frame_e(a, t, ns, li, lj);
  });
  each_node(max(t.fx0, ex0), min(t.fx1, ex1), max(t.fy0, ey0), min(t.fy1, ey1), [&](int li, int lj) {
    const int s = t.at(li, lj);
    const float4 c = t.coef()[t.mat()[s]];
    t.ez()[s] = c.x * t.ez()[s] + (c.y * (t.hy()[s] - t.hy()[s - 1]) - c.z * (t.hx()[s] - t.hx()[s - t.w]));
  });
}

// The tile's edges of Ez to a's output arrays (publish), or the
// neighbours' edges from there into the ghosts: f(li, lj, global offset)
// for every edge node or ghost on the sides that have a neighbour.
template <typename F>
__device__ __forceinline__ void ez_edges(const gs_fdtd_step_args &a, const Tile &t, bool ghosts, F f) {
  const int o = ghosts ? 1 : 0; // ghosts lie one node outside the edges
  const bool lo_x = t.i0 > 0, hi_x = t.i0 + t.nw <= a.nx, lo_y = t.j0 > 0, hi_y = t.j0 + t.nh <= a.ny;
  each_of(t.nh, [&](int64_t k) {
    if (lo_x) f(-o, (int)k);
    if (hi_x) f(t.nw - 1 + o, (int)k);
  });
  each_of(t.nw, [&](int64_t k) {
    if (lo_y) f((int)k, -o);
    if (hi_y) f((int)k, t.nh - 1 + o);
  });
}

__device__ __forceinline__ void publish_ez(const gs_fdtd_step_args &a, const Tile &t) {
  ez_edges(a, t, false,
           [&](int li, int lj) { __stcg(a.ez_out + gs_fdtd_at(&a, t.i0 + li, t.j0 + lj), t.ez()[t.at(li, lj)]); });
}

__device__ __forceinline__ void fetch_ez(const gs_fdtd_step_args &a, const Tile &t) {
  ez_edges(a, t, true,
           [&](int li, int lj) { t.ez()[t.at(li, lj)] = __ldcg(a.ez_out + gs_fdtd_at(&a, t.i0 + li, t.j0 + lj)); });
}

constexpr int kRunThreads = kRunX * kRunY;

// The sources and receivers of the tile when there are at most kRunThreads
// of each: thread k holds the local node of source k and of receiver k (-1:
// not in this tile), found once a launch; any: whether some thread holds one.
struct Points {
  int src, rx;
  bool any_src, any_rx;
};

__device__ int local_node(const gs_fdtd_step_args &a, const Tile &t, const int64_t *off, int n, int k) {
  if (k >= n) return -1;
  const int64_t j = off[k] / a.pitch - a.g - t.j0, i = off[k] % a.pitch - a.g - t.i0;
  return i >= 0 && i < t.nw && j >= 0 && j < t.nh ? t.at((int)i, (int)j) : -1;
}

__device__ Points points_of_tile(const gs_fdtd_run_args &r, const Tile &t) {
  const int k = (int)(threadIdx.y * kRunX + threadIdx.x);
  Points p;
  p.src = r.nsrc <= kRunThreads ? local_node(r.set[0], t, r.src_off, r.nsrc, k) : -1;
  p.rx = r.nrx <= kRunThreads ? local_node(r.set[0], t, r.rx_off, r.nrx, k) : -1;
  p.any_src = __syncthreads_or(p.src >= 0) || r.nsrc > kRunThreads;
  p.any_rx = __syncthreads_or(p.rx >= 0) || r.nrx > kRunThreads;
  return p;
}

// One step with buffer set a (a reference to a kernel parameter, so its
// members stay parameter loads); last: no ghosts needed after it. One grid
// barrier: the tiles' Ez edges out, the neighbours' in. The source's value
// is loaded first, so its latency passes during the update.
__device__ __forceinline__ void run_step(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t,
                                         const Points &pt, int ns, int64_t step, bool last, unsigned long long target) {
  const int k = (int)(threadIdx.y * kRunX + threadIdx.x);
  const float sv = pt.src >= 0 ? r.src_val[step * r.src_stride + k] : 0.f;
  if (pt.any_rx) {
    if (r.nrx > kRunThreads) {
      sample_tile(r, a, t, step);
    } else if (pt.rx >= 0) {
      float *out = r.rx_out + step % r.rx_slots * 3 * r.nrx + 3 * k;
      out[0] = t.ez()[pt.rx];
      out[1] = t.hx()[pt.rx];
      out[2] = t.hy()[pt.rx];
    }
    __syncthreads(); // the samples read what the H update writes
  }
  h_phase(a, t, ns);
  __syncthreads();
  e_phase(a, t, ns);
  __syncthreads();
  if (pt.any_src) {
    if (r.nsrc > kRunThreads)
      inject_tile(r, a, t, step);
    else if (pt.src >= 0)
      t.ez()[pt.src] = t.ez()[pt.src] - sv; // distinct nodes (checked by the parser)
    __syncthreads();
  }
  if (last) return;
  publish_ez(a, t);
  grid_barrier(reinterpret_cast<unsigned long long *>(r.barrier), target);
  fetch_ez(a, t);
  __syncthreads();
}

__global__ void __launch_bounds__(kRunThreads, kPerSm)
    run_kernel(const gs_fdtd_run_args r, const RunPlan p, int64_t steps) {
  const Tile t = tile_of_block(r.set[0], p, r.set[0].hmx != NULL);
  const gs_fdtd_region box = {t.i0, t.i0 + t.nw, t.j0, t.j0 + t.nh};
  const int ns = gs_fdtd_slabs_reach(&r.set[0], box) ? r.set[0].nslab : 0; // tiles away from the CPML skip its checks
  load_tile(r.set[0], t);
  map_slabs(r.set[0], t);
  const Points pt = points_of_tile(r, t); // (its barriers end the load too)
  for (int64_t s = 0; s < steps; ++s) {
    const unsigned long long target = r.barrier_base + gridDim.x * (uint64_t)(s + 1);
    if (s % 2 == 0)
      run_step(r, r.set[0], t, pt, ns, r.t0 + s, s + 1 == steps, target);
    else
      run_step(r, r.set[1], t, pt, ns, r.t0 + s, s + 1 == steps, target);
  }
  if ((steps - 1) % 2 == 0)
    store_tile(r.set[0], t);
  else
    store_tile(r.set[1], t);
}

// Shared memory of a tile of tw x th nodes with its ghost ring.
static size_t tile_bytes(int tw, int th, bool magnetic) {
  return sizeof(float4) * GS_FDTD_MAX_MATERIALS +
         (size_t)(tw + 2) * (size_t)(th + 2) * (3 * sizeof(float) + (magnetic ? 3 : 1)) + (size_t)(tw + 2) +
         (size_t)(th + 2);
}

// What the device allows: SMs, shared memory a block of ours may take (its
// share of an SM's), cooperative launches; 0 SMs when unknown.
struct RunDevice {
  int sms, smem, coop;
};

static RunDevice run_device() {
  static RunDevice seen[64]; // per device ordinal (the shared-memory opt-in is per device too)
  static bool known[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    cudaGetLastError();
    return RunDevice{0, 0, 0};
  }
  RunDevice &d = seen[dev];
  if (known[dev]) return d;
  known[dev] = true;
  int optin = 0, per_sm = 0, reserved = 0;
  d.sms = gs_sm_count();
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&d.coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess ||
      cudaFuncSetAttribute(run_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess) {
    cudaGetLastError();
    d.coop = 0;
  }
  d.smem = min(optin, per_sm / kPerSm - reserved);
  return d;
}

// The cut of the grid into at most kPerSm tiles per SM whose largest tile
// leaves the block's threads the fewest rounds, among those whose tiles fit
// the shared memory a block may take; false when none fits, or the device
// cannot launch the cooperative grid.
static bool plan_run(const gs_fdtd_step_args *a, RunPlan *p) {
  const RunDevice d = run_device();
  if (!d.coop || d.sms <= 0 || a->oi != 0 || a->oj != 0) return false;
  const int64_t X = a->nx + 1, Y = a->ny + 1;
  const bool magnetic = a->hmx != NULL;
  const int blocks = d.sms * kPerSm;
  int64_t best = -1;
  for (int cx = 1; cx <= blocks && cx <= X; ++cx)
    for (int cy = 1; cx * cy <= blocks && cy <= Y; ++cy) {
      const int64_t tw = (X + cx - 1) / cx, th = (Y + cy - 1) / cy;
      if ((cx - 1) * tw >= X || (cy - 1) * th >= Y) continue; // no empty tile
      if (tile_bytes((int)tw, (int)th, magnetic) > (size_t)d.smem) continue;
      const int64_t rounds = (tw + kRunX - 1) / kRunX * ((th + kRunY - 1) / kRunY);
      const int64_t cost = rounds * 4096 + tw + th; // then the shorter edges
      if (best >= 0 && cost >= best) continue;
      best = cost;
      *p = RunPlan{cx, cy, (int)tw, (int)th, (unsigned)tile_bytes((int)tw, (int)th, magnetic)};
    }
  if (best < 0) return false;
  int resident = 0; // what the registers and shared memory really allow
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, run_kernel, kRunThreads, p->smem) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return resident * d.sms >= p->cx * p->cy;
}

} // namespace

// The columns form (kernels/fdtd_run_cols.cu) where it is asked for
// (GS_FDTD_RUN_FORM, GS_FDTD_RUN_COLUMNS) and takes the grid, else the tiles
// form.
extern "C" int gs_fdtd_run_fits_cuda(const gs_fdtd_step_args *a) {
  gs_run::ColsPlan c;
  if (gs_run::cols_plan(a, &c)) return c.cx * c.cy;
  RunPlan p;
  return plan_run(a, &p) ? p.cx * p.cy : 0;
}

extern "C" const char *gs_fdtd_run_form_cuda(const gs_fdtd_step_args *a) {
  gs_run::ColsPlan c;
  RunPlan p;
  if (gs_run::cols_plan(a, &c))
    return c.form == gs_run::kFormEz ? "columns, Ez in registers" : "columns, Ez and Hx in registers";
  return plan_run(a, &p) ? "tiles in shared memory" : "none";
}

extern "C" int gs_fdtd_run_cuda(const gs_fdtd_run_args *a, int64_t steps, void *stream) {
  if (steps <= 0) return 0;
  // The barrier's count assumes the blocks gs_fdtd_run_fits announced: refuse any other plan.
  if (!a->barrier) return (int)cudaErrorInvalidConfiguration;
  gs_run::ColsPlan c;
  if (gs_run::cols_plan(&a->set[0], &c)) {
    if (c.cx * c.cy != a->blocks) return (int)cudaErrorInvalidConfiguration;
    return (int)gs_run::cols_launch(a, c, steps, (cudaStream_t)stream);
  }
  RunPlan p;
  if (!plan_run(&a->set[0], &p) || p.cx * p.cy != a->blocks) return (int)cudaErrorInvalidConfiguration;
  return (int)gs_launch::coop(run_kernel, dim3((unsigned)(p.cx * p.cy)), dim3(kRunX, kRunY), p.smem,
                              (cudaStream_t)stream, *a, p, steps);
}

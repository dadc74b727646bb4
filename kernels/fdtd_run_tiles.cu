// The tiles form of the on-chip 2D FDTD run, its kernel and launch: several
// steps in one launch with the whole grid in shared memory (small grids on
// one rank). A step of a small grid is bound by latency, not
// by bytes: 2000 x 1000 takes 18.4 us a step as kernels from a CUDA graph,
// where the update itself needs a few. Here every block keeps one tile of
// the grid (Ez, Hx, Hy and the materials) in its shared memory for the whole
// launch, one block per SM, all resident at once (a cooperative launch), and
// a step costs the tiles' edges of Ez through L2, each tile waiting for its
// neighbours' only (swap_edges: tagged words, no grid-wide barrier):
//   - H of the tile, in place (a node's new H reads only its own old H), and
//     of the ghosts its Ez update reads (the left neighbour's Hy, the lower
//     one's Hx: recomputed here from the ghost Ez, so H is never exchanged);
//   - Ez of the tile, then the sources; the four edges of Ez out as tagged
//     words, the neighbours' in as soon as they are there.
// The node updates are fdtd_node.h's (gs_fdtd_hx_from, gs_fdtd_hy_from,
// gs_fdtd_e_from: the CPU twin's expressions), so the bits are those of the
// one-step launches (tests/test_fdtd_gpu.c). CPML psi: where H is free
// space and no two slabs of an axis meet (RunPlan::ghost_psi), a tile keeps
// its ghosts' psi of H (updated as their owners do) and, where its shared
// memory has room, its frame's psi (Tile::fpsi) for the launch; otherwise
// psi stays in global memory, read from the step's input set and written to
// its output set by the node's owner (a ghost's H reads it from L2, and the
// edge swap then fences), as the one-step kernels do.
// The CPML profiles sit in shared memory too (RunPlan::prof_at), and a
// frame node whose psi the tile holds takes a lean update in 32-bit
// indices (frame_h_kept, frame_e_kept: the frame's cost about 3-5 free
// nodes' in y and x slabs, against 5.7 with psi in global memory).
// The kernel's plan (how the grid is cut into tiles) is made on the host:
// kernels/fdtd_run.cu; what both sides share: fdtd_run_tiles.cuh.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "fdtd_run.cuh"
#include "fdtd_run_tiles.cuh"

#include <stdlib.h>

namespace gs_run {
namespace {

// This block's nodes [i0, i1) x [j0, j1) (nw x nh) and its shared arrays:
// (nw + 2) x (nh + 2) nodes with one ghost node on each side, row pitch w (row_pitch(nw));
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
  bool magnetic; // hmx and hmy held (some H node has magnetic coefficients)
  bool fpsi_on;  // the frame's psi held here (Tile::fpsi), not read and written in global memory a step
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
  // Nodes of each shared array: the tile's own rows (a short tile leaves
  // room for its frame's psi) with a ghost row on each side.
  __device__ int n() const {
    return w * (nh + 2);
  }
  __device__ float *hx() const {
    return ez() + n();
  }
  __device__ float *hy() const {
    return ez() + 2 * n();
  }
  __device__ uint8_t *mat() const {
    return reinterpret_cast<uint8_t *>(ez() + 3 * n());
  }
  __device__ uint8_t *hmx() const {
    return mat() + n();
  }
  __device__ uint8_t *hmy() const {
    return mat() + 2 * n();
  }
  // The CPML slab of each local column (x slabs, index li + 1) and row (y
  // slabs, index lj + 1): its index in the step's slab list, kNoSlab, or
  // kSlabs where several overlap (tiny grids: the general update then).
  __device__ uint8_t *xs() const {
    return mat() + (magnetic ? 3 : 1) * n();
  }
  __device__ uint8_t *ys() const {
    return xs() + w;
  }
  // The psi of H of the ghosts (launches with RunPlan::ghost_psi): the
  // ghost column's in its x slab (for Hy), the ghost row's in its y slab
  // (Hx), loaded once and then updated by the tile as their owners do, so
  // no tile reads another's psi during the launch.
  __device__ float *gpx() const {
    const uintptr_t at = reinterpret_cast<uintptr_t>(ys() + nh + 2);
    return reinterpret_cast<float *>((at + 3) & ~(uintptr_t)3);
  }
  __device__ float *gpy() const {
    return gpx() + nh + 2;
  }
  // The psi of the frame's nodes where the block's shared memory holds
  // them (fpsi_on): four arrays of frame_nodes() floats, frame node k's psi
  // of H in its x slab, of H in its y slab, of E in its x slab, of E in its
  // y slab; loaded at the launch's start, stored at its end. In global
  // memory a frame node's psi cost a trip to L2 in each phase, and a tile's
  // threads take their frame nodes in turn (in global memory: 6 free
  // rounds per 1024 nodes of the y slabs).
  __device__ float *fpsi() const {
    return gpy() + w;
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
  // columns left and right of it in the rows between (the quotients by the
  // tile's multipliers d, FrameDiv: an integer division took about 20
  // instructions, three a frame node and phase).
  __device__ void frame_node(int k, int &li, int &lj, const uint32_t *d) const {
    const int below = fy0 * nw, above = (nh - fy1) * nw, sides = fx0 + nw - fx1;
    if (k < below + above) {
      const int m = k < below ? k : k - below, row = div_by(m, nw, d[0]);
      lj = k < below ? row : fy1 + row;
      li = m - row * nw;
      return;
    }
    k -= below + above;
    const int row = div_by(k, sides, d[1]);
    lj = fy0 + row;
    const int c = k - row * sides;
    li = c < fx0 ? c : fx1 + (c - fx0);
  }
  // k / n for 0 <= k and k n < 2^32 through m = ceil(2^32 / n) (frame_div;
  // m = 0 for n = 1): the floor of k m / 2^32 errs by less than k / 2^32,
  // under 1 / n, so it lands on the quotient.
  __device__ static int div_by(int k, int n, uint32_t m) {
    return n == 1 ? k : (int)(((uint64_t)(uint32_t)k * m) >> 32);
  }
};

// ceil(2^32 / n) for 1 < n (Tile::div_by), 0 for n <= 1.
__device__ __forceinline__ uint32_t frame_div(int n) {
  return n <= 1 ? 0u : (uint32_t)((0xFFFFFFFFull + (uint64_t)n) / (uint64_t)n);
}

// The tile's frame divisors (Tile::frame_node: frame_div of its width and
// of its side columns' count), two words free, each slab's base
// (slab_prof_at), then the CPML profiles (RunPlan::prof_at).
__device__ __forceinline__ uint32_t *frame_divs(const RunPlan &p) {
  return reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(run_smem) + p.prof_at);
}

// Slab q's profiles of H (e 0: bh, ah, kh) or E (e 1: be, ae, ke) at its cell c.
__device__ __forceinline__ float4 slab_prof(const RunPlan &p, int q, int64_t c, int e) {
  return reinterpret_cast<const float4 *>(frame_divs(p) + kProfHead)[p.prof_off[q] + 2 * (int)c + e];
}

// Slab q's profiles at its node `along` (index along its axis) by the
// tile's per-slab base (load_profiles: prof_off[q] - 2 lo), 32-bit.
__device__ __forceinline__ float4 slab_prof_at(const RunPlan &p, uint8_t q, int along, int e) {
  const int *base = reinterpret_cast<const int *>(frame_divs(p) + 4);
  return reinterpret_cast<const float4 *>(frame_divs(p) + kProfHead)[base[q] + 2 * along + e];
}

__device__ __forceinline__ int clamp_local(int64_t v, int64_t lo, int64_t hi) {
  return (int)(v < lo ? lo : v > hi ? hi : v);
}

__device__ Tile tile_of_block(const gs_fdtd_step_args &a, const RunPlan &p, bool magnetic) {
  Tile t;
  const int bx = (int)blockIdx.x % p.x.n, by = (int)blockIdx.x / p.x.n;
  t.i0 = cut_start(p.x, bx);
  t.j0 = cut_start(p.y, by);
  t.nw = cut_width(p.x, bx, a.nx + 1);
  t.nh = cut_width(p.y, by, a.ny + 1);
  t.w = row_pitch(t.nw); // (its own width: a narrow tile leaves room for its frame's psi)
  const gs_fdtd_region f = slab_free_box(a);
  t.fx0 = clamp_local(f.i0 - t.i0, 0, t.nw);
  t.fx1 = clamp_local(f.i1 - t.i0, t.fx0, t.nw);
  t.fy0 = clamp_local(f.j0 - t.j0, 0, t.nh);
  t.fy1 = clamp_local(f.j1 - t.j0, t.fy0, t.nh);
  if (t.fx0 == t.fx1 || t.fy0 == t.fy1) t.fx0 = t.fx1 = t.fy0 = t.fy1 = 0; // no node of the tile is free
  t.magnetic = magnetic;
  t.fpsi_on = false;
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

// each_of starting at the block's warp `warps_from_end` from the end (1:
// its last warp), then on from warp 0. each_node gives a tile's rows to the warps
// from warp 0 on, so its last warps have the fewest nodes (in a tile of
// fewer than kRunY rows, none): the ghosts' H goes there, not after the
// first warps' rows (at 250 x 250, tiles of 31 x 18: the free box's H, the
// ghost column's and the ghost row's would be three rounds of warp 0's, in
// a step bound by latency).
template <typename F> __device__ __forceinline__ void each_of_from_end(int warps_from_end, int64_t n, F f) {
  constexpr int threads = kRunX * kRunY;
  const int me = ((int)(threadIdx.y * kRunX + threadIdx.x) + warps_from_end * kRunX) % threads;
  for (int64_t k = me; k < n; k += threads)
    f(k);
}

// The fields and materials of the tile and its ghost ring from the arrays.
__device__ void load_tile(const gs_fdtd_step_args &a, const Tile &t) {
  // (the materials in use only: the profiles may take the table's end, RunPlan::prof_at)
  each_of(a.nmat > 0 && a.nmat < GS_FDTD_MAX_MATERIALS ? a.nmat : GS_FDTD_MAX_MATERIALS, [&](int64_t k) {
    const gs_fdtd_coef c = a.coef[k];
    t.coef()[k] = make_float4(c.ca, c.cbx, c.cby, c.src);
  });
  const int w = t.nw + 2, h = t.nh + 2;
  each_of((int64_t)w * h, [&](int64_t k) {
    const int li = (int)(k % w) - 1, lj = (int)(k / w) - 1;
    const int64_t i = t.i0 + li, j = t.j0 + lj;
    const int s = t.at(li, lj);
    // (not the four corner ghosts: no update reads them, and a diagonal
    // neighbour, which this tile never waits for, may already be storing
    // a two-step launch's end into these buffers)
    const bool corner = (li < 0 || li == t.nw) && (lj < 0 || lj == t.nh);
    const bool in = i >= 0 && i <= a.nx && j >= 0 && j <= a.ny && !corner;
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

// The receivers in this tile: Ez, Hx, Hy into slot `slot` of the ring of samples.
__device__ void sample_tile(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t, int slot) {
  float *out = r.rx_out + (int64_t)slot * 3 * r.nrx;
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

// The ghosts' psi of H (Tile::gpx, gpy) from a's inputs.
__device__ void load_ghost_psi(const gs_fdtd_step_args &a, const Tile &t) {
  each_of((int64_t)t.nh + t.nw, [&](int64_t k) {
    const bool col = k < t.nh;
    const int m = col ? (int)k : (int)(k - t.nh);
    const uint8_t q = col ? t.xs()[0] : t.ys()[0];
    float v = 0.f;
    if ((col ? t.i0 : t.j0) > 0 && q < kSlabs) {
      const gs_fdtd_slab &p = a.slab[q];
      const int64_t along = col ? t.i0 - 1 : t.j0 - 1, other = col ? t.j0 + m : t.i0 + m;
      if (other >= p.o0 && other < p.o1) v = __ldcg(p.psi_h_in + gs_fdtd_psi_word(&p, along, other));
    }
    (col ? t.gpx() : t.gpy())[m] = v;
  });
}

// f(psi of H, psi of E, slab, index w in its arrays, H updated, E updated)
// for each slab psi of each frame node the tile holds (Tile::fpsi): the
// steps update psi of H where the node has that H (x slab: Hy, i < nx; y
// slab: Hx, j < ny), of E at interior nodes.
template <typename F>
__device__ __forceinline__ void each_frame_psi(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, F f) {
  const int nf = t.frame_nodes();
  each_of(nf, [&](int64_t k) {
    int li, lj;
    t.frame_node((int)k, li, lj, frame_divs(pl));
    const int64_t i = t.i0 + li, j = t.j0 + lj;
    const bool e = i >= 1 && i < a.nx && j >= 1 && j < a.ny;
    for (int c = 0; c < 2; ++c) {
      const uint8_t q = c == 0 ? t.xs()[li + 1] : t.ys()[lj + 1];
      if (q >= kSlabs) continue;
      const gs_fdtd_slab &p = a.slab[q];
      const int64_t along = c == 0 ? i : j, other = c == 0 ? j : i;
      if (other < p.o0 || other >= p.o1) continue;
      f(t.fpsi() + c * nf + k, t.fpsi() + (2 + c) * nf + k, p, gs_fdtd_psi_word(&p, along, other),
        c == 0 ? i < a.nx : j < a.ny, e);
    }
  });
}

// Whether the block's shared memory holds the frame's psi after the tile's
// arrays (Tile::fpsi, RunPlan::psi_end).
__device__ bool frame_psi_fits(const Tile &t, const RunPlan &p) {
  const char *end = reinterpret_cast<const char *>(t.fpsi() + 4 * (int64_t)t.frame_nodes());
  return end - reinterpret_cast<const char *>(run_smem) <= (ptrdiff_t)p.psi_end;
}

// Whether every slab's extent across its axis holds the tile's (the
// frame's updates with psi on chip then test no extent: frame_h_kept).
__device__ bool slabs_span(const gs_fdtd_step_args &a, const Tile &t) {
  for (int q = 0; q < a.nslab; ++q) {
    const gs_fdtd_slab &p = a.slab[q];
    const int64_t lo = p.dir == 0 ? t.j0 : t.i0, hi = lo + (p.dir == 0 ? t.nh : t.nw);
    if (p.o0 > lo || p.o1 < hi) return false;
  }
  return true;
}

// The frame divisors and the profiles of a's slabs into shared memory (RunPlan::prof_at).
__device__ void load_profiles(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &p) {
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    frame_divs(p)[0] = frame_div(t.nw);
    frame_divs(p)[1] = frame_div(t.fx0 + t.nw - t.fx1);
    for (int q = 0; q < a.nslab; ++q)
      reinterpret_cast<int *>(frame_divs(p) + 4)[q] = p.prof_off[q] - 2 * (int)a.slab[q].lo;
  }
  float4 *prof = reinterpret_cast<float4 *>(frame_divs(p) + kProfHead);
  for (int q = 0; q < a.nslab; ++q) {
    const gs_fdtd_slab &s = a.slab[q];
    each_of(s.hi - s.lo, [&](int64_t c) {
      prof[p.prof_off[q] + 2 * c] = make_float4(s.bh[c], s.ah[c], s.kh[c], 0.f);
      prof[p.prof_off[q] + 2 * c + 1] = make_float4(s.be[c], s.ae[c], s.ke[c], 0.f);
    });
  }
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
// own: the node's owner (stores psi), else a ghost (reads it); kept: the
// node's psi held on chip (Tile::gpx, gpy, fpsi; read and updated there),
// or NULL: in global memory (a ghost's from L2).
__device__ __forceinline__ float slab_h(const RunPlan &pl, int sq, const gs_fdtd_slab &p, int64_t along, int64_t other,
                                        float h, float cb, float d, bool own, float *kept) {
  if (other < p.o0 || other >= p.o1) return h;
  const int64_t q = along - p.lo, w = gs_fdtd_psi_word(&p, along, other);
  const float4 f = slab_prof(pl, sq, q, 0); // (bh, ah, kh)
  const float psi = kept ? *kept : own ? p.psi_h_in[w] : __ldcg(p.psi_h_in + w);
  if (kept)
    *kept = f.x * psi + f.y * d;
  else if (own)
    p.psi_h_out[w] = f.x * psi + f.y * d;
  return p.dir == 1 ? h - cb * (f.z * d + psi) : h + cb * (f.z * d + psi);
}

// The CPML correction of slab p (place sq in the list) on a new Ez
// (gs_fdtd_e_from's, one slab), its psi in global memory; c: the node's
// (ca, cbx, cby, src). (With psi on chip: slab_e_kept.)
__device__ __forceinline__ float slab_e(const RunPlan &pl, int sq, const gs_fdtd_slab &p, int64_t i, int64_t j,
                                        float ez, float4 c, float dhy, float dhx) {
  const int64_t along = p.dir == 0 ? i : j, other = p.dir == 0 ? j : i;
  if (other < p.o0 || other >= p.o1) return ez;
  const int64_t q = along - p.lo;
  const float4 f = slab_prof(pl, sq, q, 1); // (be, ae, ke)
  const float d = p.dir == 0 ? dhy : dhx;
  const int64_t w = gs_fdtd_psi_word(&p, along, other);
  const float psi = p.psi_e_in[w];
  p.psi_e_out[w] = f.x * psi + f.y * d;
  return p.dir == 0 ? ez + c.y * (f.z * d + psi) : ez - c.z * (f.z * d + psi);
}

// New H of a frame node whose psi is in global memory (or of a ghost: own
// 0; kx, ky: its psi of H in its x and y slab held on chip, Tile::gpx and
// gpy, or NULL) in free-space H through the slab maps: at most one slab of
// each axis, found without searching.
__device__ __forceinline__ void frame_h(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, int ns, int li,
                                        int lj, bool hx, bool hy, int own, float *kx, float *ky) {
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
    t.hx()[s] = sy == kNoSlab ? h : slab_h(pl, sy, a.slab[sy], j, i, h, a.chy, d, own, ky);
  }
  if (hy) {
    const float d = t.ez()[s + 1] - e;
    const float h = t.hy()[s] + a.chx * d;
    t.hy()[s] = sx == kNoSlab ? h : slab_h(pl, sx, a.slab[sx], i, j, h, a.chx, d, own, kx);
  }
}

// New Ez of an interior frame node whose psi is in global memory through
// the slab maps, the two axes' slabs in the order of the slab list (as
// gs_fdtd_e_from loops).
__device__ __forceinline__ void frame_e(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, int ns, int li,
                                        int lj) {
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
  if (first != kNoSlab) ez = slab_e(pl, first, a.slab[first], i, j, ez, c, dhy, dhx);
  if (second != kNoSlab) ez = slab_e(pl, second, a.slab[second], i, j, ez, c, dhy, dhx);
  t.ez()[s] = ez;
}

// A frame node's new H with its psi held on chip (Tile::fpsi_on: free-space
// H, one slab of an axis at a node, every slab across the whole tile): the
// expressions of frame_h and slab_h in 32-bit indices, the profiles found
// by the tile's per-slab base, no extent test (with 64-bit indices and
// extent tests the frame's H and E took about 240 instructions a warp
// together, against 37 for a free node). kx, ky: its psi of H in its x
// and y slab.
__device__ __forceinline__ void frame_h_kept(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, int li,
                                             int lj, bool hx, bool hy, float *kx, float *ky) {
  const uint8_t sx = t.xs()[li + 1], sy = t.ys()[lj + 1];
  const int s = t.at(li, lj);
  const float e = t.ez()[s];
  if (hx) {
    const float d = t.ez()[s + t.w] - e;
    float h = t.hx()[s] - a.chy * d;
    if (sy != kNoSlab) {
      const float4 f = slab_prof_at(pl, sy, t.j0 + lj, 0);
      const float psi = *ky;
      *ky = f.x * psi + f.y * d;
      h = h - a.chy * (f.z * d + psi);
    }
    t.hx()[s] = h;
  }
  if (hy) {
    const float d = t.ez()[s + 1] - e;
    float h = t.hy()[s] + a.chx * d;
    if (sx != kNoSlab) {
      const float4 f = slab_prof_at(pl, sx, t.i0 + li, 0);
      const float psi = *kx;
      *kx = f.x * psi + f.y * d;
      h = h + a.chx * (f.z * d + psi);
    }
    t.hy()[s] = h;
  }
}

// The x (dir 0) or y slab's correction of a new Ez with its psi of E held
// on chip (frame_e_kept; slab_e's expressions): q the slab, along the node's
// index along its axis, d its difference of H, c its coefficients.
__device__ __forceinline__ float slab_e_kept(const RunPlan &pl, uint8_t q, int along, int dir, float ez, float4 c,
                                             float d, float *kept) {
  const float4 f = slab_prof_at(pl, q, along, 1);
  const float psi = *kept;
  *kept = f.x * psi + f.y * d;
  return dir == 0 ? ez + c.y * (f.z * d + psi) : ez - c.z * (f.z * d + psi);
}

// A frame node's new Ez with its psi held on chip (as frame_h_kept): the
// two axes' slabs in the slab list's order (frame_e's).
__device__ __forceinline__ void frame_e_kept(const Tile &t, const RunPlan &pl, int li, int lj, float *kx, float *ky) {
  const uint8_t sx = t.xs()[li + 1], sy = t.ys()[lj + 1];
  const int s = t.at(li, lj);
  const float dhy = t.hy()[s] - t.hy()[s - 1];
  const float dhx = t.hx()[s] - t.hx()[s - t.w];
  const float4 c = t.coef()[t.mat()[s]];
  float ez = c.x * t.ez()[s] + (c.y * dhy - c.z * dhx);
  if (sx < sy) { // (kNoSlab is the largest: an x slab first, then the y slab if any)
    ez = slab_e_kept(pl, sx, t.i0 + li, 0, ez, c, dhy, kx);
    if (sy != kNoSlab) ez = slab_e_kept(pl, sy, t.j0 + lj, 1, ez, c, dhx, ky);
  } else if (sy != kNoSlab) {
    ez = slab_e_kept(pl, sy, t.j0 + lj, 1, ez, c, dhx, ky);
    if (sx != kNoSlab) ez = slab_e_kept(pl, sx, t.i0 + li, 0, ez, c, dhy, kx);
  }
  t.ez()[s] = ez;
}

// New H of the tile, and of the ghosts its Ez update reads (the left
// neighbour's Hy, the lower one's Hx: the bits their owners compute, psi
// read, not written), so no exchange of H is needed. Nodes in no slab with
// free-space H take fdtd_node.h's expressions with no slab and no magnetic
// coefficients written out (the same bits, a fraction of the instructions).
// ghost_psi: the ghosts' psi kept by the tile (RunPlan::ghost_psi).
__device__ void h_phase(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, int ns) {
  const bool ghost_psi = pl.ghost_psi;
  const int hx_rows = (int)min((int64_t)t.nh, a.ny - t.j0), hy_cols = (int)min((int64_t)t.nw, a.nx - t.i0);
  const float chx = a.chx, chy = a.chy;
  if (t.magnetic) { // magnetic H: every node through fdtd_node.h
    each_node(0, t.nw, 0, t.nh, [&](int li, int lj) { h_node(a, t, ns, li, lj, lj < hx_rows, li < hy_cols, 1); });
  } else {
    // The frame's nodes (CPML: psi on chip or in global memory) spread over all the
    // block's threads, so their loads overlap; then the free box.
    const int nf = t.frame_nodes();
    if (t.fpsi_on) // (frame node k's four psi, nf apart)
      each_of(nf, [&](int64_t k) {
        int li, lj;
        t.frame_node((int)k, li, lj, frame_divs(pl));
        frame_h_kept(a, t, pl, li, lj, lj < hx_rows, li < hy_cols, t.fpsi() + k, t.fpsi() + nf + k);
      });
    else
      each_of(nf, [&](int64_t k) {
        int li, lj;
        t.frame_node((int)k, li, lj, frame_divs(pl));
        frame_h(a, t, pl, ns, li, lj, lj < hx_rows, li < hy_cols, 1, NULL, NULL);
      });
    each_node(t.fx0, t.fx1, t.fy0, t.fy1, [&](int li, int lj) {
      const int s = t.at(li, lj);
      const float e = t.ez()[s];
      if (lj < hx_rows) t.hx()[s] = t.hx()[s] - chy * (t.ez()[s + t.w] - e);
      if (li < hy_cols) t.hy()[s] = t.hy()[s] + chx * (t.ez()[s + 1] - e);
    });
  }
  // (the ghost column from the last warp on, the ghost row from the one before it)
  if (t.magnetic) {
    if (t.i0 > 0) each_of_from_end(1, t.nh, [&](int64_t k) { h_node(a, t, ns, -1, (int)k, false, true, 0); });
    if (t.j0 > 0) each_of_from_end(2, t.nw, [&](int64_t k) { h_node(a, t, ns, (int)k, -1, true, false, 0); });
  } else {
    if (t.i0 > 0)
      each_of_from_end(1, t.nh, [&](int64_t k) {
        frame_h(a, t, pl, ns, -1, (int)k, false, true, 0, ghost_psi ? t.gpx() + k : NULL, NULL);
      });
    if (t.j0 > 0)
      each_of_from_end(2, t.nw, [&](int64_t k) {
        frame_h(a, t, pl, ns, (int)k, -1, true, false, 0, NULL, ghost_psi ? t.gpy() + k : NULL);
      });
  }
}

// New Ez of the interior nodes: the frame's through fdtd_node.h, then the
// free box's written out (the same expressions with no slab).
__device__ void e_phase(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &pl, int ns) {
  // the interior nodes [ex0, ex1) x [ey0, ey1) of the tile (the PEC walls keep Ez = 0)
  const int ex0 = clamp_local(1 - t.i0, 0, t.nw), ex1 = clamp_local(a.nx - t.i0, 0, t.nw);
  const int ey0 = clamp_local(1 - t.j0, 0, t.nh), ey1 = clamp_local(a.ny - t.j0, 0, t.nh);
  const int nf = t.frame_nodes();
  // (one loop for each place of psi: with a choice in the loop, ptxas spilled)
  if (t.fpsi_on)
    each_of(nf, [&](int64_t k) {
      int li, lj;
      t.frame_node((int)k, li, lj, frame_divs(pl));
      if (li >= ex0 && li < ex1 && lj >= ey0 && lj < ey1)
        frame_e_kept(t, pl, li, lj, t.fpsi() + 2 * nf + k, t.fpsi() + 3 * nf + k);
    });
  else
    each_of(nf, [&](int64_t k) {
      int li, lj;
      t.frame_node((int)k, li, lj, frame_divs(pl));
      if (li >= ex0 && li < ex1 && lj >= ey0 && lj < ey1) frame_e(a, t, pl, ns, li, lj);
    });
  each_node(max(t.fx0, ex0), min(t.fx1, ex1), max(t.fy0, ey0), min(t.fy1, ey1), [&](int li, int lj) {
    const int s = t.at(li, lj);
    const float4 c = t.coef()[t.mat()[s]];
    t.ez()[s] = c.x * t.ez()[s] + (c.y * (t.hy()[s] - t.hy()[s - 1]) - c.z * (t.hx()[s] - t.hx()[s - t.w]));
  });
}

// The tiles' edges of Ez go from tile to tile through tagged words, not
// through a grid barrier: each edge node's value with the step's sequence
// number in one 64-bit word (stored and loaded whole, so a word read with
// the expected tag holds that step's value), and a tile waits only for its
// neighbours' words. The grid barrier's fence, arrival and poll were three
// trips to L2 on every step's path (about 6,500 cycles of a 2000 x 1000 step
// with the fetch after it), and every tile waited for the
// slowest one of the grid. Words of a tile: its left column, right column
// (p.th each), bottom row, top row (p.tw each); two sets by the tag's parity,
// so a tile writing step s + 2's words cannot overwrite step s's before its
// neighbours read them (they wrote step s + 1's first, which it read).
__device__ __forceinline__ unsigned long long *edge_words(const gs_fdtd_run_args &r, const RunPlan &p, int block,
                                                          unsigned tag) {
  const int64_t per_tile = 2 * ((int64_t)p.tw + p.th);
  return reinterpret_cast<unsigned long long *>(r.barrier) + kEdgeWordsAt +
         ((int64_t)(tag & 1) * p.blocks() + block) * per_tile;
}

__device__ __forceinline__ void put_word(unsigned long long *w, float v, unsigned tag) {
  const unsigned long long word = (unsigned long long)tag << 32 | __float_as_uint(v);
#ifdef GS_EMULATE
  *w = word;
#else
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(w), "l"(word) : "memory");
#endif
}

__device__ __forceinline__ float get_word(const unsigned long long *w, unsigned tag) {
  unsigned long long word;
  for (;;) {
#ifdef GS_EMULATE
    word = *w;
    if ((unsigned)(word >> 32) == tag) break;
    gs_emu_spin();
#else
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(w) : "memory");
    if ((unsigned)(word >> 32) == tag) break;
#endif
  }
#ifdef GS_EMULATE
  gs_emu_spun();
#endif
  return __uint_as_float((unsigned)word);
}

// Orders this thread's view of the other tiles' psi (ghost H reads what the
// owner stored) with the edge words: before a tile's words go out, after
// its neighbours' came in (tiles the CPML reaches only; others read no psi).
__device__ __forceinline__ void psi_fence() {
#ifndef GS_EMULATE
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#endif
}

// f(li, lj, word) for the tile's edge nodes on the sides that have a
// neighbour (ghosts 0: the tile's own nodes and words) or its ghosts there
// and the neighbours' words (ghosts 1), one node a thread where they fit.
template <typename F>
__device__ __forceinline__ void edge_nodes(const gs_fdtd_run_args &r, const RunPlan &p, const Tile &t, unsigned tag,
                                           bool ghosts, F f) {
  const gs_fdtd_step_args &a = r.set[0];
  const bool lo_x = t.i0 > 0, hi_x = t.i0 + t.nw <= a.nx, lo_y = t.j0 > 0, hi_y = t.j0 + t.nh <= a.ny;
  const int b = (int)blockIdx.x, o = ghosts ? 1 : 0;
  each_of(2 * ((int64_t)t.nh + t.nw), [&](int64_t q) {
    const int k = (int)q;
    if (k < t.nh) {
      if (lo_x) f(-o, k, ghosts ? edge_words(r, p, b - 1, tag) + p.th + k : edge_words(r, p, b, tag) + k);
    } else if (k < 2 * t.nh) {
      const int m = k - t.nh;
      if (hi_x) f(t.nw - 1 + o, m, ghosts ? edge_words(r, p, b + 1, tag) + m : edge_words(r, p, b, tag) + p.th + m);
    } else if (k < 2 * t.nh + t.nw) {
      const int m = k - 2 * t.nh;
      if (lo_y)
        f(m, -o,
          ghosts ? edge_words(r, p, b - p.x.n, tag) + 2 * p.th + p.tw + m : edge_words(r, p, b, tag) + 2 * p.th + m);
    } else {
      const int m = k - 2 * t.nh - t.nw;
      if (hi_y)
        f(m, t.nh - 1 + o,
          ghosts ? edge_words(r, p, b + p.x.n, tag) + 2 * p.th + m : edge_words(r, p, b, tag) + 2 * p.th + p.tw + m);
    }
  });
}

// The step's edges out (tag: the step's sequence number), then the
// neighbours' into the ghosts.
__device__ __forceinline__ void swap_edges(const gs_fdtd_run_args &r, const RunPlan &p, const Tile &t, unsigned tag,
                                           bool fence) {
  if (fence) psi_fence();
  edge_nodes(r, p, t, tag, false,
             [&](int li, int lj, unsigned long long *w) { put_word(w, t.ez()[t.at(li, lj)], tag); });
  edge_nodes(r, p, t, tag, true,
             [&](int li, int lj, unsigned long long *w) { t.ez()[t.at(li, lj)] = get_word(w, tag); });
  if (fence) psi_fence();
  __syncthreads();
}

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

// A diagnostic build (-DGS_FDTD_RUN_CLOCK, scripts/diag/onchip_probes.sh's
// clock part) times each tile's phases by its thread 0's clock64 and prints them
// for the first launch of 200 steps or more: the tiles' work against their
// wait for the neighbours' edges, without a profiler's slower clock. The
// sums stay in registers until the launch's end, not a read-modify-write
// in global memory a phase (which overstates the phases by 1,500-3,000
// cycles a step). This build spills more than the plain kernel (254 / 424
// bytes against 10 / 28), so read
// its cycles as relative.
// Probe builds (-DGS_FDTD_RUN_PROBES, or the clock's; scripts/diag/onchip_probes.sh's
// probe part) also have run_kernel<1..3>, which leave parts of a step out so
// that wall times weigh them (GS_FDTD_RUN_PROBE picks one; their bits are
// wrong; run_kernel<0> is the plain kernel):
//   1: no edge swap (the phases and block barriers alone);
//   2: the swap's stores and one load a word without waiting for its tag
//      (its traffic, not its wait; without the psi fence of tiles that
//      read their neighbours' psi from L2);
//   3: no H and E phases (the swap's chain alone).
#if defined(GS_FDTD_RUN_CLOCK) && !defined(GS_FDTD_RUN_PROBES)
#define GS_FDTD_RUN_PROBES
#endif
#ifdef GS_FDTD_RUN_PROBES
// The swap's traffic without its wait (GS_FDTD_RUN_PROBE=2): the edges
// stored, each neighbour's word loaded once, whatever its tag.
__device__ void probe_swap(const gs_fdtd_run_args &r, const RunPlan &p, const Tile &t, unsigned tag) {
  edge_nodes(r, p, t, tag, false,
             [&](int li, int lj, unsigned long long *w) { put_word(w, t.ez()[t.at(li, lj)], tag); });
  edge_nodes(r, p, t, tag, true, [&](int li, int lj, unsigned long long *w) {
    unsigned long long word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(w) : "memory");
    t.ez()[t.at(li, lj)] = __uint_as_float((unsigned)word);
  });
  __syncthreads();
}
#endif
#ifdef GS_FDTD_RUN_CLOCK
extern "C" __host__ __device__ int printf(const char *, ...); // (device printf; kernels include no stdio)
#define RUN_CLOCK_PARAM , long long *clk
#define RUN_CLOCK_ARG , clk
#define RUN_TICK(slot, since)                                                                                          \
  do {                                                                                                                 \
    const long long now_ = clock64();                                                                                  \
    clk[slot] += now_ - (since);                                                                                       \
    since = now_;                                                                                                      \
  } while (0)
#define RUN_CLOCK_START(name) long long name = clock64()

#else
#define RUN_CLOCK_PARAM
#define RUN_CLOCK_ARG
#define RUN_TICK(slot, since) ((void)0)
#define RUN_CLOCK_START(name) ((void)0)
#endif

// One step with buffer set a (a reference to a kernel parameter, so its
// members stay parameter loads; one copy of the step for both sets, the
// set picked by the step's parity, has no spills and 40 % less code and
// is 0.2 us faster at 250 x 250, but 0.3-0.5 us slower from 1000 x 500
// up); slot: the receivers' slot in their ring; last: no ghosts needed after
// it; tag: the step's sequence number (swap_edges), fence: the tile reads
// or writes psi a neighbour's H needs. The source's value is loaded first,
// so its latency passes during the update.
template <int Probe>
__device__ __forceinline__ void run_step(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const Tile &t,
                                         const Points &pt, const RunPlan &p, int ns, int64_t step, int slot, bool last,
                                         unsigned tag RUN_CLOCK_PARAM) {
  const int k = (int)(threadIdx.y * kRunX + threadIdx.x);
  const float sv = pt.src >= 0 ? r.src_val[step * r.src_stride + k] : 0.f;
  if (pt.any_rx) {
    if (r.nrx > kRunThreads) {
      sample_tile(r, a, t, slot);
    } else if (pt.rx >= 0) {
      float *out = r.rx_out + ((int64_t)slot * r.nrx + k) * 3;
      out[0] = t.ez()[pt.rx];
      out[1] = t.hx()[pt.rx];
      out[2] = t.hy()[pt.rx];
    }
    __syncthreads(); // the samples read what the H update writes
  }
  RUN_CLOCK_START(since);
  if (Probe != 3) {
    h_phase(a, t, p, ns);
    __syncthreads();
    RUN_TICK(0, since);
    e_phase(a, t, p, ns);
    __syncthreads();
  }
  if (pt.any_src) {
    if (r.nsrc > kRunThreads)
      inject_tile(r, a, t, step);
    else if (pt.src >= 0)
      t.ez()[pt.src] = t.ez()[pt.src] - sv; // distinct nodes (checked by the parser)
    __syncthreads();
  }
  RUN_TICK(1, since);
  if (last) return;
#ifdef GS_FDTD_RUN_PROBES
  if (Probe == 1 || Probe == 2) {
    if (Probe == 2) probe_swap(r, p, t, tag);
    RUN_TICK(2, since);
    return;
  }
#endif
  swap_edges(r, p, t, tag, ns > 0 && !p.ghost_psi);
  RUN_TICK(2, since);
}

#ifdef GS_FDTD_RUN_CLOCK
__device__ int run_clock_shown[4096];
__device__ void print_clock(const gs_fdtd_run_args &r, int probe, const Tile &t, int64_t steps, const long long *clk) {
  if (threadIdx.x != 0 || threadIdx.y != 0 || blockIdx.x >= 4096) return;
  const int b = (int)blockIdx.x;
  if (steps >= 200 && !run_clock_shown[b]) {
    run_clock_shown[b] = 1;
    printf("clock tile %d at %d,%d: %d x %d nodes, frame %d, fpsi %d, probe %d: h %lld e %lld swap %lld cycles a "
           "step (t0 %lld)\n",
           b, t.i0, t.j0, t.nw, t.nh, t.frame_nodes(), (int)t.fpsi_on, probe, clk[0] / steps, clk[1] / steps,
           clk[2] / (steps - 1), (long long)r.t0);
  }
}
#endif

// The tile's fields, and its frame's psi held on chip, to a's outputs.
__device__ void store_launch(const gs_fdtd_step_args &a, const Tile &t, const RunPlan &p) {
  store_tile(a, t);
  if (t.fpsi_on)
    each_frame_psi(a, t, p,
                   [&](const float *h, const float *e, const gs_fdtd_slab &q, int64_t w, bool h_new, bool e_new) {
                     if (h_new) q.psi_h_out[w] = *h;
                     if (e_new) q.psi_e_out[w] = *e;
                   });
}

template <int Probe>
__global__ void __launch_bounds__(kRunThreads, kPerSm)
    run_kernel(const gs_fdtd_run_args r, const RunPlan p, int64_t steps) {
  Tile t = tile_of_block(r.set[0], p, r.set[0].hmx != NULL);
  const gs_fdtd_region box = {t.i0, t.i0 + t.nw, t.j0, t.j0 + t.nh};
  const int ns = gs_fdtd_slabs_reach(&r.set[0], box) ? r.set[0].nslab : 0; // tiles away from the CPML skip its checks
  t.fpsi_on = p.ghost_psi && ns > 0 && frame_psi_fits(t, p) && slabs_span(r.set[0], t);
  load_tile(r.set[0], t);
  map_slabs(r.set[0], t);
  load_profiles(r.set[0], t, p);
  const Points pt = points_of_tile(r, t); // (its barriers end the load too)
  if (p.ghost_psi) {
    load_ghost_psi(r.set[0], t);
    if (t.fpsi_on)
      each_frame_psi(r.set[0], t, p, [&](float *h, float *e, const gs_fdtd_slab &q, int64_t w, bool, bool) {
        *h = q.psi_h_in[w];
        *e = q.psi_e_in[w];
      });
    __syncthreads();
  }
  const uint64_t done = r.barrier_base / gridDim.x; // the steps that swapped edges in earlier launches
#ifdef GS_FDTD_RUN_CLOCK
  long long clk[3] = {0, 0, 0};
#endif
  // The receivers' slot, (t0 + s) % rx_slots, counted on rather than a 64-bit remainder a
  // step (a software division on the receiving thread's path; no change in time measured)
  int slot = r.rx_slots > 0 ? (int)(r.t0 % r.rx_slots) : 0;
  for (int64_t s = 0; s < steps; ++s) {
    const unsigned tag = (unsigned)(done + (uint64_t)s + 1); // (wraps after 2^32 steps: only the last two matter)
    if (s % 2 == 0)
      run_step<Probe>(r, r.set[0], t, pt, p, ns, r.t0 + s, slot, s + 1 == steps, tag RUN_CLOCK_ARG);
    else
      run_step<Probe>(r, r.set[1], t, pt, p, ns, r.t0 + s, slot, s + 1 == steps, tag RUN_CLOCK_ARG);
    if (r.rx_slots > 0) slot = slot + 1 == r.rx_slots ? 0 : slot + 1;
  }
  if ((steps - 1) % 2 == 0)
    store_launch(r.set[0], t, p);
  else
    store_launch(r.set[1], t, p);
#ifdef GS_FDTD_RUN_CLOCK
  print_clock(r, Probe, t, steps, clk);
#endif
}

} // namespace

// Every instance of run_kernel may take bytes of dynamic shared memory.
bool tiles_allow_smem(int bytes) {
  const cudaFuncAttribute at = cudaFuncAttributeMaxDynamicSharedMemorySize;
  bool ok = cudaFuncSetAttribute(run_kernel<0>, at, bytes) == cudaSuccess;
#ifdef GS_FDTD_RUN_PROBES
  ok = ok && cudaFuncSetAttribute(run_kernel<1>, at, bytes) == cudaSuccess &&
       cudaFuncSetAttribute(run_kernel<2>, at, bytes) == cudaSuccess &&
       cudaFuncSetAttribute(run_kernel<3>, at, bytes) == cudaSuccess;
#endif
  return ok;
}

cudaError_t tiles_occupancy(int *blocks, unsigned smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, run_kernel<0>, kRunThreads, smem);
}

cudaError_t tiles_launch(const gs_fdtd_run_args *a, const RunPlan &p, int64_t steps, cudaStream_t s) {
  const dim3 grid((unsigned)p.blocks()), block(kRunX, kRunY);
#ifdef GS_FDTD_RUN_PROBES
  const char *probe = getenv("GS_FDTD_RUN_PROBE"); // (a diagnostic: run_step's parts left out, wrong bits)
  switch (probe && *probe ? atoi(probe) : 0) {
  case 0:
    break;
  case 1:
    return gs_launch::coop(run_kernel<1>, grid, block, p.smem, s, *a, p, steps);
  case 2:
    return gs_launch::coop(run_kernel<2>, grid, block, p.smem, s, *a, p, steps);
  case 3:
    return gs_launch::coop(run_kernel<3>, grid, block, p.smem, s, *a, p, steps);
  default: // (no silent plain kernel for a probe that does not exist)
    return cudaErrorInvalidValue;
  }
#endif
  return gs_launch::coop(run_kernel<0>, grid, block, p.smem, s, *a, p, steps);
}

} // namespace gs_run

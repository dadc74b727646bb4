// 2D FDTD on chip, the columns form (small grids on one rank): the grid
// kept on chip for the whole launch as in kernels/fdtd_run_tiles.cu, but a thread
// holds kRows nodes of one column in registers (Ez and Hx) instead of the
// block reading every value from shared memory. The tiles form spends a
// step on shared-memory traffic (about 16 loads and stores a node) and
// four block barriers; here a node's vertical neighbours are the thread's
// own registers, the horizontal ones come by warp shuffle, and only Hy and
// the materials stay in shared memory (all of Ez, Hx and Hy would need 48
// registers a thread where a block of 1024 threads has 64). A step:
//   - H: Hx from the thread's own Ez (the first row of the warp above from
//     shared memory), Hy from the next lane's Ez (lane 31: the next warp's
//     first column, shared); the ghosts' H the tile's Ez update reads (the
//     left neighbour's Hy, the lower one's Hx) recomputed from the ghost Ez,
//     as the tiles form does, so H is never exchanged; one block barrier;
//   - Ez from the previous lane's Hy (lane 0: shared), the thread's own Hx
//     below (the first row: the warp below's last, shared), the sources;
//   - each warp's first column and row of Ez to shared memory, the tile's
//     edges to global memory; the grid barrier; the neighbours' edges in.
// The expressions are fdtd_node.h's written out for one slab an axis
// (gs_fdtd_fuse_takes: free-space H, no two slabs of one axis at a node),
// as the tiles form's frame nodes take them: the bits of single steps. The
// CPML's psi (of the tile's nodes and of its ghosts, which the tile updates
// as their owners do) and profiles live in shared memory for the launch: a
// thread's rows follow one another, and psi in global memory made each row
// wait for its loads (27 to 30 us a step on 2000 x 1000 with a 10-cell
// CPML, the tiles form 16.4). A grid whose tiles' psi does not fit is left
// to the tiles form.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "fdtd_run.cuh"
#include "sm_count.cuh"

#include <stdlib.h>

#include <algorithm>
#include <string.h>

// The form on chip where the columns may take the grid: GS_FDTD_RUN_COLUMNS
// at build time (0 the tiles form, 1 the ez form, 2 the regs form), the
// environment's GS_FDTD_RUN_FORM (tiles, ez, regs) at run time. The
// default stays the tiles form: with a CPML the columns form is slower
// (on an H200, 2000 x 1000: 20.1 us a step against 16.5; without CPML
// 9.5 against 12.2): the blocks away from the CPML wait at the grid
// barrier for those that meet it.
#ifndef GS_FDTD_RUN_COLUMNS
#define GS_FDTD_RUN_COLUMNS 0
#endif

namespace gs_run {
namespace {

constexpr int kRows = 16; // nodes of its column a thread holds
constexpr int kMaxThreads = 1024;
constexpr int kCap = 256;             // sources or receivers a tile lists (more: each thread scans the scene's list)
constexpr int kNone = -1, kScan = -2; // a thread's list head: no point; the tile's list overflowed
constexpr unsigned kAll = 0xffffffffu;
constexpr int kMaxSlabs = 4;       // gs_fdtd_step_args::slab
constexpr int kBlock = kRows * 32; // nodes of a warp's block

#ifdef GS_EMULATE
#define cols_smem (static_cast<float4 *>(gs_emu_smem()))
#else
extern __shared__ float4 cols_smem[];
#endif

// A slab's nodes in the tile at (i0, j0) of nw x nh nodes and in the ghost
// column and row before it, in local indices: columns [x0, x0 + w), rows
// [y0, y0 + h) (w or h 0: none); e, hh: where its psi of E and of H start in
// psi() (the load sets them).
struct Box {
  int x0, y0, w, h, e, hh, pad0, pad1;
};

// Byte offsets of the shared arrays: the electric coefficients of every
// material; the point lists (entries (index, row), links, each thread's
// head, counts; list 0 sources, 1 receivers); then the floats: Hy of the
// tile in blocks of a warp's kRows x 32 nodes, each row of warps led by a
// block whose last column is the left ghost column (so a warp's left
// neighbour is always the block before its own, and a thread's rows are a
// fixed stride apart: the addresses are one register and immediate
// offsets), Ez of each warp column's first column and of the right ghost
// column (ezx), the left ghost
// column (ezl), Ez of each warp row's first row and of the top ghost row
// (ezy), the bottom ghost row (ezb), Hx of the row below each warp row's
// first (hxy: the ghost row, then the warps' last rows); in the ez form Hx
// of the tile in warp blocks (hxs, before ezx); then the bytes:
// the materials (in warp blocks too), the slab maps of the columns and rows (from the ghosts on).
// The CPML lives here too: each slab's box of the tile (Box), the profiles
// of each column's x slab and each row's y slab (b, a, k of H, then of E;
// from the ghosts on), and psi of the boxes (p.psi floats: psi of E, then
// of H, of each slab in turn).
//
// The arrays' places, byte offsets kept in the plan (ColsPlan::at): the
// kernel reads them from its parameters, which costs no register.
enum Part {
  kEnt,
  kNxt,
  kHead,
  kCnt,
  kBox,
  kXprof,
  kYprof,
  kPsi,
  kHy,
  kHxs,
  kEzx,
  kEzl,
  kEzy,
  kEzb,
  kHxy,
  kMat,
  kXs,
  kYs,
  kEnd
};
static_assert(kEnd < kColsParts, "ColsPlan::at holds every offset");

void lay_out(ColsPlan &p) {
  const size_t f = sizeof(float), rows = (size_t)p.th, cols = (size_t)p.tw;
  const size_t size[kEnd] = {sizeof(int2) * 2 * kCap,
                             sizeof(int) * 2 * kCap,
                             sizeof(int) * 2 * kMaxThreads,
                             4 * sizeof(int),
                             sizeof(Box) * kMaxSlabs,
                             f * 6 * (cols + 1),
                             f * 6 * (rows + 1),
                             f * (size_t)p.psi,
                             f * (size_t)p.wy * (p.wx + 1) * kBlock,
                             p.form == kFormEz ? f * (size_t)p.wy * p.wx * kBlock : 0,
                             f * (size_t)(p.wx + 1) * rows,
                             f * rows,
                             f * (size_t)(p.wy + 1) * cols,
                             f * cols,
                             f * (size_t)p.wy * cols,
                             rows * cols,
                             cols + 1,
                             rows + 1};
  size_t at = sizeof(float4) * GS_FDTD_MAX_MATERIALS; // the coefficients first
  for (int k = 0; k < kEnd; ++k) {
    p.at[k] = (unsigned)at;
    at += size[k];
  }
  p.at[kEnd] = (unsigned)at;
}

template <typename T> __device__ __forceinline__ T *smem_at(unsigned off) {
  return reinterpret_cast<T *>(reinterpret_cast<char *>(cols_smem) + off);
}
#define COLS_ARRAY(name, part, type)                                                                                   \
  __device__ __forceinline__ type *name(const ColsPlan &p) {                                                           \
    return smem_at<type>(p.at[part]);                                                                                  \
  }
COLS_ARRAY(ent, kEnt, int2)
COLS_ARRAY(nxt, kNxt, int)
COLS_ARRAY(head, kHead, int)
COLS_ARRAY(cnt, kCnt, int)
COLS_ARRAY(xprof, kXprof, float)
COLS_ARRAY(yprof, kYprof, float)
COLS_ARRAY(psi, kPsi, float)
COLS_ARRAY(hy, kHy, float)
COLS_ARRAY(hxs, kHxs, float)
COLS_ARRAY(ezx, kEzx, float)
COLS_ARRAY(ezl, kEzl, float)
COLS_ARRAY(ezy, kEzy, float)
COLS_ARRAY(ezb, kEzb, float)
COLS_ARRAY(hxy, kHxy, float)
COLS_ARRAY(mat, kMat, uint8_t)
COLS_ARRAY(xs, kXs, uint8_t)
COLS_ARRAY(ys, kYs, uint8_t)
#undef COLS_ARRAY
__device__ __forceinline__ float4 *coef() {
  return cols_smem;
}
// Where Hy of local column li (-1: the ghost) and row lr lies in hy().
__device__ __forceinline__ int hy_at(const ColsPlan &p, int li, int lr) {
  return ((lr / kRows) * (p.wx + 1) + (li + 32) / 32) * kBlock + lr % kRows * 32 + (li + 32) % 32;
}

// This thread's place: its tile (first node, nodes across and up) and its
// local column li and first local row r0 (warp w = threadIdx.x / 32 holds
// columns 32 (w % wx) + lane, rows kRows (w / wx) + 0 .. kRows - 1).
struct Col {
  int i0, j0, nw, nh, li, r0;
  __device__ int lane() const {
    return (int)threadIdx.x & 31;
  }
  __device__ int wxi() const {
    return li >> 5;
  }
  __device__ int wyi() const {
    return r0 / kRows;
  }
  __device__ int rows() const { // of the thread's rows, those in the grid
    return li >= nw ? 0 : min(kRows, max(0, nh - r0));
  }
  __device__ int hx_rows(const gs_fdtd_step_args &a) const { // those with an Hx (j < ny), the last Ez row too
    return min(rows(), (int)max((int64_t)0, a.ny - j0 - r0));
  }
  __device__ int e_first(const gs_fdtd_step_args &a) const { // the first with an Ez update (j >= 1, interior column)
    const int64_t i = i0 + li;
    return i >= 1 && i < a.nx ? max(0, 1 - j0 - r0) : kRows;
  }
  // The thread's first Hy and material: its rows are 32 apart.
  __device__ float *hy_col(const ColsPlan &p) const;
  __device__ uint8_t *mat_col(const ColsPlan &p) const;
};

__device__ __forceinline__ float *Col::hy_col(const ColsPlan &p) const {
  return hy(p) + hy_at(p, li, r0);
}
__device__ __forceinline__ uint8_t *Col::mat_col(const ColsPlan &p) const {
  return mat(p) + (wyi() * p.wx + wxi()) * kBlock + lane();
}

__device__ Col col_of_thread(const gs_fdtd_step_args &a, const ColsPlan &p) {
  Col c;
  const int w = (int)threadIdx.x >> 5;
  c.i0 = (int)blockIdx.x % p.cx * p.tw;
  c.j0 = (int)blockIdx.x / p.cx * p.th;
  c.nw = (int)min((int64_t)p.tw, a.nx + 1 - c.i0);
  c.nh = (int)min((int64_t)p.th, a.ny + 1 - c.j0);
  c.li = w % p.wx * 32 + ((int)threadIdx.x & 31);
  c.r0 = w / p.wx * kRows;
  return c;
}

template <typename F> __device__ __forceinline__ void each_of(int n, F f) {
  for (int k = (int)threadIdx.x; k < n; k += (int)blockDim.x)
    f(k);
}

__host__ __device__ inline Box slab_box(const gs_fdtd_slab &s, int64_t i0, int64_t j0, int64_t nw, int64_t nh) {
  const int64_t xl = s.dir == 0 ? s.lo : s.o0, xh = s.dir == 0 ? s.hi : s.o1;
  const int64_t yl = s.dir == 0 ? s.o0 : s.lo, yh = s.dir == 0 ? s.o1 : s.hi;
  const int64_t x0 = xl > i0 - 1 ? xl : i0 - 1, x1 = xh < i0 + nw ? xh : i0 + nw;
  const int64_t y0 = yl > j0 - 1 ? yl : j0 - 1, y1 = yh < j0 + nh ? yh : j0 + nh;
  Box b = {0, 0, 0, 0, 0, 0, 0, 0};
  if (x1 > x0 && y1 > y0) b = Box{(int)(x0 - i0), (int)(y0 - j0), (int)(x1 - x0), (int)(y1 - y0), 0, 0, 0, 0};
  return b;
}

__device__ __forceinline__ Box *boxes(const ColsPlan &p) {
  return smem_at<Box>(p.at[kBox]);
}

// The CPML correction of slab q (of axis dir: 0 x, the profiles of the
// column; 1 y, of the row) on a new H value h at local node (li, lr), with
// the tile's copy of its psi (a ghost's too: the tile updates it as the
// owner does): gs_fdtd_hx_from / hy_from's expressions for that slab. q
// is a slab's index, never kSlabs: the plan takes only grids where
// gs_fdtd_fuse_takes holds (no two slabs of one axis at a node).
template <int dir>
__device__ __forceinline__ float cpml_h(const ColsPlan &p, int q, int li, int lr, float h, float cb, float d) {
  const Box b = boxes(p)[q];
  const int x = li - b.x0, y = lr - b.y0;
  if (x < 0 || x >= b.w || y < 0 || y >= b.h) return h;
  float *ps = psi(p) + b.hh + y * b.w + x;
  const int n = dir == 0 ? p.tw + 1 : p.th + 1;
  const float *pr = dir == 0 ? xprof(p) + li + 1 : yprof(p) + lr + 1;
  const float psi0 = *ps;
  *ps = pr[0] * psi0 + pr[n] * d;
  return dir == 1 ? h - cb * (pr[2 * n] * d + psi0) : h + cb * (pr[2 * n] * d + psi0);
}

// The correction of slab q (axis dir) on a new Ez (gs_fdtd_e_from's); f:
// the node's (ca, cbx, cby, src).
template <int dir>
__device__ __forceinline__ float cpml_e(const ColsPlan &p, int q, int li, int lr, float ez, float4 f, float dhy,
                                        float dhx) {
  if (q == kNoSlab) return ez;
  const Box b = boxes(p)[q];
  const int x = li - b.x0, y = lr - b.y0;
  if (x < 0 || x >= b.w || y < 0 || y >= b.h) return ez;
  float *ps = psi(p) + b.e + y * b.w + x;
  const int n = dir == 0 ? p.tw + 1 : p.th + 1;
  const float *pr = (dir == 0 ? xprof(p) + li + 1 : yprof(p) + lr + 1) + 3 * n;
  const float d = dir == 0 ? dhy : dhx, psi0 = *ps;
  *ps = pr[0] * psi0 + pr[n] * d;
  return dir == 0 ? ez + f.y * (pr[2 * n] * d + psi0) : ez - f.z * (pr[2 * n] * d + psi0);
}

// Row q of the thread's registers v (q known at run time only).
__device__ __forceinline__ float pick(const float (&v)[kRows], int q) {
  float x = 0.f;
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    if (r == q) x = v[r];
  return x;
}

// Hx of the thread's rows: in registers (the "regs" form), or in shared
// memory in warp blocks as Hy (the "ez" form: only Ez in registers; Ez and
// Hx both need more than the 64 registers a thread of a 1024-thread block
// has, and spill).
struct HxRegs {
  float v[kRows];
  __device__ __forceinline__ float &operator[](int r) {
    return v[r];
  }
  __device__ __forceinline__ float operator[](int r) const {
    return v[r];
  }
  __device__ __forceinline__ float at(int q) const {
    return pick(v, q);
  }
};
struct HxShared {
  float *p;
  __device__ __forceinline__ float &operator[](int r) {
    return p[32 * r];
  }
  __device__ __forceinline__ float operator[](int r) const {
    return p[32 * r];
  }
  __device__ __forceinline__ float at(int q) const {
    return p[32 * q];
  }
};

// The thread's column of Ez, Hx, Hy and the materials; the ghosts around
// the tile (the left and bottom ones with their H, which the ghosts' H
// update starts from); the coefficients; the slab maps.
template <class H>
__device__ void load_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c, float (&ez)[kRows], H &hx) {
  each_of(GS_FDTD_MAX_MATERIALS, [&](int k) {
    const gs_fdtd_coef f = a.coef[k];
    coef()[k] = make_float4(f.ca, f.cbx, f.cby, f.src);
  });
  const int rows = c.rows();
  float *h_y = c.hy_col(p);
  uint8_t *m = c.mat_col(p);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const bool in = r < rows;
    const int64_t g = in ? gs_fdtd_at(&a, c.i0 + c.li, c.j0 + c.r0 + r) : 0;
    ez[r] = in ? a.ez[g] : 0.f;
    hx[r] = in ? a.hx[g] : 0.f;
    h_y[32 * r] = in ? a.hy[g] : 0.f;
    m[32 * r] = in ? a.mat[g] : 0;
  }
  each_of(p.th, [&](int k) { // the columns beside the tile
    const bool left = k < c.nh && c.i0 > 0, right = k < c.nh && c.i0 + c.nw <= a.nx;
    const int64_t gl = gs_fdtd_at(&a, c.i0 - 1, c.j0 + k);
    ezl(p)[k] = left ? a.ez[gl] : 0.f;
    hy(p)[hy_at(p, -1, k)] = left ? a.hy[gl] : 0.f;
    ezx(p)[p.wx * p.th + k] = right ? a.ez[gl + 1 + c.nw] : 0.f;
  });
  each_of(p.tw, [&](int k) { // the rows below and above it
    const bool below = k < c.nw && c.j0 > 0, above = k < c.nw && c.j0 + c.nh <= a.ny;
    const int64_t gb = gs_fdtd_at(&a, c.i0 + k, c.j0 - 1);
    ezb(p)[k] = below ? a.ez[gb] : 0.f;
    hxy(p)[k] = below ? a.hx[gb] : 0.f;
    ezy(p)[p.wy * p.tw + k] = above ? a.ez[gb + (1 + c.nh) * a.pitch] : 0.f;
  });
  each_of(p.tw + 1, [&](int k) { xs(p)[k] = slab_at(a, 0, c.i0 - 1 + k); });
  each_of(p.th + 1, [&](int k) { ys(p)[k] = slab_at(a, 1, c.j0 - 1 + k); });
}

// Where node (i, j)'s psi lies in slab s's arrays (fdtd_kernels.h: the
// index along the slab, then across it, fastest).
__device__ __forceinline__ int64_t psi_word(const gs_fdtd_slab &s, int64_t i, int64_t j) {
  const int64_t along = s.dir == 0 ? i : j, other = s.dir == 0 ? j : i;
  return (along - s.lo) * (s.o1 - s.o0) + (other - s.o0);
}

// The tile's CPML: each slab's box (and where its psi goes), its psi from
// a's input arrays (ghosts included), the profiles of the columns' and
// rows' slabs (each found as the maps find it).
__device__ void load_cpml(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c) {
  int off = 0;
  for (int q = 0; q < a.nslab; ++q) {
    const gs_fdtd_slab &s = a.slab[q];
    Box b = slab_box(s, c.i0, c.j0, c.nw, c.nh);
    b.e = off;
    b.hh = off + b.w * b.h;
    off += 2 * b.w * b.h;
    if (threadIdx.x == 0) boxes(p)[q] = b;
    each_of(b.w * b.h, [&](int k) {
      const int64_t i = c.i0 + b.x0 + k % b.w, j = c.j0 + b.y0 + k / b.w;
      const int64_t w = psi_word(s, i, j);
      psi(p)[b.e + k] = s.psi_e_in[w];
      psi(p)[b.hh + k] = s.psi_h_in[w];
    });
  }
  each_of(6 * (p.tw + 1 + p.th + 1), [&](int k) {
    const int n = p.tw + 1, dir = k < 6 * n ? 0 : 1, kk = dir == 0 ? k : k - 6 * n, m = dir == 0 ? n : p.th + 1;
    const int at = kk % m, which = kk / m;
    const uint8_t q = slab_at(a, dir, (dir == 0 ? c.i0 : c.j0) - 1 + at);
    float v = 0.f;
    if (q < kSlabs) {
      const gs_fdtd_slab &s = a.slab[q];
      const float *prof[6] = {s.bh, s.ah, s.kh, s.be, s.ae, s.ke};
      v = prof[which][(dir == 0 ? c.i0 : c.j0) - 1 + at - s.lo];
    }
    (dir == 0 ? xprof(p) : yprof(p))[kk] = v;
  });
}

// The tile's psi of its own nodes (not the ghosts') to a's output arrays:
// those single steps write (psi of E at interior nodes, of Hx where j <
// ny, of Hy where i < nx), so a word single steps never touch keeps what
// the output array held, whatever the input array holds there.
__device__ void store_cpml(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c) {
  for (int q = 0; q < a.nslab; ++q) {
    const gs_fdtd_slab &s = a.slab[q];
    const Box b = boxes(p)[q];
    each_of(b.w * b.h, [&](int k) {
      const int li = b.x0 + k % b.w, lr = b.y0 + k / b.w;
      if (li < 0 || lr < 0) return; // a ghost's
      const int64_t i = c.i0 + li, j = c.j0 + lr;
      const int64_t w = psi_word(s, i, j);
      if (i >= 1 && i < a.nx && j >= 1 && j < a.ny) s.psi_e_out[w] = psi(p)[b.e + k];
      if (s.dir == 0 ? i < a.nx : j < a.ny) s.psi_h_out[w] = psi(p)[b.hh + k];
    });
  }
}

// The points (array offsets off[0..n)) in the tile into list l: each
// thread's chain of (index, row) entries; a thread's head is kScan where
// the tile holds more than kCap (the thread then scans the whole list).
__device__ void list_points(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c, const int64_t *off, int n,
                            int l) {
  each_of(n, [&](int m) {
    const int64_t j = off[m] / a.pitch - a.g - c.j0, i = off[m] % a.pitch - a.g - c.i0;
    if (i < 0 || i >= c.nw || j < 0 || j >= c.nh) return;
    const int k = atomicAdd(cnt(p) + l, 1);
    if (k >= kCap) return;
    const int t = ((int)j / kRows * p.wx + (int)i / 32) * 32 + (int)i % 32;
    ent(p)[l * kCap + k] = make_int2(m, (int)j % kRows);
    nxt(p)[l * kCap + k] = atomicExch(head(p) + l * kMaxThreads + t, k);
  });
}

// The source and receiver heads of this thread (after the lists are built).
struct Heads {
  int src, rx;
};

__device__ Heads heads_of_thread(const gs_fdtd_run_args &r, const ColsPlan &p, const Col &c) {
  const int t = (int)threadIdx.x;
  for (int k = t; k < 2 * kMaxThreads; k += (int)blockDim.x)
    head(p)[k] = kNone;
  if (t < 4) cnt(p)[t] = 0;
  __syncthreads();
  list_points(r.set[0], p, c, r.src_off, r.nsrc, 0);
  list_points(r.set[0], p, c, r.rx_off, r.nrx, 1);
  __syncthreads();
  Heads h;
  h.src = cnt(p)[0] > kCap ? kScan : head(p)[t];
  h.rx = cnt(p)[1] > kCap ? kScan : head(p)[kMaxThreads + t];
  return h;
}

// f(index, row) for the points of list l in this thread's column: its
// chain, or the whole list (off, n) where the tile's overflowed.
template <typename F>
__device__ __forceinline__ void each_mine(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c, int h, int l,
                                          const int64_t *off, int n, F f) {
  if (h >= 0) {
    for (int k = h; k >= 0; k = nxt(p)[l * kCap + k]) {
      const int2 e = ent(p)[l * kCap + k];
      f(e.x, e.y);
    }
  } else if (h == kScan) {
    for (int m = 0; m < n; ++m) {
      const int64_t j = off[m] / a.pitch - a.g - c.j0 - c.r0, i = off[m] % a.pitch - a.g - c.i0;
      if (i == c.li && j >= 0 && j < kRows && c.r0 + j < c.nh) f(m, (int)j);
    }
  }
}

// The receivers of this thread's column at the step (Ez, Hx, Hy before its update).
template <class H>
__device__ void sample_cols(const gs_fdtd_run_args &r, const ColsPlan &p, const Col &c, int h, int64_t step,
                            const float (&ez)[kRows], const H &hx) {
  float *out = r.rx_out + step % r.rx_slots * 3 * r.nrx;
  each_mine(r.set[0], p, c, h, 1, r.rx_off, r.nrx, [&](int m, int q) {
    out[3 * m] = pick(ez, q);
    out[3 * m + 1] = hx.at(q);
    out[3 * m + 2] = c.hy_col(p)[32 * q];
  });
}

// The sources of this thread's column at the step, into the new Ez (as gs_fdtd_inject).
__device__ void inject_cols(const gs_fdtd_run_args &r, const ColsPlan &p, const Col &c, int h, int64_t step,
                            float (&ez)[kRows]) {
  const float *val = r.src_val + step * r.src_stride;
  each_mine(r.set[0], p, c, h, 0, r.src_off, r.nsrc, [&](int m, int q) {
    const float v = val[m];
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      if (k == q) ez[k] = ez[k] - v;
  });
}

// New H of the thread's nodes; slab: some node of the warp may be in a
// CPML slab (the maps are read), else none is.
template <bool slab, class H>
__device__ __forceinline__ void h_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c,
                                       const float (&ez)[kRows], H &hx) {
  const int rows = c.rows(), hx_rows = c.hx_rows(a);
  const bool hy_on = c.i0 + c.li < a.nx;
  const uint8_t sx = slab ? xs(p)[c.li + 1] : kNoSlab;
  const uint8_t *sy = ys(p) + c.r0 + 1;
  const float *upper = ezy(p) + (c.wyi() + 1) * p.tw + c.li, *right_col = ezx(p) + (c.wxi() + 1) * p.th + c.r0;
  float *h_y = c.hy_col(p);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const float e = ez[r];
    const float up = r + 1 < kRows ? ez[r + 1] : *upper;
    float right = __shfl_down_sync(kAll, e, 1);
    if (c.lane() == 31) right = right_col[r];
    if (r < hx_rows) {
      const float d = up - e, h = hx[r] - a.chy * d;
      const uint8_t q = slab ? sy[r] : kNoSlab;
      hx[r] = q == kNoSlab ? h : cpml_h<1>(p, q, c.li, c.r0 + r, h, a.chy, d);
    }
    if (hy_on && r < rows) {
      const float d = right - e, h = h_y[32 * r] + a.chx * d;
      h_y[32 * r] = sx == kNoSlab ? h : cpml_h<0>(p, sx, c.li, c.r0 + r, h, a.chx, d);
    }
  }
  if (c.wyi() + 1 < p.wy) hxy(p)[(c.wyi() + 1) * p.tw + c.li] = hx[kRows - 1];
}

// New H of the ghosts the tile's Ez update reads: Hy of the column left of
// it, Hx of the row below (the bits their owners compute; the tile's copy of
// their psi updated as the owners update theirs).
__device__ void ghost_h(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c) {
  if (c.i0 > 0)
    each_of(c.nh, [&](int k) {
      const int s = hy_at(p, -1, k);
      const float e = ezl(p)[k], d = ezx(p)[k] - e, h = hy(p)[s] + a.chx * d;
      const uint8_t sx = xs(p)[0];
      hy(p)[s] = sx == kNoSlab ? h : cpml_h<0>(p, sx, -1, k, h, a.chx, d);
    });
  if (c.j0 > 0)
    each_of(c.nw, [&](int k) {
      const float e = ezb(p)[k], d = ezy(p)[k] - e, h = hxy(p)[k] - a.chy * d;
      const uint8_t sy = ys(p)[0];
      hxy(p)[k] = sy == kNoSlab ? h : cpml_h<1>(p, sy, k, -1, h, a.chy, d);
    });
}

// New Ez of the thread's interior nodes (the PEC walls keep Ez = 0), the
// slabs of a node in the order of the slab list (as gs_fdtd_e_from loops).
template <bool slab, class H>
__device__ __forceinline__ void e_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c, float (&ez)[kRows],
                                       const H &hx) {
  const int first = c.e_first(a), last = c.hx_rows(a); // rows [first, last) take the update
  const uint8_t sx = slab ? xs(p)[c.li + 1] : kNoSlab;
  const uint8_t *sy = ys(p) + c.r0 + 1, *m = c.mat_col(p);
  const float *h_y = c.hy_col(p),
              *h_l = h_y - kBlock + 31; // lane 0's left neighbour: the last lane of the block before
  const float below = hxy(p)[c.wyi() * p.tw + c.li];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const float hyv = h_y[32 * r];
    float hyl = __shfl_up_sync(kAll, hyv, 1);
    if (c.lane() == 0) hyl = h_l[32 * r];
    if (r < first || r >= last) continue;
    const float dhy = hyv - hyl, dhx = hx[r] - (r > 0 ? hx[r - 1] : below);
    const float4 f = coef()[m[32 * r]];
    float e = f.x * ez[r] + (f.y * dhy - f.z * dhx);
    if (slab) { // the two axes' slabs in the order of the slab list
      const uint8_t q = sy[r];
      if (sx < q) {
        e = cpml_e<0>(p, sx, c.li, c.r0 + r, e, f, dhy, dhx);
        e = cpml_e<1>(p, q, c.li, c.r0 + r, e, f, dhy, dhx);
      } else {
        e = cpml_e<1>(p, q, c.li, c.r0 + r, e, f, dhy, dhx);
        e = cpml_e<0>(p, sx, c.li, c.r0 + r, e, f, dhy, dhx);
      }
    }
    ez[r] = e;
  }
}

// Each warp's first column and first row of Ez, for its neighbours' H.
__device__ __forceinline__ void share_cols(const ColsPlan &p, const Col &c, const float (&ez)[kRows]) {
  if (c.lane() == 0) {
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      ezx(p)[c.wxi() * p.th + c.r0 + r] = ez[r];
  }
  ezy(p)[c.wyi() * p.tw + c.li] = ez[0];
}

// The tile's edge nodes of Ez to a's output arrays, for the neighbouring tiles.
__device__ __forceinline__ void publish_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c,
                                             const float (&ez)[kRows]) {
  const bool edge_warp = c.wxi() == 0 || c.wxi() == (c.nw - 1) >> 5 || c.r0 == 0 || c.wyi() == (c.nh - 1) / kRows;
  if (!edge_warp || c.li >= c.nw || c.r0 >= c.nh) return;
  const bool side = (c.i0 > 0 && c.li == 0) || (c.i0 + c.nw <= a.nx && c.li == c.nw - 1);
  const int top = c.j0 + c.nh <= a.ny ? c.nh - 1 - c.r0 : -1; // the row (of this thread's) the upper tile reads
  float *out = a.ez_out + gs_fdtd_at(&a, c.i0 + c.li, c.j0 + c.r0);
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    if (c.r0 + r < c.nh && (side || r == top || (r == 0 && c.r0 == 0 && c.j0 > 0))) __stcg(out + r * a.pitch, ez[r]);
}

// The neighbouring tiles' edges of Ez into the ghosts.
__device__ void fetch_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c) {
  if (c.i0 > 0 || c.i0 + c.nw <= a.nx)
    each_of(c.nh, [&](int k) {
      const float *g = a.ez_out + gs_fdtd_at(&a, c.i0 - 1, c.j0 + k);
      if (c.i0 > 0) ezl(p)[k] = __ldcg(g);
      if (c.i0 + c.nw <= a.nx) ezx(p)[p.wx * p.th + k] = __ldcg(g + 1 + c.nw);
    });
  if (c.j0 > 0 || c.j0 + c.nh <= a.ny)
    each_of(c.nw, [&](int k) {
      const float *g = a.ez_out + gs_fdtd_at(&a, c.i0 + k, c.j0 - 1);
      if (c.j0 > 0) ezb(p)[k] = __ldcg(g);
      if (c.j0 + c.nh <= a.ny) ezy(p)[p.wy * p.tw + k] = __ldcg(g + (1 + c.nh) * a.pitch);
    });
}

// One step with buffer set a (a reference to a kernel parameter); slab:
// this warp meets a CPML slab; last: no ghosts needed after it.
template <class H>
__device__ __forceinline__ void step_cols(const gs_fdtd_run_args &r, const gs_fdtd_step_args &a, const ColsPlan &p,
                                          const Col &c, Heads hd, bool slab, int64_t step, bool last,
                                          unsigned long long target, float (&ez)[kRows], H &hx) {
  if (hd.rx != kNone) sample_cols(r, p, c, hd.rx, step, ez, hx);
  if (slab)
    h_cols<true, H>(a, p, c, ez, hx);
  else
    h_cols<false, H>(a, p, c, ez, hx);
  ghost_h(a, p, c);
  __syncthreads();
  if (slab)
    e_cols<true, H>(a, p, c, ez, hx);
  else
    e_cols<false, H>(a, p, c, ez, hx);
  if (hd.src != kNone) inject_cols(r, p, c, hd.src, step, ez);
  if (last) return;
  share_cols(p, c, ez);
  publish_cols(a, p, c, ez);
  grid_barrier(reinterpret_cast<unsigned long long *>(r.barrier), target);
  fetch_cols(a, p, c);
  __syncthreads();
}

// The owned nodes' fields to a's output arrays.
template <class H>
__device__ void store_cols(const gs_fdtd_step_args &a, const ColsPlan &p, const Col &c, const float (&ez)[kRows],
                           const H &hx) {
  const int rows = c.rows();
  const float *h_y = c.hy_col(p);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    const int64_t g = gs_fdtd_at(&a, c.i0 + c.li, c.j0 + c.r0 + r);
    a.ez_out[g] = ez[r];
    a.hx_out[g] = hx[r];
    a.hy_out[g] = h_y[32 * r];
  }
}

// Whether some node of this thread's warp lies in a slab (after the maps are built).
__device__ bool warp_meets_slab(const ColsPlan &p, const Col &c) {
  bool any = xs(p)[c.li + 1] != kNoSlab;
  for (int r = 0; r < kRows && c.r0 + r < p.th; ++r)
    any = any || ys(p)[c.r0 + r + 1] != kNoSlab;
  return __any_sync(kAll, any);
}

// The thread's Hx holder (its place in hxs() in the ez form).
__device__ __forceinline__ void bind_hx(const ColsPlan &, const Col &, HxRegs &) {}
__device__ __forceinline__ void bind_hx(const ColsPlan &p, const Col &c, HxShared &h) {
  h.p = hxs(p) + (c.wyi() * p.wx + c.wxi()) * kBlock + c.lane();
}

// kThreads: the block's threads at most (1024, 512 or 256: a smaller block
// lets a thread have more registers, 64, 128 or 255, so the CPML's update
// loops need not spill).
template <class H, int kThreads>
__global__ void __launch_bounds__(kThreads, 1) cols_kernel(const gs_fdtd_run_args r, const ColsPlan p, int64_t steps) {
  const Col c = col_of_thread(r.set[0], p);
  float ez[kRows];
  H hx;
  bind_hx(p, c, hx);
  load_cols(r.set[0], p, c, ez, hx);
  load_cpml(r.set[0], p, c);
  share_cols(p, c, ez);
  const Heads hd = heads_of_thread(r, p, c); // (its barriers end the load too)
  const bool slab = warp_meets_slab(p, c);
  for (int64_t s = 0; s < steps; ++s) {
    const unsigned long long target = r.barrier_base + gridDim.x * (uint64_t)(s + 1);
    if (s % 2 == 0)
      step_cols(r, r.set[0], p, c, hd, slab, r.t0 + s, s + 1 == steps, target, ez, hx);
    else
      step_cols(r, r.set[1], p, c, hd, slab, r.t0 + s, s + 1 == steps, target, ez, hx);
  }
  __syncthreads(); // psi of the last step (all threads') before it goes out
  if ((steps - 1) % 2 == 0) {
    store_cols(r.set[0], p, c, ez, hx);
    store_cpml(r.set[0], p, c);
  } else {
    store_cols(r.set[1], p, c, ez, hx);
    store_cpml(r.set[1], p, c);
  }
}

// The kernel for blocks of the form and threads (the smallest bound that holds them).
template <class H>
cudaError_t launch_form(const gs_fdtd_run_args *a, const ColsPlan &p, int64_t steps, cudaStream_t s) {
  const dim3 grid((unsigned)(p.cx * p.cy)), block((unsigned)(32 * p.wx * p.wy));
  if (block.x <= 256) return gs_launch::coop(cols_kernel<H, 256>, grid, block, p.smem, s, *a, p, steps);
  if (block.x <= 512) return gs_launch::coop(cols_kernel<H, 512>, grid, block, p.smem, s, *a, p, steps);
  return gs_launch::coop(cols_kernel<H, kMaxThreads>, grid, block, p.smem, s, *a, p, steps);
}

template <class H> const void *entry_of(int threads) {
  return threads <= 256   ? (const void *)cols_kernel<H, 256>
         : threads <= 512 ? (const void *)cols_kernel<H, 512>
                          : (const void *)cols_kernel<H, kMaxThreads>;
}

const void *cols_entry(int form, int threads) {
  return form == kFormEz ? entry_of<HxShared>(threads) : entry_of<HxRegs>(threads);
}

// Every kernel's shared-memory opt-in (each block size of each form).
bool allow_smem(int optin) {
  for (int form : {kFormEz, kFormRegs})
    for (int threads : {256, 512, kMaxThreads})
      if (cudaFuncSetAttribute(cols_entry(form, threads), cudaFuncAttributeMaxDynamicSharedMemorySize, optin) !=
          cudaSuccess)
        return false;
  return true;
}

// What the device allows, asked once a device: SMs, the shared memory a
// block may opt in to, cooperative launches; 0 SMs when unknown.
struct ColsDevice {
  int sms, optin, coop;
};

ColsDevice cols_device() {
  static ColsDevice seen[64];
  static bool known[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    cudaGetLastError();
    return ColsDevice{0, 0, 0};
  }
  ColsDevice &d = seen[dev];
  if (known[dev]) return d;
  known[dev] = true;
  d.sms = gs_sm_count();
  if (cudaDeviceGetAttribute(&d.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&d.coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess || !allow_smem(d.optin)) {
    cudaGetLastError();
    d.sms = 0;
  }
  return d;
}

// The floats of psi the tile of cut q that meets the CPML most holds.
int cols_psi(const gs_fdtd_step_args *a, const ColsPlan &q) {
  int64_t most = 0;
  for (int t = 0; t < q.cx * q.cy; ++t) {
    const int64_t i0 = (int64_t)(t % q.cx) * q.tw, j0 = (int64_t)(t / q.cx) * q.th;
    const int64_t nw = std::min((int64_t)q.tw, a->nx + 1 - i0), nh = std::min((int64_t)q.th, a->ny + 1 - j0);
    int64_t n = 0;
    for (int k = 0; k < a->nslab; ++k) {
      const Box b = slab_box(a->slab[k], i0, j0, nw, nh);
      n += 2 * (int64_t)b.w * b.h;
    }
    most = std::max(most, n);
  }
  return (int)std::min(most, (int64_t)1 << 28);
}

// Nodes an SM holds under cut q (its blocks spread evenly), or -1 when the
// cut's blocks cannot all be resident at once.
int64_t cols_load(const ColsPlan &q, const ColsDevice &d) {
  int resident = 0;
  if ((size_t)q.smem > (size_t)d.optin ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, cols_entry(q.form, 32 * q.wx * q.wy), 32 * q.wx * q.wy,
                                                    q.smem) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  const int64_t blocks = (int64_t)q.cx * q.cy;
  if (resident <= 0 || blocks > (int64_t)resident * d.sms) return -1;
  return (blocks + d.sms - 1) / d.sms * q.tw * q.th;
}

} // namespace

namespace {
int form_asked() { // -1: the tiles form
  static int form = -2;
  if (form == -2) {
    const char *e = getenv("GS_FDTD_RUN_FORM");
    form = GS_FDTD_RUN_COLUMNS == 0 ? -1 : GS_FDTD_RUN_COLUMNS == 2 ? kFormRegs : kFormEz;
    if (e && strcmp(e, "tiles") == 0) form = -1;
    if (e && strcmp(e, "ez") == 0) form = kFormEz;
    if (e && strcmp(e, "regs") == 0) form = kFormRegs;
  }
  return form;
}
} // namespace

namespace {

// The cut whose SMs hold the fewest nodes (padding included), then the one
// of the fewest, larger blocks (fewer ghosts to recompute), then the
// squarest tiles; blocks of 4 to 32 warps.
bool best_plan(const gs_fdtd_step_args *a, ColsPlan *p) {
  const int form = form_asked();
  if (form < 0 || a->oi != 0 || a->oj != 0 || !gs_fdtd_fuse_takes(a)) return false;
  const ColsDevice d = cols_device();
  if (!d.coop || d.sms <= 0) return false;
  const int64_t X = a->nx + 1, Y = a->ny + 1;
  int64_t best = -1;
  for (int warps = kMaxThreads / 32; warps >= 4; warps /= 2)
    for (int wx = 1; wx <= warps; wx *= 2) {
      ColsPlan q;
      q.form = form;
      q.wx = wx;
      q.wy = warps / wx;
      q.tw = 32 * wx;
      q.th = kRows * q.wy;
      const int64_t cx = (X + q.tw - 1) / q.tw, cy = (Y + q.th - 1) / q.th;
      if (cx * cy > (int64_t)d.sms * 32) continue;
      q.cx = (int)cx;
      q.cy = (int)cy;
      q.psi = cols_psi(a, q);
      lay_out(q);
      q.smem = q.at[kEnd];
      const int64_t load = cols_load(q, d);
      if (load < 0) continue;
      const int64_t cost = (load * 64 + (32 - warps)) * 65536 + q.tw + q.th; // less load; among equals, larger blocks
      if (best >= 0 && cost >= best) continue;
      best = cost;
      *p = q;
    }
  return best >= 0;
}

// What a plan depends on, to find it again: the simulation asks for the
// same grid at every launch (a plan asks the occupancy of up to 18 cuts and
// walks every tile's CPML).
struct PlanKey {
  int64_t nx, ny, oi, oj;
  int magnetic, nslab, form, dev;
  int64_t slab[kMaxSlabs][5];
};

PlanKey key_of(const gs_fdtd_step_args *a) {
  PlanKey k;
  memset(&k, 0, sizeof k); // (padding too: keys are compared with memcmp)
  k.nx = a->nx;
  k.ny = a->ny;
  k.oi = a->oi;
  k.oj = a->oj;
  k.magnetic = a->hmx != NULL || a->hmy != NULL;
  k.nslab = a->nslab;
  k.form = form_asked();
  if (cudaGetDevice(&k.dev) != cudaSuccess) cudaGetLastError();
  for (int q = 0; q < a->nslab && q < kMaxSlabs; ++q) {
    const gs_fdtd_slab &s = a->slab[q];
    const int64_t v[5] = {s.dir, s.lo, s.hi, s.o0, s.o1};
    memcpy(k.slab[q], v, sizeof v);
  }
  return k;
}

} // namespace

bool cols_plan(const gs_fdtd_step_args *a, ColsPlan *p) {
  static PlanKey last_key;
  static ColsPlan last_plan;
  static bool known = false, last_ok = false;
  const PlanKey k = key_of(a);
  if (!known || memcmp(&k, &last_key, sizeof k) != 0) {
    last_ok = best_plan(a, &last_plan);
    last_key = k;
    known = true;
  }
  if (last_ok) *p = last_plan;
  return last_ok;
}

cudaError_t cols_launch(const gs_fdtd_run_args *a, const ColsPlan &p, int64_t steps, cudaStream_t stream) {
  return p.form == kFormEz ? launch_form<HxShared>(a, p, steps, stream) : launch_form<HxRegs>(a, p, steps, stream);
}

} // namespace gs_run

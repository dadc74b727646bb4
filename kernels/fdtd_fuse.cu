// 2D FDTD: T steps fused in one pass over grids too big for the chip
// (temporal blocking). One step a launch reads and writes every field
// once (25 bytes a node): the copy bandwidth caps it. Here a pass reads the
// fields once, advances them T steps in shared memory and writes them once.
//
// The cut: a block owns a strip of columns and a segment of rows of the
// rank's nodes and loads them with T more columns and rows on every side
// (its box; fewer at the grid's edges; on several ranks the box reaches
// into the T or more ghost layers the last exchange filled). Each step, the nodes one further in from the box's edge
// stop being exact (a node's update reads its neighbours' previous values,
// one node away), so after T steps the owned nodes still are: only they are
// written. The margins are computed twice (by both neighbours): 2T of 256
// columns, 2T of a segment's rows.
//
// The march: the block's 256 threads each hold one column of its box and
// climb its rows kRows at a time. Level t (the fields after t steps) of rows
// [b - t, b - t + kRows) is computed at iteration b (one row behind level
// t - 1, whose rows it reads), in place in a ring of kRing rows of Ez, Hx,
// Hy and the materials in shared memory: H of those rows (the right
// neighbour's Ez from the next thread), barrier, Ez (the left neighbour's
// Hy), the sources, the receivers, barrier. Level T's rows are then final
// and go out; the next rows come in (their loads all issued before any is
// stored, so they are in flight together; other blocks on the SM compute
// meanwhile). The arithmetic per node is fdtd_node.h's (the same expressions, no
// fused multiply-add), so the bits are those of T single steps.
//
// CPML psi is a node's own state (no neighbour reads it): each thread keeps
// its column's psi in a local-memory ring beside the shared one, loaded with
// the row and written with level T's; the margins' psi, computed twice, is
// never written, so neighbours never race.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_node.h"
#include "launch.cuh"
#include "sm_count.cuh"

namespace {

constexpr int kCols = 256;               // threads of a block = columns of its box
constexpr int kRows = 8;                 // rows a level advances per iteration
constexpr int kRing = 16;                // rows held (a power of two)
constexpr int kMaxT = kRing - kRows - 1; // the oldest row level T reads must survive the next load
static_assert(kMaxT == GS_FDTD_FUSE_MAX, "fdtd_kernels.h announces the deepest pass");
constexpr int kPitch = kCols + 2;         // a pad column on each side (read by the box's edge nodes only)
constexpr int kCap = GS_FDTD_FUSE_POINTS; // sources or receivers a block lists (more: it scans the whole list)
// GS_FDTD_FUSE_MINB, _EDGE: blocks per SM asked of the compiler for the
// plain and the edge kernel (tuning knobs: they cap the registers;
// scripts/diag/tuning_variants.sh times them).
#ifndef GS_FDTD_FUSE_MINB
#define GS_FDTD_FUSE_MINB 3
#endif
#ifndef GS_FDTD_FUSE_MINB_EDGE
#define GS_FDTD_FUSE_MINB_EDGE 3
#endif

// The cut of the rank's owned nodes own: strips of wo columns; segments of
// len rows, in the first and last strips (those that meet the x slabs of
// the CPML: their blocks are slower) segments of len_e rows. Boxes stay in
// lo (the nodes the arrays hold valid: the grid, and the ghost layers on
// the sides with a neighbour).
struct FusePlan {
  gs_fdtd_region own, lo;
  int wo, strips, len, segs, len_e, segs_e;
  __host__ __device__ int blocks() const {
    return (strips >= 2 ? 2 : 1) * segs_e + (strips >= 3 ? strips - 2 : 0) * segs;
  }
  // The blocks block_place puts first: the edge strips', and the other
  // strips' first and last segments.
  int ring() const {
    return (strips >= 2 ? 2 : 1) * segs_e + (strips >= 3 ? strips - 2 : 0) * (segs <= 2 ? segs : 2);
  }
};

#ifdef GS_EMULATE
#define fuse_smem (static_cast<float4 *>(gs_emu_smem()))
#else
extern __shared__ float4 fuse_smem[];
#endif

// The shared ring: kRing rows of kPitch nodes of Ez, Hx, Hy; for the
// sources (list 0) and receivers (list 1) of the block, a list per column
// (head[x], next[k]) of (row, index) entries and their counts; the CPML
// profiles (b, a, k of H, then of E) of each column's x slab and of each
// ring row's y slab, with that slab's index (-1: none); then the materials
// of the ring's nodes.
struct Ring {
  __device__ float *ez() const {
    return reinterpret_cast<float *>(fuse_smem);
  }
  __device__ float *hx() const {
    return ez() + kRing * kPitch;
  }
  __device__ float *hy() const {
    return ez() + 2 * kRing * kPitch;
  }
  __device__ int2 *entry(int list) const {
    return reinterpret_cast<int2 *>(ez() + 3 * kRing * kPitch) + list * kCap;
  }
  __device__ int *head(int list) const {
    return reinterpret_cast<int *>(entry(2)) + list * kCols;
  }
  __device__ int *next(int list) const {
    return head(2) + list * kCap;
  }
  __device__ int *count() const { // > kCap: overflowed
    return next(2);
  }
  __device__ float *xprof(int k) const { // k: 0 bh, 1 ah, 2 kh, 3 be, 4 ae, 5 ke
    return reinterpret_cast<float *>(count() + 2) + k * kCols;
  }
  __device__ float *yprof(int k) const {
    return xprof(6) + k * kRing;
  }
  __device__ int8_t *yslab() const {
    return reinterpret_cast<int8_t *>(yprof(6));
  }
  __device__ uint8_t *mat() const {
    return reinterpret_cast<uint8_t *>(yslab() + kRing);
  }
  __device__ static int at(int y, int x) {
    return (y & (kRing - 1)) * kPitch + x + 1;
  }
};

constexpr size_t kSmemBytes = sizeof(float) * 3 * kRing * kPitch + sizeof(int2) * 2 * kCap +
                              sizeof(int) * (2 * kCols + 2 * kCap + 2) + sizeof(float) * 6 * (kCols + kRing) + kRing +
                              kRing * kPitch;

// The block's box: its first node (x0, y0), w x h nodes loaded, and the
// owned ones among them, local [ox0, ox1) x [oy0, oy1).
struct Box {
  int64_t x0, y0;
  int w, h, ox0, ox1, oy0, oy1;
};

// Block b's strip s, first owned row j0 and owned rows len: the edge
// strips' blocks first (the slow ones, started first so that they do not
// trail the launch), then the other strips' first and last segments (the y
// slabs), then the rest row by row.
__device__ void block_place(const FusePlan &p, int b, int &s, int64_t &j0, int &len) {
  const int S = p.strips, edges = S >= 2 ? 2 : 1, inner = S - 2, Q = p.segs;
  if (b < edges * p.segs_e) {
    s = b % edges ? S - 1 : 0;
    j0 = (int64_t)(b / edges) * p.len_e;
    len = p.len_e;
    return;
  }
  b -= edges * p.segs_e;
  int q;
  if (Q <= 2) {
    q = b / inner;
  } else if (b < 2 * inner) {
    q = b < inner ? 0 : Q - 1;
  } else {
    b -= 2 * inner;
    q = 1 + b / inner;
  }
  s = 1 + b % inner;
  j0 = (int64_t)q * p.len;
  len = p.len;
}

__device__ Box box_of(const gs_fdtd_step_args &a, const FusePlan &p, int T, int block) {
  int s, len;
  int64_t j0;
  block_place(p, block, s, j0, len);
  const int64_t i0 = p.own.i0 + (int64_t)s * p.wo, i1 = min(i0 + p.wo, p.own.i1);
  j0 += p.own.j0;
  const int64_t j1 = min(j0 + len, p.own.j1);
  Box b;
  b.x0 = max(i0 - T, p.lo.i0);
  b.y0 = max(j0 - T, p.lo.j0);
  b.w = (int)(min(i1 + T, p.lo.i1) - b.x0);
  b.h = (int)(min(j1 + T, p.lo.j1) - b.y0);
  b.ox0 = (int)(i0 - b.x0);
  b.ox1 = (int)(i1 - b.x0);
  b.oy0 = (int)(j0 - b.y0);
  b.oy1 = (int)(j1 - b.y0);
  return b;
}

// This thread's column: its place in the box, its global index, and its x
// slab (index in the slab list, -1: none).
struct Col {
  int x, i, sx;
};

__device__ int slab_at(const gs_fdtd_step_args &a, int dir, int64_t along) {
  for (int q = 0; q < a.nslab; ++q)
    if (a.slab[q].dir == dir && along >= a.slab[q].lo && along < a.slab[q].hi) return q;
  return -1;
}

// The psi word of slab p at node (along, other); -1: the slab does not span the node across.
__device__ __forceinline__ int64_t psi_word(const gs_fdtd_slab &p, int64_t along, int64_t other) {
  if (other < p.o0 || other >= p.o1) return -1;
  return gs_fdtd_psi_word(&p, along, other);
}

// A thread's psi, per ring row: the x slab's (E, H), then the y slab's (E, H).
typedef float PsiRing[kRing][4];

// psi of the column's node in box row y from the input arrays.
__device__ void load_psi(const gs_fdtd_step_args &a, const Box &b, const Col &c, int y, PsiRing &psi) {
  float *p = psi[y & (kRing - 1)];
  const int64_t j = b.y0 + y;
  if (c.sx >= 0) {
    const int64_t w = psi_word(a.slab[c.sx], c.i, j);
    if (w >= 0) {
      p[0] = a.slab[c.sx].psi_e_in[w];
      p[1] = a.slab[c.sx].psi_h_in[w];
    }
  }
  const int sy = slab_at(a, 1, j);
  if (sy >= 0) {
    const int64_t w = psi_word(a.slab[sy], j, c.i);
    if (w >= 0) {
      p[2] = a.slab[sy].psi_e_in[w];
      p[3] = a.slab[sy].psi_h_in[w];
    }
  }
}

// psi of the column's node in box row y to the output arrays, where a
// single step writes it (H's where that H is updated, E's at interior nodes).
__device__ void store_psi(const gs_fdtd_step_args &a, const Box &b, const Col &c, int y, const PsiRing &psi) {
  const float *p = psi[y & (kRing - 1)];
  const int64_t j = b.y0 + y;
  const bool interior = gs_fdtd_interior(&a, c.i, j);
  if (c.sx >= 0) {
    const int64_t w = psi_word(a.slab[c.sx], c.i, j);
    if (w >= 0) {
      if (interior) a.slab[c.sx].psi_e_out[w] = p[0];
      if (c.i < a.nx) a.slab[c.sx].psi_h_out[w] = p[1];
    }
  }
  const int sy = slab_at(a, 1, j);
  if (sy >= 0) {
    const int64_t w = psi_word(a.slab[sy], j, c.i);
    if (w >= 0) {
      if (interior) a.slab[sy].psi_e_out[w] = p[2];
      if (j < a.ny) a.slab[sy].psi_h_out[w] = p[3];
    }
  }
}

// A node as the input arrays hold it (0 outside the box).
struct Node {
  float ez, hx, hy;
  uint8_t m;
};

__device__ __forceinline__ Node read_node(const gs_fdtd_step_args &a, const Box &b, const Col &c, int y) {
  Node n = {0.f, 0.f, 0.f, 0};
  if (c.x < b.w && y < b.h) {
    const int64_t k = gs_fdtd_at(&a, c.i, b.y0 + y);
    n.ez = a.ez[k];
    n.hx = a.hx[k];
    n.hy = a.hy[k];
    n.m = a.mat[k];
  }
  return n;
}

// Whether box node (x, y) belongs on list 0 (sources: anywhere in the box,
// the margins advance too) or list 1 (receivers: the owned nodes sample).
__device__ __forceinline__ bool listed(const Box &b, int list, int64_t x, int64_t y) {
  return list == 0 ? x >= 0 && x < b.w && y >= 0 && y < b.h : x >= b.ox0 && x < b.ox1 && y >= b.oy0 && y < b.oy1;
}

__device__ __forceinline__ void box_place(const gs_fdtd_step_args &a, const Box &b, int64_t off, int64_t &x,
                                          int64_t &y) {
  y = off / a.pitch - a.g + a.oj - b.y0;
  x = off % a.pitch - a.g + a.oi - b.x0;
}

// The block's points of a list on their columns' lists (n of them at off).
__device__ void list_points(const gs_fdtd_step_args &a, const Box &b, const Ring &r, int list, const int64_t *off,
                            int n) {
  r.head(list)[threadIdx.x] = -1;
  if (threadIdx.x == 0) r.count()[list] = 0;
  __syncthreads();
  for (int m = threadIdx.x; m < n; m += kCols) {
    int64_t x, y;
    box_place(a, b, off[m], x, y);
    if (!listed(b, list, x, y)) continue;
    const int k = atomicAdd(r.count() + list, 1);
    if (k >= kCap) continue; // the block scans the whole list instead
    r.entry(list)[k] = make_int2((int)y, m);
    r.next(list)[k] = atomicExch(r.head(list) + x, k);
  }
}

// f(y, m) for the points m of a list on this thread's column in box rows [ylo, yhi).
template <typename F>
__device__ __forceinline__ void column_points(const gs_fdtd_step_args &a, const Box &b, const Ring &r, const Col &c,
                                              int list, const int64_t *off, int n, int ylo, int yhi, F f) {
  const int count = r.count()[list];
  if (count == 0) return;
  if (count <= kCap) {
    for (int k = r.head(list)[c.x]; k >= 0; k = r.next(list)[k]) {
      const int2 e = r.entry(list)[k];
      if (e.x >= ylo && e.x < yhi) f(e.x, e.y);
    }
    return;
  }
  for (int m = 0; m < n; ++m) { // overflowed: the whole list
    int64_t x, y;
    box_place(a, b, off[m], x, y);
    if (x == c.x && y >= ylo && y < yhi && listed(b, list, x, y)) f((int)y, m);
  }
}

// The receivers on this column in box rows [ylo, yhi) at the fields of step t.
__device__ __forceinline__ void sample_rows(const gs_fdtd_run_args &r, const Box &b, const Ring &ring, const Col &c,
                                            int ylo, int yhi, int64_t t) {
  float *out = r.rx_out + t % r.rx_slots * 3 * r.nrx;
  column_points(r.set[0], b, ring, c, 1, r.rx_off, r.nrx, ylo, yhi, [&](int y, int m) {
    const int s = Ring::at(y, c.x);
    out[3 * m] = ring.ez()[s];
    out[3 * m + 1] = ring.hx()[s];
    out[3 * m + 2] = ring.hy()[s];
  });
}

// The sources on this column in box rows [ylo, yhi) at step t, into the new Ez.
__device__ __forceinline__ void inject_rows(const gs_fdtd_run_args &r, const Box &b, const Ring &ring, const Col &c,
                                            int ylo, int yhi, int64_t t) {
  const float *val = r.src_val + t * r.src_stride;
  column_points(r.set[0], b, ring, c, 0, r.src_off, r.nsrc, ylo, yhi, [&](int y, int m) {
    const int s = Ring::at(y, c.x);
    ring.ez()[s] = ring.ez()[s] - val[m]; // distinct nodes (checked by the parser)
  });
}

// The CPML correction on a new H (gs_fdtd_hx_from / hy_from's expressions:
// sign -1 for Hx, +1 for Hy), with profiles pr (bh, ah, kh) at the node;
// psi the node's, updated.
__device__ __forceinline__ float slab_h(const float *pr, int stride, bool hx, float h, float cb, float d, float &psi) {
  const float old = psi;
  psi = pr[0] * old + pr[stride] * d;
  const float corr = cb * (pr[2 * stride] * d + old);
  return hx ? h - corr : h + corr;
}

// The CPML correction on a new Ez (gs_fdtd_e_from's): dir 0 with dHy and
// CBx, dir 1 with dHx and CBy; pr the E profiles (be, ae, ke) at the node.
__device__ __forceinline__ float slab_e(const float *pr, int stride, int dir, float ez, float4 c, float dhy, float dhx,
                                        float &psi) {
  const float d = dir == 0 ? dhy : dhx, old = psi;
  psi = pr[0] * old + pr[stride] * d;
  return dir == 0 ? ez + c.y * (pr[2 * stride] * d + old) : ez - c.z * (pr[2 * stride] * d + old);
}

// Whether slab q spans node `other` across (its psi words hold the node).
__device__ __forceinline__ bool spans(const gs_fdtd_step_args &a, int q, int other) {
  return other >= a.slab[q].o0 && other < a.slab[q].o1;
}

// New H of the column's nodes in box rows [y0, y0 + kRows), in place. Every
// value is read before any is written (the compiler cannot tell the ring's
// rows apart: interleaved, each row would wait for the last one's stores).
template <bool kSlabs>
__device__ __forceinline__ void h_rows(const gs_fdtd_step_args &a, const Box &b, const Ring &r, const Col &c, int y0,
                                       PsiRing &psi) {
  const float chx = a.chx, chy = a.chy;
  const int j0 = (int)b.y0 + y0, ny = (int)a.ny;
  const bool hy_on = c.i < (int)a.nx;
  float e[kRows + 1], er[kRows], hx[kRows], hy[kRows];
#pragma unroll
  for (int k = 0; k <= kRows; ++k)
    e[k] = r.ez()[Ring::at(y0 + k, c.x)];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int s = Ring::at(y0 + k, c.x);
    er[k] = r.ez()[s + 1];
    hx[k] = r.hx()[s];
    hy[k] = r.hy()[s];
  }
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int y = y0 + k, s = Ring::at(y, c.x), j = j0 + k;
    if (j < ny) {
      const float d = e[k + 1] - e[k];
      float h = hx[k] - chy * d;
      const int sy = kSlabs ? r.yslab()[y & (kRing - 1)] : -1;
      if (kSlabs && sy >= 0 && spans(a, sy, c.i))
        h = slab_h(r.yprof(0) + (y & (kRing - 1)), kRing, true, h, chy, d, psi[y & (kRing - 1)][3]);
      r.hx()[s] = h;
    }
    if (hy_on) {
      const float d = er[k] - e[k];
      float h = hy[k] + chx * d;
      if (kSlabs && c.sx >= 0 && spans(a, c.sx, j))
        h = slab_h(r.xprof(0) + c.x, kCols, false, h, chx, d, psi[y & (kRing - 1)][1]);
      r.hy()[s] = h;
    }
  }
}

// New Ez of the column's interior nodes in box rows [y0, y0 + kRows), in
// place (every value read first, as h_rows); the slabs' corrections in the
// order of the slab list.
template <bool kSlabs>
__device__ __forceinline__ void e_rows(const gs_fdtd_step_args &a, const Box &b, const Ring &r, const Col &c, int y0,
                                       PsiRing &psi) {
  const float4 *coef = reinterpret_cast<const float4 *>(a.coef);
  const int j0 = (int)b.y0 + y0, ny = (int)a.ny;
  if (c.i < 1 || c.i >= (int)a.nx) return; // the PEC walls keep Ez = 0
  float hx[kRows + 1], hy[kRows], hl[kRows], ez[kRows];
  uint8_t m[kRows];
  hx[0] = r.hx()[Ring::at(y0 - 1, c.x)];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int s = Ring::at(y0 + k, c.x);
    hx[k + 1] = r.hx()[s];
    hy[k] = r.hy()[s];
    hl[k] = r.hy()[s - 1];
    ez[k] = r.ez()[s];
    m[k] = r.mat()[s];
  }
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int y = y0 + k, j = j0 + k;
    if (j < 1 || j >= ny) continue;
    const float dhy = hy[k] - hl[k], dhx = hx[k + 1] - hx[k];
    const float4 cf = __ldg(coef + m[k]);
    float v = cf.x * ez[k] + (cf.y * dhy - cf.z * dhx);
    if (kSlabs) {
      const int sy = r.yslab()[y & (kRing - 1)], sx = c.sx;
      float *p = psi[y & (kRing - 1)];
      const bool in_x = sx >= 0 && spans(a, sx, j), in_y = sy >= 0 && spans(a, sy, c.i);
      const float *px = r.xprof(3) + c.x, *py = r.yprof(3) + (y & (kRing - 1));
      if (in_x && (!in_y || sx < sy)) {
        v = slab_e(px, kCols, 0, v, cf, dhy, dhx, p[0]);
        if (in_y) v = slab_e(py, kRing, 1, v, cf, dhy, dhx, p[2]);
      } else if (in_y) {
        v = slab_e(py, kRing, 1, v, cf, dhy, dhx, p[2]);
        if (in_x) v = slab_e(px, kCols, 0, v, cf, dhy, dhx, p[0]);
      }
    }
    r.ez()[Ring::at(y, c.x)] = v;
  }
}

// The six profiles of slab q at index `along` into dst[0], dst[stride], ...
__device__ void copy_profiles(const gs_fdtd_slab &p, int64_t along, float *dst, int stride) {
  const int64_t q = along - p.lo;
  const float *src[6] = {p.bh, p.ah, p.kh, p.be, p.ae, p.ke};
#pragma unroll
  for (int k = 0; k < 6; ++k)
    dst[k * stride] = src[k][q];
}

// Box rows [y0, y0 + kRows) from the arrays into the ring (all loads first,
// so they are in flight together); in a block that meets the CPML also
// their psi, and each row's y slab and its profiles (thread k: row y0 + k).
template <bool kSlabs>
__device__ __forceinline__ void put_rows(const gs_fdtd_step_args &a, const Box &b, const Ring &r, const Col &c, int y0,
                                         PsiRing &psi) {
  Node n[kRows];
#pragma unroll
  for (int k = 0; k < kRows; ++k)
    n[k] = read_node(a, b, c, y0 + k);
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int s = Ring::at(y0 + k, c.x);
    r.ez()[s] = n[k].ez;
    r.hx()[s] = n[k].hx;
    r.hy()[s] = n[k].hy;
    r.mat()[s] = n[k].m;
  }
  if constexpr (kSlabs) {
    for (int k = 0; k < kRows; ++k)
      if (c.x < b.w && y0 + k < b.h) load_psi(a, b, c, y0 + k, psi);
    if (c.x < kRows) {
      const int y = y0 + c.x, slot = y & (kRing - 1);
      const int sy = slab_at(a, 1, b.y0 + y);
      r.yslab()[slot] = (int8_t)sy;
      if (sy >= 0) copy_profiles(a.slab[sy], b.y0 + y, r.yprof(0) + slot, kRing);
    }
  }
}

// The owned nodes of the column in box rows [y0, y0 + kRows) to the output
// arrays, where a single step writes them.
template <bool kSlabs>
__device__ __forceinline__ void store_rows(const gs_fdtd_step_args &a, const Box &b, const Ring &r, const Col &c,
                                           int y0, const PsiRing &psi) {
  if (c.x < b.ox0 || c.x >= b.ox1) return;
  for (int y = max(y0, b.oy0); y < min(y0 + kRows, b.oy1); ++y) {
    const int s = Ring::at(y, c.x);
    const int64_t j = b.y0 + y, k = gs_fdtd_at(&a, c.i, j);
    if (j < a.ny) a.hx_out[k] = r.hx()[s];
    if (c.i < a.nx) a.hy_out[k] = r.hy()[s];
    if (gs_fdtd_interior(&a, c.i, j)) a.ez_out[k] = r.ez()[s];
    if (kSlabs) store_psi(a, b, c, y, psi);
  }
}

// Whether box rows [y0, y0 + kRows) meet a y slab.
__device__ __forceinline__ bool rows_in_slab(const gs_fdtd_step_args &a, const Box &b, int y0) {
  const int64_t j0 = b.y0 + y0, j1 = j0 + kRows;
  for (int q = 0; q < a.nslab; ++q)
    if (a.slab[q].dir == 1 && j0 < a.slab[q].hi && a.slab[q].lo < j1) return true;
  return false;
}

// Level t's H, barrier, Ez, sources and receivers of box rows [y0, y0 +
// kRows). In a block that meets the CPML, a warp takes the slabs' update
// only where its columns (warp_x) or these rows meet a slab: most of an
// edge block's nodes do not.
template <bool kSlabs>
__device__ __forceinline__ void level(const gs_fdtd_run_args &r, const Box &b, const Ring &ring, const Col &c, int y0,
                                      int t, int T, bool warp_x, PsiRing &psi) {
  const gs_fdtd_step_args &a = r.set[0];
  const bool slabs = kSlabs && (warp_x || rows_in_slab(a, b, y0));
  if (slabs)
    h_rows<true>(a, b, ring, c, y0, psi);
  else
    h_rows<false>(a, b, ring, c, y0, psi);
  __syncthreads();
  if (slabs)
    e_rows<true>(a, b, ring, c, y0, psi);
  else
    e_rows<false>(a, b, ring, c, y0, psi);
  if (r.nsrc) inject_rows(r, b, ring, c, y0, y0 + kRows, r.t0 + t - 1);
  if (r.nrx && t < T) sample_rows(r, b, ring, c, y0, y0 + kRows, r.t0 + t);
  __syncthreads();
}

// The whole march of the block over its box, T levels.
template <bool kSlabs>
__device__ void march(const gs_fdtd_run_args &r, const Box &b, const Ring &ring, const Col &c, int T, PsiRing &psi) {
  const gs_fdtd_step_args &a = r.set[0];
  const bool warp_x = kSlabs && __any_sync(0xFFFFFFFFu, c.sx >= 0);
  put_rows<kSlabs>(a, b, ring, c, 0, psi);
  if (r.nrx) sample_rows(r, b, ring, c, 0, kRows, r.t0);
  __syncthreads();
  for (int base = 0; base - T < b.h; base += kRows) {
    for (int t = 1; t <= T; ++t)
      level<kSlabs>(r, b, ring, c, base - t, t, T, warp_x, psi);
    store_rows<kSlabs>(a, b, ring, c, base - T, psi);
    put_rows<kSlabs>(a, b, ring, c, base + kRows, psi);
    if (r.nrx) sample_rows(r, b, ring, c, base + kRows, base + 2 * kRows, r.t0);
    __syncthreads();
  }
}

// Blocks [first, first + gridDim.x) of the cut. kEdge: blocks that may meet
// the CPML (the general kernel); the others take the plain update only, in
// a kernel of their own: without the slabs' code the compiler fits it in
// the registers of 3 blocks an SM without spilling (the general one spills).
template <bool kEdge>
__global__ void __launch_bounds__(kCols, kEdge ? GS_FDTD_FUSE_MINB_EDGE : GS_FDTD_FUSE_MINB)
    fuse_kernel(const gs_fdtd_run_args r, const FusePlan p, int T, int first) {
  const gs_fdtd_step_args &a = r.set[0];
  const Box b = box_of(a, p, T, first + (int)blockIdx.x);
  const Ring ring;
  if (threadIdx.x < kRing) ring.yslab()[threadIdx.x] = -1; // rows never loaded meet no slab
  list_points(a, b, ring, 0, r.src_off, r.nsrc);           // (its barrier orders the line above too)
  list_points(a, b, ring, 1, r.rx_off, r.nrx);
  __syncthreads();
  const gs_fdtd_region box = {b.x0, b.x0 + b.w, b.y0, b.y0 + b.h};
  Col c;
  c.x = (int)threadIdx.x;
  c.i = (int)b.x0 + c.x;
  c.sx = -1;
  PsiRing psi;
  if (kEdge && gs_fdtd_slabs_reach(&a, box)) {
    c.sx = slab_at(a, 0, c.i);
    if (c.sx >= 0) copy_profiles(a.slab[c.sx], c.i, ring.xprof(0) + c.x, kCols);
    march<true>(r, b, ring, c, T, psi);
  } else {
    march<false>(r, b, ring, c, T, psi);
  }
}

// What a device needs for the fused passes, set up once per device: the
// kernels' shared-memory opt-in, the plain kernel's resident blocks (0:
// unknown), and a second stream with the events that fork the edge blocks
// onto it and join them back.
struct FuseDevice {
  int resident;
  cudaStream_t side;
  cudaEvent_t fork, join;
};

template <bool kEdge> static bool allow_smem() {
  return cudaFuncSetAttribute(fuse_kernel<kEdge>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes) ==
             cudaSuccess &&
         cudaFuncSetAttribute(fuse_kernel<kEdge>, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared) == cudaSuccess; // room for GS_FDTD_FUSE_MINB blocks
}

static const FuseDevice *fuse_device() {
  static FuseDevice seen[64];
  static bool known[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    cudaGetLastError();
    return NULL;
  }
  FuseDevice &d = seen[dev];
  if (!known[dev]) {
    known[dev] = true;
    int per = 0;
    if (!allow_smem<true>() || !allow_smem<false>() ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fuse_kernel<false>, kCols, kSmemBytes) != cudaSuccess ||
        cudaStreamCreateWithFlags(&d.side, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&d.fork, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&d.join, cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError(); // the failed call's error: the passes are then not taken (the host says so)
      if (d.side) cudaStreamDestroy(d.side);
      if (d.fork) cudaEventDestroy(d.fork);
      d.side = NULL;
      d.fork = NULL;
      per = 0;
    }
    d.resident = per * gs_sm_count();
  }
  return d.resident > 0 ? &d : NULL;
}

// Segments of len rows or more (16 T at least: the margins stay small)
// cutting Y rows: how many.
static int64_t segments(int64_t Y, int64_t &len, int T) {
  if (len < 16 * T) len = 16 * T;
  return (Y + len - 1) / len;
}

// The nodes the arrays hold valid around own: the grid's, and g ghost
// layers on the sides with a neighbour; false when a side with one has fewer
// than T (a pass reads T beyond what it owns).
static bool valid_nodes(const gs_fdtd_step_args *a, gs_fdtd_region own, int T, gs_fdtd_region *lo) {
  const int64_t g = a->g, X = a->nx + 1, Y = a->ny + 1;
  if (own.i0 != a->oi || own.j0 != a->oj || own.i0 < 0 || own.j0 < 0 || own.i1 <= own.i0 || own.j1 <= own.j0 ||
      own.i1 > X || own.j1 > Y)
    return false;
  const bool nb[4] = {(own.i0 > 0), (own.i1 < X), (own.j0 > 0), (own.j1 < Y)}; // a neighbour beyond each side
  if (g < T && (nb[0] || nb[1] || nb[2] || nb[3])) return false;
  *lo = gs_fdtd_region{nb[0] ? own.i0 - g : 0, nb[1] ? own.i1 + g : X, nb[2] ? own.j0 - g : 0, nb[3] ? own.j1 + g : Y};
  return true;
}

// The cut for T steps: strips of 256 - 2T owned columns; segments short
// enough that the blocks fill the GPU about four times over, a quarter of
// that in the edge strips (their warps that meet the x slabs take the CPML
// update on every row: measured about 3.6x slower, docs/performance.md).
static bool plan_fuse(const gs_fdtd_step_args *a, gs_fdtd_region own, int T, FusePlan *p) {
  if (T < 1 || T > kMaxT || !gs_fdtd_fuse_takes(a) || a->nx >= (1 << 30) || a->ny >= (1 << 30)) return false;
  if (!valid_nodes(a, own, T, &p->lo)) return false;
  const FuseDevice *d = fuse_device();
  if (!d) return false;
  const int resident = d->resident;
  p->own = own;
  const int64_t X = own.i1 - own.i0, Y = own.j1 - own.j0;
  p->wo = kCols - 2 * T;
  const int64_t strips = (X + p->wo - 1) / p->wo;
  const int64_t want = 4 * (int64_t)resident / strips > 0 ? 4 * (int64_t)resident / strips : 1;
  int64_t len = (Y + want - 1) / want, len_e = len / 4;
  const int64_t segs = segments(Y, len, T), segs_e = segments(Y, len_e, T);
  if (strips * segs_e >= (int64_t)1 << 30 || len >= (int64_t)1 << 30) return false;
  p->strips = (int)strips;
  p->len = (int)len;
  p->segs = (int)segs;
  p->len_e = (int)len_e;
  p->segs_e = (int)segs_e;
  return true;
}

} // namespace

extern "C" int gs_fdtd_fuse_fits_cuda(const gs_fdtd_step_args *a) {
  return gs_fdtd_fuse_takes(a) && a->nx < (1 << 30) && a->ny < (1 << 30) && fuse_device() ? kMaxT : 0;
}

// Whether the blocks after the ring (p.ring()) are all out of the CPML's
// reach: their boxes lie in strips 1 .. S - 2 and segments 1 .. Q - 2.
static bool inner_free(const gs_fdtd_step_args *a, const FusePlan &p, int T) {
  if (p.strips < 3 || p.segs < 3) return true; // no such blocks
  const gs_fdtd_region inner = {p.own.i0 + p.wo - T, p.own.i0 + (int64_t)(p.strips - 1) * p.wo + T,
                                p.own.j0 + p.len - T, p.own.j0 + (int64_t)(p.segs - 1) * p.len + T};
  return !gs_fdtd_slabs_reach(a, inner);
}

extern "C" int gs_fdtd_fuse_cuda(const gs_fdtd_run_args *a, int64_t steps, void *stream) {
  FusePlan p;
  if (steps < 1 || steps > kMaxT || !plan_fuse(&a->set[0], a->own, (int)steps, &p))
    return (int)cudaErrorInvalidConfiguration;
  const FuseDevice *d = fuse_device();
  const cudaStream_t s = (cudaStream_t)stream;
  const int T = (int)steps, all = p.blocks(), edge = inner_free(&a->set[0], p, T) ? p.ring() : all;
  if (edge == all) {
    return (int)gs_launch::plain(fuse_kernel<true>, dim3((unsigned)all), dim3(kCols), (unsigned)kSmemBytes, s, *a, p, T,
                                 0);
  }
  // The edge blocks on the second stream, beside the plain ones: in the
  // same stream the plain kernel would wait for the slowest edge block.
  cudaError_t e = cudaEventRecord(d->fork, s);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(d->side, d->fork, 0);
  if (e != cudaSuccess) return (int)e;
  e = gs_launch::plain(fuse_kernel<true>, dim3((unsigned)edge), dim3(kCols), (unsigned)kSmemBytes, d->side, *a, p, T,
                       0);
  if (e != cudaSuccess) return (int)e;
  e = gs_launch::plain(fuse_kernel<false>, dim3((unsigned)(all - edge)), dim3(kCols), (unsigned)kSmemBytes, s, *a, p, T,
                       edge);
  if (e != cudaSuccess) return (int)e;
  e = cudaEventRecord(d->join, d->side);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(s, d->join, 0);
  return (int)e;
}

// 3D FDTD (Yee) kernels: the expressions of kernels/fdtd3d_node.h, shared
// with the CPU twin, compiled with --fmad=false so CPU and GPU agree bit for
// bit. A fused marching kernel takes the box no slab reaches (one pass per
// step): the staged one (ring_kernel: z-planes copied into shared memory
// ahead with cp.async), or where arrays are not 16-byte aligned the former
// register-prefetch one (march_kernel). With free-space H, first-order
// HORIPML and aligned arrays its z-slab variant (Shell) takes the z slabs'
// nodes above and below that box, in its rows and columns, where the box
// gives at least two tiles a plane per SM (step_shell). The rest (the x and
// y slabs, the outer planes; every slab node with magnetic H or another CPML
// form, or on smaller models) takes two one-thread-per-node kernels, new H
// then new E: by axes (gs_fdtd3_boxes_cuda) where the step's region starts
// at node (0, 0, 0) (one rank; the origin part's core on several), else
// (the other parts of a model split over ranks, slabs that meet) with a
// loop over each node's slabs (launch_box_kernel).
// Every E kernel advances the fused dispersive poles of its nodes
// (kernels/fdtd3d_disp.h); the marching kernels have a variant with them
// (template Poles) launched only for a scene with fused poles, so the plain
// variants stay as they were.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "fdtd3d_kernels.h"
#include "fdtd3d_node.h"
#include "sm_count.cuh"

namespace {

// Whether the environment's variable name is value (the measuring knobs; each
// caller reads it once and keeps the answer).
bool knob(const char *name, const char *value) {
  const char *v = getenv(name);
  return v && !strcmp(v, value);
}

// The environment's variable name as a positive number, else fallback.
int knob_int(const char *name, int fallback) {
  const char *v = getenv(name);
  const int n = v ? atoi(v) : 0;
  return n > 0 ? n : fallback;
}

// The boxes the fused kernel does not take (CPML, magnetic H, outer nodes),
// one launch for all of them: a 1D grid, box z taking blocks [first[z],
// first[z + 1]), each block 256 consecutive nodes (i fastest) of one plane of
// the box, so that thin boxes (the x slabs, a few nodes wide) still fill
// whole warps (flat; else tiles of 32 x kNodeRows nodes, as before: 11 of 32
// lanes busy in a 10-cell x slab).
constexpr int kNodeRows = 8;
// Resident blocks per SM the box kernels' registers must allow: 6 (at most 40 registers, a few
// bytes spilled, where the unbounded build, -DGS_FDTD3_BOX_MINB=1, takes 42-64 and fits 4-5 blocks
// of 256 threads). Their warps mostly wait on global loads, and the sixth block hides more of that
// than the spills cost: an H200 took 11 % less time for the magnetic scene's step, 3.5 % less for
// the Debye scene's, 1 % less for the cubes' (docs/performance.md).
#ifndef GS_FDTD3_BOX_MINB
#define GS_FDTD3_BOX_MINB 6
#endif
struct Boxes {
  int n, flat;
  gs_fdtd3_region r[7];
  unsigned first[8], bx[7], by[7];
  unsigned cand[7]; // the slabs that may reach a node of the box (slabs_near)
  gs_fdtd3_geo geo; // the slabs' geometry (gs_fdtd3_geo_of)
};

__device__ __forceinline__ bool box_node(const Boxes &b, int64_t &i, int64_t &j, int64_t &k, unsigned &cand) {
  unsigned blk = blockIdx.x, z = 0;
  while (z + 1 < (unsigned)b.n && blk >= b.first[z + 1])
    ++z;
  blk -= b.first[z];
  cand = b.cand[z];
  const gs_fdtd3_region &r = b.r[z];
  const unsigned plane = b.flat ? b.by[z] : b.bx[z] * b.by[z];
  k = r.k0 + blk / plane;
  blk %= plane;
  if (b.flat) { // bx: nodes per row, by: blocks per plane
    const unsigned w = b.bx[z], at = blk * 32 * kNodeRows + threadIdx.y * 32 + threadIdx.x;
    i = r.i0 + at % w;
    j = r.j0 + at / w;
    return j < r.j1;
  }
  i = r.i0 + (int64_t)(blk % b.bx[z]) * 32 + threadIdx.x;
  j = r.j0 + (int64_t)(blk / b.bx[z]) * kNodeRows + threadIdx.y;
  return i < r.i1 && j < r.j1;
}

// New H of every node of the boxes (two passes: the E pass reads it); Form:
// the CPML form (one kernel per form: the first-order HORIPML one is the
// plain code, the others' terms and registers do not reach it).
template <int Form>
__global__ void __launch_bounds__(32 * kNodeRows, GS_FDTD3_BOX_MINB)
    h_kernel(const gs_fdtd3_step_args a, const Boxes b) {
  int64_t i, j, k;
  unsigned cand;
  if (box_node(b, i, j, k, cand)) gs_fdtd3_h_node(&a, i, j, k, Form, cand, &b.geo);
}

// New E of every node of the boxes; r: the caller's region, whose new H is
// all stored by now (fused kernel and h_kernel); Poles: the fused poles too,
// of kind PK (fdtd3d_node.h: GS_FDTD3_PK, 0 for any).
template <bool Poles, int Form, int PK>
__global__ void __launch_bounds__(32 * kNodeRows, GS_FDTD3_BOX_MINB)
    e_kernel(const gs_fdtd3_step_args a, const Boxes b, const gs_fdtd3_region r) {
  int64_t i, j, k;
  unsigned cand;
  if (box_node(b, i, j, k, cand)) gs_fdtd3_e_node(&a, r, i, j, k, Poles, PK, Form, cand, &b.geo);
}

// The pole kinds with kernels of their own: up to 3 poles, real (Debye;
// gprMax's Peplinski soils have one) or complex (Lorentz, Drude). With the
// count and the kind known at compile time the pole loops unroll and the
// state's stride is a constant: on an H200 the fused kernel issues 28 % fewer
// instructions and the Debye scene's step takes 0.529 ms, not 0.580
// (docs/performance.md). Other counts, and every scene with
// GS_FDTD3_POLES=any (a measuring knob), take the kernels built for any (0).
int pole_kind(const gs_fdtd3_step_args *a) {
  static int any = -1;
  if (any < 0) any = knob("GS_FDTD3_POLES", "any");
  const int np = a->poles.npoles;
  return any || np < 1 || np > 3 ? 0 : GS_FDTD3_PK(np, a->poles.cplx ? 1 : 0);
}

// f(std::integral_constant<int, PK>()) for the pole kind pk (one of
// pole_kind's), the constant that instantiates f's kernel.
template <typename F> int with_pole_kind(int pk, F f) {
  switch (pk) {
  case GS_FDTD3_PK(1, 0):
    return f(std::integral_constant<int, GS_FDTD3_PK(1, 0)>());
  case GS_FDTD3_PK(2, 0):
    return f(std::integral_constant<int, GS_FDTD3_PK(2, 0)>());
  case GS_FDTD3_PK(3, 0):
    return f(std::integral_constant<int, GS_FDTD3_PK(3, 0)>());
  case GS_FDTD3_PK(1, 1):
    return f(std::integral_constant<int, GS_FDTD3_PK(1, 1)>());
  case GS_FDTD3_PK(2, 1):
    return f(std::integral_constant<int, GS_FDTD3_PK(2, 1)>());
  case GS_FDTD3_PK(3, 1):
    return f(std::integral_constant<int, GS_FDTD3_PK(3, 1)>());
  default:
    return f(std::integral_constant<int, 0>());
  }
}

// f(std::integral_constant<int, Form>()) for the CPML form pf (the
// constant that instantiates f's kernels; the box kernels are built once a
// form).
template <typename F> void with_pml_form(int pf, F f) {
  switch (pf) {
  case GS_FDTD3_HORIPML2:
    return f(std::integral_constant<int, GS_FDTD3_HORIPML2>());
  case GS_FDTD3_MRIPML1:
    return f(std::integral_constant<int, GS_FDTD3_MRIPML1>());
  case GS_FDTD3_MRIPML2:
    return f(std::integral_constant<int, GS_FDTD3_MRIPML2>());
  default:
    return f(std::integral_constant<int, GS_FDTD3_HORIPML1>());
  }
}

// f(poles, pk) with the constants that pick a's E box kernel of form Form:
// without poles (false, 0); with them, first-order HORIPML (gprMax's
// default) has one per pole kind (true, pole_kind), the other forms one for
// any kind (true, 0).
template <int Form, typename F> void with_e_kind(const gs_fdtd3_step_args *a, F f) {
  if (!gs_fdtd3_has_poles(a)) {
    f(std::false_type(), std::integral_constant<int, 0>());
  } else if constexpr (Form == GS_FDTD3_HORIPML1) {
    with_pole_kind(pole_kind(a), [&](auto pk) {
      f(std::true_type(), pk);
      return 0;
    });
  } else {
    f(std::true_type(), std::integral_constant<int, 0>());
  }
}

// The box kernels of form Form: H (h), or E (with_e_kind).
template <int Form>
void launch_box_form(const gs_fdtd3_step_args *a, const Boxes &b, gs_fdtd3_region r, bool h, unsigned blocks,
                     cudaStream_t s) {
  const dim3 block(32, kNodeRows);
  if (h) {
    h_kernel<Form><<<blocks, block, 0, s>>>(*a, b);
    return;
  }
  with_e_kind<Form>(a, [&](auto poles, auto pk) {
    e_kernel<decltype(poles)::value, Form, decltype(pk)::value><<<blocks, block, 0, s>>>(*a, b, r);
  });
}

// The register-prefetch fused kernel (the fallback, and the "regs" variant): a block of 32 x kRows threads takes a tile
// of 32 x kRows nodes in (i, j) and marches along k over a chunk of planes. Each thread keeps its Ex, Ey of plane k
// (loaded as plane k + 1 the step before) and its new Hx, Hy of plane k - 1 in registers; the new Hz, Hy of the node
// one lower in i come from the lane to the left (shuffles), those of the node one lower in j (Hz, Hx) from the row
// below through shared memory; lane 0 and row 0 recompute theirs. Valid in the box gs_fdtd3_inner() gives, with
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

// A node's new H and E, stored at offset o.
__device__ __forceinline__ void store_node(const gs_fdtd3_step_args &a, int64_t o, float hx, float hy, float hz,
                                           const float f[3]) {
  a.hx_out[o] = hx;
  a.hy_out[o] = hy;
  a.hz_out[o] = hz;
  a.ex_out[o] = f[0];
  a.ey_out[o] = f[1];
  a.ez_out[o] = f[2];
}

template <bool Poles>
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
    c.hx = gs_fdtd3_hsum1(hx[d], dby, ez[d + P] - ez[d], dbz, c.ey - ey[d]);
    c.hy = gs_fdtd3_hsum1(hy[d], dbz, c.ex - ex[d], dbx, ez[d + 1] - ez[d]);
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
    const float hx_c = gs_fdtd3_hsum1(cur.hx, dby, cur.ez_u - ez_c, dbz, ey_n - c.ey);
    const float hy_c = gs_fdtd3_hsum1(cur.hy, dbz, ex_n - c.ex, dbx, ez_r - ez_c);
    const float hz_c = gs_fdtd3_hsum1(cur.hz, dbx, ey_r - c.ey, dby, cur.ex_u - c.ex);
    float hz_l = __shfl_up_sync(full, hz_c, 1), hy_l = __shfl_up_sync(full, hy_c, 1);
    if (tx == 0 && i >= r.i0) {
      const int64_t l = o - 1;
      hz_l = gs_fdtd3_hsum1(hz[l], dbx, c.ey - ey[l], dby, ex[l + P] - ex[l]);
      hy_l = gs_fdtd3_hsum1(hy[l], dbz, ex[l + S] - ex[l], dbx, ez_c - ez[l]);
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
      hz_d = gs_fdtd3_hsum1(hz[d], dbx, ey[d + 1] - ey[d], dby, c.ex - ex[d]);
      hx_d = gs_fdtd3_hsum1(hx[d], dby, ez_c - ez[d], dbz, ey[d + S] - ey[d]);
    }
    const float4 cx = s_coef[cur.mx], cy = s_coef[cur.my], cz = s_coef[cur.mz]; // ca cbx cby cbz
    float f[3] = {gs_fdtd3_esum(cx.x, c.ex, cx.z, hz_c - hz_d, cx.w, hy_c - c.hy),
                  gs_fdtd3_esum(cy.x, c.ey, cy.w, hx_c - c.hx, cy.y, hz_c - hz_l),
                  gs_fdtd3_esum(cz.x, ez_c, cz.y, hy_c - hy_l, cz.z, hx_c - hx_d)};
    if (Poles && act) {
      const int mat[3] = {cur.mx, cur.my, cur.mz};
      const float e[3] = {c.ex, c.ey, ez_c};
      gs_fdtd3_e_fused3(&a, 0, o, mat, e, f);
    }
    if (act) store_node(a, o, hx_c, hy_c, hz_c, f);
    c.hx = hx_c;
    c.hy = hy_c;
    c.ex = ex_n;
    c.ey = ey_n;
    cur = nxt;
  }
}

// The staged marching kernel: a block of 32 x R threads takes a tile of W x R
// nodes in (i, j) (W = 32 or 64: a thread takes W / 32 nodes of its row, 32
// apart) and marches along k; the planes it reads (the six fields over the
// tile with one more column and row on each side where the update reads them,
// and the three material bytes) go through a ring of D shared-memory slots
// filled with cp.async, D - 2 planes ahead of the one computed, so the loads
// of the coming planes are in flight while plane k is computed and a thread
// waits on no load of its own. Every neighbour's new H is recomputed from the
// staged plane (no shuffles, one barrier per plane). Same expressions, same
// order as fdtd3d_node.h, so the same bits.
constexpr int kRingPad = 4; // column of i = I in a staged row (16-byte aligned)

template <int R, int W> struct RingSlot {
  float f[6][R + 2][W + 8]; // ex ey ez hx hy hz, rows j = J - 1 .. J + R, i = I - 1 .. I + W at 3 ..
  unsigned char m[3][R][W]; // mex mey mez, rows j = J .. J + R - 1
};

__device__ __forceinline__ void cp_async16_at(unsigned dst, const void *src, bool ok) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0) : "memory");
}

__device__ __forceinline__ void cp_async4_at(unsigned dst, const void *src, bool ok) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 4 : 0) : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// What a thread copies of every plane, worked out once per block: the
// copies a tile needs (only those the update reads: rows J - 1 and J + R of
// the fields that use them, the side columns of those that use them) spread
// over the threads, NS of 16 bytes (field row pieces, then material bytes)
// and one of 4 bytes (a side column). src: the plane-0 address; dst: offset
// in a slot, kZero set where the copy is zero-filled (rows past ny, columns
// outside the row), kNone where there is none.
constexpr unsigned kZero = 1u, kNone = ~0u;
template <int R, int W> struct RingShape {
  static constexpr int seg = W / 4, rows = 6 * R + 7, mseg = W / 16;
  static constexpr int copies16 = seg * rows + 3 * R * mseg, ns = (copies16 + 32 * R - 1) / (32 * R);
};
template <int NS> struct RingTasks {
  const char *src[NS + 1];
  unsigned dst[NS + 1];
  unsigned mat; // bit s: copy s takes material bytes (plane step: plane bytes, not 4 plane)
};

// Rows (of the R + 2 staged) the update reads, per field: ex ey ez hx hy hz.
__device__ __forceinline__ void ring_rows(int c, int R, int &first, int &count) {
  first = c == 4 ? 1 : 0;
  count = c == 0 || c == 2 ? R + 2 : c == 4 ? R : R + 1;
}

template <int R, int W>
__device__ __forceinline__ void ring_task_field(const gs_fdtd3_step_args &a, int64_t I, int64_t J, int c, int y, int x,
                                                const char *&src, unsigned &dst) {
  const float *f = c == 0 ? a.ex : c == 1 ? a.ey : c == 2 ? a.ez : c == 3 ? a.hx : c == 4 ? a.hy : a.hz;
  const int64_t j = J - 1 + y, i = I + x - kRingPad;
  const bool ok = j >= a.held.j0 && j < a.held.j1 && i >= a.held.i0 && i < a.held.i1;
  src = (const char *)(f + (ok ? j * a.pitch + i : J * a.pitch + I));
  dst = (unsigned)((c * (R + 2) + y) * (W + 8) + x) * 4u | (ok ? 0u : kZero);
}

// The 16-byte copy number g (row pieces, then material bytes); mat: the latter.
template <int R, int W>
__device__ __forceinline__ void ring_task16(const gs_fdtd3_step_args &a, int64_t I, int64_t J, int g, const char *&src,
                                            unsigned &dst, bool &mat) {
  using S = RingShape<R, W>;
  int row = g / S::seg, first, count;
  mat = false;
#pragma unroll
  for (int c = 0; c < 6; ++c) {
    ring_rows(c, R, first, count);
    if (row >= 0 && row < count) ring_task_field<R, W>(a, I, J, c, first + row, kRingPad + 4 * (g % S::seg), src, dst);
    row -= count;
  }
  if (row < 0) return;
  const int m = g - S::seg * S::rows; // material copies: 3 arrays x R rows x W / 16
  if (m >= 3 * R * S::mseg) {
    dst = kNone;
    return;
  }
  const int c = m / (R * S::mseg), y = m / S::mseg % R, seg = m % S::mseg;
  const unsigned char *f = c == 0 ? a.mex : c == 1 ? a.mey : a.mez;
  const int64_t j = J + y;
  const bool ok = j >= a.held.j0 && j < a.held.j1 && I + 16 * seg < a.held.i1; // not past the last row's end
  src = (const char *)(f + (ok ? j : J) * a.pitch + I + 16 * seg);
  constexpr unsigned fields = sizeof(float) * 6 * (R + 2) * (W + 8); // where RingSlot::m starts
  dst = (unsigned)(fields + (c * R + y) * W + 16 * seg) | (ok ? 0u : kZero);
  mat = true;
}

// The 4-byte copy number h: column I - 1 of ex (rows 1 .. R + 1), ey ez hy hz
// (rows 1 .. R); column I + W of ey (rows 0 .. R) and ez (rows 1 .. R).
template <int R, int W>
__device__ __forceinline__ void ring_task4(const gs_fdtd3_step_args &a, int64_t I, int64_t J, int h, const char *&src,
                                           unsigned &dst) {
  dst = kNone;
  if (h < R + 1) return ring_task_field<R, W>(a, I, J, 0, 1 + h, kRingPad - 1, src, dst);
  h -= R + 1;
  if (h < 4 * R)
    return ring_task_field<R, W>(a, I, J, h / R < 2 ? 1 + h / R : 2 + h / R, 1 + h % R, kRingPad - 1, src, dst);
  h -= 4 * R;
  if (h < R + 1) return ring_task_field<R, W>(a, I, J, 1, h, kRingPad + W, src, dst);
  h -= R + 1;
  if (h < R) return ring_task_field<R, W>(a, I, J, 2, 1 + h, kRingPad + W, src, dst);
}

template <int R, int W>
__device__ __forceinline__ RingTasks<RingShape<R, W>::ns> ring_tasks(const gs_fdtd3_step_args &a, int64_t I, int64_t J,
                                                                     int tid) {
  constexpr int NS = RingShape<R, W>::ns;
  RingTasks<NS> t;
  t.mat = 0;
#pragma unroll
  for (int q = 0; q < NS; ++q) {
    bool mat;
    ring_task16<R, W>(a, I, J, tid + q * 32 * R, t.src[q], t.dst[q], mat);
    t.mat |= mat ? 1u << q : 0u;
  }
  ring_task4<R, W>(a, I, J, tid, t.src[NS], t.dst[NS]);
  return t;
}

// Queues this thread's copies of plane kp into the slot at shared address
// slot (nothing for kp > kmax).
template <int NS>
__device__ __forceinline__ void ring_load(const RingTasks<NS> &t, unsigned slot, int64_t plane, int64_t kp,
                                          int64_t kmax) {
  if (kp > kmax) return;
  const int64_t fstep = kp * plane * 4, mstep = kp * plane;
#pragma unroll
  for (int q = 0; q < NS; ++q)
    if (t.dst[q] != kNone)
      cp_async16_at(slot + (t.dst[q] & ~kZero), t.src[q] + (t.mat >> q & 1u ? mstep : fstep), !(t.dst[q] & kZero));
  if (t.dst[NS] != kNone) cp_async4_at(slot + (t.dst[NS] & ~kZero), t.src[NS] + fstep, !(t.dst[NS] & kZero));
}

// The new H of node (row y, column x) of a staged plane (A: plane k, B: k + 1).
template <typename Slot>
__device__ __forceinline__ float ring_hx(const Slot &A, const Slot &B, int y, int x, float dby, float dbz) {
  return gs_fdtd3_hsum1(A.f[3][y][x], dby, A.f[2][y + 1][x] - A.f[2][y][x], dbz, B.f[1][y][x] - A.f[1][y][x]);
}
template <typename Slot>
__device__ __forceinline__ float ring_hy(const Slot &A, const Slot &B, int y, int x, float dbz, float dbx) {
  return gs_fdtd3_hsum1(A.f[4][y][x], dbz, B.f[0][y][x] - A.f[0][y][x], dbx, A.f[2][y][x + 1] - A.f[2][y][x]);
}
template <typename Slot> __device__ __forceinline__ float ring_hz(const Slot &A, int y, int x, float dbx, float dby) {
  return gs_fdtd3_hsum1(A.f[5][y][x], dbx, A.f[1][y][x + 1] - A.f[1][y][x], dby, A.f[0][y + 1][x] - A.f[0][y][x]);
}

__device__ __forceinline__ void prefetch_l2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(__cvta_generic_to_global(p)));
}

// The slots of the fused poles of the node at offset o1 (the node's next
// plane), found from its map words (prefetched a plane before), its pole
// state brought into L2, and with two the map words of the plane after: the
// next plane's pole loads then wait on L2, not on DRAM, and its slots are
// at hand; PK: the pole kind.
template <int PK>
__device__ __forceinline__ void poles_ahead(const gs_fdtd3_step_args &a, int64_t o1, bool two, uint32_t slot[3]) {
  const int per = gs_fdtd3_pk_per(&a.poles, PK);
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const uint32_t *w = gs_fdtd3_pole_map(&a, k, o1 + a.plane);
    if (two && w) prefetch_l2(w);
    slot[k] = gs_fdtd3_pole_index(&a, k, o1);
    const float *t = gs_fdtd3_pole_at(&a, PK, k, slot[k]);
    if (t) {
      prefetch_l2(t);
      prefetch_l2(t + per - 1);
    }
  }
}

// The new E and H of the node at row y, column x of plane A, stored at o if
// act (with Poles, the node's fused poles, of kind PK, advanced: slot holds
// their slots when carried, else they are looked up; ahead: 1 to find the
// next plane's slots into slot and bring their state into L2, 2 the plane
// after's map words too); hx_km, hy_km: its new Hx, Hy of the plane below,
// replaced by this plane's.
template <bool Poles, int PK, typename Slot>
__device__ __forceinline__ void ring_node(const gs_fdtd3_step_args &a, const Slot &A, const Slot &B,
                                          const float4 *s_coef, int y, int x, int mx, bool act, int ahead, int64_t o,
                                          float &hx_km, float &hy_km, uint32_t slot[3], bool carried) {
  float *t[3] = {};
  if (Poles && act) {
#pragma unroll
    for (int k = 0; k < 3; ++k)
      t[k] = gs_fdtd3_pole_at(&a, PK, k, carried ? slot[k] : gs_fdtd3_pole_index(&a, k, o));
    if (ahead) poles_ahead<PK>(a, o + a.plane, ahead > 1, slot);
  }
  const float dbx = a.dbx, dby = a.dby, dbz = a.dbz;
  const float hx_c = ring_hx(A, B, y, x, dby, dbz), hy_c = ring_hy(A, B, y, x, dbz, dbx);
  const float hz_c = ring_hz(A, y, x, dbx, dby);
  const float hz_l = ring_hz(A, y, x - 1, dbx, dby), hy_l = ring_hy(A, B, y, x - 1, dbz, dbx);
  const float hz_d = ring_hz(A, y - 1, x, dbx, dby), hx_d = ring_hx(A, B, y - 1, x, dby, dbz);
  const int m0 = A.m[0][y - 1][mx], m1 = A.m[1][y - 1][mx], m2 = A.m[2][y - 1][mx];
  const float4 cx = s_coef[m0], cy = s_coef[m1], cz = s_coef[m2];
  const float ex_c = A.f[0][y][x], ey_c = A.f[1][y][x], ez_c = A.f[2][y][x];
  float f[3] = {gs_fdtd3_esum(cx.x, ex_c, cx.z, hz_c - hz_d, cx.w, hy_c - hy_km), // ca cbx cby cbz
                gs_fdtd3_esum(cy.x, ey_c, cy.w, hx_c - hx_km, cy.y, hz_c - hz_l),
                gs_fdtd3_esum(cz.x, ez_c, cz.y, hy_c - hy_l, cz.z, hx_c - hx_d)};
  if (Poles && act) {
    const int mat[3] = {m0, m1, m2};
    const float e[3] = {ex_c, ey_c, ez_c};
    gs_fdtd3_e_fused3_at(&a, PK, mat, e, f, t);
  }
  if (act) store_node(a, o, hx_c, hy_c, hz_c, f);
  hx_km = hx_c;
  hy_km = hy_c;
}

// The fused kernel's z-slab variant (Shell): the same staged march over the
// planes of the z slabs above and below the plain fused box (one launch for
// both: box z takes blocks [first[z], first[z + 1]), each bx x by tiles
// times its chunks). No x or y slab reaches those nodes, so a component
// has at most one CPML term there, its plane's z slab's, whose depth and
// profile values are the same for the whole plane: a thread looks them up
// once a plane, loads the Phi its node's terms read together, and applies
// the terms in straight-line code (gs_fdtd3_horipml1, gs_fdtd3_cpml_at's
// arithmetic: the box kernels' bits). Variants with a loop over the slabs
// that reach a node, as in the box kernels, were slower than the box
// kernels (docs/performance.md).
struct ShellBoxes {
  int n;
  gs_fdtd3_region r[2];
  unsigned first[3], bx[2], by[2];
  int64_t chunk[2];
  int slab[2];                 // box z's z slab
  gs_fdtd3_slab_geo geo[2][2]; // its geometry, H (0) and E (1) (gs_fdtd3_geo)
};

// Block blockIdx.x's box (returned), the box r, its chunk length and the
// block's tile (bi, bj) and chunk bk there.
__device__ __forceinline__ int shell_block(const ShellBoxes &sh, gs_fdtd3_region &r, int64_t &chunk, unsigned &bi,
                                           unsigned &bj, unsigned &bk) {
  const int z = sh.n > 1 && blockIdx.x >= sh.first[1] ? 1 : 0;
  unsigned blk = blockIdx.x - sh.first[z];
  r = sh.r[z];
  chunk = sh.chunk[z];
  bi = blk % sh.bx[z];
  blk /= sh.bx[z];
  bj = blk % sh.by[z];
  bk = blk / sh.by[z];
  return z;
}

// Plane k's term of slab p (geometry g) for H (e = 0) or E (e = 1) in row j
// (on: the slab reaches the plane): the depth's RA - 1, RB, RE, RF and the
// Phi element of node (0, j, k).
struct ZTerm {
  bool on;
  float ra1, rb, re, rf;
  int64_t w;
};

// Whether slab geometry g reaches plane k; its Phi element of node (0, j, k).
__device__ __forceinline__ bool zterm_reaches(const gs_fdtd3_slab_geo &g, int64_t k) {
  return (int)k >= g.k0 && (int)k < g.k1;
}
__device__ __forceinline__ int64_t zterm_element(const gs_fdtd3_slab_geo &g, int64_t k, int64_t j) {
  return g.wk * k + g.wj * j + g.w0;
}

__device__ __forceinline__ ZTerm zterm(const gs_fdtd3_slab &p, const gs_fdtd3_slab_geo &g, int e, int64_t k,
                                       int64_t j) {
  ZTerm z = {};
  const int q = g.qk * (int)k + g.q0;
  z.on = zterm_reaches(g, k);
  if (!z.on) return z;
  z.ra1 = GS_LDG((e ? p.ra1e : p.ra1h) + q);
  z.rb = GS_LDG((e ? p.rbe : p.rbh) + q);
  z.re = GS_LDG((e ? p.ree : p.reh) + q);
  z.rf = GS_LDG((e ? p.rfe : p.rfh) + q);
  z.w = zterm_element(g, k, j);
  return z;
}

// Term z applied to value f (raw: the difference along z, c: the signed srce
// or srcm, phi: the old Phi); *next: the new Phi.
__device__ __forceinline__ float zterm_apply(const ZTerm &z, float cell, float raw, float c, float f, float phi,
                                             float *next) {
  return gs_fdtd3_horipml1(z.ra1, z.rb, z.re, z.rf, cell, raw, c, f, phi, next);
}

// The new E f[3] of node o (materials mat, old E e, the H differences d:
// Ex's along y and z, Ey's along z and x, Ez's along x and y) finished as
// gs_fdtd3_e_node finishes it: with fused poles "- srce phi", then the
// plane's z terms (ze with the old Phi pex, pey of Ex and Ey, where ZE; the
// new Phi stored at we of slab p), then the poles' state advanced.
template <bool Poles, int PK, bool ZE>
__device__ __forceinline__ void shell_e_finish(const gs_fdtd3_step_args &a, const gs_fdtd3_slab &p, const ZTerm &ze,
                                               int64_t we, float pex, float pey, int64_t o, const int mat[3],
                                               const float e[3], const float d[6], float f[3]) {
  float src[3], *t[3] = {}, phi[3];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    src[c] = GS_LDG(&a.coef[mat[c]].src);
    if (Poles) t[c] = gs_fdtd3_pole_slot(&a, PK, c, o);
  }
  if (Poles) {
    gs_fdtd3_poles_phi(&a, PK, mat, t, phi);
#pragma unroll
    for (int c = 0; c < 3; ++c)
      if (t[c]) f[c] = fmaf(-src[c], phi[c], f[c]);
  }
  if (ZE) {
    float nx, ny;
    f[0] = zterm_apply(ze, p.d, d[1], -src[0], f[0], pex, &nx);
    f[1] = zterm_apply(ze, p.d, d[2], src[1], f[1], pey, &ny);
    p.psi_e_out[0][we] = nx;
    p.psi_e_out[1][we] = ny;
  }
  if (Poles) {
#pragma unroll
    for (int c = 0; c < 3; ++c)
      if (t[c]) gs_fdtd3_pole_update(&a.poles, PK, mat[c], t[c], e[c], f[c], 1);
  }
}

// ring_node's z-slab twin: node i of the thread's row at row y, column x of
// plane A (B: the plane above), with slab p's terms zh (H, where ZH) and ze
// (E, where ZE); wj: the Phi arrays' row stride; in: the node lies in the
// box's rows and columns (the others' values are not used, and their Phi
// may lie outside the slab's arrays); act: and its plane is stored.
template <bool Poles, int PK, bool ZH, bool ZE, typename Slot>
__device__ __forceinline__ void shell_node(const gs_fdtd3_step_args &a, const gs_fdtd3_slab &p, const ZTerm &zh,
                                           const ZTerm &ze, int64_t wj, const Slot &A, const Slot &B,
                                           const float4 *s_coef, int y, int x, int mx, bool in, bool act, int64_t o,
                                           int64_t i, float &hx_km, float &hy_km) {
  const int64_t wh = zh.w + i, we = ze.w + i;
  float phx = 0, phy = 0, phy_l = 0, phx_d = 0, pex = 0, pey = 0; // the old Phi the terms read, loaded together
  if (ZH && in) {
    phx = GS_LDG(p.psi_h_in[0] + wh), phy = GS_LDG(p.psi_h_in[1] + wh);
    phy_l = GS_LDG(p.psi_h_in[1] + wh - 1), phx_d = GS_LDG(p.psi_h_in[0] + wh - wj);
  }
  if (ZE && act) pex = GS_LDG(p.psi_e_in[0] + we), pey = GS_LDG(p.psi_e_in[1] + we);
  const float dbx = a.dbx, dby = a.dby, dbz = a.dbz, sm = a.srcm;
  // Hx (this node's and the one below in j), Hy (this one's and the one left in i): gs_fdtd3_hx_m, gs_fdtd3_hy_m
  const float zx = B.f[1][y][x] - A.f[1][y][x], zx_d = B.f[1][y - 1][x] - A.f[1][y - 1][x];
  const float zy = B.f[0][y][x] - A.f[0][y][x], zy_l = B.f[0][y][x - 1] - A.f[0][y][x - 1];
  float hx_c = gs_fdtd3_hsum1(A.f[3][y][x], dby, A.f[2][y + 1][x] - A.f[2][y][x], dbz, zx);
  float hx_d = gs_fdtd3_hsum1(A.f[3][y - 1][x], dby, A.f[2][y][x] - A.f[2][y - 1][x], dbz, zx_d);
  float hy_c = gs_fdtd3_hsum1(A.f[4][y][x], dbz, zy, dbx, A.f[2][y][x + 1] - A.f[2][y][x]);
  float hy_l = gs_fdtd3_hsum1(A.f[4][y][x - 1], dbz, zy_l, dbx, A.f[2][y][x] - A.f[2][y][x - 1]);
  if (ZH && in) {
    float nx, ny, unused;
    hx_c = zterm_apply(zh, p.d, zx, sm, hx_c, phx, &nx);
    hy_c = zterm_apply(zh, p.d, zy, -sm, hy_c, phy, &ny);
    hy_l = zterm_apply(zh, p.d, zy_l, -sm, hy_l, phy_l, &unused);
    hx_d = zterm_apply(zh, p.d, zx_d, sm, hx_d, phx_d, &unused);
    if (act) p.psi_h_out[0][wh] = nx, p.psi_h_out[1][wh] = ny;
  }
  const float hz_c = ring_hz(A, y, x, dbx, dby), hz_l = ring_hz(A, y, x - 1, dbx, dby);
  const float hz_d = ring_hz(A, y - 1, x, dbx, dby);
  const int mat[3] = {A.m[0][y - 1][mx], A.m[1][y - 1][mx], A.m[2][y - 1][mx]};
  const float4 cx = s_coef[mat[0]], cy = s_coef[mat[1]], cz = s_coef[mat[2]]; // ca cbx cby cbz
  const float e[3] = {A.f[0][y][x], A.f[1][y][x], A.f[2][y][x]};
  const float d[6] = {hz_c - hz_d, hy_c - hy_km, hx_c - hx_km, hz_c - hz_l, hy_c - hy_l, hx_c - hx_d};
  float f[3] = {gs_fdtd3_esum(cx.x, e[0], cx.z, d[0], cx.w, d[1]), gs_fdtd3_esum(cy.x, e[1], cy.w, d[2], cy.y, d[3]),
                gs_fdtd3_esum(cz.x, e[2], cz.y, d[4], cz.z, d[5])};
  hx_km = hx_c;
  hy_km = hy_c;
  if (!act) return;
  shell_e_finish<Poles, PK, ZE>(a, p, ze, we, pex, pey, o, mat, e, d, f);
  store_node(a, o, hx_c, hy_c, hz_c, f);
}

// shell_node with the plane's terms as constants (a branch the whole block
// takes alike).
template <bool Poles, int PK, typename Slot>
__device__ __forceinline__ void shell_node_any(const gs_fdtd3_step_args &a, const gs_fdtd3_slab &p, const ZTerm &zh,
                                               const ZTerm &ze, int64_t wj, const Slot &A, const Slot &B,
                                               const float4 *s_coef, int y, int x, int mx, bool in, bool act, int64_t o,
                                               int64_t i, float &hx_km, float &hy_km) {
  if (zh.on && ze.on)
    shell_node<Poles, PK, true, true>(a, p, zh, ze, wj, A, B, s_coef, y, x, mx, in, act, o, i, hx_km, hy_km);
  else if (zh.on)
    shell_node<Poles, PK, true, false>(a, p, zh, ze, wj, A, B, s_coef, y, x, mx, in, act, o, i, hx_km, hy_km);
  else if (ze.on)
    shell_node<Poles, PK, false, true>(a, p, zh, ze, wj, A, B, s_coef, y, x, mx, in, act, o, i, hx_km, hy_km);
  else
    shell_node<Poles, PK, false, false>(a, p, zh, ze, wj, A, B, s_coef, y, x, mx, in, act, o, i, hx_km, hy_km);
}

// Planes k0 - 1 .. k1 - 1 of one tile: plane k0 - 1 only gives the new Hx,
// Hy that plane k0's E needs (nothing stored). MINB: resident blocks per SM
// (the register cap: 64 for 1024 threads an SM); PK: the poles' kind; Shell:
// the z-slab variant (its boxes and the slabs' geometry in sh; rr and cc
// unused).
template <int R, int W, int D, int MINB, bool Poles, int PK, bool Shell = false>
__global__ void __launch_bounds__(32 * R, MINB)
    ring_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_region rr, int64_t cc, bool ahead, const ShellBoxes sh) {
  using Slot = RingSlot<R, W>;
  constexpr int NC = W / 32;
  static_assert(7 * R + 2 <= 32 * R, "one 4-byte copy per thread");
  extern __shared__ __align__(16) unsigned char ring_smem[];
  float4 *s_coef = (float4 *)ring_smem;
  Slot *slot = (Slot *)(ring_smem + GS_FDTD3_MAX_MATERIALS * sizeof(float4));
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
  gs_fdtd3_region r = rr;
  int64_t chunk = cc;
  unsigned bi = blockIdx.x, bj = blockIdx.y, bk = blockIdx.z;
  int zb = 0; // the z-slab variant's box
  if constexpr (Shell) zb = shell_block(sh, r, chunk, bi, bj, bk);
  const int64_t I = (r.i0 & ~(int64_t)31) + (int64_t)bi * W, J = r.j0 + (int64_t)bj * R;
  const int64_t j = J + ty;
  const int64_t k0 = r.k0 + (int64_t)bk * chunk, k1 = k0 + chunk < r.k1 ? k0 + chunk : r.k1;
  const auto tasks = ring_tasks<R, W>(a, I, J, tid);
  const unsigned ring0 = (unsigned)__cvta_generic_to_shared(slot);
  for (int d = 0; d < D - 1; ++d) {
    ring_load(tasks, ring0 + d * (unsigned)sizeof(Slot), a.plane, k0 - 1 + d, k1);
    cp_async_commit();
  }
  for (int q = tid; q < GS_FDTD3_MAX_MATERIALS; q += 32 * R) {
    const gs_fdtd3_coef c = a.coef[q];
    s_coef[q] = make_float4(c.ca, c.cbx, c.cby, c.cbz);
  }
  float hx_km[NC] = {}, hy_km[NC] = {}; // new Hx, Hy of plane k - 1
  uint32_t pslot[NC][3];                // the fused poles' slots of plane k, found at plane k - 1 (ring_node)
  int64_t o = (k0 - 1) * a.plane + j * a.pitch + I + tx;
  int n = 0; // planes done: the ring's slot of plane k is n % D (32-bit: the modulo of a 64-bit count costs more)
  for (int64_t k = k0 - 1; k < k1; ++k, ++n, o += a.plane) {
    cp_async_wait<D - 3>();
    __syncthreads();
    ring_load(tasks, ring0 + (unsigned)((n + D - 1) % D) * (unsigned)sizeof(Slot), a.plane, k + D - 1, k1);
    cp_async_commit();
    const Slot &A = slot[n % D], &B = slot[(n + 1) % D];
    ZTerm zh = {}, ze = {};
    const gs_fdtd3_slab &zp = a.slab[Shell ? sh.slab[zb] : 0];
    if constexpr (Shell) {
      const gs_fdtd3_slab_geo &gh = sh.geo[zb][0], &ge = sh.geo[zb][1];
      zh = zterm(zp, gh, 0, k, j), ze = zterm(zp, ge, 1, k, j);
      if (k + 1 < k1 && j < r.j1 && I + tx >= r.i0 && I + tx < r.i1) { // the next plane's Phi into L2
        const int64_t i = I + tx, wh = gh.wk * (k + 1) + gh.wj * j + gh.w0 + i, we = wh - gh.w0 + ge.w0;
        if (k + 1 >= gh.k0 && k + 1 < gh.k1) prefetch_l2(zp.psi_h_in[0] + wh), prefetch_l2(zp.psi_h_in[1] + wh);
        if (k + 1 >= ge.k0 && k + 1 < ge.k1) prefetch_l2(zp.psi_e_in[0] + we), prefetch_l2(zp.psi_e_in[1] + we);
      }
    }
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      const int64_t i = I + tx + 32 * c;
      const bool in = i >= r.i0 && i < r.i1 && j < r.j1, act = k >= k0 && in;
      if constexpr (Shell) {
        shell_node_any<Poles, PK>(a, zp, zh, ze, sh.geo[zb][0].wj, A, B, s_coef, ty + 1, tx + 32 * c + kRingPad,
                                  tx + 32 * c, in, act, o + 32 * c, i, hx_km[c], hy_km[c]);
        continue;
      }
      const int next = ahead && k + 1 < k1 ? 1 + (k + 2 < k1) : 0; // the planes after this one in the chunk
      ring_node<Poles, PK>(a, A, B, s_coef, ty + 1, tx + 32 * c + kRingPad, tx + 32 * c, act, next, o + 32 * c,
                           hx_km[c], hy_km[c], pslot[c], ahead && k > k0);
    }
  }
  cp_async_wait<0>();
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

// The slabs whose E or H corrections may reach a node of box b: those
// whose depth range (E and H together: [0, t] on side 0, [n - t, n) on
// side 1) meets the box's range along the slab's axis. A superset is
// harmless (the node's own mask decides); every slab with
// GS_FDTD3_CAND=all (a measuring knob).
unsigned slabs_near(const gs_fdtd3_step_args *a, const gs_fdtd3_region &b) {
  static int all = -1;
  if (all < 0) all = knob("GS_FDTD3_CAND", "all");
  if (all) return ~0u;
  unsigned cand = 0;
  for (int s = 0; s < a->nslab; ++s) {
    const gs_fdtd3_slab &p = a->slab[s];
    const int64_t n = p.dir == 0 ? a->nx : p.dir == 1 ? a->ny : a->nz;
    const int64_t lo = p.side ? n - p.t : 0, hi = p.side ? n : p.t + 1; // [lo, hi)
    const int64_t b0 = p.dir == 0 ? b.i0 : p.dir == 1 ? b.j0 : b.k0, b1 = p.dir == 0 ? b.i1 : p.dir == 1 ? b.j1 : b.k1;
    if (b0 < hi && lo < b1) cand |= 1u << s;
  }
  return cand;
}

// The boxes' one-thread-per-node kernels (flat mapping unless GS_FDTD3_BOXES
// =tiles, the former one: a measuring knob); h: the H pass, else the E pass.
int launch_box_kernel(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region r, bool h,
                      cudaStream_t s) {
  Boxes b = {};
  static int tiles = -1;
  if (tiles < 0) tiles = knob("GS_FDTD3_BOXES", "tiles");
  b.flat = !tiles;
  unsigned blocks = 0;
  for (int q = 0; q < n; ++q) {
    const int64_t w = box[q].i1 - box[q].i0, hh = box[q].j1 - box[q].j0;
    if (w <= 0 || hh <= 0 || box[q].k1 <= box[q].k0) continue;
    b.r[b.n] = box[q];
    b.cand[b.n] = slabs_near(a, box[q]);
    b.first[b.n] = blocks;
    b.bx[b.n] = (unsigned)(b.flat ? w : (w + 31) / 32);
    b.by[b.n] =
        (unsigned)(b.flat ? (w * hh + 32 * kNodeRows - 1) / (32 * kNodeRows) : (hh + kNodeRows - 1) / kNodeRows);
    blocks += (b.flat ? b.by[b.n] : b.bx[b.n] * b.by[b.n]) * (unsigned)(box[q].k1 - box[q].k0);
    ++b.n;
  }
  if (!blocks) return 0;
  gs_fdtd3_geo_of(a, &b.geo);
  with_pml_form(a->pml_form, [&](auto form) { launch_box_form<decltype(form)::value>(a, b, r, h, blocks, s); });
  return (int)cudaGetLastError();
}

// The box kernels by axes (fdtd3d_kernels.h, gs_fdtd3_boxes_cuda;
// fdtd3d_node.h, gs_fdtd3_h_axes), one thread a node.

// n / d for any 32-bit n by a multiply and shifts (Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994, figure 4.1),
// d in [1, 2^31): the boxes' node index split into row and column without a
// division instruction sequence.
struct FastDiv {
  unsigned m, s1, s2;
};

FastDiv fast_div(unsigned d) {
  unsigned l = 0;
  while ((1ull << l) < d)
    ++l;
  const FastDiv f = {(unsigned)((((1ull << 32) * ((1ull << l) - d)) / d) + 1), l ? 1u : 0u, l ? l - 1 : 0u};
  return f;
}

__device__ __forceinline__ unsigned divide(const FastDiv &f, unsigned n) {
  const unsigned t = __umulhi(f.m, n);
  return (t + ((n - t) >> f.s1)) >> f.s2;
}

// Up to 7 boxes in one 1D grid: box z takes blocks [first[z], first[z + 1]),
// each 256 consecutive nodes of one of its planes (i fastest).
constexpr int kPassThreads = 256;
// Resident blocks an SM the by-axes kernels' registers must allow: H 6 (40
// registers, none spilled), E 5 (48; with poles a few bytes spilled, where
// the unbounded build takes 62). On an H200 E with 6 took 2-7 % longer
// steps, with 4 about the same; H with 4 the same (docs/performance.md;
// builds with -DGS_FDTD3_AXES_HMINB=N or -DGS_FDTD3_AXES_EMINB=N measure
// others).
#ifndef GS_FDTD3_AXES_HMINB
#define GS_FDTD3_AXES_HMINB 6
#endif
#ifndef GS_FDTD3_AXES_EMINB
#define GS_FDTD3_AXES_EMINB 5
#endif
struct BoxMap {
  int n;
  unsigned first[8], w[7], nodes[7], blocks[7]; // nodes a row, a plane; blocks a plane
  FastDiv by_w[7], by_blocks[7];
  int i0[7], j0[7], k0[7];
};

// The map of the non-empty boxes among box[0 .. n) (n at most 7); false where
// a plane has 2^31 nodes or more (the slab-loop kernels take those).
bool box_map(const gs_fdtd3_region *box, int n, BoxMap &m, unsigned &blocks) {
  m = BoxMap{};
  blocks = 0;
  for (int q = 0; q < n; ++q) {
    const gs_fdtd3_region &b = box[q];
    const int64_t w = b.i1 - b.i0, rows = b.j1 - b.j0, planes = b.k1 - b.k0;
    if (w <= 0 || rows <= 0 || planes <= 0) continue;
    if (w * rows >= (int64_t)1 << 31) return false;
    const int64_t per = (w * rows + kPassThreads - 1) / kPassThreads;
    if ((int64_t)blocks + per * planes >= (int64_t)1 << 31) return false;
    m.first[m.n] = blocks, m.w[m.n] = (unsigned)w, m.nodes[m.n] = (unsigned)(w * rows), m.blocks[m.n] = (unsigned)per;
    m.by_w[m.n] = fast_div((unsigned)w), m.by_blocks[m.n] = fast_div((unsigned)per);
    m.i0[m.n] = (int)b.i0, m.j0[m.n] = (int)b.j0, m.k0[m.n] = (int)b.k0;
    blocks += (unsigned)(per * planes);
    ++m.n;
  }
  m.first[m.n] = blocks;
  return true;
}

// This thread's node of map m; false past the end of its box's plane.
__device__ __forceinline__ bool map_node(const BoxMap &m, int &i, int &j, int &k) {
  unsigned blk = blockIdx.x, z = 0;
  while (z + 1 < (unsigned)m.n && blk >= m.first[z + 1])
    ++z;
  blk -= m.first[z];
  const unsigned plane = divide(m.by_blocks[z], blk);
  const unsigned at = (blk - plane * m.blocks[z]) * kPassThreads + threadIdx.x;
  const unsigned row = divide(m.by_w[z], at);
  i = m.i0[z] + (int)(at - row * m.w[z]);
  j = m.j0[z] + (int)row;
  k = m.k0[z] + (int)plane;
  return at < m.nodes[z];
}

template <int Form>
__global__ void __launch_bounds__(kPassThreads, GS_FDTD3_AXES_HMINB)
    axes_h_kernel(const gs_fdtd3_step_args a, const BoxMap m, const gs_fdtd3_axes ax, const gs_fdtd3_geo g) {
  int i, j, k;
  if (map_node(m, i, j, k)) gs_fdtd3_h_axes(&a, &g, &ax, Form, i, j, k);
}

template <bool Poles, int Form, int PK>
__global__ void __launch_bounds__(kPassThreads, GS_FDTD3_AXES_EMINB)
    axes_e_kernel(const gs_fdtd3_step_args a, const BoxMap m, const gs_fdtd3_axes ax, const gs_fdtd3_geo g) {
  int i, j, k;
  if (map_node(m, i, j, k)) gs_fdtd3_e_axes(&a, &g, &ax, Form, Poles, PK, i, j, k);
}

// The by-axes kernels over the boxes of m: H (e = 0), or E (with_e_kind),
// of a's CPML form.
void launch_axes(const gs_fdtd3_step_args *a, const BoxMap &m, unsigned blocks, const gs_fdtd3_axes &ax,
                 const gs_fdtd3_geo &g, int e, cudaStream_t s) {
  with_pml_form(a->pml_form, [&](auto form) {
    constexpr int Form = decltype(form)::value;
    if (!e) {
      axes_h_kernel<Form><<<blocks, kPassThreads, 0, s>>>(*a, m, ax, g);
      return;
    }
    with_e_kind<Form>(a, [&](auto poles, auto pk) {
      axes_e_kernel<decltype(poles)::value, Form, decltype(pk)::value><<<blocks, kPassThreads, 0, s>>>(*a, m, ax, g);
    });
  });
}

// Whether the boxes of a step over region r go to gs_fdtd3_boxes_cuda: r
// from node (0, 0, 0) (the new H each E node reads is then stored) and
// GS_FDTD3_AXES=0 (a measuring knob: the slab-loop box kernels above) not
// set.
bool boxes_by_axes(gs_fdtd3_region r) {
  static int off = -1;
  if (off < 0) off = knob("GS_FDTD3_AXES", "0");
  return !off && !r.i0 && !r.j0 && !r.k0;
}

int launch_boxes(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region r, cudaStream_t s) {
  if (boxes_by_axes(r)) {
    const int e = gs_fdtd3_boxes_cuda(a, box, n, 0, s);
    return e ? e : gs_fdtd3_boxes_cuda(a, box, n, 1, s);
  }
  int e = launch_box_kernel(a, box, n, r, true, s);
  return e ? e : launch_box_kernel(a, box, n, r, false, s);
}

// Planes per block: the whole depth, halved while the blocks would not give
// every SM 8 of them (but at least 16 planes); then cut into up to 4 times
// more chunks where that fills the last wave of resident blocks (per_sm an
// SM) better: at 1024^3, 2016 tiles in 264 places make 7.6 waves (95 % of
// the last one busy), 3 chunks 22.9 (99.6 %).
int64_t march_chunk(int64_t tiles, int64_t nk, int per_sm) {
  int64_t chunk = nk;
  const int64_t want = 8 * (int64_t)gs_sm_count(), resident = (int64_t)per_sm * gs_sm_count();
  while (chunk > 16 && tiles * ((nk + chunk - 1) / chunk) < want)
    chunk = (chunk + 1) / 2;
  if (resident <= 0) return chunk;
  const int64_t n0 = (nk + chunk - 1) / chunk;
  double best = 0;
  for (int64_t n = n0; n <= 4 * n0 && (nk + n - 1) / n >= 16; ++n) {
    const int64_t c = (nk + n - 1) / n, blocks = tiles * ((nk + c - 1) / c);
    const double busy = (double)blocks / (double)(((blocks + resident - 1) / resident) * resident);
    if (busy > best + 0.01) best = busy, chunk = c;
  }
  return chunk;
}

int launch_march(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  const int64_t bx = (r.i1 - (r.i0 & ~(int64_t)31) + 31) / 32, by = (r.j1 - r.j0 + kRows - 1) / kRows, nk = r.k1 - r.k0;
  const int64_t chunk = march_chunk(bx * by, nk, GS_FDTD3_MINB);
  dim3 grid((unsigned)bx, (unsigned)by, (unsigned)((nk + chunk - 1) / chunk));
  if (gs_fdtd3_has_poles(a))
    march_kernel<true><<<grid, dim3(32, kRows), 0, s>>>(*a, r, chunk);
  else
    march_kernel<false><<<grid, dim3(32, kRows), 0, s>>>(*a, r, chunk);
  return (int)cudaGetLastError();
}

template <int R, int W, int D, int MINB, bool Poles, int PK>
int launch_ring_p(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  const size_t smem = GS_FDTD3_MAX_MATERIALS * sizeof(float4) + D * sizeof(RingSlot<R, W>);
  static int per_sm = 0; // resident blocks an SM, once the shared-memory limit is raised (once per process)
  if (!per_sm) {
    cudaError_t e = cudaFuncSetAttribute(ring_kernel<R, W, D, MINB, Poles, PK>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess)
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_kernel<R, W, D, MINB, Poles, PK>, 32 * R, smem);
    if (e != cudaSuccess) return (int)e;
    if (per_sm < 1) return (int)cudaErrorInvalidConfiguration;
  }
  const int64_t bx = (r.i1 - (r.i0 & ~(int64_t)31) + W - 1) / W, by = (r.j1 - r.j0 + R - 1) / R, nk = r.k1 - r.k0;
  const int64_t chunk = march_chunk(bx * by, nk, per_sm);
  dim3 grid((unsigned)bx, (unsigned)by, (unsigned)((nk + chunk - 1) / chunk));
  static int ahead = -1; // GS_FDTD3_POLES_AHEAD=0: no prefetch of the next plane's poles (a measuring knob)
  if (ahead < 0) ahead = !knob("GS_FDTD3_POLES_AHEAD", "0");
  ring_kernel<R, W, D, MINB, Poles, PK><<<grid, dim3(32, R), smem, s>>>(*a, r, chunk, ahead != 0, ShellBoxes{});
  return (int)cudaGetLastError();
}

// Kinds: a kernel per pole kind (pole_kind), else one for any kind (the
// variants a scene with poles does not take by default).
template <int R, int W, int D, int MINB, bool Kinds = false>
int launch_ring(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  if (!gs_fdtd3_has_poles(a)) return launch_ring_p<R, W, D, MINB, false, 0>(a, r, s);
  if constexpr (Kinds)
    return with_pole_kind(pole_kind(a),
                          [&](auto pk) { return launch_ring_p<R, W, D, MINB, true, decltype(pk)::value>(a, r, s); });
  return launch_ring_p<R, W, D, MINB, true, 0>(a, r, s);
}

bool empty(const gs_fdtd3_region &r) {
  return r.i1 <= r.i0 || r.j1 <= r.j0 || r.k1 <= r.k0;
}

// A copy of a with held set: the caller's, or where it gave none the whole
// grid's rows (what the staged kernels copy from).
gs_fdtd3_step_args with_held(const gs_fdtd3_step_args *a) {
  gs_fdtd3_step_args w = *a;
  if (empty(w.held)) w.held = gs_fdtd3_region{0, a->pitch, 0, a->ny + 1, 0, a->nz + 1};
  return w;
}

// Whether the arrays the staged kernels copy are 16-byte aligned (cudaMalloc's are).
bool aligned16(const gs_fdtd3_step_args *a) {
  const void *const p[9] = {a->ex, a->ey, a->ez, a->hx, a->hy, a->hz, a->mex, a->mey, a->mez};
  bool aligned = true;
  for (int q = 0; q < 9; ++q)
    aligned = aligned && (uintptr_t)p[q] % 16 == 0;
  return aligned;
}

// The fused kernel's variant: the staged one (w: tile width, r: rows, d: ring
// depth) unless GS_FDTD3_MARCH names another (a measuring knob; regs: the
// register-prefetch kernel). The staged kernel needs 16-byte aligned arrays
// (cudaMalloc's are); otherwise the register one runs.
int launch_fused(const gs_fdtd3_step_args *args, gs_fdtd3_region r, cudaStream_t s) {
  const gs_fdtd3_step_args whole = with_held(args), *a = &whole;
  static int variant = -2; // -1: none named (the default of the scene's kind)
  if (variant == -2) {
    static const char *const names[] = {"w64r12d3", "regs", "w32r16d3", "w64r16d3", "w64r8d3", "w64r8d4", "w32r8d4"};
    const char *env = getenv("GS_FDTD3_MARCH");
    variant = -1;
    for (int v = 0; env && v < (int)(sizeof names / sizeof *names); ++v)
      if (!strcmp(env, names[v])) variant = v;
  }
  // With fused poles the narrower, taller tile is faster (a Debye scene of
  // 8.1 M cells on an H200: 0.605 ms a step against 0.637 for w64r12d3);
  // without them the wide one (docs/performance.md).
  const int v = variant >= 0 ? variant : gs_fdtd3_has_poles(a) ? 2 : 0;
  if (!aligned16(a) || v == 1) return launch_march(a, r, s);
  switch (v) {
  case 2:
    return launch_ring<16, 32, 3, 2, true>(a, r, s);
  case 3:
    return launch_ring<16, 64, 3, 2>(a, r, s);
  case 4:
    return launch_ring<8, 64, 3, 3>(a, r, s);
  case 5:
    return launch_ring<8, 64, 4, 2>(a, r, s);
  case 6:
    return launch_ring<8, 32, 4, 4>(a, r, s);
  default:
    return launch_ring<12, 64, 3, 2>(a, r, s);
  }
}

// One region's step on the boxes gs_fdtd3_split gives: the fused kernel on
// the box no slab reaches, then new H and new E on the others.
int step_boxes(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  gs_fdtd3_region part[7];
  const int np = gs_fdtd3_split(a, r, part);
  const int e = empty(part[0]) ? 0 : launch_fused(a, part[0], s);
  return e ? e : launch_boxes(a, part + 1, np - 1, r, s);
}

// The z-slab variant's tile (kShellR rows of 32 nodes), ring depth and
// resident blocks an SM (the register cap).
constexpr int kShellR = 8, kShellW = 32, kShellD = 3;
#ifndef GS_FDTD3_SHELL_MINB
#define GS_FDTD3_SHELL_MINB 3
#endif

// The z-slab variant over the boxes of sh (sh.r[0 .. sh.n), non-empty; their
// tiles and chunks filled in here), poles of kind PK.
template <bool Poles, int PK> int launch_shell_p(const gs_fdtd3_step_args *a, ShellBoxes &sh, cudaStream_t s) {
  constexpr int R = kShellR, W = kShellW, D = kShellD;
  const auto kernel = ring_kernel<R, W, D, GS_FDTD3_SHELL_MINB, Poles, PK, true>;
  const size_t smem = GS_FDTD3_MAX_MATERIALS * sizeof(float4) + D * sizeof(RingSlot<R, W>);
  static bool raised = false; // the shared-memory limit (once per process)
  if (!raised) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return (int)e;
    raised = true;
  }
  unsigned blocks = 0;
  for (int z = 0; z < sh.n; ++z) {
    const gs_fdtd3_region &r = sh.r[z];
    const int64_t bx = (r.i1 - (r.i0 & ~(int64_t)31) + W - 1) / W, by = (r.j1 - r.j0 + R - 1) / R, nk = r.k1 - r.k0;
    // Thin slabs of few tiles: the chunk halved while the blocks would not give each SM 4 and it
    // is longer than min_chunk planes (GS_FDTD3_SHELL_CHUNK, a measuring knob; it may end shorter).
    static const int min_chunk = knob_int("GS_FDTD3_SHELL_CHUNK", 4);
    int64_t chunk = march_chunk(bx * by, nk, 0);
    while (chunk > min_chunk && bx * by * ((nk + chunk - 1) / chunk) < 4 * (int64_t)gs_sm_count())
      chunk = (chunk + 1) / 2;
    sh.chunk[z] = chunk;
    sh.first[z] = blocks;
    sh.bx[z] = (unsigned)bx;
    sh.by[z] = (unsigned)by;
    blocks += (unsigned)(bx * by * ((nk + sh.chunk[z] - 1) / sh.chunk[z]));
  }
  sh.first[sh.n] = blocks;
  if (!blocks) return 0;
  kernel<<<blocks, dim3(32, R), smem, s>>>(*a, gs_fdtd3_region{}, 0, false, sh);
  return (int)cudaGetLastError();
}

int launch_shell(const gs_fdtd3_step_args *a, ShellBoxes &sh, cudaStream_t s) {
  if (!gs_fdtd3_has_poles(a)) return launch_shell_p<false, 0>(a, sh, s);
  return with_pole_kind(pole_kind(a), [&](auto pk) { return launch_shell_p<true, decltype(pk)::value>(a, sh, s); });
}

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

// Whether the z-slab variant takes the z slabs' nodes above and below the
// plain fused box: first-order HORIPML (gprMax's default form), free-space
// H, aligned arrays, z slabs that share no plane (each plane's terms come
// from one slab); GS_FDTD3_SHELL=0 (a measuring knob) leaves them to the
// box kernels.
bool shell_fits(const gs_fdtd3_step_args *a) {
  static int off = -1;
  if (off < 0) off = knob("GS_FDTD3_SHELL", "0");
  if (off || a->pml_form != GS_FDTD3_HORIPML1 || a->hmx || a->hmy || a->hmz || !aligned16(a)) return false;
  const gs_fdtd3_region in = gs_fdtd3_inner(a);
  bool z = false;
  for (int s = 0; s < a->nslab; ++s)
    z = z || a->slab[s].dir == 2;
  return z && in.k0 < in.k1;
}

// One region's step with the z-slab variant: c, the nodes of r no slab
// reaches (gs_fdtd3_inner), takes the plain fused kernel; the nodes of r
// in c's rows and columns whose six components are all updated (k in [1,
// nz)), above and below c, the z-slab variant; the rest of r the box
// kernels.
int step_shell(const gs_fdtd3_step_args *a, gs_fdtd3_region r, cudaStream_t s) {
  const gs_fdtd3_step_args held = with_held(a);
  const gs_fdtd3_region in = gs_fdtd3_inner(a);
  gs_fdtd3_region c = {clamp64(in.i0, r.i0, r.i1),
                       clamp64(in.i1, r.i0, r.i1),
                       clamp64(in.j0, r.j0, r.j1),
                       clamp64(in.j1, r.j0, r.j1),
                       0,
                       0};
  c.i1 = c.i1 < c.i0 ? c.i0 : c.i1;
  c.j1 = c.j1 < c.j0 ? c.j0 : c.j1;
  const int64_t kc0 = clamp64(1, r.k0, r.k1), kc1 = clamp64(a->nz, kc0, r.k1); // r's planes with all six updated
  c.k0 = clamp64(in.k0, kc0, kc1);
  c.k1 = clamp64(in.k1, c.k0, kc1);
  gs_fdtd3_region col = c; // c's rows and columns over r's planes with all six updated
  col.k0 = kc0, col.k1 = kc1;
  if (empty(col)) return launch_boxes(a, &r, 1, r, s);
  static int all = -1; // GS_FDTD3_SHELL=all: the variant however few its tiles (a measuring knob)
  if (all < 0) all = knob("GS_FDTD3_SHELL", "all");
  const int64_t tiles =
      (c.i1 - (c.i0 & ~(int64_t)31) + kShellW - 1) / kShellW * ((c.j1 - c.j0 + kShellR - 1) / kShellR);
  // Fewer than two tiles a plane an SM: the box kernels are as fast or faster (an H200: cube 200^3, 138 tiles,
  // 1.4 % slower with the variant, the Debye scene's 200 tiles 0.3 %; 300^3 and larger 1.7 to 3 % faster).
  if (!all && tiles < 2 * (int64_t)gs_sm_count()) return step_boxes(a, r, s);
  ShellBoxes sh = {};
  const gs_fdtd3_region z[2] = {{c.i0, c.i1, c.j0, c.j1, kc0, c.k0}, {c.i0, c.i1, c.j0, c.j1, c.k1, kc1}};
  gs_fdtd3_geo g;
  gs_fdtd3_geo_of(a, &g);
  for (int side = 0; side < 2; ++side) // box 0 below c (the z slab of side 0), box 1 above
    for (int q = 0; q < a->nslab && !empty(z[side]); ++q)
      if (a->slab[q].dir == 2 && a->slab[q].side == side) {
        sh.r[sh.n] = z[side], sh.slab[sh.n] = q, sh.geo[sh.n][0] = g.s[0][q], sh.geo[sh.n][1] = g.s[1][q];
        ++sh.n;
      }
  int e = empty(c) ? 0 : launch_fused(&held, c, s);
  if (!e && sh.n) e = launch_shell(&held, sh, s);
  gs_fdtd3_region rest[6];
  const int nr = gs_fdtd3_around(r, col, rest);
  if (!e && nr) e = launch_boxes(a, rest, nr, r, s);
  return e;
}

// The box b (of those gs_fdtd3_split() gives around c) as the layer of nodes
// whose E reads a new H the fused kernel stores (next to c's upper face in k,
// j or i: E reads the H one node lower) and the rest.
void split_adjacent(gs_fdtd3_region b, gs_fdtd3_region c, gs_fdtd3_region *layer, gs_fdtd3_region *rest) {
  const bool oi = b.i0 < c.i1 && c.i0 < b.i1, oj = b.j0 < c.j1 && c.j0 < b.j1, ok = b.k0 < c.k1 && c.k0 < b.k1;
  *rest = b;
  *layer = b;
  if (b.k0 == c.k1 && oi && oj) {
    layer->k1 = b.k0 + 1, rest->k0 = b.k0 + 1;
  } else if (b.j0 == c.j1 && oi && ok) {
    layer->j1 = b.j0 + 1, rest->j0 = b.j0 + 1;
  } else if (b.i0 == c.i1 && oj && ok) {
    layer->i1 = b.i0 + 1, rest->i0 = b.i0 + 1;
  } else {
    layer->k1 = layer->k0; // none
  }
}

// The fused kernel runs on a side stream of the highest priority while the
// boxes' H pass and the E of the box nodes that do not read its H run on the
// caller's stream (their blocks fill the SMs' room beside the fused blocks,
// which shared memory limits); then the E of the layers next to the fused box.
// The side stream and two events are made once (the process's device) and
// kept. Measured on an H200, 1024^3 with 10 CPML cells: 24.19 ms a step
// against 23.65 in one stream (the fused blocks, held back by shared memory
// and registers, leave little room; the two compete for L2), so it is off
// unless GS_FDTD3_OVERLAP=1.
int step_overlapped(const gs_fdtd3_step_args *a, const gs_fdtd3_region *part, int np, gs_fdtd3_region r,
                    cudaStream_t s) {
  static cudaStream_t side = nullptr;
  static cudaEvent_t fork, join;
  if (!side) {
    int lo = 0, hi = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, hi);
    if (e != cudaSuccess) return (int)e;
  }
  gs_fdtd3_region layer[6], rest[6];
  for (int q = 1; q < np; ++q)
    split_adjacent(part[q], part[0], &layer[q - 1], &rest[q - 1]);
  cudaError_t e = cudaEventRecord(fork, s);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(side, fork, 0);
  int err = e == cudaSuccess ? launch_fused(a, part[0], side) : (int)e;
  if (!err) err = (int)cudaEventRecord(join, side);
  if (!err) err = launch_box_kernel(a, part + 1, np - 1, r, true, s);
  if (!err) err = launch_box_kernel(a, rest, np - 1, r, false, s);
  if (!err) err = (int)cudaStreamWaitEvent(s, join, 0);
  if (!err) err = launch_box_kernel(a, layer, np - 1, r, false, s);
  return err;
}

} // namespace

// Per region: where the z-slab variant fits (shell_fits), step_shell; else the
// fused kernel on the box no slab reaches, then new H and new E on the other
// boxes (whose E reads the H the fused kernel stored); the two overlapped
// (step_overlapped) with GS_FDTD3_OVERLAP=1, a measuring knob: 2 % slower on
// an H200 (docs/performance.md).
extern "C" int gs_fdtd3_step_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  static int overlap = -1;
  if (overlap < 0) overlap = knob("GS_FDTD3_OVERLAP", "1");
  const bool shell = !overlap && shell_fits(a); // GS_FDTD3_OVERLAP=1 measures the boxes' path alone
  for (int q = 0; q < n; ++q) {
    gs_fdtd3_region part[7];
    const int np = shell ? 0 : gs_fdtd3_split(a, r[q], part);
    int e;
    if (shell)
      e = step_shell(a, r[q], s);
    else if (overlap && !empty(part[0]) && np > 1)
      e = step_overlapped(a, part, np, r[q], s);
    else
      e = step_boxes(a, r[q], s);
    if (e) return e;
  }
  return 0;
}

// Half a step on one box (a part of a model split over ranks): the
// one-thread-per-node kernels, H (h) or E reading the stored H of `stored`.
extern "C" int gs_fdtd3_pass_cuda(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h,
                                  void *stream) {
  return launch_box_kernel(a, &box, 1, stored, h != 0, (cudaStream_t)stream);
}

// By axes where gs_fdtd3_axes_of holds, 7 boxes a launch (BoxMap); else
// (or where a box's plane has 2^31 nodes) the slab-loop box kernels.
extern "C" int gs_fdtd3_boxes_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, int e,
                                   void *stream) {
  const cudaStream_t s = (cudaStream_t)stream;
  const gs_fdtd3_region from0 = {0, INT64_MAX, 0, INT64_MAX, 0, INT64_MAX};
  gs_fdtd3_axes ax;
  if (!gs_fdtd3_axes_of(a, &ax)) return launch_box_kernel(a, box, n, from0, !e, s);
  gs_fdtd3_geo g;
  gs_fdtd3_geo_of(a, &g);
  for (int q = 0; q < n; q += 7) {
    const int nq = n - q < 7 ? n - q : 7;
    BoxMap m;
    unsigned blocks;
    if (!box_map(box + q, nq, m, blocks)) {
      const int err = launch_box_kernel(a, box + q, nq, from0, !e, s);
      if (err) return err;
      continue;
    }
    if (!blocks) continue;
    launch_axes(a, m, blocks, ax, g, e, s);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return (int)err;
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

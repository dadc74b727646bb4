// The CPML boxes in one pass (fdtd3d_pml.h): a block of 256 threads takes a
// tile of TW x TH nodes in (i, j) of one box and marches along k over a
// chunk of its planes. Each thread computes its node's new H (stored, psi
// too: it is the owner) and puts it in shared memory; after one barrier it
// computes the node's new E, taking the H one node lower from the thread
// one column or row back (shared memory), from its own registers (the
// plane below, the same column), from the out arrays where that node lies
// in the fused box (the fused kernel stored it before this launch), and
// recomputing it otherwise (gs_fdtd3_hx and co.: the tile's first column and
// row, the chunk's first plane). Every expression is fdtd3d_node.h's
// (gs_fdtd3_h_store, gs_fdtd3_e_store), so the bits are those of the two
// one-thread-per-node passes (fdtd3d.cu's h_kernel, e_kernel) and of the
// CPU twin, in every CPML form (gprMax's #pml_formulation HORIPML or MRIPML,
// one or two #pml_cfs terms: the kernel is built once per form, as the box
// kernels are, and its node expressions take the form as a constant; no
// form falls back to the two passes). What it saves over those: the second pass (every node's E, H
// and materials read again, H written then read back, a second launch) and
// thin boxes' idle lanes (a tile as wide as an x slab). Launched through
// gs_launch (launch.cuh) and with dynamic shared memory, so tests/emu
// compiles this file for the CPU and checks it against the twin.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "fdtd3d_node.h"
#include "fdtd3d_pml.h"
#include "launch.cuh"

namespace {

constexpr int kPmlThreads = 256;

// One box's cut: tiles of tw x th nodes (tiles_i across i, tiles in a
// plane), chunks of `chunk` planes; blocks [first, first + tiles x chunks).
struct PmlBox {
  gs_fdtd3_region r;
  int64_t chunk;
  unsigned first, tw, th, tiles_i, tiles;
};

struct PmlPlan {
  int n;
  PmlBox b[6];
  gs_fdtd3_region fused; // nodes whose new H the fused kernel stored (may be empty)
};

#ifdef GS_EMULATE
#define pml_smem (static_cast<float *>(gs_emu_smem()))
#else
extern __shared__ float pml_smem[];
#endif

// The new H component c (0 x, 1 y, 2 z) of node (i, j, k), which no thread
// of the tile holds: stored by the fused kernel, else recomputed in CPML
// form Form (own = 0: its psi left to its owner).
template <int Form>
__device__ __forceinline__ float pml_lower(const gs_fdtd3_step_args &a, const gs_fdtd3_region &f, int c, int64_t i,
                                           int64_t j, int64_t k) {
  if (i >= f.i0 && i < f.i1 && j >= f.j0 && j < f.j1 && k >= f.k0 && k < f.k1) {
    const int64_t o = gs_fdtd3_at(&a, i, j, k);
    return c == 0 ? a.hx_out[o] : c == 1 ? a.hy_out[o] : a.hz_out[o];
  }
  return c == 0   ? gs_fdtd3_hx(&a, i, j, k, 0, Form)
         : c == 1 ? gs_fdtd3_hy(&a, i, j, k, 0, Form)
                  : gs_fdtd3_hz(&a, i, j, k, 0, Form);
}

// Shared memory: two sets (alternate planes: one barrier a plane) of the
// new Hx, Hy, Hz of every thread.
__device__ __forceinline__ float &pml_h(int set, int c, int tid) {
  return pml_smem[(set * 3 + c) * kPmlThreads + tid];
}

// Poles: the fused poles too; Form: the CPML form (GS_FDTD3_HORIPML1 ..).
template <bool Poles, int Form>
__global__ void __launch_bounds__(kPmlThreads) pml_kernel(const gs_fdtd3_step_args a, const PmlPlan p) {
  unsigned blk = blockIdx.x, z = 0;
  while (z + 1 < (unsigned)p.n && blk >= p.b[z + 1].first)
    ++z;
  const PmlBox &b = p.b[z];
  blk -= b.first;
  const unsigned tile = blk % b.tiles;
  const int tid = (int)threadIdx.x, tw = (int)b.tw, lx = tid % tw, ly = tid / tw;
  const int64_t i = b.r.i0 + (int64_t)(tile % b.tiles_i) * tw + lx,
                j = b.r.j0 + (int64_t)(tile / b.tiles_i) * b.th + ly;
  const bool on = ly < (int)b.th && i < b.r.i1 && j < b.r.j1;
  const int64_t k0 = b.r.k0 + (int64_t)(blk / b.tiles) * b.chunk, k1 = k0 + b.chunk < b.r.k1 ? k0 + b.chunk : b.r.k1;
  float hx_km = 0.0f, hy_km = 0.0f; // new Hx, Hy of plane k - 1 (this column)
  int set = 0;
  for (int64_t k = k0; k < k1; ++k, set ^= 1) {
    float h[3] = {0.0f, 0.0f, 0.0f};
    if (on) gs_fdtd3_h_store(&a, i, j, k, h, Form);
    for (int c = 0; c < 3; ++c)
      pml_h(set, c, tid) = h[c];
    __syncthreads();
    if (on) {
      // The H one node lower that each updated E component reads (gs_fdtd3_e_store's lo).
      float lo[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
      if (gs_fdtd3_ex_ok(&a, i, j, k)) {
        lo[0] = ly > 0 ? pml_h(set, 2, tid - tw) : pml_lower<Form>(a, p.fused, 2, i, j - 1, k);
        lo[1] = k > k0 ? hy_km : pml_lower<Form>(a, p.fused, 1, i, j, k - 1);
      }
      if (gs_fdtd3_ey_ok(&a, i, j, k)) {
        lo[2] = k > k0 ? hx_km : pml_lower<Form>(a, p.fused, 0, i, j, k - 1);
        lo[3] = lx > 0 ? pml_h(set, 2, tid - 1) : pml_lower<Form>(a, p.fused, 2, i - 1, j, k);
      }
      if (gs_fdtd3_ez_ok(&a, i, j, k)) {
        lo[4] = lx > 0 ? pml_h(set, 1, tid - 1) : pml_lower<Form>(a, p.fused, 1, i - 1, j, k);
        lo[5] = ly > 0 ? pml_h(set, 0, tid - tw) : pml_lower<Form>(a, p.fused, 0, i, j - 1, k);
      }
      gs_fdtd3_e_store(&a, i, j, k, h, lo, Poles, Form);
    }
    hx_km = h[0];
    hy_km = h[1];
  }
}

// The tile of a box w x h nodes in (i, j): a width of w itself (w <= 32: a
// thin x slab, its rows back to back in a block), 16, 32, 64, 128 or 256,
// the one of the fewest thread slots, each weighed by the recomputed H of
// the tile's first column and row (2 components of a neighbour each).
void pml_tile(int64_t w, int64_t h, unsigned *tw, unsigned *th) {
  const int64_t cand[6] = {w <= 32 ? w : 16, 16, 32, 64, 128, 256};
  double best = -1;
  for (int q = 0; q < 6; ++q) {
    const int64_t x = cand[q], y = kPmlThreads / x;
    const double slots = (double)((w + x - 1) / x * x) * (double)((h + y - 1) / y * y);
    const double cost = slots * (1.0 + 0.6 / (double)y + 0.6 / (double)x);
    if (best < 0 || cost < best) best = cost, *tw = (unsigned)x, *th = (unsigned)y;
  }
}

// Blocks of the boxes of p cut into chunks of c planes.
int64_t pml_blocks(const PmlPlan &p, int64_t c) {
  int64_t n = 0;
  for (int q = 0; q < p.n; ++q)
    n += (int64_t)p.b[q].tiles * ((p.b[q].r.k1 - p.b[q].r.k0 + c - 1) / c);
  return n;
}

// The plan of the nonempty boxes of box[0..n): their tiles, then one chunk
// for all, the longest of 64, 32, 16, 8, 4 planes that gives at least
// `want` blocks (twice those resident at once: the last wave's idle SMs are
// a small part), or chunk when > 0 (GS_FDTD3_PML_CHUNK: a measuring and
// testing knob). Returns the blocks.
unsigned pml_plan(const gs_fdtd3_region *box, int n, gs_fdtd3_region fused, int64_t want, int64_t chunk, PmlPlan *p) {
  p->n = 0;
  p->fused = fused;
  for (int q = 0; q < n && p->n < 6; ++q) {
    const gs_fdtd3_region &r = box[q];
    if (r.i1 <= r.i0 || r.j1 <= r.j0 || r.k1 <= r.k0) continue;
    PmlBox &b = p->b[p->n++];
    b.r = r;
    pml_tile(r.i1 - r.i0, r.j1 - r.j0, &b.tw, &b.th);
    b.tiles_i = (unsigned)((r.i1 - r.i0 + b.tw - 1) / b.tw);
    b.tiles = b.tiles_i * (unsigned)((r.j1 - r.j0 + b.th - 1) / b.th);
  }
  if (chunk <= 0) {
    chunk = 64;
    while (chunk > 4 && pml_blocks(*p, chunk) < want)
      chunk /= 2;
  }
  unsigned blocks = 0;
  for (int q = 0; q < p->n; ++q) {
    p->b[q].chunk = chunk;
    p->b[q].first = blocks;
    blocks += p->b[q].tiles * (unsigned)((p->b[q].r.k1 - p->b[q].r.k0 + chunk - 1) / chunk);
  }
  return blocks;
}

constexpr unsigned kPmlSmem = 2 * 3 * kPmlThreads * sizeof(float);

// Resident blocks of pml_kernel<Poles, Form> on the whole device (asked
// once per kernel: the forms' registers differ).
template <bool Poles, int Form> int64_t pml_resident() {
  static int64_t n = 0;
  if (!n) {
    int dev = 0, sms = 0, per = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == 0 &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, pml_kernel<Poles, Form>, kPmlThreads, kPmlSmem) ==
            cudaSuccess)
      n = (int64_t)sms * (per > 0 ? per : 1);
    if (n <= 0) n = 132 * 4; // an H200's, should the queries fail
  }
  return n;
}

// The plan (pml_plan, chunks from this kernel's residency) and the launch.
template <bool Poles, int Form>
int pml_launch(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region fused, int64_t chunk,
               cudaStream_t s) {
  PmlPlan p;
  const unsigned blocks = pml_plan(box, n, fused, 2 * pml_resident<Poles, Form>(), chunk, &p);
  if (!blocks) return 0;
  return (int)gs_launch::plain(pml_kernel<Poles, Form>, dim3(blocks), dim3(kPmlThreads), kPmlSmem, s, *a, p);
}

// pml_launch of a's CPML form (a->pml_form).
template <bool Poles>
int pml_launch_form(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region fused,
                    int64_t chunk, cudaStream_t s) {
  switch (a->pml_form) {
  case GS_FDTD3_HORIPML2:
    return pml_launch<Poles, GS_FDTD3_HORIPML2>(a, box, n, fused, chunk, s);
  case GS_FDTD3_MRIPML1:
    return pml_launch<Poles, GS_FDTD3_MRIPML1>(a, box, n, fused, chunk, s);
  case GS_FDTD3_MRIPML2:
    return pml_launch<Poles, GS_FDTD3_MRIPML2>(a, box, n, fused, chunk, s);
  default:
    return pml_launch<Poles, GS_FDTD3_HORIPML1>(a, box, n, fused, chunk, s);
  }
}

} // namespace

extern "C" int gs_fdtd3_pml_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, gs_fdtd3_region fused,
                                 void *stream) {
  static int64_t chunk = -1;
  if (chunk < 0) {
    const char *env = getenv("GS_FDTD3_PML_CHUNK");
    chunk = env ? atoll(env) : 0;
    if (chunk < 0) chunk = 0;
  }
  cudaStream_t s = (cudaStream_t)stream;
  return gs_fdtd3_has_poles(a) ? pml_launch_form<true>(a, box, n, fused, chunk, s)
                               : pml_launch_form<false>(a, box, n, fused, chunk, s);
}

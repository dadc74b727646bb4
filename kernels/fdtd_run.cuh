// What the two forms of the on-chip 2D FDTD run share (kernels/fdtd_run_tiles.cu:
// tiles in shared memory, any scene; kernels/fdtd_run_cols.cu: columns in
// registers, scenes with free-space H): the grid barrier, the slab maps'
// lookup, and the columns form's plan and launch, which the entry points
// (kernels/fdtd_run.cu) try first.
#ifndef GS_FDTD_RUN_CUH
#define GS_FDTD_RUN_CUH

#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "launch.cuh"

namespace gs_run {

constexpr uint8_t kNoSlab = 255, kSlabs = 254; // slab maps: no slab, several

// All blocks of the launch at one point: the arrival counter word reaches
// target (the count runs on across launches: no reset). Cooperative groups'
// grid.sync does the same with a counter it resets; ours needs no extra
// state in the kernel. What one block reads of another's stores it reads
// from L2 (__ldcg, GS_READ_SHARED).
__device__ __forceinline__ void grid_barrier(unsigned long long *word, unsigned long long target) {
#ifdef GS_EMULATE
  (void)word;
  (void)target;
  gs_emu_grid_sync();
  return;
#endif
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    __threadfence(); // this block's stores (the published edges) before its arrival
    atomicAdd(word, 1ull);
    unsigned long long seen;
    do {
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(word) : "memory");
    } while (seen < target);
  }
  __syncthreads();
}

// The slab of axis dir (0: x, 1: y) whose extent along it holds index at:
// its place in a's list, kNoSlab, or kSlabs where several do.
__device__ __forceinline__ uint8_t slab_at(const gs_fdtd_step_args &a, int dir, int64_t at) {
  uint8_t m = kNoSlab;
  for (int q = 0; q < a.nslab; ++q)
    if (a.slab[q].dir == dir && at >= a.slab[q].lo && at < a.slab[q].hi) m = m == kNoSlab ? (uint8_t)q : kSlabs;
  return m;
}

// The columns form's cut: cx x cy tiles of tw x th nodes (the last ones
// smaller), a block of wx x wy warps (32 columns x kColRows rows each),
// smem bytes of shared memory. 0 tiles: the form does not take the grid.
// form: kFormEz (Ez in registers, Hx and Hy in shared memory) or kFormRegs
// (Ez and Hx in registers).
constexpr int kFormEz = 0, kFormRegs = 1;
// psi: floats of CPML psi the tile that meets the most holds in shared
// memory; at: where each shared array starts (fdtd_run_cols.cu, lay_out).
constexpr int kColsParts = 20;
struct ColsPlan {
  int cx, cy, wx, wy, tw, th, form, psi;
  unsigned smem, at[kColsParts];
};

// The columns form's plan for the grid of a on this device (false: it does
// not take it; then the tiles form may), and its cooperative launch.
bool cols_plan(const gs_fdtd_step_args *a, ColsPlan *p);
cudaError_t cols_launch(const gs_fdtd_run_args *a, const ColsPlan &p, int64_t steps, cudaStream_t stream);

} // namespace gs_run

#endif

// The tiles form of the on-chip 2D FDTD run as its kernel
// (kernels/fdtd_run_tiles.cu: the grid cut into tiles, each in one block's
// shared memory) and its plan on the host (kernels/fdtd_run.cu) share it:
// the blocks' shape, the cut of the grid (Cut, RunPlan), the box no CPML
// slab reaches, a tile's row pitch, and the kernel's host side (its shared
// memory, occupancy and launch).
#ifndef GS_FDTD_RUN_TILES_CUH
#define GS_FDTD_RUN_TILES_CUH

#include <cuda_runtime.h>

#include "fdtd_kernels.h"

namespace gs_run {

// Blocks an SM runs at once (GS_FDTD_RUN_PER_SM: 1, 2 or 4; a tuning knob,
// docs/performance.md): each has 1024 / that threads (32 columns x kRunY
// rows) and that share of the SM's shared memory; with several, one block's
// barrier waits overlap another's work.
#ifndef GS_FDTD_RUN_PER_SM
#define GS_FDTD_RUN_PER_SM 1
#endif
constexpr int kPerSm = GS_FDTD_RUN_PER_SM;
constexpr int kRunX = 32, kRunY = 32 / kPerSm;

// The launch's scratch words (gs_fdtd_run_args::barrier): the grid
// barrier's counter (the columns form's) and a word the host reserves, then
// the tiles' edge words (swap_edges).
constexpr int kEdgeWordsAt = 2;
constexpr int kRunThreads = kRunX * kRunY;

// 32-bit words before the CPML profiles in shared memory (RunPlan::prof_at):
// the tile's frame divisors, two words free, each slab's base
// (fdtd_run_tiles.cu, frame_divs).
constexpr int kProfHead = 8;

// How one axis of X nodes is cut: n tiles, the first `first` nodes wide,
// the middle ones `mid`, the last the rest. The tiles that meet the CPML
// may be cut narrower than the others (plan_run), so that they finish a
// step with them: at 2000 x 1000 an even cut leaves the 84 tiles away from
// the CPML waiting 30 % of a step at the grid barrier for the 44 that meet it.
struct Cut {
  int n, first, mid;
};

__host__ __device__ __forceinline__ int cut_start(const Cut &c, int b) {
  return b == 0 ? 0 : c.first + (b - 1) * c.mid;
}

__host__ __device__ __forceinline__ int cut_width(const Cut &c, int b, int64_t X) {
  return b == c.n - 1 ? (int)(X - cut_start(c, b)) : b == 0 ? c.first : c.mid;
}

// How the grid is cut: x.n x y.n tiles, the widest tw x th nodes; smem bytes
// of shared memory a block.
struct RunPlan {
  Cut x, y;
  int tw, th;
  unsigned smem;
  bool ghost_psi; // the tiles keep their ghosts' psi (Tile::gpx; free-space H, no two slabs of an axis meet)
  // The CPML profiles in shared memory (read by the frame's updates, which
  // took them from L2 before: L1 has little room beside the tiles), at byte
  // prof_at: the tile's frame divisors (frame_div), then slab q's cell c as
  // two float4 at prof_off[q] + 2 c: (bh, ah, kh, 0) and (be, ae, ke, 0).
  // They take the end of the coefficient table where the materials leave
  // it free, else the end of the block's shared memory. A tile keeps its
  // frame's psi (Tile::fpsi) where it ends by byte psi_end.
  unsigned prof_at, psi_end;
  int prof_off[4];
  __host__ __device__ int blocks() const {
    return x.n * y.n;
  }
};

// The nodes (global [x0, x1) x [y0, y1)) that no slab's extent along its
// axis reaches: a slab at the box's start moves the start past it, any other
// ends the box at its first node (conservative: the upper slabs end at node
// nx - 1, the wall column beyond them takes the general update too). The
// host's plan weighs the tiles' frames with it too.
__host__ __device__ inline void shrink_free(int64_t lo, int64_t hi, int64_t &f0, int64_t &f1) {
  if (lo <= f0)
    f0 = f0 > hi ? f0 : hi;
  else
    f1 = f1 < lo ? f1 : lo; // a slab above the box's start: nothing from its first node on is free
}

__host__ __device__ inline gs_fdtd_region slab_free_box(const gs_fdtd_step_args &a) {
  int64_t x0 = 0, x1 = a.nx + 1, y0 = 0, y1 = a.ny + 1;
  for (int q = 0; q < a.nslab; ++q) {
    if (a.slab[q].dir == 0)
      shrink_free(a.slab[q].lo, a.slab[q].hi, x0, x1);
    else
      shrink_free(a.slab[q].lo, a.slab[q].hi, y0, y1);
  }
  return gs_fdtd_region{x0, x1, y0, y1};
}

// The row pitch of a tile tw nodes wide with its ghosts, odd: the accesses
// down a column (the ghost column's H, the left and right edges, the
// frame's side columns) then fall in 32 banks; at 126 nodes a pitch of 128
// put a column's 32 nodes in one bank.
__host__ __device__ __forceinline__ int row_pitch(int tw) {
  return (tw + 2) | 1;
}

// The kernel's host side (fdtd_run_tiles.cu). Every instance of the kernel
// may take bytes of dynamic shared memory; false if one may not.
bool tiles_allow_smem(int bytes);
// Blocks of the plain kernel an SM holds at once with smem bytes of shared
// memory each (*blocks; cudaOccupancyMaxActiveBlocksPerMultiprocessor's).
cudaError_t tiles_occupancy(int *blocks, unsigned smem);
// The cooperative launch of plan p's blocks for steps steps of a (a probe
// build: the kernel GS_FDTD_RUN_PROBE names).
cudaError_t tiles_launch(const gs_fdtd_run_args *a, const RunPlan &p, int64_t steps, cudaStream_t s);

} // namespace gs_run

#endif

/* 2D FDTD (Yee, TMz) update kernels and their CPU twins.
 *
 * Grid: Ez(i, j) at (i dx, j dy); Hx(i, j) at (i dx, (j + 1/2) dy);
 * Hy(i, j) at ((i + 1/2) dx, j dy). Every array holds (nx + 1 + 2g) x
 * (ny + 1 + 2g) floats, row-major with x fastest, element (i, j) at
 * [(j + g) * pitch + (i + g)] for i in [-g, nx + g], j in [-g, ny + g].
 *
 * Each GPU launcher gs_fdtd_X_cuda() has a CPU twin gs_fdtd_X_ref() with the
 * same signature and the same floating-point expressions (fdtd_node.h),
 * evaluated in the same order without fused multiply-add, so the two give the
 * same bits. All return 0 or a backend error code (cudaError_t). */
#ifndef GS_FDTD_KERNELS_H
#define GS_FDTD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "tick.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FDTD_MAX_MATERIALS 256

typedef struct gs_fdtd_view {
  float *ez, *hx, *hy;
  const uint8_t *mat; /* material index of each Ez node (same layout) */
  int64_t pitch;      /* elements per row */
  int g;              /* ghost layers */
} gs_fdtd_view;

/* Half-open node range [i0, i1) x [j0, j1). */
typedef struct gs_fdtd_region {
  int64_t i0, i1, j0, j1;
} gs_fdtd_region;

/* Electric update coefficients of one material: Ez = ca Ez + cbx dHy - cby dHx;
 * src = 1 / (eps / dt + sigma / 2) for current sources. */
typedef struct gs_fdtd_coef {
  float ca, cbx, cby, src;
} gs_fdtd_coef;

/* Magnetic update coefficients of one material (gprMax's DA, DBx, DBy):
 * Hx = da Hx - dby dEz/dy-difference, Hy = da Hy + dbx dEz/dx-difference. */
typedef struct gs_fdtd_hcoef {
  float da, dbx, dby;
} gs_fdtd_hcoef;

/* One CPML slab normal to x (dir 0) or y (dir 1): nodes with the index along
 * dir in [lo, hi) and the other index in [o0, o1). Profiles (hi - lo values,
 * device memory) for E at nodes and for H at half nodes: b, a and k
 * (1/kappa - 1). psi arrays: (hi - lo) x (o1 - o0), the other index fastest;
 * read from the _in arrays, written to the _out arrays. */
typedef struct gs_fdtd_slab {
  int dir;
  int64_t lo, hi, o0, o1;
  const float *be, *ae, *ke, *bh, *ah, *kh;
  const float *psi_e_in, *psi_h_in;
  float *psi_e_out, *psi_h_out;
} gs_fdtd_slab;

/* Everything one step reads and writes (kernels/fdtd_node.h has the update). */
typedef struct gs_fdtd_step_args {
  const float *ez, *hx, *hy; /* in: Ez^n, H^{n-1/2} */
  const uint8_t *mat;
  float *ez_out, *hx_out, *hy_out; /* out: Ez^{n+1}, H^{n+1/2} */
  int64_t pitch;
  int g;
  int64_t oi, oj; /* global index of the arrays' node (0, 0): a rank's part of the grid */
  int64_t nx, ny; /* global Ez nodes 0..nx x 0..ny; Ez on the outer rows and columns stays 0 */
  float chx, chy;
  const gs_fdtd_coef *coef; /* GS_FDTD_MAX_MATERIALS entries */
  int nmat;                 /* entries of coef the nodes use (the first; 0: unknown, all may be) */
  /* Magnetic materials: the material of each node's Hx and Hy (same layout
   * as mat) and their coefficients; NULL when every H node is free space
   * (then chx, chy serve, and regions away from the CPML take the fast path). */
  const uint8_t *hmx, *hmy;
  const gs_fdtd_hcoef *hcoef;
  int nslab; /* 0 for regions that touch no slab */
  gs_fdtd_slab slab[4];
  int concurrent; /* GPU: other streams share the device (overlapped exchange): see kernels/fdtd.cu, launch() */
  int pdl;        /* GPU: programmatic dependent launch allowed (GPUSTENCIL_PDL, read by the caller) */
} gs_fdtd_step_args;

/* One time step over the nodes of n disjoint regions r[0..n) (global
 * indices, subsets of the nodes the arrays hold): new H and its CPML
 * correction, then new Ez and its CPML correction. The GPU launcher takes
 * all regions in one or two launches (one for the regions the marching
 * kernel can take, one for the rest), so small pieces cost no extra launch. */
typedef int (*gs_fdtd_step_fn)(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream);
int gs_fdtd_step_ref(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream);
int gs_fdtd_step_cuda(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream);

/* Point operations for sources and receivers (n entries, device memory), at
 * step t (read when the work runs: CUDA graphs replay these launches):
 * ez[off[k]] -= val[t * stride + k] (val already scaled by the material's
 * src); and out[3 (t % slots) n + 3k ..] = ez, hx, hy at off[k] (a ring of
 * slots steps). */
typedef int (*gs_fdtd_inject_fn)(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                                 int pdl, void *stream);
int gs_fdtd_inject_ref(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n, int pdl,
                       void *stream);
int gs_fdtd_inject_cuda(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n, int pdl,
                        void *stream);
typedef int (*gs_fdtd_sample_fn)(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                                 void *stream);
int gs_fdtd_sample_ref(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t, void *stream);
int gs_fdtd_sample_cuda(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t, void *stream);

/* Several steps in one launch, the whole grid on chip (small grids on
 * one rank): step s of the run (time step t0 + s) samples the
 * receivers as gs_fdtd_sample (slot (t0 + s) % rx_slots), updates every node
 * as gs_fdtd_step over the whole grid with set[s % 2] (set[0]: buffers A to
 * B, set[1]: B to A, CPML psi alike) and injects the sources as
 * gs_fdtd_inject into the new Ez: the bits of those launches in a row. The
 * arrays must hold the whole grid (oi = oj = 0). The GPU keeps every field on
 * chip (in shared memory, one tile a block: kernels/fdtd_run_tiles.cu; or a
 * thread's column of Ez, and Hx, in registers: fdtd_run_cols.cu), one
 * grid-wide barrier a step;
 * the buffer sets hold the state of the last step at the end (set[(steps -
 * 1) % 2]'s outputs), the other set's content is then unspecified. */
typedef struct gs_fdtd_run_args {
  gs_fdtd_step_args set[2];
  const int64_t *src_off; /* sources: array offsets and values [step][source] (device) */
  const float *src_val;
  int64_t src_stride;
  int nsrc;
  int nrx; /* receivers: array offsets, and the ring of samples (device) */
  const int64_t *rx_off;
  float *rx_out;
  int64_t rx_slots; /* the ring's steps (GS_RX_CHUNK; the on-chip kernels count it in an int) */
  int64_t t0;
  const gs_fdtd_region
      *piece; /* the grid cut as the CPU twin updates it (any cut: the same bits; the GPU ignores it) */
  int npiece;
  /* GPU: the launches' scratch (gs_fdtd_run_scratch bytes of device
   * memory, zero when first used: the grid barrier's counter, the tiles'
   * edge words) and the arrivals the barrier counted in earlier launches: a
   * launch of S steps on B blocks adds B (S - 1) (B: what gs_fdtd_run_fits
   * returned; barrier_base / B numbers the steps whose edges went out). */
  uint64_t *barrier;
  int64_t barrier_bytes; /* its size (a launch whose words would not fit is refused) */
  uint64_t barrier_base;
  int blocks; /* GPU: what gs_fdtd_run_fits returned for this grid (a launch of another cut is refused) */
  /* gs_fdtd_fuse: the rank's owned nodes (global; own.i0 = oi, own.j0 = oj)
   * and the arrays' rows. The arrays hold g >= T valid ghost layers on the
   * sides with a neighbour. */
  gs_fdtd_region own;
  int64_t rows;
} gs_fdtd_run_args;
typedef int (*gs_fdtd_run_fn)(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_run_ref(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_run_cuda(const gs_fdtd_run_args *a, int64_t steps, void *stream);
/* Whether gs_fdtd_run can take the grid of a (GPU: tiles of it fit the
 * shared memory of a block on every SM at once, and the device launches
 * cooperative grids): the thread blocks it would launch, 0 when it cannot;
 * 1 on the CPU (the twin takes any grid). */
typedef int (*gs_fdtd_run_fits_fn)(const gs_fdtd_step_args *a);
int gs_fdtd_run_fits_ref(const gs_fdtd_step_args *a);
int gs_fdtd_run_fits_cuda(const gs_fdtd_step_args *a);
/* Which form of gs_fdtd_run takes the grid of a (for logs and benchmarks):
 * the GPU's "columns, Ez in registers", "columns, Ez and Hx in registers"
 * (kernels/fdtd_run_cols.cu), "tiles in shared memory, nodes a tile: x
 * ..., y ..." (fdtd_run.cu, with its cut; a buffer the next call reuses:
 * copy it), or "none"; the CPU's "the CPU twin". */
/* The bytes of device scratch gs_fdtd_run_args::barrier must hold for the
 * grid of a (the CPU: the counter's two words, unused). */
typedef int64_t (*gs_fdtd_run_scratch_fn)(const gs_fdtd_step_args *a);
int64_t gs_fdtd_run_scratch_ref(const gs_fdtd_step_args *a);
int64_t gs_fdtd_run_scratch_cuda(const gs_fdtd_step_args *a);
typedef const char *(*gs_fdtd_run_form_fn)(const gs_fdtd_step_args *a);
const char *gs_fdtd_run_form_ref(const gs_fdtd_step_args *a);
const char *gs_fdtd_run_form_cuda(const gs_fdtd_step_args *a);

/* T steps fused in one pass over a grid too big for the chip (temporal
 * blocking): the receivers, updates and sources of steps t0 .. t0
 * + T - 1 as gs_fdtd_run takes them, reading set[0]'s inputs; the state of
 * the owned nodes after the T steps is left in set[0]'s outputs (fields and
 * psi) whatever T's parity (the CPU twin runs the single steps over the
 * pieces through set[1] and copies when T is even; the GPU touches set[0]
 * only). On several ranks a pass is a deep-halo cycle: the pieces are the
 * owned nodes grown by T - 1 ghost layers (the twin's single steps; any
 * node they compute beyond what the ghosts allow is never read by an owned
 * one within T steps), the sources those of the ghost layers too. 1 <= T <=
 * GS_FDTD_FUSE_MAX. The GPU reads the fields once a pass and writes them
 * once (kernels/fdtd_fuse.cu). */
#define GS_FDTD_FUSE_MAX 7
/* Sources or receivers a block of the GPU's pass lists for itself; one
 * that holds more scans the whole list at every level (correct, slow:
 * gs_fdtd_sim_set_fuse takes no scene with more than this many points). */
#define GS_FDTD_FUSE_POINTS 256
typedef int (*gs_fdtd_fuse_fn)(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_fuse_ref(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_fuse_cuda(const gs_fdtd_run_args *a, int64_t steps, void *stream);
/* The deepest pass gs_fdtd_fuse takes for the grid of a (GS_FDTD_FUSE_MAX),
 * 0 when it cannot take the grid (gs_fdtd_fuse_takes, kernels/fdtd_node.h,
 * or no device). */
typedef int (*gs_fdtd_fuse_fits_fn)(const gs_fdtd_step_args *a);
int gs_fdtd_fuse_fits_ref(const gs_fdtd_step_args *a);
int gs_fdtd_fuse_fits_cuda(const gs_fdtd_step_args *a);

/* The clock words a graph's ticks read: add 0: c[0] = v0, c[1] = v1; add 1:
 * c[0] += v0, c[1] += v1 (the last node of a replayed graph). */
typedef int (*gs_fdtd_clock_fn)(int64_t *c, int64_t v0, int64_t v1, int add, void *stream);
int gs_fdtd_clock_ref(int64_t *c, int64_t v0, int64_t v1, int add, void *stream);
int gs_fdtd_clock_cuda(int64_t *c, int64_t v0, int64_t v1, int add, void *stream);

#ifdef __cplusplus
}
#endif
#endif

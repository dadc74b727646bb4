// The on-chip 2D FDTD run (several steps a launch with the whole grid in
// the SMs' shared memory or registers, kernels/fdtd_kernels.h): its entry
// points, which take the columns form (kernels/fdtd_run_cols.cu) where it
// is asked for and takes the grid, else the tiles form
// (kernels/fdtd_run_tiles.cu); and the tiles form's plan: what the device
// allows, the cut of the grid into tiles whose slowest tile has the least
// work (a cost model measured on an H200), the plan kept for the next
// launch, and the form's name. Host code only.
#include <cuda_runtime.h>

#include "fdtd_kernels.h"
#include "fdtd_run.cuh"
#include "fdtd_run_tiles.cuh"
#include "sm_count.cuh"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

using gs_run::Cut;
using gs_run::cut_start;
using gs_run::cut_width;
using gs_run::kEdgeWordsAt;
using gs_run::kPerSm;
using gs_run::kProfHead;
using gs_run::kRunThreads;
using gs_run::kRunX;
using gs_run::kRunY;
using gs_run::row_pitch;
using gs_run::RunPlan;
using gs_run::slab_free_box;

// Shared memory of a tile of tw x th nodes with its ghost ring.
static size_t tile_bytes(int tw, int th, bool magnetic, bool ghost_psi) {
  const size_t maps = (size_t)row_pitch(tw) + (size_t)(th + 2);
  const size_t kept = ghost_psi ? 3 + sizeof(float) * maps : 0; // (Tile::gpx, gpy, aligned)
  return sizeof(float4) * GS_FDTD_MAX_MATERIALS +
         (size_t)row_pitch(tw) * (size_t)(th + 2) * (3 * sizeof(float) + (magnetic ? 3 : 1)) + maps + kept;
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
      !gs_run::tiles_allow_smem(optin)) {
    cudaGetLastError();
    d.coop = 0;
  }
  d.smem = min(optin, per_sm / kPerSm - reserved);
  return d;
}

// The kinds of tile a cut of one axis makes: each tile's width and how many
// of its nodes along the axis lie in the free box [f0, f1), without repeats
// (a cut makes at most six: the first, the last, middle ones in, across
// either end of, or outside the free box); false if more.
struct AxisKinds {
  int n;
  int w[8], fw[8];
};

static bool axis_kinds(const Cut &c, int64_t X, int64_t f0, int64_t f1, AxisKinds *k) {
  k->n = 0;
  for (int b = 0; b < c.n; ++b) {
    const int64_t s = cut_start(c, b), w = cut_width(c, b, X);
    const int64_t lo = s > f0 ? s : f0, hi = s + w < f1 ? s + w : f1;
    const int fw = (int)(hi > lo ? hi - lo : 0);
    int q = 0;
    while (q < k->n && (k->w[q] != w || k->fw[q] != fw))
      ++q;
    if (q < k->n) continue;
    if (k->n == 8) return false;
    k->w[k->n] = (int)w;
    k->fw[k->n++] = fw;
  }
  return true;
}

// A step's work on a tile of w x h nodes whose free box is fw x fh, in
// rounds of the block's kRunX x kRunY threads over the free box, plus for
// each kRunThreads nodes of the frame kFrameX rounds in the slabs of x (the
// tile's side columns), and in the others kFrameYKept where the tile holds
// its frame's psi (kept: frame_h_kept, frame_e_kept), else kFrameY (psi in
// global memory). From the per-tile clock of two cuts of 2000 x 1000 on an
// H200 (with the frame's psi and profiles in global memory the same fit
// gives 2 and 6).
constexpr double kFrameX = 5.5, kFrameY = 6, kFrameYKept = 3.2;

static double tile_cost(int w, int fw, int h, int fh, bool kept) {
  if (fw == 0 || fh == 0) fw = fh = 0;
  const int64_t rounds = (int64_t)((fw + kRunX - 1) / kRunX) * ((fh + kRunY - 1) / kRunY);
  const double in_x = (double)(w - fw) * h, in_y = (double)fw * (h - fh);
  return (double)rounds + (kFrameX * in_x + (kept ? kFrameYKept : kFrameY) * in_y) / kRunThreads;
}

// Whether a tile of w x h nodes whose free box is fw x fh keeps its
// frame's psi in smem bytes (as the kernel decides: Tile::fpsi_on), given
// the plan keeps the ghosts' psi (kept).
static bool keeps_frame_psi(int w, int fw, int h, int fh, bool kept, int smem) {
  if (fw == 0 || fh == 0) fw = fh = 0;
  const int64_t frame = (int64_t)w * h - (int64_t)fw * fh;
  return kept && frame > 0 && tile_bytes(w, h, false, true) + 4 * sizeof(float) * (size_t)frame <= (size_t)smem;
}

// The cuts of X nodes into n tiles a plan tries: even widths (the last
// tile the rest), and where a CPML slab starts the axis (f0 > 0) first
// tiles of the slab plus R, 2 R, ... free nodes, the middle ones wider; at
// most max_cuts. (Not a tile of the slab alone: such cuts
// measured slower than the cost says.)
static int axis_cuts(int64_t X, int n, int64_t f0, int R, Cut *cuts, int max_cuts) {
  const int64_t even = (X + n - 1) / n;
  int m = 0;
  if ((n - 1) * even < X) cuts[m++] = Cut{n, (int)even, (int)even};
  if (n < 3 || f0 <= 0) return m;
  for (int64_t first = f0 + R; first < even && m < max_cuts; first += R) {
    const int64_t mid = (X - 2 * first + n - 3) / (n - 2);
    if (first + (n - 2) * mid < X) cuts[m++] = Cut{n, (int)first, (int)mid};
  }
  return m;
}

// The widest tile of a cut.
static int cut_max(const Cut &c, int64_t X) {
  int w = 0;
  for (int b = 0; b < c.n; ++b)
    w = max(w, cut_width(c, b, X));
  return w;
}

// The cut GS_FDTD_RUN_CUT asks for (a tuning knob: "nx,first,mid,ny,first,mid",
// Cut's members of each axis), if it makes tiles of X x Y nodes for at most
// blocks blocks.
static bool asked_cut(int64_t X, int64_t Y, int blocks, Cut *cx, Cut *cy) {
  const char *e = getenv("GS_FDTD_RUN_CUT");
  if (!e || !*e) return false;
  int v[6];
  for (int k = 0; k < 6; ++k) {
    char *end = NULL;
    const long n = strtol(e, &end, 10);
    if (end == e || n < 1 || n > (1 << 30) || *end != (k < 5 ? ',' : 0)) return false;
    v[k] = (int)n;
    e = end + (k < 5);
  }
  *cx = Cut{v[0], v[1], v[2]};
  *cy = Cut{v[3], v[4], v[5]};
  const Cut *c[2] = {cx, cy};
  const int64_t len[2] = {X, Y};
  for (int k = 0; k < 2; ++k) {
    if (c[k]->n > len[k]) return false;
    if (c[k]->n > 1 && c[k]->first + (int64_t)(c[k]->n - 2) * c[k]->mid >= len[k]) return false; // the last tile empty
    if (c[k]->n == 1 && c[k]->first != len[k]) return false;
  }
  return (int64_t)cx->n * cy->n <= blocks;
}

// Whether a tile w nodes wide, fw of them free, has a width its cost
// misses: one whose free box takes 4 column rounds, the last one partial.
// Measured (per-tile clock, 2000 x 1000 on an H200): tiles at
// an x slab with free widths 107, 112, 121, 123, 124, 126 took 1.3-1.4x
// their cost in both phases, left and right of the grid, while free widths
// of 128, 131, 139, 140, 154 and 160 took about what the cost says. Grids
// without CPML show the same (126 x 126 tiles 1.46x the cycles of
// 182 x 84 ones; 1000 x 1000 in 126 x 63 tiles slower than with CPML),
// so the rule holds for every
// tile. Not explained (not the frame; not the shared-memory banks: the
// free box's rows are read whole); the plan avoids them where it can.
static bool odd_side_width(int w, int fw) {
  (void)w;
  return fw > 3 * kRunX && fw < 4 * kRunX;
}

// The plan's score of a cut of the grid (lower is better): the slowest
// tile's work, then the shorter edges; < 0 if its tiles (with their
// ghosts' psi if kept) do not fit, or
// (no_tall: the first pass) a tile has an odd_side_width or its middle tiles are taller than wide (measured
// slower than the cost says: 96 x 167 nodes 12.9 us a step at 2000 x 1000, 182 x 92 11.7).
static double score_cut(const gs_fdtd_step_args *a, const gs_fdtd_region &f, const Cut &cx, const Cut &cy, int smem,
                        bool kept, bool no_tall, int *tw, int *th) {
  const int64_t X = a->nx + 1, Y = a->ny + 1;
  *tw = cut_max(cx, X);
  *th = cut_max(cy, Y);
  if (no_tall && cx.n > 2 && cy.n > 2 && cx.mid < cy.mid) return -1;
  if (tile_bytes(*tw, *th, a->hmx != NULL, kept) > (size_t)smem) return -1;
  AxisKinds kx, ky;
  if (!axis_kinds(cx, X, f.i0, f.i1, &kx) || !axis_kinds(cy, Y, f.j0, f.j1, &ky)) return -1;
  for (int p = 0; p < kx.n && no_tall; ++p)
    if (odd_side_width(kx.w[p], kx.fw[p])) return -1;
  double worst = 0;
  for (int p = 0; p < kx.n; ++p)
    for (int q = 0; q < ky.n; ++q)
      worst = fmax(worst, tile_cost(kx.w[p], kx.fw[p], ky.w[q], ky.fw[q],
                                    keeps_frame_psi(kx.w[p], kx.fw[p], ky.w[q], ky.fw[q], kept, smem)));
  return worst * 4096.0 + *tw + *th;
}

// The cut of the grid into at most blocks tiles whose slowest tile
// (tile_cost) has the least work, among those whose tiles fit smem bytes
// (GS_FDTD_RUN_CUT's where it asks for one that fits; kept: with their
// ghosts' psi, RunPlan::ghost_psi); false when none fits.
static bool search_cut(const gs_fdtd_step_args *a, int blocks, int smem, bool kept, RunPlan *p) {
  const int64_t X = a->nx + 1, Y = a->ny + 1;
  const bool magnetic = a->hmx != NULL;
  const gs_fdtd_region f = slab_free_box(*a);
  Cut xs[64], ys[64];
  int tw, th;
  if (asked_cut(X, Y, blocks, xs, ys) && score_cut(a, f, xs[0], ys[0], smem, kept, false, &tw, &th) >= 0) {
    *p = RunPlan{xs[0], ys[0], tw, th, (unsigned)tile_bytes(tw, th, magnetic, kept), kept};
    return true;
  }
  double best = -1;
  // Middle tiles no taller than wide where some such cut fits, else any (a tall grid may leave no other).
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (int nx = 1; nx <= blocks && nx <= X; ++nx)
      for (int ny = 1; nx * ny <= blocks && ny <= Y; ++ny) {
        // (no cut of nx x ny tiles fits if the even one does not)
        if (tile_bytes((int)((X + nx - 1) / nx), (int)((Y + ny - 1) / ny), magnetic, kept) > (size_t)smem) continue;
        // (free widths of the first tile in steps of a quarter round: the best cut of 2000 x 1000 measured
        // has x-slab tiles of 150 nodes, 139 free)
        const int mx = axis_cuts(X, nx, f.i0, kRunX / 4, xs, 64), my = axis_cuts(Y, ny, f.j0, kRunY / 4, ys, 64);
        for (int u = 0; u < mx; ++u)
          for (int v = 0; v < my; ++v) {
            const double score = score_cut(a, f, xs[u], ys[v], smem, kept, pass == 0, &tw, &th);
            if (score < 0 || (best >= 0 && score >= best)) continue;
            best = score;
            *p = RunPlan{xs[u], ys[v], tw, th, (unsigned)tile_bytes(tw, th, magnetic, kept), kept};
          }
      }
  return best >= 0;
}

// Whether no two slabs of an axis share an index along it (the slab maps
// then name one slab a node, never kSlabs).
static bool slabs_apart(const gs_fdtd_step_args *a) {
  for (int q = 0; q < a->nslab; ++q)
    for (int r = q + 1; r < a->nslab; ++r)
      if (a->slab[q].dir == a->slab[r].dir && a->slab[q].lo < a->slab[r].hi && a->slab[r].lo < a->slab[q].hi)
        return false;
  return true;
}

// Bytes of the frame divisors and the CPML profiles in shared memory (RunPlan::prof_at).
static int profile_bytes(const gs_fdtd_step_args *a) {
  int64_t cells = 0;
  for (int q = 0; q < a->nslab; ++q)
    cells += a->slab[q].hi - a->slab[q].lo;
  return cells > (1 << 20) ? INT_MAX / 2 : kProfHead * (int)sizeof(uint32_t) + 2 * (int)sizeof(float4) * (int)cells;
}

// Whether prof bytes of profiles fit the end of the coefficient table
// beside the materials the nodes use (RunPlan::prof_at).
static bool coef_tail_fits(const gs_fdtd_step_args *a, int prof) {
  const int table = (int)sizeof(float4) * GS_FDTD_MAX_MATERIALS;
  return a->nmat > 0 && prof <= table && ((table - prof) & ~15) >= (int)sizeof(float4) * a->nmat;
}

// The profiles' place (RunPlan::prof_at): the end of the coefficient table
// (tail), else after the tiles' arrays (their plan's smem bytes), or with
// the ghosts' psi kept, at the end of all the block may take (smem bytes);
// with the ghosts' psi kept, the tiles with room keep their frame's psi
// before them.
static void place_profiles(const gs_fdtd_step_args *a, int smem, int prof, bool tail, RunPlan *p) {
  if (tail) {
    p->prof_at = (unsigned)((int)sizeof(float4) * GS_FDTD_MAX_MATERIALS - prof) & ~15u;
    if (p->ghost_psi) p->smem = (unsigned)smem;
    p->psi_end = p->smem;
  } else {
    p->prof_at = p->ghost_psi ? (unsigned)(smem - prof) & ~15u : (p->smem + 15u) & ~15u;
    p->smem = p->prof_at + (unsigned)prof;
    p->psi_end = p->prof_at;
  }
  int at = 0;
  for (int q = 0; q < a->nslab; ++q) {
    p->prof_off[q] = at;
    at += 2 * (int)(a->slab[q].hi - a->slab[q].lo);
  }
}

// The last plan made and what it depends on: a run asks at every launch,
// and the search weighs thousands of cuts (about a millisecond).
struct PlanMemo {
  bool made, ok;
  int dev;
  int64_t nx, ny;
  gs_fdtd_region free;
  bool magnetic, apart;
  int prof, nmat;   // profile_bytes, the materials in use
  bool tail;        // the profiles at the table's end (place_profiles)
  int64_t thick[4]; // each slab's cells (RunPlan::prof_off)
  RunPlan plan;
};

static bool same_key(const PlanMemo &m, int dev, const gs_fdtd_step_args *a, const gs_fdtd_region &f) {
  bool same = m.made && m.dev == dev && m.nx == a->nx && m.ny == a->ny && m.magnetic == (a->hmx != NULL) &&
              m.apart == slabs_apart(a) && m.free.i0 == f.i0 && m.free.i1 == f.i1 && m.free.j0 == f.j0 &&
              m.free.j1 == f.j1 && m.prof == profile_bytes(a) && m.nmat == a->nmat;
  for (int q = 0; q < a->nslab && same; ++q)
    same = m.thick[q] == a->slab[q].hi - a->slab[q].lo;
  return same;
}

// The cut of the grid into at most kPerSm tiles per SM (search_cut), if the
// device can launch it as one cooperative grid; false when none fits.
static bool plan_run(const gs_fdtd_step_args *a, RunPlan *p) {
  const RunDevice d = run_device();
  if (!d.coop || d.sms <= 0 || a->oi != 0 || a->oj != 0) return false;
  if (a->nx >= INT_MAX / 2 || a->ny >= INT_MAX / 2) return false; // (cuts and tiles count in int)
  static PlanMemo memo;                                           // (the host's one thread plans)
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  const gs_fdtd_region f = slab_free_box(*a);
  const int prof = profile_bytes(a);
  // (GS_FDTD_RUN_PROFILES=end: the profiles after the tiles even where the
  // table has room, a test knob: the emulator's scenes have few materials)
  const char *at = getenv("GS_FDTD_RUN_PROFILES");
  const bool tail = coef_tail_fits(a, prof) && !(at && strcmp(at, "end") == 0);
  if (same_key(memo, dev, a, f) && memo.tail == tail) {
    *p = memo.plan;
    return memo.ok;
  }
  *p = RunPlan{};
  // The ghosts' psi kept where the scene allows it and the tiles still fit, else read from L2.
  const bool kept = a->hmx == NULL && slabs_apart(a);
  const int room = tail ? d.smem : d.smem - prof - 16; // (16: the profiles' alignment)
  bool ok = room > 0 &&
            (search_cut(a, d.sms * kPerSm, room, kept, p) || (kept && search_cut(a, d.sms * kPerSm, room, false, p)));
  if (ok) place_profiles(a, d.smem, prof, tail, p);
  int resident = 0; // what the registers and shared memory really allow
  if (ok && gs_run::tiles_occupancy(&resident, p->smem) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  ok = ok && resident * d.sms >= p->blocks();
  memo =
      PlanMemo{true, ok, dev, a->nx, a->ny, f, a->hmx != NULL, slabs_apart(a), prof, a->nmat, tail, {0, 0, 0, 0}, *p};
  for (int q = 0; q < a->nslab; ++q)
    memo.thick[q] = a->slab[q].hi - a->slab[q].lo;
  return ok;
}

// Text of v at *at (kernels may not use stdio).
static void put_int(char *&at, int64_t v) {
  char digits[24];
  int n = 0;
  do
    digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (n > 0)
    *at++ = digits[--n];
}

static void put_text(char *&at, const char *t) {
  while (*t)
    *at++ = *t++;
}

// One axis of a cut as the form's name gives it: "2001", "1000+1001",
// "106+14x128+103".
static void put_axis(char *&at, const Cut &c, int64_t X) {
  if (c.n == 1) {
    put_int(at, X);
    return;
  }
  put_int(at, c.first);
  if (c.n > 2) {
    put_text(at, "+");
    put_int(at, c.n - 2);
    put_text(at, "x");
    put_int(at, c.mid);
  }
  put_text(at, "+");
  put_int(at, cut_width(c, c.n - 1, X));
}

} // namespace

// The columns form (kernels/fdtd_run_cols.cu) where it is asked for
// (GS_FDTD_RUN_FORM, GS_FDTD_RUN_COLUMNS) and takes the grid, else the tiles
// form.
extern "C" int gs_fdtd_run_fits_cuda(const gs_fdtd_step_args *a) {
  gs_run::ColsPlan c;
  if (gs_run::cols_plan(a, &c)) return c.cx * c.cy;
  RunPlan p;
  return plan_run(a, &p) ? p.blocks() : 0;
}

extern "C" int64_t gs_fdtd_run_scratch_cuda(const gs_fdtd_step_args *a) {
  gs_run::ColsPlan c;
  RunPlan p;
  const int64_t counter = kEdgeWordsAt * (int64_t)sizeof(uint64_t);
  if (gs_run::cols_plan(a, &c) || !plan_run(a, &p)) return counter;
  return counter + 2 * (int64_t)p.blocks() * 2 * ((int64_t)p.tw + p.th) * (int64_t)sizeof(uint64_t);
}

extern "C" const char *gs_fdtd_run_form_cuda(const gs_fdtd_step_args *a) {
  gs_run::ColsPlan c;
  RunPlan p;
  if (gs_run::cols_plan(a, &c))
    return c.form == gs_run::kFormEz ? "columns, Ez in registers" : "columns, Ez and Hx in registers";
  if (!plan_run(a, &p)) return "none";
  static char name[160]; // (the host's one thread asks; the caller copies it; about 100 characters at most)
  char *at = name;
  put_text(at, "tiles in shared memory, nodes a tile: x ");
  put_axis(at, p.x, a->nx + 1);
  put_text(at, ", y ");
  put_axis(at, p.y, a->ny + 1);
  *at = 0;
  return name;
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
  if (!plan_run(&a->set[0], &p) || p.blocks() != a->blocks) return (int)cudaErrorInvalidConfiguration;
  if (gs_fdtd_run_scratch_cuda(&a->set[0]) > a->barrier_bytes) return (int)cudaErrorInvalidConfiguration;
  return (int)gs_run::tiles_launch(a, p, steps, (cudaStream_t)stream);
}

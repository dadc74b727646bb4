/* The ghost boxes of a split run, through the public API on the CPU backend
 * (the box computation itself, ghost_boxes() in src/engine/fdtd_dist.c, is static).
 * Run under mpiexec with 4 ranks (fewer: the larger splits are left out):
 *  - every split of 2, 3 and 4 ranks (2x1 1x2 3x1 1x3 4x1 1x4 2x2), halo
 *    depths 1..5 and 8, with and without overlap, on a scene with CPML and
 *    on one with PEC walls, gives after 70 steps the split-independent
 *    checksum of the 1-rank run bit for bit: a missing or misplaced ghost box
 *    (sides, R x R corners, CPML auxiliaries along the slabs) changes a field;
 *  - the bytes a rank sends per exchange (gs_fdtd_timed_run's halo_bytes, one
 *    exchange every R steps) are those of the boxes docs/fdtd.md describes:
 *    Ez R deep on every side, Hy R on the left, Hx R below, the others R - 1,
 *    corners from the diagonal neighbours (R > 1), and both CPML auxiliaries
 *    R - 1 deep along each slab a boundary crosses. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"
#include "scene.h"

#define STEPS 70

static int world_rank, world_size;

/* ------------------------------------------------------------ the model */

/* Layers a rank reads of field f (0 Ez, 1 Hx, 2 Hy) beyond its side
 * (dx, dy): -1 left, +1 right, -1 below, +1 above. */
static int64_t layers(int f, int side_x, int side_y, int R) {
  if (f == 0) return R;
  if (side_x) return f == 2 && side_x < 0 ? R : R - 1; /* Hy R on the left */
  return f == 1 && side_y < 0 ? R : R - 1;             /* Hx R below */
}

/* Nodes of a slab of n cells at the lower (lower 1) or upper end of an axis
 * of extent cells that a range [lo, hi) covers: the lower slab holds nodes
 * 0..n, the upper one extent - n .. extent - 1. */
static int64_t slab_overlap(int64_t extent, int n, int lower, int64_t lo, int64_t hi) {
  if (!n) return 0;
  int64_t s0 = lower ? 0 : extent - n, s1 = lower ? n + 1 : extent;
  int64_t a = s0 > lo ? s0 : lo, b = s1 < hi ? s1 : hi;
  return b > a ? b - a : 0;
}

/* Floats a rank with part q receives from its neighbour at (dx, dy). */
static int64_t recv_floats(const gs_scene *sc, const gs_fdtd_part *q, int R, int dx, int dy) {
  if (dx && dy && R == 1) return 0;
  int64_t n = 0;
  for (int f = 0; f < 3; ++f) {
    int64_t w = dx ? layers(f, dx, 0, R) : q->i1 - q->i0;
    int64_t h = dy ? layers(f, 0, dy, R) : q->j1 - q->j0;
    n += w * h;
  }
  if (R > 1 && !dx) /* a boundary across x: the x- and x+ slabs run along it */
    n += 2 * (R - 1) *
         (slab_overlap(sc->nx, sc->pml[0], 1, q->i0, q->i1) + slab_overlap(sc->nx, sc->pml[2], 0, q->i0, q->i1));
  if (R > 1 && !dy)
    n += 2 * (R - 1) *
         (slab_overlap(sc->ny, sc->pml[1], 1, q->j0, q->j1) + slab_overlap(sc->ny, sc->pml[3], 0, q->j0, q->j1));
  return n;
}

/* The most bytes any rank of a dims split sends per exchange. */
static double model_bytes(const gs_scene *sc, const int dims[2], int R) {
  int64_t most = 0;
  for (int cy = 0; cy < dims[1]; ++cy)
    for (int cx = 0; cx < dims[0]; ++cx) {
      int64_t sent = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int c[2] = {cx + dx, cy + dy};
          if ((!dx && !dy) || c[0] < 0 || c[0] >= dims[0] || c[1] < 0 || c[1] >= dims[1]) continue;
          gs_fdtd_part theirs = gs_fdtd_part_of(sc, dims, c);
          sent += recv_floats(sc, &theirs, R, -dx, -dy); /* they see this rank at (-dx, -dy) */
        }
      if (sent > most) most = sent;
    }
  return (double)most * sizeof(float);
}

/* --------------------------------------------------------------- runs */

/* Sum over comm of the ranks' checksum terms after STEPS steps. */
static int run_sum(const gs_scene *sc, MPI_Comm comm, const int dims[2], int depth, int overlap, uint64_t sum[3]) {
  gs_fdtd_spread sp = {GS_HALO_MPI_HOST, depth, overlap, 0};
  gs_fdtd_sim m;
  MPI_Comm cart;
  char err[256] = "";
  if (gs_fdtd_sim_open(&m, sc, &gs_backend_cpu, comm, dims, &sp, &cart, err, sizeof err) != GS_OK) {
    CHECKF(0, "%dx%d depth %d: sim_open: %s", dims[0], dims[1], depth, err);
    return -1;
  }
  gs_fdtd_sim_advance(&m, STEPS);
  gs_fdtd_sim_sync(&m);
  uint64_t mine[3];
  gs_fdtd_sim_checksum(&m, mine);
  MPI_Allreduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, cart); /* wraps, like the checksum */
  gs_fdtd_sim_free(&m);
  MPI_Comm_free(&cart);
  return 0;
}

static void one_scene(const char *name, const gs_scene *sc) {
  uint64_t ref[3];
  const int one[2] = {1, 1};
  run_sum(sc, MPI_COMM_SELF, one, 1, 0, ref);
  CHECKF(ref[0] != 0 && ref[1] != ref[0], "%s: the 1-rank checksum looks empty", name);
  static const int splits[][2] = {{2, 1}, {1, 2}, {3, 1}, {1, 3}, {4, 1}, {1, 4}, {2, 2}};
  static const int depths[] = {1, 2, 3, 4, 5, 8};
  for (size_t s = 0; s < sizeof splits / sizeof *splits; ++s) {
    int n = splits[s][0] * splits[s][1];
    if (n > world_size) continue;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm == MPI_COMM_NULL) continue;
    for (size_t d = 0; d < sizeof depths / sizeof *depths; ++d)
      for (int overlap = 0; overlap < 2; ++overlap) {
        uint64_t sum[3];
        if (run_sum(sc, comm, splits[s], depths[d], overlap, sum)) continue;
        for (int f = 0; f < 3; ++f)
          CHECKF(sum[f] == ref[f], "%s, %dx%d, depth %d, overlap %d: %s differs from the 1-rank run", name,
                 splits[s][0], splits[s][1], depths[d], overlap,
                 f == 0   ? "Ez"
                 : f == 1 ? "Hx"
                          : "Hy");
      }
    /* Bytes per exchange against the model: K cycles of R steps, K exchanges. */
    for (int R = 1; R <= 8; ++R) {
      const int K = 3;
      gs_fdtd_spread sp = {GS_HALO_MPI_HOST, R, 0, 0};
      gs_fdtd_timing t;
      char used[128] = "", err[256] = "";
      int depth_used = 0;
      gs_status st = gs_fdtd_timed_run(sc, &gs_backend_cpu, comm, splits[s], &sp, 0, (int64_t)R * K, &t, used,
                                       sizeof used, &depth_used, err, sizeof err);
      CHECKF(st == GS_OK, "%s, %dx%d, depth %d: timed run: %s", name, splits[s][0], splits[s][1], R, err);
      if (st != GS_OK) continue;
      double want = model_bytes(sc, splits[s], R) * K;
      CHECKF(t.halo_bytes == want, "%s, %dx%d, depth %d: %.0f bytes sent in %d exchanges, the boxes make %.0f", name,
             splits[s][0], splits[s][1], R, t.halo_bytes, K, want);
      CHECKF(depth_used == R, "%s, %dx%d: depth %d used for %d", name, splits[s][0], splits[s][1], depth_used, R);
      CHECKF(strcmp(used, "mpi-host") == 0, "%s, %dx%d: transport %s", name, splits[s][0], splits[s][1], used);
    }
    MPI_Comm_free(&comm);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size < 2 && world_rank == 0) printf("test_ghost_boxes: 1 rank, only the 1-rank runs (use mpiexec -np 4)\n");

  /* 98 x 77 nodes: uneven parts for every split (4x1: 24 24 25 25; 1x3: 25 26
   * 26), source near the 2x2 corner, waves through every boundary and slab
   * within STEPS. */
  gs_scene sc;
  gs_scene_synthetic(&sc, 97, 76, STEPS);
  one_scene("CPML", &sc);
  /* The same with PEC walls (no CPML auxiliaries) and a lopsided CPML. */
  sc.pml[0] = sc.pml[1] = sc.pml[2] = sc.pml[3] = 0;
  one_scene("PEC", &sc);
  sc.pml[0] = 6;
  sc.pml[1] = 0;
  sc.pml[2] = 12;
  sc.pml[3] = 9;
  one_scene("lopsided CPML", &sc);
  gs_scene_free(&sc);

  int fails = gs_test_failures, all;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gs_test_failures = all;
  int rc = world_rank == 0 ? gs_test_done("test_ghost_boxes") : (all ? 1 : 0);
  MPI_Finalize();
  return rc;
}

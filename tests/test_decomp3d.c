/* The 3D split (src/engine/decomp3d.h): explicit specs and their refusals,
 * the automatic choice against an exhaustive search of the halo cost, and
 * parts that tile the grid for every split of up to 64 ranks. */
#include <string.h>

#include "check.h"
#include "decomp3d.h"

static void specs(void) {
  int d[3];
  char why[200];
  CHECK(gs_decomp3_parse("2x2x2", 8, d, why, sizeof why) == 0 && d[0] == 2 && d[1] == 2 && d[2] == 2);
  CHECK(gs_decomp3_parse("1x1x8", 8, d, why, sizeof why) == 0 && d[2] == 8);
  CHECK(gs_decomp3_parse("4x1x1", 4, d, why, sizeof why) == 0 && d[0] == 4);
  const char *bad[] = {"2x2", "2x2x2x1", "0x1x8", "02x2x2", "-2x2x2", "2x2x2 ", "2xx2", "", "x", "1x1x9999999999"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    why[0] = 0;
    CHECKF(gs_decomp3_parse(bad[k], 8, d, why, sizeof why) == -1 && why[0], "'%s' accepted", bad[k]);
  }
  CHECK(gs_decomp3_parse("2x2x1", 8, d, why, sizeof why) == -1 && strstr(why, "4 parts"));
}

/* The least cost of any split of size ranks with parts >= min_part thick. */
static double best_cost(int size, const int64_t n[3], int64_t min_part) {
  double best = -1;
  for (int px = 1; px <= size; ++px)
    for (int py = 1; py <= size; ++py)
      for (int pz = 1; pz <= size; ++pz) {
        int d[3] = {px, py, pz};
        if (px * py * pz != size) continue;
        int ok = 1;
        for (int a = 0; a < 3; ++a)
          ok &= d[a] == 1 || n[a] / d[a] >= min_part;
        double c = gs_decomp3_halo_bytes(n, d, 1);
        if (ok && (best < 0 || c < best)) best = c;
      }
  return best;
}

static void choices(void) {
  const int64_t shapes[][3] = {{1025, 1025, 1025}, {513, 513, 129}, {2049, 257, 65}, {101, 101, 101}, {33, 401, 33}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int size = 1; size <= 64; ++size) {
      int d[3];
      int r = gs_decomp3_choose(size, shapes[s], 8, d);
      double want = best_cost(size, shapes[s], 8);
      CHECKF(d[0] * d[1] * d[2] == size, "%d ranks: %dx%dx%d", size, d[0], d[1], d[2]);
      if (want >= 0)
        CHECKF(r == 0 && gs_decomp3_halo_bytes(shapes[s], d, 1) == want, "%d ranks on %lldx%lldx%lld: %dx%dx%d", size,
               (long long)shapes[s][0], (long long)shapes[s][1], (long long)shapes[s][2], d[0], d[1], d[2]);
      else
        CHECKF(r == -1, "%d ranks: no split keeps 8 nodes, yet 0", size);
    }
  int d[3];
  const int64_t cube[3] = {1025, 1025, 1025};
  CHECK(gs_decomp3_choose(2, cube, 8, d) == 0 && d[0] == 1 && d[1] == 1 && d[2] == 2); /* planes, not columns */
  CHECK(gs_decomp3_choose(4, cube, 8, d) == 0 && d[0] == 1 && d[1] == 2 && d[2] == 2);
  CHECK(gs_decomp3_choose(8, cube, 8, d) == 0 && d[0] == 2 && d[1] == 2 && d[2] == 2);
  const int64_t thin[3] = {1025, 1025, 9};
  CHECK(gs_decomp3_choose(4, thin, 8, d) == 0 && d[2] == 1); /* 9 nodes cannot take 2 parts of 8 */
  const int64_t tiny[3] = {9, 9, 9};
  CHECK(gs_decomp3_choose(8, tiny, 8, d) == -1 && d[0] * d[1] * d[2] == 8);
}

/* Parts tile the grid: consecutive along each axis, sizes within one node. */
static void tiling(void) {
  const int64_t n[3] = {1025, 77, 300};
  for (int size = 1; size <= 24; ++size) {
    int d[3];
    gs_decomp3_choose(size, n, 1, d);
    for (int a = 0; a < 3; ++a) {
      int64_t at = 0, lo = INT64_MAX, hi = 0;
      for (int c = 0; c < d[a]; ++c) {
        int coords[3] = {0, 0, 0};
        coords[a] = c;
        gs_part3 p = gs_decomp3_part(n, d, coords);
        CHECK(p.lo[a] == at);
        at = p.hi[a];
        int64_t len = p.hi[a] - p.lo[a];
        lo = len < lo ? len : lo;
        hi = len > hi ? len : hi;
      }
      CHECKF(at == n[a] && hi - lo <= 1, "axis %d of %dx%dx%d: ends at %lld, sizes %lld..%lld", a, d[0], d[1], d[2],
             (long long)at, (long long)lo, (long long)hi);
    }
  }
}

int main(void) {
  specs();
  choices();
  tiling();
  return gs_test_done("test_decomp3d");
}

/* How the grid is split over ranks, through the public functions of
 * src/engine/fdtd.h only: gs_fdtd_decomp (an explicit "PXxPY" and the automatic
 * choice), gs_fdtd_part_of (each rank's nodes: the parts tile the grid, uneven
 * splits within one node) and gs_fdtd_depth_fit (the deepest halo a part
 * allows), the last cross-checked against gs_fdtd_sim_init_part on the CPU
 * backend. None of them needs MPI_Init. Behaviour that looks wrong but is
 * today's is printed as "NOTE:" lines instead of failing. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"
#include "scene.h"

static void note(const char *what) {
  printf("NOTE: %s\n", what);
}

/* ------------------------------------------------------ explicit specs */

static int decomp(const char *spec, int size, int dims[2]) {
  dims[0] = dims[1] = -77;
  return gs_fdtd_decomp(spec, size, 1000, 1000, dims);
}

static void check_spec_ok(const char *spec, int size, int px, int py) {
  int d[2];
  int r = decomp(spec, size, d);
  CHECKF(r == 0 && d[0] == px && d[1] == py, "'%s' on %d ranks: %d, %dx%d (want %dx%d)", spec, size, r, d[0], d[1], px,
         py);
}

static void check_spec_bad(const char *spec, int size) {
  int d[2];
  int r = decomp(spec, size, d);
  CHECKF(r == -1, "'%s' on %d ranks accepted as %dx%d", spec, size, d[0], d[1]);
}

static void explicit_specs(void) {
  check_spec_ok("1x1", 1, 1, 1);
  check_spec_ok("2x2", 4, 2, 2);
  check_spec_ok("4x1", 4, 4, 1);
  check_spec_ok("1x4", 4, 1, 4);
  check_spec_ok("3x4", 12, 3, 4);
  check_spec_ok("4x3", 12, 4, 3);
  check_spec_ok("2X3", 6, 2, 3); /* capital X too */
  check_spec_ok("1x7", 7, 1, 7);
  check_spec_ok("64x64", 4096, 64, 64);
  /* The spec wins over the grid, even when parts would be empty (1001 nodes
   * over 2000 ranks along y): gs_fdtd_sim_init_part refuses those later. */
  check_spec_ok("1x2000", 2000, 1, 2000);

  /* wrong product */
  check_spec_bad("2x2", 3);
  check_spec_bad("2x2", 8);
  check_spec_bad("2x3", 4);
  check_spec_bad("1x1", 2);
  check_spec_bad("4x4", 4);
  /* garbage */
  const char *garbage[] = {"",     "x",    "2x",    "x2",    "2",     "4",     "2x2x1", "axb",   "2*2",  "2,2",
                           "2x2 ", "2x2a", "2.0x2", "2x2.0", "two",   "2xx2",  "-2x-2", "-1x-4", "2x-2", "0x4",
                           "4x0",  "0x0",  "0x1",   "0x01",  "1e1x1", "2 x 2", "x2x2",  "2x2\n"};
  for (size_t k = 0; k < sizeof garbage / sizeof *garbage; ++k) {
    check_spec_bad(garbage[k], 4);
    check_spec_bad(garbage[k], 0);
  }
  check_spec_bad("0x0", 0); /* zero ranks is not a split either */
  check_spec_bad("0x5", 0);
  /* out of range for strtoll */
  check_spec_bad("9223372036854775808x1", 1);
  check_spec_bad("1x9223372036854775808", 1);
  check_spec_bad("99999999999999999999x1", 4);
  /* large but exact products that do not fit an int are never a rank count */
  check_spec_bad("4294967296x1", 0);
  check_spec_bad("65536x65536", 0);
  check_spec_bad("2147483648x1", (int)-2147483647 - 1);

  /* Lenient parsing (strtoll): leading blanks and '+' are taken. Harmless;
   * noted, not required. */
  int d[2];
  if (decomp(" 2x2", 4, d) == 0) note("gs_fdtd_decomp(\" 2x2\", 4, ...) accepts a leading blank");
  if (decomp("2x 2", 4, d) == 0) note("gs_fdtd_decomp(\"2x 2\", 4, ...) accepts a blank after the x");
  if (decomp("+2x+2", 4, d) == 0) note("gs_fdtd_decomp(\"+2x+2\", 4, ...) accepts '+' signs");
  if (decomp("0002x02", 4, d) == 0 && d[0] == 2 && d[1] == 2)
    note("gs_fdtd_decomp(\"0002x02\", 4, ...) accepts leading zeros (decimal, not octal): fine");

  /* Huge factors: px * py is computed in int64_t and overflows (undefined
   * behaviour; in practice it wraps), and the factors are then truncated to
   * int. Two's-complement wrap: (2^63 - 1)^2 = 1 (mod 2^64), and
   * 6148914691236517206 * 3 = 2^64 + 2 = 2 (mod 2^64). */
  static const struct {
    const char *spec;
    int size;
  } huge[] = {
      {"9223372036854775807x9223372036854775807", 1},
      {"6148914691236517206x3", 2},
      {"3x6148914691236517206", 2},
      {"4294967297x4294967295", -1}, /* (2^32 + 1)(2^32 - 1) = 2^64 - 1 */
  };
  for (size_t k = 0; k < sizeof huge / sizeof *huge; ++k) {
    int r = decomp(huge[k].spec, huge[k].size, d);
    char buf[256];
    if (r != -1) {
      snprintf(buf, sizeof buf, "FINDING: gs_fdtd_decomp(\"%s\", %d, ...) returns %d with dims %dx%d (should be -1)",
               huge[k].spec, huge[k].size, r, d[0], d[1]);
      note(buf);
    }
  }
  /* Without overflow every accepted split has positive factors whose
   * product is the rank count. */
  for (int size = 1; size <= 64; ++size)
    for (int px = 1; px <= 70; ++px)
      for (int py = 1; py <= 70; ++py) {
        char spec[32];
        snprintf(spec, sizeof spec, "%dx%d", px, py);
        int r = decomp(spec, size, d);
        if (px * py == size)
          CHECKF(r == 0 && d[0] == px && d[1] == py, "'%s' on %d ranks: %d", spec, size, r);
        else
          CHECKF(r == -1, "'%s' on %d ranks accepted", spec, size);
      }
}

/* ------------------------------------------------------ automatic choice */

static void check_auto(int size, int64_t nx, int64_t ny, int px, int py) {
  int d[2] = {-77, -77};
  int r = gs_fdtd_decomp(NULL, size, nx, ny, d);
  CHECKF(r == 0 && d[0] == px && d[1] == py, "auto, %d ranks, %lldx%lld cells: %d, %dx%d (want %dx%d)", size,
         (long long)nx, (long long)ny, r, d[0], d[1], px, py);
}

static void automatic(void) {
  /* Every automatic choice is a split of exactly size ranks. */
  const int64_t shapes[][2] = {{1000, 1000}, {100, 100}, {4000, 100}, {100, 4000}, {16383, 16383},
                               {2000, 1000}, {10, 10},   {1, 1},      {31, 31},    {5000, 5}};
  for (int size = 1; size <= 64; ++size)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
      int d[2] = {-77, -77};
      int r = gs_fdtd_decomp(NULL, size, shapes[s][0], shapes[s][1], d);
      CHECKF(r == 0 && d[0] >= 1 && d[1] >= 1 && d[0] * d[1] == size, "auto, %d ranks, %lldx%lld: %d, %dx%d", size,
             (long long)shapes[s][0], (long long)shapes[s][1], r, d[0], d[1]);
    }

  /* One rank: no split. */
  check_auto(1, 1000, 1000, 1, 1);
  check_auto(1, 4000, 100, 1, 1);
  check_auto(1, 100, 4000, 1, 1);
  check_auto(1, 1, 1, 1, 1);

  /* Square and large: row halos (a split along y) are cheapest for every
   * count here (cost nx + 1 against 8 (ny + 1) / py + (nx + 1) / px). */
  const int counts[] = {2, 3, 4, 6, 8, 12};
  for (int k = 0; k < 6; ++k) {
    check_auto(counts[k], 1000, 1000, 1, counts[k]);
    check_auto(counts[k], 16383, 16383, 1, counts[k]);
    /* tall: rows always */
    check_auto(counts[k], 100, 4000, 1, counts[k]);
    check_auto(counts[k], 2000, 1000, 1, counts[k]);
  }

  /* Square and small (101 x 101 nodes): parts thinner than 32 nodes are
   * avoided where some split allows it. */
  check_auto(2, 100, 100, 1, 2);
  check_auto(3, 100, 100, 1, 3);   /* 33 rows each */
  check_auto(4, 100, 100, 2, 2);   /* 1x4 would give 25 rows */
  check_auto(6, 100, 100, 2, 3);   /* 50 x 33: cheaper than 3x2 */
  check_auto(8, 100, 100, 1, 8);   /* no split keeps 32: cheapest of all */
  check_auto(12, 100, 100, 1, 12); /* likewise */

  /* Wide (4001 x 101 nodes): columns once the row halo costs more than 8
   * column halos. */
  check_auto(2, 4000, 100, 2, 1);
  check_auto(3, 4000, 100, 3, 1);
  check_auto(4, 4000, 100, 4, 1);
  check_auto(6, 4000, 100, 6, 1);
  check_auto(8, 4000, 100, 8, 1);
  check_auto(12, 4000, 100, 12, 1);

  /* The 8:1 weight at its edge: 800 x 100 nodes cost the same either way
   * (the first, 1x2, is kept); one more column and 2x1 wins. */
  check_auto(2, 799, 99, 1, 2);
  check_auto(2, 800, 99, 2, 1);
  check_auto(4, 4000, 1000, 1, 4);  /* 4001 < 8 * 1001: rows */
  check_auto(4, 8006, 1000, 1, 4);  /* 1x4 8007, 2x2 8007.5, 4x1 8008 */
  check_auto(4, 8008, 1000, 4, 1);  /* 4x1 8008, 2x2 8008.5, 1x4 8009 */
  check_auto(4, 32032, 1000, 4, 1); /* (2x2 never wins on large grids) */

  /* Choices where every split is too thin: parts may come out empty. */
  int d[2];
  gs_fdtd_decomp(NULL, 12, 10, 10, d);
  if (d[0] == 1 && d[1] == 12)
    note("SURPRISE: gs_fdtd_decomp(NULL, 12, 10, 10) picks 1x12: 11 rows over 12 ranks, one rank owns 0 rows "
         "(4x3 would give every rank 2-3 x 3-4 nodes); init_part refuses it later anyway");
  gs_fdtd_decomp(NULL, 64, 10, 10, d);
  if (d[0] == 1 && d[1] == 64)
    note("SURPRISE: gs_fdtd_decomp(NULL, 64, 10, 10) picks 1x64 (8x8 would own 1-2 nodes each)");
  d[0] = d[1] = -77;
  int r = gs_fdtd_decomp(NULL, 0, 1000, 1000, d);
  if (r == 0) {
    char buf[160];
    snprintf(buf, sizeof buf, "gs_fdtd_decomp(NULL, 0, 1000, 1000) returns 0 with dims %dx%d (no split of 0 ranks)",
             d[0], d[1]);
    note(buf);
  }
  r = gs_fdtd_decomp(NULL, -3, 1000, 1000, d);
  if (r == 0) {
    char buf[160];
    snprintf(buf, sizeof buf, "gs_fdtd_decomp(NULL, -3, 1000, 1000) returns 0 with dims %dx%d", d[0], d[1]);
    note(buf);
  }
}

/* ------------------------------------------------------------- parts */

static gs_scene scene_of(int64_t nx, int64_t ny) {
  gs_scene sc;
  memset(&sc, 0, sizeof sc);
  sc.nx = nx;
  sc.ny = ny;
  return sc;
}

static gs_fdtd_part part(const gs_scene *sc, int px, int py, int cx, int cy) {
  const int dims[2] = {px, py}, coords[2] = {cx, cy};
  return gs_fdtd_part_of(sc, dims, coords);
}

/* Checks that the px x py parts tile nodes [0, nx] x [0, ny]: a product of
 * two 1D splits, each consecutive from 0 to n + 1, sizes within one node, no
 * part larger than ceil(n / p); with mark (small grids) every node is
 * counted exactly once. Returns the number of problems found. */
static int tiles(int64_t nx, int64_t ny, int px, int py, unsigned char *mark) {
  gs_scene sc = scene_of(nx, ny);
  int before = gs_test_failures;
  const int64_t nodes[2] = {nx + 1, ny + 1};
  const int p[2] = {px, py};
  for (int ax = 0; ax < 2; ++ax) {
    int64_t lo = nodes[ax] / p[ax], hi = (nodes[ax] + p[ax] - 1) / p[ax], at = 0;
    for (int c = 0; c < p[ax]; ++c) {
      gs_fdtd_part q = ax == 0 ? part(&sc, px, py, c, 0) : part(&sc, px, py, 0, c);
      int64_t a0 = ax == 0 ? q.i0 : q.j0, a1 = ax == 0 ? q.i1 : q.j1;
      CHECKF(a0 == at, "%lldx%lld over %dx%d: axis %d part %d starts at %lld, not %lld", (long long)nx, (long long)ny,
             px, py, ax, c, (long long)a0, (long long)at);
      CHECKF(a1 - a0 >= lo && a1 - a0 <= hi, "%lldx%lld over %dx%d: axis %d part %d has %lld nodes, not %lld..%lld",
             (long long)nx, (long long)ny, px, py, ax, c, (long long)(a1 - a0), (long long)lo, (long long)hi);
      /* the same range whatever the other coordinate */
      for (int o = 0; o < p[1 - ax]; ++o) {
        gs_fdtd_part r = ax == 0 ? part(&sc, px, py, c, o) : part(&sc, px, py, o, c);
        CHECKF(ax == 0 ? (r.i0 == q.i0 && r.i1 == q.i1) : (r.j0 == q.j0 && r.j1 == q.j1),
               "%lldx%lld over %dx%d: axis %d part %d moves with the other coordinate %d", (long long)nx, (long long)ny,
               px, py, ax, c, o);
      }
      at = a1;
    }
    CHECKF(at == nodes[ax], "%lldx%lld over %dx%d: axis %d ends at %lld, not %lld", (long long)nx, (long long)ny, px,
           py, ax, (long long)at, (long long)nodes[ax]);
  }
  if (mark) {
    size_t n = (size_t)nodes[0] * (size_t)nodes[1];
    memset(mark, 0, n);
    for (int cy = 0; cy < py; ++cy)
      for (int cx = 0; cx < px; ++cx) {
        gs_fdtd_part q = part(&sc, px, py, cx, cy);
        if (q.i0 < 0 || q.j0 < 0 || q.i1 > nodes[0] || q.j1 > nodes[1]) {
          CHECKF(0, "%lldx%lld over %dx%d: part (%d, %d) outside the grid", (long long)nx, (long long)ny, px, py, cx,
                 cy);
          continue;
        }
        for (int64_t j = q.j0; j < q.j1; ++j)
          for (int64_t i = q.i0; i < q.i1; ++i)
            ++mark[(size_t)j * (size_t)nodes[0] + (size_t)i];
      }
    size_t bad = 0;
    for (size_t k = 0; k < n; ++k)
      bad += mark[k] != 1;
    CHECKF(bad == 0, "%lldx%lld over %dx%d: %zu nodes owned by no rank or by several", (long long)nx, (long long)ny, px,
           py, bad);
  }
  return gs_test_failures - before;
}

static void parts(void) {
  /* Hand-worked values: 10 nodes over 3 gives 3, 3, 4 (docs/fdtd.md:
   * [c (n + 1) / P, (c + 1) (n + 1) / P)). */
  gs_scene sc = scene_of(9, 9);
  gs_fdtd_part q = part(&sc, 3, 1, 0, 0);
  CHECK(q.i0 == 0 && q.i1 == 3 && q.j0 == 0 && q.j1 == 10);
  q = part(&sc, 3, 1, 1, 0);
  CHECK(q.i0 == 3 && q.i1 == 6 && q.j0 == 0 && q.j1 == 10);
  q = part(&sc, 3, 1, 2, 0);
  CHECK(q.i0 == 6 && q.i1 == 10 && q.j0 == 0 && q.j1 == 10);
  q = part(&sc, 1, 3, 0, 2);
  CHECK(q.i0 == 0 && q.i1 == 10 && q.j0 == 6 && q.j1 == 10);
  sc = scene_of(1000, 1000); /* 1001 nodes over 2: 500 + 501 */
  q = part(&sc, 2, 2, 1, 0);
  CHECK(q.i0 == 500 && q.i1 == 1001 && q.j0 == 0 && q.j1 == 500);
  q = part(&sc, 1, 1, 0, 0); /* one rank: everything */
  CHECK(q.i0 == 0 && q.i1 == 1001 && q.j0 == 0 && q.j1 == 1001);
  /* More ranks than nodes: empty parts, still a tiling (3 nodes over 5). */
  sc = scene_of(2, 2);
  int64_t want[5][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 3}};
  for (int c = 0; c < 5; ++c) {
    q = part(&sc, 5, 1, c, 0);
    CHECKF(q.i0 == want[c][0] && q.i1 == want[c][1], "3 nodes over 5, part %d: [%lld, %lld)", c, (long long)q.i0,
           (long long)q.i1);
  }

  /* Many combinations, with every node counted on the small ones. */
  unsigned char *mark = malloc(300 * 300);
  const int64_t ns[] = {0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 100, 127, 128, 199, 255, 299};
  const int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 33};
  int bad = 0;
  for (size_t a = 0; a < sizeof ns / sizeof *ns; ++a)
    for (size_t b = 0; b < sizeof ns / sizeof *ns; b += 3)
      for (size_t x = 0; x < sizeof ps / sizeof *ps; ++x)
        for (size_t y = 0; y < sizeof ps / sizeof *ps; ++y)
          bad += tiles(ns[a], ns[b], ps[x], ps[y], mark) != 0;
  free(mark);
  /* Every automatic choice tiles too (1..64 ranks). */
  const int64_t shapes[][2] = {{1000, 1000}, {100, 100}, {4000, 100}, {100, 4000}, {10, 10}, {31, 31}};
  for (int size = 1; size <= 64; ++size)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
      int d[2];
      gs_fdtd_decomp(NULL, size, shapes[s][0], shapes[s][1], d);
      bad += tiles(shapes[s][0], shapes[s][1], d[0], d[1], NULL) != 0;
    }
  /* Large grids, no counting: the products coords * (n + 1) stay in range. */
  const int64_t big[] = {65535, 1000003, (int64_t)1 << 31, ((int64_t)1 << 40) + 17};
  for (size_t a = 0; a < 4; ++a)
    for (size_t x = 0; x < sizeof ps / sizeof *ps; ++x)
      bad += tiles(big[a], big[3 - a], ps[x], ps[(x + 5) % (sizeof ps / sizeof *ps)], NULL) != 0;
  CHECKF(bad == 0, "%d splits did not tile", bad);

  /* Overflow of coords * (n + 1) needs absurd grids (2^62 cells a side);
   * noted, not required. */
  sc = scene_of((int64_t)1 << 62, 1);
  q = part(&sc, 4, 1, 3, 0);
  if (q.i0 < 0 || q.i1 <= q.i0) {
    char buf[200];
    snprintf(buf, sizeof buf,
             "FINDING (theoretical): gs_fdtd_part_of, nx = 2^62, dims 4x1, coords (3, 0): [%lld, %lld) "
             "(coords * (nx + 1) overflows int64_t)",
             (long long)q.i0, (long long)q.i1);
    note(buf);
  }
}

/* ------------------------------------------------------------ depth fit */

static gs_fdtd_part rows(int64_t nx, int64_t j0, int64_t j1) {
  gs_fdtd_part p = {0, nx + 1, j0, j1};
  return p;
}
static gs_fdtd_part cols(int64_t ny, int64_t i0, int64_t i1) {
  gs_fdtd_part p = {i0, i1, 0, ny + 1};
  return p;
}

static int fit(const gs_scene *sc, gs_fdtd_part p, int want) {
  return gs_fdtd_depth_fit(sc, &p, want);
}

/* 1 when gs_fdtd_sim_init_part accepts part at depth (CPU backend). */
static int init_ok(const gs_scene *sc, const gs_fdtd_part *p, int depth) {
  gs_fdtd_sim m;
  char err[256];
  gs_status st = gs_fdtd_sim_init_part(&m, sc, &gs_backend_cpu, 0, p, depth, err, sizeof err);
  if (st == GS_OK) gs_fdtd_sim_free(&m);
  return st == GS_OK;
}

static void depth_fit(void) {
  /* 201 x 201 nodes, 10-cell CPML on every side: the lower slabs reach node
   * 10, the upper ones start at node 190. */
  gs_scene sc;
  gs_scene_synthetic(&sc, 200, 200, 10);
  const int64_t N = 201;

  /* whole grid: only the size limits */
  CHECK(fit(&sc, rows(200, 0, N), 8) == 8);
  CHECK(fit(&sc, rows(200, 0, N), 3) == 3); /* never deeper than asked */
  CHECK(fit(&sc, rows(200, 0, N), 1) == 1);
  CHECK(fit(&sc, rows(200, 0, N), 0) == 1); /* at least 1 */
  CHECK(fit(&sc, rows(200, 0, N), -5) == 1);
  /* a boundary in the middle, far from the slabs */
  CHECK(fit(&sc, rows(200, 0, 100), 8) == 8);
  CHECK(fit(&sc, rows(200, 100, N), 8) == 8);
  CHECK(fit(&sc, cols(200, 0, 100), 8) == 8);
  CHECK(fit(&sc, cols(200, 100, N), 8) == 8);
  /* the ghost layers below a boundary at 14 reach the lower slab (nodes
   * 0..10) from depth 4 on */
  CHECK(fit(&sc, rows(200, 14, N), 8) == 3);
  CHECK(fit(&sc, cols(200, 14, N), 8) == 3);
  CHECK(fit(&sc, rows(200, 0, 14), 8) == 8);
  CHECK(fit(&sc, rows(200, 12, N), 8) == 1);
  /* the depth - 1 layers computed above a boundary at 186 reach the upper
   * slab (from node 190) from depth 6 on */
  CHECK(fit(&sc, rows(200, 0, 186), 8) == 5);
  CHECK(fit(&sc, cols(200, 0, 186), 8) == 5);
  CHECK(fit(&sc, rows(200, 186, N), 8) == 8);
  CHECK(fit(&sc, rows(200, 0, 186), 4) == 4);
  /* small parts: at least depth nodes a side */
  CHECK(fit(&sc, rows(200, 100, 105), 8) == 5);
  CHECK(fit(&sc, rows(200, 100, 103), 8) == 3);
  CHECK(fit(&sc, cols(200, 100, 106), 8) == 6);
  gs_fdtd_part box = {80, 84, 100, 107}; /* 4 x 7 */
  CHECK(gs_fdtd_depth_fit(&sc, &box, 8) == 4);
  /* a 2D part: the worst side decides */
  gs_fdtd_part two = {14, 100, 0, 186};
  CHECK(gs_fdtd_depth_fit(&sc, &two, 8) == 3);

  /* No depth works (1 row; a boundary inside the slab): the answer is still
   * 1, which gs_fdtd_sim_init_part then refuses. */
  CHECK(fit(&sc, rows(200, 100, 101), 8) == 1);
  CHECK(fit(&sc, rows(200, 0, 5), 8) == 1);
  if (!init_ok(&sc, &(gs_fdtd_part){0, N, 0, 5}, 1))
    note("gs_fdtd_depth_fit returns 1 for a part no depth fits (boundary inside the CPML, e.g. rows [0, 5) of "
         "200x200): callers must still check gs_fdtd_sim_init_part");

  /* want beyond GS_FDTD_MAX_DEPTH is not clamped. */
  if (fit(&sc, rows(200, 0, N), 20) > GS_FDTD_MAX_DEPTH)
    note("gs_fdtd_depth_fit(whole 200x200, want 20) returns 20 > GS_FDTD_MAX_DEPTH (8); init_part would abort on it");

  /* Cross-check with gs_fdtd_sim_init_part on the CPU backend: the depth
   * found is accepted (when any is), every deeper one up to want refused. */
  const gs_fdtd_part cases[] = {rows(200, 0, 100),  rows(200, 100, N),    rows(200, 14, N),   rows(200, 0, 14),
                                rows(200, 0, 186),  rows(200, 186, N),    rows(200, 12, 100), rows(200, 100, 105),
                                rows(200, 0, 188),  rows(200, 17, 183),   cols(200, 13, N),   cols(200, 0, 187),
                                {11, 100, 11, 100}, {100, 190, 100, 190}, {20, 23, 50, 60},   {15, 186, 15, 186}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
    const gs_fdtd_part *p = &cases[k];
    int d = gs_fdtd_depth_fit(&sc, p, GS_FDTD_MAX_DEPTH);
    CHECKF(d >= 1 && d <= GS_FDTD_MAX_DEPTH, "part [%lld, %lld) x [%lld, %lld): depth %d", (long long)p->i0,
           (long long)p->i1, (long long)p->j0, (long long)p->j1, d);
    CHECKF(d == 1 || init_ok(&sc, p, d), "part [%lld, %lld) x [%lld, %lld): depth %d found but refused",
           (long long)p->i0, (long long)p->i1, (long long)p->j0, (long long)p->j1, d);
    for (int e = d + 1; e <= GS_FDTD_MAX_DEPTH; ++e)
      CHECKF(!init_ok(&sc, p, e), "part [%lld, %lld) x [%lld, %lld): depth %d found but %d accepted", (long long)p->i0,
             (long long)p->i1, (long long)p->j0, (long long)p->j1, d, e);
    for (int want = 1; want <= GS_FDTD_MAX_DEPTH; ++want) { /* the largest fit <= want */
      int w = gs_fdtd_depth_fit(&sc, p, want);
      CHECKF(w == (want < d ? want : d), "part [%lld, %lld) x [%lld, %lld): want %d gives %d (max %d)",
             (long long)p->i0, (long long)p->i1, (long long)p->j0, (long long)p->j1, want, w, d);
    }
  }

  /* Every part of the automatic split of a large scene fits some depth. */
  gs_scene big;
  gs_scene_synthetic(&big, 1000, 800, 10);
  for (int size = 1; size <= 12; ++size) {
    int dims[2];
    gs_fdtd_decomp(NULL, size, big.nx, big.ny, dims);
    for (int cy = 0; cy < dims[1]; ++cy)
      for (int cx = 0; cx < dims[0]; ++cx) {
        const int c[2] = {cx, cy};
        gs_fdtd_part p = gs_fdtd_part_of(&big, dims, c);
        int d = gs_fdtd_depth_fit(&big, &p, GS_FDTD_MAX_DEPTH);
        CHECKF(d == GS_FDTD_MAX_DEPTH, "1000x800 over %dx%d, part (%d, %d): depth %d", dims[0], dims[1], cx, cy, d);
      }
  }
  gs_scene_free(&big);
  gs_scene_free(&sc);
}

int main(void) {
  explicit_specs();
  automatic();
  parts();
  depth_fit();
  return gs_test_done("test_decomp");
}

/* The 3D sources kernel (kernels/fdtd3d_src.h) and its use by the engine.
 * usage: test_fdtd3d_src cpu DATA   CPU: after a magnetic dipole's current,
 *                                   the E nodes updated again equal a full E
 *                                   pass over the new H (every node, random
 *                                   fields and materials, magnetic H); a
 *                                   dipole of zero current anywhere (CPML,
 *                                   outer faces) leaves every bit of a
 *                                   model unchanged.
 *        test_fdtd3d_src gpu DATA   CPU and GPU backends bit-identical on
 *                                   DATA/sources_3d and DATA/sources_bscan
 *                                   (receivers, line outputs, checksums).
 *                                   Skips (77) without a GPU.
 * DATA: tests/data/gprmax. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "fdtd3d.h"
#include "fdtd3d_node.h"
#include "fdtd3d_sources.h"
#include "fdtd3d_src.h"
#include "scene.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float frand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1ull << 24)) - 0.5f;
}

/* A small grid with random fields and materials and magnetic H. */
typedef struct grid {
  gs_fdtd3_step_args a;
  float *f[12];
  uint8_t *m[6];
  gs_fdtd3_coef coef[GS_FDTD3_MAX_MATERIALS];
  gs_fdtd3_hcoef hcoef[GS_FDTD3_MAX_MATERIALS];
} grid;

static void grid_make(grid *g, int64_t n) {
  int64_t pitch, plane, count;
  gs_fdtd3_layout(n, n, n, &pitch, &plane, &count);
  for (int c = 0; c < 12; ++c) {
    g->f[c] = calloc((size_t)count, sizeof(float));
    for (int64_t q = 0; q < count && c < 6; ++q)
      g->f[c][q] = frand() * (c < 3 ? 100.0f : 0.3f);
  }
  for (int c = 0; c < 6; ++c) {
    g->m[c] = malloc((size_t)count);
    for (int64_t q = 0; q < count; ++q)
      g->m[c][q] = (uint8_t)(frand() > 0 ? 1 : 2);
  }
  for (int k = 0; k < 3; ++k) {
    g->coef[k] = (gs_fdtd3_coef){0.9f + 0.1f * frand(), 200 + frand(), 210 + frand(), 190 + frand(), 0.4f};
    g->hcoef[k] = (gs_fdtd3_hcoef){0.95f + 0.05f * frand(), 1.5f + frand(), 1.4f + frand(), 1.6f + frand(), 1.5f};
  }
  g->a = (gs_fdtd3_step_args){.ex = g->f[0],
                              .ey = g->f[1],
                              .ez = g->f[2],
                              .hx = g->f[3],
                              .hy = g->f[4],
                              .hz = g->f[5],
                              .ex_out = g->f[6],
                              .ey_out = g->f[7],
                              .ez_out = g->f[8],
                              .hx_out = g->f[9],
                              .hy_out = g->f[10],
                              .hz_out = g->f[11],
                              .mex = g->m[0],
                              .mey = g->m[1],
                              .mez = g->m[2],
                              .coef = g->coef,
                              .pitch = pitch,
                              .plane = plane,
                              .nx = n,
                              .ny = n,
                              .nz = n,
                              .dbx = 1.5f,
                              .dby = 1.5f,
                              .dbz = 1.5f,
                              .hmx = g->m[3],
                              .hmy = g->m[4],
                              .hmz = g->m[5],
                              .hcoef = g->hcoef};
}

static void grid_free(grid *g) {
  for (int c = 0; c < 12; ++c)
    free(g->f[c]);
  for (int c = 0; c < 6; ++c)
    free(g->m[c]);
}

/* Dipoles on every component at inner, edge and corner nodes: the fields
 * after gs_fdtd3_sources_ref equal those of the step, the currents, and
 * then a full E pass reading only the stored new H. */
static void check_e_again(void) {
  const int64_t n = 9;
  grid g;
  grid_make(&g, n);
  const int64_t count = g.a.plane * (n + 1);
  const gs_fdtd3_region all = {0, n + 1, 0, n + 1, 0, n + 1};
  gs_fdtd3_step_ref(&g.a, &all, 1, NULL);
  enum { ND = 7 };
  const int64_t ijk[3 * ND] = {4, 4, 4, 4, 4, 4, 0, 0, 0, 9, 9, 9, 1, 8, 3, 9, 0, 5, 5, 5, 4};
  const int comp[ND] = {0, 1, 2, 2, 0, 1, 2};
  int64_t off[ND];
  double val[ND];
  for (int q = 0; q < ND; ++q) {
    off[q] = gs_fdtd3_at(&g.a, ijk[3 * q], ijk[3 * q + 1], ijk[3 * q + 2]);
    val[q] = 0.37 + 0.11 * q;
  }
  /* expected: H with the currents (float64 subtraction), then E of every node from it */
  float *h[3], *e[3];
  for (int c = 0; c < 3; ++c) {
    h[c] = malloc(sizeof(float) * (size_t)count);
    e[c] = malloc(sizeof(float) * (size_t)count);
    memcpy(h[c], g.f[9 + c], sizeof(float) * (size_t)count);
    memcpy(e[c], g.f[6 + c], sizeof(float) * (size_t)count);
  }
  for (int q = 0; q < ND; ++q)
    h[comp[q]][off[q]] = (float)((double)h[comp[q]][off[q]] - val[q]);
  gs_fdtd3_step_args x = g.a;
  x.hx_out = h[0], x.hy_out = h[1], x.hz_out = h[2], x.ex_out = e[0], x.ey_out = e[1], x.ez_out = e[2];
  gs_fdtd3_geo geo;
  gs_fdtd3_geo_of(&x, &geo);
  for (int64_t k = 0; k <= n; ++k)
    for (int64_t j = 0; j <= n; ++j)
      for (int64_t i = 0; i <= n; ++i)
        gs_fdtd3_e_node(&x, all, i, j, k, 0, 0, x.pml_form, ~0u, &geo);
  gs_fdtd3_srcs s = {.nmag = ND, .mag_off = off, .mag_comp = comp, .mag_ijk = ijk, .mag_val = val};
  gs_fdtd3_sources_ref(&g.a, &s, gs_tick_at(0), NULL);
  for (int c = 0; c < 3; ++c) {
    CHECKF(!memcmp(h[c], g.f[9 + c], sizeof(float) * (size_t)count), "H component %d", c);
    CHECKF(!memcmp(e[c], g.f[6 + c], sizeof(float) * (size_t)count), "E component %d", c);
    free(h[c]);
    free(e[c]);
  }
  grid_free(&g);
}

/* One run of a scene on backend b, at most steps steps: checksums, the
 * receiver histories and the lines' outputs (malloc'd, *n floats). */
static float *run_scene(const gs_scene *sc, const gs_backend *b, int run, uint64_t sum[2], int64_t *n) {
  gs_fdtd3_sim m;
  char err[512];
  if (gs_fdtd3_sim_init(&m, sc, b, run, err, sizeof err) != GS_OK) {
    fprintf(stderr, "init: %s\n", err);
    CHECK(0);
    return NULL;
  }
  gs_fdtd3_sim_advance(&m, sc->iterations);
  gs_fdtd3_sim_sync(&m);
  gs_fdtd3_sim_checksum(&m, sum);
  const int64_t rx = sc->iterations * 6 * sc->nrx, line = 2 * (sc->iterations + 1);
  const int ntl = gs_fdtd3_src_lines(&m);
  float *out = malloc(sizeof(float) * (size_t)(rx + ntl * line + 1));
  memcpy(out, m.rx_hist, sizeof(float) * (size_t)rx);
  for (int q = 0; q < ntl; ++q) {
    gs_fdtd3_line_record tl;
    gs_fdtd3_src_line(&m, q, &tl, out + rx + q * line, out + rx + q * line + line / 2);
  }
  *n = rx + ntl * line;
  gs_fdtd3_sim_free(&m);
  return out;
}

static int load(const char *data, const char *name, gs_scene *sc, int64_t steps) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/%s/%s.in", data, name, name);
  if (gs_scene_load(path, sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    CHECK(0);
    return -1;
  }
  if (sc->iterations > steps) sc->iterations = steps;
  return 0;
}

/* Zero-current dipoles in the CPML, on outer faces and inside: the same
 * bits as without them. */
static void check_zero_dipoles(const char *data) {
  gs_scene sc;
  if (load(data, "sources_3d", &sc, 80)) return;
  uint64_t s0[2], s1[2];
  int64_t n0, n1;
  const gs_backend *cpu = &gs_backend_cpu;
  float *a = run_scene(&sc, cpu, 0, s0, &n0);
  gs_waveform zero = sc.waveforms[sc.nwaveforms - 1];
  zero.amp = 0;
  zero.user = NULL;
  snprintf(zero.name, sizeof zero.name, "zero");
  sc.waveforms = realloc(sc.waveforms, sizeof *sc.waveforms * (size_t)(sc.nwaveforms + 1));
  sc.waveforms[sc.nwaveforms++] = zero;
  const int64_t at[][3] = {{2, 3, 4}, {0, 0, 0}, {sc.nx, sc.ny, sc.nz}, {20, 20, 20}, {37, 1, 39}, {8, 8, 8}};
  const int nat = (int)(sizeof at / sizeof at[0]);
  sc.src3 = realloc(sc.src3, sizeof *sc.src3 * (size_t)(sc.nsrc3 + 3 * nat));
  for (int p = 0; p < nat; ++p)
    for (int c = 0; c < 3; ++c)
      sc.src3[sc.nsrc3++] = (gs_source3){
          .kind = GS_SRC3_MAGNETIC,
          .at = {
              .i = at[p][0], .j = at[p][1], .k = at[p][2], .pol = c, .waveform = sc.nwaveforms - 1, .stop = INFINITY}};
  float *b = run_scene(&sc, cpu, 0, s1, &n1);
  CHECK(a && b && n0 == n1 && !memcmp(a, b, sizeof(float) * (size_t)n0));
  CHECK(s0[0] == s1[0] && s0[1] == s1[1]);
  free(a);
  free(b);
  gs_scene_free(&sc);
}

static void check_cpu_gpu(const char *data, const char *name, int run) {
#ifdef GS_HAVE_CUDA
  gs_scene sc;
  if (load(data, name, &sc, 250)) return;
  uint64_t s0[2], s1[2];
  int64_t n0, n1;
  float *a = run_scene(&sc, &gs_backend_cpu, run, s0, &n0);
  float *b = run_scene(&sc, &gs_backend_cuda, run, s1, &n1);
  CHECKF(a && b && n0 == n1 && !memcmp(a, b, sizeof(float) * (size_t)n0), "%s run %d: outputs", name, run);
  CHECKF(s0[0] == s1[0] && s0[1] == s1[1], "%s run %d: checksums", name, run);
  printf("%s run %d: %lld output values, checksums %s\n", name, run, (long long)n0,
         s0[0] == s1[0] && s0[1] == s1[1] ? "equal" : "DIFFER");
  free(a);
  free(b);
  gs_scene_free(&sc);
#else
  (void)data, (void)name, (void)run;
#endif
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "cpu") && strcmp(argv[1], "gpu"))) {
    fprintf(stderr, "usage: test_fdtd3d_src cpu|gpu DATA\n");
    return 2;
  }
  if (!strcmp(argv[1], "cpu")) {
    check_e_again();
    check_zero_dipoles(argv[2]);
  } else {
#ifdef GS_HAVE_CUDA
    if (gs_cuda_probe() == 0) {
      printf("no GPU: skipped\n");
      return GS_TEST_SKIP;
    }
    check_cpu_gpu(argv[2], "sources_3d", 0);
    check_cpu_gpu(argv[2], "sources_bscan", 2);
#else
    printf("built without CUDA: skipped\n");
    return GS_TEST_SKIP;
#endif
  }
  return gs_test_done(argv[1][0] == 'c' ? "test_fdtd3d_src cpu" : "test_fdtd3d_src gpu");
}

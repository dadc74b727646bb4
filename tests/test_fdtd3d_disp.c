/* Dispersive materials in 3D models (kernels/fdtd3d_disp.h, src/engine/fdtd3d_dispersion.c).
 * usage: test_fdtd3d_disp cpu SCENE   the memory estimate counts the pole
 *                                     state (a bound of what is made); the
 *                                     model runs, stays finite, and differs
 *                                     from the same scene without its poles;
 *        test_fdtd3d_disp gpu SCENE   CPU and GPU bit-identical: every
 *                                     receiver sample and the fields'
 *                                     checksums after the scene's steps.
 * Scenes (tests/data/fdtd3d_disp): bits.in (Debye, 3 and 1 poles: real pole
 * state), bits_complex.in (Debye, Lorentz, Drude: complex pole state); CPML
 * of six thicknesses, sources in dispersive materials. GPU part skips (77)
 * without a GPU. */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "fdtd3d.h"
#include "fdtd3d_dispersion.h"
#include "scene.h"

typedef struct result {
  float *rx;
  int64_t samples;
  uint64_t sum[2];
  double pole_bytes; /* device bytes the pole lists and state took */
} result;

static int run_scene(const gs_scene *sc, const gs_backend *b, result *out) {
  gs_fdtd3_sim m;
  char err[1024];
  if (gs_fdtd3_sim_init(&m, sc, b, 0, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  gs_fdtd3_sim_advance(&m, sc->iterations);
  gs_fdtd3_sim_sync(&m);
  out->samples = sc->iterations * 6 * sc->nrx;
  out->rx = malloc(sizeof(float) * (size_t)out->samples);
  memcpy(out->rx, m.rx_hist, sizeof(float) * (size_t)out->samples);
  gs_fdtd3_sim_checksum(&m, out->sum);
  out->pole_bytes = gs_fdtd3_disp_bytes(&m);
  gs_fdtd3_sim_free(&m);
  return 0;
}

static int cpu_tests(gs_scene *sc) {
  double dev, host, dev_plain, host_plain;
  gs_fdtd3_memory_need(sc, &dev, &host);
  const double poles = gs_fdtd3_disp_memory(sc);
  CHECKF(poles > 0, "no pole memory counted");
  /* the soil box: 24 x 22 x 11 cells, 3 poles: at least its nodes' offsets and (real) state */
  CHECKF(poles >= 3.0 * 24 * 22 * 11 * (8 + 4 * 3), "pole memory %.0f below the soil's nodes", poles);
  result with, without;
  CHECK(run_scene(sc, &gs_backend_cpu, &with) == 0);
  double peak = 0;
  int finite = 1;
  for (int64_t k = 0; k < with.samples; ++k) {
    finite &= isfinite(with.rx[k]);
    peak = fmax(peak, fabs(with.rx[k]));
  }
  CHECKF(finite && peak > 0, "receivers not finite or all 0");
  CHECKF(with.pole_bytes > 0 && with.pole_bytes <= poles, "pole state %.0f bytes, estimate %.0f", with.pole_bytes,
         poles);
  printf("pole state: %.0f bytes, estimated %.0f\n", with.pole_bytes, poles);
  const int nd = sc->ndisps;
  sc->ndisps = 0; /* the same materials without poles (and averaged as any other) */
  gs_fdtd3_memory_need(sc, &dev_plain, &host_plain);
  CHECKF(dev - dev_plain == poles, "memory estimate: %.0f more with poles, pole state %.0f", dev - dev_plain, poles);
  CHECK(run_scene(sc, &gs_backend_cpu, &without) == 0);
  sc->ndisps = nd;
  CHECKF(memcmp(with.rx, without.rx, sizeof(float) * (size_t)with.samples) != 0, "the poles changed nothing");
  free(with.rx);
  free(without.rx);
  return gs_test_done("test_fdtd3d_disp cpu");
}

#ifdef GS_HAVE_CUDA
static int gpu_tests(const gs_scene *sc) {
  if (gs_cuda_probe() == 0) {
    printf("no CUDA GPU visible: skipped\n");
    return GS_TEST_SKIP;
  }
  gs_backend_cuda.device_select(0);
  result c, g;
  CHECK(run_scene(sc, &gs_backend_cpu, &c) == 0);
  CHECK(run_scene(sc, &gs_backend_cuda, &g) == 0);
  int64_t first = -1;
  for (int64_t k = 0; k < c.samples && first < 0; ++k)
    if (memcmp(&c.rx[k], &g.rx[k], sizeof(float)) != 0) first = k;
  CHECKF(first < 0, "receiver sample %lld differs: CPU %.9g GPU %.9g", (long long)first, first < 0 ? 0 : c.rx[first],
         first < 0 ? 0 : g.rx[first]);
  CHECKF(c.sum[0] == g.sum[0] && c.sum[1] == g.sum[1], "field checksums differ");
  free(c.rx);
  free(g.rx);
  return gs_test_done("test_fdtd3d_disp gpu");
}
#endif

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_fdtd3d_disp cpu|gpu SCENE\n");
    return 2;
  }
  gs_scene sc;
  char err[1024];
  if (gs_scene_load(argv[2], &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  int rc;
  if (strcmp(argv[1], "gpu") == 0) {
#ifdef GS_HAVE_CUDA
    rc = gpu_tests(&sc);
#else
    printf("built without CUDA: skipped\n");
    rc = GS_TEST_SKIP;
#endif
  } else {
    rc = cpu_tests(&sc);
  }
  gs_scene_free(&sc);
  return rc;
}

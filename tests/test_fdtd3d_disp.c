/* Dispersive materials in 3D models (kernels/fdtd3d_disp.h, src/engine/fdtd3d_dispersion.c).
 * usage: test_fdtd3d_disp cpu SCENE   the memory estimate counts the pole
 *                                     state (a bound of what is made); the
 *                                     model runs, stays finite, and differs
 *                                     from the same scene without its poles;
 *                                     the fused form (poles advanced by the E
 *                                     update, the deferred nodes' passes) is
 *                                     bit-identical to the separate passes
 *                                     over every dispersive node
 *                                     (GS_FDTD3_DISP=passes): every receiver
 *                                     sample and the fields' checksums after
 *                                     the scene's steps, on the CPU twins;
 *                                     so is the step with the boxes around
 *                                     the fused box stepped as the GPU
 *                                     steps them (GS_FDTD3_REF=boxes);
 *        test_fdtd3d_disp gpu SCENE   CPU and GPU bit-identical (fused on
 *                                     both, and the GPU's separate passes).
 * Scenes (tests/data/fdtd3d_disp): bits.in (Debye, 3 and 1 poles: real pole
 * state), bits_complex.in (Debye, Lorentz, Drude: complex pole state); CPML
 * of six thicknesses, Hertzian dipoles in dispersive materials; sources.in
 * (Debye: every source kind in or next to the soil: deferred nodes),
 * magnetic.in (complex poles, a magnetic material: no fused marching kernel;
 * a magnetic dipole), planewave.in (a plane wave's box cutting a Lorentz
 * and a Debye material); one_pole.in and one_pole_complex.in (one pole:
 * the GPU's kernels of that pole kind). GPU part skips (77) without a GPU. */
#include <math.h>
#include <stdlib.h>
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
  double pole_bytes;   /* device bytes the map, lists and pole state took */
  double fused, defer; /* bytes of the fused and deferred nodes' pole state */
} result;

/* The pole state's checkpoint sections: fused and deferred bytes. */
static void pole_sections(gs_fdtd3_sim *m, result *out) {
  gs_fdtd3_state st[GS_FDTD3_MAX_STATE];
  const int n = gs_fdtd3_sim_state(m, st);
  out->fused = out->defer = 0;
  for (int q = 0; q < n; ++q) {
    if (!strncmp(st[q].name, "disp.poles.", 11)) out->fused += (double)st[q].bytes;
    if (!strncmp(st[q].name, "disp.defer.", 11)) out->defer += (double)st[q].bytes;
  }
}

/* The scene's steps; passes: every dispersive node deferred (the separate passes); 2: the fused
 * form with the boxes around the fused box stepped as the GPU steps them (GS_FDTD3_REF=boxes). */
static int run_scene(const gs_scene *sc, const gs_backend *b, int passes, result *out) {
  gs_fdtd3_sim m;
  char err[1024];
  if (passes == 1)
    setenv("GS_FDTD3_DISP", "passes", 1);
  else
    unsetenv("GS_FDTD3_DISP");
  if (passes == 2)
    setenv("GS_FDTD3_REF", "boxes", 1);
  else
    unsetenv("GS_FDTD3_REF");
  const gs_status st = gs_fdtd3_sim_init(&m, sc, b, 0, err, sizeof err);
  unsetenv("GS_FDTD3_DISP");
  if (st != GS_OK) {
    unsetenv("GS_FDTD3_REF");
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  pole_sections(&m, out);
  gs_fdtd3_sim_advance(&m, sc->iterations);
  gs_fdtd3_sim_sync(&m);
  out->samples = sc->iterations * 6 * sc->nrx;
  out->rx = malloc(sizeof(float) * (size_t)out->samples);
  memcpy(out->rx, m.rx_hist, sizeof(float) * (size_t)out->samples);
  gs_fdtd3_sim_checksum(&m, out->sum);
  out->pole_bytes = gs_fdtd3_disp_bytes(&m);
  gs_fdtd3_sim_free(&m);
  unsetenv("GS_FDTD3_REF");
  return 0;
}

/* Every receiver sample and the checksums of a and b bit for bit. */
static void same_bits(const result *a, const result *b, const char *what) {
  int64_t first = -1;
  for (int64_t k = 0; k < a->samples && first < 0; ++k)
    if (memcmp(&a->rx[k], &b->rx[k], sizeof(float)) != 0) first = k;
  CHECKF(a->samples == b->samples && first < 0, "%s: receiver sample %lld differs: %.9g, %.9g", what, (long long)first,
         first < 0 ? 0 : a->rx[first], first < 0 ? 0 : b->rx[first]);
  CHECKF(a->sum[0] == b->sum[0] && a->sum[1] == b->sum[1], "%s: field checksums differ", what);
}

/* The fused form against the separate passes on the CPU twins. */
static void fused_vs_passes(const gs_scene *sc, const result *fused) {
  result passes;
  CHECK(run_scene(sc, &gs_backend_cpu, 1, &passes) == 0);
  CHECKF(fused->fused > 0, "no fused node");
  CHECKF(passes.fused == 0 && passes.defer == fused->fused + fused->defer,
         "passes: %.0f fused and %.0f deferred bytes of pole state, fused form %.0f + %.0f", passes.fused, passes.defer,
         fused->fused, fused->defer);
  printf("pole state: %.0f bytes fused, %.0f deferred (%.0f with every node deferred)\n", fused->fused, fused->defer,
         passes.defer);
  same_bits(fused, &passes, "fused vs separate passes");
  free(passes.rx);
  result boxes;
  CHECK(run_scene(sc, &gs_backend_cpu, 2, &boxes) == 0);
  same_bits(fused, &boxes, "the CPU's step vs the GPU's way with the boxes");
  free(boxes.rx);
}

static int cpu_tests(gs_scene *sc) {
  double dev, host, dev_plain, host_plain;
  gs_fdtd3_memory_need(sc, &dev, &host);
  const double poles = gs_fdtd3_disp_memory(sc);
  CHECKF(poles > 0, "no pole memory counted");
  result with, without;
  CHECK(run_scene(sc, &gs_backend_cpu, 0, &with) == 0);
  double peak = 0;
  int finite = 1;
  for (int64_t k = 0; k < with.samples; ++k) {
    finite &= isfinite(with.rx[k]);
    peak = fmax(peak, fabs(with.rx[k]));
  }
  CHECKF(finite && peak > 0, "receivers not finite or all 0");
  CHECKF(with.pole_bytes > 0 && with.pole_bytes <= poles, "pole state %.0f bytes, estimate %.0f", with.pole_bytes,
         poles);
  printf("pole state, map and lists: %.0f bytes, estimated %.0f\n", with.pole_bytes, poles);
  fused_vs_passes(sc, &with);
  const int nd = sc->ndisps;
  sc->ndisps = 0; /* the same materials without poles (and averaged as any other) */
  gs_fdtd3_memory_need(sc, &dev_plain, &host_plain);
  CHECKF(dev - dev_plain == poles, "memory estimate: %.0f more with poles, pole state %.0f", dev - dev_plain, poles);
  CHECK(run_scene(sc, &gs_backend_cpu, 0, &without) == 0);
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
  result c, g, gp;
  CHECK(run_scene(sc, &gs_backend_cpu, 0, &c) == 0);
  CHECK(run_scene(sc, &gs_backend_cuda, 0, &g) == 0);
  CHECK(run_scene(sc, &gs_backend_cuda, 1, &gp) == 0);
  CHECKF(g.fused > 0 && g.fused == c.fused && g.defer == c.defer,
         "GPU: %.0f + %.0f bytes of pole state, CPU %.0f + %.0f", g.fused, g.defer, c.fused, c.defer);
  same_bits(&c, &g, "CPU vs GPU");
  same_bits(&c, &gp, "CPU vs GPU with the separate passes");
  free(c.rx);
  free(g.rx);
  free(gp.rx);
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

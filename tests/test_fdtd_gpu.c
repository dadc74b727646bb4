/* CPU and GPU backends after N steps of a scene (default inputs/gpr.in,
 * 1000 steps): relative L2 difference of Ez, Hx, Hy below 1e-6;
 * the kernels are written to agree bit for bit, which is reported too.
 * Then the GPU run again through gs_fdtd_sim_advance in uneven pieces, once
 * as CUDA graph replays mixed with single steps, once with the grid on chip
 * (kernels/fdtd_run.cu), and in passes of T steps fused
 * (kernels/fdtd_fuse.cu; scenes it takes: free-space H, at most 256
 * receivers and sources) for several T, odd and even; and the CPU's on-chip
 * and fused twins the same way: each the bits (fields, CPML auxiliaries and
 * receivers) of single steps on its backend.
 * usage: test_fdtd_gpu SCENE [STEPS]. Skips (77) without a GPU, or with
 * --cpu-only runs the CPU part alone (CI). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"
#include "fdtd_same_bits.h"

/* CPU against GPU: relative L2 below 1e-6, and how many values differ in any bit. */
static void check_close(gs_fdtd_sim *a, gs_fdtd_sim *b) {
  const char *names[3] = {"Ez", "Hx", "Hy"};
  for (int f = 0; f < 3; ++f) {
    size_t n;
    float *fa = read_field(a, f, &n), *fb = read_field(b, f, &n);
    double num = 0, den = 0;
    size_t differ = 0;
    for (size_t k = 0; k < n; ++k) {
      double d = (double)fa[k] - fb[k];
      num += d * d;
      den += (double)fa[k] * fa[k];
      differ += memcmp(&fa[k], &fb[k], 4) != 0;
    }
    double rel = den > 0 ? sqrt(num / den) : 0;
    printf("%s after %lld steps: relative L2 difference %.3e, %zu of %zu values differ in any bit\n", names[f],
           (long long)a->sc->iterations, rel, differ, n);
    CHECK(den > 0);
    CHECKF(rel < 1e-6, "%s: relative L2 %.3e", names[f], rel);
    free(fa);
    free(fb);
  }
  CHECK(a->rx.n == 0 ||
        memcmp(a->rx.hist, b->rx.hist, sizeof(float) * 3 * (size_t)a->rx.n * (size_t)a->sc->iterations) == 0);
}

/* Passes of T fused steps (the grid off chip) through advance on backend
 * b against ref's single steps; scenes the passes do not take are said so. */
static void check_fused(const gs_scene *sc, const gs_backend *b, gs_fdtd_sim *ref, int T) {
  gs_fdtd_sim f;
  char what[224];
  gs_fdtd_sim_init(&f, sc, b, 0);
  gs_fdtd_sim_set_onchip(&f, 0);
  snprintf(what, sizeof what, "%s, passes of %d fused steps", b->is_gpu ? "GPU" : "CPU", T);
  if (gs_fdtd_sim_set_fuse(&f, T) != T) {
    const int many = f.rx.n > GS_FDTD_FUSE_POINTS || f.src.cum[1] > GS_FDTD_FUSE_POINTS;
    CHECKF(f.mat.hmx != NULL || many, "%s: refused for a scene with free-space H and few points", what);
    printf("%s: not taken (%s)\n", what, many ? "more receivers than a pass takes" : "magnetic H");
  } else {
    advance_in_pieces(&f);
    check_same_bits(ref, &f, what);
  }
  gs_fdtd_sim_free(&f);
}

/* The CPU backend: single steps against the on-chip and fused twins through advance. */
static void cpu_part(const gs_scene *sc, gs_fdtd_sim *a) {
  gs_fdtd_sim c;
  gs_fdtd_sim_init(a, sc, &gs_backend_cpu, 0);
  gs_fdtd_sim_init(&c, sc, &gs_backend_cpu, 0);
  CHECKF(c.onchip, "the CPU backend did not take the on-chip twin by default");
  CHECKF(c.fuse == 0, "the CPU backend fused steps by default");
  run_steps(a);
  advance_in_pieces(&c);
  check_same_bits(a, &c, "CPU, on-chip twin through advance");
  gs_fdtd_sim_free(&c);
  check_fused(sc, &gs_backend_cpu, a, 2);
  check_fused(sc, &gs_backend_cpu, a, GS_FDTD_FUSE_MAX);
}

#ifdef GS_HAVE_CUDA
static void gpu_part(const gs_scene *sc, gs_fdtd_sim *a) {
  gs_fdtd_sim b, g, o;
  gs_backend_cuda.device_select(0);
  gs_fdtd_sim_init(&b, sc, &gs_backend_cuda, 0);
  gs_fdtd_sim_init(&g, sc, &gs_backend_cuda, 0);
  gs_fdtd_sim_init(&o, sc, &gs_backend_cuda, 0);
  gs_fdtd_sim_set_onchip(&g, 0);
  gs_fdtd_sim_set_fuse(&g, 0); /* single steps, graphs where the backend has them */
  CHECKF(gs_fdtd_sim_set_onchip(&o, 1), "the grid (%lld x %lld nodes) did not go on chip", (long long)o.grid.nx + 1,
         (long long)o.grid.ny + 1);
  run_steps(&b);
  advance_in_pieces(&g);
  advance_in_pieces(&o);
  CHECKF(g.graph.exec != NULL, "no CUDA graph was captured");
  check_close(a, &b);
  check_same_bits(&b, &g, "GPU, CUDA graphs");
  char what[96];
  snprintf(what, sizeof what, "GPU, the grid on chip (%s)", o.onchip_form);
  printf("%s\n", what);
  const char *expect = getenv("GS_EXPECT_FORM"); /* the form a test asked for (GS_FDTD_RUN_FORM) */
  CHECKF(!expect || strstr(o.onchip_form, expect), "the grid went on chip as %s, not %s", o.onchip_form, expect);
  check_same_bits(&b, &o, what);
  for (int T = 1; T <= GS_FDTD_FUSE_MAX; ++T)
    check_fused(sc, &gs_backend_cuda, &b, T);
  gs_fdtd_sim_free(&o);
  gs_fdtd_sim_free(&g);
  gs_fdtd_sim_free(&b);
}
#endif

int main(int argc, char **argv) {
  int cpu_only = argc > 1 && strcmp(argv[1], "--cpu-only") == 0;
  if (argc < 2 + cpu_only) return 2;
#ifndef GS_HAVE_CUDA
  if (!cpu_only) {
    printf("built without CUDA: skipped\n");
    return GS_TEST_SKIP;
  }
#else
  if (!cpu_only && gs_cuda_probe() == 0) {
    printf("no CUDA GPU visible: skipped\n");
    return GS_TEST_SKIP;
  }
#endif
  gs_scene sc;
  char err[1024];
  if (gs_scene_load(argv[1 + cpu_only], &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (argc > 2 + cpu_only) sc.iterations = atoll(argv[2 + cpu_only]);
  gs_fdtd_sim a;
  cpu_part(&sc, &a);
#ifdef GS_HAVE_CUDA
  if (!cpu_only) gpu_part(&sc, &a);
#endif
  gs_fdtd_sim_free(&a);
  gs_scene_free(&sc);
  return gs_test_done("test_fdtd_gpu");
}

/* The 2D FDTD kernels of many steps a launch, their own source run on the
 * CPU (tests/emu: each CUDA thread a fiber, barriers, shuffles and votes
 * emulated): a run through gs_fdtd_sim_advance in uneven pieces against
 * the CPU backend's single steps, bit for bit (fields, CPML auxiliaries,
 * receivers), with
 *   - the grid on chip (kernels/fdtd_run_tiles.cu, fdtd_run_cols.cu) in the form
 *     GS_FDTD_RUN_FORM asks for (tiles, ez, regs; GS_EXPECT_FORM: the form
 *     that must run), or
 *   - with --fuse T, passes of T steps fused (kernels/fdtd_fuse.cu).
 * CI has no GPU: this checks the kernels' logic (the cuts into blocks,
 * warps and lanes, the ghosts and margins, the CPML, sources and
 * receivers) on every commit; the GPU machine checks the same source built
 * by nvcc, and its races (gpu_fdtd_onchip_*, gpu_fdtd_fuse_*). GS_EMU_SMS
 * sets the emulated SMs (fewer: bigger tiles on a small grid); with
 * --resetup the grid is set on chip again between pieces (the launches'
 * scratch zeroed and the edge words' step numbers restarted each time).
 * usage: test_fdtd_emu SCENE [STEPS] [--fuse T | --resetup] */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/backend_emu.h"
#include "fdtd.h"
#include "fdtd_same_bits.h"

/* o takes the grid on chip as the emulated device does; what: its name. */
static void go_on_chip(gs_fdtd_sim *o, char *what, size_t len) {
  CHECKF(gs_fdtd_sim_set_onchip(o, 1), "the emulated device does not take the grid (%lld x %lld nodes) on chip",
         (long long)o->grid.nx + 1, (long long)o->grid.ny + 1);
  snprintf(what, len, "emulated on the CPU, the grid on chip (%s, %d blocks)", o->onchip_form, o->onchip_blocks);
  const char *expect = getenv("GS_EXPECT_FORM");
  CHECKF(!expect || strstr(o->onchip_form, expect), "the grid went on chip as %s, not %s", o->onchip_form, expect);
}

/* o takes passes of T fused steps. */
static void go_fused(gs_fdtd_sim *o, int T, char *what, size_t len) {
  gs_fdtd_sim_set_onchip(o, 0);
  CHECKF(gs_fdtd_sim_set_fuse(o, T) == T, "passes of %d fused steps refused", T);
  snprintf(what, len, "emulated on the CPU, passes of %d fused steps", T);
}

/* Pieces of 2 and 3 steps, the grid set on chip again before each (after
 * a 2-step launch a word of step number 1 is left in the scratch: read
 * again without the zeroing, the next launch's first step would take it). */
static void advance_resetting(gs_fdtd_sim *m) {
  const int64_t end = m->sc->iterations;
  for (int64_t k = 0; m->step < end; ++k) {
    const int64_t piece = 2 + k % 2;
    CHECK(gs_fdtd_sim_set_onchip(m, 1));
    gs_fdtd_sim_advance(m, piece < end - m->step ? piece : end - m->step);
  }
  gs_fdtd_sim_sync(m);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  gs_scene sc;
  char err[1024];
  if (gs_scene_load(argv[1], &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (argc > 2) sc.iterations = atoll(argv[2]);
  const int fuse = argc > 4 && strcmp(argv[3], "--fuse") == 0 ? atoi(argv[4]) : 0;
  const int resetup = argc > 3 && strcmp(argv[3], "--resetup") == 0;
  gs_fdtd_sim a, o;
  gs_fdtd_sim_init(&a, &sc, &gs_backend_cpu, 0);
  gs_fdtd_sim_init(&o, &sc, gs_backend_emu(), 0);
  char what[224];
  if (fuse)
    go_fused(&o, fuse, what, sizeof what);
  else
    go_on_chip(&o, what, sizeof what);
  run_steps(&a);
  if (resetup)
    advance_resetting(&o);
  else
    advance_in_pieces(&o);
  check_same_bits(&a, &o, what);
  gs_fdtd_sim_free(&o);
  gs_fdtd_sim_free(&a);
  gs_scene_free(&sc);
  return gs_test_done("test_fdtd_emu");
}

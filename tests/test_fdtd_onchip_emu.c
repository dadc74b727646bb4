/* The on-chip FDTD kernels' own source run on the CPU (tests/emu: each CUDA
 * thread a fiber, barriers and shuffles emulated): a run through
 * gs_fdtd_sim_advance in uneven pieces with the grid on chip in the form
 * GS_FDTD_RUN_FORM asks for (tiles, ez, regs) against the CPU backend's
 * single steps, bit for bit (fields, CPML auxiliaries, receivers). CI has
 * no GPU: this checks the kernels' logic (the cut into tiles, warps and
 * lanes, the ghosts, the CPML boxes, sources and receivers) on every
 * commit; the GPU machine checks the same source compiled by nvcc, and its
 * races (tests/CMakeLists.txt: gpu_fdtd_onchip_*). GS_EMU_SMS sets the
 * emulated SMs (fewer SMs: bigger tiles on a small grid).
 * usage: test_fdtd_onchip_emu SCENE [STEPS] */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"
#include "fdtd_same_bits.h"

/* tests/emu's build of kernels/fdtd_run.cu (the names renamed there). */
int gs_fdtd_run_emu(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_run_fits_emu(const gs_fdtd_step_args *a);
const char *gs_fdtd_run_form_emu(const gs_fdtd_step_args *a);

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  gs_scene sc;
  char err[1024];
  if (gs_scene_load(argv[1], &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (argc > 2) sc.iterations = atoll(argv[2]);
  gs_backend emu = gs_backend_cpu; /* host memory: the emulated kernels read it as the GPU's would */
  emu.fdtd_run = gs_fdtd_run_emu;
  emu.fdtd_run_fits = gs_fdtd_run_fits_emu;
  emu.fdtd_run_form = gs_fdtd_run_form_emu;
  gs_fdtd_sim a, o;
  gs_fdtd_sim_init(&a, &sc, &gs_backend_cpu, 0);
  gs_fdtd_sim_init(&o, &sc, &emu, 0);
  CHECKF(gs_fdtd_sim_set_onchip(&o, 1), "the emulated device does not take the grid (%lld x %lld nodes) on chip",
         (long long)o.grid.nx + 1, (long long)o.grid.ny + 1);
  char what[128];
  snprintf(what, sizeof what, "emulated on the CPU, the grid on chip (%s, %d blocks)", o.onchip_form, o.onchip_blocks);
  const char *expect = getenv("GS_EXPECT_FORM");
  CHECKF(!expect || strstr(o.onchip_form, expect), "the grid went on chip as %s, not %s", o.onchip_form, expect);
  run_steps(&a);
  advance_in_pieces(&o);
  check_same_bits(&a, &o, what);
  gs_fdtd_sim_free(&o);
  gs_fdtd_sim_free(&a);
  gs_scene_free(&sc);
  return gs_test_done("test_fdtd_onchip_emu");
}

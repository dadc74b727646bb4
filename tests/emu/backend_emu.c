#include "backend_emu.h"

/* tests/emu's builds of the kernels (the build renames their _cuda entries). */
int gs_fdtd_run_emu(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_run_fits_emu(const gs_fdtd_step_args *a);
const char *gs_fdtd_run_form_emu(const gs_fdtd_step_args *a);
int64_t gs_fdtd_run_scratch_emu(const gs_fdtd_step_args *a);
int gs_fdtd_fuse_emu(const gs_fdtd_run_args *a, int64_t steps, void *stream);
int gs_fdtd_fuse_fits_emu(const gs_fdtd_step_args *a);

const gs_backend *gs_backend_emu(void) {
  static gs_backend emu;
  emu = gs_backend_cpu; /* host memory: the emulated kernels read it as the GPU's would */
  emu.fdtd_run = gs_fdtd_run_emu;
  emu.fdtd_run_fits = gs_fdtd_run_fits_emu;
  emu.fdtd_run_form = gs_fdtd_run_form_emu;
  emu.fdtd_run_scratch = gs_fdtd_run_scratch_emu;
  emu.fdtd_fuse = gs_fdtd_fuse_emu;
  emu.fdtd_fuse_fits = gs_fdtd_fuse_fits_emu;
  return &emu;
}

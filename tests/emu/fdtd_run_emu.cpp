// The on-chip FDTD run's entry points and the tiles form's plan
// (kernels/fdtd_run.cu, host code: the forms' kernels are
// fdtd_run_tiles_emu.cpp's and fdtd_run_cols_emu.cpp's) compiled for
// tests/emu's CPU emulator. The build renames
// the entry points gs_fdtd_run*_cuda to gs_fdtd_run*_emu and the namespace
// gs_run to gs_run_emu, so a CUDA build links both.
#include "../../kernels/fdtd_run.cu"

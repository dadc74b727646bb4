// The columns form of the on-chip FDTD run (kernels/fdtd_run_cols.cu)
// compiled for tests/emu's CPU emulator (fdtd_run_emu.cpp says how).
#include "../../kernels/fdtd_run_cols.cu"

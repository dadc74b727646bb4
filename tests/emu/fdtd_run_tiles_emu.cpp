// The tiles form of the on-chip FDTD run (kernels/fdtd_run_tiles.cu: its
// kernel and launch) compiled for tests/emu's CPU emulator (fdtd_run_emu.cpp
// says how).
#include "../../kernels/fdtd_run_tiles.cu"

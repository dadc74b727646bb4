// The fused passes' kernel (kernels/fdtd_fuse.cu) compiled for tests/emu's
// CPU emulator (fdtd_run_emu.cpp says how; gs_fdtd_fuse*_cuda become
// gs_fdtd_fuse*_emu).
#include "../../kernels/fdtd_fuse.cu"

// The on-chip FDTD kernels' own source (kernels/fdtd_run.cu: the tiles form
// and the entry points; it includes nothing of the columns form but its
// plan and launch) compiled for tests/emu's CPU emulator. The build renames
// the entry points gs_fdtd_run*_cuda to gs_fdtd_run*_emu and the namespace
// gs_run to gs_run_emu, so a CUDA build links both.
#include "../../kernels/fdtd_run.cu"

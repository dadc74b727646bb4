// The one-pass CPML kernel of the 3D step (kernels/fdtd3d_pml.cu) compiled
// for tests/emu's CPU emulator (the build renames gs_fdtd3_pml_cuda to
// gs_fdtd3_pml_emu); test_fdtd3d emu runs it against the CPU twin.
#include "../../kernels/fdtd3d_pml.cu"

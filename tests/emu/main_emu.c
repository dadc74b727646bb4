/* gpustencil_emu: gpustencil whose --backend cpu runs the GPU's many-steps
 * kernels under tests/emu's CUDA emulator (backend_emu.h), so scripts can
 * run them on every path of the program: split models, deep-halo cycles as
 * fused passes on each rank's part (tests/fdtd_ranks_emu.sh). The program's
 * own main is compiled here as gs_app_main. */
#include "backend_emu.h"

int gs_app_main(int argc, char **argv);

int main(int argc, char **argv) {
  gs_backend_stand_in_cpu(gs_backend_emu());
  return gs_app_main(argc, argv);
}

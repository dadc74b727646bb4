/* The CPU backend with the GPU's many-steps kernels (the grid on chip, the
 * fused passes) run by tests/emu's CUDA emulator on host memory: the whole
 * program, or a test, runs the kernels' own source without a GPU. */
#ifndef GS_BACKEND_EMU_H
#define GS_BACKEND_EMU_H

#include "backend.h"

const gs_backend *gs_backend_emu(void);

#endif

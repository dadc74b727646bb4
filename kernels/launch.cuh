// Kernel launches with the arguments typed, so that tests/emu (which
// compiles the kernels' source for the CPU, each CUDA thread a fiber) can
// call the kernel itself: the toolkit's launch calls take the arguments as
// untyped pointers (or in the <<< >>> syntax, which a C++ compiler does not
// read). Both calls here are the runtime's documented entry points, with the
// arguments' addresses as the kernel's parameters.
#ifndef GS_LAUNCH_CUH
#define GS_LAUNCH_CUH

#include <cuda_runtime.h>

namespace gs_launch {

// A cooperative launch (all blocks resident at once: they may wait for each other).
template <typename... A>
cudaError_t coop(void (*k)(A...), dim3 grid, dim3 block, unsigned smem, cudaStream_t stream, A... args) {
#ifdef GS_EMULATE
  (void)stream;
  return gs_emu_launch(grid, block, smem, [=] { k(args...); });
#else
  void *p[] = {(void *)&args...};
  return cudaLaunchCooperativeKernel((const void *)k, grid, block, p, smem, stream);
#endif
}

// A plain launch (blocks independent of each other), its error if any.
template <typename... A>
cudaError_t plain(void (*k)(A...), dim3 grid, dim3 block, unsigned smem, cudaStream_t stream, A... args) {
#ifdef GS_EMULATE
  (void)stream;
  return gs_emu_launch_blocks(grid, block, smem, [=] { k(args...); });
#else
  void *p[] = {(void *)&args...};
  return cudaLaunchKernel((const void *)k, grid, block, p, smem, stream);
#endif
}

} // namespace gs_launch

#endif

// A CUDA emulator for the CPU, enough for the on-chip FDTD kernels
// (kernels/fdtd_run_tiles.cu, fdtd_run_cols.cu): this header stands in for the
// toolkit's cuda_runtime.h when tests/emu compiles those files as C++ (so
// the kernels' own source runs in CI, where there is no GPU). Each CUDA
// thread of a launch runs as a fiber (emu.cpp); block and grid barriers,
// warp shuffles and votes wait for their peers, so the kernels' data flow
// between threads is what the GPU's would be. Shared memory is one buffer a
// block. Not a timing model, and not a race detector: the GPU machine's
// compute-sanitizer is that.
#ifndef GS_EMU_CUDA_RUNTIME_H
#define GS_EMU_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <functional>

#define GS_EMULATE 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct float4 {
  float x, y, z, w;
};
struct int2 {
  int x, y;
};
inline float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}
inline int2 make_int2(int x, int y) {
  return int2{x, y};
}
using std::max;
using std::min;

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorInvalidConfiguration = 9 };
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount,
  cudaDevAttrMaxSharedMemoryPerBlockOptin,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  cudaDevAttrReservedSharedMemoryPerBlock,
  cudaDevAttrCooperativeLaunch
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize, cudaFuncAttributePreferredSharedMemoryCarveout };
enum { cudaSharedmemCarveoutMaxShared = 100, cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };

// Streams and events: one host thread runs every launch to its end before
// the call returns, so any order a stream or event asks for holds.
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);

// The emulated device: an H200's limits, GS_EMU_SMS SMs (default 4: few
// SMs cut small test grids into the tiles a big grid gets on 132).
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr what, int dev);
cudaError_t cudaGetLastError();
int gs_emu_blocks_per_sm(int threads, size_t smem);
template <typename K> cudaError_t cudaFuncSetAttribute(K, cudaFuncAttribute, int) {
  return cudaSuccess;
}
template <typename K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, K, int threads, size_t smem) {
  *blocks = gs_emu_blocks_per_sm(threads, smem);
  return cudaSuccess;
}

// The launch: body() in every thread of grid x block, smem bytes of shared
// memory a block; returns when all have ended (an error where they deadlock).
// A cooperative launch runs all blocks at once (they may meet at the grid
// barrier); a plain one (_blocks) one block after another.
cudaError_t gs_emu_launch(dim3 grid, dim3 block, unsigned smem, std::function<void()> body);
cudaError_t gs_emu_launch_blocks(dim3 grid, dim3 block, unsigned smem, std::function<void()> body);

// The running fiber's place.
dim3 gs_emu_thread_idx();
dim3 gs_emu_block_idx();
dim3 gs_emu_block_dim();
dim3 gs_emu_grid_dim();
void *gs_emu_smem();
#define threadIdx (gs_emu_thread_idx())
#define blockIdx (gs_emu_block_idx())
#define blockDim (gs_emu_block_dim())
#define gridDim (gs_emu_grid_dim())

void __syncthreads();
int __syncthreads_or(int predicate);
void gs_emu_grid_sync();
// A thread that polls memory another block writes (the tiles' tagged edge
// words): gs_emu_spin lets the other fibers run (a round in which every
// fiber only spins is a deadlock), gs_emu_spun counts the wait's end as
// progress.
void gs_emu_spin();
void gs_emu_spun();
int __any_sync(unsigned mask, int predicate);
float __shfl_down_sync(unsigned mask, float v, int delta);
float __shfl_up_sync(unsigned mask, float v, int delta);
inline void __threadfence() {}
inline unsigned __float_as_uint(float v) {
  unsigned u;
  memcpy(&u, &v, sizeof u);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}
// One host thread runs every fiber, and a fiber runs until it waits: atomics are plain.
template <typename T> T atomicAdd(T *p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <typename T> T atomicExch(T *p, T v) {
  const T old = *p;
  *p = v;
  return old;
}
template <typename T> T __ldg(const T *p) {
  return *p;
}
template <typename T> T __ldcg(const T *p) {
  return *p;
}
template <typename T> void __stcg(T *p, T v) {
  *p = v;
}

#endif

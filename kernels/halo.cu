// Halo box copies (kernels/halo_kernels.h). blockIdx.y picks the box; the
// threads of x walk its elements row by row, so wide boxes (rows) give
// coalesced loads and stores, and narrow ones (columns) one float per row.
// Destinations may be another GPU's memory (CUDA IPC): the stores then go
// over NVLink directly, with no staging copy.
#include <cuda_runtime.h>

#include "halo_kernels.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) copy_boxes_kernel(const gs_halo_boxes b) {
  const gs_halo_box &x = b.box[blockIdx.y];
  const int64_t n = x.w * x.h;
  for (int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x; t < n; t += (int64_t)gridDim.x * kThreads) {
    int64_t r = t / x.w, c = t - r * x.w;
    x.dst[r * x.dpitch + c] = x.src[r * x.spitch + c];
  }
}

__global__ void signal_kernel(uint64_t *flag, uint64_t value) {
  __threadfence_system();  // the stores before this kernel, then the flag
  *(volatile uint64_t *)flag = value;
}

__device__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A neighbour that never signals (it died without taking the job down) must
// not hang this rank: after 120 s the kernel traps, the next CUDA call on the
// host fails and gs_fatal ends every rank.
__global__ void wait_kernel(const uint64_t *flag, uint64_t value) {
  const uint64_t t0 = now_ns();
  while (*(const volatile uint64_t *)flag < value) {
    __nanosleep(64);
    if (now_ns() - t0 > 120000000000ull) __trap();
  }
  __threadfence_system();
}

}  // namespace

extern "C" int gs_halo_signal_cuda(uint64_t *flag, uint64_t value, void *stream) {
  signal_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, value);
  return (int)cudaGetLastError();
}

extern "C" int gs_halo_wait_cuda(const uint64_t *flag, uint64_t value, void *stream) {
  wait_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, value);
  return (int)cudaGetLastError();
}

extern "C" int gs_halo_copy_cuda(const gs_halo_boxes *b, void *stream) {
  if (b->n <= 0) return 0;
  int64_t most = 0;
  for (int k = 0; k < b->n; ++k)
    if (b->box[k].w * b->box[k].h > most) most = b->box[k].w * b->box[k].h;
  if (most == 0) return 0;
  int64_t blocks = (most + kThreads - 1) / kThreads;
  if (blocks > 1024) blocks = 1024;
  copy_boxes_kernel<<<dim3((unsigned)blocks, (unsigned)b->n), kThreads, 0, (cudaStream_t)stream>>>(*b);
  return (int)cudaGetLastError();
}

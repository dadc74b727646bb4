// Halo box copies (kernels/halo_kernels.h). blockIdx.y picks the box; each
// warp takes a piece of it: for boxes at least 32 wide, a segment of up to
// 512 floats of one row (16-byte loads and stores where source and
// destination share their alignment, as rows of arrays with the same layout
// do); for narrower ones (columns), 32 / w rows at once, a lane a float.
// Destinations may be another GPU's memory (CUDA IPC): the stores then go
// over NVLink directly, with no staging copy. With a flag, the last block to
// finish raises it (the signal fused into the copy: one launch, not two).
#include <cuda_runtime.h>
#include <stdint.h>

#include "halo_kernels.h"
#include "sm_count.cuh"

namespace {

constexpr int kThreads = 256, kSeg = 512; // floats per warp task along a row (128 float4, 4 per lane)

// Warp tasks a box needs.
__host__ __device__ int64_t box_tasks(const gs_halo_box &x) {
  const int64_t rows = gs_halo_rows(&x);
  if (x.w >= 32) return rows * ((x.w + kSeg - 1) / kSeg);
  int per = 32 / (int)x.w;
  return (rows + per - 1) / per;
}

__global__ void __launch_bounds__(kThreads) copy_boxes_kernel(const gs_halo_boxes b) {
  const gs_halo_box &x = b.box[blockIdx.y];
  const int lane = threadIdx.x & 31;
  const int64_t first = ((int64_t)blockIdx.x * kThreads + threadIdx.x) >> 5,
                stride = (int64_t)gridDim.x * kThreads / 32;
  const int64_t tasks = x.w > 0 && x.h > 0 ? box_tasks(x) : 0;
  if (tasks > 0 && x.w >= 32) {
    const int64_t segs = (x.w + kSeg - 1) / kSeg;
    // 16-byte path: both rows start at the same offset within 16 bytes.
    const bool vec = (((uintptr_t)x.src ^ (uintptr_t)x.dst) & 15) == 0 && (x.spitch & 3) == 0 && (x.dpitch & 3) == 0 &&
                     (x.d <= 1 || ((x.splane & 3) == 0 && (x.dplane & 3) == 0));
    const int head = vec ? (int)(((16 - ((uintptr_t)x.src & 15)) & 15) >> 2) : 0; // floats before the first aligned one
    for (int64_t t = first; t < tasks; t += stride) {
      const int64_t r = t / segs, seg = t - r * segs;
      const float *s = x.src + gs_halo_src_row(&x, r);
      float *d = x.dst + gs_halo_dst_row(&x, r);
      if (vec && x.w >= head + 4) {
        const int64_t nv = (x.w - head) >> 2, v0 = seg * (kSeg / 4), v1 = v0 + kSeg / 4 < nv ? v0 + kSeg / 4 : nv;
        const float4 *s4 = reinterpret_cast<const float4 *>(s + head);
        float4 *d4 = reinterpret_cast<float4 *>(d + head);
        // All loads first, then the stores: four 16-byte loads in flight per
        // lane (stores through d4 could alias s4 as far as the compiler knows,
        // so a load-store loop waits for each load in turn).
        constexpr int kPer = kSeg / 4 / 32;
        float4 buf[kPer];
#pragma unroll
        for (int u = 0; u < kPer; ++u)
          if (v0 + lane + 32 * u < v1) buf[u] = s4[v0 + lane + 32 * u];
#pragma unroll
        for (int u = 0; u < kPer; ++u)
          if (v0 + lane + 32 * u < v1) d4[v0 + lane + 32 * u] = buf[u];
        if (seg == 0 && lane < head) d[lane] = s[lane];
        const int64_t tail = head + 4 * nv;
        if (seg == segs - 1 && tail + lane < x.w) d[tail + lane] = s[tail + lane];
      } else {
        const int64_t c1 = (seg + 1) * kSeg < x.w ? (seg + 1) * kSeg : x.w;
        for (int64_t c = seg * kSeg + lane; c < c1; c += 32)
          d[c] = s[c];
      }
    }
  } else if (tasks > 0) {
    const int w = (int)x.w, per = 32 / w, rr = lane / w, c = lane - rr * w;
    if (rr < per)
      for (int64_t t = first; t < tasks; t += stride) {
        const int64_t r = t * per + rr;
        if (r < gs_halo_rows(&x)) x.dst[gs_halo_dst_row(&x, r) + c] = x.src[gs_halo_src_row(&x, r) + c];
      }
  }
  if (b.flag) {
    // The block's stores, then one system-wide fence and one count per block
    // (the pattern of cooperative groups' grid sync); the last block to
    // count stores the flag.
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      const unsigned total = gridDim.x * gridDim.y;
      if (atomicAdd(b.count, 1u) == total - 1) {
        *b.count = 0;
        __threadfence_system();
        *(volatile uint64_t *)b.flag = (uint64_t)gs_tick_value(b.value);
      }
    }
  }
}

__global__ void signal_kernel(uint64_t *flag, gs_tick value) {
  __threadfence_system(); // the stores before this kernel, then the flag
  *(volatile uint64_t *)flag = (uint64_t)gs_tick_value(value);
}

__device__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A neighbour that never signals (it died without taking the job down) must
// not hang this rank: after 120 s the kernel traps, the next CUDA call on the
// host fails and gs_fatal ends every rank.
__global__ void wait_kernel(const uint64_t *flag, gs_tick value) {
  const uint64_t t0 = now_ns(), v = (uint64_t)gs_tick_value(value);
  while (*(const volatile uint64_t *)flag < v) {
    __nanosleep(64);
    if (now_ns() - t0 > 120000000000ull) __trap();
  }
  __threadfence_system();
}

} // namespace

extern "C" int gs_halo_signal_cuda(uint64_t *flag, gs_tick value, void *stream) {
  signal_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, value);
  return (int)cudaGetLastError();
}

extern "C" int gs_halo_wait_cuda(const uint64_t *flag, gs_tick value, void *stream) {
  wait_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, value);
  return (int)cudaGetLastError();
}

extern "C" int gs_halo_copy_cuda(const gs_halo_boxes *b, void *stream) {
  if (b->n <= 0) {
    if (b->flag) return gs_halo_signal_cuda(b->flag, b->value, stream);
    return 0;
  }
  int64_t most = 1;
  for (int k = 0; k < b->n; ++k)
    if (b->box[k].w > 0 && b->box[k].h > 0 && box_tasks(b->box[k]) > most) most = box_tasks(b->box[k]);
  // Big boxes: at most one resident wave of blocks (4 per SM: 64 registers),
  // whose warps loop over the tasks.
  const int sms = gs_sm_count();
  if (!sms) return (int)cudaGetLastError();
  int64_t blocks = (most + kThreads / 32 - 1) / (kThreads / 32), cap = (int64_t)sms * 4 / b->n;
  if (cap < 1) cap = 1;
  if (blocks > cap) blocks = cap;
  copy_boxes_kernel<<<dim3((unsigned)blocks, (unsigned)b->n), kThreads, 0, (cudaStream_t)stream>>>(*b);
  return (int)cudaGetLastError();
}

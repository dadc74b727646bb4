// The scale kernel: out = rint(min(in * inv, maxval)), alpha copied.
//
// Bandwidth-bound: each thread moves UNROLL 16-byte vectors, all loads issued
// before the first use, with evict-first (streaming) loads and stores. The
// integer<->float conversions use exact magic-number arithmetic on the FMA
// pipe instead of the quarter-rate conversion unit:
//   float(x)   = as_float(0x4B000000 | x) - 2^23            (x < 2^23)
//   rint(t)    = low bits of as_uint(t + 1.5 * 2^23)         (0 <= t < 2^22)
// Both are exact in IEEE binary32, so results equal scale_ref.c bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"

namespace {

// Tuning knobs (benchmarked in docs/performance.md); override with -D.
#ifndef GS_SCALE_THREADS
#define GS_SCALE_THREADS 256
#endif
#ifndef GS_SCALE_UNROLL
#define GS_SCALE_UNROLL 8
#endif
constexpr int kThreads = GS_SCALE_THREADS;
constexpr int kUnroll = GS_SCALE_UNROLL;

__device__ __forceinline__ uint32_t scale_bits(float xf, float inv, float maxf) {
  float t = fminf(__fmul_rn(xf, inv), maxf);
  return __float_as_uint(__fadd_rn(t, 12582912.0f)); // low 22 bits = rint(t)
}

__device__ __forceinline__ float u8_as_float(uint32_t w, uint32_t sel) {
  return __fsub_rn(__uint_as_float(__byte_perm(w, 0x4B000000u, sel)), 8388608.0f);
}

template <int CH> __device__ __forceinline__ uint32_t scale_word_u8(uint32_t w, float inv, float maxf) {
  uint32_t r0 = scale_bits(u8_as_float(w, 0x7650), inv, maxf);
  uint32_t r2 = scale_bits(u8_as_float(w, 0x7652), inv, maxf);
  if (CH == 2) {
    uint32_t even = __byte_perm(r0, r2, 0x0400); // bytes: r0.b0, 0, r2.b0, 0
    return (even & 0x00FF00FFu) | (w & 0xFF00FF00u);
  }
  uint32_t r1 = scale_bits(u8_as_float(w, 0x7651), inv, maxf);
  uint32_t r3 = scale_bits(u8_as_float(w, 0x7653), inv, maxf);
  return __byte_perm(__byte_perm(r0, r1, 0x0040), __byte_perm(r2, r3, 0x0040), 0x5410);
}

template <int CH> __device__ __forceinline__ uint32_t scale_word_u16(uint32_t w, float inv, float maxf) {
  float lo = __fsub_rn(__uint_as_float(0x4B000000u | (w & 0xFFFFu)), 8388608.0f);
  uint32_t r0 = scale_bits(lo, inv, maxf);
  if (CH == 2) return (r0 & 0xFFFFu) | (w & 0xFFFF0000u);
  float hi = __fsub_rn(__uint_as_float(0x4B000000u | (w >> 16)), 8388608.0f);
  uint32_t r1 = scale_bits(hi, inv, maxf);
  return __byte_perm(r0, r1, 0x5410);
}

template <typename T, int CH> __device__ __forceinline__ uint32_t scale_word(uint32_t w, float inv, float maxf) {
  if (sizeof(T) == 1) return scale_word_u8<CH>(w, inv, maxf);
  return scale_word_u16<CH>(w, inv, maxf);
}

template <typename T> __device__ __forceinline__ T scale_scalar(T x, float inv, float maxf) {
  float xf = __fsub_rn(__uint_as_float(0x4B000000u | (uint32_t)x), 8388608.0f);
  return (T)(scale_bits(xf, inv, maxf) & 0x3FFFFFu);
}

// Vector body: nvec 16-byte vectors; block b handles [b*kThreads*kUnroll, ...).
// The tail (count % elems-per-vector samples) is done by the first threads of
// block 0. Element parity (for CH == 2) is the same in a vector and globally
// because a vector holds an even number of samples.
template <typename T, int CH>
__global__ void __launch_bounds__(kThreads)
    scale_vec_kernel(const uint4 *in, uint4 *out, size_t nvec, const T *in_tail, T *out_tail, int ntail,
                     size_t tail_first, float inv, float maxf) {
  const size_t base = (size_t)blockIdx.x * (kThreads * kUnroll) + threadIdx.x;
  uint4 v[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    size_t i = base + (size_t)u * kThreads;
    if (i < nvec) v[u] = __ldcs(in + i);
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    size_t i = base + (size_t)u * kThreads;
    if (i < nvec) {
      uint4 r;
      r.x = scale_word<T, CH>(v[u].x, inv, maxf);
      r.y = scale_word<T, CH>(v[u].y, inv, maxf);
      r.z = scale_word<T, CH>(v[u].z, inv, maxf);
      r.w = scale_word<T, CH>(v[u].w, inv, maxf);
      __stcs(out + i, r);
    }
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < ntail) {
    size_t g = tail_first + threadIdx.x;
    T x = in_tail[threadIdx.x];
    out_tail[threadIdx.x] = (CH == 2 && (g & 1)) ? x : scale_scalar<T>(x, inv, maxf);
  }
}

// Any alignment: one sample per thread, grid-stride.
template <typename T, int CH>
__global__ void __launch_bounds__(kThreads)
    scale_scalar_kernel(const T *in, T *out, size_t count, float inv, float maxf) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    T x = in[i];
    out[i] = (CH == 2 && (i & 1)) ? x : scale_scalar<T>(x, inv, maxf);
  }
}

template <typename T, int CH> int launch(const T *in, T *out, size_t count, gs_scale_params p, cudaStream_t s) {
  if (count == 0) return 0;
  const float maxf = (float)p.maxval;
  constexpr size_t per_vec = 16 / sizeof(T);
  const bool aligned = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
  if (aligned) {
    size_t nvec = count / per_vec;
    int ntail = (int)(count % per_vec);
    size_t per_block = (size_t)kThreads * kUnroll;
    size_t blocks = nvec ? (nvec + per_block - 1) / per_block : 1;
    if (blocks > 0x7FFFFFFFu) return (int)cudaErrorInvalidValue;
    size_t tail_first = nvec * per_vec;
    scale_vec_kernel<T, CH><<<(unsigned)blocks, kThreads, 0, s>>>(reinterpret_cast<const uint4 *>(in),
                                                                  reinterpret_cast<uint4 *>(out), nvec, in + tail_first,
                                                                  out + tail_first, ntail, tail_first, p.inv, maxf);
  } else {
    size_t blocks = (count + kThreads - 1) / kThreads;
    if (blocks > 65535u * 32u) blocks = 65535u * 32u;
    scale_scalar_kernel<T, CH><<<(unsigned)blocks, kThreads, 0, s>>>(in, out, count, p.inv, maxf);
  }
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int gs_scale_u8_cuda(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return p.channels == 2 ? launch<uint8_t, 2>(in, out, count, p, s) : launch<uint8_t, 1>(in, out, count, p, s);
}

extern "C" int gs_scale_u16_cuda(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return p.channels == 2 ? launch<uint16_t, 2>(in, out, count, p, s) : launch<uint16_t, 1>(in, out, count, p, s);
}

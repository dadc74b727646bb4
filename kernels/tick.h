/* A step or exchange number read when the work runs, not when it is queued:
 * at + *base (base NULL: at). A CUDA graph replays the same launches many
 * times; its kernels take base, a device word the graph itself moves on. */
#ifndef GS_TICK_H
#define GS_TICK_H

#include <stdint.h>

typedef struct gs_tick {
  const int64_t *base; /* device memory (host memory on the CPU backend), or NULL */
  int64_t at;
} gs_tick;

#ifdef __CUDACC__
__host__ __device__ __forceinline__
#else
static inline
#endif
    int64_t
    gs_tick_value(gs_tick t) {
  return t.at + (t.base ? *t.base : 0);
}

/* A tick that is just the number v. */
#ifdef __CUDACC__
__host__ __device__ __forceinline__
#else
static inline
#endif
    gs_tick
    gs_tick_at(int64_t v) {
  gs_tick t = {0, v};
  return t;
}

#endif

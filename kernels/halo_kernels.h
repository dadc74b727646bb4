/* Halo boxes: copies of small 2D boxes of floats between arrays of different
 * pitch, for packing edge strips into contiguous buffers, unpacking them into
 * ghost layers, and storing them straight into a neighbour's ghost layers
 * (CUDA IPC over NVLink). One launch copies up to GS_HALO_MAX_BOXES boxes.
 * gs_halo_copy_cuda() and its CPU twin gs_halo_copy_ref() have the same
 * signature; both return 0 or a backend error code (cudaError_t). */
#ifndef GS_HALO_KERNELS_H
#define GS_HALO_KERNELS_H

#include <stdint.h>

#include "tick.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_HALO_MAX_BOXES 8

/* d planes of h rows of w floats: row r of plane p at src + p * splane +
 * r * spitch (and dst + p * dplane + r * dpitch); d 0 or 1 is one plane (a
 * 2D box; 3D faces normal to x or y are boxes of several planes). */
typedef struct gs_halo_box {
  const float *src;
  float *dst;
  int64_t spitch, dpitch, w, h;
  int64_t d, splane, dplane;
} gs_halo_box;

/* Rows in box x (h per plane) and where row r starts in source and destination. */
#ifdef __CUDACC__
#define GS_HALO_HD __host__ __device__ __forceinline__
#else
#define GS_HALO_HD static inline
#endif
GS_HALO_HD int64_t gs_halo_rows(const gs_halo_box *x) {
  return x->d > 1 ? x->h * x->d : x->h;
}
GS_HALO_HD int64_t gs_halo_src_row(const gs_halo_box *x, int64_t r) {
  return x->d > 1 ? (r / x->h) * x->splane + (r % x->h) * x->spitch : r * x->spitch;
}
GS_HALO_HD int64_t gs_halo_dst_row(const gs_halo_box *x, int64_t r) {
  return x->d > 1 ? (r / x->h) * x->dplane + (r % x->h) * x->dpitch : r * x->dpitch;
}

/* n boxes; then, when flag is not NULL, *flag = value once every box is
 * copied and made visible system-wide (the signal fused into the copy: the
 * last block to finish stores it; count is a zeroed device word the launch
 * counts its blocks with and leaves zeroed). */
typedef struct gs_halo_boxes {
  int n; /* 0..GS_HALO_MAX_BOXES */
  gs_halo_box box[GS_HALO_MAX_BOXES];
  uint64_t *flag;
  gs_tick value;
  unsigned *count;
} gs_halo_boxes;

typedef int (*gs_halo_copy_fn)(const gs_halo_boxes *b, void *stream);
int gs_halo_copy_ref(const gs_halo_boxes *b, void *stream);
int gs_halo_copy_cuda(const gs_halo_boxes *b, void *stream);

/* Stream-ordered flags between GPUs (CUDA IPC): signal stores value into
 * *flag (possibly another GPU's memory) after everything before it in the
 * stream, made visible system-wide first; wait holds the stream until
 * *flag >= value (one thread polling, the other streams run on). The CPU
 * twins store, and check that the flag is already there (-1 if not). */
typedef int (*gs_halo_signal_fn)(uint64_t *flag, gs_tick value, void *stream);
typedef int (*gs_halo_wait_fn)(const uint64_t *flag, gs_tick value, void *stream);
int gs_halo_signal_ref(uint64_t *flag, gs_tick value, void *stream);
int gs_halo_wait_ref(const uint64_t *flag, gs_tick value, void *stream);
int gs_halo_signal_cuda(uint64_t *flag, gs_tick value, void *stream);
int gs_halo_wait_cuda(const uint64_t *flag, gs_tick value, void *stream);

#ifdef __cplusplus
}
#endif
#endif

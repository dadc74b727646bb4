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

/* h rows of w floats: row r of the box at src + r * spitch (and dst + r * dpitch). */
typedef struct gs_halo_box {
  const float *src;
  float *dst;
  int64_t spitch, dpitch, w, h;
} gs_halo_box;

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

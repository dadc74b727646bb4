/* gpustencil compute kernels and their CPU reference twins.
 *
 * Every GPU launcher gs_X_cuda() has a CPU twin gs_X_ref() with the same
 * signature: pointers are device pointers for the GPU version and host
 * pointers for the reference, and stream is a cudaStream_t (ignored by the
 * reference). Both return 0 on success or a nonzero backend error code
 * (a cudaError_t for the GPU version). This layer knows nothing of MPI,
 * files or options. */
#ifndef GS_KERNELS_H
#define GS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scale rule, identical on CPU and GPU, in IEEE binary32:
 *   out = rint(min(fl(in * inv), maxval))
 * where inv = (float)(1.0 / divisor) and rint rounds half to even (IEEE's
 * default rounding). Samples at index i with i % channels != 0 (the alpha of
 * grey+alpha data) are copied unscaled. */
typedef struct gs_scale_params {
  float inv;       /* 1/divisor rounded to float; finite and >= 0 */
  uint32_t maxval; /* 255 or 65535 */
  int channels;    /* 1 (grey) or 2 (grey + alpha) */
} gs_scale_params;

/* Builds the parameters for a divisor (finite, > 0) and bit depth (8, 16). */
gs_scale_params gs_scale_params_make(double divisor, int bit_depth, int channels);

/* Scales count samples of in into out (which may equal in). The buffers start
 * on a pixel boundary. */
typedef int (*gs_scale_u8_fn)(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *stream);
typedef int (*gs_scale_u16_fn)(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *stream);

int gs_scale_u8_ref(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *stream);
int gs_scale_u16_ref(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *stream);
int gs_scale_u8_cuda(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *stream);
int gs_scale_u16_cuda(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *stream);

#ifdef __cplusplus
}
#endif

#endif

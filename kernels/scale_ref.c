/* CPU reference for the scale kernel (also the CPU backend's kernel). */
#include <math.h>

#include "kernels.h"

gs_scale_params gs_scale_params_make(double divisor, int bit_depth, int channels) {
  gs_scale_params p;
  p.inv = (float)(1.0 / divisor);
  p.maxval = bit_depth == 16 ? 65535u : 255u;
  p.channels = channels;
  return p;
}

/* rint(v) for 0 <= v <= 65535, exactly: adding 1.5 * 2^23 leaves no fraction
 * bits, so the sum is rounded half to even (IEEE default), and subtracting
 * it back is exact. Unlike rintf() this vectorises. */
static inline uint32_t scale_one(uint32_t x, float inv, float maxf) {
  float v = (float)x * inv;
  v = v < maxf ? v : maxf;
  return (uint32_t)((v + 12582912.0f) - 12582912.0f);
}

#define GS_SCALE_REF_BODY                                                                                              \
  const float maxf = (float)p.maxval;                                                                                  \
  if (p.channels == 2) {                                                                                               \
    for (size_t i = 0; i + 1 < count; i += 2) {                                                                        \
      out[i] = scale_one(in[i], p.inv, maxf);                                                                          \
      out[i + 1] = in[i + 1];                                                                                          \
    }                                                                                                                  \
    if (count & 1) out[count - 1] = scale_one(in[count - 1], p.inv, maxf);                                             \
  } else {                                                                                                             \
    for (size_t i = 0; i < count; ++i)                                                                                 \
      out[i] = scale_one(in[i], p.inv, maxf);                                                                          \
  }                                                                                                                    \
  return 0;

/* 8-bit samples take one of 256 values: a table of scale_one over them gives
 * the same bytes as the arithmetic and costs one load per sample (the widening
 * float path was a tenth of one thread's end-to-end time). */
static int scale_u8_table(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p) {
  uint8_t table[256];
  const float maxf = (float)p.maxval;
  for (uint32_t v = 0; v < 256; ++v)
    table[v] = (uint8_t)scale_one(v, p.inv, maxf);
  if (p.channels == 2) {
    for (size_t i = 0; i + 1 < count; i += 2) {
      out[i] = table[in[i]];
      out[i + 1] = in[i + 1];
    }
    if (count & 1) out[count - 1] = table[in[count - 1]];
  } else {
    for (size_t i = 0; i < count; ++i)
      out[i] = table[in[i]];
  }
  return 0;
}

int gs_scale_u8_ref(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *stream) {
  (void)stream;
  if (count >= 4096) return scale_u8_table(in, out, count, p);
  GS_SCALE_REF_BODY
}

int gs_scale_u16_ref(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *stream) {
  (void)stream;
  GS_SCALE_REF_BODY
}

/* GPU scale kernel vs the CPU reference, bit for bit: random 8- and 16-bit
 * data, grey and grey+alpha, counts that are not multiples of 4 or 16, a
 * single sample, unaligned buffers, and in-place operation. Skips (77)
 * without a GPU. */
#include <cuda_runtime_api.h>
#include <string.h>

#include "backend.h"
#include "check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}

static void run(size_t count, int depth, int channels, double divisor, size_t offset, int inplace) {
  size_t es = depth == 16 ? 2 : 1, bytes = (count + offset) * es + 64;
  uint8_t *h_in = malloc(bytes), *h_ref = malloc(bytes), *h_out = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i)
    h_in[i] = (uint8_t)next();
  uint8_t *d_in = gs_backend_cuda.dev_alloc(bytes), *d_out = inplace ? d_in : gs_backend_cuda.dev_alloc(bytes);
  gs_backend_cuda.copy_h2d(d_in, h_in, bytes, NULL);
  if (!inplace) cudaMemset(d_out, 0xA5, bytes); /* poison */
  gs_scale_params p = gs_scale_params_make(divisor, depth, channels);
  memcpy(h_ref, h_in, bytes);
  if (depth == 16) {
    gs_scale_u16_ref((uint16_t *)h_in + offset, (uint16_t *)h_ref + offset, count, p, NULL);
    gs_backend_cuda.scale_u16((uint16_t *)d_in + offset, (uint16_t *)d_out + offset, count, p, NULL);
  } else {
    gs_scale_u8_ref(h_in + offset, h_ref + offset, count, p, NULL);
    gs_backend_cuda.scale_u8(d_in + offset, d_out + offset, count, p, NULL);
  }
  gs_backend_cuda.copy_d2h(h_out, d_out, bytes, NULL);
  gs_backend_cuda.stream_sync(NULL);
  size_t lo = offset * es, hi = (offset + count) * es, bad = 0, first = 0;
  for (size_t i = lo; i < hi; ++i)
    if (h_out[i] != h_ref[i] && bad++ == 0) first = i;
  CHECKF(bad == 0, "count=%zu depth=%d ch=%d D=%g off=%zu inplace=%d: %zu bytes differ, first at %zu (%d vs %d)", count,
         depth, channels, divisor, offset, inplace, bad, first, h_out[first], h_ref[first]);
  if (!inplace) {
    size_t outside = 0;
    for (size_t i = 0; i < bytes; ++i)
      if ((i < lo || i >= hi) && h_out[i] != 0xA5) ++outside;
    CHECKF(outside == 0, "count=%zu: %zu bytes written outside the range", count, outside);
  }
  gs_backend_cuda.dev_free(d_in);
  if (!inplace) gs_backend_cuda.dev_free(d_out);
  free(h_in);
  free(h_ref);
  free(h_out);
}

int main(void) {
  if (gs_cuda_probe() == 0) {
    printf("test_scale_gpu: no CUDA GPU visible, skipped\n");
    return GS_TEST_SKIP;
  }
  gs_backend_cuda.device_select(0);
  const size_t counts[] = {1, 2, 3, 15, 16, 17, 1023, 4096 + 5, 1 << 20, (1 << 22) + 13, 40000u * 3u + 1u};
  const double divisors[] = {2.0, 3.0, 0.37, 7.77, 1e-3};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c)
    for (int depth = 8; depth <= 16; depth += 8)
      for (int ch = 1; ch <= 2; ++ch)
        for (size_t d = 0; d < sizeof divisors / sizeof *divisors; ++d) {
          run(counts[c], depth, ch, divisors[d], 0, 0);
          if (d == 0) {
            run(counts[c], depth, ch, divisors[d], 3, 0); /* unaligned: scalar path */
            run(counts[c], depth, ch, divisors[d], 0, 1); /* in place */
          }
        }
  /* Large: 256 MiB of 8-bit samples. */
  run((size_t)256 << 20, 8, 1, 3.0, 0, 0);
  return gs_test_done("test_scale_gpu");
}

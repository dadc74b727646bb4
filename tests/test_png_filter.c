/* gs_png_filter_rows against the PNG specification's filters written
 * plainly: every filter, 1 to 8 bytes per pixel, with and without a row
 * above, rows shorter than a pixel, random and smooth bytes. */
#include <string.h>

#include "check.h"
#include "png_io.h"

static uint32_t rng = 99;
static uint8_t next(void) {
  rng = rng * 1103515245u + 12345u;
  return (uint8_t)(rng >> 16);
}

static uint8_t ref_paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

static void ref_filter(const uint8_t *x, const uint8_t *prev, size_t n, int bpp, int type, uint8_t *o) {
  o[0] = (uint8_t)type;
  for (size_t i = 0; i < n; ++i) {
    int a = i >= (size_t)bpp ? x[i - bpp] : 0, b = prev ? prev[i] : 0;
    int c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;
    int pred = type == 0 ? 0 : type == 1 ? a : type == 2 ? b : type == 3 ? (a + b) / 2 : ref_paeth(a, b, c);
    o[1 + i] = (uint8_t)(x[i] - pred);
  }
}

int main(void) {
  static const size_t lens[] = {1, 2, 3, 5, 8, 17, 64, 333, 4099};
  uint8_t *x = malloc(3 * 4099), *got = malloc(3 * 4100), *want = malloc(3 * 4100);
  for (int smooth = 0; smooth < 2; ++smooth)
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; ++l)
      for (int bpp = 1; bpp <= 8; ++bpp)
        for (int type = 0; type <= 4; ++type) {
          size_t n = lens[l];
          for (size_t i = 0; i < 3 * n; ++i)
            x[i] = smooth ? (uint8_t)(i / 3 + (next() & 7)) : next();
          gs_png_filter_rows(x, 3, n, bpp, NULL, (gs_png_filter)type, got);
          for (int y = 0; y < 3; ++y)
            ref_filter(x + y * n, y ? x + (y - 1) * n : NULL, n, bpp, type, want + y * (n + 1));
          CHECKF(!memcmp(got, want, 3 * (n + 1)), "filter %d, bpp %d, %zu bytes, first row without a row above", type,
                 bpp, n);
          gs_png_filter_rows(x + n, 2, n, bpp, x, (gs_png_filter)type, got);
          CHECKF(!memcmp(got, want + n + 1, 2 * (n + 1)), "filter %d, bpp %d, %zu bytes, with a row above", type, bpp,
                 n);
        }
  free(x);
  free(got);
  free(want);
  return gs_test_done("test_png_filter");
}

/* The pieces of a zlib stream made by gs_png_deflate_piece, concatenated,
 * form one valid zlib stream: it inflates to the input and its Adler-32
 * (combined per piece) matches. Pieces of several sizes, including ones
 * shorter than the 32 KiB window, smooth and random data, every level. */
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "png_io.h"

static uint32_t rng = 12345;
static uint8_t next(void) {
  rng = rng * 1103515245u + 12345u;
  return (uint8_t)(rng >> 16);
}

static void run(const uint8_t *data, size_t len, const size_t *cuts, int ncuts, int level) {
  uint8_t *z = malloc(gs_png_deflate_bound(len) * 2 + 64 * (size_t)ncuts), *back = malloc(len + 16);
  size_t zlen = 0, start = 0;
  uint32_t adler = 1;
  for (int i = 0; i <= ncuts; ++i) {
    size_t end = i < ncuts ? cuts[i] : len, n = 0;
    size_t dict = start < 32768 ? start : 32768;
    uint32_t a = 0;
    gs_status st = gs_png_deflate_piece(data + start, end - start, data + start - dict, dict, level, i == 0, i == ncuts,
                                        z + zlen, &n, &a);
    CHECKF(st == GS_OK, "level %d piece %d: %s", level, i, gs_strerror(st));
    adler = i == 0 ? a : gs_png_adler_combine(adler, a, end - start);
    zlen += n;
    start = end;
  }
  z[zlen++] = (uint8_t)(adler >> 24);
  z[zlen++] = (uint8_t)(adler >> 16);
  z[zlen++] = (uint8_t)(adler >> 8);
  z[zlen++] = (uint8_t)adler;
  uLongf blen = len + 16;
  int rc = uncompress(back, &blen, z, zlen); /* checks the zlib header and Adler-32 too */
  CHECKF(rc == Z_OK && blen == len && memcmp(back, data, len) == 0, "%s level %d, %d cuts: rc %d, %lu of %zu bytes",
         gs_png_deflate_engine(), level, ncuts, rc, (unsigned long)blen, len);
  free(z);
  free(back);
}

int main(void) {
  size_t len = 3u << 20;
  uint8_t *smooth = malloc(len), *noise = malloc(len);
  for (size_t i = 0; i < len; ++i) {
    smooth[i] = (uint8_t)((i / 7) % 251 + (next() & 3));
    noise[i] = next();
  }
  const size_t cuts[] = {1, 100, 40000, 70000, 1u << 20, (2u << 20) + 3};
  for (int level = 0; level <= 9; ++level) {
    run(smooth, len, cuts, 6, level);
    run(noise, len, cuts + 2, 3, level);
    run(smooth, len, NULL, 0, level);
    run(smooth, 1, NULL, 0, level);
  }
  free(smooth);
  free(noise);
  gs_png_thread_cleanup();
  return gs_test_done("test_png_pieces");
}

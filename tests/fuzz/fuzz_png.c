/* libFuzzer target: the PNG reader (gs_png_reader_*) on any bytes, read
 * strip by strip as the scale workload reads. Every input must decode or be
 * refused with a one-line reason; never a crash, a leak, undefined behaviour or
 * more memory than the harness allows (tests/fuzz/run.sh: 300 MB). */
#include <string.h>

#include "fuzz_input.h"
#include "png_io.h"

/* Rows per read, as a strip would be; the buffer stays small whatever the image. */
#define STRIP_BYTES ((size_t)1 << 20)

static void read_all(gs_png_reader *r) {
  const gs_png_format *f = gs_png_reader_format(r);
  size_t row = gs_png_row_bytes(f);
  if (row == 0 || row > STRIP_BYTES) return; /* wider than a strip: the caller splits; not this harness's job */
  uint32_t per = (uint32_t)(STRIP_BYTES / row);
  uint8_t *buf = malloc(per * row);
  char err[512];
  for (uint32_t y = 0; y < f->height;) {
    uint32_t n = f->height - y < per ? f->height - y : per;
    if (gs_png_reader_rows(r, buf, n, err, sizeof err) != GS_OK) break;
    y += n;
    if (y == f->height) gs_png_reader_finish(r, err, sizeof err);
  }
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = gs_fuzz_file("png", ".png", data, size);
  gs_png_reader *r = NULL;
  char err[512] = "";
  if (gs_png_reader_open(path, &r, err, sizeof err) == GS_OK) {
    read_all(r);
    gs_png_reader_close(r);
  } else if (!err[0] || strchr(err, '\n')) {
    abort();
  }
  unlink(path);
  return 0;
}

/* End to end: every PNG colour type and bit depth (interlaced too, odd sizes,
 * 1x1) through `gpustencil scale`, each output sample checked against the
 * expected grey (docs/scale.md) scaled by the reference rule, alpha copied.
 * usage: test_scale_e2e GPUSTENCIL WORKDIR [BACKEND] */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "kernels.h"
#include "pnggen.h"

/* img: w, h, colour type, depth, interlace, tRNS; main sets the seed,
 * smoothness and zlib level. */
typedef struct tcase {
  const char *name;
  gs_testimg img;
} tcase;

static const tcase cases[] = {
    {"grey1", {37, 11, PNG_COLOR_TYPE_GRAY, 1, 0, 0}},
    {"grey2", {21, 9, PNG_COLOR_TYPE_GRAY, 2, 0, 0}},
    {"grey4", {19, 13, PNG_COLOR_TYPE_GRAY, 4, 0, 0}},
    {"grey8", {301, 77, PNG_COLOR_TYPE_GRAY, 8, 0, 0}},
    {"grey16", {33, 17, PNG_COLOR_TYPE_GRAY, 16, 0, 0}},
    {"grey8_trns", {17, 5, PNG_COLOR_TYPE_GRAY, 8, 0, 1}},
    {"grey2_trns", {17, 5, PNG_COLOR_TYPE_GRAY, 2, 0, 1}},
    {"grey16_trns", {9, 7, PNG_COLOR_TYPE_GRAY, 16, 0, 1}},
    {"greyalpha8", {31, 7, PNG_COLOR_TYPE_GRAY_ALPHA, 8, 0, 0}},
    {"greyalpha16", {15, 9, PNG_COLOR_TYPE_GRAY_ALPHA, 16, 0, 0}},
    {"rgb8", {45, 21, PNG_COLOR_TYPE_RGB, 8, 0, 0}},
    {"rgb16", {23, 11, PNG_COLOR_TYPE_RGB, 16, 0, 0}},
    {"rgb8_trns", {13, 3, PNG_COLOR_TYPE_RGB, 8, 0, 1}},
    {"rgba8", {27, 19, PNG_COLOR_TYPE_RGB_ALPHA, 8, 0, 0}},
    {"rgba16", {11, 5, PNG_COLOR_TYPE_RGB_ALPHA, 16, 0, 0}},
    {"pal1", {29, 3, PNG_COLOR_TYPE_PALETTE, 1, 0, 0}},
    {"pal2", {29, 3, PNG_COLOR_TYPE_PALETTE, 2, 0, 0}},
    {"pal4", {29, 6, PNG_COLOR_TYPE_PALETTE, 4, 0, 1}},
    {"pal8", {64, 64, PNG_COLOR_TYPE_PALETTE, 8, 0, 0}},
    {"pal8_trns", {64, 3, PNG_COLOR_TYPE_PALETTE, 8, 0, 1}},
    {"grey8_adam7", {37, 29, PNG_COLOR_TYPE_GRAY, 8, 1, 0}},
    {"grey1_adam7", {9, 9, PNG_COLOR_TYPE_GRAY, 1, 1, 0}},
    {"rgb16_adam7", {13, 17, PNG_COLOR_TYPE_RGB, 16, 1, 0}},
    {"pal4_adam7", {7, 11, PNG_COLOR_TYPE_PALETTE, 4, 1, 1}},
    {"greyalpha8_adam7", {5, 3, PNG_COLOR_TYPE_GRAY_ALPHA, 8, 1, 0}},
    {"one_by_one", {1, 1, PNG_COLOR_TYPE_GRAY, 8, 0, 0}},
    {"one_by_one16", {1, 1, PNG_COLOR_TYPE_GRAY, 16, 0, 0}},
    {"tall", {3, 3000, PNG_COLOR_TYPE_GRAY, 8, 0, 0}},
    /* Several strips: 4 MiB of samples per strip, so 2100 x 1100 x 2 spans 2 strips. */
    {"two_strips", {2100, 1100, PNG_COLOR_TYPE_GRAY, 16, 0, 0}},
};

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_scale_e2e GPUSTENCIL WORKDIR [BACKEND]\n");
    return 2;
  }
  const char *bin = argv[1], *dir = argv[2], *backend = argc > 3 ? argv[3] : "cpu";
  if (strcmp(backend, "cuda") == 0) {
#ifdef GS_HAVE_CUDA
    if (gs_cuda_probe() == 0)
#endif
    {
      printf("test_scale_e2e: no CUDA GPU visible, skipped\n");
      return GS_TEST_SKIP;
    }
  }
  const double divisor = 1.7;
  char cmd[4096], path[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/in'", dir, dir);
  if (system(cmd) != 0) return 2;
  size_t n = sizeof cases / sizeof *cases;
  gs_testimg t[sizeof cases / sizeof *cases];
  for (size_t i = 0; i < n; ++i) {
    t[i] = cases[i].img;
    t[i].seed = (uint32_t)i + 1;
    t[i].smooth = (int)(i % 2);
    t[i].level = 6;
    snprintf(path, sizeof path, "%s/in/%s.png", dir, cases[i].name);
    CHECKF(gs_testimg_write(&t[i], path) == 0, "writing %s", path);
  }
  snprintf(cmd, sizeof cmd, "'%s' scale --backend %s -d %g -o '%s/out' '%s/in'", bin, backend, divisor, dir, dir);
  int rc = system(cmd);
  CHECKF(rc == 0, "'%s' returned %d", cmd, rc);

  for (size_t i = 0; i < n; ++i) {
    snprintf(path, sizeof path, "%s/out/%s.png", dir, cases[i].name);
    uint32_t w, h;
    int depth, ch;
    void *pix = NULL;
    if (gs_testimg_read(path, &w, &h, &depth, &ch, &pix) != 0) {
      CHECKF(0, "%s: unreadable output", cases[i].name);
      continue;
    }
    int want_depth = t[i].depth == 16 ? 16 : 8;
    int want_alpha =
        t[i].trns || t[i].color_type == PNG_COLOR_TYPE_GRAY_ALPHA || t[i].color_type == PNG_COLOR_TYPE_RGB_ALPHA;
    CHECKF(w == t[i].w && h == t[i].h, "%s: size %ux%u", cases[i].name, w, h);
    CHECKF(depth == want_depth && ch == 1 + want_alpha, "%s: depth %d channels %d", cases[i].name, depth, ch);
    if (w != t[i].w || h != t[i].h || depth != want_depth || ch != 1 + want_alpha) {
      free(pix);
      continue;
    }
    gs_scale_params p = gs_scale_params_make(divisor, depth, 1);
    size_t bad = 0;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t grey;
        int32_t alpha;
        gs_testimg_expect(&t[i], x, y, &grey, &alpha);
        size_t k = ((size_t)y * w + x) * (size_t)ch;
        uint32_t got, got_a = 0, want;
        if (depth == 16) {
          uint16_t in = (uint16_t)grey, out;
          gs_scale_u16_ref(&in, &out, 1, p, NULL);
          want = out;
          got = ((uint16_t *)pix)[k];
          if (ch == 2) got_a = ((uint16_t *)pix)[k + 1];
        } else {
          uint8_t in = (uint8_t)grey, out;
          gs_scale_u8_ref(&in, &out, 1, p, NULL);
          want = out;
          got = ((uint8_t *)pix)[k];
          if (ch == 2) got_a = ((uint8_t *)pix)[k + 1];
        }
        if (got != want || (ch == 2 && (int32_t)got_a != alpha)) {
          if (bad++ < 3)
            fprintf(stderr, "%s (%u,%u): grey %u alpha %u, want %u alpha %d (source grey %u)\n", cases[i].name, x, y,
                    got, got_a, want, alpha, grey);
        }
      }
    CHECKF(bad == 0, "%s: %zu pixels differ", cases[i].name, bad);
    free(pix);
  }
  return gs_test_done("test_scale_e2e");
}

/* Test images: deterministic PNGs of every colour type and bit depth, and the
 * grey/alpha samples gpustencil must derive from them. */
#ifndef GS_PNGGEN_H
#define GS_PNGGEN_H
#include <stdint.h>

typedef struct gs_testimg {
  uint32_t w, h;
  int color_type; /* PNG_COLOR_TYPE_* */
  int depth;      /* bits per sample in the file */
  int interlace;  /* 0 or 1 (Adam7) */
  int trns;       /* add a tRNS chunk (grey, RGB, palette) */
  uint32_t seed;
  int smooth; /* 1: smooth gradients with mild noise (photo-like); 0: noise */
  int level;  /* zlib level for writing */
} gs_testimg;

/* Writes the image row by row (constant memory). 0 on success. */
int gs_testimg_write(const gs_testimg *t, const char *path);
/* The grey sample (8- or 16-bit) and alpha (-1 when none) gpustencil's reader
 * must produce at (x, y), per docs/scale.md. */
void gs_testimg_expect(const gs_testimg *t, uint32_t x, uint32_t y, uint32_t *grey, int32_t *alpha);
/* Decodes a grey or grey+alpha PNG fully: 0 when it is valid. On success
 * *pix is malloc'd samples (host order, 16-bit as uint16_t), *ch channels. */
int gs_testimg_read(const char *path, uint32_t *w, uint32_t *h, int *depth, int *ch, void **pix);
#endif

#include "pnggen.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h;
}

static int channels_of(int ct) {
  switch (ct) {
  case PNG_COLOR_TYPE_GRAY_ALPHA:
    return 2;
  case PNG_COLOR_TYPE_RGB:
    return 3;
  case PNG_COLOR_TYPE_RGB_ALPHA:
    return 4;
  default:
    return 1;
  }
}

/* Raw sample c of pixel (x, y) at the file's depth. */
static uint32_t sample(const gs_testimg *t, uint32_t x, uint32_t y, int c) {
  uint32_t max = (1u << t->depth) - 1;
  if (t->smooth) {
    double v = (double)((x * 7 + y * 3 + (uint32_t)c * 97) % 4096) / 4095.0;
    int noise = (int)(hash3(x, y, t->seed + (uint32_t)c) % 9) - 4;
    long s = (long)(v * max) + noise * (long)(max / 255 ? max / 255 : 1);
    return (uint32_t)(s < 0 ? 0 : s > (long)max ? (long)max : s);
  }
  return hash3(x, y, t->seed * 31u + (uint32_t)c) & max;
}

static void palette_rgb(const gs_testimg *t, uint32_t i, uint32_t rgb[3]) {
  uint32_t h = hash3(i, 77, t->seed);
  rgb[0] = h & 255;
  rgb[1] = (h >> 8) & 255;
  rgb[2] = (h >> 16) & 255;
}

int gs_testimg_write(const gs_testimg *t, const char *path) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  int ch = channels_of(t->color_type);
  size_t rowbytes = ((size_t)t->w * ch * t->depth + 7) / 8;
  png_bytep row = calloc(1, rowbytes);
  if (!png || !info || !row || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(fp);
    free(row);
    return -1;
  }
  png_init_io(png, fp);
  png_set_compression_level(png, t->level);
  png_set_IHDR(png, info, t->w, t->h, t->depth, t->color_type, t->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (t->color_type == PNG_COLOR_TYPE_PALETTE) {
    int n = 1 << t->depth;
    png_color pal[256];
    png_byte alpha[256];
    for (int i = 0; i < n; ++i) {
      uint32_t rgb[3];
      palette_rgb(t, (uint32_t)i, rgb);
      pal[i].red = (png_byte)rgb[0];
      pal[i].green = (png_byte)rgb[1];
      pal[i].blue = (png_byte)rgb[2];
      alpha[i] = (png_byte)(hash3((uint32_t)i, 5, t->seed) & 255);
    }
    png_set_PLTE(png, info, pal, n);
    if (t->trns) png_set_tRNS(png, info, alpha, n, NULL);
  } else if (t->trns && (t->color_type == PNG_COLOR_TYPE_GRAY || t->color_type == PNG_COLOR_TYPE_RGB)) {
    png_color_16 key = {0};
    key.gray = (png_uint_16)sample(t, 0, 0, 0); /* pixel (0,0) is transparent */
    key.red = (png_uint_16)sample(t, 0, 0, 0);
    key.green = (png_uint_16)sample(t, 0, 0, 1);
    key.blue = (png_uint_16)sample(t, 0, 0, 2);
    png_set_tRNS(png, info, NULL, 0, &key);
  }
  png_write_info(png, info);
  int passes = png_set_interlace_handling(png);
  for (int pass = 0; pass < passes; ++pass)
    for (uint32_t y = 0; y < t->h; ++y) {
      memset(row, 0, rowbytes);
      for (uint32_t x = 0; x < t->w; ++x)
        for (int c = 0; c < ch; ++c) {
          uint32_t v = sample(t, x, y, c);
          size_t bit = ((size_t)x * ch + c) * t->depth;
          if (t->depth == 16) {
            row[bit / 8] = (png_byte)(v >> 8);
            row[bit / 8 + 1] = (png_byte)v;
          } else if (t->depth == 8) {
            row[bit / 8] = (png_byte)v;
          } else {
            row[bit / 8] |= (png_byte)(v << (8 - t->depth - bit % 8));
          }
        }
      png_write_row(png, row);
    }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  free(row);
  return fclose(fp) == 0 ? 0 : -1;
}

void gs_testimg_expect(const gs_testimg *t, uint32_t x, uint32_t y, uint32_t *grey, int32_t *alpha) {
  const uint32_t wr = 6966, wg = 23436, wb = 2366;
  int d = t->depth;
  uint32_t max_out = d == 16 ? 65535u : 255u;
  *alpha = -1;
  switch (t->color_type) {
  case PNG_COLOR_TYPE_GRAY: {
    uint32_t v = sample(t, x, y, 0);
    *grey = d >= 8 ? v : v * (255u / ((1u << d) - 1));
    if (t->trns) *alpha = v == sample(t, 0, 0, 0) ? 0 : (int32_t)max_out;
    break;
  }
  case PNG_COLOR_TYPE_GRAY_ALPHA:
    *grey = sample(t, x, y, 0);
    *alpha = (int32_t)sample(t, x, y, 1);
    break;
  case PNG_COLOR_TYPE_RGB:
  case PNG_COLOR_TYPE_RGB_ALPHA: {
    uint32_t r = sample(t, x, y, 0), g = sample(t, x, y, 1), b = sample(t, x, y, 2);
    *grey = (wr * r + wg * g + wb * b + 16384u) >> 15;
    if (t->color_type == PNG_COLOR_TYPE_RGB_ALPHA)
      *alpha = (int32_t)sample(t, x, y, 3);
    else if (t->trns)
      *alpha = (r == sample(t, 0, 0, 0) && g == sample(t, 0, 0, 1) && b == sample(t, 0, 0, 2)) ? 0 : (int32_t)max_out;
    break;
  }
  default: { /* palette */
    uint32_t i = sample(t, x, y, 0), rgb[3];
    palette_rgb(t, i, rgb);
    *grey = (wr * rgb[0] + wg * rgb[1] + wb * rgb[2] + 16384u) >> 15;
    if (t->trns) *alpha = (int32_t)(hash3(i, 5, t->seed) & 255);
  }
  }
}

int gs_testimg_read(const char *path, uint32_t *w, uint32_t *h, int *depth, int *ch, void **pix) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  uint8_t *volatile buf = NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    free(buf);
    return -1;
  }
  png_init_io(png, fp);
  png_read_info(png, info);
  int ct = png_get_color_type(png, info);
  *w = png_get_image_width(png, info);
  *h = png_get_image_height(png, info);
  *depth = png_get_bit_depth(png, info);
  *ch = ct == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
  if ((ct != PNG_COLOR_TYPE_GRAY && ct != PNG_COLOR_TYPE_GRAY_ALPHA) || (*depth != 8 && *depth != 16))
    png_error(png, "not 8/16-bit grey");
  const uint16_t one = 1;
  if (*depth == 16 && *(const uint8_t *)&one) png_set_swap(png);
  size_t rb = png_get_rowbytes(png, info);
  buf = malloc(rb * *h);
  if (!buf) png_error(png, "oom");
  for (uint32_t y = 0; y < *h; ++y)
    png_read_row(png, buf + rb * y, NULL);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);
  fclose(fp);
  *pix = buf;
  return 0;
}

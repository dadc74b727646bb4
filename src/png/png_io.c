#include "png_io.h"

#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "fsutil.h"
#ifdef GS_HAVE_ISAL
#include "png_fast.h"
#include "png_isal.h"
#endif

/* ------------------------------------------------------------------ reader */

struct gs_png_reader {
  FILE *fp;
  png_structp png;
  png_infop info;
  gs_png_format fmt;
  char msg[420];  /* libpng's error text */
  char warn[200]; /* its last warning, often the cause of the error */
  int rgb;        /* decoded rows are RGB or RGBA and need the grey conversion */
  size_t dec_row_bytes;
  uint8_t *rowbuf;   /* one decoded RGB(A) row */
  uint8_t *whole;    /* interlaced: the whole decoded image */
  png_bytep *rows;   /* interlaced: row pointers into whole while libpng fills it */
  uint32_t next_row; /* rows handed out so far */
  gs_png_read_engine engine;
  char *path;
#ifdef GS_HAVE_ISAL
  struct gs_png_fast *fast; /* the fast path, while it serves the file */
#endif
};

static void on_png_error(png_structp png, png_const_charp msg) {
  gs_png_reader *r = png_get_error_ptr(png);
  if (strcmp(msg, "Read Error") == 0) msg = "truncated file (unexpected end of data)";
  if (r->warn[0])
    snprintf(r->msg, sizeof r->msg, "%s (%s)", msg, r->warn);
  else
    snprintf(r->msg, sizeof r->msg, "%s", msg);
  png_longjmp(png, 1);
}
/* Ancillary-chunk problems libpng recovers from; kept as context for a
 * following error only. */
static void on_png_warning(png_structp png, png_const_charp msg) {
  gs_png_reader *r = png_get_error_ptr(png);
  snprintf(r->warn, sizeof r->warn, "%s", msg);
}

static gs_status fail(char *err, size_t errlen, gs_status st, const char *fmt, const char *what) {
  snprintf(err, errlen, fmt, what);
  return st;
}

gs_status gs_png_peek(const char *path, uint32_t *width, uint32_t *height, char *err, size_t errlen) {
  unsigned char h[33];
  char why[256];
  FILE *fp = gs_fopen_input(path, why, sizeof why);
  if (!fp) return fail(err, errlen, GS_ERR_IO, "%s", why);
  size_t n = fread(h, 1, sizeof h, fp);
  fclose(fp);
  if (n < 8 || png_sig_cmp(h, 0, 8) != 0)
    return fail(err, errlen, GS_ERR_FORMAT, "%s", n == 0 ? "empty file" : "not a PNG file");
  if (n < sizeof h || memcmp(h + 12, "IHDR", 4) != 0) return fail(err, errlen, GS_ERR_FORMAT, "%s", "no IHDR chunk");
  *width = (uint32_t)h[16] << 24 | (uint32_t)h[17] << 16 | (uint32_t)h[18] << 8 | h[19];
  *height = (uint32_t)h[20] << 24 | (uint32_t)h[21] << 16 | (uint32_t)h[22] << 8 | h[23];
  return GS_OK;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* What libpng may hold for one file (docs/scale.md, "Limits"): without these a
 * 44-byte file whose tEXt chunk claims 2 GiB made it allocate 2.1 GB before
 * failing. Chunks the program does not use (text, ICC profiles, metadata) are
 * skipped unread, so they cost neither memory nor time; what it keeps (IHDR,
 * PLTE, tRNS, gAMA, sRGB, IDAT) is bounded by the chunk limit and the sides. */
static void set_limits(png_structp png) {
  static const png_byte unused[] = "bKGD\0cHRM\0eXIf\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0"
                                   "sPLT\0sTER\0tEXt\0tIME\0zTXt";
  png_set_user_limits(png, GS_PNG_MAX_SIDE, GS_PNG_MAX_SIDE);
  png_set_chunk_cache_max(png, GS_PNG_MAX_CHUNKS);
  png_set_chunk_malloc_max(png, GS_PNG_MAX_CHUNK_BYTES);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused, (int)(sizeof unused / 5));
}

/* The libpng path: opens path for r (fresh, or left by the fast path) and
 * reads up to the image data. On failure r keeps what it holds for
 * gs_png_reader_close. */
static gs_status lib_open(gs_png_reader *r, const char *path, char *err, size_t errlen) {
  char why[256];
  if (!(r->fp = gs_fopen_input(path, why, sizeof why))) return fail(err, errlen, GS_ERR_IO, "%s", why);
  unsigned char sig[8];
  size_t n = fread(sig, 1, 8, r->fp);
  if (n < 8 || png_sig_cmp(sig, 0, 8) != 0)
    return fail(err, errlen, GS_ERR_FORMAT, "%s", n == 0 ? "empty file" : "not a PNG file");
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_png_error, on_png_warning);
  if (!r->png || !(r->info = png_create_info_struct(r->png)))
    return fail(err, errlen, GS_ERR_NOMEM, "%s", "libpng: out of memory");
  if (setjmp(png_jmpbuf(r->png))) return fail(err, errlen, GS_ERR_FORMAT, "%s", r->msg);
  png_init_io(r->png, r->fp);
  png_set_sig_bytes(r->png, 8);
  set_limits(r->png);
  png_read_info(r->png, r->info);

  png_uint_32 w = 0, h = 0;
  int bit_depth = 0, color = 0, interlace = 0;
  png_get_IHDR(r->png, r->info, &w, &h, &bit_depth, &color, &interlace, NULL, NULL);
  if ((uint64_t)w * h > GS_PNG_MAX_PIXELS) {
    snprintf(err, errlen, "%ux%u pixels exceed the limit of 2^34", (unsigned)w, (unsigned)h);
    return GS_ERR_LIMIT;
  }
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
  if (color == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
  if (png_get_valid(r->png, r->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r->png);
  if (bit_depth == 16 && host_is_little_endian()) png_set_swap(r->png);
  int passes = png_set_interlace_handling(r->png);
  png_read_update_info(r->png, r->info);

  int ch = png_get_channels(r->png, r->info);
  r->fmt.width = w;
  r->fmt.height = h;
  r->fmt.depth = bit_depth == 16 ? 16 : 8;
  r->fmt.channels = (ch == 2 || ch == 4) ? 2 : 1;
  r->rgb = ch >= 3;
  r->dec_row_bytes = png_get_rowbytes(r->png, r->info);
  double gamma = 0;
  if (png_get_gAMA(r->png, r->info, &gamma) && gamma > 0) {
    r->fmt.has_gamma = 1;
    r->fmt.gamma = (uint32_t)(gamma * 100000.0 + 0.5);
  }
  int intent = 0;
  if (png_get_sRGB(r->png, r->info, &intent)) {
    r->fmt.has_srgb = 1;
    r->fmt.srgb_intent = intent;
  }
  if (r->rgb && !(r->rowbuf = malloc(r->dec_row_bytes))) return fail(err, errlen, GS_ERR_NOMEM, "%s", "out of memory");
  if (passes > 1) {
    uint64_t bytes = (uint64_t)r->dec_row_bytes * h;
    if (bytes > GS_PNG_MAX_INTERLACED_BYTES) {
      snprintf(err, errlen, "interlaced image of %llu decoded bytes exceeds the 1 GiB limit for interlaced input",
               (unsigned long long)bytes);
      return GS_ERR_LIMIT;
    }
    /* The row pointers live in r, so that a longjmp out of png_read_image
     * (a truncated file) leaves them to gs_png_reader_close. */
    if (!(r->rows = malloc(sizeof *r->rows * h)) || !(r->whole = malloc((size_t)bytes)))
      return fail(err, errlen, GS_ERR_NOMEM, "%s", "out of memory");
    for (png_uint_32 y = 0; y < h; ++y)
      r->rows[y] = r->whole + (size_t)y * r->dec_row_bytes;
    png_read_image(r->png, r->rows);
    free(r->rows);
    r->rows = NULL;
  }
  return GS_OK;
}

const gs_png_format *gs_png_reader_format(const gs_png_reader *r) {
  return &r->fmt;
}

/* Rec. 709 luma weights on stored values, in 1/32768. */
#define GS_WR 6966u
#define GS_WG 23436u
#define GS_WB 2366u

static void rgb_to_grey(const gs_png_reader *r, const uint8_t *src, void *dst) {
  uint32_t w = r->fmt.width;
  int alpha = r->fmt.channels == 2, in_ch = alpha ? 4 : 3;
  if (r->fmt.depth == 16) {
    const uint16_t *s = (const uint16_t *)src;
    uint16_t *d = dst;
    for (uint32_t x = 0; x < w; ++x, s += in_ch) {
      *d++ = (uint16_t)((GS_WR * s[0] + GS_WG * s[1] + GS_WB * s[2] + 16384u) >> 15);
      if (alpha) *d++ = s[3];
    }
  } else {
    uint8_t *d = dst;
    for (uint32_t x = 0; x < w; ++x, src += in_ch) {
      *d++ = (uint8_t)((GS_WR * src[0] + GS_WG * src[1] + GS_WB * src[2] + 16384u) >> 15);
      if (alpha) *d++ = src[3];
    }
  }
}

/* The row loop of lib_rows, apart so that no local of the function holding
 * the setjmp changes after it. */
__attribute__((noinline)) static void lib_rows_loop(gs_png_reader *r, void *dst, uint32_t nrows) {
  size_t out_row = gs_png_row_bytes(&r->fmt);
  for (uint32_t i = 0; i < nrows; ++i, ++r->next_row) {
    uint8_t *d = (uint8_t *)dst + (size_t)i * out_row;
    const uint8_t *src;
    if (r->whole) {
      src = r->whole + (size_t)r->next_row * r->dec_row_bytes;
      if (!r->rgb) {
        memcpy(d, src, out_row);
        continue;
      }
    } else if (!r->rgb) {
      png_read_row(r->png, d, NULL);
      continue;
    } else {
      png_read_row(r->png, r->rowbuf, NULL);
      src = r->rowbuf;
    }
    rgb_to_grey(r, src, d);
  }
}

static gs_status lib_rows(gs_png_reader *r, void *dst, uint32_t nrows, char *err, size_t errlen) {
  if (nrows > r->fmt.height - r->next_row) return fail(err, errlen, GS_ERR_USAGE, "%s", "read past the last row");
  if (setjmp(png_jmpbuf(r->png))) return fail(err, errlen, GS_ERR_FORMAT, "%s", r->msg);
  lib_rows_loop(r, dst, nrows);
  return GS_OK;
}

static gs_status lib_finish(gs_png_reader *r, char *err, size_t errlen) {
  if (setjmp(png_jmpbuf(r->png))) return fail(err, errlen, GS_ERR_FORMAT, "%s", r->msg);
  png_read_end(r->png, NULL);
  return GS_OK;
}

#ifdef GS_HAVE_ISAL
/* Gives the file to libpng after the fast path failed on it, libpng being the
 * reference: it decodes the rows already handed out again (discarded), then
 * nrows more into dst (dst may be NULL). When libpng fails too, the fast
 * path's reason, already in err, is the answer (fast_st). */
static gs_status lib_take_over(gs_png_reader *r, void *dst, uint32_t nrows, gs_status fast_st) {
  uint32_t done = r->next_row;
  char lerr[420];
  gs_png_fast_close(r->fast);
  r->fast = NULL;
  r->next_row = 0;
  gs_status st = lib_open(r, r->path, lerr, sizeof lerr);
  uint8_t *scratch = st == GS_OK ? malloc(gs_png_row_bytes(&r->fmt)) : NULL;
  if (st == GS_OK && !scratch) st = GS_ERR_NOMEM;
  for (uint32_t y = 0; y < done && st == GS_OK; ++y)
    st = lib_rows(r, scratch, 1, lerr, sizeof lerr);
  free(scratch);
  if (st == GS_OK && dst) st = lib_rows(r, dst, nrows, lerr, sizeof lerr);
  return st == GS_OK ? GS_OK : fast_st;
}
#endif

gs_status gs_png_reader_open_with(const char *path, gs_png_read_engine engine, gs_png_reader **out, char *err,
                                  size_t errlen) {
  *out = NULL;
  gs_png_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    return fail(err, errlen, GS_ERR_NOMEM, "%s", "out of memory");
  }
  r->engine = engine;
  gs_status st = GS_ERR_UNSUPPORTED;
#ifdef GS_HAVE_ISAL
  /* The fast path serves what it can; libpng decides about everything else,
   * including every file the fast path finds broken. */
  if (engine != GS_PNG_READ_LIBPNG) {
    char ferr[256];
    st = gs_png_fast_open(path, &r->fast, &r->fmt, engine == GS_PNG_READ_FAST ? err : ferr,
                          engine == GS_PNG_READ_FAST ? errlen : sizeof ferr);
  }
#else
  if (engine == GS_PNG_READ_FAST) snprintf(err, errlen, "%s", "built without ISA-L: no fast read path");
#endif
  if (st != GS_OK && engine != GS_PNG_READ_FAST) st = lib_open(r, path, err, errlen);
  if (st != GS_OK) {
    gs_png_reader_close(r);
    return st;
  }
  *out = r;
  return GS_OK;
}

gs_status gs_png_reader_open(const char *path, gs_png_reader **out, char *err, size_t errlen) {
  return gs_png_reader_open_with(path, GS_PNG_READ_AUTO, out, err, errlen);
}

const char *gs_png_reader_engine(const gs_png_reader *r) {
#ifdef GS_HAVE_ISAL
  if (r->fast) return "isa-l";
#endif
  return "libpng";
}

gs_status gs_png_reader_rows(gs_png_reader *r, void *dst, uint32_t nrows, char *err, size_t errlen) {
#ifdef GS_HAVE_ISAL
  if (r->fast) {
    gs_status st = gs_png_fast_rows(r->fast, dst, nrows, err, errlen);
    if (st == GS_OK) r->next_row += nrows;
    if (st == GS_OK || r->engine == GS_PNG_READ_FAST || st == GS_ERR_USAGE) return st;
    return lib_take_over(r, dst, nrows, st);
  }
#endif
  return lib_rows(r, dst, nrows, err, errlen);
}

gs_status gs_png_reader_finish(gs_png_reader *r, char *err, size_t errlen) {
#ifdef GS_HAVE_ISAL
  if (r->fast) {
    gs_status fst = gs_png_fast_finish(r->fast, err, errlen);
    if (fst == GS_OK || r->engine == GS_PNG_READ_FAST || fst == GS_ERR_USAGE) return fst;
    char lerr[420];
    gs_status st = lib_take_over(r, NULL, 0, fst);
    if (st == GS_OK && lib_finish(r, lerr, sizeof lerr) != GS_OK) st = fst;
    return st;
  }
#endif
  return lib_finish(r, err, errlen);
}

void gs_png_reader_close(gs_png_reader *r) {
  if (!r) return;
  if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
  if (r->fp) fclose(r->fp);
#ifdef GS_HAVE_ISAL
  gs_png_fast_close(r->fast);
#endif
  free(r->rowbuf);
  free(r->rows);
  free(r->whole);
  free(r->path);
  free(r);
}

/* ----------------------------------------------------------------- filters */

/* Branch-free Paeth predictor (the PNG specification's order of ties). */
static inline uint8_t paeth(int a, int b, int c) {
  int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
  int m = pa <= pb ? a : b, pm = pa <= pb ? pa : pb;
  return (uint8_t)(pm <= pc ? m : c);
}

/* Each filter as a loop without tests inside (the first pixel and a missing
 * row above are handled apart) over restrict pointers: the compiler
 * vectorises all four, since the encoder reads only unfiltered bytes. */
static void filter_row(const uint8_t *restrict x, const uint8_t *restrict prev, size_t n, int bpp, int type,
                       uint8_t *restrict o) {
  *o++ = (uint8_t)type;
  size_t b = (size_t)bpp < n ? (size_t)bpp : n;
  if (type == GS_PNG_FILTER_NONE || (type == GS_PNG_FILTER_UP && !prev)) {
    memcpy(o, x, n);
  } else if (type == GS_PNG_FILTER_SUB || (type == GS_PNG_FILTER_PAETH && !prev)) {
    memcpy(o, x, b);
    for (size_t i = b; i < n; ++i)
      o[i] = (uint8_t)(x[i] - x[i - b]);
  } else if (type == GS_PNG_FILTER_UP) {
    for (size_t i = 0; i < n; ++i)
      o[i] = (uint8_t)(x[i] - prev[i]);
  } else if (type == GS_PNG_FILTER_AVG && !prev) {
    memcpy(o, x, b);
    for (size_t i = b; i < n; ++i)
      o[i] = (uint8_t)(x[i] - (x[i - b] >> 1));
  } else if (type == GS_PNG_FILTER_AVG) {
    for (size_t i = 0; i < b; ++i)
      o[i] = (uint8_t)(x[i] - (prev[i] >> 1));
    for (size_t i = b; i < n; ++i)
      o[i] = (uint8_t)(x[i] - ((x[i - b] + prev[i]) >> 1));
  } else {
    for (size_t i = 0; i < b; ++i)
      o[i] = (uint8_t)(x[i] - prev[i]);
    for (size_t i = b; i < n; ++i)
      o[i] = (uint8_t)(x[i] - paeth(x[i - b], prev[i], prev[i - b]));
  }
}

static uint64_t row_cost(const uint8_t *o, size_t n) {
  uint64_t s = 0;
  for (size_t i = 1; i <= n; ++i)
    s += (uint32_t)(o[i] < 128 ? o[i] : 256u - o[i]);
  return s;
}

void gs_png_filter_rows(const uint8_t *rows, uint32_t nrows, size_t rowbytes, int bpp, const uint8_t *prev,
                        gs_png_filter filter, uint8_t *out) {
  for (uint32_t y = 0; y < nrows; ++y) {
    const uint8_t *x = rows + (size_t)y * rowbytes;
    uint8_t *o = out + (size_t)y * (rowbytes + 1);
    if (filter != GS_PNG_FILTER_ADAPTIVE) {
      filter_row(x, prev, rowbytes, bpp, filter, o);
    } else {
      /* Try each filter into o, keep the best type, then redo it. */
      uint64_t best = UINT64_MAX;
      int best_type = 0;
      for (int t = GS_PNG_FILTER_NONE; t <= GS_PNG_FILTER_PAETH; ++t) {
        filter_row(x, prev, rowbytes, bpp, t, o);
        uint64_t c = row_cost(o, rowbytes);
        if (c < best) {
          best = c;
          best_type = t;
        }
      }
      if (best_type != GS_PNG_FILTER_PAETH) filter_row(x, prev, rowbytes, bpp, best_type, o);
    }
    prev = x;
  }
}

/* ------------------------------------------------------------- compression */

size_t gs_png_deflate_bound(size_t len) {
  return (size_t)compressBound((uLong)len) + len / 64 + 1024;
}

static uint8_t zlib_flg(int level) {
  return level <= 1 ? 0x01 : level <= 5 ? 0x5E : level == 6 ? 0x9C : 0xDA;
}

#ifdef GS_HAVE_LIBDEFLATE
/* One compressor per thread and level; libdeflate is 2-3x faster than zlib at
 * a like level, with like or smaller output (docs/design.md). */
static _Thread_local struct libdeflate_compressor *tl_comp;
static _Thread_local int tl_level = -1;

/* libdeflate always ends its output with a final block. For a piece that is
 * not the image's last, find that block's header (inflate with Z_BLOCK stops
 * at each block boundary, as zlib's examples/gzjoin.c does), clear its BFINAL
 * bit, and append an empty stored block so that the next piece starts on a
 * byte boundary: the same bytes a zlib Z_SYNC_FLUSH would end with. */
static int make_non_final(uint8_t *p, size_t *n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK) return -1;
  static _Thread_local uint8_t junk[65536];
  z.next_in = p;
  z.avail_in = (uInt)*n;
  size_t hdr_byte = 0;
  int hdr_bit = 0, end_unused = -1, rc;
  for (;;) {
    z.next_out = junk;
    z.avail_out = sizeof junk;
    rc = inflate(&z, Z_BLOCK);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && z.avail_out == 0)) {
      inflateEnd(&z);
      return -1;
    }
    if (!(z.data_type & 128)) continue;
    if (z.data_type & 64) { /* just after the final block: unused bits of its last byte */
      end_unused = z.data_type & 7;
    } else { /* just before the next block's header */
      int unused = z.data_type & 7;
      size_t used = (size_t)(z.next_in - p);
      hdr_byte = unused ? used - 1 : used;
      hdr_bit = unused ? 8 - unused : 0;
    }
  }
  inflateEnd(&z);
  if (end_unused < 0) return -1;
  p[hdr_byte] &= (uint8_t) ~(1u << hdr_bit);
  size_t k = *n;
  /* Empty stored block, BFINAL 0: three zero bits after the last used bit
   * (padding bits need not be zero), then alignment, LEN 0 and NLEN 0xFFFF. */
  if (end_unused) p[k - 1] &= (uint8_t)((1u << (8 - end_unused)) - 1u);
  if (end_unused < 3) p[k++] = 0; /* the header spills into a new byte */
  p[k++] = 0x00;
  p[k++] = 0x00;
  p[k++] = 0xFF;
  p[k++] = 0xFF;
  *n = k;
  return 0;
}
#endif

gs_status gs_png_deflate_piece(const uint8_t *data, size_t len, const uint8_t *dict, size_t dictlen, int level,
                               int first, int last, uint8_t *out, size_t *outlen, uint32_t *adler) {
  size_t pos = 0, cap = gs_png_deflate_bound(len);
  if (first) {
    out[0] = 0x78; /* deflate, 32 KiB window */
    out[1] = zlib_flg(level);
    pos = 2;
  }
#ifdef GS_HAVE_ISAL
  *adler = gs_png_isal_adler32(data, len);
  int il = gs_png_isal_level(level);
  if (il >= 0) {
    size_t n = 0;
    int rc = 0;
    gs_status st = gs_png_isal_deflate(data, len, il, last, out + pos, cap - pos, &n, &rc);
    *outlen = pos + n;
    return st;
  }
#else
  *adler = (uint32_t)adler32(adler32(0L, Z_NULL, 0), data, (uInt)len);
#endif
#ifdef GS_HAVE_LIBDEFLATE
  (void)dict;
  (void)dictlen;
  if (level > 0) {
    if (tl_level != level) {
      if (tl_comp) libdeflate_free_compressor(tl_comp);
      tl_comp = libdeflate_alloc_compressor(level);
      tl_level = tl_comp ? level : -1;
      if (!tl_comp) return GS_ERR_NOMEM;
    }
    size_t n = libdeflate_deflate_compress(tl_comp, data, len, out + pos, cap - pos - 8);
    if (n == 0) return GS_ERR_PNG;
    if (!last && make_non_final(out + pos, &n) != 0) return GS_ERR_PNG;
    *outlen = pos + n;
    return GS_OK;
  }
#endif
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return GS_ERR_NOMEM;
  gs_status st = GS_OK;
  if (dict && dictlen && deflateSetDictionary(&z, dict, (uInt)dictlen) != Z_OK) st = GS_ERR_PNG;
  z.next_out = out + pos;
  z.avail_out = (uInt)(cap - pos);
  const uint8_t *p = data;
  size_t left = len;
  while (st == GS_OK) {
    uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
    z.next_in = (Bytef *)p;
    z.avail_in = chunk;
    p += chunk;
    left -= chunk;
    int flush = left ? Z_NO_FLUSH : (last ? Z_FINISH : Z_SYNC_FLUSH);
    int rc = deflate(&z, flush);
    if (flush == Z_FINISH ? rc != Z_STREAM_END : (rc != Z_OK || z.avail_in != 0)) st = GS_ERR_PNG;
    if (!left) break;
  }
  *outlen = pos + z.total_out;
  deflateEnd(&z);
  return st;
}

void gs_png_thread_cleanup(void) {
#ifdef GS_HAVE_ISAL
  gs_png_isal_thread_cleanup();
#endif
#ifdef GS_HAVE_LIBDEFLATE
  if (tl_comp) libdeflate_free_compressor(tl_comp);
  tl_comp = NULL;
  tl_level = -1;
#endif
}

const char *gs_png_deflate_engine(void) {
#ifdef GS_HAVE_ISAL
  return "isa-l";
#elif defined(GS_HAVE_LIBDEFLATE)
  return "libdeflate";
#else
  return "zlib";
#endif
}

const char *gs_png_deflate_engine_at(int level) {
#ifdef GS_HAVE_ISAL
  if (gs_png_isal_level(level) >= 0) return "isa-l";
#endif
#ifdef GS_HAVE_LIBDEFLATE
  if (level > 0) return "libdeflate";
#endif
  return "zlib";
}

uint32_t gs_png_adler_combine(uint32_t a1, uint32_t a2, size_t len2) {
  return (uint32_t)adler32_combine(a1, a2, (z_off_t)len2);
}

/* ------------------------------------------------------------------ writer */

struct gs_png_writer {
  FILE *fp;
  char *tmp_path, *final_path;
};

static atomic_uint g_tmp_counter;

static int put_chunk(FILE *fp, const char type[4], const uint8_t *data, size_t len) {
  uint8_t hdr[8] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len,
                    (uint8_t)type[0],     (uint8_t)type[1],     (uint8_t)type[2],    (uint8_t)type[3]};
#ifdef GS_HAVE_ISAL
  uint32_t crc = gs_png_isal_crc32(0, (const uint8_t *)type, 4);
  if (len) crc = gs_png_isal_crc32(crc, data, len);
#else
  uLong crc = crc32(0L, (const Bytef *)type, 4);
  if (len) crc = crc32(crc, data, (uInt)len);
#endif
  uint8_t c[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
  return fwrite(hdr, 1, 8, fp) == 8 && (len == 0 || fwrite(data, 1, len, fp) == len) && fwrite(c, 1, 4, fp) == 4 ? 0
                                                                                                                 : -1;
}

static void be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

gs_status gs_png_writer_open(const char *final_path, const gs_png_format *fmt, gs_png_writer **out, char *err,
                             size_t errlen) {
  *out = NULL;
  gs_png_writer *w = calloc(1, sizeof *w);
  size_t plen = strlen(final_path);
  if (!w || !(w->final_path = strdup(final_path)) || !(w->tmp_path = malloc(plen + 64))) {
    gs_png_writer_abort(w);
    return fail(err, errlen, GS_ERR_NOMEM, "%s", "out of memory");
  }
  const char *slash = strrchr(final_path, '/');
  int dirlen = slash ? (int)(slash - final_path + 1) : 0;
  snprintf(w->tmp_path, plen + 64, "%.*s.%s.tmp-%ld-%u", dirlen, final_path, final_path + dirlen, (long)getpid(),
           atomic_fetch_add(&g_tmp_counter, 1u));
  int fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 || !(w->fp = fdopen(fd, "wb"))) {
    int e = errno;
    if (fd >= 0) close(fd);
    free(w->tmp_path);
    w->tmp_path = NULL;
    gs_png_writer_abort(w);
    snprintf(err, errlen, "writing %s: %s", final_path, strerror(e));
    return GS_ERR_IO;
  }
  setvbuf(w->fp, NULL, _IOFBF, 1 << 20);
  static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  uint8_t ihdr[13];
  be32(ihdr, fmt->width);
  be32(ihdr + 4, fmt->height);
  ihdr[8] = (uint8_t)fmt->depth;
  static const uint8_t colour_type[5] = {0, 0, 4, 2, 6}; /* grey, grey+alpha, RGB, RGBA */
  ihdr[9] = colour_type[fmt->channels];
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  int bad = fwrite(sig, 1, 8, w->fp) != 8 || put_chunk(w->fp, "IHDR", ihdr, 13);
  if (fmt->has_srgb) {
    uint8_t intent = (uint8_t)fmt->srgb_intent;
    bad |= put_chunk(w->fp, "sRGB", &intent, 1);
  }
  if (fmt->has_gamma) {
    uint8_t g[4];
    be32(g, fmt->gamma);
    bad |= put_chunk(w->fp, "gAMA", g, 4);
  }
  static const char sw[] = "Software\0gpustencil " GS_VERSION;
  bad |= put_chunk(w->fp, "tEXt", (const uint8_t *)sw, sizeof sw - 1);
  if (bad) {
    snprintf(err, errlen, "writing %s: %s", w->final_path, strerror(errno));
    gs_png_writer_abort(w);
    return GS_ERR_IO;
  }
  *out = w;
  return GS_OK;
}

gs_status gs_png_writer_idat(gs_png_writer *w, const uint8_t *data, size_t len, char *err, size_t errlen) {
  const size_t max_chunk = (size_t)1 << 24;
  while (len) {
    size_t n = len > max_chunk ? max_chunk : len;
    if (put_chunk(w->fp, "IDAT", data, n)) {
      snprintf(err, errlen, "writing %s: %s", w->final_path, strerror(errno));
      return GS_ERR_IO;
    }
    data += n;
    len -= n;
  }
  return GS_OK;
}

gs_status gs_png_writer_finish(gs_png_writer *w, uint32_t adler, int overwrite, char *err, size_t errlen) {
  uint8_t a[4];
  be32(a, adler);
  gs_status st = GS_OK;
  if (put_chunk(w->fp, "IDAT", a, 4) || put_chunk(w->fp, "IEND", NULL, 0) || fflush(w->fp) != 0) {
    snprintf(err, errlen, "writing %s: %s", w->final_path, strerror(errno));
    st = GS_ERR_IO;
  }
  if (fclose(w->fp) != 0 && st == GS_OK) {
    snprintf(err, errlen, "writing %s: %s", w->final_path, strerror(errno));
    st = GS_ERR_IO;
  }
  w->fp = NULL;
  if (st == GS_OK) {
    if (overwrite) {
      if (rename(w->tmp_path, w->final_path) != 0) {
        snprintf(err, errlen, "rename to %s: %s", w->final_path, strerror(errno));
        st = GS_ERR_IO;
      }
    } else if (link(w->tmp_path, w->final_path) != 0) {
      int e = errno;
      struct stat sb;
      if (e == EEXIST) {
        snprintf(err, errlen, "%s", "output appeared meanwhile; not replaced (use --overwrite)");
        st = GS_ERR_EXISTS;
      } else if (stat(w->final_path, &sb) != 0 && rename(w->tmp_path, w->final_path) == 0) {
        /* file system without hard links: plain rename after the check */
      } else {
        snprintf(err, errlen, "rename to %s: %s", w->final_path, strerror(e));
        st = GS_ERR_IO;
      }
    }
  }
  unlink(w->tmp_path); /* after link(), or on failure; ENOENT after rename */
  free(w->tmp_path);
  free(w->final_path);
  free(w);
  return st;
}

void gs_png_writer_abort(gs_png_writer *w) {
  if (!w) return;
  if (w->fp) fclose(w->fp);
  if (w->tmp_path) unlink(w->tmp_path);
  free(w->tmp_path);
  free(w->final_path);
  free(w);
}

gs_status gs_png_write_image(const char *path, const gs_png_format *fmt, const uint8_t *rows, int level, char *err,
                             size_t errlen) {
  size_t rowbytes = gs_png_row_bytes(fmt), len = (rowbytes + 1) * fmt->height;
  uint8_t *filtered = gs_xmalloc(len), *z = gs_xmalloc(gs_png_deflate_bound(len));
  gs_png_filter_rows(rows, fmt->height, rowbytes, fmt->channels * fmt->depth / 8, NULL, GS_PNG_FILTER_SUB, filtered);
  size_t zlen = 0;
  uint32_t adler = 0;
  gs_png_writer *w = NULL;
  gs_status st = gs_png_deflate_piece(filtered, len, NULL, 0, level, 1, 1, z, &zlen, &adler);
  if (st != GS_OK) snprintf(err, errlen, "compression failed");
  if (st == GS_OK) st = gs_png_writer_open(path, fmt, &w, err, errlen);
  if (st == GS_OK) st = gs_png_writer_idat(w, z, zlen, err, errlen);
  if (st == GS_OK) {
    st = gs_png_writer_finish(w, adler, 1, err, errlen);
  } else if (w) {
    gs_png_writer_abort(w);
  }
  free(filtered);
  free(z);
  return st;
}

/* The fast read path: see png_fast.h. Rules that decide what it takes follow
 * libpng 1.6 where libpng would read a chunk differently from how we do (colour
 * chunks, chunk size limits); every such case is left to libpng. */
#include "png_fast.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "png_isal.h"

#define GS_FAST_INBUF (256u << 10) /* file bytes read at once */
/* Filtered bytes inflated per step: small enough that unfiltering and
 * converting them again find them in the L2 cache. */
#define GS_FAST_STEP (128u << 10)
/* libpng's limit on the length of a chunk other than IDAT (pnglibconf.h). */
#define GS_FAST_CHUNK_MAX 8000000u
/* Rows unfiltered together, with the row above them (unfilter_rows). */
#define GS_LANES 16
#define GS_GAMMA_SRGB 45455u

/* How a decoded file row becomes an output row. */
enum { K_COPY, K_SWAP16, K_RGB8, K_RGB16, K_PAL };

struct gs_png_fast {
  int fd;
  uint8_t *buf; /* file bytes read ahead: [pos, len) not yet used */
  size_t pos, len;
  int io_errno;
  uint32_t chunk_left; /* bytes of the current IDAT not yet given to inflate */
  uint32_t crc;        /* CRC-32 of the current chunk so far */
  uint64_t idat_limit; /* longest IDAT libpng accepts for this image */
  int idat_ended;      /* the chunk after the last IDAT has been started */
  uint32_t after_len;  /* ... and its length and type */
  char after_type[5];
  struct inflate_state inf;
  gs_png_format fmt;
  int colour, depth, bpp, kind, alpha; /* file's colour type, bits, bytes per pixel */
  size_t raw_row;                      /* bytes of a file row without its filter byte */
  uint8_t *zbuf;                       /* filtered rows of one step */
  uint32_t zrows;
  uint8_t *prev; /* the last unfiltered row (zeros above the first) */
  uint32_t next_row;
  int npal;
  uint8_t pal_grey[256], pal_alpha[256];
};

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static gs_status fail(char *err, size_t errlen, gs_status st, const char *what) {
  snprintf(err, errlen, "%s", what);
  return st;
}

/* Makes n bytes (<= GS_FAST_INBUF) available at buf + pos. Moves the unread
 * bytes, so only while the inflater holds no pointer into buf. */
static int need(gs_png_fast *r, size_t n) {
  if (r->len - r->pos >= n) return 0;
  memmove(r->buf, r->buf + r->pos, r->len - r->pos);
  r->len -= r->pos;
  r->pos = 0;
  while (r->len < n) {
    ssize_t k = read(r->fd, r->buf + r->len, GS_FAST_INBUF - r->len);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) r->io_errno = errno;
    if (k <= 0) return -1;
    r->len += (size_t)k;
  }
  return 0;
}

static gs_status truncated(gs_png_fast *r, char *err, size_t errlen) {
  if (r->io_errno) {
    snprintf(err, errlen, "read error: %s", strerror(r->io_errno));
    return GS_ERR_IO;
  }
  return fail(err, errlen, GS_ERR_FORMAT, "truncated file (unexpected end of data)");
}

static int valid_type(const char *t) {
  for (int i = 0; i < 4; ++i)
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z'))) return 0;
  return 1;
}

/* Reads a chunk's length and type and starts its CRC. */
static gs_status chunk_header(gs_png_fast *r, uint32_t *len, char type[5], char *err, size_t errlen) {
  if (need(r, 8)) return truncated(r, err, errlen);
  *len = be32(r->buf + r->pos);
  memcpy(type, r->buf + r->pos + 4, 4);
  type[4] = 0;
  r->crc = crc32_gzip_refl(0, r->buf + r->pos + 4, 4);
  gs_png_isal_settle();
  r->pos += 8;
  if (*len > 0x7fffffffu || !valid_type(type)) return fail(err, errlen, GS_ERR_FORMAT, "bad chunk length or type");
  return GS_OK;
}

static gs_status check_crc(gs_png_fast *r, const char *type, char *err, size_t errlen) {
  if (need(r, 4)) return truncated(r, err, errlen);
  uint32_t want = be32(r->buf + r->pos);
  r->pos += 4;
  if (want != r->crc) {
    snprintf(err, errlen, "%s: CRC error", type);
    return GS_ERR_FORMAT;
  }
  return GS_OK;
}

/* Reads (dst != NULL) or skips len bytes of chunk data, then checks the CRC. */
static gs_status chunk_body(gs_png_fast *r, uint8_t *dst, uint32_t len, const char *type, char *err, size_t errlen) {
  while (len) {
    if (need(r, 1)) return truncated(r, err, errlen);
    size_t n = r->len - r->pos < len ? r->len - r->pos : len;
    r->crc = crc32_gzip_refl(r->crc, r->buf + r->pos, n);
    gs_png_isal_settle();
    if (dst) memcpy(dst, r->buf + r->pos, n), dst += n;
    r->pos += n;
    len -= (uint32_t)n;
  }
  return check_crc(r, type, err, errlen);
}

/* Rec. 709 luma weights on stored values, in 1/32768 (as png_io.c). */
#define GS_WR 6966u
#define GS_WG 23436u
#define GS_WB 2366u

static int parse_ihdr(gs_png_fast *r, const uint8_t *d) {
  uint32_t w = be32(d), h = be32(d + 4);
  int depth = d[8], colour = d[9];
  if (w == 0 || h == 0 || w > GS_PNG_MAX_SIDE || h > GS_PNG_MAX_SIDE || (uint64_t)w * h > GS_PNG_MAX_PIXELS) return -1;
  if (d[10] != 0 || d[11] != 0 || d[12] != 0) return -1; /* method, filter, interlace */
  static const int chans[7] = {1, 0, 3, 1, 2, 0, 4};
  if (colour > 6 || chans[colour] == 0 || !(depth == 8 || (depth == 16 && colour != 3))) return -1;
  r->colour = colour;
  r->depth = depth;
  r->bpp = chans[colour] * depth / 8;
  r->raw_row = (size_t)w * (size_t)r->bpp;
  r->fmt.width = w;
  r->fmt.height = h;
  r->fmt.depth = depth;
  r->fmt.channels = (colour == 4 || colour == 6) ? 2 : 1;
  r->alpha = r->fmt.channels == 2;
  static const int kinds[7] = {K_COPY, 0, K_RGB8, K_PAL, K_COPY, 0, K_RGB8};
  r->kind = kinds[colour];
  if (depth == 16) r->kind = (colour == 2 || colour == 6) ? K_RGB16 : K_SWAP16;
  /* libpng's IDAT length limit (png_check_chunk_length in libpng 1.6). */
  uint64_t factor = (uint64_t)w * (uint64_t)chans[colour] * (depth > 8 ? 2 : 1) + 1;
  uint64_t lim = h > 0xffffffffu / factor ? 0x7fffffffu : h * factor;
  lim += 6 + 5 * (lim / (factor > 32566 ? 32566 : factor) + 1);
  r->idat_limit = lim < 0x7fffffffu ? 0x7fffffffu : lim;
  return 0;
}

static void set_palette(gs_png_fast *r, const uint8_t *p, int n) {
  r->npal = n;
  for (int i = 0; i < n; ++i, p += 3)
    r->pal_grey[i] = (uint8_t)((GS_WR * p[0] + GS_WG * p[1] + GS_WB * p[2] + 16384u) >> 15);
  memset(r->pal_alpha, 255, sizeof r->pal_alpha);
}

enum { SEEN_IHDR = 1, SEEN_PLTE = 2, SEEN_TRNS = 4, SEEN_GAMA = 8, SEEN_SRGB = 16 };

/* One chunk before the first IDAT: 1 when it was the IDAT, 0 when read,
 * -1 when the file is for libpng, -2 on a read error (err set). */
static int header_chunk(gs_png_fast *r, int *seen, uint32_t *gamma, char *err, size_t errlen) {
  uint32_t len;
  char t[5];
  uint8_t d[768];
  if (chunk_header(r, &len, t, err, errlen) != GS_OK) return -1;
  int is = !strcmp(t, "IHDR"), ok = 1;
  if (is != !(*seen & SEEN_IHDR)) return -1; /* IHDR first, once */
  if (!strcmp(t, "IDAT")) {
    if (r->colour == 3 && !(*seen & SEEN_PLTE)) return -1;
    r->chunk_left = len;
    return len > r->idat_limit ? -1 : 1;
  }
  int plte = !strcmp(t, "PLTE"), trns = !strcmp(t, "tRNS"), gama = !strcmp(t, "gAMA"), srgb = !strcmp(t, "sRGB");
  if (is) ok = len == 13;
  if (plte)
    ok = !(*seen & (SEEN_PLTE | SEEN_TRNS)) && len % 3 == 0 && len >= 3 && len <= 768 && r->colour != 0 &&
         r->colour != 4 && (r->colour != 3 || len / 3 <= 256u);
  if (trns) ok = r->colour == 3 && (*seen & SEEN_PLTE) && !(*seen & SEEN_TRNS) && len >= 1 && len <= (uint32_t)r->npal;
  if (gama) ok = len == 4 && !(*seen & (SEEN_GAMA | SEEN_PLTE));
  if (srgb) ok = len == 1 && !(*seen & (SEEN_SRGB | SEEN_PLTE));
  int modelled = is || plte || trns || gama || srgb;
  if (!ok || (!modelled && !(t[0] & 0x20)) || !strcmp(t, "iCCP") || !strcmp(t, "cHRM") || len > GS_FAST_CHUNK_MAX)
    return -1; /* malformed, unknown critical, colour chunks we do not model, too long */
  if (chunk_body(r, modelled ? d : NULL, len, t, err, errlen) != GS_OK) return -1;
  if (is && parse_ihdr(r, d) != 0) return -1;
  if (plte && r->colour == 3) set_palette(r, d, (int)(len / 3));
  if (trns) memcpy(r->pal_alpha, d, len), r->fmt.channels = 2, r->alpha = 1;
  if (gama && ((*gamma = be32(d)) < 16 || *gamma > 625000000u)) return -1;
  if (srgb && d[0] > 3) return -1;
  if (srgb) r->fmt.srgb_intent = d[0];
  *seen |= is * SEEN_IHDR | plte * SEEN_PLTE | trns * SEEN_TRNS | gama * SEEN_GAMA | srgb * SEEN_SRGB;
  return 0;
}

/* Reads the signature and the chunks before the first IDAT. */
static gs_status read_head(gs_png_fast *r, char *err, size_t errlen) {
  static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (need(r, 8) || memcmp(r->buf, sig, 8) != 0) return fail(err, errlen, GS_ERR_UNSUPPORTED, "not a PNG file");
  r->pos = 8;
  int seen = 0, rc;
  uint32_t gamma = 0;
  while ((rc = header_chunk(r, &seen, &gamma, err, errlen)) == 0)
    ;
  if (rc < 0) return fail(err, errlen, GS_ERR_UNSUPPORTED, "not for the fast path");
  /* libpng reports sRGB as gamma 1/2.2 too, and distrusts a gAMA that says otherwise. */
  if ((seen & SEEN_SRGB) && (seen & SEEN_GAMA) && gamma != GS_GAMMA_SRGB)
    return fail(err, errlen, GS_ERR_UNSUPPORTED, "gAMA and sRGB disagree");
  r->fmt.has_srgb = (seen & SEEN_SRGB) != 0;
  r->fmt.has_gamma = (seen & (SEEN_SRGB | SEEN_GAMA)) != 0;
  r->fmt.gamma = (seen & SEEN_GAMA) ? gamma : GS_GAMMA_SRGB;
  if (!r->fmt.has_gamma) r->fmt.gamma = 0;
  return GS_OK;
}

gs_status gs_png_fast_open(const char *path, gs_png_fast **out, gs_png_format *fmt, char *err, size_t errlen) {
  *out = NULL;
  gs_png_fast *r = calloc(1, sizeof *r);
  if (r) r->fd = -1;
  if (!r || !(r->buf = malloc(GS_FAST_INBUF))) {
    gs_png_fast_close(r);
    return fail(err, errlen, GS_ERR_NOMEM, "out of memory");
  }
  char why[256];
  r->fd = gs_open_regular(path, why, sizeof why);
  if (r->fd < 0) {
    snprintf(err, errlen, "%s", why);
    gs_png_fast_close(r);
    return GS_ERR_IO;
  }
  gs_status st = read_head(r, err, errlen);
  if (st == GS_OK) {
    size_t stride = r->raw_row + 1;
    r->zrows = stride >= GS_FAST_STEP ? 1 : (uint32_t)(GS_FAST_STEP / stride);
#ifdef __SSE2__
    /* whole groups for unfilter_rows (a step up to twice as long for one) */
    if (r->zrows >= GS_LANES - 1)
      r->zrows -= r->zrows % (GS_LANES - 1);
    else if (stride * (GS_LANES - 1) <= 2 * GS_FAST_STEP)
      r->zrows = GS_LANES - 1;
#endif
    if (r->zrows > r->fmt.height) r->zrows = r->fmt.height;
    r->zbuf = malloc(stride * r->zrows);
    r->prev = calloc(1, r->raw_row);
    if (!r->zbuf || !r->prev) st = fail(err, errlen, GS_ERR_NOMEM, "out of memory");
  }
  if (st != GS_OK) {
    gs_png_fast_close(r);
    return st;
  }
  isal_inflate_init(&r->inf);
  r->inf.crc_flag = ISAL_ZLIB; /* parse the zlib header, check the Adler-32 */
  *fmt = r->fmt;
  *out = r;
  return GS_OK;
}

void gs_png_fast_close(gs_png_fast *r) {
  if (!r) return;
  if (r->fd >= 0) close(r->fd);
  free(r->buf);
  free(r->zbuf);
  free(r->prev);
  free(r);
}

/* ----------------------------------------------------------- image data */

const char *gs_png_isal_inflate_reason(int rc) {
  static const struct {
    int rc;
    const char *text;
  } reasons[] = {
      {ISAL_INVALID_BLOCK, "invalid deflate block"},
      {ISAL_INVALID_SYMBOL, "invalid Huffman code"},
      {ISAL_INVALID_LOOKBACK, "match distance too far back"},
      {ISAL_INVALID_WRAPPER, "bad zlib header"},
      {ISAL_UNSUPPORTED_METHOD, "zlib header names a method other than deflate"},
      {ISAL_INCORRECT_CHECKSUM, "Adler-32 check failed"},
      {ISAL_NEED_DICT, "zlib preset dictionary (not allowed in PNG)"},
  };
  for (size_t i = 0; i < sizeof reasons / sizeof *reasons; ++i)
    if (reasons[i].rc == rc) return reasons[i].text;
  return "inflate error";
}

/* Gives the inflater the next bytes of IDAT data, reading chunk boundaries
 * (CRC, next header) on the way; *more = 0 once the IDAT chunks have ended.
 * Only while the inflater has no input left. */
static gs_status feed(gs_png_fast *r, int *more, char *err, size_t errlen) {
  *more = 1;
  while (r->chunk_left == 0) {
    if (r->idat_ended) {
      *more = 0;
      return GS_OK;
    }
    uint32_t len;
    char t[5];
    gs_status st = check_crc(r, "IDAT", err, errlen);
    if (st == GS_OK) st = chunk_header(r, &len, t, err, errlen);
    if (st != GS_OK) return st;
    if (strcmp(t, "IDAT") != 0) {
      r->idat_ended = 1;
      r->after_len = len;
      memcpy(r->after_type, t, 5);
      *more = 0;
      return GS_OK;
    }
    if (len > r->idat_limit) return fail(err, errlen, GS_ERR_FORMAT, "IDAT: chunk data is too large");
    r->chunk_left = len;
  }
  if (need(r, 1)) return truncated(r, err, errlen);
  size_t n = r->len - r->pos < r->chunk_left ? r->len - r->pos : r->chunk_left;
  r->crc = crc32_gzip_refl(r->crc, r->buf + r->pos, n);
  gs_png_isal_settle();
  r->inf.next_in = r->buf + r->pos;
  r->inf.avail_in = (uint32_t)n;
  r->pos += n;
  r->chunk_left -= (uint32_t)n;
  return GS_OK;
}

/* A damaged chunk shows first as bad deflate data: when the rest of the chunk
 * fails its CRC, that is the better reason. */
static gs_status inflate_failed(gs_png_fast *r, int rc, char *err, size_t errlen) {
  uint32_t left = r->chunk_left;
  r->chunk_left = 0;
  r->inf.avail_in = 0;
  gs_status st = chunk_body(r, NULL, left, "IDAT", err, errlen);
  if (st != GS_OK) return st;
  const char *why = gs_png_isal_inflate_reason(rc);
  if (rc == ISAL_INCORRECT_CHECKSUM && r->inf.total_out == 0) why = "bad zlib header (check bits)";
  snprintf(err, errlen, "IDAT: corrupt compressed data: %s (ISA-L %d)", why, rc);
  return GS_ERR_FORMAT;
}

/* One isal_inflate() call after feeding input when none is left. */
static gs_status inflate_step(gs_png_fast *r, char *err, size_t errlen) {
  int more = 1;
  if (r->inf.avail_in == 0) {
    gs_status st = feed(r, &more, err, errlen);
    if (st != GS_OK) return st;
  }
  /* Called even without input: ISA-L may still hold decoded bytes. */
  uint32_t in0 = r->inf.avail_in, out0 = r->inf.avail_out;
  int rc = isal_inflate(&r->inf);
  gs_png_isal_settle();
  if (rc < 0 || rc == ISAL_NEED_DICT) return inflate_failed(r, rc, err, errlen);
  if (r->inf.avail_in == in0 && r->inf.avail_out == out0 && r->inf.block_state != ISAL_BLOCK_FINISH)
    return fail(err, errlen, GS_ERR_FORMAT,
                more ? "IDAT: corrupt compressed data: inflate made no progress"
                     : "not enough image data (the IDAT chunks end early)");
  return GS_OK;
}

static gs_status inflate_to(gs_png_fast *r, uint8_t *dst, size_t n, char *err, size_t errlen) {
  r->inf.next_out = dst;
  r->inf.avail_out = (uint32_t)n;
  while (r->inf.avail_out) {
    if (r->inf.block_state == ISAL_BLOCK_FINISH)
      return fail(err, errlen, GS_ERR_FORMAT, "not enough image data (the zlib stream ends early)");
    gs_status st = inflate_step(r, err, errlen);
    if (st != GS_OK) return st;
  }
  return GS_OK;
}

#define GS_INLINE static inline __attribute__((always_inline))

/* Some loops are also built for AVX2, chosen at load time (an ifunc; the
 * build itself targets baseline x86-64): the RGB to grey conversions ran
 * 2.4x faster so (docs/performance.md, "PNG codec"). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define GS_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define GS_AVX2_CLONE
#endif

GS_INLINE uint8_t paeth(int a, int b, int c) {
  int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
  int m = pa <= pb ? a : b, pm = pa <= pb ? pa : pb;
  return (uint8_t)(pm <= pc ? m : c);
}

/* Reverses one row's filter in place; p is the unfiltered row above. With
 * bpp a constant (see unfilter) the compiler unrolls the pixel's bytes and
 * vectorises up, and sub/avg/paeth across the bytes of a pixel. */
GS_INLINE void unfilter_bpp(int type, uint8_t *restrict x, const uint8_t *restrict p, size_t n, size_t bpp) {
  switch (type) {
  case 1:
    for (size_t i = bpp; i < n; ++i)
      x[i] = (uint8_t)(x[i] + x[i - bpp]);
    break;
  case 2:
    for (size_t i = 0; i < n; ++i)
      x[i] = (uint8_t)(x[i] + p[i]);
    break;
  case 3:
    for (size_t i = 0; i < bpp; ++i)
      x[i] = (uint8_t)(x[i] + (p[i] >> 1));
    for (size_t i = bpp; i < n; ++i)
      x[i] = (uint8_t)(x[i] + ((x[i - bpp] + p[i]) >> 1));
    break;
  case 4:
    for (size_t i = 0; i < bpp; ++i)
      x[i] = (uint8_t)(x[i] + p[i]);
    for (size_t i = bpp; i < n; ++i)
      x[i] = (uint8_t)(x[i] + paeth(x[i - bpp], p[i], p[i - bpp]));
    break;
  default:
    break;
  }
}

/* One specialised unfilter_bpp per bytes-per-pixel a supported format has. */
#define GS_UNFILTER_FOR(B)                                                                                             \
  static void unfilter_##B(int type, uint8_t *restrict x, const uint8_t *restrict p, size_t n) {                       \
    unfilter_bpp(type, x, p, n, B);                                                                                    \
  }
GS_UNFILTER_FOR(1)
GS_UNFILTER_FOR(2)
GS_UNFILTER_FOR(3)
GS_UNFILTER_FOR(4)
GS_UNFILTER_FOR(6)
GS_UNFILTER_FOR(8)

typedef void (*unfilter_fn)(int type, uint8_t *restrict x, const uint8_t *restrict p, size_t n);
static const unfilter_fn unfilter_by_bpp[9] = {
    [1] = unfilter_1, [2] = unfilter_2, [3] = unfilter_3, [4] = unfilter_4, [6] = unfilter_6, [8] = unfilter_8};

/* bpp is one that parse_ihdr accepts: 1, 2, 3, 4, 6 or 8. */
static void unfilter(int type, uint8_t *restrict x, const uint8_t *restrict p, size_t n, int bpp) {
  unfilter_by_bpp[bpp](type, x, p, n);
}

#ifdef __SSE2__
/* Several rows at once, for avg and Paeth (and sub), whose byte-by-byte
 * recurrence along a row costs about 4 cycles a byte one row at a time. Byte
 * i of a row depends only on bytes left of it and on the row above at i and
 * i - bpp, so 16 rows can advance together on a diagonal: one SSE2 lane per
 * row, lane 0 the unfiltered row above the group and lane k row k of the
 * group, lane k at byte s - k when the group is at step s. Each step then
 * needs what the previous steps made: "left" is this lane bpp steps back,
 * "up" the lane below one step back, "upper left" the lane below bpp + 1
 * steps back. Blocks of 16 steps are loaded as 16 row vectors at skewed
 * offsets and transposed (and back for the stores). Bytes before a row's
 * start are zero, which is what every filter assumes there. */
#include <emmintrin.h>

/* 16 x 16 bytes: vector i of the result holds byte rev4(i) of every input
 * vector (the four interleaving stages leave the bit-reversed order). */
GS_INLINE void transpose16(__m128i x[GS_LANES]) {
  __m128i t[GS_LANES];
  for (int i = 0; i < 8; ++i) {
    t[i] = _mm_unpacklo_epi8(x[2 * i], x[2 * i + 1]);
    t[i + 8] = _mm_unpackhi_epi8(x[2 * i], x[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    x[i] = _mm_unpacklo_epi16(t[2 * i], t[2 * i + 1]);
    x[i + 8] = _mm_unpackhi_epi16(t[2 * i], t[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    t[i] = _mm_unpacklo_epi32(x[2 * i], x[2 * i + 1]);
    t[i + 8] = _mm_unpackhi_epi32(x[2 * i], x[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    x[i] = _mm_unpacklo_epi64(t[2 * i], t[2 * i + 1]);
    x[i + 8] = _mm_unpackhi_epi64(t[2 * i], t[2 * i + 1]);
  }
}

static const uint8_t rev4[GS_LANES] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

GS_INLINE __m128i absdiff8(__m128i a, __m128i b) {
  return _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
}
GS_INLINE __m128i le8(__m128i a, __m128i b) { /* a <= b, unsigned */
  return _mm_cmpeq_epi8(_mm_min_epu8(a, b), a);
}
GS_INLINE __m128i select8(__m128i m, __m128i a, __m128i b) {
  return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
}

/* paeth() on 16 lanes of bytes: |a + b - 2c| is pa + pb when a - c and b - c
 * have the same sign (saturated: it is only compared with values <= 255),
 * else |pa - pb|. */
GS_INLINE __m128i paeth8(__m128i a, __m128i b, __m128i c) {
  __m128i pa = absdiff8(b, c), pb = absdiff8(a, c);
  __m128i same = _mm_cmpeq_epi8(le8(c, a), le8(c, b));
  __m128i pc = select8(same, _mm_adds_epu8(pa, pb), absdiff8(pa, pb));
  __m128i m = select8(le8(pa, pb), a, b), pm = _mm_min_epu8(pa, pb);
  return select8(le8(pm, pc), m, c);
}

/* Rows rows[1..count] (count < GS_LANES; lanes past count repeat a row and
 * are not stored) of n bytes, filter types[k], rows[0] the unfiltered row
 * above; B bytes per pixel. */
GS_INLINE void group_unfilter(uint8_t *const rows[GS_LANES], const uint8_t types[GS_LANES], int count, size_t n, int B,
                              int with_paeth) {
  uint8_t ms[4][GS_LANES];
  for (int k = 0; k < GS_LANES; ++k)
    for (int t = 0; t < 4; ++t)
      ms[t][k] = types[k] == t + 1 ? 0xff : 0;
  const __m128i msub = _mm_loadu_si128((const void *)ms[0]), mup = _mm_loadu_si128((const void *)ms[1]);
  const __m128i mavg = _mm_loadu_si128((const void *)ms[2]), mpae = _mm_loadu_si128((const void *)ms[3]);
  const __m128i one = _mm_set1_epi8(1);
  /* hy[GS_HIST + j]: the lanes at step s0 + j; the GS_HIST before: steps before s0 (zero at first) */
  enum { GS_HIST = 9 };
  __m128i hy[GS_HIST + GS_LANES];
  for (int i = 0; i < GS_HIST; ++i)
    hy[i] = _mm_setzero_si128();
  size_t end = n + (size_t)count; /* steps: lane count's last byte is at n - 1 + count */
  for (size_t s0 = 0; s0 < end; s0 += GS_LANES) {
    __m128i x[GS_LANES], *y = hy + GS_HIST;
    int fast = s0 >= GS_LANES - 1 && s0 + GS_LANES <= n;
    if (fast) {
      for (int k = 0; k < GS_LANES; ++k)
        x[k] = _mm_loadu_si128((const void *)(rows[k] + s0 - (size_t)k));
    } else {
      uint8_t tmp[GS_LANES][GS_LANES];
      for (int k = 0; k < GS_LANES; ++k) {
        for (int j = 0; j < GS_LANES; ++j) {
          size_t i = s0 + (size_t)j - (size_t)k; /* wraps below zero */
          tmp[k][j] = s0 + (size_t)j >= (size_t)k && i < n ? rows[k][i] : 0;
        }
        x[k] = _mm_loadu_si128((const void *)tmp[k]);
      }
    }
    transpose16(x);
#pragma GCC unroll 16
    for (int j = 0; j < GS_LANES; ++j) {
      __m128i left = hy[GS_HIST + j - B], up = _mm_slli_si128(hy[GS_HIST + j - 1], 1);
      __m128i avg = _mm_sub_epi8(_mm_avg_epu8(left, up), _mm_and_si128(_mm_xor_si128(left, up), one));
      __m128i pred =
          _mm_or_si128(_mm_or_si128(_mm_and_si128(left, msub), _mm_and_si128(up, mup)), _mm_and_si128(avg, mavg));
      if (with_paeth)
        pred = _mm_or_si128(pred, _mm_and_si128(paeth8(left, up, _mm_slli_si128(hy[GS_HIST + j - B - 1], 1)), mpae));
      y[j] = _mm_add_epi8(x[rev4[j]], pred);
    }
    for (int i = 0; i < GS_HIST; ++i) /* the history of the next block */
      hy[i] = hy[i + GS_LANES];
    transpose16(y);
    if (fast) {
      for (int k = 1; k <= count; ++k)
        _mm_storeu_si128((void *)(rows[k] + s0 - (size_t)k), y[rev4[k]]);
    } else {
      for (int k = 1; k <= count; ++k) {
        uint8_t tmp[GS_LANES];
        _mm_storeu_si128((void *)tmp, y[rev4[k]]);
        for (int j = 0; j < GS_LANES; ++j) {
          size_t i = s0 + (size_t)j - (size_t)k;
          if (s0 + (size_t)j >= (size_t)k && i < n) rows[k][i] = tmp[j];
        }
      }
    }
  }
}

#define GS_GROUP_FOR(B)                                                                                                \
  GS_AVX2_CLONE static void group_##B(uint8_t *const rows[GS_LANES], const uint8_t types[GS_LANES], int count,         \
                                      size_t n, int paeth) {                                                           \
    if (paeth)                                                                                                         \
      group_unfilter(rows, types, count, n, B, 1);                                                                     \
    else                                                                                                               \
      group_unfilter(rows, types, count, n, B, 0);                                                                     \
  }
GS_GROUP_FOR(1)
GS_GROUP_FOR(2)
GS_GROUP_FOR(3)
GS_GROUP_FOR(4)
GS_GROUP_FOR(6)
GS_GROUP_FOR(8)

typedef void (*group_fn)(uint8_t *const rows[GS_LANES], const uint8_t types[GS_LANES], int count, size_t n, int paeth);
static const group_fn group_by_bpp[9] = {
    [1] = group_1, [2] = group_2, [3] = group_3, [4] = group_4, [6] = group_6, [8] = group_8};

/* Rows narrower than this, or groups of fewer rows, go one by one. */
#define GS_GROUP_MIN_BYTES 64
#define GS_GROUP_MIN_ROWS 4
#endif

/* Unfilters the k filtered rows at z (stride n + 1, filter byte first; types
 * already checked), above the unfiltered row over the first. */
static void unfilter_rows(uint8_t *z, uint32_t k, const uint8_t *above, size_t n, int bpp) {
  size_t stride = n + 1;
  uint32_t j = 0;
#ifdef __SSE2__
  while (n >= GS_GROUP_MIN_BYTES && k - j >= GS_GROUP_MIN_ROWS) {
    uint8_t *rows[GS_LANES], types[GS_LANES] = {0};
    int count = k - j < GS_LANES - 1 ? (int)(k - j) : GS_LANES - 1, serial = 0, with_paeth = 0;
    rows[0] = (uint8_t *)(uintptr_t)above;
    for (int c = 1; c < GS_LANES; ++c) {
      uint8_t *row = z + (size_t)(j + (uint32_t)(c <= count ? c : count) - 1) * stride;
      rows[c] = row + 1;
      if (c > count) continue;
      types[c] = row[0];
      serial |= row[0] == 1 || row[0] == 3 || row[0] == 4;
      with_paeth |= row[0] == 4;
    }
    if (serial) {
      group_by_bpp[bpp](rows, types, count, n, with_paeth);
    } else { /* none and up: vectorised along the row */
      for (int c = 1; c <= count; ++c)
        unfilter(types[c], rows[c], rows[c - 1], n, bpp);
    }
    above = rows[count];
    j += (uint32_t)count;
  }
#endif
  for (; j < k; ++j) {
    uint8_t *row = z + (size_t)j * stride;
    unfilter(row[0], row + 1, above, n, bpp);
    above = row + 1;
  }
}

/* Big-endian 16-bit samples to host order (the libpng path's png_set_swap). */
GS_AVX2_CLONE static void swap16(const uint8_t *restrict x, uint16_t *restrict d, size_t n) {
  for (size_t i = 0; i < n; ++i)
    d[i] = (uint16_t)(x[2 * i] << 8 | x[2 * i + 1]);
}

GS_AVX2_CLONE static void rgb8(const uint8_t *restrict x, uint8_t *restrict d, uint32_t w, int alpha) {
  if (alpha) {
    for (uint32_t i = 0; i < w; ++i, x += 4) {
      d[2 * i] = (uint8_t)((GS_WR * x[0] + GS_WG * x[1] + GS_WB * x[2] + 16384u) >> 15);
      d[2 * i + 1] = x[3];
    }
  } else {
    for (uint32_t i = 0; i < w; ++i, x += 3)
      d[i] = (uint8_t)((GS_WR * x[0] + GS_WG * x[1] + GS_WB * x[2] + 16384u) >> 15);
  }
}

GS_AVX2_CLONE static void rgb16(const uint8_t *restrict x, uint16_t *restrict d, uint32_t w, int alpha) {
  size_t in_ch = alpha ? 4 : 3, out_ch = alpha ? 2 : 1;
  for (uint32_t i = 0; i < w; ++i, x += 2 * in_ch) {
    uint32_t r = (uint32_t)x[0] << 8 | x[1], g = (uint32_t)x[2] << 8 | x[3], b = (uint32_t)x[4] << 8 | x[5];
    d[out_ch * i] = (uint16_t)((GS_WR * r + GS_WG * g + GS_WB * b + 16384u) >> 15);
    if (alpha) d[out_ch * i + 1] = (uint16_t)(x[6] << 8 | x[7]);
  }
}

static void convert_row(const gs_png_fast *r, const uint8_t *restrict x, uint8_t *restrict d) {
  uint32_t w = r->fmt.width;
  switch (r->kind) {
  case K_COPY:
    memcpy(d, x, r->raw_row);
    break;
  case K_SWAP16:
    swap16(x, (uint16_t *)(void *)d, r->raw_row / 2);
    break;
  case K_RGB8:
    rgb8(x, d, w, r->alpha);
    break;
  case K_RGB16:
    rgb16(x, (uint16_t *)(void *)d, w, r->alpha);
    break;
  default: /* palette; indices past the palette are black, as in libpng */
    if (r->alpha) {
      for (uint32_t i = 0; i < w; ++i) {
        d[2 * i] = r->pal_grey[x[i]];
        d[2 * i + 1] = r->pal_alpha[x[i]];
      }
    } else {
      for (uint32_t i = 0; i < w; ++i)
        d[i] = r->pal_grey[x[i]];
    }
  }
}

gs_status gs_png_fast_rows(gs_png_fast *r, void *dst, uint32_t nrows, char *err, size_t errlen) {
  if (nrows > r->fmt.height - r->next_row) return fail(err, errlen, GS_ERR_USAGE, "read past the last row");
  size_t stride = r->raw_row + 1, out_row = gs_png_row_bytes(&r->fmt);
  uint8_t *d = dst;
  while (nrows) {
    uint32_t k = nrows < r->zrows ? nrows : r->zrows;
    gs_status st = inflate_to(r, r->zbuf, stride * k, err, errlen);
    if (st != GS_OK) return st;
    for (uint32_t j = 0; j < k; ++j)
      if (r->zbuf[(size_t)j * stride] > 4) return fail(err, errlen, GS_ERR_FORMAT, "bad adaptive filter value");
    unfilter_rows(r->zbuf, k, r->prev, r->raw_row, r->bpp);
    for (uint32_t j = 0; j < k; ++j, d += out_row)
      convert_row(r, r->zbuf + (size_t)j * stride + 1, d);
    memcpy(r->prev, r->zbuf + (size_t)(k - 1) * stride + 1, r->raw_row);
    r->next_row += k;
    nrows -= k;
  }
  return GS_OK;
}

/* Runs the inflater to the end of the zlib stream (checking the Adler-32),
 * which must add no bytes, then through IDAT chunks that must hold no more. */
static gs_status end_of_idat(gs_png_fast *r, char *err, size_t errlen) {
  uint8_t extra;
  while (r->inf.block_state != ISAL_BLOCK_FINISH) {
    r->inf.next_out = &extra;
    r->inf.avail_out = 1;
    gs_status st = inflate_step(r, err, errlen);
    if (st != GS_OK) return st;
    if (r->inf.avail_out == 0) return fail(err, errlen, GS_ERR_FORMAT, "too much image data (extra compressed data)");
  }
  for (int more = 1;;) {
    if (r->inf.avail_in || r->chunk_left)
      return fail(err, errlen, GS_ERR_FORMAT, "IDAT: extra data after the end of the zlib stream");
    gs_status st = feed(r, &more, err, errlen);
    if (st != GS_OK || !more) return st;
  }
}

gs_status gs_png_fast_finish(gs_png_fast *r, char *err, size_t errlen) {
  if (r->next_row != r->fmt.height) return fail(err, errlen, GS_ERR_USAGE, "finish before the last row");
  gs_status st = end_of_idat(r, err, errlen);
  uint32_t len = r->after_len;
  char t[5];
  memcpy(t, r->after_type, 5);
  while (st == GS_OK) {
    if (!strcmp(t, "IEND"))
      return len ? fail(err, errlen, GS_ERR_FORMAT, "IEND: bad length") : check_crc(r, t, err, errlen);
    if (!strcmp(t, "IDAT")) return fail(err, errlen, GS_ERR_FORMAT, "IDAT: too many IDATs found");
    if (!(t[0] & 0x20)) {
      snprintf(err, errlen, "%s: unexpected critical chunk after the image data", t);
      return GS_ERR_FORMAT;
    }
    if (len > GS_FAST_CHUNK_MAX) {
      snprintf(err, errlen, "%s: chunk data is too large", t);
      return GS_ERR_FORMAT;
    }
    st = chunk_body(r, NULL, len, t, err, errlen);
    if (st == GS_OK) st = chunk_header(r, &len, t, err, errlen);
  }
  return st;
}

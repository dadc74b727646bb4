/* Streaming PNG input and output, in row strips: memory depends on the strip,
 * not on the image.
 *
 * The reader decodes any PNG (grey 1/2/4/8/16, grey+alpha, RGB, RGBA,
 * palette, tRNS, interlaced) into grey or grey+alpha samples in host byte
 * order: 16-bit input stays 16-bit, everything else becomes 8-bit; colour
 * becomes grey with Rec. 709 weights on the stored values; transparency
 * (alpha or tRNS) becomes an alpha channel.
 *
 * The writer produces a PNG (grey or grey+alpha) whose zlib stream is made of
 * independently compressed pieces (gs_png_deflate_piece), so that pieces of
 * one image can be compressed on several threads and written in order. The
 * file is written under a temporary name in the final folder and renamed when
 * complete. */
#ifndef GS_PNG_IO_H
#define GS_PNG_IO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Documented limits: a side up to 1,000,000 pixels (libpng's default) and
 * at most 2^34 pixels in all. Interlaced images are decoded whole, so they are
 * limited to GS_PNG_MAX_INTERLACED_BYTES of decoded samples. */
#define GS_PNG_MAX_SIDE 1000000u
/* libpng's limits for one file: ancillary chunks it may keep, and the bytes
 * of any one chunk it may allocate (docs/scale.md, "Limits"). */
#define GS_PNG_MAX_CHUNKS 128
#define GS_PNG_MAX_CHUNK_BYTES (8u << 20)
#define GS_PNG_MAX_PIXELS (1ull << 34)
#define GS_PNG_MAX_INTERLACED_BYTES (1ull << 30)

typedef struct gs_png_format {
  uint32_t width, height;
  int depth;    /* 8 or 16: bits per output sample */
  int channels; /* 1 grey, 2 grey + alpha (writer also: 3 RGB, 4 RGBA) */
  /* Colour metadata carried over to the output (see docs/scale.md). */
  int has_gamma;
  uint32_t gamma; /* gAMA value x 100000 */
  int has_srgb;
  int srgb_intent;
} gs_png_format;

/* Bytes of one output row. */
static inline size_t gs_png_row_bytes(const gs_png_format *f) {
  return (size_t)f->width * (size_t)f->channels * (size_t)(f->depth / 8);
}

/* Reads only the signature and IHDR; fills width and height. GS_OK or a
 * reason in err. */
gs_status gs_png_peek(const char *path, uint32_t *width, uint32_t *height, char *err, size_t errlen);

typedef struct gs_png_reader gs_png_reader;

/* Opens path and reads up to the image data. On failure *out is NULL and err
 * holds the reason ("not a PNG file", "IHDR: CRC error", ...).
 * Common non-interlaced files (grey, grey + alpha, RGB, RGBA of 8 or 16 bits,
 * 8-bit palette) are read by the fast path (ISA-L inflate, src/png/png_fast.c);
 * everything else, and every file the fast path finds broken, by libpng, which
 * decides: the same samples, or the same refusal (tests/test_png_read.c). */
gs_status gs_png_reader_open(const char *path, gs_png_reader **out, char *err, size_t errlen);

typedef enum {
  GS_PNG_READ_AUTO,   /* the fast path where it serves, libpng otherwise (the default) */
  GS_PNG_READ_LIBPNG, /* libpng only (the reference) */
  GS_PNG_READ_FAST    /* the fast path only, no fallback: GS_ERR_UNSUPPORTED where it does not serve (tests) */
} gs_png_read_engine;
/* gs_png_reader_open with a chosen engine. */
gs_status gs_png_reader_open_with(const char *path, gs_png_read_engine engine, gs_png_reader **out, char *err,
                                  size_t errlen);
/* "isa-l" while the fast path serves r, else "libpng". */
const char *gs_png_reader_engine(const gs_png_reader *r);
const gs_png_format *gs_png_reader_format(const gs_png_reader *r);
/* Decodes the next nrows rows into dst (rows of gs_png_row_bytes, packed). */
gs_status gs_png_reader_rows(gs_png_reader *r, void *dst, uint32_t nrows, char *err, size_t errlen);
/* Reads past the image data to the end of the file, checking it. */
gs_status gs_png_reader_finish(gs_png_reader *r, char *err, size_t errlen);
void gs_png_reader_close(gs_png_reader *r);

/* PNG row filters; GS_PNG_FILTER_ADAPTIVE picks per row the filter with the
 * smallest sum of absolute signed bytes (libpng's heuristic). */
typedef enum {
  GS_PNG_FILTER_NONE,
  GS_PNG_FILTER_SUB,
  GS_PNG_FILTER_UP,
  GS_PNG_FILTER_AVG,
  GS_PNG_FILTER_PAETH,
  GS_PNG_FILTER_ADAPTIVE
} gs_png_filter;

/* Filters nrows rows of big-endian samples (rowbytes each) into out, which
 * receives nrows * (rowbytes + 1) bytes. prev is the row above the first one
 * (NULL for the image's first row); bpp is bytes per pixel. */
void gs_png_filter_rows(const uint8_t *rows, uint32_t nrows, size_t rowbytes, int bpp, const uint8_t *prev,
                        gs_png_filter filter, uint8_t *out);

/* Largest output of gs_png_deflate_piece for len input bytes. */
size_t gs_png_deflate_bound(size_t len);

/* Compresses one piece of the image's zlib stream: raw deflate primed with
 * dict (the last <= 32 KiB of the previous piece's input; unused with
 * libdeflate and ISA-L, whose pieces are independent), ending on a byte boundary with a non-final empty stored block,
 * or with the final block when last. The first piece starts with the zlib
 * header. *adler is the Adler-32 of data alone. Thread-safe. */
gs_status gs_png_deflate_piece(const uint8_t *data, size_t len, const uint8_t *dict, size_t dictlen, int level,
                               int first, int last, uint8_t *out, size_t *outlen, uint32_t *adler);

/* Frees the calling thread's compressor (call before a worker thread ends). */
void gs_png_thread_cleanup(void);
/* "isa-l", "libdeflate" or "zlib": the main deflate implementation of this
 * build (gs_png_deflate_engine_at says which one serves a given level). */
const char *gs_png_deflate_engine(void);
/* The implementation that compresses at --png-level level: with ISA-L,
 * "isa-l" for 1..3 (its levels 1..3), libdeflate (or zlib) for 4..9, zlib's
 * stored blocks for 0 (docs/scale.md). */
const char *gs_png_deflate_engine_at(int level);

/* Combines the Adler-32 of two consecutive pieces (len2: second's length). */
uint32_t gs_png_adler_combine(uint32_t a1, uint32_t a2, size_t len2);

typedef struct gs_png_writer gs_png_writer;

/* Creates "DIR/.NAME.tmp-PID-N" next to final_path and writes the signature,
 * IHDR and carried metadata. */
gs_status gs_png_writer_open(const char *final_path, const gs_png_format *fmt, gs_png_writer **out, char *err,
                             size_t errlen);
/* Appends compressed bytes of the zlib stream as IDAT chunk(s). */
gs_status gs_png_writer_idat(gs_png_writer *w, const uint8_t *data, size_t len, char *err, size_t errlen);
/* Ends the zlib stream with adler (of all filtered bytes), writes IEND,
 * flushes, closes and renames into place. Without overwrite, an output that
 * appeared meanwhile is not replaced (GS_ERR_EXISTS). Frees w. */
gs_status gs_png_writer_finish(gs_png_writer *w, uint32_t adler, int overwrite, char *err, size_t errlen);
/* Removes the temporary file and frees w. */
void gs_png_writer_abort(gs_png_writer *w);

/* Writes a whole image (8-bit rows, top first, host order for 16-bit
 * samples is not handled: 8-bit only) atomically to path, replacing it. */
gs_status gs_png_write_image(const char *path, const gs_png_format *fmt, const uint8_t *rows, int level, char *err,
                             size_t errlen);

#endif

/* The fast PNG read path (internal to src/png): non-interlaced grey, grey +
 * alpha, RGB and RGBA of 8 or 16 bits and 8-bit palette images, read chunk by
 * chunk with the CRCs checked here, the zlib stream inflated by ISA-L and the
 * rows unfiltered strip by strip. It produces exactly the samples and metadata
 * of the libpng path (docs/scale.md); anything it does not serve, or any error,
 * is for gs_png_reader (png_io.c) to hand to libpng, which decides. */
#ifndef GS_PNG_FAST_H
#define GS_PNG_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "png_io.h"

typedef struct gs_png_fast gs_png_fast;

/* Opens path and reads its chunks up to the first IDAT. GS_OK: *out serves
 * the file and *fmt is filled. GS_ERR_UNSUPPORTED: a file the fast path does
 * not take (interlaced, low bit depth, colour chunks it does not model,
 * unknown critical chunks, ...). Any other status: an error, err says why.
 * In both failure cases *out is NULL. */
gs_status gs_png_fast_open(const char *path, gs_png_fast **out, gs_png_format *fmt, char *err, size_t errlen);
/* Decodes the next nrows rows into dst, as gs_png_reader_rows. */
gs_status gs_png_fast_rows(gs_png_fast *r, void *dst, uint32_t nrows, char *err, size_t errlen);
/* Checks the end of the zlib stream (Adler-32) and the chunks up to IEND. */
gs_status gs_png_fast_finish(gs_png_fast *r, char *err, size_t errlen);
void gs_png_fast_close(gs_png_fast *r);

/* One-line reason for an isal_inflate() return code ("invalid Huffman code"). */
const char *gs_png_isal_inflate_reason(int rc);

#endif

/* ISA-L deflate for PNG pieces: see png_isal.h. */
#include "png_isal.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>

/* ISA-L's levels 1..3 serve --png-level 1..3 one to one. Its level 3 is its
 * densest (about libdeflate's level 2 in size), so 4..9, asked for smaller
 * files, stay with libdeflate; 0 means stored blocks (docs/scale.md). */
int gs_png_isal_level(int level) {
  return level >= 1 && level <= 3 ? level : -1;
}

/* One stream and one level buffer per thread, made on first use: the stream
 * is about 80 KiB and the level-3 buffer about 300 KiB, too much to set up
 * per piece. */
static _Thread_local struct isal_zstream *tl_stream;
static _Thread_local uint8_t *tl_buf;
static _Thread_local size_t tl_size;

static const uint32_t level_buf_size[4] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
                                           ISAL_DEF_LVL3_DEFAULT};

static int work_area(int isal_level) {
  size_t need = level_buf_size[isal_level];
  if (!tl_stream && !(tl_stream = malloc(sizeof *tl_stream))) return -1;
  if (need > tl_size) {
    free(tl_buf);
    tl_size = 0;
    if (!(tl_buf = malloc(need))) return -1;
    tl_size = need;
  }
  return 0;
}

gs_status gs_png_isal_deflate(const uint8_t *data, size_t len, int isal_level, int last, uint8_t *out, size_t cap,
                              size_t *outlen, int *isal_rc) {
  *outlen = 0;
  *isal_rc = 0;
  if (isal_level < 0 || isal_level > 3) return GS_ERR_USAGE;
  if (work_area(isal_level) != 0) return GS_ERR_NOMEM;
  /* avail_in is 32-bit: longer inputs go as several independent parts. */
  const size_t part_max = (size_t)1 << 30;
  size_t pos = 0;
  do {
    size_t part = len > part_max ? part_max : len;
    struct isal_zstream *s = tl_stream;
    isal_deflate_stateless_init(s);
    s->level = (uint32_t)isal_level;
    s->level_buf = tl_buf;
    s->level_buf_size = (uint32_t)level_buf_size[isal_level];
    s->gzip_flag = IGZIP_DEFLATE;
    s->end_of_stream = (uint16_t)(last && part == len);
    s->flush = s->end_of_stream ? NO_FLUSH : FULL_FLUSH;
    s->next_in = (uint8_t *)(uintptr_t)data;
    s->avail_in = (uint32_t)part;
    s->next_out = out + pos;
    s->avail_out = cap - pos > 0xffffffffu ? 0xffffffffu : (uint32_t)(cap - pos);
    int rc = isal_deflate_stateless(s);
    gs_png_isal_settle();
    if (rc != COMP_OK || s->avail_in != 0) {
      *isal_rc = rc;
      return GS_ERR_PNG;
    }
    pos += s->total_out;
    data += part;
    len -= part;
  } while (len);
  *outlen = pos;
  return GS_OK;
}

uint32_t gs_png_isal_adler32(const uint8_t *data, size_t len) {
  uint32_t a = isal_adler32(1, data, len);
  gs_png_isal_settle();
  return a;
}

uint32_t gs_png_isal_crc32(uint32_t crc, const uint8_t *data, size_t len) {
  crc = crc32_gzip_refl(crc, data, len);
  gs_png_isal_settle();
  return crc;
}

void gs_png_isal_thread_cleanup(void) {
  free(tl_stream);
  free(tl_buf);
  tl_stream = NULL;
  tl_buf = NULL;
  tl_size = 0;
}

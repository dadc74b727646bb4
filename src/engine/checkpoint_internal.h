/* What the checkpoint files share (checkpoint.c, checkpoint_read.c, checkpoint3d_file.c); not
 * an interface. Both formats are little-endian, field by field, each header ending with the
 * CRC-32 of the bytes before it (docs/fdtd.md, "Checkpoints" and "Checkpoints of 3D models"). */
#ifndef GS_CHECKPOINT_INTERNAL_H
#define GS_CHECKPOINT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "checkpoint.h"

/* The first 8 bytes of a file (no NUL): a 2D model's rank file, a 3D model's. The first 6
 * are the same: a reader of one kind names the other. */
#define GS_CK_MAGIC "GSCKPT04"
#define GS_CK3_MAGIC "GSCKPT3D"
#define GS_CK_VERSION 4

/* v at p, little-endian; the byte after it. */
static inline uint8_t *gs_ck_put32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; ++k)
    p[k] = (uint8_t)(v >> (8 * k));
  return p + 4;
}

static inline uint8_t *gs_ck_put64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; ++k)
    p[k] = (uint8_t)(v >> (8 * k));
  return p + 8;
}

/* The little-endian value at *p; *p moved past it. */
static inline uint32_t gs_ck_get32(const uint8_t **p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v |= (uint32_t)(*p)[k] << (8 * k);
  *p += 4;
  return v;
}

static inline uint64_t gs_ck_get64(const uint8_t **p) {
  uint64_t v = 0;
  for (int k = 0; k < 8; ++k)
    v |= (uint64_t)(*p)[k] << (8 * k);
  *p += 8;
  return v;
}

/* The header of one rank's file, in memory. On disk (GS_CKPT_HEADER_BYTES,
 * little-endian, field by field; docs/fdtd.md has the offsets) it ends with
 * the CRC-32 of the bytes before it, so that no field is trusted unchecked. */
typedef struct gs_ck_header {
  uint32_t version, header_bytes;
  uint64_t scene_hash;
  int64_t step, iterations, nx, ny;
  int32_t run, g;
  int64_t oi0, oi1, oj0, oj1; /* owned nodes [oi0, oi1) x [oj0, oj1) */
  int64_t pitch, rows;        /* the arrays: floats a row, rows (ghost layers included) */
  int32_t nrx, npml;
  int32_t pml_side[4];   /* scene side of each CPML slab part (-1: none), then its extents */
  int64_t pml_box[4][4]; /* lo, hi, o0, o1 */
  uint64_t data_bytes;
  uint32_t data_crc, header_crc;
} gs_ck_header;

/* h as its bytes on disk, the header CRC computed here. */
void gs_ck_encode(const gs_ck_header *h, uint8_t out[GS_CKPT_HEADER_BYTES]);
/* The fields of the bytes in (which passed gs_ck_header_ok). */
void gs_ck_decode(const uint8_t in[GS_CKPT_HEADER_BYTES], gs_ck_header *h);
/* Whether the header bytes are a checkpoint header of this version whose
 * CRC holds; GS_ERR_FORMAT with the reason in err when not. */
gs_status gs_ck_header_ok(const char *path, const uint8_t in[GS_CKPT_HEADER_BYTES], char *err, size_t errlen);

#endif

/* A 3D model's checkpoint file (checkpoint.h's gs_ckpt3_*): its header (encoded, decoded,
 * checked against the model and the writer's place in its split), every piece of
 * gs_fdtd3_sim_state as one section, written as a temporary and renamed into place, read back
 * only after every header field holds, then the data's CRC. The sets over ranks: checkpoint3d.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint_internal.h"
#include "fsutil.h"

/* A 3D model's file: DIR/checkpoint.gsck on one rank, or one rank's file of
 * a set (checkpoint3d.c: DIR/checkpoint.s<step>.r<rank>.gsck and the
 * manifest), the 2D files' names and life cycle (written as a temporary, then
 * renamed; removed when the run completes). Its header (docs/fdtd.md,
 * "Checkpoints of 3D models"):
 *   0 magic "GSCKPT3D", 8 version, 12 header bytes (156 + 32 sections),
 *   16 scene hash, 24 step, 32 iterations, 40 nx, 48 ny, 56 nz, 64 run,
 *   68 sections, 72 data bytes, 80 data CRC, 84 rank, 88 the split PX PY PZ,
 *   100 zero, 104 the rank's owned nodes lo[3], 128 hi[3],
 *   152 the section table: per section its name (24 bytes, NUL padded) and
 *   its length (8), in gs_fdtd3_sim_state's order,
 *   then the CRC-32 of everything before it; the sections' bytes follow. */
/* Version 2: the CPML sections hold gprMax's Phi (version 1 held RB Phi d).
 * Version 3: the rank, the split and the rank's part. */
#define GS_CK3_VERSION 3
#define GS_CK3_FIXED 152
#define GS_CK3_ENTRY 32
#define GS_CK3_MAX_HEADER (GS_CK3_FIXED + GS_CK3_ENTRY * GS_FDTD3_MAX_STATE + 4)

typedef struct ck3_header {
  uint32_t version, header_bytes;
  uint64_t scene_hash;
  int64_t step, iterations, n[3];
  int32_t run;
  uint32_t nsec;
  uint64_t data_bytes;
  uint32_t data_crc;
  int32_t rank, dims[3]; /* the writer's place in its split (0 and 1x1x1 on one rank) */
  int64_t lo[3], hi[3];  /* the writer's owned nodes */
  char name[GS_FDTD3_MAX_STATE][24];
  uint64_t bytes[GS_FDTD3_MAX_STATE];
} ck3_header;

static size_t ck3_header_size(uint32_t nsec) {
  return GS_CK3_FIXED + (size_t)GS_CK3_ENTRY * nsec + 4;
}

/* h as its bytes on disk (the header CRC computed here); the size. */
static size_t ck3_encode(const ck3_header *h, uint8_t *out) {
  uint8_t *p = out;
  memcpy(p, GS_CK3_MAGIC, 8);
  p = gs_ck_put32(p + 8, h->version);
  p = gs_ck_put32(p, (uint32_t)ck3_header_size(h->nsec));
  p = gs_ck_put64(p, h->scene_hash);
  const int64_t a[] = {h->step, h->iterations, h->n[0], h->n[1], h->n[2]};
  for (int k = 0; k < 5; ++k)
    p = gs_ck_put64(p, (uint64_t)a[k]);
  p = gs_ck_put32(p, (uint32_t)h->run);
  p = gs_ck_put32(p, h->nsec);
  p = gs_ck_put64(p, h->data_bytes);
  p = gs_ck_put32(p, h->data_crc);
  p = gs_ck_put32(p, (uint32_t)h->rank);
  for (int x = 0; x < 3; ++x)
    p = gs_ck_put32(p, (uint32_t)h->dims[x]);
  p = gs_ck_put32(p, 0);
  for (int x = 0; x < 3; ++x)
    p = gs_ck_put64(p, (uint64_t)h->lo[x]);
  for (int x = 0; x < 3; ++x)
    p = gs_ck_put64(p, (uint64_t)h->hi[x]);
  for (uint32_t k = 0; k < h->nsec; ++k) {
    memset(p, 0, 24);
    memcpy(p, h->name[k], strnlen(h->name[k], 23));
    p = gs_ck_put64(p + 24, h->bytes[k]);
  }
  p = gs_ck_put32(p, (uint32_t)crc32(0L, out, (uInt)(p - out)));
  return (size_t)(p - out);
}

/* The fields of in (size bytes, its CRC held), names NUL-ended. */
static void ck3_decode(const uint8_t *in, ck3_header *h) {
  const uint8_t *p = in + 8;
  h->version = gs_ck_get32(&p);
  h->header_bytes = gs_ck_get32(&p);
  h->scene_hash = gs_ck_get64(&p);
  int64_t *a[] = {&h->step, &h->iterations, &h->n[0], &h->n[1], &h->n[2]};
  for (int k = 0; k < 5; ++k)
    *a[k] = (int64_t)gs_ck_get64(&p);
  h->run = (int32_t)gs_ck_get32(&p);
  h->nsec = gs_ck_get32(&p);
  h->data_bytes = gs_ck_get64(&p);
  h->data_crc = gs_ck_get32(&p);
  h->rank = (int32_t)gs_ck_get32(&p);
  for (int x = 0; x < 3; ++x)
    h->dims[x] = (int32_t)gs_ck_get32(&p);
  p += 4;
  for (int x = 0; x < 3; ++x)
    h->lo[x] = (int64_t)gs_ck_get64(&p);
  for (int x = 0; x < 3; ++x)
    h->hi[x] = (int64_t)gs_ck_get64(&p);
  for (uint32_t k = 0; k < h->nsec && k < GS_FDTD3_MAX_STATE; ++k) {
    memcpy(h->name[k], p, 24);
    h->name[k][23] = '\0';
    p += 24;
    h->bytes[k] = gs_ck_get64(&p);
  }
}

/* n bytes to or from fp (a file either written or read, never both); 0 or -1. */
static int ck3_put(const uint8_t *at, size_t n, FILE *fp) {
  return fwrite(at, 1, n, fp) == n ? 0 : -1;
}
static int ck3_get(uint8_t *at, size_t n, FILE *fp) {
  return fread(at, 1, n, fp) == n ? 0 : -1;
}

/* Copies one section between the file and the model through buf (chunk
 * bytes), adding its bytes to the CRC; 0, or -1 when fp fails. */
static int ck3_section(const gs_fdtd3_sim *m, const gs_fdtd3_state *s, FILE *fp, int writing, uint8_t *buf,
                       size_t chunk, uLong *crc) {
  for (size_t off = 0; off < s->bytes; off += chunk) {
    size_t n = s->bytes - off < chunk ? s->bytes - off : chunk;
    uint8_t *at = s->dev ? buf : (uint8_t *)s->host + off;
    if (writing && s->dev) {
      m->b->copy_d2h(buf, (uint8_t *)s->dev + off, n, m->s);
      m->b->stream_sync(m->s);
    }
    if (writing ? ck3_put(at, n, fp) : ck3_get(at, n, fp)) return -1;
    *crc = crc32_z(*crc, at, n);
    if (!writing && s->dev) {
      m->b->copy_h2d((uint8_t *)s->dev + off, buf, n, m->s);
      m->b->stream_sync(m->s);
    }
  }
  return 0;
}

/* The staging buffer's size: the largest section, at most 64 MiB. */
static size_t ck3_chunk(const gs_fdtd3_state *st, int n) {
  size_t chunk = 1;
  for (int k = 0; k < n; ++k)
    chunk = st[k].bytes > chunk ? st[k].bytes : chunk;
  return chunk < ((size_t)64 << 20) ? chunk : ((size_t)64 << 20);
}

static ck3_header ck3_header_of(const gs_fdtd3_sim *m, const gs_ckpt3_place *at, const gs_fdtd3_state *st, int n) {
  ck3_header h = {.version = GS_CK3_VERSION,
                  .scene_hash = m->sc->hash,
                  .step = m->step,
                  .iterations = m->sc->iterations,
                  .n = {m->sc->nx, m->sc->ny, m->sc->nz},
                  .run = m->run,
                  .nsec = (uint32_t)n,
                  .rank = at->rank,
                  .dims = {at->dims[0], at->dims[1], at->dims[2]},
                  .lo = {m->lo[0], m->lo[1], m->lo[2]},
                  .hi = {m->hi[0], m->hi[1], m->hi[2]}};
  for (int k = 0; k < n; ++k) {
    memcpy(h.name[k], st[k].name, strnlen(st[k].name, sizeof h.name[k] - 1)); /* h is zeroed: NUL-ended */
    h.bytes[k] = st[k].bytes;
    h.data_bytes += st[k].bytes;
  }
  return h;
}

/* One rank's place on one rank. */
static const gs_ckpt3_place ck3_one_rank = {0, {1, 1, 1}, -1};

gs_status gs_ckpt3_write(gs_fdtd3_sim *m, const char *path, char *err, size_t errlen) {
  return gs_ckpt3_write_part(m, &ck3_one_rank, path, err, errlen);
}

gs_status gs_ckpt3_write_part(gs_fdtd3_sim *m, const gs_ckpt3_place *at, const char *path, char *err, size_t errlen) {
  gs_fdtd3_sim_sync(m);
  gs_fdtd3_state st[GS_FDTD3_MAX_STATE];
  int n = gs_fdtd3_sim_state(m, st);
  ck3_header h = ck3_header_of(m, at, st, n);
  uint8_t hb[GS_CK3_MAX_HEADER];
  size_t hlen = ck3_encode(&h, hb); /* a placeholder until the data's CRC is known */
  gs_tmpfile t;
  gs_status s = gs_tmpfile_open(&t, path, err, errlen);
  if (s != GS_OK) return s;
  int bad = fwrite(hb, hlen, 1, t.fp) != 1;
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t chunk = ck3_chunk(st, n);
  uint8_t *buf = gs_xmalloc(chunk);
  for (int k = 0; k < n && !bad; ++k)
    bad = ck3_section(m, &st[k], t.fp, 1, buf, chunk, &crc) != 0;
  free(buf);
  h.data_crc = (uint32_t)crc;
  ck3_encode(&h, hb);
  bad |= fseek(t.fp, 0, SEEK_SET) != 0 || fwrite(hb, hlen, 1, t.fp) != 1;
  return gs_tmpfile_commit(&t, bad, 1, err, errlen);
}

gs_status gs_ckpt3_save(gs_fdtd3_sim *m, const char *dir, char *err, size_t errlen) {
  char path[1400];
  snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
  return gs_ckpt3_write(m, path, err, errlen);
}

/* Reads and checks the header bytes of fp (magic, version, size, CRC) into
 * h; GS_OK, or the reason in err. */
static gs_status ck3_read_header(FILE *fp, const char *path, ck3_header *h, char *err, size_t errlen) {
  uint8_t hb[GS_CK3_MAX_HEADER];
  size_t got = fread(hb, 1, 16, fp);
  const uint8_t *p = hb + 8;
  uint32_t version = got == 16 ? gs_ck_get32(&p) : 0, bytes = got == 16 ? gs_ck_get32(&p) : 0;
  uint32_t nsec = bytes > GS_CK3_FIXED ? (bytes - GS_CK3_FIXED - 4) / GS_CK3_ENTRY : 0;
  if (got < 8 || memcmp(hb, GS_CK3_MAGIC, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", path);
  } else if (memcmp(hb, GS_CK_MAGIC, 8) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 2D model; this scene is 3D", path);
  } else if (memcmp(hb, GS_CK3_MAGIC, 8) != 0 || version != GS_CK3_VERSION) {
    snprintf(err, errlen, "%s: 3D checkpoint format version %" PRIu32 "; this gpustencil reads version %d only", path,
             version, GS_CK3_VERSION);
  } else if (bytes < ck3_header_size(1) || bytes > GS_CK3_MAX_HEADER || bytes != ck3_header_size(nsec)) {
    snprintf(err, errlen, "%s: corrupt header (header size %" PRIu32 ")", path, bytes);
  } else if (fread(hb + 16, 1, bytes - 16, fp) != bytes - 16) {
    snprintf(err, errlen, "%s: truncated header", path);
  } else if (crc32(0L, hb, bytes - 4) != (p = hb + bytes - 4, gs_ck_get32(&p))) {
    snprintf(err, errlen, "%s: corrupt header (CRC mismatch)", path);
  } else {
    ck3_decode(hb, h);
    return h->nsec == nsec ? GS_OK : (snprintf(err, errlen, "%s: corrupt header (section count)", path), GS_ERR_FORMAT);
  }
  return GS_ERR_FORMAT;
}

/* Whether a section name read from a file can go into a one-line message. */
static int ck3_printable(const char *name) {
  for (; *name; ++name)
    if (*name < 0x20 || *name > 0x7e) return 0;
  return 1;
}

/* The file's place (rank, split, owned nodes, step) against at and m's
 * part; GS_OK, or the reason in err. */
static gs_status ck3_check_place(const gs_fdtd3_sim *m, const ck3_header *h, const char *p, const gs_ckpt3_place *at,
                                 char *err, size_t errlen) {
  const int64_t *lo = h->lo, *hi = h->hi;
  if (h->rank != at->rank || memcmp(h->dims, at->dims, sizeof h->dims) != 0) {
    snprintf(err, errlen,
             "%s: rank %" PRId32 "'s file of a %" PRId32 "x%" PRId32 "x%" PRId32 " split; this is rank %d of %dx%dx%d",
             p, h->rank, h->dims[0], h->dims[1], h->dims[2], at->rank, at->dims[0], at->dims[1], at->dims[2]);
  } else if (memcmp(lo, m->lo, sizeof h->lo) != 0 || memcmp(hi, m->hi, sizeof h->hi) != 0) {
    snprintf(err, errlen,
             "%s: holds nodes [%lld, %lld) x [%lld, %lld) x [%lld, %lld); this rank's are [%lld, %lld) x [%lld, %lld) "
             "x [%lld, %lld)",
             p, (long long)lo[0], (long long)hi[0], (long long)lo[1], (long long)hi[1], (long long)lo[2],
             (long long)hi[2], (long long)m->lo[0], (long long)m->hi[0], (long long)m->lo[1], (long long)m->hi[1],
             (long long)m->lo[2], (long long)m->hi[2]);
  } else if (at->step >= 0 && h->step != at->step) {
    snprintf(err, errlen, "%s: step %lld; its set's manifest says %lld", p, (long long)h->step, (long long)at->step);
  } else {
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

/* Every header field against the model, its place (at) and the file's
 * length; GS_OK, or the reason in err. m is resumed at the file's step when
 * the rest holds, its state listed into st (n entries). */
static gs_status ck3_check(gs_fdtd3_sim *m, const ck3_header *h, const char *p, const gs_ckpt3_place *at, int64_t size,
                           gs_fdtd3_state *st, int *n, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  if (h->scene_hash != sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene", p);
  } else if (h->n[0] != sc->nx || h->n[1] != sc->ny || h->n[2] != sc->nz || h->iterations != sc->iterations ||
             h->run != m->run) {
    snprintf(err, errlen,
             "%s: does not match this run (grid %lldx%lldx%lld, %lld iterations, run %lld; this run: %lldx%lldx%lld, "
             "%lld, run %d)",
             p, (long long)h->n[0], (long long)h->n[1], (long long)h->n[2], (long long)h->iterations,
             (long long)h->run + 1, (long long)sc->nx, (long long)sc->ny, (long long)sc->nz, (long long)sc->iterations,
             m->run + 1);
  } else if (h->step < 0 || h->step > sc->iterations) {
    snprintf(err, errlen, "%s: step %lld, expected 0..%lld", p, (long long)h->step, (long long)sc->iterations);
  } else if (ck3_check_place(m, h, p, at, err, errlen) != GS_OK) {
    return GS_ERR_FORMAT;
  } else {
    gs_fdtd3_sim_resume(m, h->step);
    *n = gs_fdtd3_sim_state(m, st);
    uint64_t total = 0;
    for (int k = 0; k < *n; ++k) {
      if ((uint32_t)k < h->nsec && !ck3_printable(h->name[k])) {
        snprintf(err, errlen, "%s: section %d: its name is not printable text", p, k + 1);
        return GS_ERR_FORMAT;
      }
      if ((uint32_t)k >= h->nsec || strcmp(h->name[k], st[k].name) != 0 || h->bytes[k] != st[k].bytes) {
        snprintf(err, errlen, "%s: section %d is '%s' of %llu bytes; this model's is '%s' of %zu bytes", p, k + 1,
                 (uint32_t)k < h->nsec ? h->name[k] : "(none)",
                 (unsigned long long)((uint32_t)k < h->nsec ? h->bytes[k] : 0), st[k].name, st[k].bytes);
        return GS_ERR_FORMAT;
      }
      total += st[k].bytes;
    }
    if (h->nsec != (uint32_t)*n) {
      snprintf(err, errlen, "%s: %" PRIu32 " sections; this model has %d", p, h->nsec, *n);
    } else if (h->data_bytes != total || (uint64_t)size != h->header_bytes + total) {
      snprintf(err, errlen, "%s: %lld bytes, the header says %llu", p, (long long)size,
               (unsigned long long)(h->header_bytes + h->data_bytes));
    } else {
      return GS_OK;
    }
  }
  return GS_ERR_FORMAT;
}

gs_status gs_ckpt3_load(gs_fdtd3_sim *m, const char *dir, char *err, size_t errlen) {
  char path[1400];
  snprintf(path, sizeof path, "%.900s/checkpoint.gsck", dir);
  if (access(path, F_OK) != 0) {
    snprintf(err, errlen, "%.900s: no checkpoint there (checkpoint.gsck)", dir);
    return GS_ERR_IO;
  }
  return gs_ckpt3_read(m, &ck3_one_rank, path, err, errlen);
}

gs_status gs_ckpt3_read(gs_fdtd3_sim *m, const gs_ckpt3_place *at, const char *path, char *err, size_t errlen) {
  gs_status s;
  FILE *fp = gs_fopen_regular(path, &s, err, errlen);
  if (!fp) return s;
  ck3_header h;
  gs_fdtd3_state st[GS_FDTD3_MAX_STATE];
  int n = 0;
  struct stat sb;
  if (fstat(fileno(fp), &sb) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    s = GS_ERR_IO;
  } else {
    s = ck3_read_header(fp, path, &h, err, errlen);
  }
  if (s == GS_OK) s = ck3_check(m, &h, path, at, (int64_t)sb.st_size, st, &n, err, errlen);
  if (s == GS_OK) {
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t chunk = ck3_chunk(st, n);
    uint8_t *buf = gs_xmalloc(chunk);
    for (int k = 0; k < n && s == GS_OK; ++k)
      if (ck3_section(m, &st[k], fp, 0, buf, chunk, &crc) != 0) {
        snprintf(err, errlen, "%s: truncated (section %s)", path, st[k].name);
        s = GS_ERR_FORMAT;
      }
    free(buf);
    if (s == GS_OK && ((uint32_t)crc != h.data_crc || fgetc(fp) != EOF)) {
      snprintf(err, errlen, "%s: corrupt (CRC or length mismatch)", path);
      s = GS_ERR_FORMAT;
    }
  }
  fclose(fp);
  return s;
}

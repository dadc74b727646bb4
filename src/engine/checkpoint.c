/* FDTD checkpoints: one rank's file (header, fields, CPML auxiliaries,
 * receiver histories), the set several ranks write with its manifest, and
 * the restart that reads a set of any decomposition (docs/fdtd.md). Every
 * byte a restart reads is checked before it is trusted: the header has a
 * CRC of its own and each field is compared with what the scene and the
 * decomposition say it must be before anything is allocated from it. */
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fdtd_internal.h"
#include "fsutil.h"
#include "log.h"

#define GS_CK_BAND ((int64_t)64 << 20) /* bytes of rows staged on the host while reading */
#define GS_CK_VERSION 4
#define GS_CK_MAX_RANKS (1 << 20) /* a manifest naming more is refused before anything is allocated */

/* ----------------------------------------------------------- the header */

/* The header of one rank's file, in memory. On disk (GS_CKPT_HEADER_BYTES,
 * little-endian, field by field; docs/fdtd.md has the offsets) it ends with
 * the CRC-32 of the bytes before it, so that no field is trusted unchecked. */
typedef struct ck_header {
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
} ck_header;

static const char ck_magic[8] = {'G', 'S', 'C', 'K', 'P', 'T', '0', '4'};
static const char ck3_magic[8] = {'G', 'S', 'C', 'K', 'P', 'T', '3', 'D'}; /* a 3D model's */

static uint8_t *put32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; ++k)
    p[k] = (uint8_t)(v >> (8 * k));
  return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; ++k)
    p[k] = (uint8_t)(v >> (8 * k));
  return p + 8;
}

static uint32_t get32(const uint8_t **p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v |= (uint32_t)(*p)[k] << (8 * k);
  *p += 4;
  return v;
}

static uint64_t get64(const uint8_t **p) {
  uint64_t v = 0;
  for (int k = 0; k < 8; ++k)
    v |= (uint64_t)(*p)[k] << (8 * k);
  *p += 8;
  return v;
}

/* h as its bytes on disk, the header CRC computed here. */
static void ck_encode(const ck_header *h, uint8_t out[GS_CKPT_HEADER_BYTES]) {
  uint8_t *p = out;
  memcpy(p, ck_magic, 8);
  p = put32(p + 8, h->version);
  p = put32(p, h->header_bytes);
  p = put64(p, h->scene_hash);
  const int64_t a[] = {h->step, h->iterations, h->nx, h->ny};
  for (int k = 0; k < 4; ++k)
    p = put64(p, (uint64_t)a[k]);
  p = put32(p, (uint32_t)h->run);
  p = put32(p, (uint32_t)h->g);
  const int64_t b[] = {h->oi0, h->oi1, h->oj0, h->oj1, h->pitch, h->rows};
  for (int k = 0; k < 6; ++k)
    p = put64(p, (uint64_t)b[k]);
  p = put32(p, (uint32_t)h->nrx);
  p = put32(p, (uint32_t)h->npml);
  for (int k = 0; k < 4; ++k)
    p = put32(p, (uint32_t)h->pml_side[k]);
  for (int k = 0; k < 4; ++k)
    for (int e = 0; e < 4; ++e)
      p = put64(p, (uint64_t)h->pml_box[k][e]);
  p = put64(p, h->data_bytes);
  p = put32(p, h->data_crc);
  put32(p, (uint32_t)crc32(0L, out, (uInt)(p - out)));
}

/* The fields of the bytes in (which passed ck_header_bytes_ok). */
static void ck_decode(const uint8_t in[GS_CKPT_HEADER_BYTES], ck_header *h) {
  const uint8_t *p = in + 8;
  h->version = get32(&p);
  h->header_bytes = get32(&p);
  h->scene_hash = get64(&p);
  int64_t *a[] = {&h->step, &h->iterations, &h->nx, &h->ny};
  for (int k = 0; k < 4; ++k)
    *a[k] = (int64_t)get64(&p);
  h->run = (int32_t)get32(&p);
  h->g = (int32_t)get32(&p);
  int64_t *b[] = {&h->oi0, &h->oi1, &h->oj0, &h->oj1, &h->pitch, &h->rows};
  for (int k = 0; k < 6; ++k)
    *b[k] = (int64_t)get64(&p);
  h->nrx = (int32_t)get32(&p);
  h->npml = (int32_t)get32(&p);
  for (int k = 0; k < 4; ++k)
    h->pml_side[k] = (int32_t)get32(&p);
  for (int k = 0; k < 4; ++k)
    for (int e = 0; e < 4; ++e)
      h->pml_box[k][e] = (int64_t)get64(&p);
  h->data_bytes = get64(&p);
  h->data_crc = get32(&p);
  h->header_crc = get32(&p);
}

/* Whether the header bytes are a checkpoint header of this version whose
 * CRC holds; the reason in err when not. */
static gs_status ck_header_bytes_ok(const char *path, const uint8_t in[GS_CKPT_HEADER_BYTES], char *err,
                                    size_t errlen) {
  const uint8_t *p = in + 8;
  uint32_t version = get32(&p), bytes = get32(&p);
  if (memcmp(in, ck_magic, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", path);
  } else if (memcmp(in, ck3_magic, 8) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 3D model; this scene is 2D", path);
  } else if (version != GS_CK_VERSION || memcmp(in, ck_magic, 8) != 0) {
    snprintf(err, errlen,
             "%s: checkpoint format version %" PRIu32 "; this gpustencil reads version %d only (run again from the "
             "start)",
             path, version, GS_CK_VERSION);
  } else if (bytes != GS_CKPT_HEADER_BYTES) {
    snprintf(err, errlen, "%s: corrupt header (header size %" PRIu32 ", expected %d)", path, bytes,
             GS_CKPT_HEADER_BYTES);
  } else if (crc32(0L, in, GS_CKPT_HEADER_BYTES - 4) != (p = in + GS_CKPT_HEADER_BYTES - 4, get32(&p))) {
    snprintf(err, errlen, "%s: corrupt header (CRC mismatch)", path);
  } else {
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

/* ----------------------------------------------------- the expected layout */

/* What a file of the nodes own with g ghost layers must hold in run at
 * step: the arrays' layout, the CPML slab parts (as init_slab in fdtd.c
 * cuts them), the receivers and the data length. */
typedef struct ck_layout {
  int64_t pitch, rows;
  int npml, side[4];
  int64_t box[4][4];
  int nrx;
  uint64_t data_bytes;
} ck_layout;

/* The receivers' scene indices that the nodes [i0, i1) x [j0, j1) hold in
 * run, in scene order (how a rank lists its receivers); out may be NULL. */
static int rx_in_box(const gs_scene *sc, int run, gs_fdtd_part p, int *out) {
  int n = 0;
  for (int k = 0; k < sc->nrx; ++k) {
    int64_t i = sc->rxs[k].i + (int64_t)run * sc->rx_di, j = sc->rxs[k].j + (int64_t)run * sc->rx_dj;
    if (i >= p.i0 && i < p.i1 && j >= p.j0 && j < p.j1) {
      if (out) out[n] = k;
      ++n;
    }
  }
  return n;
}

/* Adds a * b to *sum; 1 on overflow. */
static int add_product(uint64_t *sum, uint64_t a, uint64_t b) {
  uint64_t p;
  return __builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(*sum, p, sum);
}

/* Fills l for own (inside the grid, non-empty) and g (1..GS_FDTD_MAX_DEPTH);
 * 0, or 1 when the data length does not fit 64 bits. */
static int ck_layout_of(const gs_scene *sc, gs_fdtd_part own, int g, int run, int64_t step, ck_layout *l) {
  memset(l, 0, sizeof *l);
  l->pitch = (own.i1 - own.i0 + 2 * g + 31) / 32 * 32; /* as init_grid in fdtd.c */
  l->rows = own.j1 - own.j0 + 2 * g;
  int bad = add_product(&l->data_bytes, 3 * sizeof(float), (uint64_t)l->pitch * (uint64_t)l->rows);
  for (int side = 0; side < 4; ++side) {
    int64_t n = sc->pml[side];
    if (n <= 0) continue;
    int dir = side % 2, lower = side < 2;
    int64_t extent = dir == 0 ? sc->nx : sc->ny, across = (dir == 0 ? sc->ny : sc->nx) + 1;
    int64_t lo = lower ? 0 : extent - n, hi = lower ? n + 1 : extent;
    int64_t alo = dir == 0 ? own.i0 : own.j0, ahi = dir == 0 ? own.i1 : own.j1;
    int64_t olo = (dir == 0 ? own.j0 : own.i0) - (g - 1), ohi = (dir == 0 ? own.j1 : own.i1) + (g - 1);
    lo = lo > alo ? lo : alo;
    hi = hi < ahi ? hi : ahi;
    if (hi <= lo) continue;
    int64_t *b = l->box[l->npml];
    b[0] = lo;
    b[1] = hi;
    b[2] = olo > 0 ? olo : 0;
    b[3] = ohi < across ? ohi : across;
    l->side[l->npml++] = side;
    bad |= add_product(&l->data_bytes, 2 * sizeof(float), (uint64_t)(hi - lo) * (uint64_t)(b[3] - b[2]));
  }
  l->nrx = rx_in_box(sc, run, own, NULL);
  bad |= add_product(&l->data_bytes, 3 * sizeof(float) * (uint64_t)l->nrx, (uint64_t)step);
  return bad;
}

/* ------------------------------------------------------------- writing */

typedef struct ck_part {
  void *dev; /* device pointer, or NULL for host */
  void *host;
  size_t bytes;
} ck_part;

static int ck_parts(gs_fdtd_sim *m, ck_part *parts) {
  int n = 0;
  parts[n++] = (ck_part){m->fields.v.ez, NULL, m->grid.nelem * sizeof(float)};
  parts[n++] = (ck_part){m->fields.v.hx, NULL, m->grid.nelem * sizeof(float)};
  parts[n++] = (ck_part){m->fields.v.hy, NULL, m->grid.nelem * sizeof(float)};
  for (int k = 0; k < m->pml.n; ++k) {
    parts[n++] = (ck_part){m->pml.psi[k][m->fields.cur][0], NULL, m->pml.cells[k] * sizeof(float)};
    parts[n++] = (ck_part){m->pml.psi[k][m->fields.cur][1], NULL, m->pml.cells[k] * sizeof(float)};
  }
  if (m->rx.n) parts[n++] = (ck_part){NULL, m->rx.hist, sizeof(float) * 3 * (size_t)m->rx.n * (size_t)m->step};
  return n;
}

/* The header of m's file, data length and CRC still 0. */
static ck_header ck_header_of(const gs_fdtd_sim *m) {
  ck_header h = {.version = GS_CK_VERSION,
                 .header_bytes = GS_CKPT_HEADER_BYTES,
                 .scene_hash = m->sc->hash,
                 .step = m->step,
                 .iterations = m->sc->iterations,
                 .nx = m->grid.nx,
                 .ny = m->grid.ny,
                 .run = m->run,
                 .g = m->grid.g,
                 .oi0 = m->grid.own.i0,
                 .oi1 = m->grid.own.i1,
                 .oj0 = m->grid.own.j0,
                 .oj1 = m->grid.own.j1,
                 .pitch = m->grid.pitch,
                 .rows = m->grid.rows,
                 .nrx = m->rx.n,
                 .npml = m->pml.n};
  for (int k = 0; k < 4; ++k) {
    h.pml_side[k] = k < m->pml.n ? m->pml.side[k] : -1;
    if (k >= m->pml.n) continue;
    const gs_fdtd_slab *p = &m->pml.slab[k];
    h.pml_box[k][0] = p->lo;
    h.pml_box[k][1] = p->hi;
    h.pml_box[k][2] = p->o0;
    h.pml_box[k][3] = p->o1;
  }
  return h;
}

gs_status gs_fdtd_checkpoint_write(gs_fdtd_sim *m, const char *path, char *err, size_t errlen) {
  gs_fdtd_sim_sync(m);
  ck_part parts[16];
  int np = ck_parts(m, parts);
  ck_header h = ck_header_of(m);
  uint8_t hb[GS_CKPT_HEADER_BYTES];
  ck_encode(&h, hb); /* a placeholder until the data's length and CRC are known */
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  FILE *fp = t.fp;
  int bad = fwrite(hb, sizeof hb, 1, fp) != 1;
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t chunk = 64u << 20;
  uint8_t *buf = gs_xmalloc(chunk);
  for (int k = 0; k < np && !bad; ++k) {
    for (size_t off = 0; off < parts[k].bytes && !bad; off += chunk) {
      size_t n = parts[k].bytes - off < chunk ? parts[k].bytes - off : chunk;
      const uint8_t *src;
      if (parts[k].dev) {
        m->b->copy_d2h(buf, (uint8_t *)parts[k].dev + off, n, m->s);
        m->b->stream_sync(m->s);
        src = buf;
      } else {
        src = (const uint8_t *)parts[k].host + off;
      }
      crc = crc32(crc, src, (uInt)n);
      h.data_bytes += n;
      bad |= fwrite(src, 1, n, fp) != n;
    }
  }
  free(buf);
  h.data_crc = (uint32_t)crc;
  ck_encode(&h, hb);
  bad |= fseek(fp, 0, SEEK_SET) != 0 || fwrite(hb, sizeof hb, 1, fp) != 1;
  return gs_tmpfile_commit(&t, bad, 1, err, errlen);
}

/* ------------------------------------------------------------- reading */

/* A file of the checkpoint set being read: where it must lie in the
 * decomposition and at which step, its header, and the CRC and length of
 * the data read so far. */
typedef struct ck_file {
  const char *path;
  gs_fdtd_part want; /* the nodes its rank owned in the set's decomposition */
  int64_t step;      /* the set's step (-1: any of 0..iterations) */
  FILE *fp;
  ck_header h;
  uLong crc;
  uint64_t bytes;
} ck_file;

/* The CPML slab parts of h against l's; GS_OK, or the reason in err. */
static gs_status ck_check_slabs(const ck_file *f, const ck_layout *l, char *err, size_t errlen) {
  const ck_header *h = &f->h;
  if (h->npml != l->npml) {
    snprintf(err, errlen, "%s: %" PRId32 " CPML slab parts, its nodes have %d", f->path, h->npml, l->npml);
    return GS_ERR_FORMAT;
  }
  for (int k = 0; k < 4; ++k) {
    int side = k < l->npml ? l->side[k] : -1;
    int64_t zero[4] = {0, 0, 0, 0};
    const int64_t *b = k < l->npml ? l->box[k] : zero;
    if (h->pml_side[k] != side || memcmp(h->pml_box[k], b, sizeof zero) != 0) {
      snprintf(err, errlen,
               "%s: CPML slab part %d: side %" PRId32 ", nodes [%lld, %lld) x [%lld, %lld); its nodes give side %d, "
               "[%lld, %lld) x [%lld, %lld)",
               f->path, k, h->pml_side[k], (long long)h->pml_box[k][0], (long long)h->pml_box[k][1],
               (long long)h->pml_box[k][2], (long long)h->pml_box[k][3], side, (long long)b[0], (long long)b[1],
               (long long)b[2], (long long)b[3]);
      return GS_ERR_FORMAT;
    }
  }
  return GS_OK;
}

/* Every field of f's header (its CRC held) against the scene, this run and
 * the file's place in the set, and the file's length (size) against the
 * header: nothing is allocated or read from a file that fails. GS_OK, or
 * the reason in err. */
static gs_status ck_check_header(const gs_fdtd_sim *m, const ck_file *f, int64_t size, char *err, size_t errlen) {
  const ck_header *h = &f->h;
  const gs_scene *sc = m->sc;
  const char *p = f->path;
  const gs_fdtd_part *w = &f->want;
  ck_layout l;
  if (h->scene_hash != sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene", p);
  } else if (h->nx != sc->nx || h->ny != sc->ny || h->iterations != sc->iterations || h->run != m->run) {
    snprintf(
        err, errlen,
        "%s: does not match this run (grid %lldx%lld, %lld iterations, run %lld; this run: %lldx%lld, %lld, run %d)", p,
        (long long)h->nx, (long long)h->ny, (long long)h->iterations, (long long)h->run + 1, (long long)sc->nx,
        (long long)sc->ny, (long long)sc->iterations, m->run + 1);
  } else if (f->step >= 0 ? h->step != f->step : h->step < 0 || h->step > sc->iterations) {
    snprintf(err, errlen, "%s: step %lld, expected %s%lld", p, (long long)h->step, f->step >= 0 ? "" : "0..",
             (long long)(f->step >= 0 ? f->step : sc->iterations));
  } else if (h->oi0 != w->i0 || h->oi1 != w->i1 || h->oj0 != w->j0 || h->oj1 != w->j1) {
    snprintf(err, errlen,
             "%s: owns nodes [%lld, %lld) x [%lld, %lld); its place in the set's decomposition is "
             "[%lld, %lld) x [%lld, %lld)",
             p, (long long)h->oi0, (long long)h->oi1, (long long)h->oj0, (long long)h->oj1, (long long)w->i0,
             (long long)w->i1, (long long)w->j0, (long long)w->j1);
  } else if (h->g < 1 || h->g > GS_FDTD_MAX_DEPTH) {
    snprintf(err, errlen, "%s: %" PRId32 " ghost layers (1..%d)", p, h->g, GS_FDTD_MAX_DEPTH);
  } else if (ck_layout_of(sc, *w, h->g, m->run, h->step, &l)) {
    snprintf(err, errlen, "%s: its size overflows", p);
  } else if (h->pitch != l.pitch || h->rows != l.rows) {
    snprintf(err, errlen, "%s: arrays of %lld x %lld floats; its nodes give %lld x %lld", p, (long long)h->pitch,
             (long long)h->rows, (long long)l.pitch, (long long)l.rows);
  } else if (ck_check_slabs(f, &l, err, errlen) != GS_OK) {
    return GS_ERR_FORMAT;
  } else if (h->nrx != l.nrx) {
    snprintf(err, errlen, "%s: holds %" PRId32 " receivers, its nodes %d", p, h->nrx, l.nrx);
  } else if (h->data_bytes != l.data_bytes) {
    snprintf(err, errlen, "%s: %" PRIu64 " bytes of data; its nodes, CPML and receivers need %" PRIu64, p,
             h->data_bytes, l.data_bytes);
  } else if ((uint64_t)size != GS_CKPT_HEADER_BYTES + h->data_bytes) {
    snprintf(err, errlen, "%s: %s (%lld bytes, its header says %" PRIu64 ")", p,
             (uint64_t)size < GS_CKPT_HEADER_BYTES + h->data_bytes ? "truncated" : "longer than its header says",
             (long long)size, GS_CKPT_HEADER_BYTES + h->data_bytes);
  } else {
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

/* Opens f->path (a regular file only: a FIFO cannot block the restart) and
 * reads and checks its header: GS_OK with f->fp open at the data, or an
 * error with the reason in err (f->fp closed). */
static gs_status ck_open(const gs_fdtd_sim *m, ck_file *f, char *err, size_t errlen) {
  gs_status st;
  f->fp = gs_fopen_regular(f->path, &st, err, errlen);
  if (!f->fp) return st;
  struct stat sb;
  uint8_t hb[GS_CKPT_HEADER_BYTES];
  size_t got = 0;
  if (fstat(fileno(f->fp), &sb) != 0) {
    snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
    st = GS_ERR_IO;
  } else if ((got = fread(hb, 1, sizeof hb, f->fp)) < 6 || memcmp(hb, ck_magic, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", f->path);
    st = GS_ERR_FORMAT;
  } else if (got < sizeof hb) {
    snprintf(err, errlen, "%s: truncated header (%zu bytes)", f->path, got);
    st = GS_ERR_FORMAT;
  } else {
    st = ck_header_bytes_ok(f->path, hb, err, errlen);
  }
  if (st == GS_OK) {
    ck_decode(hb, &f->h);
    st = ck_check_header(m, f, (int64_t)sb.st_size, err, errlen);
  }
  if (st != GS_OK) {
    fclose(f->fp);
    f->fp = NULL;
  }
  return st;
}

/* Reads count floats from fp into buf, adding them to the CRC; 0 or -1. */
static int ck_take(FILE *fp, float *buf, size_t count, uLong *crc, uint64_t *bytes) {
  if (count && fread(buf, sizeof(float), count, fp) != count) return -1;
  *crc = crc32_z(*crc, (const Bytef *)buf, count * sizeof(float));
  *bytes += count * sizeof(float);
  return 0;
}

/* What a restart gathers for this rank from the files of a set. */
typedef struct ck_restore {
  gs_fdtd_sim *m;
  int64_t step;     /* the set's */
  float *psi[4][2]; /* this rank's CPML auxiliaries (host), [slab][E, H] */
  int *old_rx;      /* scratch: scene indices of the receivers of the file being read */
  int *found;       /* found[r]: local receiver r's history was read */
  int64_t covered;  /* owned nodes filled */
} ck_restore;

/* The field arrays of f (Ez, Hx, Hy, each the file's rows in order): the
 * nodes of both (this rank's among the file's) go to the device in bands of
 * rows, at most GS_CK_BAND bytes staged. */
static gs_status ck_read_fields(ck_restore *r, ck_file *f, gs_fdtd_region both) {
  gs_fdtd_sim *m = r->m;
  const ck_header *h = &f->h;
  gs_status st = GS_OK;
  float *row = gs_xmalloc(sizeof(float) * (size_t)h->pitch);
  int64_t bw = both.i1 - both.i0 > 0 ? both.i1 - both.i0 : 1;
  int64_t band_rows = GS_CK_BAND / (bw * (int64_t)sizeof(float));
  if (band_rows > both.j1 - both.j0) band_rows = both.j1 - both.j0; /* no more than the rows taken */
  if (band_rows < 1) band_rows = 1;
  float *band = gs_xmalloc(sizeof(float) * (size_t)(bw * band_rows));
  for (int k = 0; k < 3 && st == GS_OK; ++k) {
    int64_t bj0 = both.j0, nb = 0;
    for (int64_t lr = 0; lr < h->rows; ++lr) {
      if (ck_take(f->fp, row, (size_t)h->pitch, &f->crc, &f->bytes)) {
        st = GS_ERR_FORMAT;
        break;
      }
      int64_t j = lr - h->g + h->oj0;
      if (j < both.j0 || j >= both.j1) continue;
      memcpy(band + nb * bw, row + (both.i0 - h->oi0 + h->g), sizeof(float) * (size_t)bw);
      if (++nb == band_rows || j == both.j1 - 1) {
        m->b->copy_2d(m->fields.buf[m->fields.cur][k] + gs_fdtd_index(m, both.i0, bj0),
                      sizeof(float) * (size_t)m->grid.pitch, band, sizeof(float) * (size_t)bw,
                      sizeof(float) * (size_t)bw, (size_t)nb, 1, m->s);
        m->b->stream_sync(m->s);
        if (k == 0) r->covered += nb * bw;
        bj0 += nb;
        nb = 0;
      }
    }
  }
  free(band);
  free(row);
  return st;
}

/* The CPML auxiliaries of f, slab by slab: the values of the nodes both the
 * file's rank and this one own go to this rank's slab on the same side. */
static gs_status ck_read_psi(ck_restore *r, ck_file *f) {
  const gs_fdtd_sim *m = r->m;
  const ck_header *h = &f->h;
  const gs_fdtd_part *own = &m->grid.own;
  gs_status st = GS_OK;
  for (int k = 0; k < h->npml && st == GS_OK; ++k) {
    int64_t lo = h->pml_box[k][0], hi = h->pml_box[k][1], o0 = h->pml_box[k][2], o1 = h->pml_box[k][3];
    int side = h->pml_side[k], dir = side % 2, me = -1;
    for (int t = 0; t < m->pml.n; ++t)
      if (m->pml.side[t] == side) me = t;
    /* along the slab, the nodes the file's rank owned and those this rank owns */
    int64_t ow0 = dir == 0 ? h->oj0 : h->oi0, ow1 = dir == 0 ? h->oj1 : h->oi1;
    int64_t mo0 = dir == 0 ? own->j0 : own->i0, mo1 = dir == 0 ? own->j1 : own->i1;
    float *prow = gs_xmalloc(sizeof(float) * (size_t)(o1 - o0 + 1));
    for (int eh = 0; eh < 2 && st == GS_OK; ++eh)
      for (int64_t d = lo; d < hi; ++d) {
        if (ck_take(f->fp, prow, (size_t)(o1 - o0), &f->crc, &f->bytes)) {
          st = GS_ERR_FORMAT;
          break;
        }
        if (me < 0) continue;
        const gs_fdtd_slab *p = &m->pml.slab[me];
        if (d < p->lo || d >= p->hi) continue;
        for (int64_t o = o0; o < o1; ++o)
          if (o >= ow0 && o < ow1 && o >= mo0 && o < mo1)
            r->psi[me][eh][(d - p->lo) * (p->o1 - p->o0) + (o - p->o0)] = prow[o - o0];
      }
    free(prow);
  }
  return st;
}

/* The receiver histories of f, whose nodes hold the receivers r->old_rx
 * (h->nrx of them, checked): those of this rank's receivers go to rx.hist. */
static gs_status ck_read_history(ck_restore *r, ck_file *f) {
  gs_fdtd_sim *m = r->m;
  const ck_header *h = &f->h;
  if (!h->nrx) return GS_OK;
  gs_status st = GS_OK;
  const int64_t step = r->step;
  size_t per = 3 * (size_t)h->nrx;
  float *hist = gs_xmalloc(sizeof(float) * per * (size_t)(step > 0 ? step : 1));
  if (ck_take(f->fp, hist, per * (size_t)step, &f->crc, &f->bytes)) st = GS_ERR_FORMAT;
  for (int q = 0; q < m->rx.n && st == GS_OK; ++q)
    for (int k = 0; k < h->nrx; ++k) {
      if (r->old_rx[k] != m->rx.global[q]) continue;
      r->found[q] = 1;
      for (int64_t t = 0; t < step; ++t)
        memcpy(m->rx.hist + ((size_t)t * (size_t)m->rx.n + (size_t)q) * 3, hist + (size_t)t * per + 3 * (size_t)k,
               3 * sizeof(float));
    }
  free(hist);
  return st;
}

/* Reads the file at path, whose rank owned the nodes want, into r if it
 * holds some of this rank's nodes or receivers: its header checked, then
 * fields, CPML auxiliaries, receiver histories, and the data's CRC. */
static gs_status ck_read_file(ck_restore *r, const char *path, gs_fdtd_part want, char *err, size_t errlen) {
  const gs_fdtd_sim *m = r->m;
  gs_fdtd_region mine = {m->grid.own.i0, m->grid.own.i1, m->grid.own.j0, m->grid.own.j1};
  gs_fdtd_region theirs = {want.i0, want.i1, want.j0, want.j1}, both = gs_region_meet(mine, theirs);
  int nold = rx_in_box(m->sc, m->run, want, r->old_rx);
  int wanted = !gs_region_empty(both);
  for (int q = 0; q < m->rx.n; ++q)
    for (int k = 0; k < nold; ++k)
      wanted |= r->old_rx[k] == m->rx.global[q];
  if (!wanted) return GS_OK;
  ck_file f = {.path = path, .want = want, .step = r->step};
  gs_status st = ck_open(m, &f, err, errlen);
  if (st != GS_OK) return st;
  f.crc = crc32(0L, Z_NULL, 0);
  st = ck_read_fields(r, &f, both);
  if (st == GS_OK) st = ck_read_psi(r, &f);
  if (st == GS_OK) st = ck_read_history(r, &f);
  if (st == GS_ERR_FORMAT) snprintf(err, errlen, "%s: truncated", path);
  if (st == GS_OK && (f.bytes != f.h.data_bytes || (uint32_t)f.crc != f.h.data_crc || fgetc(f.fp) != EOF)) {
    snprintf(err, errlen, "%s: corrupt (CRC or length mismatch)", path);
    st = GS_ERR_FORMAT;
  }
  fclose(f.fp);
  return st;
}

/* Whether the files read covered every node this rank owns and held the
 * histories of all its receivers; the reason in err when not. */
static gs_status ck_check_complete(const ck_restore *r, char *err, size_t errlen) {
  const gs_fdtd_sim *m = r->m;
  const gs_fdtd_part *own = &m->grid.own;
  int64_t need = (own->i1 - own->i0) * (own->j1 - own->j0);
  if (r->covered != need) {
    snprintf(err, errlen, "the checkpoint set covers %lld of this rank's %lld nodes", (long long)r->covered,
             (long long)need);
    return GS_ERR_FORMAT;
  }
  for (int q = 0; q < m->rx.n; ++q)
    if (!r->found[q]) {
      snprintf(err, errlen, "the checkpoint set lacks the history of receiver %d", m->rx.global[q] + 1);
      return GS_ERR_FORMAT;
    }
  return GS_OK;
}

/* Checkpoints of a run on several ranks: DIR/checkpoint.s<step>.r<rank>.gsck,
 * one per rank, committed together by DIR/checkpoint.manifest (written last,
 * atomically) naming the step and the decomposition; the previous set is
 * removed after the new manifest is in place. One rank: DIR/checkpoint.gsck. */
static void ck_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank) {
  snprintf(buf, n, "%s/checkpoint.s%lld.r%05d.gsck", dir, (long long)step, rank);
}

void gs_ckpt_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank) {
  ck_rank_path(buf, n, dir, step, rank);
}

/* What rank 0 found in a folder and every rank reads: kind (0 none, 1
 * checkpoint.gsck, 2 a set), ranks, decomposition, step. */
typedef struct ck_found {
  long long kind, ranks, px, py, step;
} ck_found;

/* The nodes rank q of the set found owned (MPI_Cart_create's row-major
 * order, as the fdtd command splits the grid). */
static gs_fdtd_part ck_part_of(const gs_scene *sc, const ck_found *fd, long long q) {
  int dims[2] = {(int)fd->px, (int)fd->py}, coords[2] = {(int)(q / fd->py), (int)(q % fd->py)};
  return gs_fdtd_part_of(sc, dims, coords);
}

/* Fills this rank's nodes, CPML auxiliaries and receiver histories from the
 * checkpoint fd found in dir, written by any decomposition and halo depth:
 * only the files holding some of this rank's nodes or receivers are read,
 * each whole (header checked first, then its data's CRC). The ghost layers
 * are left to gs_fdtd_sim_refresh. */
static gs_status ck_read_any(gs_fdtd_sim *m, const char *dir, const ck_found *fd, char *err, size_t errlen) {
  const gs_backend *b = m->b;
  ck_restore r = {.m = m, .step = fd->step};
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      r.psi[k][eh] = gs_xcalloc(m->pml.cells[k] + 1, sizeof(float));
  r.old_rx = gs_xcalloc((size_t)m->sc->nrx + 1, sizeof *r.old_rx);
  r.found = gs_xcalloc((size_t)m->rx.n + 1, sizeof *r.found);
  err[0] = '\0';
  gs_status st = GS_OK;
  char path[1400];
  for (long long q = 0; q < fd->ranks && st == GS_OK; ++q) {
    if (fd->kind == 1)
      snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    else
      ck_rank_path(path, sizeof path, dir, fd->step, (int)q);
    st = ck_read_file(&r, path, ck_part_of(m->sc, fd, q), err, errlen);
  }
  if (st == GS_OK) st = ck_check_complete(&r, err, errlen);
  if (st == GS_OK) {
    for (int k = 0; k < m->pml.n; ++k)
      for (int eh = 0; eh < 2; ++eh)
        b->copy_h2d(m->pml.psi[k][m->fields.cur][eh], r.psi[k][eh], m->pml.cells[k] * sizeof(float), m->s);
    b->stream_sync(m->s);
    m->step = fd->step;
    m->rx.flushed = fd->step;
  }
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      free(r.psi[k][eh]);
  free(r.old_rx);
  free(r.found);
  return st;
}

/* Rank 0: DIR/checkpoint.gsck's header, checked as one rank's file of the
 * whole grid at any step; fd filled. */
static gs_status ck_probe_single(const gs_fdtd_sim *m, const char *path, ck_found *fd, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  ck_file f = {.path = path, .want = {0, sc->nx + 1, 0, sc->ny + 1}, .step = -1};
  gs_status st = ck_open(m, &f, err, errlen);
  if (st != GS_OK) return st;
  fclose(f.fp);
  *fd = (ck_found){1, 1, 1, 1, f.h.step};
  return GS_OK;
}

/* Rank 0: the manifest at path, refused unless it is exactly what
 * gs_ckpt_save writes for this scene with a rank count of 1..GS_CK_MAX_RANKS
 * equal to its decomposition's, a step of 0..iterations and every rank's
 * file present; fd filled. Nothing is allocated from what it claims. */
static gs_status ck_probe_manifest(const gs_fdtd_sim *m, const char *dir, const char *path, ck_found *fd, char *err,
                                   size_t errlen) {
  const gs_scene *sc = m->sc;
  gs_status st;
  FILE *fp = gs_fopen_regular(path, &st, err, errlen);
  if (!fp) return st;
  char text[512], canon[512];
  size_t n = fread(text, 1, sizeof text - 1, fp);
  int longer = fgetc(fp) != EOF;
  fclose(fp);
  text[n] = '\0';
  unsigned long long hash = 0;
  long long q[4] = {0, 0, 0, 0}; /* ranks, px, py, step */
  int ok = !longer && strlen(text) == n &&
           sscanf(text, "gpustencil checkpoint manifest 1 ranks %lld decomp %lldx%lld step %lld scene %llx", &q[0],
                  &q[1], &q[2], &q[3], &hash) == 5;
  if (ok) /* the numbers as the writer prints them, nothing else */
    snprintf(canon, sizeof canon,
             "gpustencil checkpoint manifest 1\nranks %lld\ndecomp %lldx%lld\nstep %lld\nscene %016llx\n", q[0], q[1],
             q[2], q[3], hash);
  if (strncmp(text, GS_CKPT3_MANIFEST_MAGIC, strlen(GS_CKPT3_MANIFEST_MAGIC)) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 3D model; this scene is 2D", path);
  } else if (!ok || strcmp(canon, text) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint manifest", path);
  } else if (hash != sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene", path);
  } else if (q[0] < 1 || q[0] > GS_CK_MAX_RANKS) {
    snprintf(err, errlen, "%s: names %lld ranks (1..%d)", path, q[0], GS_CK_MAX_RANKS);
  } else if (q[1] < 1 || q[2] < 1 || q[1] > q[0] || q[2] > q[0] || q[1] * q[2] != q[0] || q[1] > sc->nx + 1 ||
             q[2] > sc->ny + 1) {
    snprintf(err, errlen, "%s: decomposition %lldx%lld does not split this grid into %lld ranks", path, q[1], q[2],
             q[0]);
  } else if (q[3] < 0 || q[3] > sc->iterations) {
    snprintf(err, errlen, "%s: step %lld, expected 0..%lld", path, q[3], (long long)sc->iterations);
  } else {
    *fd = (ck_found){2, q[0], q[1], q[2], q[3]};
    char rp[1400];
    for (long long r = 0; r < q[0]; ++r) {
      ck_rank_path(rp, sizeof rp, dir, q[3], (int)r);
      if (access(rp, F_OK) != 0) {
        snprintf(err, errlen, "%s: %s (a file of the set %s commits)", rp, strerror(errno), path);
        return GS_ERR_FORMAT;
      }
    }
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

/* Collective: loads the checkpoint in dir, written by any number of ranks,
 * decomposition and halo depth (docs/fdtd.md): a set (DIR/checkpoint.manifest
 * and one file per rank) or one file (DIR/checkpoint.gsck); a 1-rank run
 * prefers the one file, several ranks the set. GS_OK on every rank or an
 * error on every rank (the reason in err on the rank that found it); *old
 * says what was read. */
gs_status gs_ckpt_load(gs_fdtd_sim *m, const gs_comm *c, const char *dir, gs_ckpt_old *old, char *err, size_t errlen) {
  char path[1400], single[1400];
  gs_status st = GS_OK;
  snprintf(single, sizeof single, "%s/checkpoint.gsck", dir);
  snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
  ck_found fd = {0, 0, 0, 0, -1};
  err[0] = '\0';
  if (c->rank == 0) {
    int have_single = access(single, F_OK) == 0, have_set = access(path, F_OK) == 0;
    if (have_single && (c->size == 1 || !have_set)) {
      st = ck_probe_single(m, single, &fd, err, errlen);
    } else if (have_set) {
      st = ck_probe_manifest(m, dir, path, &fd, err, errlen);
    } else {
      snprintf(err, errlen, "%.900s: no checkpoint there (checkpoint.gsck or checkpoint.manifest)", dir);
      st = GS_ERR_IO;
    }
    if (st != GS_OK) fd.kind = 0;
  }
  GS_MPI_CHECK(MPI_Bcast(&fd, 5, MPI_LONG_LONG, 0, c->world));
  *old = (gs_ckpt_old){(int)fd.kind, (int)fd.ranks, fd.step};
  if (fd.kind != 0)
    st = ck_read_any(m, dir, &fd, err, errlen);
  else if (c->rank != 0)
    st = GS_ERR_FORMAT; /* rank 0 says why */
  /* The lowest rank that failed says why. */
  int me = st != GS_OK ? c->rank : c->size, first = c->size;
  GS_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, c->world));
  if (first < c->size && c->rank != first) err[0] = '\0';
  return first < c->size ? (st != GS_OK ? st : GS_ERR_FORMAT) : GS_OK;
}

/* ------------------------------------------------------ saving, removing */

/* Collective: the worst status of the ranks, with the lowest failing rank's reason in every
 * rank's err. */
static gs_status ck_agree(gs_status st, MPI_Comm comm, char *err, size_t errlen) {
  int rank, size;
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  int me = st != GS_OK ? rank : size, first = size;
  GS_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return GS_OK;
  GS_MPI_CHECK(MPI_Bcast(err, (int)errlen, MPI_CHAR, first, comm));
  err[errlen - 1] = '\0';
  return st != GS_OK ? st : GS_ERR_IO;
}

gs_status gs_ckpt_save(gs_fdtd_sim *m, const gs_comm *c, const int dims[2], const char *dir, int64_t *prev, char *err,
                       size_t errlen) {
  char path[1400], mpath[1400];
  if (c->size == 1) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    return gs_fdtd_checkpoint_write(m, path, err, errlen); /* a failure keeps the previous one */
  }
  ck_rank_path(path, sizeof path, dir, m->step, c->rank);
  gs_status st = ck_agree(gs_fdtd_checkpoint_write(m, path, err, errlen), c->world, err, errlen);
  if (st == GS_OK && c->rank == 0) { /* every rank's file is in place: the set is committed by its manifest */
    snprintf(mpath, sizeof mpath, "%s/checkpoint.manifest", dir);
    gs_tmpfile t;
    st = gs_tmpfile_open(&t, mpath, err, errlen);
    if (st == GS_OK) {
      fprintf(t.fp, "gpustencil checkpoint manifest 1\nranks %d\ndecomp %dx%d\nstep %lld\nscene %016" PRIx64 "\n",
              c->size, dims[0], dims[1], (long long)m->step, m->sc->hash);
      st = gs_tmpfile_commit(&t, 0, 1, err, errlen);
    }
  }
  st = ck_agree(st, c->world, err, errlen);
  if (st != GS_OK) { /* the previous set (and its manifest) stays whole; this step's files go */
    if (*prev != m->step) unlink(path);
    return st;
  }
  if (*prev >= 0) { /* the new set is committed: drop the old one */
    ck_rank_path(path, sizeof path, dir, *prev, c->rank);
    unlink(path);
  }
  *prev = m->step;
  return GS_OK;
}

/* Whether name is a checkpoint file (sets 1: checkpoint.gsck, the manifest,
 * a rank's file of any set) or a temporary one a killed run left behind. */
static int ck_is_ours(const char *name, int sets) {
  if (strncmp(name, "checkpoint.", 11) != 0) return 0;
  if (strstr(name, ".gsck.tmp-") || strncmp(name, "checkpoint.manifest.tmp-", 24) == 0) return 1;
  if (!sets) return 0;
  if (strcmp(name, "checkpoint.gsck") == 0 || strcmp(name, "checkpoint.manifest") == 0) return 1;
  long long s;
  int r, end = 0;
  return sscanf(name, "checkpoint.s%lld.r%d.gsck%n", &s, &r, &end) == 2 && end > 0 && name[end] == '\0';
}

/* Rank 0: removes the temporaries of killed runs in dir, and with sets every
 * checkpoint there too. */
static void ck_sweep(const char *dir, int sets) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[1400];
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (ck_is_ours(e->d_name, sets)) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (unlink(path) == 0) gs_log_debug("checkpoint: removed stale %s", path);
    }
  closedir(d);
}

/* Whether the folders a and b are one (not the same spelling: the same
 * inode). */
static int same_folder(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void gs_ckpt_clean(const gs_comm *c, const char *dir, const char *restart) {
  if (c->rank == 0) ck_sweep(dir, !restart || !same_folder(dir, restart));
  GS_MPI_CHECK(MPI_Barrier(c->world)); /* nothing of this run is written before */
}

void gs_ckpt_remove(const gs_comm *c, const char *dir, int64_t step) {
  char path[1400];
  if (c->size > 1 && step >= 0) {
    ck_rank_path(path, sizeof path, dir, step, c->rank);
    unlink(path);
  }
  /* Everything else too: an older set a kill left behind, the set a restart
   * read, temporaries. The next run writes only after this barrier. */
  if (c->rank == 0) ck_sweep(dir, 1);
  GS_MPI_CHECK(MPI_Barrier(c->world));
}

/* Removes an old checkpoint (collective: the files are shared out over the ranks). */
void gs_ckpt_drop(const gs_comm *c, const char *dir, gs_ckpt_old *old) {
  char path[1400];
  if (old->kind == 1 && c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    unlink(path);
  }
  if (old->kind == 2) {
    for (int r = c->rank; r < old->nranks; r += c->size) {
      ck_rank_path(path, sizeof path, dir, old->step, r);
      unlink(path);
    }
    if (c->size == 1) { /* a 1-rank run keeps no manifest */
      snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
      unlink(path);
    }
  }
  old->kind = 0;
}

/* ------------------------------------------------ checkpoints of 3D models */

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
  memcpy(p, ck3_magic, 8);
  p = put32(p + 8, h->version);
  p = put32(p, (uint32_t)ck3_header_size(h->nsec));
  p = put64(p, h->scene_hash);
  const int64_t a[] = {h->step, h->iterations, h->n[0], h->n[1], h->n[2]};
  for (int k = 0; k < 5; ++k)
    p = put64(p, (uint64_t)a[k]);
  p = put32(p, (uint32_t)h->run);
  p = put32(p, h->nsec);
  p = put64(p, h->data_bytes);
  p = put32(p, h->data_crc);
  p = put32(p, (uint32_t)h->rank);
  for (int x = 0; x < 3; ++x)
    p = put32(p, (uint32_t)h->dims[x]);
  p = put32(p, 0);
  for (int x = 0; x < 3; ++x)
    p = put64(p, (uint64_t)h->lo[x]);
  for (int x = 0; x < 3; ++x)
    p = put64(p, (uint64_t)h->hi[x]);
  for (uint32_t k = 0; k < h->nsec; ++k) {
    memset(p, 0, 24);
    memcpy(p, h->name[k], strnlen(h->name[k], 23));
    p = put64(p + 24, h->bytes[k]);
  }
  p = put32(p, (uint32_t)crc32(0L, out, (uInt)(p - out)));
  return (size_t)(p - out);
}

/* The fields of in (size bytes, its CRC held), names NUL-ended. */
static void ck3_decode(const uint8_t *in, ck3_header *h) {
  const uint8_t *p = in + 8;
  h->version = get32(&p);
  h->header_bytes = get32(&p);
  h->scene_hash = get64(&p);
  int64_t *a[] = {&h->step, &h->iterations, &h->n[0], &h->n[1], &h->n[2]};
  for (int k = 0; k < 5; ++k)
    *a[k] = (int64_t)get64(&p);
  h->run = (int32_t)get32(&p);
  h->nsec = get32(&p);
  h->data_bytes = get64(&p);
  h->data_crc = get32(&p);
  h->rank = (int32_t)get32(&p);
  for (int x = 0; x < 3; ++x)
    h->dims[x] = (int32_t)get32(&p);
  p += 4;
  for (int x = 0; x < 3; ++x)
    h->lo[x] = (int64_t)get64(&p);
  for (int x = 0; x < 3; ++x)
    h->hi[x] = (int64_t)get64(&p);
  for (uint32_t k = 0; k < h->nsec && k < GS_FDTD3_MAX_STATE; ++k) {
    memcpy(h->name[k], p, 24);
    h->name[k][23] = '\0';
    p += 24;
    h->bytes[k] = get64(&p);
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
  uint32_t version = got == 16 ? get32(&p) : 0, bytes = got == 16 ? get32(&p) : 0;
  uint32_t nsec = bytes > GS_CK3_FIXED ? (bytes - GS_CK3_FIXED - 4) / GS_CK3_ENTRY : 0;
  if (got < 8 || memcmp(hb, ck3_magic, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", path);
  } else if (memcmp(hb, ck_magic, 8) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 2D model; this scene is 3D", path);
  } else if (memcmp(hb, ck3_magic, 8) != 0 || version != GS_CK3_VERSION) {
    snprintf(err, errlen, "%s: 3D checkpoint format version %" PRIu32 "; this gpustencil reads version %d only", path,
             version, GS_CK3_VERSION);
  } else if (bytes < ck3_header_size(1) || bytes > GS_CK3_MAX_HEADER || bytes != ck3_header_size(nsec)) {
    snprintf(err, errlen, "%s: corrupt header (header size %" PRIu32 ")", path, bytes);
  } else if (fread(hb + 16, 1, bytes - 16, fp) != bytes - 16) {
    snprintf(err, errlen, "%s: truncated header", path);
  } else if (crc32(0L, hb, bytes - 4) != (p = hb + bytes - 4, get32(&p))) {
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

/* FDTD checkpoints of 2D models, read: the restart of a rank from the checkpoint in a folder
 * written by any number of ranks, decomposition and halo depth (one file, or a set and its
 * manifest; docs/fdtd.md). Every byte is checked before it is trusted: each header's own CRC,
 * then each field against what the scene and the set's decomposition say it must be, before
 * anything is allocated from it; then the data's CRC. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint_internal.h"
#include "fdtd_internal.h"
#include "fsutil.h"

#define GS_CK_BAND ((int64_t)64 << 20) /* bytes of rows staged on the host while reading */
#define GS_CK_MAX_RANKS (1 << 20)      /* a manifest naming more is refused before anything is allocated */

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
/* ------------------------------------------------------------- reading */

/* A file of the checkpoint set being read: where it must lie in the
 * decomposition and at which step, its header, and the CRC and length of
 * the data read so far. */
typedef struct ck_file {
  const char *path;
  gs_fdtd_part want; /* the nodes its rank owned in the set's decomposition */
  int64_t step;      /* the set's step (-1: any of 0..iterations) */
  FILE *fp;
  gs_ck_header h;
  uLong crc;
  uint64_t bytes;
} ck_file;

/* The CPML slab parts of h against l's; GS_OK, or the reason in err. */
static gs_status ck_check_slabs(const ck_file *f, const ck_layout *l, char *err, size_t errlen) {
  const gs_ck_header *h = &f->h;
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
  const gs_ck_header *h = &f->h;
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
  } else if ((got = fread(hb, 1, sizeof hb, f->fp)) < 6 || memcmp(hb, GS_CK_MAGIC, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", f->path);
    st = GS_ERR_FORMAT;
  } else if (got < sizeof hb) {
    snprintf(err, errlen, "%s: truncated header (%zu bytes)", f->path, got);
    st = GS_ERR_FORMAT;
  } else {
    st = gs_ck_header_ok(f->path, hb, err, errlen);
  }
  if (st == GS_OK) {
    gs_ck_decode(hb, &f->h);
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
  const gs_ck_header *h = &f->h;
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
  const gs_ck_header *h = &f->h;
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
  const gs_ck_header *h = &f->h;
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
      gs_ckpt_rank_path(path, sizeof path, dir, fd->step, (int)q);
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
      gs_ckpt_rank_path(rp, sizeof rp, dir, q[3], (int)r);
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

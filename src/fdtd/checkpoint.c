/* FDTD checkpoints: one rank's file (header, fields, CPML auxiliaries,
 * receiver histories, CRC), the set several ranks write with its manifest,
 * and the restart that reads a set of any decomposition (docs/fdtd.md). */
#include "checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fdtd_internal.h"
#include "fsutil.h"

#define GS_CK_BAND ((int64_t)64 << 20) /* bytes of rows staged on the host while reading */

/* ----------------------------------------------------------- checkpoints */

typedef struct ck_header {
  char magic[8];
  uint32_t version, header_bytes;
  uint64_t scene_hash;
  int64_t step, nx, ny, pitch, rows, iterations, oi0, oj0;
  int32_t nrx, nsrc, run, npml;
  uint64_t data_bytes;
  uint32_t crc, reserved;
  /* version 3: what a restart on another decomposition needs */
  int64_t oi1, oj1;      /* owned nodes [oi0, oi1) x [oj0, oj1) */
  int32_t g, spare;      /* ghost layers of the arrays */
  int32_t pml_side[4];   /* scene side of each CPML slab part, then its extents */
  int64_t pml_box[4][4]; /* lo, hi, o0, o1 */
} ck_header;

static const char ck_magic[8] = {'G', 'S', 'C', 'K', 'P', 'T', '0', '3'};

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

gs_status gs_fdtd_checkpoint_write(gs_fdtd_sim *m, const char *path, char *err, size_t errlen) {
  gs_fdtd_sim_sync(m);
  ck_part parts[16];
  int np = ck_parts(m, parts);
  ck_header h = {.version = 3,
                 .header_bytes = sizeof h,
                 .scene_hash = m->sc->hash,
                 .step = m->step,
                 .nx = m->grid.nx,
                 .ny = m->grid.ny,
                 .pitch = m->grid.pitch,
                 .rows = m->grid.rows,
                 .iterations = m->sc->iterations,
                 .oi0 = m->grid.own.i0,
                 .oj0 = m->grid.own.j0,
                 .nrx = m->rx.n,
                 .nsrc = m->src.n,
                 .run = m->run,
                 .npml = m->pml.n};
  memcpy(h.magic, ck_magic, 8);
  h.oi1 = m->grid.own.i1;
  h.oj1 = m->grid.own.j1;
  h.g = m->grid.g;
  for (int k = 0; k < m->pml.n; ++k) {
    h.pml_side[k] = m->pml.side[k];
    const gs_fdtd_slab *p = &m->pml.slab[k];
    h.pml_box[k][0] = p->lo;
    h.pml_box[k][1] = p->hi;
    h.pml_box[k][2] = p->o0;
    h.pml_box[k][3] = p->o1;
  }
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  FILE *fp = t.fp;
  int bad = fwrite(&h, sizeof h, 1, fp) != 1;
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
  h.crc = (uint32_t)crc;
  bad |= fseek(fp, 0, SEEK_SET) != 0 || fwrite(&h, sizeof h, 1, fp) != 1;
  return gs_tmpfile_commit(&t, bad, 1, err, errlen);
}

/* Reads count floats from fp into buf, adding them to the CRC; 0 or -1. */
static int ck_take(FILE *fp, float *buf, size_t count, uLong *crc, uint64_t *bytes) {
  if (count && fread(buf, sizeof(float), count, fp) != count) return -1;
  *crc = crc32(*crc, (const Bytef *)buf, (uInt)(count * sizeof(float)));
  *bytes += count * sizeof(float);
  return 0;
}

/* The receivers' scene indices that the nodes [i0, i1) x [j0, j1) hold in
 * run, in scene order (how a rank lists its receivers). */
static int rx_in_box(const gs_scene *sc, int run, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int *out) {
  int n = 0;
  for (int k = 0; k < sc->nrx; ++k) {
    int64_t i = sc->rxs[k].i + (int64_t)run * sc->rx_di, j = sc->rxs[k].j + (int64_t)run * sc->rx_dj;
    if (i >= i0 && i < i1 && j >= j0 && j < j1) out[n++] = k;
  }
  return n;
}

/* A file of the checkpoint set being read: its header and the CRC and
 * length of the data read so far. */
typedef struct ck_file {
  const char *path;
  FILE *fp;
  ck_header h;
  uLong crc;
  uint64_t bytes;
} ck_file;

/* What a restart gathers for this rank from the files of a set. */
typedef struct ck_restore {
  gs_fdtd_sim *m;
  int64_t step;     /* the set's */
  float *psi[4][2]; /* this rank's CPML auxiliaries (host), [slab][E, H] */
  int *old_rx;      /* scratch: scene indices of the receivers of the file being read */
  int *found;       /* found[r]: local receiver r's history was read */
  int64_t covered;  /* owned nodes filled */
} ck_restore;

/* Opens f->path and reads its header: GS_OK when it is a checkpoint of this
 * version, scene, run and step (f->fp open), or an error with the reason in
 * err (f->fp closed). */
static gs_status ck_open(const gs_fdtd_sim *m, int64_t step, ck_file *f, char *err, size_t errlen) {
  const ck_header *h = &f->h;
  f->fp = fopen(f->path, "rb");
  if (!f->fp) {
    snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
    return GS_ERR_IO;
  }
  gs_status st = GS_OK;
  if (fread(&f->h, sizeof f->h, 1, f->fp) != 1 || memcmp(h->magic, ck_magic, 8) != 0 ||
      h->header_bytes != sizeof f->h) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint of this version (or truncated header)", f->path);
    st = GS_ERR_FORMAT;
  } else if (h->scene_hash != m->sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene", f->path);
    st = GS_ERR_FORMAT;
  } else if (h->nx != m->grid.nx || h->ny != m->grid.ny || h->iterations != m->sc->iterations || h->run != m->run ||
             h->step != step || h->npml < 0 || h->npml > 4 || h->g < 1 || h->oi1 <= h->oi0 || h->oj1 <= h->oj0 ||
             h->pitch < h->oi1 - h->oi0) {
    snprintf(err, errlen, "%s: does not match this run or the rest of its set (grid %lldx%lld, run %d, step %lld)",
             f->path, (long long)h->nx, (long long)h->ny, h->run, (long long)h->step);
    st = GS_ERR_FORMAT;
  }
  if (st != GS_OK) fclose(f->fp);
  return st;
}

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

/* The receiver histories of f, whose nodes hold the nold receivers
 * r->old_rx: those of this rank's receivers go to rx.hist. */
static gs_status ck_read_history(ck_restore *r, ck_file *f, int nold, char *err, size_t errlen) {
  gs_fdtd_sim *m = r->m;
  const ck_header *h = &f->h;
  if (h->nrx != nold) {
    snprintf(err, errlen, "%s: holds %d receivers, its nodes %d", f->path, h->nrx, nold);
    return GS_ERR_FORMAT;
  }
  if (!h->nrx) return GS_OK;
  gs_status st = GS_OK;
  const int64_t step = r->step;
  size_t per = 3 * (size_t)h->nrx;
  float *hist = gs_xmalloc(sizeof(float) * per * (size_t)(step > 0 ? step : 1));
  if (ck_take(f->fp, hist, per * (size_t)step, &f->crc, &f->bytes)) st = GS_ERR_FORMAT;
  for (int q = 0; q < m->rx.n && st == GS_OK; ++q)
    for (int k = 0; k < nold; ++k) {
      if (r->old_rx[k] != m->rx.global[q]) continue;
      r->found[q] = 1;
      for (int64_t t = 0; t < step; ++t)
        memcpy(m->rx.hist + ((size_t)t * (size_t)m->rx.n + (size_t)q) * 3, hist + (size_t)t * per + 3 * (size_t)k,
               3 * sizeof(float));
    }
  free(hist);
  return st;
}

/* Reads the file at path into r if it holds some of this rank's nodes or
 * receivers, whole: fields, CPML auxiliaries, receiver histories, then the
 * check of its CRC and length. */
static gs_status ck_read_file(ck_restore *r, const char *path, char *err, size_t errlen) {
  const gs_fdtd_sim *m = r->m;
  ck_file f = {.path = path};
  gs_status st = ck_open(m, r->step, &f, err, errlen);
  if (st != GS_OK) return st;
  const ck_header *h = &f.h;
  gs_fdtd_region mine = {m->grid.own.i0, m->grid.own.i1, m->grid.own.j0, m->grid.own.j1};
  gs_fdtd_region theirs = {h->oi0, h->oi1, h->oj0, h->oj1}, both = gs_region_meet(mine, theirs);
  int nold = rx_in_box(m->sc, m->run, h->oi0, h->oi1, h->oj0, h->oj1, r->old_rx);
  int wanted = !gs_region_empty(both);
  for (int q = 0; q < m->rx.n; ++q)
    for (int k = 0; k < nold; ++k)
      wanted |= r->old_rx[k] == m->rx.global[q];
  if (!wanted) {
    fclose(f.fp);
    return GS_OK;
  }
  f.crc = crc32(0L, Z_NULL, 0);
  st = ck_read_fields(r, &f, both);
  if (st == GS_OK) st = ck_read_psi(r, &f);
  if (st == GS_OK) st = ck_read_history(r, &f, nold, err, errlen);
  if (st == GS_ERR_FORMAT && !err[0]) snprintf(err, errlen, "%s: truncated", path);
  if (st == GS_OK && (f.bytes != h->data_bytes || (uint32_t)f.crc != h->crc || fgetc(f.fp) != EOF)) st = GS_ERR_FORMAT;
  if (st == GS_ERR_FORMAT && !err[0]) snprintf(err, errlen, "%s: corrupt (CRC or length mismatch)", path);
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

/* Fills this rank's nodes, CPML auxiliaries and receiver histories from the
 * checkpoint files paths[0..n) of one step, written by any decomposition and
 * halo depth: each file's header says which nodes it owns; only the files
 * holding some of this rank's nodes or receivers are read, each whole (its
 * CRC is checked). The ghost layers are left to gs_fdtd_sim_refresh. */
static gs_status ck_read_any(gs_fdtd_sim *m, char **paths, int n, int64_t step, char *err, size_t errlen) {
  const gs_backend *b = m->b;
  ck_restore r = {.m = m, .step = step};
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      r.psi[k][eh] = gs_xcalloc(m->pml.cells[k] + 1, sizeof(float));
  r.old_rx = gs_xcalloc((size_t)m->sc->nrx + 1, sizeof *r.old_rx);
  r.found = gs_xcalloc((size_t)m->rx.n + 1, sizeof *r.found);
  err[0] = '\0';
  gs_status st = GS_OK;
  for (int q = 0; q < n && st == GS_OK; ++q)
    st = ck_read_file(&r, paths[q], err, errlen);
  if (st == GS_OK) st = ck_check_complete(&r, err, errlen);
  if (st == GS_OK) {
    for (int k = 0; k < m->pml.n; ++k)
      for (int eh = 0; eh < 2; ++eh)
        b->copy_h2d(m->pml.psi[k][m->fields.cur][eh], r.psi[k][eh], m->pml.cells[k] * sizeof(float), m->s);
    b->stream_sync(m->s);
    m->step = step;
    m->rx.flushed = step;
  }
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      free(r.psi[k][eh]);
  free(r.old_rx);
  free(r.found);
  return st;
}

/* Checkpoints of a run on several ranks: DIR/checkpoint.s<step>.r<rank>.gsck,
 * one per rank, committed together by DIR/checkpoint.manifest (written last,
 * atomically) naming the step and the decomposition; the previous set is
 * removed after the new manifest is in place. One rank: DIR/checkpoint.gsck. */
static void ck_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank) {
  snprintf(buf, n, "%s/checkpoint.s%lld.r%05d.gsck", dir, (long long)step, rank);
}

void gs_ckpt_save(gs_fdtd_sim *m, const gs_comm *c, const int dims[2], const char *dir, int64_t *prev) {
  char path[1400], err[1024];
  if (c->size == 1) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    if (gs_fdtd_checkpoint_write(m, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint", err, __FILE__, __LINE__);
    return;
  }
  ck_rank_path(path, sizeof path, dir, m->step, c->rank);
  if (gs_fdtd_checkpoint_write(m, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint", err, __FILE__, __LINE__);
  GS_MPI_CHECK(MPI_Barrier(c->world)); /* every rank's file is in place */
  if (c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
    gs_tmpfile t;
    if (gs_tmpfile_open(&t, path, err, sizeof err) != GS_OK) gs_fatal("checkpoint manifest", err, __FILE__, __LINE__);
    fprintf(t.fp, "gpustencil checkpoint manifest 1\nranks %d\ndecomp %dx%d\nstep %lld\nscene %016" PRIx64 "\n",
            c->size, dims[0], dims[1], (long long)m->step, m->sc->hash);
    if (gs_tmpfile_commit(&t, 0, 1, err, sizeof err) != GS_OK) gs_fatal("checkpoint manifest", err, __FILE__, __LINE__);
  }
  GS_MPI_CHECK(MPI_Barrier(c->world)); /* the new set is committed: drop the old one */
  if (*prev >= 0) {
    ck_rank_path(path, sizeof path, dir, *prev, c->rank);
    unlink(path);
  }
  *prev = m->step;
}

/* Removes the checkpoint of a completed run. */
void gs_ckpt_remove(const gs_comm *c, const char *dir, int64_t step) {
  char path[1400];
  if (c->size == 1) {
    snprintf(path, sizeof path, "%s/checkpoint.gsck", dir);
    unlink(path);
    return;
  }
  if (c->rank == 0) {
    snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
    unlink(path);
  }
  if (step >= 0) {
    ck_rank_path(path, sizeof path, dir, step, c->rank);
    unlink(path);
  }
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
  long long info[3] = {0, 0, -1}; /* kind, ranks, step */
  err[0] = '\0';
  if (c->rank == 0) {
    int have_single = access(single, F_OK) == 0, have_set = access(path, F_OK) == 0;
    if (have_single && (c->size == 1 || !have_set)) {
      FILE *fp = fopen(single, "rb");
      ck_header h;
      if (!fp || fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, ck_magic, 8) != 0) {
        snprintf(err, errlen, "%.900s: not a gpustencil checkpoint of this version (or unreadable)", single);
        st = GS_ERR_FORMAT;
      } else {
        info[0] = 1;
        info[1] = 1;
        info[2] = h.step;
      }
      if (fp) fclose(fp);
    } else if (have_set) {
      FILE *fp = fopen(path, "r");
      unsigned long long hash = 0;
      long long px, py;
      if (!fp ||
          fscanf(fp, "gpustencil checkpoint manifest 1 ranks %lld decomp %lldx%lld step %lld scene %llx", &info[1], &px,
                 &py, &info[2], &hash) != 5 ||
          info[1] < 1 || info[2] < 0) {
        snprintf(err, errlen, "%.900s: not a gpustencil checkpoint manifest", path);
        st = GS_ERR_FORMAT;
      } else if (hash != m->sc->hash) {
        snprintf(err, errlen, "%.900s: made from a different scene", path);
        st = GS_ERR_FORMAT;
      } else {
        info[0] = 2;
      }
      if (fp) fclose(fp);
    } else {
      snprintf(err, errlen, "%.900s: no checkpoint there (checkpoint.gsck or checkpoint.manifest)", dir);
      st = GS_ERR_IO;
    }
    if (st != GS_OK) info[0] = 0;
  }
  GS_MPI_CHECK(MPI_Bcast(info, 3, MPI_LONG_LONG, 0, c->world));
  *old = (gs_ckpt_old){(int)info[0], (int)info[1], info[2]};
  if (info[0] != 0) {
    int n = (int)info[1];
    char **paths = gs_xcalloc((size_t)n, sizeof *paths);
    for (int r = 0; r < n; ++r) {
      paths[r] = gs_xmalloc(1400);
      if (info[0] == 1)
        snprintf(paths[r], 1400, "%s", single);
      else
        ck_rank_path(paths[r], 1400, dir, info[2], r);
    }
    st = ck_read_any(m, paths, n, info[2], err, errlen);
    for (int r = 0; r < n; ++r)
      free(paths[r]);
    free(paths);
  } else if (c->rank != 0) {
    st = GS_ERR_FORMAT; /* rank 0 says why */
  }
  /* The lowest rank that failed says why. */
  int me = st != GS_OK ? c->rank : c->size, first = c->size;
  GS_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, c->world));
  if (first < c->size && c->rank != first) err[0] = '\0';
  return first < c->size ? (st != GS_OK ? st : GS_ERR_FORMAT) : GS_OK;
}

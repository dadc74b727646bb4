/* FDTD checkpoints of 2D models, written: one rank's file (its header encoded and decoded
 * here, then fields, CPML auxiliaries, receiver histories), the set several ranks write with
 * its manifest, and the removal of old and stale checkpoints (docs/fdtd.md). A restart reads
 * them in checkpoint_read.c; a 3D model's file is checkpoint3d_file.c's. */
#include <dirent.h>
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
#include "log.h"

/* ----------------------------------------------------------- the header */

/* h as its bytes on disk, the header CRC computed here. */
void gs_ck_encode(const gs_ck_header *h, uint8_t out[GS_CKPT_HEADER_BYTES]) {
  uint8_t *p = out;
  memcpy(p, GS_CK_MAGIC, 8);
  p = gs_ck_put32(p + 8, h->version);
  p = gs_ck_put32(p, h->header_bytes);
  p = gs_ck_put64(p, h->scene_hash);
  const int64_t a[] = {h->step, h->iterations, h->nx, h->ny};
  for (int k = 0; k < 4; ++k)
    p = gs_ck_put64(p, (uint64_t)a[k]);
  p = gs_ck_put32(p, (uint32_t)h->run);
  p = gs_ck_put32(p, (uint32_t)h->g);
  const int64_t b[] = {h->oi0, h->oi1, h->oj0, h->oj1, h->pitch, h->rows};
  for (int k = 0; k < 6; ++k)
    p = gs_ck_put64(p, (uint64_t)b[k]);
  p = gs_ck_put32(p, (uint32_t)h->nrx);
  p = gs_ck_put32(p, (uint32_t)h->npml);
  for (int k = 0; k < 4; ++k)
    p = gs_ck_put32(p, (uint32_t)h->pml_side[k]);
  for (int k = 0; k < 4; ++k)
    for (int e = 0; e < 4; ++e)
      p = gs_ck_put64(p, (uint64_t)h->pml_box[k][e]);
  p = gs_ck_put64(p, h->data_bytes);
  p = gs_ck_put32(p, h->data_crc);
  gs_ck_put32(p, (uint32_t)crc32(0L, out, (uInt)(p - out)));
}

/* The fields of the bytes in (which passed gs_ck_header_ok). */
void gs_ck_decode(const uint8_t in[GS_CKPT_HEADER_BYTES], gs_ck_header *h) {
  const uint8_t *p = in + 8;
  h->version = gs_ck_get32(&p);
  h->header_bytes = gs_ck_get32(&p);
  h->scene_hash = gs_ck_get64(&p);
  int64_t *a[] = {&h->step, &h->iterations, &h->nx, &h->ny};
  for (int k = 0; k < 4; ++k)
    *a[k] = (int64_t)gs_ck_get64(&p);
  h->run = (int32_t)gs_ck_get32(&p);
  h->g = (int32_t)gs_ck_get32(&p);
  int64_t *b[] = {&h->oi0, &h->oi1, &h->oj0, &h->oj1, &h->pitch, &h->rows};
  for (int k = 0; k < 6; ++k)
    *b[k] = (int64_t)gs_ck_get64(&p);
  h->nrx = (int32_t)gs_ck_get32(&p);
  h->npml = (int32_t)gs_ck_get32(&p);
  for (int k = 0; k < 4; ++k)
    h->pml_side[k] = (int32_t)gs_ck_get32(&p);
  for (int k = 0; k < 4; ++k)
    for (int e = 0; e < 4; ++e)
      h->pml_box[k][e] = (int64_t)gs_ck_get64(&p);
  h->data_bytes = gs_ck_get64(&p);
  h->data_crc = gs_ck_get32(&p);
  h->header_crc = gs_ck_get32(&p);
}

/* Whether the header bytes are a checkpoint header of this version whose
 * CRC holds; the reason in err when not. */
gs_status gs_ck_header_ok(const char *path, const uint8_t in[GS_CKPT_HEADER_BYTES], char *err, size_t errlen) {
  const uint8_t *p = in + 8;
  uint32_t version = gs_ck_get32(&p), bytes = gs_ck_get32(&p);
  if (memcmp(in, GS_CK_MAGIC, 6) != 0) {
    snprintf(err, errlen, "%s: not a gpustencil checkpoint", path);
  } else if (memcmp(in, GS_CK3_MAGIC, 8) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 3D model; this scene is 2D", path);
  } else if (version != GS_CK_VERSION || memcmp(in, GS_CK_MAGIC, 8) != 0) {
    snprintf(err, errlen,
             "%s: checkpoint format version %" PRIu32 "; this gpustencil reads version %d only (run again from the "
             "start)",
             path, version, GS_CK_VERSION);
  } else if (bytes != GS_CKPT_HEADER_BYTES) {
    snprintf(err, errlen, "%s: corrupt header (header size %" PRIu32 ", expected %d)", path, bytes,
             GS_CKPT_HEADER_BYTES);
  } else if (crc32(0L, in, GS_CKPT_HEADER_BYTES - 4) != (p = in + GS_CKPT_HEADER_BYTES - 4, gs_ck_get32(&p))) {
    snprintf(err, errlen, "%s: corrupt header (CRC mismatch)", path);
  } else {
    return GS_OK;
  }
  return GS_ERR_FORMAT;
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
static gs_ck_header ck_header_of(const gs_fdtd_sim *m) {
  gs_ck_header h = {.version = GS_CK_VERSION,
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
  gs_ck_header h = ck_header_of(m);
  uint8_t hb[GS_CKPT_HEADER_BYTES];
  gs_ck_encode(&h, hb); /* a placeholder until the data's length and CRC are known */
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
  gs_ck_encode(&h, hb);
  bad |= fseek(fp, 0, SEEK_SET) != 0 || fwrite(hb, sizeof hb, 1, fp) != 1;
  return gs_tmpfile_commit(&t, bad, 1, err, errlen);
}

/* Checkpoints of a run on several ranks: DIR/checkpoint.s<step>.r<rank>.gsck,
 * one per rank, committed together by DIR/checkpoint.manifest (written last,
 * atomically) naming the step and the decomposition; the previous set is
 * removed after the new manifest is in place. One rank: DIR/checkpoint.gsck. */
void gs_ckpt_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank) {
  snprintf(buf, n, "%s/checkpoint.s%lld.r%05d.gsck", dir, (long long)step, rank);
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
  gs_ckpt_rank_path(path, sizeof path, dir, m->step, c->rank);
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
    gs_ckpt_rank_path(path, sizeof path, dir, *prev, c->rank);
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
    gs_ckpt_rank_path(path, sizeof path, dir, step, c->rank);
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
      gs_ckpt_rank_path(path, sizeof path, dir, old->step, r);
      unlink(path);
    }
    if (c->size == 1) { /* a 1-rank run keeps no manifest */
      snprintf(path, sizeof path, "%s/checkpoint.manifest", dir);
      unlink(path);
    }
  }
  old->kind = 0;
}

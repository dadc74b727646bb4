/* Outputs of a 3D model split over ranks, assembled on rank 0 (fdtd3d_gather.h). */
#include "fdtd3d_gather.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "error.h"

#define GATHER_TAG 30000               /* apart from the halo (300s) and line (2 o, 2 o + 1) tags */
#define GATHER_CHUNK ((size_t)1 << 30) /* bytes a message at most */

/* The grid indices [t0, t1) of each axis whose nodes part p owns; 0 when none. */
static int piece_of(const gs_part3 *p, const gs_fdtd3_grid *g, int64_t t0[3], int64_t t1[3]) {
  for (int a = 0; a < 3; ++a) {
    const int64_t lo = p->lo[a] - g->start[a], hi = p->hi[a] - g->start[a], s = g->step[a];
    t0[a] = lo <= 0 ? 0 : (lo + s - 1) / s;
    t1[a] = hi <= 0 ? 0 : (hi + s - 1) / s;
    if (t1[a] > g->count[a]) t1[a] = g->count[a];
    if (t0[a] >= t1[a]) return 0;
  }
  return 1;
}

static size_t piece_records(const int64_t t0[3], const int64_t t1[3]) {
  return (size_t)((t1[0] - t0[0]) * (t1[1] - t0[1]) * (t1[2] - t0[2]));
}

/* This rank's records of its piece, x fastest. */
static void read_piece(const gs_fdtd3_grid *g, const gs_fdtd3_reader *rd, const int64_t t0[3], const int64_t t1[3],
                       uint8_t *buf) {
  for (int64_t z = t0[2]; z < t1[2]; ++z) {
    const int64_t k = g->start[2] + z * g->step[2];
    rd->plane(rd->ctx, k);
    for (int64_t y = t0[1]; y < t1[1]; ++y)
      for (int64_t x = t0[0]; x < t1[0]; ++x, buf += rd->bytes)
        rd->value(rd->ctx, g->start[0] + x * g->step[0], g->start[1] + y * g->step[1], k, buf);
  }
}

/* A piece's records into their places in out (the whole grid's). */
static void place_piece(const gs_fdtd3_grid *g, size_t bytes, const int64_t t0[3], const int64_t t1[3],
                        const uint8_t *buf, uint8_t *out) {
  const size_t row = bytes * (size_t)(t1[0] - t0[0]);
  for (int64_t z = t0[2]; z < t1[2]; ++z)
    for (int64_t y = t0[1]; y < t1[1]; ++y, buf += row)
      memcpy(out + bytes * (size_t)((z * g->count[1] + y) * g->count[0] + t0[0]), buf, row);
}

static void transfer(void *buf, size_t bytes, int peer, int send, MPI_Comm comm) {
  for (size_t at = 0; at < bytes; at += GATHER_CHUNK) {
    const int n = (int)(bytes - at < GATHER_CHUNK ? bytes - at : GATHER_CHUNK);
    if (send)
      GS_MPI_CHECK(MPI_Send((uint8_t *)buf + at, n, MPI_BYTE, peer, GATHER_TAG, comm));
    else
      GS_MPI_CHECK(MPI_Recv((uint8_t *)buf + at, n, MPI_BYTE, peer, GATHER_TAG, comm, MPI_STATUS_IGNORE));
  }
}

void gs_fdtd3_gather(const gs_fdtd3_ranks *sp, const gs_scene *sc, const gs_fdtd3_grid *gr, const gs_fdtd3_reader *rd,
                     void *out) {
  const int64_t nodes[3] = {sc->nx + 1, sc->ny + 1, sc->nz + 1};
  int64_t t0[3], t1[3];
  if (sp->rank != 0) {
    if (!piece_of(&sp->part, gr, t0, t1)) return;
    const size_t bytes = rd->bytes * piece_records(t0, t1);
    uint8_t *buf = gs_xmalloc(bytes);
    read_piece(gr, rd, t0, t1, buf);
    transfer(buf, bytes, 0, 1, sp->comm);
    free(buf);
    return;
  }
  for (int r = 0; r < sp->size; ++r) { /* rank order: rank 0 reads its own first */
    const int c[3] = {r % sp->dims[0], r / sp->dims[0] % sp->dims[1], r / (sp->dims[0] * sp->dims[1])};
    const gs_part3 p = gs_decomp3_part(nodes, sp->dims, c);
    if (!piece_of(&p, gr, t0, t1)) continue;
    const size_t bytes = rd->bytes * piece_records(t0, t1);
    uint8_t *buf = gs_xmalloc(bytes);
    if (r == 0)
      read_piece(gr, rd, t0, t1, buf);
    else
      transfer(buf, bytes, r, 0, sp->comm);
    place_piece(gr, rd->bytes, t0, t1, buf, out);
    free(buf);
  }
}

/* The state of a reader of device arrays. */
typedef struct field_reader {
  gs_fdtd3_sim *m;
  int narr;
  const void *dev[8];
  size_t elem[8];
  uint8_t *host[8]; /* plane k of each array */
} field_reader;

static void field_plane(void *ctx, int64_t k) {
  field_reader *f = ctx;
  gs_fdtd3_sim *m = f->m;
  for (int q = 0; q < f->narr; ++q)
    m->b->copy_d2h(f->host[q], (const uint8_t *)f->dev[q] + f->elem[q] * (size_t)((k - m->org[2]) * m->plane),
                   f->elem[q] * (size_t)m->plane, m->s);
  m->b->stream_sync(m->s);
}

static void field_value(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst) {
  (void)k;
  const field_reader *f = ctx;
  const gs_fdtd3_sim *m = f->m;
  const size_t at = (size_t)((j - m->org[1]) * m->pitch + i - m->org[0]);
  for (int q = 0; q < f->narr; ++q) {
    memcpy(dst, f->host[q] + f->elem[q] * at, f->elem[q]);
    dst += f->elem[q];
  }
}

gs_fdtd3_reader gs_fdtd3_field_reader(gs_fdtd3_sim *m, int narr, const void *const *dev, const size_t *elem) {
  field_reader *f = gs_xcalloc(1, sizeof *f);
  gs_fdtd3_reader rd = {field_plane, field_value, f, 0};
  if (narr > 8) gs_fatal("gs_fdtd3_field_reader", "more than 8 arrays", __FILE__, __LINE__);
  f->m = m;
  f->narr = narr;
  for (int q = 0; q < narr; ++q) {
    f->dev[q] = dev[q];
    f->elem[q] = elem[q];
    f->host[q] = gs_xmalloc(elem[q] * (size_t)m->plane);
    rd.bytes += elem[q];
  }
  return rd;
}

void gs_fdtd3_field_reader_free(gs_fdtd3_reader *rd) {
  field_reader *f = rd->ctx;
  if (!f) return;
  for (int q = 0; q < f->narr; ++q)
    free(f->host[q]);
  free(f);
  rd->ctx = NULL;
}

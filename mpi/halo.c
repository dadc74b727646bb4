#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

struct gs_halo {
  MPI_Comm cart;
  const gs_backend *b;
  int64_t nxl, nyl, pitch;
  int g;
  int left, right, down, up; /* neighbour ranks or MPI_PROC_NULL */
  float *send, *recv;        /* pinned host staging, nfields * max(nxl, nyl) floats */
  size_t cap;
  double bytes, seconds;     /* statistics */
};

gs_halo *gs_halo_create(MPI_Comm cart, const gs_backend *b, int64_t nxl, int64_t nyl, int64_t pitch, int g, int nfields) {
  gs_halo *h = gs_xcalloc(1, sizeof *h);
  h->cart = cart;
  h->b = b;
  h->nxl = nxl;
  h->nyl = nyl;
  h->pitch = pitch;
  h->g = g;
  GS_MPI_CHECK(MPI_Cart_shift(cart, 0, 1, &h->left, &h->right));
  GS_MPI_CHECK(MPI_Cart_shift(cart, 1, 1, &h->down, &h->up));
  h->cap = (size_t)nfields * (size_t)(nxl > nyl ? nxl : nyl);
  h->send = b->host_alloc(h->cap * sizeof(float));
  h->recv = b->host_alloc(h->cap * sizeof(float));
  return h;
}

void gs_halo_destroy(gs_halo *h) {
  if (!h) return;
  h->b->host_free(h->send);
  h->b->host_free(h->recv);
  free(h);
}

/* Offset (floats) of owned node (i, j), ghosts at -1 and nxl / nyl. */
static size_t at(const gs_halo *h, int64_t i, int64_t j) {
  return (size_t)((j + h->g) * h->pitch + (i + h->g));
}

/* One direction: pack line `from` of each field that wants ghost `want`,
 * send to `dest`, receive from `src` into line `into`. cols: lines are
 * columns (x direction) rather than rows. */
static void shift(gs_halo *h, float *const *fields, const unsigned *ghosts, int n, unsigned want, int64_t from,
                  int64_t into, int dest, int src, int cols, gs_stream s) {
  const gs_backend *b = h->b;
  int64_t len = cols ? h->nyl : h->nxl;
  int count = 0;
  for (int k = 0; k < n; ++k) {
    if (!(ghosts[k] & want)) continue;
    float *dst = h->send + (size_t)count * (size_t)len;
    if (dest != MPI_PROC_NULL) {
      if (cols)
        b->copy_2d(dst, sizeof(float), fields[k] + at(h, from, 0), (size_t)h->pitch * sizeof(float), sizeof(float),
                   (size_t)len, 0, s);
      else
        b->copy_d2h(dst, fields[k] + at(h, 0, from), (size_t)len * sizeof(float), s);
    }
    ++count;
  }
  if (!count) return;
  b->stream_sync(s);
  if (dest != MPI_PROC_NULL) h->bytes += (double)count * (double)len * sizeof(float);
  GS_MPI_CHECK(MPI_Sendrecv(h->send, (int)(count * len), MPI_FLOAT, dest, (int)want, h->recv, (int)(count * len),
                            MPI_FLOAT, src, (int)want, h->cart, MPI_STATUS_IGNORE));
  if (src == MPI_PROC_NULL) return;
  count = 0;
  for (int k = 0; k < n; ++k) {
    if (!(ghosts[k] & want)) continue;
    const float *from_buf = h->recv + (size_t)count * (size_t)len;
    if (cols)
      b->copy_2d(fields[k] + at(h, into, 0), (size_t)h->pitch * sizeof(float), from_buf, sizeof(float), sizeof(float),
                 (size_t)len, 1, s);
    else
      b->copy_h2d(fields[k] + at(h, 0, into), from_buf, (size_t)len * sizeof(float), s);
    ++count;
  }
  b->stream_sync(s);
}

void gs_halo_stats(const gs_halo *h, double *bytes_sent, double *seconds) {
  *bytes_sent = h->bytes;
  *seconds = h->seconds;
}

void gs_halo_exchange(gs_halo *h, float *const *fields, const unsigned *ghosts, int n, gs_stream s) {
  gs_fault_point("halo.exchange");
  double t0 = MPI_Wtime();
  /* Left ghosts come from the left neighbour's last column, and so on. */
  shift(h, fields, ghosts, n, GS_GHOST_LEFT, h->nxl - 1, -1, h->right, h->left, 1, s);
  shift(h, fields, ghosts, n, GS_GHOST_RIGHT, 0, h->nxl, h->left, h->right, 1, s);
  shift(h, fields, ghosts, n, GS_GHOST_BOTTOM, h->nyl - 1, -1, h->up, h->down, 0, s);
  shift(h, fields, ghosts, n, GS_GHOST_TOP, 0, h->nyl, h->down, h->up, 0, s);
  h->seconds += MPI_Wtime() - t0;
}

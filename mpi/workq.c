#include "workq.h"

#include <stdlib.h>

#include "error.h"

struct gs_workq {
  MPI_Comm comm;
  MPI_Win win;
  int64_t *base; /* rank 0: [next, done] */
  int64_t n;
};

gs_workq *gs_workq_create(MPI_Comm comm, int64_t n) {
  gs_workq *q = gs_xcalloc(1, sizeof *q);
  q->n = n;
  GS_MPI_CHECK(MPI_Comm_dup(comm, &q->comm));
  int rank;
  GS_MPI_CHECK(MPI_Comm_rank(q->comm, &rank));
  MPI_Aint size = rank == 0 ? (MPI_Aint)(2 * sizeof(int64_t)) : 0;
  GS_MPI_CHECK(MPI_Win_allocate(size, sizeof(int64_t), MPI_INFO_NULL, q->comm, &q->base, &q->win));
  if (rank == 0) q->base[0] = q->base[1] = 0;
  GS_MPI_CHECK(MPI_Barrier(q->comm));
  GS_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, q->win));
  return q;
}

static int64_t fetch_add(gs_workq *q, int slot, int64_t k, MPI_Op op) {
  int64_t old = 0;
  GS_MPI_CHECK(MPI_Fetch_and_op(&k, &old, MPI_INT64_T, 0, slot, op, q->win));
  GS_MPI_CHECK(MPI_Win_flush(0, q->win));
  return old;
}

int64_t gs_workq_next(gs_workq *q) {
  int64_t i = fetch_add(q, 0, 1, MPI_SUM);
  return i < q->n ? i : -1;
}

void gs_workq_add_done(gs_workq *q, int64_t k) {
  if (k) fetch_add(q, 1, k, MPI_SUM);
}

int64_t gs_workq_done(gs_workq *q) {
  return fetch_add(q, 1, 0, MPI_NO_OP);
}

void gs_workq_poll(gs_workq *q) {
  int flag = 0;
  GS_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, q->comm, &flag, MPI_STATUS_IGNORE));
}

void gs_workq_destroy(gs_workq *q) {
  GS_MPI_CHECK(MPI_Win_unlock_all(q->win));
  GS_MPI_CHECK(MPI_Win_free(&q->win));
  GS_MPI_CHECK(MPI_Comm_free(&q->comm));
  free(q);
}

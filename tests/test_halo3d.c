/* 3D boxes through the halo exchange (mpi/halo.h: arrays with planes, boxes
 * with [c0, c1)), under the 3D split over ranks. Two ranks split a small 3D
 * grid along x, then y, then z; each owns half the nodes plus one ghost
 * layer on the shared face and sends its face plane (for x: a box one float
 * wide, rows across y and planes across z). Every value encodes its global
 * node and the buffer parity, so a misplaced row, plane or parity shows.
 * Both the blocking exchange and the pipelined one (send, finish, wait).
 * Arguments: [cpu|gpu] [transport]; "gpu" skips (77) without a GPU. Run
 * under mpiexec with 2 ranks (1 rank: skipped, 77). */
#include <string.h>

#include "backend.h"
#include "check.h"
#include "halo.h"

enum { N = 13 }; /* nodes per axis of the whole grid */

static float value(int64_t a, int64_t b, int64_t c, int parity) {
  return (float)(a + 16 * b + 256 * c) + (parity ? 0.5f : 0.0f);
}

/* One rank's array: nodes lo..hi-1 per axis (ghost included), x fastest. */
typedef struct part {
  int64_t lo[3], hi[3], own_lo, own_hi; /* own range along the split axis */
} part;

static part part_of(int axis, int rank) {
  part p;
  for (int a = 0; a < 3; ++a)
    p.lo[a] = 0, p.hi[a] = N;
  p.own_lo = rank ? N / 2 : 0;
  p.own_hi = rank ? N : N / 2;
  p.lo[axis] = rank ? p.own_lo - 1 : 0;
  p.hi[axis] = rank ? N : p.own_hi + 1;
  return p;
}

static gs_halo_box_g plane_box(int axis, int64_t at) {
  int64_t lo[3] = {0, 0, 0}, hi[3] = {N, N, N};
  lo[axis] = at;
  hi[axis] = at + 1;
  return (gs_halo_box_g){0, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
}

/* Owned nodes hold their value, ghosts -1; then the exchange; then every
 * node must hold its value. Returns the wrong nodes. */
static long exchange_axis(const gs_backend *b, gs_halo_transport t, int axis, int rank, int pipelined) {
  part p = part_of(axis, rank);
  int64_t n[3] = {p.hi[0] - p.lo[0], p.hi[1] - p.lo[1], p.hi[2] - p.lo[2]}, count = n[0] * n[1] * n[2];
  float *host = malloc(sizeof(float) * (size_t)count), *buf[2];
  for (int par = 0; par < 2; ++par) {
    for (int64_t c = 0; c < n[2]; ++c)
      for (int64_t bb = 0; bb < n[1]; ++bb)
        for (int64_t a = 0; a < n[0]; ++a) {
          int64_t g[3] = {p.lo[0] + a, p.lo[1] + bb, p.lo[2] + c};
          int own = g[axis] >= p.own_lo && g[axis] < p.own_hi;
          host[(c * n[1] + bb) * n[0] + a] = own ? value(g[0], g[1], g[2], par) : -1.0f;
        }
    buf[par] = b->dev_alloc(sizeof(float) * (size_t)count);
    b->copy_h2d(buf[par], host, sizeof(float) * (size_t)count, NULL);
  }
  b->stream_sync(NULL);
  gs_halo_array arr = {{buf[0], buf[1]}, n[0], p.lo[0], p.lo[1], n[0] * n[1], p.lo[2]};
  gs_halo_box_g send = plane_box(axis, rank ? p.own_lo : p.own_hi - 1),
                recv = plane_box(axis, rank ? p.own_lo - 1 : p.own_hi);
  gs_halo_peer peer = {1 - rank, 300 + (rank ? 0 : 2), 300 + (rank ? 2 : 0), 1, 1, &send, &recv};
  char err[256] = "";
  gs_halo *h = gs_halo_create(MPI_COMM_WORLD, b, &arr, 1, &peer, 1, t, 0, err, sizeof err);
  CHECKF(h != NULL, "axis %d: gs_halo_create: %s", axis, err);
  long bad = h ? 0 : 1;
  for (int par = 0; par < 2 && h; ++par) {
    if (pipelined) {
      gs_halo_send(h, par, NULL);
      gs_halo_finish(h, par, NULL);
      gs_halo_wait(h, NULL);
    } else {
      gs_halo_exchange(h, par, NULL);
    }
    b->stream_sync(NULL);
    b->copy_d2h(host, buf[par], sizeof(float) * (size_t)count, NULL);
    b->stream_sync(NULL);
    for (int64_t c = 0; c < n[2]; ++c)
      for (int64_t bb = 0; bb < n[1]; ++bb)
        for (int64_t a = 0; a < n[0]; ++a)
          bad += host[(c * n[1] + bb) * n[0] + a] != value(p.lo[0] + a, p.lo[1] + bb, p.lo[2] + c, par);
  }
  if (h) gs_halo_destroy(h);
  for (int par = 0; par < 2; ++par)
    b->dev_free(buf[par]);
  free(host);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const gs_backend *b = &gs_backend_cpu;
  int want_gpu = argc > 1 && !strcmp(argv[1], "gpu");
#ifdef GS_HAVE_CUDA
  if (want_gpu && gs_cuda_probe() > 0) {
    b = &gs_backend_cuda;
    b->device_select(rank % gs_cuda_probe());
  } else if (want_gpu) {
    b = NULL;
  }
#else
  if (want_gpu) b = NULL;
#endif
  int t = argc > 2 ? gs_halo_transport_parse(argv[2]) : GS_HALO_MPI_HOST;
  if (size != 2 || !b || t < 0) {
    if (rank == 0) printf("test_halo3d: needs 2 ranks%s: skipped\n", b ? "" : " and a GPU");
    rc = GS_TEST_SKIP;
  } else {
    for (int axis = 0; axis < 3; ++axis)
      for (int pipelined = 0; pipelined < 2; ++pipelined) {
        long bad = exchange_axis(b, (gs_halo_transport)t, axis, rank, pipelined);
        CHECKF(bad == 0, "rank %d, split along %c, %s exchange: %ld nodes wrong", rank, "xyz"[axis],
               pipelined ? "pipelined" : "blocking", bad);
      }
    rc = gs_test_done("test_halo3d");
    int all;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rc = all;
  }
  MPI_Finalize();
  return rc;
}

/* Halo exchange between neighbouring ranks: boxes of double-buffered float
 * arrays go from the rank that owns them into its neighbours' ghost layers.
 * Knows nothing of physics: the caller (src/engine/fdtd_dist.c) says which boxes.
 *
 * One transport per neighbour, chosen at creation:
 *   ipc       same node, GPUs that can reach each other (or the same GPU):
 *             CUDA IPC memory handles are swapped once over MPI; in the loop
 *             a copy kernel stores the boxes straight into the neighbour's
 *             arrays (NVLink), then a one-thread kernel raises a flag in the
 *             neighbour's memory that its stream waits for on the device: no
 *             MPI call and no host wait in the loop. GPUSTENCIL_IPC_SYNC=event
 *             orders them with IPC events instead (recorded, then announced
 *             through a counter in node-shared memory, since an event must be
 *             recorded before another process waits on it) - slower, measured
 *             in docs/performance.md.
 *   mpi-cuda  a CUDA-aware MPI: boxes packed by a kernel into contiguous
 *             device buffers that go to MPI_Isend / MPI_Irecv.
 *   mpi-host  any MPI: the same packing into pinned host buffers.
 * On the CPU backend only mpi-host exists ("device" memory is host memory).
 *
 * In the loop: gs_halo_send() after the owned boxes are computed (queued on
 * a stream, usually the high-priority one), gs_halo_finish() after the rest of
 * the step is queued (MPI transports wait for the packing and talk to MPI
 * here), gs_halo_wait() on the stream that next reads the ghosts. */
#ifndef GS_HALO_H
#define GS_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "backend.h"

typedef enum { GS_HALO_AUTO = 0, GS_HALO_IPC, GS_HALO_MPI_CUDA, GS_HALO_MPI_HOST } gs_halo_transport;

/* The transport --halo-transport auto takes for a neighbour: ipc where it is
 * possible both ways (same node; the same GPU, or peer access each way), else
 * mpi-cuda with a CUDA-aware MPI on GPUs, else mpi-host. */
gs_halo_transport gs_halo_auto(int ipc_possible, int cuda_aware, int is_gpu);

/* "auto", "ipc", "mpi-cuda", "mpi-host"; parse returns -1 for anything else. */
const char *gs_halo_transport_name(gs_halo_transport t);
int gs_halo_transport_parse(const char *s);
/* Whether transport want can run at all with backend b and an MPI that is
 * (cuda_aware 1) or is not CUDA-aware: 1, or 0 with the reason in err. Asked
 * before any exchange exists, so that an impossible --halo-transport is
 * refused on one rank as on many. */
int gs_halo_transport_possible(gs_halo_transport want, const gs_backend *b, int cuda_aware, char *err, size_t errlen);

/* One array: two buffers (parity 0 and 1), dev_alloc blocks (their start),
 * element (a, b) of the global grid at buf[(b - b0) * pitch + (a - a0)];
 * a 3D array also has planes: element (a, b, c) at buf[(c - c0) * plane +
 * (b - b0) * pitch + (a - a0)] (plane and c0 0 in 2D).
 * buf NULL: this rank has no such array (then no box names it). */
typedef struct gs_halo_array {
  float *buf[2];
  int64_t pitch, a0, b0;
  int64_t plane, c0;
} gs_halo_array;

/* Nodes [a0, a1) x [b0, b1) of one array, global coordinates; in 3D also
 * planes [c0, c1) (c1 <= c0: the one plane c0, as in 2D where both are 0). */
typedef struct gs_halo_box_g {
  int array;
  int64_t a0, a1, b0, b1;
  int64_t c0, c1;
} gs_halo_box_g;

/* A neighbour: its rank in comm, the boxes this rank sends it (from its own
 * arrays) and receives from it (into its ghost layers). Two neighbours list
 * each other's boxes in the same order. tag: the same number on both sides
 * (e.g. a direction index of the sender). */
typedef struct gs_halo_peer {
  int rank, send_tag, recv_tag;
  int nsend, nrecv;
  const gs_halo_box_g *send, *recv;
} gs_halo_peer;

typedef struct gs_halo gs_halo;

/* Collective over comm (every rank calls it, npeers may be 0). want: the
 * transport asked for; auto takes ipc where possible, else mpi-cuda where MPI
 * is CUDA-aware and the backend is a GPU, else mpi-host. reads_done: 1 when
 * the caller calls gs_halo_reads_done() before every exchange after the
 * first (needed when ghosts are read by several steps, deep halos). Returns
 * NULL with the reason in err (on every rank that found one) for an
 * impossible choice; the ranks agree on success. */
gs_halo *gs_halo_create(MPI_Comm comm, const gs_backend *b, const gs_halo_array *arrays, int narrays,
                        const gs_halo_peer *peers, int npeers, gs_halo_transport want, int reads_done, char *err,
                        size_t errlen);
void gs_halo_destroy(gs_halo *h);

/* The transport used with peer k, and a summary over all peers for this rank
 * ("ipc", "mpi-host", "ipc+mpi-host", "none"). */
gs_halo_transport gs_halo_peer_transport(const gs_halo *h, int k);
const char *gs_halo_summary(const gs_halo *h, char *buf, size_t n);

/* Blocking, after the work queued on s: fills every ghost box of buffer
 * parity through pinned host memory and MPI, whatever the transport
 * (start-up, restart). Collective over the neighbours. */
void gs_halo_exchange(gs_halo *h, int parity, gs_stream s);

/* The pipelined exchange of buffer parity (see the top of this file). */
void gs_halo_send(gs_halo *h, int parity, gs_stream s);
void gs_halo_finish(gs_halo *h, int parity, gs_stream s);
void gs_halo_wait(gs_halo *h, gs_stream s);
/* Work queued on s so far is the last to read the ghost layers that the next
 * exchange overwrites (only with reads_done). */
void gs_halo_reads_done(gs_halo *h, gs_stream s);

/* CUDA graphs. graphable: 1 when the loop's exchanges need no host step
 * (ipc with device flags only, or no neighbour). capture(h, base) before
 * queuing the exchanges of a graph being captured: their flag values are
 * then read from the device word base (the exchange count where a replay
 * starts, kept by the caller); capture(h, NULL) after it, which forgets the
 * captured exchanges (they have not run). advance: n exchanges were done by
 * a replay. */
int gs_halo_graphable(const gs_halo *h);
void gs_halo_capture(gs_halo *h, const int64_t *base);
void gs_halo_advance(gs_halo *h, int64_t n);

/* Bytes this rank sends per exchange, and exchanges done so far. */
double gs_halo_bytes_per_exchange(const gs_halo *h);
int64_t gs_halo_exchanges(const gs_halo *h);

#endif

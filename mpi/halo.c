#include "halo.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "config.h"
#include "error.h"
#include "log.h"

#define GS_HALO_SPIN_LIMIT_S 120.0

/* Per-rank counters in node-shared memory, each on its own cache line:
 * data = exchanges whose IPC event is recorded; free = exchanges the rank
 * allows into its ghost layers (reads_done). */
typedef struct counters {
  _Atomic int64_t data;
  char pad0[56];
  _Atomic int64_t free;
  char pad1[56];
} counters;

typedef struct peer {
  gs_halo_peer p; /* boxes copied */
  gs_halo_transport t;
  size_t send_floats, recv_floats;
  float *sbuf, *rbuf;   /* mpi-cuda: device; mpi-host: pinned host */
  float *hsend, *hrecv; /* pinned host, for gs_halo_exchange */
  /* ipc */
  int node_rank;             /* in the node communicator, MPI_UNDEFINED on another node */
  gs_halo_array remote[16];  /* the peer's arrays (opened where this rank stores into them) */
  gs_event ev_data, ev_free; /* the peer's events, opened (sync "event") */
  counters *cnt;             /* the peer's counters (sync "event") */
  uint64_t *rflags;          /* the peer's flags, opened (sync "flag") */
  /* ipc, staged (boxes of short rows, e.g. columns): this rank packs its send
   * boxes into sbuf (device) and stores that into the peer's stage[parity];
   * the peer unpacks after its wait. recv_stage: mine, the peer stores into
   * them; send_stage: the peer's, opened. */
  float *recv_stage[2], *send_stage[2];
  /* For the debug line: why this transport, and why not ipc (NULL when
   * ipc was not a candidate or not wanted). */
  const char *reason, *no_ipc_why;
} peer;

struct gs_halo {
  MPI_Comm comm;
  const gs_backend *b;
  gs_halo_array arr[16];
  int narr;
  peer *peers;
  int npeers, nipc, nmpi, reads_done;
  gs_event ev_data, ev_free; /* mine, inter-process (ipc, sync "event") */
  uint64_t *flags;           /* mine (ipc, sync "flag"): [0, 16) data from, [16, 32) reads done by, a peer;
                                [32] the block count of the fused copy and signal */
  int sync_flag;             /* ipc ordering: 1 device flags, 0 IPC events + host counters */
  int ipc_engine;            /* GPUSTENCIL_IPC_COPY=engine (and a backend with copy_2d_d2d): ipc boxes by copy engine */
  int parity;                /* of the last send (the staged boxes to unpack) */
  gs_event ev_packed, ev_done;
  MPI_Win win;
  counters *mine;
  int64_t nexch;
  /* While a CUDA graph is captured: flag values are read from *base (the
   * exchange count where the replay starts) plus their offset from nexch0. */
  const int64_t *base;
  int64_t nexch0;
  double bytes;
  MPI_Request *req;
};

const char *gs_halo_transport_name(gs_halo_transport t) {
  switch (t) {
  case GS_HALO_IPC:
    return "ipc";
  case GS_HALO_MPI_CUDA:
    return "mpi-cuda";
  case GS_HALO_MPI_HOST:
    return "mpi-host";
  default:
    return "auto";
  }
}

gs_halo_transport gs_halo_auto(int ipc_possible, int cuda_aware, int is_gpu) {
  return ipc_possible ? GS_HALO_IPC : cuda_aware && is_gpu ? GS_HALO_MPI_CUDA : GS_HALO_MPI_HOST;
}

int gs_halo_transport_parse(const char *s) {
  for (int t = GS_HALO_AUTO; t <= GS_HALO_MPI_HOST; ++t)
    if (strcmp(s, gs_halo_transport_name((gs_halo_transport)t)) == 0) return t;
  return -1;
}

/* Flag slots: a message's tag (300..308, the direction from its sender)
 * picks the receiver's data slot and the sender's reads-done slot. */
static int slot(int tag) {
  return (tag - 300) & 15;
}

static int64_t box_planes(const gs_halo_box_g *x) {
  return x->c1 > x->c0 ? x->c1 - x->c0 : 1;
}

static size_t box_floats(const gs_halo_box_g *x) {
  return (size_t)((x->a1 - x->a0) * (x->b1 - x->b0) * box_planes(x));
}

/* Node (a0, b0, c0) of box x in one buffer of array a. */
static float *corner(const gs_halo_array *a, int parity, const gs_halo_box_g *x) {
  return a->buf[parity] + (x->c0 - a->c0) * a->plane + (x->b0 - a->b0) * a->pitch + (x->a0 - a->a0);
}

/* Flag value v (an exchange number) as the kernels take it. */
static gs_tick tick(const gs_halo *h, int64_t v) {
  gs_tick t = {h->base, h->base ? v - h->nexch0 : v};
  return t;
}

/* Adds box x to the launch being gathered in l, launching it when full or
 * last (the last launch raises l's flag, if any). */
static void queue(gs_halo *h, gs_halo_boxes *l, gs_halo_box x, int last, gs_stream s) {
  l->box[l->n++] = x;
  if (l->n == GS_HALO_MAX_BOXES || last) {
    uint64_t *flag = l->flag;
    if (!last) l->flag = NULL;
    h->b->halo_copy(l, s);
    l->flag = flag;
    l->n = 0;
  }
}

/* Copies boxes between the arrays and the contiguous buffer buf. to_buf:
 * from the arrays into buf (packing); else from buf into them. */
static void pack(gs_halo *h, const gs_halo_box_g *bx, int n, int parity, float *buf, int to_buf, gs_stream s) {
  gs_halo_boxes l = {0};
  size_t off = 0;
  for (int k = 0; k < n; ++k) {
    float *f = corner(&h->arr[bx[k].array], parity, &bx[k]);
    const gs_halo_array *a = &h->arr[bx[k].array];
    int64_t w = bx[k].a1 - bx[k].a0, ht = bx[k].b1 - bx[k].b0, d = box_planes(&bx[k]);
    queue(h, &l,
          to_buf ? (gs_halo_box){f, buf + off, a->pitch, w, w, ht, d, a->plane, w * ht}
                 : (gs_halo_box){buf + off, f, w, a->pitch, w, ht, d, w * ht, a->plane},
          k == n - 1, s);
    off += box_floats(&bx[k]);
  }
}

/* ipc: stores my send boxes straight into the peer's arrays; with sync
 * "flag", then raises the peer's data flag: fused into the last copy
 * kernel, or a one-thread kernel after copy-engine copies. */
static void push(gs_halo *h, peer *q, int parity, gs_stream s) {
  gs_halo_boxes l = {0};
  if (h->sync_flag) { /* raised by the last launch of the copy kernel, or by a signal after the engine's copies */
    l.flag = &q->rflags[slot(q->p.send_tag)];
    l.value = tick(h, h->nexch);
    l.count = (unsigned *)&h->flags[32];
  }
  if (q->send_stage[0]) { /* staged: pack here, one contiguous store, the flag fused into it */
    pack(h, q->p.send, q->p.nsend, parity, q->sbuf, 1, s);
    queue(h, &l, (gs_halo_box){q->sbuf, q->send_stage[parity], 0, 0, (int64_t)q->send_floats, 1, 1, 0, 0}, 1, s);
    return;
  }
  for (int k = 0; k < q->p.nsend; ++k) {
    const gs_halo_box_g *x = &q->p.send[k];
    const gs_halo_array *mine = &h->arr[x->array], *theirs = &q->remote[x->array];
    float *from = corner(mine, parity, x), *to = corner(theirs, parity, x);
    int64_t w = x->a1 - x->a0, ht = x->b1 - x->b0, d = box_planes(x);
    if (h->ipc_engine)
      for (int64_t c = 0; c < d; ++c)
        h->b->copy_2d_d2d(to + c * theirs->plane, (size_t)theirs->pitch * sizeof(float), from + c * mine->plane,
                          (size_t)mine->pitch * sizeof(float), (size_t)w * sizeof(float), (size_t)ht, s);
    else
      queue(h, &l, (gs_halo_box){from, to, mine->pitch, theirs->pitch, w, ht, d, mine->plane, theirs->plane},
            k == q->p.nsend - 1, s);
  }
  if (l.flag && (h->ipc_engine || q->p.nsend == 0)) h->b->halo_signal(l.flag, l.value, s);
}

/* Sends bytes from send + k * sstride to every peer k and receives bytes
 * from it into recv + k * bytes (non-blocking both ways, then waits). */
static void swap(gs_halo *h, const gs_halo_peer *peers, int n, const void *send, size_t sstride, void *recv,
                 size_t bytes) {
  for (int k = 0; k < n; ++k) {
    GS_MPI_CHECK(MPI_Irecv((char *)recv + (size_t)k * bytes, (int)bytes, MPI_BYTE, peers[k].rank, peers[k].recv_tag,
                           h->comm, &h->req[k]));
    GS_MPI_CHECK(MPI_Isend((const char *)send + (size_t)k * sstride, (int)bytes, MPI_BYTE, peers[k].rank,
                           peers[k].send_tag, h->comm, &h->req[n + k]));
  }
  GS_MPI_CHECK(MPI_Waitall(2 * n, h->req, MPI_STATUSES_IGNORE));
}

static void spin_until(_Atomic int64_t *c, int64_t v, int rank, const char *what) {
  if (atomic_load_explicit(c, memory_order_acquire) >= v) return;
  double t0 = MPI_Wtime();
  for (unsigned k = 1;; ++k) {
    if (atomic_load_explicit(c, memory_order_acquire) >= v) return;
    if ((k & 1023) == 0) {
      sched_yield();
      if (MPI_Wtime() - t0 > GS_HALO_SPIN_LIMIT_S) {
        char d[200];
        snprintf(d, sizeof d, "neighbour rank %d did not reach %s %lld within %.0f s", rank, what, (long long)v,
                 GS_HALO_SPIN_LIMIT_S);
        gs_fatal("gs_halo (ipc)", d, __FILE__, __LINE__);
      }
    }
  }
}

/* What a rank tells each neighbour about itself at creation. */
typedef struct desc {
  char bus[32];
  int has_ipc, sync_flag;
  int64_t pitch[16], a0[16], b0[16], plane[16], c0[16];
  unsigned char mem[16][2][GS_IPC_HANDLE_BYTES];
  unsigned char ev[2][GS_IPC_HANDLE_BYTES];
  unsigned char flags[GS_IPC_HANDLE_BYTES];
} desc;

/* What gs_halo_create carries from one step to the next; released by
 * release_setup() whether the creation succeeds or not. */
typedef struct halo_setup {
  int cuda_aware; /* gs_comm_cuda_aware(), asked once */
  MPI_Comm node;  /* the ranks of comm that share memory with this one */
  MPI_Group comm_group, node_group;
  desc *mine, *theirs;     /* theirs[k]: neighbour k's */
  int *ipc_ok;             /* [k]: neighbour k reachable by ipc; [npeers + k]: its own view, then both */
  const char **no_ipc_why; /* [k]: why ipc_ok[k] is 0 */
} halo_setup;

/* Argument checks: a transport asked for that this rank cannot give. Returns
 * 1 with the reason in err; the caller still takes part in every collective
 * step, so that the ranks agree at the end and fail together. */
int gs_halo_transport_possible(gs_halo_transport want, const gs_backend *b, int cuda_aware, char *err, size_t errlen) {
  err[0] = '\0';
  if (want == GS_HALO_MPI_CUDA && !(cuda_aware && b->is_gpu)) {
    snprintf(err, errlen, "--halo-transport mpi-cuda: %s",
             !b->is_gpu ? "the cpu backend has no device memory"
                        : "this MPI is not CUDA-aware "
                          "(MPIX_Query_cuda_support() is 0)");
    return 0;
  }
  if (want == GS_HALO_IPC && !b->ipc_mem_handle) {
    snprintf(err, errlen, "--halo-transport ipc: needs the cuda backend (CUDA IPC)");
    return 0;
  }
  return 1;
}

static int check_request(const gs_backend *b, int narrays, gs_halo_transport want, int cuda_aware, char *err,
                         size_t errlen) {
  if (narrays > 16) gs_fatal("gs_halo_create", "more than 16 arrays", __FILE__, __LINE__);
  return !gs_halo_transport_possible(want, b, cuda_aware, err, errlen);
}

static gs_halo *halo_new(MPI_Comm comm, const gs_backend *b, const gs_halo_array *arrays, int narrays, int npeers,
                         int reads_done) {
  gs_halo *h = gs_xcalloc(1, sizeof *h);
  h->comm = comm;
  h->b = b;
  h->narr = narrays;
  memcpy(h->arr, arrays, sizeof *arrays * (size_t)narrays);
  h->npeers = npeers;
  h->reads_done = reads_done;
  h->peers = gs_xcalloc((size_t)npeers + 1, sizeof *h->peers);
  h->req = gs_xcalloc(2 * (size_t)npeers + 1, sizeof *h->req);
  return h;
}

/* Collective over comm: the node communicator, this rank's counters in
 * node-shared memory (every rank of comm takes part, ipc or not) and the
 * groups that translate a neighbour's rank into the node's numbering. */
static void open_node_counters(gs_halo *h, halo_setup *su) {
  int rank;
  GS_MPI_CHECK(MPI_Comm_rank(h->comm, &rank));
  GS_MPI_CHECK(MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &su->node));
  GS_MPI_CHECK(MPI_Win_allocate_shared((MPI_Aint)sizeof(counters), 1, MPI_INFO_NULL, su->node, &h->mine, &h->win));
  atomic_store(&h->mine->data, 0);
  atomic_store(&h->mine->free, 0);
  GS_MPI_CHECK(MPI_Barrier(su->node));
  GS_MPI_CHECK(MPI_Comm_group(h->comm, &su->comm_group));
  GS_MPI_CHECK(MPI_Comm_group(su->node, &su->node_group));
}

/* This rank's description: its GPU, its arrays' layout and, when it offers
 * ipc, handles on its arrays, its events and its flags (made here). */
static void describe_self(gs_halo *h, desc *me, gs_halo_transport want, int bad) {
  const gs_backend *b = h->b;
  if (b->is_gpu) {
    gs_device_desc dd;
    b->device_describe(b->device_current(), &dd);
    snprintf(me->bus, sizeof me->bus, "%s", dd.pci_bus_id);
  }
  me->has_ipc = b->ipc_mem_handle != NULL && want != GS_HALO_MPI_CUDA && want != GS_HALO_MPI_HOST && !bad;
  for (int k = 0; k < h->narr; ++k) {
    me->pitch[k] = h->arr[k].pitch;
    me->a0[k] = h->arr[k].a0;
    me->b0[k] = h->arr[k].b0;
    me->plane[k] = h->arr[k].plane;
    me->c0[k] = h->arr[k].c0;
    if (me->has_ipc && h->arr[k].buf[0])
      for (int p = 0; p < 2; ++p)
        b->ipc_mem_handle(h->arr[k].buf[p], me->mem[k][p]);
  }
  /* How ipc neighbours order their stores: device flags (default), or IPC
   * events with node-shared host counters (GPUSTENCIL_IPC_SYNC=event; the
   * other design, kept for comparison: docs/performance.md). */
  const gs_config *cfg = gs_config_get();
  h->sync_flag = me->sync_flag = cfg->ipc_sync == GS_IPC_SYNC_FLAG;
  /* GPUSTENCIL_IPC_COPY=engine sends ipc boxes by a copy engine
   * (cudaMemcpy2DAsync into the peer's memory) instead of the copy kernel:
   * measured slower at every halo size tried, 0.13 to 96 MB
   * (docs/performance.md), kept for comparison. */
  h->ipc_engine = b->copy_2d_d2d && cfg->ipc_copy_engine;
  if (me->has_ipc) {
    h->ev_data = b->ipc_event_create();
    h->ev_free = b->ipc_event_create();
    b->ipc_event_handle(h->ev_data, me->ev[0]);
    b->ipc_event_handle(h->ev_free, me->ev[1]);
    h->flags = b->dev_alloc(33 * sizeof(uint64_t));
    uint64_t zero[33] = {0};
    b->copy_h2d(h->flags, zero, sizeof zero, NULL);
    b->stream_sync(NULL);
    b->ipc_mem_handle(h->flags, me->flags);
  }
}

/* With every neighbour: swaps the descriptions (su->mine for su->theirs). */
static void exchange_descriptors(gs_halo *h, halo_setup *su, const gs_halo_peer *peers, int npeers,
                                 gs_halo_transport want, int bad) {
  su->mine = gs_xcalloc(1, sizeof *su->mine);
  su->theirs = gs_xcalloc((size_t)npeers + 1, sizeof *su->theirs);
  describe_self(h, su->mine, want, bad);
  swap(h, peers, npeers, su->mine, 0, su->theirs, sizeof *su->mine);
}

/* Whether each neighbour can be reached by ipc, decided the same on both
 * sides (peer access need not be symmetric): each side's view, swapped, and.
 * Also records each neighbour's rank in the node communicator. */
static void decide_ipc_reach(gs_halo *h, halo_setup *su, const gs_halo_peer *peers, int npeers) {
  const gs_backend *b = h->b;
  const desc *me = su->mine;
  int *ok = su->ipc_ok = gs_xcalloc(2 * (size_t)npeers + 1, sizeof *ok);
  const char **why = su->no_ipc_why = gs_xcalloc((size_t)npeers + 1, sizeof *why);
  for (int k = 0; k < npeers; ++k) {
    const desc *them = &su->theirs[k];
    int nr = MPI_UNDEFINED;
    GS_MPI_CHECK(MPI_Group_translate_ranks(su->comm_group, 1, &peers[k].rank, su->node_group, &nr));
    h->peers[k].node_rank = nr;
    ok[k] = me->has_ipc && them->has_ipc && me->sync_flag == them->sync_flag;
    if (nr == MPI_UNDEFINED) {
      ok[k] = 0;
      why[k] = "is on another node";
    } else if (ok[k] && strcmp(me->bus, them->bus) != 0) {
      int d = b->device_by_pci(them->bus);
      if (d < 0 || !b->can_access_peer(b->device_current(), d)) {
        ok[k] = 0;
        why[k] = "uses a GPU this one cannot reach (no peer access)";
      }
    } else if (!ok[k]) {
      why[k] = "has no CUDA IPC (cpu backend)";
    }
  }
  swap(h, peers, npeers, ok, sizeof *ok, ok + npeers, sizeof *ok);
  for (int k = 0; k < npeers; ++k)
    if (ok[k] && !ok[npeers + k]) {
      ok[k] = 0;
      why[k] = "cannot reach this rank's GPU (no peer access on its side)";
    }
}

/* Copies neighbour k's boxes (the caller's may go) and counts their floats. */
static void copy_peer_boxes(peer *q, const gs_halo_peer *src) {
  q->p = *src; /* (node_rank was set by decide_ipc_reach) */
  gs_halo_box_g *s = gs_xmalloc(sizeof *s * ((size_t)src->nsend + 1));
  gs_halo_box_g *r = gs_xmalloc(sizeof *r * ((size_t)src->nrecv + 1));
  memcpy(s, src->send, sizeof *s * (size_t)src->nsend);
  memcpy(r, src->recv, sizeof *r * (size_t)src->nrecv);
  q->p.send = s;
  q->p.recv = r;
  for (int i = 0; i < q->p.nsend; ++i)
    q->send_floats += box_floats(&s[i]);
  for (int i = 0; i < q->p.nrecv; ++i)
    q->recv_floats += box_floats(&r[i]);
}

/* Why neighbour k got transport q->t, for the debug line. */
static const char *transport_reason(const gs_halo *h, const halo_setup *su, const peer *q, int k,
                                    gs_halo_transport want) {
  if (want != GS_HALO_AUTO) return "asked for with --halo-transport";
  if (q->t == GS_HALO_IPC)
    return strcmp(su->mine->bus, su->theirs[k].bus) == 0 ? "same node, same GPU" : "same node, peer access both ways";
  if (q->t == GS_HALO_MPI_CUDA) return "MPI is CUDA-aware";
  return h->b->is_gpu ? "MPI is not CUDA-aware" : "the cpu backend has only mpi-host";
}

/* ipc: opens the neighbour's arrays that this rank stores into, its events,
 * its flags, and finds its counters in the node-shared window. */
static void open_ipc_peer(gs_halo *h, peer *q, const desc *them) {
  const gs_backend *b = h->b;
  for (int a = 0; a < h->narr; ++a) {
    q->remote[a] = (gs_halo_array){{NULL, NULL}, them->pitch[a], them->a0[a], them->b0[a], them->plane[a], them->c0[a]};
    int used = 0;
    for (int i = 0; i < q->p.nsend; ++i)
      used |= q->p.send[i].array == a;
    if (used)
      for (int p = 0; p < 2; ++p)
        q->remote[a].buf[p] = b->ipc_mem_open(them->mem[a][p]);
  }
  q->ev_data = b->ipc_event_open(them->ev[0]);
  q->ev_free = b->ipc_event_open(them->ev[1]);
  q->rflags = b->ipc_mem_open(them->flags);
  MPI_Aint sz;
  int du;
  GS_MPI_CHECK(MPI_Win_shared_query(h->win, q->node_rank, &sz, &du, &q->cnt));
  h->nipc++;
}

/* Neighbour k: its boxes, its transport (want, or the automatic choice) and
 * the buffers that transport needs, plus the pinned host pair of
 * gs_halo_exchange. Returns 1 with the reason in err when ipc was asked for
 * and the neighbour cannot be reached by it. */
static int setup_peer(gs_halo *h, const halo_setup *su, const gs_halo_peer *src, int k, gs_halo_transport want,
                      char *err, size_t errlen) {
  const gs_backend *b = h->b;
  peer *q = &h->peers[k];
  copy_peer_boxes(q, src);
  int ipc_ok = su->ipc_ok[k];
  if (want == GS_HALO_IPC && !ipc_ok) {
    const char *why = su->no_ipc_why[k];
    snprintf(err, errlen, "--halo-transport ipc: neighbour rank %d %s", src->rank, why ? why : "refused");
    return 1;
  }
  /* A transport asked for is possible here: check_request() and the test above refused the others. */
  q->t = want == GS_HALO_AUTO ? gs_halo_auto(ipc_ok, su->cuda_aware, b->is_gpu) : want;
  q->reason = transport_reason(h, su, q, k, want);
  q->no_ipc_why = want == GS_HALO_AUTO && b->is_gpu && !ipc_ok ? su->no_ipc_why[k] : NULL;
  if (q->t == GS_HALO_IPC) {
    open_ipc_peer(h, q, &su->theirs[k]);
  } else {
    size_t sb = (q->send_floats + 1) * sizeof(float), rb = (q->recv_floats + 1) * sizeof(float);
    q->sbuf = q->t == GS_HALO_MPI_CUDA ? b->dev_alloc(sb) : b->host_alloc(sb);
    q->rbuf = q->t == GS_HALO_MPI_CUDA ? b->dev_alloc(rb) : b->host_alloc(rb);
    h->nmpi++;
  }
  q->hsend = q->t == GS_HALO_MPI_HOST ? q->sbuf : b->host_alloc((q->send_floats + 1) * sizeof(float));
  q->hrecv = q->t == GS_HALO_MPI_HOST ? q->rbuf : b->host_alloc((q->recv_floats + 1) * sizeof(float));
  h->bytes += (double)q->send_floats * sizeof(float);
  return 0;
}

/* Whether this rank wants the boxes it receives from ipc neighbour q staged:
 * rows of 2 to 31 floats on average; single floats (R = 1 columns) go faster
 * directly (docs/performance.md). GPUSTENCIL_IPC_STAGE overrides. */
static int wants_staging(const peer *q, gs_ipc_stage stage) {
  if (q->t != GS_HALO_IPC || q->recv_floats == 0 || stage == GS_IPC_STAGE_NEVER) return 0;
  if (stage == GS_IPC_STAGE_ALWAYS) return 1;
  int64_t rows = 0;
  for (int i = 0; i < q->p.nrecv; ++i)
    rows += (q->p.recv[i].b1 - q->p.recv[i].b0) * box_planes(&q->p.recv[i]);
  double per_row = (double)q->recv_floats / (double)(rows ? rows : 1);
  return per_row >= 2.0 && per_row < 32.0;
}

/* Staging for ipc neighbours whose boxes have short rows (columns of a split
 * along x, corners): each rank decides for what it receives and tells the
 * sender by handing it the buffers. The swap happens whatever bad, so that
 * both sides of every neighbour pair make it. */
static void setup_ipc_staging(gs_halo *h, const gs_halo_peer *peers, int npeers, int bad) {
  typedef struct stage_desc {
    int on;
    unsigned char mem[2][GS_IPC_HANDLE_BYTES];
  } stage_desc;
  const gs_backend *b = h->b;
  stage_desc *mine = gs_xcalloc((size_t)npeers + 1, sizeof *mine);
  stage_desc *theirs = gs_xcalloc((size_t)npeers + 1, sizeof *theirs);
  const gs_ipc_stage stage = gs_config_get()->ipc_stage;
  for (int k = 0; k < npeers && !bad; ++k) {
    peer *q = &h->peers[k];
    if (!wants_staging(q, stage)) continue;
    mine[k].on = 1;
    for (int p = 0; p < 2; ++p) {
      q->recv_stage[p] = b->dev_alloc((q->recv_floats + 1) * sizeof(float));
      b->ipc_mem_handle(q->recv_stage[p], mine[k].mem[p]);
    }
  }
  swap(h, peers, npeers, mine, sizeof *mine, theirs, sizeof *theirs);
  for (int k = 0; k < npeers && !bad; ++k) {
    peer *q = &h->peers[k];
    if (!theirs[k].on || q->t != GS_HALO_IPC) continue;
    for (int p = 0; p < 2; ++p)
      q->send_stage[p] = b->ipc_mem_open(theirs[k].mem[p]);
    q->sbuf = b->dev_alloc((q->send_floats + 1) * sizeof(float));
  }
  free(mine);
  free(theirs);
}

/* Collective over the node communicator (its free). */
static void release_setup(halo_setup *su) {
  free(su->mine);
  free(su->theirs);
  free(su->ipc_ok);
  free(su->no_ipc_why);
  GS_MPI_CHECK(MPI_Group_free(&su->comm_group));
  GS_MPI_CHECK(MPI_Group_free(&su->node_group));
  GS_MPI_CHECK(MPI_Comm_free(&su->node));
}

/* One GPUSTENCIL_DEBUG line per neighbour: its transport and why, and for
 * ipc the staging each way and how the stores are ordered. */
static void log_transports(const gs_halo *h) {
  for (int k = 0; k < h->npeers; ++k) {
    const peer *q = &h->peers[k];
    const char *name = gs_halo_transport_name(q->t);
    if (q->t != GS_HALO_IPC) {
      gs_log_debug("halo: neighbour rank %d: %s (%s%s%s%s); %s buffers; sync: the host waits for the packing event",
                   q->p.rank, name, q->no_ipc_why ? "no ipc: neighbour " : "", q->no_ipc_why ? q->no_ipc_why : "",
                   q->no_ipc_why ? "; " : "", q->reason, q->t == GS_HALO_MPI_CUDA ? "device" : "pinned host");
      continue;
    }
    gs_log_debug("halo: neighbour rank %d: ipc (%s); staging send %s, receive %s; sync %s; %s", q->p.rank, q->reason,
                 q->send_stage[0] ? "on" : "off", q->recv_stage[0] ? "on" : "off", h->sync_flag ? "flag" : "event",
                 h->ipc_engine ? "copy engine" : "copy kernel");
  }
}

gs_halo *gs_halo_create(MPI_Comm comm, const gs_backend *b, const gs_halo_array *arrays, int narrays,
                        const gs_halo_peer *peers, int npeers, gs_halo_transport want, int reads_done, char *err,
                        size_t errlen) {
  /* Every step below runs on every rank whatever bad, so that the ranks make
   * the same collective calls in the same order; they agree at the end. */
  halo_setup su = {.cuda_aware = gs_comm_cuda_aware()};
  int bad = check_request(b, narrays, want, su.cuda_aware, err, errlen);
  gs_halo *h = halo_new(comm, b, arrays, narrays, npeers, reads_done);
  open_node_counters(h, &su);
  exchange_descriptors(h, &su, peers, npeers, want, bad);
  decide_ipc_reach(h, &su, peers, npeers);
  for (int k = 0; k < npeers && !bad; ++k)
    bad = setup_peer(h, &su, &peers[k], k, want, err, errlen);
  setup_ipc_staging(h, peers, npeers, bad);
  release_setup(&su);
  h->ev_packed = b->event_create(0);
  h->ev_done = b->event_create(0);
  if (gs_comm_agree(bad, comm)) goto fail;
  log_transports(h);
  return h;
fail:
  h->npeers = 0; /* only what was set up is released */
  for (int k = 0; k < npeers; ++k)
    if (h->peers[k].p.send) h->npeers = k + 1;
  gs_halo_destroy(h);
  return NULL;
}

/* Collective over the ranks of gs_halo_create; each has finished its device
 * work first, so no store into a neighbour's arrays is still in flight. */
void gs_halo_destroy(gs_halo *h) {
  if (!h) return;
  const gs_backend *b = h->b;
  GS_MPI_CHECK(MPI_Barrier(h->comm));
  for (int k = 0; k < h->npeers; ++k) {
    peer *q = &h->peers[k];
    if (q->t == GS_HALO_IPC) {
      for (int a = 0; a < h->narr; ++a)
        for (int p = 0; p < 2; ++p)
          if (q->remote[a].buf[p]) b->ipc_mem_close(q->remote[a].buf[p]);
      b->event_destroy(q->ev_data);
      b->event_destroy(q->ev_free);
      b->ipc_mem_close(q->rflags);
      if (q->send_stage[0]) {
        for (int p = 0; p < 2; ++p)
          b->ipc_mem_close(q->send_stage[p]);
        b->dev_free(q->sbuf);
      }
    } else {
      if (q->t == GS_HALO_MPI_CUDA) {
        b->dev_free(q->sbuf);
        b->dev_free(q->rbuf);
      } else {
        b->host_free(q->sbuf);
        b->host_free(q->rbuf);
      }
    }
    if (q->t != GS_HALO_MPI_HOST) {
      b->host_free(q->hsend);
      b->host_free(q->hrecv);
    }
    free((void *)q->p.send);
    free((void *)q->p.recv);
  }
  if (h->ev_data) b->event_destroy(h->ev_data);
  /* (my flags go after the second barrier: the neighbours close them first) */
  if (h->ev_free) b->event_destroy(h->ev_free);
  if (h->ev_packed) b->event_destroy(h->ev_packed);
  if (h->ev_done) b->event_destroy(h->ev_done);
  /* Every rank has closed its handles on the others' arrays and is done with
   * their counters before any array or counter goes. */
  GS_MPI_CHECK(MPI_Barrier(h->comm));
  if (h->flags) b->dev_free(h->flags);
  for (int k = 0; k < h->npeers; ++k)
    for (int p = 0; p < 2; ++p)
      if (h->peers[k].recv_stage[p]) b->dev_free(h->peers[k].recv_stage[p]);
  GS_MPI_CHECK(MPI_Win_free(&h->win));
  free(h->peers);
  free(h->req);
  free(h);
}

gs_halo_transport gs_halo_peer_transport(const gs_halo *h, int k) {
  return h->peers[k].t;
}

const char *gs_halo_summary(const gs_halo *h, char *buf, size_t n) {
  buf[0] = '\0';
  for (int t = GS_HALO_IPC; t <= GS_HALO_MPI_HOST; ++t) {
    int used = 0;
    for (int k = 0; k < h->npeers; ++k)
      used |= h->peers[k].t == (gs_halo_transport)t;
    if (used) snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "+" : "", gs_halo_transport_name(t));
  }
  if (!buf[0]) snprintf(buf, n, "none");
  return buf;
}

/* MPI part of an exchange: receive into rbufs, send sbufs, wait. */
static void mpi_swap(gs_halo *h, int staged) {
  int nreq = 0;
  for (int k = 0; k < h->npeers; ++k) {
    peer *q = &h->peers[k];
    if (!staged && q->t == GS_HALO_IPC) continue;
    GS_MPI_CHECK(MPI_Irecv(staged ? q->hrecv : q->rbuf, (int)q->recv_floats, MPI_FLOAT, q->p.rank, q->p.recv_tag,
                           h->comm, &h->req[nreq++]));
  }
  for (int k = 0; k < h->npeers; ++k) {
    peer *q = &h->peers[k];
    if (!staged && q->t == GS_HALO_IPC) continue;
    GS_MPI_CHECK(MPI_Isend(staged ? q->hsend : q->sbuf, (int)q->send_floats, MPI_FLOAT, q->p.rank, q->p.send_tag,
                           h->comm, &h->req[nreq++]));
  }
  GS_MPI_CHECK(MPI_Waitall(nreq, h->req, MPI_STATUSES_IGNORE));
}

void gs_halo_exchange(gs_halo *h, int parity, gs_stream s) {
  gs_fault_point("halo.exchange");
  for (int k = 0; k < h->npeers; ++k)
    pack(h, h->peers[k].p.send, h->peers[k].p.nsend, parity, h->peers[k].hsend, 1, s);
  h->b->stream_sync(s);
  mpi_swap(h, 1);
  for (int k = 0; k < h->npeers; ++k)
    pack(h, h->peers[k].p.recv, h->peers[k].p.nrecv, parity, h->peers[k].hrecv, 0, s);
  h->b->stream_sync(s);
}

void gs_halo_send(gs_halo *h, int parity, gs_stream s) {
  gs_fault_point("halo.exchange");
  const gs_backend *b = h->b;
  h->nexch++;
  h->parity = parity;
  for (int k = 0; k < h->npeers; ++k) {
    peer *q = &h->peers[k];
    if (q->t == GS_HALO_IPC) {
      if (h->reads_done) { /* the neighbour has read what this overwrites */
        if (h->sync_flag) {
          b->halo_wait(&h->flags[16 + slot(q->p.send_tag)], tick(h, h->nexch), s);
        } else {
          spin_until(&q->cnt->free, h->nexch, q->p.rank, "reads-done of exchange");
          b->stream_wait_event(s, q->ev_free);
        }
      }
      push(h, q, parity, s);
    } else {
      pack(h, q->p.send, q->p.nsend, parity, q->sbuf, 1, s);
    }
  }
  if (h->nipc && !h->sync_flag) {
    b->event_record(h->ev_data, s);
    atomic_store_explicit(&h->mine->data, h->nexch, memory_order_release);
  }
  if (h->nmpi) b->event_record(h->ev_packed, s);
}

void gs_halo_finish(gs_halo *h, int parity, gs_stream s) {
  if (!h->nmpi) return;
  h->b->event_sync(h->ev_packed); /* this event only, never the whole device */
  mpi_swap(h, 0);
  for (int k = 0; k < h->npeers; ++k)
    if (h->peers[k].t != GS_HALO_IPC) pack(h, h->peers[k].p.recv, h->peers[k].p.nrecv, parity, h->peers[k].rbuf, 0, s);
  h->b->event_record(h->ev_done, s);
}

void gs_halo_wait(gs_halo *h, gs_stream s) {
  for (int k = 0; k < h->npeers; ++k) {
    peer *q = &h->peers[k];
    if (q->t != GS_HALO_IPC) continue;
    if (h->sync_flag) {
      h->b->halo_wait(&h->flags[slot(q->p.recv_tag)], tick(h, h->nexch), s);
    } else {
      spin_until(&q->cnt->data, h->nexch, q->p.rank, "exchange");
      h->b->stream_wait_event(s, q->ev_data);
    }
    if (q->recv_stage[0]) pack(h, q->p.recv, q->p.nrecv, h->parity, q->recv_stage[h->parity], 0, s);
  }
  if (h->nmpi) h->b->stream_wait_event(s, h->ev_done);
}

void gs_halo_reads_done(gs_halo *h, gs_stream s) {
  if (!h->nipc) return;
  if (h->sync_flag) {
    for (int k = 0; k < h->npeers; ++k)
      if (h->peers[k].t == GS_HALO_IPC)
        h->b->halo_signal(&h->peers[k].rflags[16 + slot(h->peers[k].p.recv_tag)], tick(h, h->nexch + 1), s);
    return;
  }
  h->b->event_record(h->ev_free, s);
  atomic_store_explicit(&h->mine->free, h->nexch + 1, memory_order_release);
}

int gs_halo_graphable(const gs_halo *h) {
  return h->nmpi == 0 && (h->nipc == 0 || h->sync_flag);
}

void gs_halo_capture(gs_halo *h, const int64_t *base) {
  if (base) {
    h->nexch0 = h->nexch;
  } else {
    h->nexch = h->nexch0; /* what was captured has not run yet */
  }
  h->base = base;
}

void gs_halo_advance(gs_halo *h, int64_t n) {
  h->nexch += n;
}

double gs_halo_bytes_per_exchange(const gs_halo *h) {
  return h->bytes;
}
int64_t gs_halo_exchanges(const gs_halo *h) {
  return h->nexch;
}

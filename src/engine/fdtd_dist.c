/* The 2D engine split over ranks (fdtd.h): the decomposition into parts, the
 * halo depth every rank agrees on, the halo's boxes and its connection
 * (the exchange itself: mpi/halo.c), opening a split model and timing its
 * runs; reading a rank's rows and the checksum that is the same whatever
 * the split. */
#include "fdtd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "fdtd_internal.h"
#include "halo.h"
#include "log.h"
#include "options.h"

/* --halo-depth auto: this depth for parts of at most this many nodes (GPU). */
#define GS_FDTD_AUTO_DEPTH 4
#define GS_FDTD_SMALL_PART (4.0 * 1024 * 1024) /* nodes: R = 8 at or below */
/* The automatic decomposition avoids parts thinner than this (CPML + halo). */
#define GS_FDTD_MIN_PART 32

/* Peers of the halo: the ghost boxes of a rank with part p (global nodes it
 * lacks and reads) that the neighbour at (dx, dy) owns, in a fixed order.
 * Fields Ez, Hx, Hy are arrays 0..2; psi of scene side s, E or H, array
 * 3 + 2 s + eh (a: the index along the slab, b: across it). */
static int ghost_boxes(const gs_scene *sc, const gs_fdtd_part *p, int R, int dx, int dy, gs_halo_box_g *out) {
  /* layers of each field a rank reads beyond each side: x-, x+, y-, y+ */
  const int depth[3][4] = {{R, R, R, R}, {R - 1, R - 1, R, R - 1}, {R, R - 1, R - 1, R - 1}};
  int n = 0;
  if (dx && dy && R == 1) return 0; /* corners only matter for deep halos */
  for (int f = 0; f < 3; ++f) {
    int64_t a0 = dx < 0 ? p->i0 - depth[f][0] : dx > 0 ? p->i1 : p->i0;
    int64_t a1 = dx < 0 ? p->i0 : dx > 0 ? p->i1 + depth[f][1] : p->i1;
    int64_t b0 = dy < 0 ? p->j0 - depth[f][2] : dy > 0 ? p->j1 : p->j0;
    int64_t b1 = dy < 0 ? p->j0 : dy > 0 ? p->j1 + depth[f][3] : p->j1;
    if (a1 > a0 && b1 > b0) out[n++] = (gs_halo_box_g){f, a0, a1, b0, b1, 0, 0};
  }
  if (R > 1 && (dx == 0) != (dy == 0))
    for (int side = 0; side < 4; ++side) {
      int dir = side % 2, lower = side < 2, nn = sc->pml[side];
      if (!nn) continue;
      int along = dir == 0 ? dy : dx; /* psi is exchanged along the slab only */
      if (!along || (dir == 0 ? dx : dy)) continue;
      int64_t extent = dir == 0 ? sc->nx : sc->ny;
      int64_t slo = lower ? 0 : extent - nn, shi = lower ? nn + 1 : extent;
      int64_t alo = dir == 0 ? p->i0 : p->j0, ahi = dir == 0 ? p->i1 : p->j1;
      int64_t b0 = slo > alo ? slo : alo, b1 = shi < ahi ? shi : ahi;
      if (b1 <= b0) continue;
      int64_t olo = dir == 0 ? p->j0 : p->i0, ohi = dir == 0 ? p->j1 : p->i1;
      int64_t a0 = along < 0 ? olo - (R - 1) : ohi, a1 = along < 0 ? olo : ohi + R - 1;
      for (int eh = 0; eh < 2; ++eh)
        out[n++] = (gs_halo_box_g){3 + 2 * side + eh, a0, a1, b0, b1, 0, 0};
    }
  return n;
}

gs_status gs_fdtd_sim_connect(gs_fdtd_sim *m, MPI_Comm cart, gs_halo_transport t, int overlap, char *err,
                              size_t errlen) {
  int size, rank, dims[2], periods[2], coords[2];
  GS_MPI_CHECK(MPI_Comm_size(cart, &size));
  if (size == 1) return GS_OK;
  GS_MPI_CHECK(MPI_Comm_rank(cart, &rank));
  GS_MPI_CHECK(MPI_Cart_get(cart, 2, dims, periods, coords));
  const gs_backend *b = m->b;
  gs_halo_array arr[11];
  memset(arr, 0, sizeof arr);
  for (int f = 0; f < 3; ++f)
    arr[f] = (gs_halo_array){{m->fields.buf[0][f], m->fields.buf[1][f]},
                             m->grid.pitch,
                             m->grid.own.i0 - m->grid.g,
                             m->grid.own.j0 - m->grid.g,
                             0,
                             0};
  for (int k = 0; k < m->pml.n; ++k)
    for (int eh = 0; eh < 2; ++eh)
      arr[3 + 2 * m->pml.side[k] + eh] = (gs_halo_array){{m->pml.psi[k][0][eh], m->pml.psi[k][1][eh]},
                                                         m->pml.slab[k].o1 - m->pml.slab[k].o0,
                                                         m->pml.slab[k].o0,
                                                         m->pml.slab[k].lo,
                                                         0,
                                                         0};
  gs_fdtd_part mine = m->grid.own;
  gs_halo_peer peers[8];
  gs_halo_box_g boxes[8][2][16];
  int np = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int c[2] = {coords[0] + dx, coords[1] + dy};
      if ((!dx && !dy) || c[0] < 0 || c[0] >= dims[0] || c[1] < 0 || c[1] >= dims[1]) continue;
      if (dx && dy && m->dist.depth == 1) continue;
      int q;
      GS_MPI_CHECK(MPI_Cart_rank(cart, c, &q));
      gs_fdtd_part theirs = gs_fdtd_part_of(m->sc, dims, c);
      gs_halo_peer *pe = &peers[np];
      pe->rank = q;
      pe->send_tag = 300 + (dx + 1) + 3 * (dy + 1); /* direction from the sender */
      pe->recv_tag = 300 + (1 - dx) + 3 * (1 - dy);
      pe->nrecv = ghost_boxes(m->sc, &mine, m->dist.depth, dx, dy, boxes[np][1]);
      pe->nsend = ghost_boxes(m->sc, &theirs, m->dist.depth, -dx, -dy, boxes[np][0]);
      pe->send = boxes[np][0];
      pe->recv = boxes[np][1];
      ++np;
    }
  m->dist.halo = gs_halo_create(cart, b, arr, 11, peers, np, t, m->dist.depth > 1, err, errlen);
  if (!m->dist.halo) return GS_ERR_USAGE;
  if (m->graph.allowed && !gs_halo_graphable(m->dist.halo)) {
    char tr[64];
    gs_log_debug("fdtd: CUDA graphs off: the halo transport (%s) needs the host at every exchange",
                 gs_halo_summary(m->dist.halo, tr, sizeof tr));
  }
  m->graph.allowed = m->graph.allowed && gs_halo_graphable(m->dist.halo);
  m->dist.overlap = overlap;
  m->dist.hi = overlap ? b->stream_create(1) : m->s;
  m->dist.ev_ring = b->event_create(0);
  m->dist.ev_lo = b->event_create(0);
  m->dist.ev_sent = b->event_create(0);
  gs_fdtd_sim_refresh(m);
  return GS_OK;
}

void gs_fdtd_sim_refresh(gs_fdtd_sim *m) {
  gs_fdtd_drop_graph(m);
  if (!m->dist.halo) return;
  gs_fdtd_sim_sync(m);
  gs_halo_exchange(m->dist.halo, m->fields.cur, m->s);
  m->dist.k0 = m->step;
  m->dist.pending = 0;
}

/* Copies field f (0 Ez, 1 Hx, 2 Hy) rows [j0, j1) into host (pitch floats a row). */
void gs_fdtd_sim_read_rows(gs_fdtd_sim *m, int f, int64_t j0, int64_t j1, float *host) {
  if (m->dist.hi && m->dist.hi != m->s) m->b->stream_sync(m->dist.hi);
  float *src = f == 0 ? m->fields.v.ez : f == 1 ? m->fields.v.hx : m->fields.v.hy;
  m->b->copy_d2h(host, src + (size_t)(j0 - m->grid.own.j0 + m->grid.g) * (size_t)m->grid.pitch,
                 sizeof(float) * (size_t)m->grid.pitch * (size_t)(j1 - j0), m->s);
  m->b->stream_sync(m->s);
}

/* ------------------------------------------------------------- checksum */

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

/* Wrapping sum over every node (i, j) of mix64(global index, float bits):
 * independent of how the domain is split. */
void gs_fdtd_sim_checksum(gs_fdtd_sim *m, uint64_t sum[3]) {
  int64_t rows = (int64_t)((64u << 20) / ((size_t)m->grid.pitch * sizeof(float)));
  if (rows < 1) rows = 1;
  float *buf = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch * (size_t)rows);
  for (int f = 0; f < 3; ++f) {
    uint64_t s = 0;
    for (int64_t j0 = m->grid.own.j0; j0 < m->grid.own.j1; j0 += rows) {
      int64_t j1 = j0 + rows > m->grid.own.j1 ? m->grid.own.j1 : j0 + rows;
      gs_fdtd_sim_read_rows(m, f, j0, j1, buf);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = m->grid.own.i0; i < m->grid.own.i1; ++i) {
          uint32_t bits;
          memcpy(&bits, &buf[(size_t)(j - j0) * (size_t)m->grid.pitch + (size_t)(i - m->grid.own.i0 + m->grid.g)], 4);
          uint64_t gi = (uint64_t)j * (uint64_t)(m->sc->nx + 1) + (uint64_t)i;
          s += mix64(gi * 0x9E3779B97F4A7C15ull ^ ((uint64_t)bits << 1 | (uint64_t)f << 40));
        }
    }
    sum[f] = s;
  }
  free(buf);
}

/* ------------------------------------------------------------ parts, runs */

int gs_fdtd_decomp(const char *spec, int size, int64_t nx, int64_t ny, int dims[2]) {
  if (spec) {
    int64_t px, py;
    if (gs_parse_size2(spec, &px, &py) != 0 || px * py != size) return -1;
    dims[0] = (int)px;
    dims[1] = (int)py;
    if (gs_error_rank() == 0) gs_log_debug("fdtd: decomposition %dx%d (--decomp)", dims[0], dims[1]);
    return 0;
  }
  /* Halo cost per rank: a split along x gives column halos (strided, and
   * narrower rows for the update kernel), a split along y row halos
   * (contiguous). Measured on 2 H200s (docs/performance.md): 1x2 reached
   * 98.4% at 16384^2 where 2x1 reached 87%; columns weigh 8 rows here.
   * Parts thinner than GS_FDTD_MIN_PART nodes are avoided where possible. */
  double best = -1;
  int bx = 1, by = size, thin = 0;
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (int px = 1; px <= size; ++px) {
      if (size % px) continue;
      int py = size / px;
      if (pass == 0 && ((px > 1 && (nx + 1) / px < GS_FDTD_MIN_PART) || (py > 1 && (ny + 1) / py < GS_FDTD_MIN_PART)))
        continue;
      double cost = (px > 1 ? 8.0 * (double)(ny + 1) / py : 0) + (py > 1 ? (double)(nx + 1) / px : 0);
      if (best < 0 || cost < best) {
        best = cost;
        bx = px;
        by = py;
        thin = pass;
      }
    }
  dims[0] = bx;
  dims[1] = by;
  if (gs_error_rank() == 0)
    gs_log_debug("fdtd: decomposition %dx%d of %d rank(s): the least halo cost (%g), parts %s %d nodes", bx, by, size,
                 best, thin ? "thinner than" : "at least", GS_FDTD_MIN_PART);
  return 0;
}

/* floor(k * n / parts) without forming k * n, which overflows for the
 * largest grids: with n = q * parts + r it is k * q + floor(k * r / parts). */
static int64_t share_start(int64_t k, int64_t n, int64_t parts) {
  return k * (n / parts) + k * (n % parts) / parts;
}

gs_fdtd_part gs_fdtd_part_of(const gs_scene *sc, const int dims[2], const int coords[2]) {
  gs_fdtd_part p = {share_start(coords[0], sc->nx + 1, dims[0]), share_start(coords[0] + 1, sc->nx + 1, dims[0]),
                    share_start(coords[1], sc->ny + 1, dims[1]), share_start(coords[1] + 1, sc->ny + 1, dims[1])};
  return p;
}

int gs_fdtd_auto_depth(const gs_backend *b, double part_nodes) {
  /* Deep halos trade a little redundant work for fewer exchanges and their
   * latency. On 2 H200s (docs/performance.md, 1x2 split, ipc) R = 4 was the
   * best of 1, 2, 4, 8 for parts of 8192 x 4096 and 16384 x 8192 nodes, and
   * R = 8 for 2000 x 500 (the only way to 80% there). On the CPU backend
   * there is no latency to hide. */
  if (!b->is_gpu) return 1;
  return part_nodes <= GS_FDTD_SMALL_PART ? 8 : GS_FDTD_AUTO_DEPTH;
}

/* The halo depth every rank of comm uses: want, or (want 0) the automatic
 * choice that fits every rank's part. Collective. */
int gs_fdtd_agree_depth(const gs_scene *sc, const gs_backend *b, const gs_fdtd_part *part, int want, MPI_Comm comm) {
  int size;
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (size == 1) return 1;
  int d = want, auto_want = 0;
  if (!d) {
    double nodes = (double)(part->i1 - part->i0) * (double)(part->j1 - part->j0);
    auto_want = gs_fdtd_auto_depth(b, nodes);
    const int T = gs_fdtd_fuse_wanted(sc, b);
    if (T >= 2) auto_want = T; /* each deep-halo cycle then one fused pass */
    d = gs_fdtd_depth_fit(sc, part, auto_want);
  }
  int all;
  GS_MPI_CHECK(MPI_Allreduce(&d, &all, 1, MPI_INT, MPI_MIN, comm));
  if (want)
    gs_log_debug("fdtd: halo depth %d (--halo-depth)", want);
  else
    gs_log_debug(
        "fdtd: halo depth %d (auto: %d for this rank's %lldx%lld nodes, %d fits its part; the least of all ranks)", all,
        auto_want, (long long)(part->i1 - part->i0), (long long)(part->j1 - part->j0), d);
  return want ? want : all;
}

gs_status gs_fdtd_sim_open(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                           const gs_fdtd_spread *sp, MPI_Comm *cart, char *err, size_t errlen) {
  int rank, periods[2] = {0, 0}, coords[2];
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GS_MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, cart));
  GS_MPI_CHECK(MPI_Cart_coords(*cart, rank, 2, coords));
  gs_fdtd_part part = gs_fdtd_part_of(sc, dims, coords);
  int depth = gs_fdtd_agree_depth(sc, b, &part, sp->depth, *cart);
  err[0] = '\0';
  gs_status st = gs_fdtd_sim_init_part(m, sc, b, 0, &part, depth, err, errlen);
  if (gs_comm_agree(st != GS_OK, *cart)) {
    if (st == GS_OK) gs_fdtd_sim_free(m);
  } else if (gs_fdtd_sim_connect(m, *cart, sp->transport, sp->overlap, err, errlen) != GS_OK) {
    gs_fdtd_sim_free(m);
    st = GS_ERR_USAGE;
  } else {
    if (m->graph.allowed && !sp->graphs) gs_log_debug("fdtd: CUDA graphs off: --no-graphs");
    m->graph.allowed = m->graph.allowed && sp->graphs;
    return GS_OK;
  }
  MPI_Comm_free(cart);
  return st != GS_OK ? st : GS_ERR_USAGE;
}

gs_status gs_fdtd_timed_run(const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                            const gs_fdtd_spread *sp, int64_t warmup, int64_t steps, gs_fdtd_timing *t, char *used,
                            size_t usedlen, int *depth_used, char *err, size_t errlen) {
  MPI_Comm cart;
  gs_fdtd_sim m;
  gs_status st = gs_fdtd_sim_open(&m, sc, b, comm, dims, sp, &cart, err, errlen);
  if (st != GS_OK) return st;
  if (used) {
    if (m.dist.halo)
      gs_halo_summary(m.dist.halo, used, usedlen);
    else
      snprintf(used, usedlen, "none");
  }
  if (depth_used) *depth_used = m.dist.depth;
  gs_fdtd_sim_advance(&m, warmup);
  gs_fdtd_sim_sync(&m);
  int graphed = m.graph.exec != NULL, all_graphed;
  GS_MPI_CHECK(MPI_Allreduce(&graphed, &all_graphed, 1, MPI_INT, MPI_MIN, cart));
  t->graphs = all_graphed;
  int64_t x0 = m.dist.halo ? gs_halo_exchanges(m.dist.halo) : 0;
  GS_MPI_CHECK(MPI_Barrier(cart));
  double t0 = MPI_Wtime();
  gs_fdtd_sim_advance(&m, steps);
  gs_fdtd_sim_sync(&m);
  double local[2] = {MPI_Wtime() - t0, 0};
  if (m.dist.halo) local[1] = gs_halo_bytes_per_exchange(m.dist.halo) * (double)(gs_halo_exchanges(m.dist.halo) - x0);
  double maxv[2];
  GS_MPI_CHECK(MPI_Allreduce(local, maxv, 2, MPI_DOUBLE, MPI_MAX, cart));
  t->seconds = maxv[0];
  t->halo_bytes = maxv[1];
  gs_fdtd_sim_free(&m);
  MPI_Comm_free(&cart);
  return GS_OK;
}

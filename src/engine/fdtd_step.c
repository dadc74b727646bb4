/* The 2D engine's time step (fdtd.h): one step on one rank or several (deep
 * halos, the boundary ring overlapped with the interior on a stream of its
 * own), the receivers' ring of samples, CUDA graphs of whole deep-halo
 * cycles, fused passes of several steps and the grid kept on chip. The
 * state it steps: fdtd.c; the split over ranks and the halo: fdtd_dist.c
 * (the exchange itself: mpi/halo.c). */
#include "fdtd.h"

#include <stdio.h>

#include "fdtd_internal.h"
#include "halo.h"
#include "log.h"

/* s waits for the receivers' last sample. */
static void join_receivers(gs_fdtd_sim *m) {
  if (m->rx.pending) m->b->stream_wait_event(m->s, m->rx.ev_done);
  m->rx.pending = 0;
}

/* The samples of steps [rx.flushed, step) from the device ring (step n in
 * slot n % GS_RX_CHUNK) into rx.hist. */
static void flush_receivers(gs_fdtd_sim *m) {
  int64_t first = m->rx.flushed, count = m->step - first;
  if (!m->rx.n || count <= 0) return;
  join_receivers(m);
  size_t per = 3 * (size_t)m->rx.n;
  int64_t s0 = first % GS_RX_CHUNK, n1 = count < GS_RX_CHUNK - s0 ? count : GS_RX_CHUNK - s0;
  m->b->copy_d2h(m->rx.hist + (size_t)first * per, m->rx.buf + (size_t)s0 * per, sizeof(float) * per * (size_t)n1,
                 m->s);
  if (count > n1)
    m->b->copy_d2h(m->rx.hist + (size_t)(first + n1) * per, m->rx.buf, sizeof(float) * per * (size_t)(count - n1),
                   m->s);
  m->b->stream_sync(m->s);
  m->rx.flushed = m->step;
}

/* The non-empty parts of box in the five CPML regions, appended to pieces
 * (room for 5 more); returns the new count. */
static int cpml_pieces(const gs_fdtd_sim *m, gs_fdtd_region box, gs_fdtd_region *pieces, int np) {
  for (int k = 0; k < 5; ++k) {
    const gs_fdtd_region r = gs_region_meet(m->pml.region[k], box);
    if (!gs_region_empty(r)) pieces[np++] = r;
  }
  return np;
}

/* Queues the update of the nodes in boxes[0..n) (global, disjoint) on
 * stream st: their parts in region 0 (no CPML in reach: the plain update)
 * and in the strips around it (with the slabs), in one launch on the GPU
 * (kernels/fdtd.cu). */
static void update_boxes(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, const gs_fdtd_region *boxes, int n,
                         gs_stream st) {
  gs_fdtd_region pieces[20];
  int np = 0;
  for (int b = 0; b < n; ++b)
    np = cpml_pieces(m, boxes[b], pieces, np);
  if (np) m->b->fdtd_step(slab, pieces, np, st);
}

static void update_box(gs_fdtd_sim *m, const gs_fdtd_step_args *slab, gs_fdtd_region box, gs_stream st) {
  update_boxes(m, slab, &box, 1, st);
}

/* Sources [from, to) of the class order, at step t, into the new Ez. */
static void inject(gs_fdtd_sim *m, int from, int to, gs_tick t, gs_stream st) {
  if (to > from)
    m->b->fdtd_inject(m->fields.buf[1 - m->fields.cur][0], m->src.off + from, m->src.val + from, m->src.n, t, to - from,
                      m->pdl, st);
}

/* What the update kernels read and write in a step from buffer set in to
 * out, the CPML slabs included. */
static gs_fdtd_step_args step_args(const gs_fdtd_sim *m, int in, int out) {
  gs_fdtd_step_args a = {.ez = m->fields.buf[in][0],
                         .hx = m->fields.buf[in][1],
                         .hy = m->fields.buf[in][2],
                         .mat = m->fields.v.mat,
                         .ez_out = m->fields.buf[out][0],
                         .hx_out = m->fields.buf[out][1],
                         .hy_out = m->fields.buf[out][2],
                         .pitch = m->grid.pitch,
                         .g = m->grid.g,
                         .oi = m->grid.own.i0,
                         .oj = m->grid.own.j0,
                         .nx = m->grid.nx,
                         .ny = m->grid.ny,
                         .chx = m->mat.chx,
                         .chy = m->mat.chy,
                         .coef = m->mat.coef,
                         .nmat = m->mat.nmat,
                         .hmx = m->mat.hmx,
                         .hmy = m->mat.hmy,
                         .hcoef = m->mat.hcoef,
                         .nslab = m->pml.n,
                         .concurrent = m->dist.hi && m->dist.hi != m->s,
                         .pdl = m->pdl};
  for (int k = 0; k < m->pml.n; ++k) {
    a.slab[k] = m->pml.slab[k];
    a.slab[k].psi_e_in = m->pml.psi[k][in][0];
    a.slab[k].psi_h_in = m->pml.psi[k][in][1];
    a.slab[k].psi_e_out = m->pml.psi[k][out][0];
    a.slab[k].psi_h_out = m->pml.psi[k][out][1];
  }
  return a;
}

/* Before step k of the deep-halo cycle on several ranks: s waits for what
 * the previous steps on hi and the exchange must have done. */
static void wait_for_neighbours(gs_fdtd_sim *m, int64_t k, int exchanging) {
  const gs_backend *b = m->b;
  const int R = m->dist.depth;
  gs_stream lo = m->s, hi = m->dist.hi;
  if (hi != lo && !m->graph.fresh) b->stream_wait_event(lo, m->dist.ev_ring); /* the previous step's ring */
  /* The overlapped send of the last exchange (on hi) reads this rank's own
   * nodes of the buffer this step overwrites: first step of the cycle for
   * odd R, second for even R (R = 1: the ring, written on hi only). */
  if (hi != lo && R > 1 && k == (R % 2 ? 0 : 1) && !m->graph.fresh) b->stream_wait_event(lo, m->dist.ev_sent);
  if (m->dist.pending && !exchanging) gs_halo_wait(m->dist.halo, lo);
}

/* Queues the receivers' sample of the current fields at step t on their
 * stream, once the previous step is done on s. */
static void sample_receivers(gs_fdtd_sim *m, gs_tick t) {
  const gs_backend *b = m->b;
  gs_stream lo = m->s, hi = m->dist.hi;
  /* The last sample read the buffer this step writes. */
  if (m->rx.pending && !m->graph.fresh) {
    b->stream_wait_event(lo, m->rx.ev_done);
    if (m->dist.halo && hi != lo) b->stream_wait_event(hi, m->rx.ev_done);
  }
  m->rx.pending = 0;
  if (m->step - m->rx.flushed == GS_RX_CHUNK) flush_receivers(m); /* (never while capturing: see capture()) */
  /* lo has all of the previous step here (above: it waited for the ring). */
  b->event_record(m->rx.ev_ready, lo);
  b->stream_wait_event(m->rx.s, m->rx.ev_ready);
  b->fdtd_sample(m->fields.v, m->rx.off, m->rx.n, m->rx.buf, GS_RX_CHUNK, t, m->rx.s);
  b->event_record(m->rx.ev_done, m->rx.s);
  m->rx.pending = 1;
}

/* An exchanging step with overlap: the ring along the neighbours on hi, its
 * exchange sent from there, while the interior runs on s. */
static void overlapped_step(gs_fdtd_sim *m, const gs_fdtd_step_args *sl, gs_tick t, int out) {
  const gs_backend *b = m->b;
  gs_stream lo = m->s, hi = m->dist.hi;
  gs_fdtd_region own = gs_fdtd_grown_box(m, 0), core = gs_fdtd_interior_box(m);
  if (gs_region_empty(core)) core = (gs_fdtd_region){own.i0, own.i0, own.j0, own.j0};
  gs_fdtd_region ring[4] = {{own.i0, own.i1, own.j0, core.j0},
                            {own.i0, own.i1, core.j1, own.j1},
                            {own.i0, core.i0, core.j0, core.j1},
                            {core.i1, own.i1, core.j0, core.j1}};
  if (!m->graph.fresh) b->stream_wait_event(hi, m->dist.ev_lo); /* the previous step's interior */
  if (m->dist.pending) gs_halo_wait(m->dist.halo, hi);
  gs_fdtd_region pieces[4];
  int np = 0;
  for (int r = 0; r < 4; ++r)
    if (!gs_region_empty(ring[r])) pieces[np++] = ring[r];
  update_boxes(m, sl, pieces, np, hi);
  inject(m, m->src.cum[0], m->src.cum[1], t, hi);
  b->event_record(m->dist.ev_ring, hi);
  gs_halo_send(m->dist.halo, out, hi);
  b->event_record(m->dist.ev_sent, hi);
  if (!gs_region_empty(core)) update_box(m, sl, core, lo);
  inject(m, 0, m->src.cum[0], t, lo);
  b->event_record(m->dist.ev_lo, lo);
  gs_halo_finish(m->dist.halo, out, hi);
  m->dist.pending = 1;
}

/* One rank, or several (then with the halo):
 *  - a deep-halo step that exchanges nothing (R > 1, all but the last of
 *    every R steps): the owned nodes and e = R - 1 - k ghost layers on s;
 *  - an exchanging step with overlap: the ring of R layers along the
 *    neighbours first on the high-priority stream, its exchange sent from
 *    there, while the interior runs on s; nothing waits on the host for the
 *    device except the MPI transports, which wait for their packing event;
 *  - without overlap: everything on s, then the exchange.
 * The streams are ordered by events: the ring waits for s's previous step
 * (it reads the interior's nodes), s waits for the previous ring. */
void gs_fdtd_sim_step(gs_fdtd_sim *m) {
  const int64_t n = m->step;
  const int out = 1 - m->fields.cur;
  const gs_fdtd_step_args sl = step_args(m, m->fields.cur, out);
  const int R = m->dist.depth;
  const int64_t k = m->dist.halo ? (n - m->dist.k0) % R : R - 1;
  const int exchanging = k == R - 1;
  gs_stream lo = m->s;
  /* The step as the kernels read it: n, or in a graph being captured its
   * offset from the clock word the replays move on. */
  const gs_tick t = m->graph.capturing ? (gs_tick){m->graph.clock, n - m->graph.n0} : gs_tick_at(n);
  if (m->dist.halo) wait_for_neighbours(m, k, exchanging);
  if (m->rx.n) sample_receivers(m, t);
  if (!exchanging) {
    int e = (int)(R - 1 - k);
    update_box(m, &sl, gs_fdtd_grown_box(m, e), lo);
    inject(m, 0, m->src.cum[1 + e], t, lo);
    if (k == R - 2) gs_halo_reads_done(m->dist.halo, lo);
    m->b->event_record(m->dist.ev_lo, lo);
    m->dist.pending = 0;
  } else if (!m->dist.halo || !m->dist.overlap) {
    if (m->dist.pending) gs_halo_wait(m->dist.halo, lo);
    update_box(m, &sl, gs_fdtd_grown_box(m, 0), lo);
    inject(m, 0, m->src.cum[1], t, lo);
    if (m->dist.halo) {
      gs_halo_send(m->dist.halo, out, lo);
      gs_halo_finish(m->dist.halo, out, lo);
      m->dist.pending = 1;
    }
  } else {
    overlapped_step(m, &sl, t, out);
  }
  gs_fdtd_make_current(m, out);
  m->step++;
  m->graph.fresh = 0;
}

/* --------------------------------------------------------- CUDA graphs */

/* Joins the high-priority stream and the receivers' into s: s then follows
 * all queued work. */
static void join_streams(gs_fdtd_sim *m) {
  if (m->dist.hi && m->dist.hi != m->s) {
    m->b->event_record(m->graph.ev_join, m->dist.hi);
    m->b->stream_wait_event(m->s, m->graph.ev_join);
  }
  join_receivers(m);
}

/* After a capture or a replay the step events were last recorded inside the
 * capture; record them again (on s, which has joined everything). */
static void rerecord_events(gs_fdtd_sim *m) {
  if (!m->dist.halo) return;
  m->b->event_record(m->dist.ev_ring, m->s);
  m->b->event_record(m->dist.ev_lo, m->s);
  m->b->event_record(m->dist.ev_sent, m->s);
}

/* Whether a graph can start here: deep-halo phase 0 after an exchange (any
 * step on one rank). */
static int cycle_start(const gs_fdtd_sim *m) {
  if (!m->dist.halo) return 1;
  return m->dist.pending && (m->step - m->dist.k0) % m->dist.depth == 0;
}

/* Steps per graph: whole deep-halo cycles, an even number of steps (the
 * same buffers at each start), at least 16 (16 to 28 for depths 1 to 8). */
static int graph_length(int depth) {
  int base = depth % 2 ? 2 * depth : depth;
  return base * ((16 + base - 1) / base);
}

/* Captures graph.len steps from here (nothing runs; the host state is put
 * back afterwards). */
static void capture(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  m->graph.len = graph_length(m->dist.depth);
  if (!m->graph.clock) {
    m->graph.clock = b->dev_alloc(2 * sizeof(int64_t));
    m->graph.ev_fork = b->event_create(0);
    m->graph.ev_join = b->event_create(0);
    m->graph.clock_host[0] = m->graph.clock_host[1] = -1;
  }
  const int64_t step = m->step;
  const int cur = m->fields.cur, pending = m->dist.pending;
  const gs_fdtd_view v = m->fields.v;
  int64_t x0 = m->dist.halo ? gs_halo_exchanges(m->dist.halo) : 0;
  join_streams(m);
  b->graph_begin(m->s);
  m->graph.n0 = step;
  m->graph.capturing = 1;
  m->graph.fresh = 1;
  if (m->dist.halo) {
    gs_halo_capture(m->dist.halo, m->graph.clock + 1);
    if (m->dist.hi != m->s) { /* the fork, and the step events recorded inside the capture */
      b->event_record(m->graph.ev_fork, m->s);
      b->stream_wait_event(m->dist.hi, m->graph.ev_fork);
      b->event_record(m->dist.ev_ring, m->dist.hi);
      b->event_record(m->dist.ev_sent, m->dist.hi);
      b->event_record(m->dist.ev_lo, m->s);
    }
  }
  for (int k = 0; k < m->graph.len; ++k)
    gs_fdtd_sim_step(m);
  join_streams(m);
  m->graph.exch = m->dist.halo ? (int)(gs_halo_exchanges(m->dist.halo) - x0) : 0;
  b->fdtd_clock(m->graph.clock, m->graph.len, m->graph.exch, 1, m->s);
  m->graph.exec = b->graph_end(m->s);
  m->graph.capturing = 0;
  gs_log_debug("fdtd: CUDA graph captured at step %lld: %d steps and %d halo exchanges a replay", (long long)step,
               m->graph.len, m->graph.exch);
  if (m->dist.halo) gs_halo_capture(m->dist.halo, NULL);
  rerecord_events(m);
  m->step = step;
  m->fields.cur = cur;
  m->dist.pending = pending;
  m->fields.v = v;
}

/* Replays the graph: graph.len steps from here. */
static void replay(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  int64_t x = m->dist.halo ? gs_halo_exchanges(m->dist.halo) : 0;
  if (m->rx.n && m->step + m->graph.len - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m);
  join_streams(m);
  if (m->graph.clock_host[0] != m->step || m->graph.clock_host[1] != x)
    b->fdtd_clock(m->graph.clock, m->step, x, 0, m->s);
  b->graph_launch(m->graph.exec, m->s);
  rerecord_events(m);
  m->step += m->graph.len;
  if (m->dist.halo) gs_halo_advance(m->dist.halo, m->graph.exch);
  m->graph.clock_host[0] = m->step;
  m->graph.clock_host[1] = x + m->graph.exch;
}

/* Forgets the captured graph (the deep-halo cycle starts anew). */
void gs_fdtd_drop_graph(gs_fdtd_sim *m) {
  if (m->graph.exec) {
    gs_log_debug("fdtd: CUDA graph dropped at step %lld (ghost layers refilled)", (long long)m->step);
    m->b->graph_free(m->graph.exec);
  }
  m->graph.exec = NULL;
}

/* ---------------------------------------------- several steps a launch */

int gs_fdtd_sim_set_onchip(gs_fdtd_sim *m, int on) {
  const gs_fdtd_part *own = &m->grid.own;
  const int whole = own->i0 == 0 && own->j0 == 0 && own->i1 == m->grid.nx + 1 && own->j1 == m->grid.ny + 1;
  m->onchip = 0;
  snprintf(m->onchip_form, sizeof m->onchip_form, "none");
  if (!on || !whole || !m->b->fdtd_run) return 0;
  const gs_fdtd_step_args a = step_args(m, 0, 1);
  m->onchip_blocks = m->b->fdtd_run_fits(&a);
  m->onchip = m->onchip_blocks > 0;
  snprintf(m->onchip_form, sizeof m->onchip_form, "%s", m->onchip ? m->b->fdtd_run_form(&a) : "none");
  gs_log_debug("fdtd: the grid on chip: %s", m->onchip_form);
  if (!m->onchip) return 0;
  /* The launches' scratch, zeroed and its count restarted whenever the path
   * is set up: the step numbers of the edge words count from it, and a
   * plan of another cut would misread words of the last one. */
  const int64_t scratch = m->b->fdtd_run_scratch(&a);
  if (m->onchip_barrier) m->b->stream_sync(m->s); /* (launches that may still use it) */
  if (m->onchip_barrier && scratch > m->onchip_scratch) {
    m->b->dev_free(m->onchip_barrier);
    m->onchip_barrier = NULL;
  }
  if (!m->onchip_barrier) {
    m->onchip_barrier = m->b->dev_alloc((size_t)scratch);
    m->onchip_scratch = scratch;
  }
  m->b->zero(m->onchip_barrier, (size_t)m->onchip_scratch, m->s);
  m->onchip_arrivals = 0;
  return m->onchip;
}

int gs_fdtd_sim_set_fuse(gs_fdtd_sim *m, int T) {
  m->fuse = 0;
  /* A pass moves the buffer sets once, whatever T: a graph captured before may no longer match. */
  gs_fdtd_drop_graph(m);
  if (T <= 0 || !m->b->fdtd_fuse) return 0;
  if (m->rx.n > GS_FDTD_FUSE_POINTS || m->src.cum[m->dist.depth] > GS_FDTD_FUSE_POINTS) {
    /* A block holding more scans the whole list at every level: on the H200
     * a dense array of 5681 receivers made a pass slower than single steps. */
    gs_log_debug("fdtd: fused passes not taken: %d receivers and %d sources, more than %d: single steps", m->rx.n,
                 m->src.cum[m->dist.depth], GS_FDTD_FUSE_POINTS);
    return 0;
  }
  const gs_fdtd_step_args a = step_args(m, 0, 1);
  const int most = m->b->fdtd_fuse_fits(&a);
  m->fuse = T < most ? T : most;
  if (!most)
    gs_log_debug("fdtd: fused passes not taken by the %s backend for this grid (magnetic H, overlapping slabs, or "
                 "no device support): single steps",
                 m->b->name);
  else
    gs_log_debug("fdtd: %d steps fused a pass%s", m->fuse, m->onchip ? " (while the grid is not on chip: it is)" : "");
  return m->fuse;
}

/* The steps of the next launch of several (at most most, and end - step):
 * no more than the receivers' ring has room for, flushed first when full;
 * a sample queued by a single step read the buffers this launch writes. */
static int64_t next_launch(gs_fdtd_sim *m, int64_t end, int64_t most) {
  int64_t n = end - m->step < most ? end - m->step : most;
  if (m->rx.n && m->step + n - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m);
  if (m->rx.n && n > GS_RX_CHUNK - (m->step - m->rx.flushed)) n = GS_RX_CHUNK - (m->step - m->rx.flushed);
  join_receivers(m);
  return n;
}

/* What a launch of several steps from the current buffer set reads: the
 * owned nodes, and the sources of the ghost layers a deep-halo cycle
 * updates too (one rank: all). */
static gs_fdtd_run_args run_args(const gs_fdtd_sim *m) {
  const int cur = m->fields.cur;
  return (gs_fdtd_run_args){.set = {step_args(m, cur, 1 - cur), step_args(m, 1 - cur, cur)},
                            .src_off = m->src.off,
                            .src_val = m->src.val,
                            .src_stride = m->src.n,
                            .nsrc = m->src.cum[m->dist.depth],
                            .nrx = m->rx.n,
                            .rx_off = m->rx.off,
                            .rx_out = m->rx.buf,
                            .rx_slots = GS_RX_CHUNK,
                            .t0 = m->step,
                            .piece = m->pml.region,
                            .npiece = 5,
                            .own = gs_fdtd_grown_box(m, 0),
                            .rows = m->grid.rows};
}

/* One pass of n steps fused (on several ranks n = R, a deep-halo cycle:
 * the CPU twin's single steps then cover the owned nodes and n - 1 ghost
 * layers); the state is then in the other buffer set. */
static void fused_pass(gs_fdtd_sim *m, int64_t n) {
  gs_fdtd_run_args a = run_args(m);
  gs_fdtd_region pieces[5];
  a.piece = pieces;
  a.npiece = cpml_pieces(m, gs_fdtd_grown_box(m, (int)n - 1), pieces, 0);
  if (m->b->fdtd_fuse(&a, n, m->s) != 0) gs_fatal("fdtd_fuse", "the backend refused a fused pass", __FILE__, __LINE__);
  m->step += n;
  gs_fdtd_make_current(m, 1 - m->fields.cur);
}

/* count steps in passes of m->fuse steps fused (one rank). */
static void advance_fused(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  while (m->step < end)
    fused_pass(m, next_launch(m, end, m->fuse));
}

/* A deep-halo cycle of R steps as one fused pass, then the exchange into
 * the ghosts of the set it wrote (what the cycle's single steps leave
 * there; not overlapped: the pass is one launch). All on s: it first waits
 * for what the high-priority stream holds (single steps before). */
static void fused_cycle(gs_fdtd_sim *m) {
  const gs_backend *b = m->b;
  const int R = m->dist.depth;
  gs_stream lo = m->s, hi = m->dist.hi;
  if (hi != lo) {
    b->event_record(m->dist.ev_sent, hi);
    b->stream_wait_event(lo, m->dist.ev_sent);
  }
  if (m->dist.pending) gs_halo_wait(m->dist.halo, lo);
  /* The work queued so far holds the last reads of the ghosts this cycle's
   * exchange overwrites (the other set's: the pass reads the current one). */
  gs_halo_reads_done(m->dist.halo, lo);
  const int64_t n = next_launch(m, m->step + R, R);
  if (n != R) gs_fatal("fused_cycle", "the receivers' ring has no room for a cycle", __FILE__, __LINE__);
  fused_pass(m, n);
  gs_halo_send(m->dist.halo, m->fields.cur, lo);
  gs_halo_finish(m->dist.halo, m->fields.cur, lo);
  m->dist.pending = 1;
  rerecord_events(m); /* single steps after it wait for the pass */
}

/* Several ranks: every whole deep-halo cycle as a fused pass, single steps
 * where count cuts one short. */
static void advance_cycles(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  const int R = m->dist.depth;
  if (m->step == m->dist.k0) gs_log_debug("fdtd: deep-halo cycles of %d steps as fused passes", R);
  while (m->step < end) {
    if ((m->step - m->dist.k0) % R == 0 && end - m->step >= R)
      fused_cycle(m);
    else
      gs_fdtd_sim_step(m);
  }
}

/* count steps with the grid on chip: launches of at most GS_RX_CHUNK steps
 * (the receivers' ring), flushed in between. */
static void advance_onchip(gs_fdtd_sim *m, int64_t count) {
  const int64_t end = m->step + count;
  while (m->step < end) {
    const int64_t n = next_launch(m, end, end - m->step);
    const int cur = m->fields.cur;
    gs_fdtd_run_args a = run_args(m);
    a.barrier = (uint64_t *)m->onchip_barrier;
    a.barrier_bytes = m->onchip_scratch;
    a.barrier_base = m->onchip_arrivals;
    a.blocks = m->onchip_blocks;
    m->b->fdtd_run(&a, n, m->s);
    m->onchip_arrivals += (uint64_t)m->onchip_blocks * (uint64_t)(n - 1);
    m->step += n;
    if (n % 2) gs_fdtd_make_current(m, 1 - cur);
  }
}

void gs_fdtd_sim_advance(gs_fdtd_sim *m, int64_t count) {
  if (m->onchip && !m->dist.halo) {
    advance_onchip(m, count);
    return;
  }
  if (m->fuse && !m->dist.halo) {
    advance_fused(m, count);
    return;
  }
  if (m->fuse && m->dist.halo && m->dist.depth >= 2 && m->dist.depth <= m->fuse) {
    advance_cycles(m, count);
    return;
  }
  const int64_t end = m->step + count;
  const int len = graph_length(m->dist.depth);
  while (m->step < end) {
    int64_t left = end - m->step;
    if (m->graph.allowed && !m->graph.exec && cycle_start(m) && left >= len) {
      if (m->rx.n && m->step + len - m->rx.flushed > GS_RX_CHUNK) flush_receivers(m); /* none due while capturing */
      capture(m);
    }
    if (m->graph.exec && left >= m->graph.len && (m->step - m->graph.n0) % m->graph.len == 0 && cycle_start(m))
      replay(m);
    else
      gs_fdtd_sim_step(m);
  }
}

void gs_fdtd_sim_sync(gs_fdtd_sim *m) {
  if (m->dist.hi && m->dist.hi != m->s) m->b->stream_sync(m->dist.hi);
  join_receivers(m);
  flush_receivers(m);
  m->b->stream_sync(m->s);
}

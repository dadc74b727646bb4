/* A 3D model split over ranks (fdtd3d_dist.h).
 *
 * Schedule of one step on a part (no node's H is recomputed across a rank
 * boundary, so no CPML auxiliary of a neighbour is needed): new H of the
 * owned nodes (their H psi stored), the magnetic sources, the H of the top
 * owned layer of each split axis to the upper neighbour's lower ghost layer,
 * new E of the owned nodes (reading the stored H one node lower, ghosts
 * included), the E sources, and the E of the bottom owned layer to the lower
 * neighbour's upper ghost layer (the next H reads E one node higher). Each
 * node's arithmetic is the one-rank step's (kernels/fdtd3d_node.h), so the
 * bits are the same whatever the split. */
#include "fdtd3d_dist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "error.h"
#include "fdtd3d_planewave.h"
#include "fdtd3d_sources.h"

struct gs_fdtd3_dist {
  MPI_Comm comm;
  int rank;
  int lines, magnetic; /* the scene has transmission lines, magnetic dipoles (on any rank) */
  gs_halo *h, *e;      /* H ghosts from the lower neighbours; E ghosts from the upper ones */
  /* The overlapped schedule (update_overlapped): the core (the owned nodes
   * less one layer on each side with a neighbour) and the shell around it
   * (at most 6 boxes); the side stream of the shell's H and the exchanges;
   * an E exchange sent at the end of a step and finished in the next. */
  int overlap;
  gs_fdtd3_region core, shell[6];
  int nshell;
  gs_stream side;
  gs_event main_done, side_done;
  int e_pending, e_parity;
};

static int rank_of(const int dims[3], const int c[3]) {
  return (c[2] * dims[1] + c[1]) * dims[0] + c[0];
}

int gs_fdtd3_ranks_make(gs_fdtd3_ranks *sp, MPI_Comm comm, const gs_scene *sc, const char *decomp,
                        gs_halo_transport transport, char *why, size_t whylen) {
  memset(sp, 0, sizeof *sp);
  sp->comm = comm;
  sp->transport = transport;
  GS_MPI_CHECK(MPI_Comm_rank(comm, &sp->rank));
  GS_MPI_CHECK(MPI_Comm_size(comm, &sp->size));
  const int64_t nodes[3] = {sc->nx + 1, sc->ny + 1, sc->nz + 1};
  if (decomp) {
    if (gs_decomp3_parse(decomp, sp->size, sp->dims, why, whylen) != 0) return -1;
  } else if (gs_decomp3_choose(sp->size, nodes, GS_FDTD3_MIN_PART, sp->dims) != 0) {
    snprintf(why, whylen, "%d ranks: no split of %lld x %lld x %lld nodes leaves every part %d nodes thick", sp->size,
             (long long)nodes[0], (long long)nodes[1], (long long)nodes[2], GS_FDTD3_MIN_PART);
    return -1;
  }
  for (int a = 0; a < 3; ++a)
    if (sp->dims[a] > 1 && nodes[a] / sp->dims[a] < GS_FDTD3_MIN_PART) {
      snprintf(why, whylen, "--decomp %dx%dx%d: %lld nodes along %c make parts thinner than %d nodes", sp->dims[0],
               sp->dims[1], sp->dims[2], (long long)nodes[a], "xyz"[a], GS_FDTD3_MIN_PART);
      return -1;
    }
  sp->coords[0] = sp->rank % sp->dims[0];
  sp->coords[1] = sp->rank / sp->dims[0] % sp->dims[1];
  sp->coords[2] = sp->rank / (sp->dims[0] * sp->dims[1]);
  sp->part = gs_decomp3_part(nodes, sp->dims, sp->coords);
  return 0;
}

gs_status gs_fdtd3_dist_agree(gs_status st, MPI_Comm comm, char *err, size_t errlen) {
  int rank, first, mine, code = (int)st;
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  mine = st != GS_OK ? rank : INT_MAX;
  GS_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return GS_OK;
  char why[1024] = "";
  if (rank == first) snprintf(why, sizeof why, "%s", err);
  GS_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, first, comm));
  GS_MPI_CHECK(MPI_Bcast(why, (int)sizeof why, MPI_CHAR, first, comm));
  snprintf(err, errlen, "%s", why);
  return (gs_status)code;
}

/* Every rank's first compound visits, in rank order (smoothing keeps the
 * earliest of each key, whatever the order). */
static gs_compound_visit *merge_visits(const gs_geometry3 *g, MPI_Comm comm, int64_t *count) {
  int size;
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  MPI_Datatype visit;
  GS_MPI_CHECK(MPI_Type_contiguous((int)sizeof(gs_compound_visit), MPI_BYTE, &visit));
  GS_MPI_CHECK(MPI_Type_commit(&visit));
  int mine = (int)g->nvisits, *counts = gs_xmalloc(sizeof *counts * (size_t)size),
      *displs = gs_xmalloc(sizeof *displs * (size_t)size);
  GS_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm));
  int64_t total = 0;
  for (int r = 0; r < size; ++r) {
    if (total + counts[r] > INT_MAX) gs_fatal("merge_visits", "over 2^31 compound visits", __FILE__, __LINE__);
    displs[r] = (int)total;
    total += counts[r];
  }
  gs_compound_visit *all = gs_xmalloc(sizeof *all * (size_t)(total + 1));
  GS_MPI_CHECK(MPI_Allgatherv(g->visits, mine, visit, all, counts, displs, visit, comm));
  GS_MPI_CHECK(MPI_Type_free(&visit));
  free(counts);
  free(displs);
  *count = total;
  return all;
}

/* The plane of cells gprMax's sigma_max averages: the first slab's (x0, y0,
 * z0, xmax, ymax, zmax), whole. */
static gs_status paint_sigma_plane(gs_geometry3 *plane, const gs_scene *sc, const gs_mat3 *mats, char *err,
                                   size_t errlen) {
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  for (int s = 0; s < 6; ++s) {
    const int dir = s % 3;
    if (!sc->pml6[s]) continue;
    int64_t lo[3] = {0, 0, 0}, hi[3] = {n[0] + 1, n[1] + 1, n[2] + 1};
    lo[dir] = s < 3 ? 0 : n[dir] - sc->pml6[s];
    hi[dir] = lo[dir] + 1;
    return gs_geometry3_paint(plane, sc->nx, sc->ny, sc->nz, sc->dx, sc->dy, sc->dz, lo, hi, mats, sc->nmaterials,
                              sc->objs3, sc->nobjs3, err, errlen);
  }
  return GS_OK;
}

gs_status gs_fdtd3_dist_geometry(gs_geometry3 *g, gs_geometry3 *sigma_plane, const gs_scene *sc, const gs_mat3 *mats,
                                 const gs_fdtd3_ranks *sp, char *err, size_t errlen) {
  memset(sigma_plane, 0, sizeof *sigma_plane);
  gs_status st = gs_geometry3_paint(g, sc->nx, sc->ny, sc->nz, sc->dx, sc->dy, sc->dz, sp->part.lo, sp->part.hi, mats,
                                    sc->nmaterials, sc->objs3, sc->nobjs3, err, errlen);
  const int painted = st == GS_OK; /* a failed paint frees g itself */
  if (painted) st = paint_sigma_plane(sigma_plane, sc, mats, err, errlen);
  st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  if (st != GS_OK) {
    if (painted) gs_geometry3_free(g);
    gs_geometry3_free(sigma_plane);
    return st;
  }
  int64_t nall;
  gs_compound_visit *all = merge_visits(g, sp->comm, &nall);
  st = gs_geometry3_smooth(g, all, nall, err, errlen); /* frees g on failure */
  free(all);
  const gs_status agreed = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  if (agreed != GS_OK) {
    if (st == GS_OK) gs_geometry3_free(g);
    gs_geometry3_free(sigma_plane);
  }
  return agreed;
}

int gs_fdtd3_dist_slab_reaches(const gs_fdtd3_sim *m, int dir, int side, int64_t t) {
  const int64_t n = dir == 0 ? m->sc->nx : dir == 1 ? m->sc->ny : m->sc->nz;
  const int64_t lo = side ? n - t : 0, hi = side ? n : t + 1; /* the nodes whose E or H it corrects */
  return m->org[dir] < hi && lo < m->org[dir] + m->len[dir];
}

/* The plane at of axis d, across the owned nodes, of the three components
 * from first (0: E, 3: H). */
static void face_boxes(const gs_fdtd3_sim *m, int d, int64_t at, int first, gs_halo_box_g out[3]) {
  int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a)
    lo[a] = m->lo[a], hi[a] = m->hi[a];
  lo[d] = at;
  hi[d] = at + 1;
  for (int c = 0; c < 3; ++c)
    out[c] = (gs_halo_box_g){first + c, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
}

/* The peers of one exchange: h = 1: H, top owned layer up, lower ghost from
 * below; h = 0: E, bottom owned layer down, upper ghost from above. */
static int make_peers(const gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, int h, gs_halo_peer peers[6],
                      gs_halo_box_g boxes[6][3]) {
  int np = 0;
  for (int d = 0; d < 3; ++d)
    for (int up = 0; up < 2; ++up) {
      int c[3] = {sp->coords[0], sp->coords[1], sp->coords[2]};
      c[d] += up ? 1 : -1;
      if (c[d] < 0 || c[d] >= sp->dims[d]) continue;
      const int sends = h ? up : !up; /* H goes up, E goes down */
      const int64_t at = h ? (up ? m->hi[d] - 1 : m->lo[d] - 1) : (up ? m->hi[d] : m->lo[d]);
      face_boxes(m, d, at, h ? 3 : 0, boxes[np]);
      /* Tags name the direction of travel (axis d, up or down) from the sender: a rank's two
       * neighbours along one axis use two tags, so over ipc their flags (one slot a tag) stay
       * apart. (With one tag for both, the empty signal of the neighbour that sends nothing in
       * this exchange passes for the other's data: wrong bits with 4 parts in a row.) */
      const int base = h ? 300 : 310, travel_up = 2 * d + 1, travel_down = 2 * d;
      peers[np] = (gs_halo_peer){.rank = rank_of(sp->dims, c),
                                 .send_tag = base + (up ? travel_up : travel_down),
                                 .recv_tag = base + (up ? travel_down : travel_up),
                                 .nsend = sends ? 3 : 0,
                                 .nrecv = sends ? 0 : 3,
                                 .send = boxes[np],
                                 .recv = boxes[np]};
      ++np;
    }
  return np;
}

/* The core and the shell (onion order: the x layers whole, then the y
 * layers within the core's x, then the z layers within its x and y). */
static void plan_shell(const gs_fdtd3_sim *m, struct gs_fdtd3_dist *d) {
  const int64_t nodes[3] = {m->sc->nx + 1, m->sc->ny + 1, m->sc->nz + 1};
  int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = m->lo[a] + (m->lo[a] > 0);
    hi[a] = m->hi[a] - (m->hi[a] < nodes[a]);
  }
  d->core = (gs_fdtd3_region){lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
  int64_t box_lo[3] = {m->lo[0], m->lo[1], m->lo[2]}, box_hi[3] = {m->hi[0], m->hi[1], m->hi[2]};
  d->nshell = 0;
  for (int a = 0; a < 3; ++a) {
    for (int up = 0; up < 2; ++up) {
      int64_t b0[3], b1[3];
      memcpy(b0, box_lo, sizeof b0);
      memcpy(b1, box_hi, sizeof b1);
      b0[a] = up ? hi[a] : m->lo[a];
      b1[a] = up ? m->hi[a] : lo[a];
      if (b0[0] < b1[0] && b0[1] < b1[1] && b0[2] < b1[2])
        d->shell[d->nshell++] = (gs_fdtd3_region){b0[0], b1[0], b0[1], b1[1], b0[2], b1[2]};
    }
    box_lo[a] = lo[a];
    box_hi[a] = hi[a];
  }
}

int gs_fdtd3_dist_overlap_possible(const gs_scene *sc) {
  const char *knob = getenv("GS_FDTD3_PARTS");
  int h_sources = 0;
  for (int q = 0; q < sc->nsrc3; ++q)
    h_sources |= sc->src3[q].kind == GS_SRC3_TLINE || sc->src3[q].kind == GS_SRC3_MAGNETIC;
  return !h_sources && !sc->npws && !(knob && !strcmp(knob, "passes"));
}

/* The overlapped schedule wherever the scene allows it, on every rank alike
 * (a part 2 nodes thick between two neighbours has an empty core: its shell
 * is all its nodes). One schedule for all matters: in the two-pass one a
 * rank ends a step blocked in the E exchange that an overlapped neighbour
 * finishes only in its next step, so a collective call between steps (a
 * snapshot's agreement) would hang. */
static void plan_overlap(gs_fdtd3_sim *m, struct gs_fdtd3_dist *d) {
  plan_shell(m, d);
  d->overlap = gs_fdtd3_dist_overlap_possible(m->sc);
  if (!d->overlap) return;
  d->side = m->b->stream_create(1);
  d->main_done = m->b->event_create(0);
  d->side_done = m->b->event_create(0);
}

gs_status gs_fdtd3_dist_connect(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, char *err, size_t errlen) {
  struct gs_fdtd3_dist *d = m->dist = gs_xcalloc(1, sizeof *m->dist);
  d->comm = sp->comm;
  d->rank = sp->rank;
  for (int q = 0; q < m->sc->nsrc3; ++q) {
    d->lines |= m->sc->src3[q].kind == GS_SRC3_TLINE;
    d->magnetic |= m->sc->src3[q].kind == GS_SRC3_MAGNETIC;
  }
  gs_halo_peer peers[6];
  gs_halo_box_g boxes[6][3];
  const gs_halo_transport transport = sp->transport;
  for (int h = 1; h >= 0; --h) {
    /* Each exchange names only its three arrays: over ipc no buffer is opened twice by a peer. */
    gs_halo_array arr[6] = {{{NULL, NULL}, 0, 0, 0, 0, 0}};
    for (int c = 3 * h; c < 3 * h + 3; ++c)
      arr[c] = (gs_halo_array){{m->f[0][c], m->f[1][c]}, m->pitch, m->org[0], m->org[1], m->plane, m->org[2]};
    const int np = make_peers(m, sp, h, peers, boxes);
    gs_halo *x = gs_halo_create(sp->comm, m->b, arr, 6, peers, np, transport, 0, err, errlen);
    if (!x) return GS_ERR_USAGE;
    *(h ? &d->h : &d->e) = x;
  }
  plan_overlap(m, d);
  return GS_OK;
}

static void exchange(gs_halo *x, int parity, gs_stream s) {
  gs_halo_send(x, parity, s);
  gs_halo_finish(x, parity, s);
  gs_halo_wait(x, s);
}

/* The E exchange the last step sent, finished on the side stream. */
static void finish_e(struct gs_fdtd3_dist *d) {
  if (!d->e_pending) return;
  gs_halo_finish(d->e, d->e_parity, d->side);
  gs_halo_wait(d->e, d->side);
  d->e_pending = 0;
}

/* Overlapped step: the core takes the one-rank step (the fused kernel where
 * no slab reaches) on the main stream, reading no ghost (its E recomputes
 * the new H of the shell layer below it, the same bits); meanwhile, on the
 * high-priority side stream, the last E exchange ends, the shell gets its
 * new H and the H exchange runs; then the shell's E reads the stored H of
 * the core, the shell and the ghosts. The host blocks in the exchanges while
 * the device runs the core. */
static void update_overlapped(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_fdtd3_region held) {
  struct gs_fdtd3_dist *d = m->dist;
  const gs_backend *b = m->b;
  b->fdtd3_step(a, &d->core, 1, m->s);
  finish_e(d);
  for (int q = 0; q < d->nshell; ++q)
    b->fdtd3_pass(a, d->shell[q], held, 1, d->side);
  exchange(d->h, 1 - m->cur, d->side);
  b->event_record(d->side_done, d->side);
  b->stream_wait_event(m->s, d->side_done);
  for (int q = 0; q < d->nshell; ++q)
    b->fdtd3_pass(a, d->shell[q], held, 0, m->s);
}

void gs_fdtd3_dist_update(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t) {
  const gs_fdtd3_region own = {m->lo[0], m->hi[0], m->lo[1], m->hi[1], m->lo[2], m->hi[2]};
  const gs_fdtd3_region held = {m->org[0], m->org[0] + m->len[0], m->org[1], m->org[1] + m->len[1],
                                m->org[2], m->org[2] + m->len[2]};
  const struct gs_fdtd3_dist *d = m->dist;
  if (d->overlap) {
    update_overlapped(m, a, held);
    return;
  }
  m->b->fdtd3_pass(a, own, held, 1, m->s);
  /* The H sources: the lines read the new H one node lower (ghosts exchanged first), then
   * the magnetic dipoles change H, which travels (their E again is redone by the E pass). */
  if (d->lines) exchange(d->h, 1 - m->cur, m->s);
  if (m->xsrc) gs_fdtd3_src_step(m, a, t, GS_FDTD3_SRC_H);
  /* plane waves: their H corrections at the owned nodes, after the H sources (gprMax's
   * order), before the H ghosts go (the E pass reads the corrected H; no E again on a part) */
  if (m->pw) gs_fdtd3_pw_step(m, a, t, GS_FDTD3_PW_H);
  if (!d->lines || d->magnetic || m->pw) exchange(d->h, 1 - m->cur, m->s);
  m->b->fdtd3_pass(a, own, held, 0, m->s);
}

void gs_fdtd3_dist_after_step(gs_fdtd3_sim *m) {
  struct gs_fdtd3_dist *d = m->dist;
  if (!d->overlap) {
    exchange(d->e, m->cur, m->s);
    return;
  }
  /* Sent now on the side stream, after the step's work; finished while the next core runs. */
  m->b->event_record(d->main_done, m->s);
  m->b->stream_wait_event(d->side, d->main_done);
  gs_halo_send(d->e, m->cur, d->side);
  d->e_pending = 1;
  d->e_parity = m->cur;
}

void gs_fdtd3_dist_settle(gs_fdtd3_sim *m) {
  struct gs_fdtd3_dist *d = m->dist;
  if (!d || !d->overlap) return;
  finish_e(d);
  m->b->event_record(d->side_done, d->side);
  m->b->stream_wait_event(m->s, d->side_done);
}

double gs_fdtd3_dist_time_exchanges(gs_fdtd3_sim *m, int64_t reps, double *bytes, char *used, size_t usedlen) {
  struct gs_fdtd3_dist *d = m->dist;
  gs_fdtd3_sim_sync(m);
  *bytes = gs_halo_bytes_per_exchange(d->h) + gs_halo_bytes_per_exchange(d->e);
  gs_halo_summary(d->h, used, usedlen);
  GS_MPI_CHECK(MPI_Barrier(d->comm));
  const double t0 = MPI_Wtime();
  for (int64_t k = 0; k < reps; ++k) {
    exchange(d->h, 1 - m->cur, m->s);
    exchange(d->e, m->cur, m->s);
  }
  m->b->stream_sync(m->s);
  double mine = MPI_Wtime() - t0, most;
  GS_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, d->comm));
  return most;
}

void gs_fdtd3_dist_checksum(gs_fdtd3_sim *m, uint64_t sum[2]) {
  uint64_t all[2];
  GS_MPI_CHECK(MPI_Allreduce(sum, all, 2, MPI_UINT64_T, MPI_SUM, m->dist->comm));
  sum[0] = all[0];
  sum[1] = all[1];
}

float *gs_fdtd3_dist_receivers(const gs_fdtd3_sim *m) {
  const gs_scene *sc = m->sc;
  const size_t per = 6 * (size_t)sc->nrx, count = per * (size_t)m->step;
  uint32_t *mine = gs_xcalloc(count + 1, sizeof *mine);
  float *all = m->dist->rank == 0 ? gs_xmalloc(sizeof *all * (count + 1)) : NULL; /* 4-byte elements, as mine */
  for (int64_t t = 0; t < m->step; ++t) /* bits, not values: a bitwise or of zeros keeps -0 and NaN */
    for (int q = 0; q < m->nrx; ++q)
      memcpy(mine + (size_t)t * per + 6 * (size_t)m->rx_index[q], m->rx_hist + ((size_t)t * (size_t)m->nrx + q) * 6,
             6 * sizeof(float));
  for (size_t at = 0; at < count; at += (size_t)1 << 28) {
    const size_t n = count - at < (size_t)1 << 28 ? count - at : (size_t)1 << 28;
    GS_MPI_CHECK(
        MPI_Reduce(mine + at, all ? (void *)(all + at) : NULL, (int)n, MPI_UINT32_T, MPI_BOR, 0, m->dist->comm));
  }
  free(mine);
  return all;
}

/* Index of line v among the scene's lines. */
static int line_ordinal(const gs_scene *sc, const gs_source3 *v) {
  int n = 0;
  for (const gs_source3 *q = sc->src3; q < v; ++q)
    n += q->kind == GS_SRC3_TLINE;
  return n;
}

/* Line o's outputs (pos, resistance, dl; Vinc, Iinc, Vtotal, Itotal) from
 * its owner into meta and series (4 n floats); on the owner: local line q. */
static void line_outputs(const gs_fdtd3_sim *m, int q, double meta[5], float *series) {
  const size_t n = (size_t)(m->sc->iterations + 1);
  gs_fdtd3_line_record t;
  gs_fdtd3_src_line(m, q, &t, series + 2 * n, series + 3 * n);
  memcpy(series, t.vinc, sizeof(float) * n);
  memcpy(series + n, t.iinc, sizeof(float) * n);
  meta[0] = t.pos[0], meta[1] = t.pos[1], meta[2] = t.pos[2], meta[3] = t.resistance, meta[4] = t.dl;
}

int gs_fdtd3_dist_lines(const gs_fdtd3_sim *m, gs_fdtd3_line_record **tl, float **store) {
  const gs_scene *sc = m->sc;
  const int root = m->dist->rank == 0, nloc = gs_fdtd3_src_lines(m);
  const size_t n = (size_t)(sc->iterations + 1);
  int nl = 0;
  for (int q = 0; q < sc->nsrc3; ++q)
    nl += sc->src3[q].kind == GS_SRC3_TLINE;
  *tl = root ? gs_xcalloc((size_t)nl + 1, sizeof **tl) : NULL;
  *store = root ? gs_xmalloc(sizeof(float) * 4 * n * (size_t)nl + 1) : NULL;
  if (!nl) return 0;
  int *mine = gs_xmalloc(sizeof *mine * 2 * (size_t)nl), *owner = mine + nl;
  for (int o = 0; o < nl; ++o)
    mine[o] = -1;
  for (int q = 0; q < nloc; ++q)
    mine[line_ordinal(sc, gs_fdtd3_src_line_of(m, q))] = q;
  int *by = gs_xmalloc(sizeof *by * (size_t)nl); /* the owner's rank of each line */
  for (int o = 0; o < nl; ++o)
    by[o] = mine[o] >= 0 ? m->dist->rank : -1;
  GS_MPI_CHECK(MPI_Allreduce(by, owner, nl, MPI_INT, MPI_MAX, m->dist->comm));
  float *series = gs_xmalloc(sizeof(float) * 4 * n);
  for (int o = 0; o < nl; ++o) {
    double meta[5];
    float *dst = root ? *store + (size_t)o * 4 * n : series;
    if (owner[o] == m->dist->rank) line_outputs(m, mine[o], meta, dst);
    if (owner[o] != 0 && owner[o] == m->dist->rank) {
      GS_MPI_CHECK(MPI_Send(meta, 5, MPI_DOUBLE, 0, 2 * o, m->dist->comm));
      GS_MPI_CHECK(MPI_Send(dst, (int)(4 * n), MPI_FLOAT, 0, 2 * o + 1, m->dist->comm));
    } else if (owner[o] != 0 && root) {
      GS_MPI_CHECK(MPI_Recv(meta, 5, MPI_DOUBLE, owner[o], 2 * o, m->dist->comm, MPI_STATUS_IGNORE));
      GS_MPI_CHECK(MPI_Recv(dst, (int)(4 * n), MPI_FLOAT, owner[o], 2 * o + 1, m->dist->comm, MPI_STATUS_IGNORE));
    }
    if (root)
      (*tl)[o] = (gs_fdtd3_line_record){
          {meta[0], meta[1], meta[2]}, meta[3], meta[4], (int64_t)n, dst, dst + n, dst + 2 * n, dst + 3 * n};
  }
  free(series);
  free(by);
  free(mine);
  return root ? nl : 0;
}

void gs_fdtd3_dist_free(gs_fdtd3_sim *m) {
  struct gs_fdtd3_dist *d = m->dist;
  if (!d) return;
  if (d->overlap) {
    gs_fdtd3_dist_settle(m); /* every rank finishes the exchange its neighbours finish */
    m->b->stream_sync(m->s);
    m->b->stream_sync(d->side);
    m->b->event_destroy(d->main_done);
    m->b->event_destroy(d->side_done);
    m->b->stream_destroy(d->side);
  }
  if (d->h) gs_halo_destroy(d->h);
  if (d->e) gs_halo_destroy(d->e);
  free(d);
  m->dist = NULL;
}

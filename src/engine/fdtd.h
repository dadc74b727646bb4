/* One rank's FDTD state and time stepping (used by the fdtd command, the
 * benchmark and the validation tests). */
#ifndef GS_FDTD_H
#define GS_FDTD_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "backend.h"
#include "comm.h"
#include "halo.h"
#include "scene.h"

#define GS_FDTD_MAX_DEPTH 8 /* deepest halo (--halo-depth) */

/* The nodes one rank owns: global Ez nodes [i0, i1) x [j0, j1). */
typedef struct gs_fdtd_part {
  int64_t i0, i1, j0, j1;
} gs_fdtd_part;

/* Where this rank's nodes lie in the grid and how its arrays are laid out
 * (every array of nodes: fields, materials). */
typedef struct gs_fdtd_grid {
  int64_t nx, ny;      /* the global grid: Ez nodes 0..nx x 0..ny */
  gs_fdtd_part own;    /* the global nodes this rank owns */
  int g;               /* ghost layers around them (the halo depth) */
  int64_t pitch, rows; /* this rank's arrays: floats a row (padded), rows */
  size_t nelem;        /* pitch * rows */
} gs_fdtd_grid;

/* The fields, double-buffered: a step reads one set and writes the other. */
typedef struct gs_fdtd_fields {
  gs_fdtd_view v;   /* the current set (device pointers) and the materials */
  float *buf[2][3]; /* two sets of Ez, Hx, Hy */
  int cur;          /* index of the current set */
} gs_fdtd_fields;

/* The materials of the nodes and the update coefficients they give. */
typedef struct gs_fdtd_materials {
  uint8_t *host; /* material of every node of the arrays (fields.v.mat on the device) */
  gs_fdtd_coef coef_host[GS_FDTD_MAX_MATERIALS];
  gs_fdtd_coef *coef; /* device copy of coef_host */
  int nmat;           /* entries the nodes use (the first nmat) */
  float chx, chy;     /* H update in free space: dt / (mu0 dx), dt / (mu0 dy) */
  gs_fdtd_hcoef hcoef_host[GS_FDTD_MAX_MATERIALS];
  const uint8_t *hmx, *hmy; /* device: material of each node's Hx, Hy; NULL unless some are magnetic */
  gs_fdtd_hcoef *hcoef;     /* device copy of hcoef_host (with hmx) */
} gs_fdtd_materials;

/* The CFS-CPML slabs (this rank's parts of them) and the update regions
 * they shape. */
typedef struct gs_fdtd_cpml {
  int n;                    /* slabs this rank holds a part of */
  gs_fdtd_slab slab[4];     /* extents and device profiles */
  int side[4];              /* scene side (0 x-, 1 y-, 2 x+, 3 y+) of slab[k] */
  float *prof[4];           /* the device block slab[k]'s profiles point into */
  float *psi[4][2][2];      /* auxiliaries: [slab][buffer set][E, H] */
  size_t cells[4];          /* elements of each psi array */
  gs_fdtd_region region[5]; /* global: region[0] touches no slab; 1..4 the strips around it */
} gs_fdtd_cpml;

/* The sources this rank injects, owned ones first: [0, cum[0]) inside the
 * interior box, [cum[0], cum[1]) in the ring the neighbours need, then
 * [cum[d], cum[d + 1]) in the ghost layers at depth d (deep halos compute
 * those redundantly). */
typedef struct gs_fdtd_sources {
  int n;
  int cum[GS_FDTD_MAX_DEPTH + 2];
  int64_t *off; /* device: array offset of each */
  float *val;   /* device: value of each at every step, [step][source] */
} gs_fdtd_sources;

/* Steps of receiver samples the device ring holds (flushed to the host when full;
 * the on-chip path launches at most this many steps at a time when there are receivers). */
#define GS_RX_CHUNK 256

/* The receivers this rank owns. They are sampled on a stream of their own,
 * beside the step's update (which reads the buffer they read); the next
 * step's update waits. */
typedef struct gs_fdtd_receivers {
  int n;
  int *global;     /* scene index of each */
  int64_t *off;    /* device: array offset of each */
  float *buf;      /* device ring of samples, GS_RX_CHUNK steps */
  float *hist;     /* host: [step][receiver][Ez, Hx, Hy] */
  int64_t flushed; /* steps already copied from buf to hist */
  gs_stream s;
  gs_event ev_ready, ev_done;
  int pending; /* a sample was queued and not yet waited for by the update */
} gs_fdtd_receivers;

/* The part of several ranks (gs_fdtd_sim_connect): neighbours, the halo
 * exchange and its deep-halo cycle, the streams and events of the overlap. */
typedef struct gs_fdtd_dist {
  int depth;                        /* R: ghost layers, exchanged every R steps (deep halo) */
  int nb[4];                        /* a neighbour beyond the low x, high x, low y, high y side */
  int overlap;                      /* boundary ring on hi while the interior runs on s */
  gs_stream hi;                     /* high-priority stream (s when not overlapping) */
  gs_event ev_ring, ev_lo, ev_sent; /* ev_sent: the last send has read what it sends */
  gs_halo *halo;                    /* NULL on one rank */
  int64_t k0;                       /* step of the last full exchange: the deep-halo cycle starts there */
  int pending;                      /* the last step sent ghosts the next one must wait for */
} gs_fdtd_dist;

/* CUDA graphs (gs_fdtd_sim_advance): a cycle of len steps captured once at
 * step n0, replayed; its kernels read the step and the exchange count where
 * a replay starts from clock (device memory). */
typedef struct gs_fdtd_graph {
  int allowed; /* GPU backend, and no neighbour needs a host step */
  void *exec;  /* the captured graph; NULL until captured */
  int64_t n0;
  int len, exch; /* steps and exchanges per replay */
  int64_t *clock;
  int64_t clock_host[2]; /* what clock holds after the queued work (-1: unknown) */
  int capturing, fresh;  /* queuing a capture; its first step */
  gs_event ev_fork, ev_join;
} gs_fdtd_graph;

/* One rank's FDTD state, by concern. */
typedef struct gs_fdtd_sim {
  const gs_backend *b;
  const gs_scene *sc;
  int run;      /* 0-based run of the scene (moves sources and receivers) */
  int64_t step; /* steps queued so far */
  gs_stream s;  /* the (low-priority) stream of the bulk of the work */
  int pdl;      /* programmatic dependent launch (GPUSTENCIL_PDL, gs_config) */
  /* gs_fdtd_sim_advance takes many steps a launch with the grid on chip
   * (kernels/fdtd_run.cu): one rank, the backend takes the grid, and
   * GPUSTENCIL_ONCHIP allows it (or gs_fdtd_sim_set_onchip said so). */
  int onchip;
  int onchip_blocks;        /* thread blocks of its launches */
  char onchip_form[160];    /* the backend's form of it (gs_fdtd_run_form_fn's, copied) */
  int64_t *onchip_barrier;  /* device: its launches' scratch (the grid barrier's counter, the edge words; zeroed) */
  uint64_t onchip_arrivals; /* what the counter holds after the queued launches */
  int64_t onchip_scratch;   /* bytes of onchip_barrier (the launches' scratch, gs_fdtd_run_scratch) */
  /* Otherwise it takes passes of fuse steps fused (kernels/fdtd_fuse.cu)
   * where fuse > 0 (the backend takes the grid, GPUSTENCIL_FUSE allows it,
   * or gs_fdtd_sim_set_fuse said so); on several ranks each deep-halo cycle
   * of R steps as one pass where 2 <= R <= fuse, then the exchange. */
  int fuse;
  gs_fdtd_grid grid;
  gs_fdtd_fields fields;
  gs_fdtd_materials mat;
  gs_fdtd_cpml pml;
  gs_fdtd_sources src;
  gs_fdtd_receivers rx;
  gs_fdtd_dist dist;
  gs_fdtd_graph graph;
} gs_fdtd_sim;

/* Allocates and initialises the fields (zero), materials, CPML and the
 * sources' and receivers' data for run (0-based; positions moved by
 * #src_steps / #rx_steps). Fatal on backend failure. */
void gs_fdtd_sim_init(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run);
/* The same for a part of the grid (part NULL: all of it) with depth ghost
 * layers (1..GS_FDTD_MAX_DEPTH). Returns GS_OK, or GS_ERR_USAGE with the
 * reason in err when the part cannot work (a rank boundary inside the CPML or
 * within depth nodes of it, fewer than max(2, depth) nodes a side). */
gs_status gs_fdtd_sim_init_part(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                const gs_fdtd_part *part, int depth, char *err, size_t errlen);
/* Collective over cart (the 2D Cartesian communicator whose rank coordinates
 * gave part): sets up the halo exchange with the neighbours (transport t,
 * overlap of the boundary ring with the interior) and fills the ghost layers.
 * Every rank of cart calls it, also when it has one rank (no-op). GS_OK on
 * every rank, or GS_ERR_USAGE on every rank with the reason in err on the
 * ranks that found it (an impossible --halo-transport). */
gs_status gs_fdtd_sim_connect(gs_fdtd_sim *m, MPI_Comm cart, gs_halo_transport t, int overlap, char *err,
                              size_t errlen);
/* Refills the ghost layers (after a restart); collective. */
void gs_fdtd_sim_refresh(gs_fdtd_sim *m);
/* The largest depth <= want (and <= GS_FDTD_MAX_DEPTH) that the part allows, or 1
 * (for --halo-depth auto; gs_fdtd_sim_init_part still refuses a part no depth fits). */
int gs_fdtd_depth_fit(const gs_scene *sc, const gs_fdtd_part *part, int want);
void gs_fdtd_sim_free(gs_fdtd_sim *m);
/* Lets gs_fdtd_sim_advance keep the grid on chip (on = 1: where the rank
 * holds the whole grid and the backend takes it) or not; returns whether it
 * will. Between steps only. */
int gs_fdtd_sim_set_onchip(gs_fdtd_sim *m, int on);
/* Lets gs_fdtd_sim_advance (when the grid is not on chip) take passes of T
 * fused steps (T = 0: single steps; several ranks: deep-halo cycles of R <=
 * T steps); T is cut to what the backend takes for the grid (0 where it
 * takes none). Returns the T it will take. Between steps only. */
int gs_fdtd_sim_set_fuse(gs_fdtd_sim *m, int T);
/* Queues count steps: gs_fdtd_sim_step's, as replays of a captured CUDA
 * graph of whole deep-halo cycles where m->graph.allowed (the same kernels,
 * the same bits), single steps for the rest. */
void gs_fdtd_sim_advance(gs_fdtd_sim *m, int64_t count);
/* Queues one step: sample the receivers, update H and E with their CPML
 * corrections, inject the sources; on several ranks (after
 * gs_fdtd_sim_connect) also the deep-halo cycle, the exchange and its overlap
 * with the interior (docs/fdtd.md, "Several ranks"). Asynchronous on the GPU. */
void gs_fdtd_sim_step(gs_fdtd_sim *m);
/* Waits for both streams and copies buffered receiver samples to rx.hist. */
void gs_fdtd_sim_sync(gs_fdtd_sim *m);
/* Copies rows [j0, j1) (global, owned) of field f (0 Ez, 1 Hx, 2 Hy) to host
 * (grid.pitch floats per row; with the grid's fields, element (i, j) at
 * [(j - j0) * pitch + i - own.i0 + g]). */
void gs_fdtd_sim_read_rows(gs_fdtd_sim *m, int f, int64_t j0, int64_t j1, float *host);
/* This rank's terms of the split-independent checksums of Ez, Hx, Hy
 * (docs/fdtd.md): add them over all ranks (wrapping) for the checksum. */
void gs_fdtd_sim_checksum(gs_fdtd_sim *m, uint64_t sum[3]);
/* Writes this rank's checkpoint file atomically (src/engine/checkpoint.c); every
 * restart reads through gs_ckpt_load (checkpoint.h). */
gs_status gs_fdtd_checkpoint_write(gs_fdtd_sim *m, const char *path, char *err, size_t errlen);

/* Ranks along x and y: spec "PXxPY" (-1 unless PX * PY == size), or, when
 * spec is NULL, the split with the cheapest halo (row halos preferred to
 * column halos, docs/fdtd.md). */
int gs_fdtd_decomp(const char *spec, int size, int64_t nx, int64_t ny, int dims[2]);

/* The nodes rank (coords) owns in a dims[0] x dims[1] split of the grid. */
gs_fdtd_part gs_fdtd_part_of(const gs_scene *sc, const int dims[2], const int coords[2]);

typedef struct gs_fdtd_timing {
  double seconds;    /* the timed steps, slowest rank */
  double halo_bytes; /* bytes one rank sent in the timed steps, the most of any */
  double graphs;     /* 1 when every rank ran the timed steps from a CUDA graph captured before them */
} gs_fdtd_timing;

/* How a run is spread: transport, halo depth (0: automatic), overlap, CUDA
 * graphs (where possible). */
typedef struct gs_fdtd_spread {
  gs_halo_transport transport;
  int depth, overlap, graphs;
} gs_fdtd_spread;

/* Collective over comm: runs warmup + steps steps of sc split dims[0] x
 * dims[1] over comm's ranks and times the last steps. GS_OK, or an error on
 * every rank (reason in err on the ranks that found it). used: the transport
 * summary and depth taken (rank 0's). */
gs_status gs_fdtd_timed_run(const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                            const gs_fdtd_spread *sp, int64_t warmup, int64_t steps, gs_fdtd_timing *t, char *used,
                            size_t usedlen, int *depth_used, char *err, size_t errlen);
/* Bytes one rank needs for its part of sc at halo depth: on the device
 * (fields, materials, CPML, source values, the receivers' ring) and on the
 * host (set-up copies, receiver histories; with root_runs > 0, what rank 0
 * gathers: every receiver's history and a B-scan of root_runs runs). Doubles:
 * a refused grid may need more than 2^64 bytes. */
typedef struct gs_fdtd_memory {
  double device, host;
} gs_fdtd_memory;
gs_fdtd_memory gs_fdtd_memory_need(const gs_scene *sc, const gs_fdtd_part *part, int depth, int64_t root_runs);
/* Bytes this rank may use: the device's available memory shared evenly by
 * the node's ranks placed on the same GPU (the host's memory on the CPU
 * backend), and the host's shared by the node's ranks (gs_host_mem_share). */
void gs_fdtd_rank_memory(const gs_comm *c, const gs_backend *b, double *device, double *host);
/* The host memory in bytes this rank may use (its share of the node's and of
 * the cgroup limits over it: gs_host_mem_share); 0 when unknown. */
double gs_fdtd_rank_host_memory(const gs_comm *c);
/* Collective over c->world: GS_OK when every rank's need fits what it has
 * (b->mem_available() or the host's available memory, shared by the ranks of
 * a node or GPU); else GS_ERR_LIMIT on every rank, with "the model needs N
 * GiB of GPU memory on rank R, the rank has M GiB" in err on the lowest rank
 * that lacks it (err empty on the others). */
gs_status gs_fdtd_memory_check(const gs_comm *c, const gs_backend *b, gs_fdtd_memory need, char *err, size_t errlen);
/* Collective over comm: the halo depth every rank uses, want or (want 0)
 * the automatic choice that fits every rank's part. */
int gs_fdtd_agree_depth(const gs_scene *sc, const gs_backend *b, const gs_fdtd_part *part, int want, MPI_Comm comm);
/* Collective over comm: part of sc for this rank of a dims[0] x dims[1]
 * split (run 0), its halo connected as sp says (sp->depth 0: automatic), and
 * the Cartesian communicator in *cart (free with MPI_Comm_free). GS_OK, or an
 * error on every rank (reason in err on the ranks that found it; nothing to free). */
gs_status gs_fdtd_sim_open(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2],
                           const gs_fdtd_spread *sp, MPI_Comm *cart, char *err, size_t errlen);
/* Halo depth for --halo-depth auto on a part of this many nodes. */
int gs_fdtd_auto_depth(const gs_backend *b, double part_nodes);

#endif

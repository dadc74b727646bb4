/* One rank's 3D FDTD model: gprMax 4's geometry (src/model/geometry3d.c),
 * update and HORIPML (kernels/fdtd3d_kernels.h), Hertzian dipoles and
 * receivers, on the CPU or one GPU; dispersion, the other sources, plane waves
 * and the split over ranks hook into its step (fdtd3d_*.h). */
#ifndef GS_FDTD3D_H
#define GS_FDTD3D_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "scene.h"

#define GS_RX3_CHUNK 256 /* steps of receiver samples held on the device */

typedef struct gs_fdtd3_disp gs_fdtd3_disp; /* dispersive poles (fdtd3d_dispersion.h) */

typedef struct gs_fdtd3_sim {
  const gs_backend *b;
  const gs_scene *sc;
  int run;
  int64_t step;
  gs_stream s;
  int64_t pitch, plane, count; /* kernels/fdtd3d_kernels.h's layout */
  float *f[2][6];              /* two sets of Ex Ey Ez Hx Hy Hz (device) */
  int cur;
  uint8_t *mat[3], *hmat[3]; /* device: E and (magnetic scenes only) H materials per node */
  gs_fdtd3_coef *coef;       /* device tables */
  gs_fdtd3_hcoef *hcoef;
  gs_fdtd3_coef coef_host[GS_FDTD3_MAX_MATERIALS];
  gs_fdtd3_hcoef hcoef_host[GS_FDTD3_MAX_MATERIALS];
  int nslab;
  gs_fdtd3_slab slab[6];
  int pml_form;         /* the kernels' CPML form (GS_FDTD3_HORIPML1 ..) */
  float *prof[6];       /* device: each slab's coefficient profiles (fdtd3d.c, slab_profiles) */
  float *psi[6][2][4];  /* device: [slab][set][E slot 0, E slot 1, H slot 0, H slot 1] */
  size_t psi_floats[6]; /* floats in each of a slab's psi arrays (t n_a n_b a CFS term) */
  int64_t psi_bias[6];  /* a part's slab pieces: the bias of their psi (as the fields', fdtd3d.h), 0 on one rank */
  int nrx;
  int64_t *rx_off; /* device */
  float *rx_ring;  /* device: GS_RX3_CHUNK steps of [receiver][6] */
  float *rx_hist;  /* host: [step][receiver][6] */
  int64_t flushed;
  gs_fdtd3_disp *disp;        /* NULL without dispersive materials */
  struct gs_fdtd3_xsrc *xsrc; /* magnetic dipoles, voltage sources, lines (fdtd3d_sources.c), or NULL */
  struct gs_fdtd3_pws *pw;    /* discrete plane waves (fdtd3d_planewave.c), or NULL */
  /* The nodes this rank holds: the whole model (split 0: lo 0,
   * hi n + 1, org 0), or one part of a model split over ranks
   * (fdtd3d_dist.c): nodes [lo, hi) owned; the arrays hold nodes [org, org +
   * len), the owned ones and one ghost layer on each side with a neighbour.
   * Offsets stay global (k plane + j pitch + i, with this rank's pitch and
   * plane): array element o - bias holds offset o, so the kernels, the
   * sources and the receivers index with global nodes unchanged. */
  int split;
  int64_t lo[3], hi[3], org[3], len[3];
  int64_t bias;
  int *rx_index;              /* split: the scene's index of each receiver held, else NULL */
  struct gs_fdtd3_dist *dist; /* split: the ghost exchanges, else NULL */
  int reused;                 /* set up on the arrays of the survey's previous run (gs_fdtd3_sim_keep) */
} gs_fdtd3_sim;

struct gs_fdtd3_ranks; /* how a model is split over ranks (fdtd3d_dist.h) */

/* 1 when node (i, j, k) is one of m's owned nodes. */
static inline int gs_fdtd3_sim_owns(const gs_fdtd3_sim *m, int64_t i, int64_t j, int64_t k) {
  return i >= m->lo[0] && i < m->hi[0] && j >= m->lo[1] && j < m->hi[1] && k >= m->lo[2] && k < m->hi[2];
}

/* A callback taking E component comp (0 x, 1 y, 2 z) of node (i, j, k). */
typedef void (*gs_fdtd3_node_fn)(void *ctx, int comp, int64_t i, int64_t j, int64_t k);

/* A device copy of bytes at host (one byte allocated for 0), appended to the
 * list (*list, *n) its owner frees at the end; synchronous. */
void *gs_fdtd3_upload(gs_fdtd3_sim *m, const void *host, size_t bytes, void ***list, int *n);
/* Frees every copy of such a list and the list. */
void gs_fdtd3_upload_free(gs_fdtd3_sim *m, void ***list, int *n);

/* Bytes the model needs (device: fields, materials, CPML, sources, ring;
 * host: the geometry build, receiver histories), before anything is made;
 * what its outputs need on the host (gs_gpr3_outputs_host_bytes) comes on top. */
void gs_fdtd3_memory_need(const gs_scene *sc, double *device, double *host);
/* Builds run (0-based) of 3D scene sc: GS_OK, or GS_ERR_USAGE with the
 * reason in err (e.g. more than 256 materials after smoothing). */
gs_status gs_fdtd3_sim_init(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run, char *err,
                            size_t errlen);
/* The same for this rank's part of a model split over the ranks of sp
 * (fdtd3d_dist.h); collective over them (the geometry's compounds, the ghost
 * exchanges); a failure on one rank fails all, with the reason everywhere. */
gs_status gs_fdtd3_sim_init_part(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                 const struct gs_fdtd3_ranks *sp, char *err, size_t errlen);
/* What a survey keeps from run to run of one scene and split: the runs
 * differ only in where sources and receivers stand, never in the cells'
 * materials, so the geometry is built for the first run and kept, and each
 * run's model, once done, is kept too (gs_fdtd3_sim_keep): the next run
 * takes its arrays, its fields, CPML auxiliaries and pole state zeroed on
 * the device, and sets again only what depends on the run (sources and the
 * materials they give their nodes, plane waves, the dispersive nodes the
 * sources defer, receivers). Runs side by side on one GPU keep one model
 * each. Zeroed means empty. */
#define GS_FDTD3_KEPT_MAX 16 /* models kept at most: the most runs side by side (--runs-per-gpu) */
typedef struct gs_fdtd3_model_cache {
  const gs_scene *sc;              /* the scene it was built for */
  const struct gs_fdtd3_ranks *sp; /* and the split (NULL: one rank) */
  gs_geometry3 g, plane;           /* the part's geometry, its sigma plane when split */
  int valid;
  int nkept;          /* models kept, each with its own arrays and stream */
  gs_fdtd3_sim *kept; /* finished runs' models, taken last kept first (heap, GS_FDTD3_KEPT_MAX; NULL: none yet) */
} gs_fdtd3_model_cache;
/* gs_fdtd3_sim_init_part with the geometry taken from cache when it holds
 * this scene and split's, else built and kept there (cache NULL: built and
 * freed); on the arrays of the model the cache keeps when there is one.
 * The same bits as without it. Collective over a split's ranks, which must
 * all pass caches of the same history. */
gs_status gs_fdtd3_sim_init_cached(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                   const struct gs_fdtd3_ranks *sp, gs_fdtd3_model_cache *cache, char *err,
                                   size_t errlen);
/* At the end of a run, in place of gs_fdtd3_sim_free: m (set up by
 * gs_fdtd3_sim_init_cached with cache, its steps synchronised) goes into
 * cache for the next run of the same scene and split; freed instead where
 * the cache holds another scene's geometry. m is zeroed either way. */
void gs_fdtd3_sim_keep(gs_fdtd3_sim *m, gs_fdtd3_model_cache *cache);
/* Frees what the cache holds (collective over a split's ranks: a kept
 * model's exchanges) and empties it. */
void gs_fdtd3_model_cache_free(gs_fdtd3_model_cache *cache);
/* Queues count steps: receivers sampled, H and E updated with the CPML,
 * the dipoles' currents added. */
void gs_fdtd3_sim_advance(gs_fdtd3_sim *m, int64_t count);
/* Waits for the queued work and copies receiver samples to rx_hist. */
void gs_fdtd3_sim_sync(gs_fdtd3_sim *m);
/* The split-independent checksums of E and H (the 2D engine's scheme over
 * every node of the six fields): sum[0] E, sum[1] H. */
void gs_fdtd3_sim_checksum(gs_fdtd3_sim *m, uint64_t sum[2]);
void gs_fdtd3_sim_free(gs_fdtd3_sim *m);
/* The scene's materials in gprMax's order (pec 0, free_space 1, then
 * #material), as gs_geometry3_build takes them; the caller frees them. */
struct gs_mat3 *gs_fdtd3_materials(const gs_scene *sc);

/* One piece of a model's state that a checkpoint saves and a restart
 * restores (src/engine/checkpoint3d_file.c, docs/fdtd.md "Checkpoints of 3D models"):
 * a name (at most 23 characters, written into the file's section table),
 * where the bytes live (dev on the device, or host) and how many. */
typedef struct gs_fdtd3_state {
  char name[24];
  void *dev, *host;
  size_t bytes;
} gs_fdtd3_state;
/* Fields 6, CPML 24, receivers 1, poles 6, lines 5 each (at most GS_FDTD3_CKPT_LINES = 20
 * with checkpoints) and plane waves 3 each (lines and plane waves together at most 94
 * sections, fdtd3d_cmd.c): at most 137 entries, well inside. */
#define GS_FDTD3_MAX_STATE 256
/* Lists m's state at m->step (after gs_fdtd3_sim_sync) into out (at most
 * GS_FDTD3_MAX_STATE entries); returns the count. Everything a step reads
 * that the scene does not give MUST be listed there (fields, CPML psi,
 * receiver histories so far; new dispersion, source or transmission-line
 * state too), or a restarted run is not the bits of an unbroken one. */
int gs_fdtd3_sim_state(gs_fdtd3_sim *m, gs_fdtd3_state *out);
/* Before a restart fills the state: m stands at step (receivers flushed). */
void gs_fdtd3_sim_resume(gs_fdtd3_sim *m, int64_t step);

#endif

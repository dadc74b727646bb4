/* A 3D model split over ranks: each rank steps one part of the
 * nodes (decomp3d.h) with one ghost layer per neighbour; the geometry is
 * built per part with the compounds numbered as one rank numbers them; H and
 * E ghost layers are exchanged each step through mpi/halo.h; the checksum and
 * the receivers are gathered so that the outputs are one rank's, bit for bit
 * (docs/fdtd.md "3D models over several ranks"). */
#ifndef GS_FDTD3D_DIST_H
#define GS_FDTD3D_DIST_H

#include <mpi.h>

#include "decomp3d.h"
#include "fdtd3d.h"
#include "fdtd3d_sources.h"
#include "geometry3d.h"
#include "halo.h"

/* Parts per axis: at least this many nodes thick along a split axis. */
#define GS_FDTD3_MIN_PART 2

/* How the model is split: the ranks of comm (rank r holds part coords
 * (r % PX, r / PX % PY, r / (PX PY))), and this rank's part. */
typedef struct gs_fdtd3_ranks {
  MPI_Comm comm;
  int rank, size;
  int dims[3], coords[3];
  gs_part3 part;
  gs_halo_transport transport;
} gs_fdtd3_ranks;

/* The split of sc over the ranks of comm: decomp ("PXxPYxPZ", or NULL for
 * the split with the fewest halo bytes). 0, or -1 with one line in why (the
 * same on every rank): a bad --decomp, too few nodes per part. */
int gs_fdtd3_ranks_make(gs_fdtd3_ranks *sp, MPI_Comm comm, const gs_scene *sc, const char *decomp,
                        gs_halo_transport transport, char *why, size_t whylen);

/* The geometry of sp's part (its owned nodes and the cells they touch), the
 * compound visits merged over the ranks first, so that every rank numbers the
 * compounds (and sums their properties) as one rank building the whole model
 * does; and sigma_plane: the plane of cells gprMax's sigma_max averages (the
 * first CPML slab's), painted whole (zeroed when the model has no CPML).
 * Collective; a failure anywhere fails every rank with the reason. */
gs_status gs_fdtd3_dist_geometry(gs_geometry3 *g, gs_geometry3 *sigma_plane, const gs_scene *sc, const gs_mat3 *mats,
                                 const gs_fdtd3_ranks *sp, char *err, size_t errlen);

/* Collective over comm: the worst status of all ranks; the reason of the
 * lowest failing rank into every rank's err. */
gs_status gs_fdtd3_dist_agree(gs_status st, MPI_Comm comm, char *err, size_t errlen);

/* 1 when the CPML slab normal to dir on side (t cells) reaches m's nodes
 * (always on one rank). */
int gs_fdtd3_dist_slab_reaches(const gs_fdtd3_sim *m, int dir, int side, int64_t t);

/* 1 when sc's parts may take the overlapped schedule (fdtd3d_dist.c: no
 * H sources, i.e. magnetic dipoles and transmission lines, and no plane
 * waves, which change H between the H and the E pass; not with the
 * measuring knob GS_FDTD3_PARTS=passes); a part does where it has a core. */
int gs_fdtd3_dist_overlap_possible(const gs_scene *sc);

/* The ghost exchanges of m (collective). GS_OK or GS_ERR_USAGE with err. */
gs_status gs_fdtd3_dist_connect(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, char *err, size_t errlen);

/* The update of a part: new H of the owned nodes, the H sources, the H
 * ghosts exchanged, new E of the owned nodes (a: the step's arguments). */
void gs_fdtd3_dist_update(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t);
/* After the step (m->cur the new set): the E ghosts exchanged (in the
 * overlapped schedule: sent; finished during the next step). */
void gs_fdtd3_dist_after_step(gs_fdtd3_sim *m);
/* Every exchange finished and the main stream after it: the ghost layers
 * hold what one rank's step would read (before m's arrays are read or
 * written from outside the step; gs_fdtd3_sim_sync calls it). */
void gs_fdtd3_dist_settle(gs_fdtd3_sim *m);

/* bench halo: wall seconds (the slowest rank's) of reps exchanges of both
 * ghost layers, H and E, as a step sends them (collective); bytes: what this
 * rank sends per step, used: its transports (gs_halo_summary). */
double gs_fdtd3_dist_time_exchanges(gs_fdtd3_sim *m, int64_t reps, double *bytes, char *used, size_t usedlen);

/* The split-independent checksum over all ranks' owned nodes (every rank). */
void gs_fdtd3_dist_checksum(gs_fdtd3_sim *m, uint64_t sum[2]);
/* Collective: every receiver's history [step][receiver][6] of the steps so
 * far, the scene's order, on rank 0 (malloc'd; NULL elsewhere). */
float *gs_fdtd3_dist_receivers(const gs_fdtd3_sim *m);

/* Collective: every transmission line's outputs in the scene's order on
 * rank 0 (*tl and *store malloc'd there, NULL elsewhere); the count on rank 0. */
int gs_fdtd3_dist_lines(const gs_fdtd3_sim *m, gs_fdtd3_line_record **tl, float **store);

void gs_fdtd3_dist_free(gs_fdtd3_sim *m);

#endif

/* gprMax's #geometry_view and #snapshot files of a 3D model (docs/fdtd.md,
 * "3D models"), written through gprmax_out.h. One rank. */
#ifndef GS_GPR_VIEWS3D_H
#define GS_GPR_VIEWS3D_H

#include <stddef.h>

#include "error.h"
#include "fdtd3d.h"
#include "geometry3d.h"
#include "scene.h"

/* Every #geometry_view of run (0-based) of runs into dir from geometry g
 * (gs_geometry3_build of the scene): type n as gprMax's voxel view (.vtkhdf
 * or .vti), type f as gprMax's per-edge view (.vtkhdf). The model number is
 * appended to the name with several runs, as gprMax does. */
gs_status gs_gpr3_write_views(const gs_scene *sc, const gs_geometry3 *g, int run, int runs, const char *dir, char *err,
                              size_t errlen);
/* Snapshot q of m's fields now (gprMax's iteration q->iteration: after
 * q->iteration - 1 steps), written to path. The fields are read from the
 * device one z plane at a time; a .vtkhdf file is written one layer of cells
 * at a time, .h5 and .vti hold the whole box's cell values until written. */
gs_status gs_gpr3_take_snapshot(gs_fdtd3_sim *m, const gs_snapshot_req *q, const char *path, char *err, size_t errlen);
/* The same over the ranks of sp (a model split over them):
 * collective; rank 0 writes path one layer of cells at a time (every format)
 * from the sampled node layers the parts send, with one rank's arithmetic, so
 * the file holds one rank's values. The status agreed (reason in every err). */
gs_status gs_gpr3_take_snapshot_split(gs_fdtd3_sim *m, const struct gs_fdtd3_ranks *sp, const gs_snapshot_req *q,
                                      const char *path, char *err, size_t errlen);
/* Run run's type n geometry views over the ranks of sp: each rank builds its
 * part's geometry (gs_fdtd3_dist_geometry), rank 0 writes each view one
 * layer of cells at a time from the parts' cells. Collective, the status
 * agreed. Type f views and #geometry_objects_write are not taken
 * (fdtd3d_cmd.c refuses them over ranks). */
gs_status gs_gpr3_geometry_outputs_split(const gs_scene *sc, const struct gs_fdtd3_ranks *sp, int run, int runs,
                                         const char *dir, char *err, size_t errlen);
/* Run run's geometry outputs (#geometry_view, #geometry_objects_write)
 * into dir, from a geometry built for them (freed before returning, so the
 * engine's own build does not coexist with it). GS_OK when there are none. */
gs_status gs_gpr3_geometry_outputs(const gs_scene *sc, int run, int runs, const char *dir, char *err, size_t errlen);
/* The step count after which the next #snapshot after step `after` is due
 * (its iteration - 1), or the scene's iterations when none is. */
int64_t gs_gpr3_next_snapshot(const gs_scene *sc, int64_t after);
/* Every #snapshot due now (m->step = iteration - 1) into
 * dir/MODEL_snaps (MODELn_snaps with several runs, as gprMax); sp: the split
 * over ranks (collective, rank 0 writes), or NULL on one rank. Returns how
 * many failed (the same on every rank); the first is said on one line (rank
 * 0) when say is set (a caller that said a failure before passes 0). */
int gs_gpr3_snapshots_due(gs_fdtd3_sim *m, const struct gs_fdtd3_ranks *sp, const char *dir, const char *model,
                          int runs, int say);
/* Host bytes the largest snapshot, geometry view or geometry objects file
 * needs beside the model, plus the arrays of the files read (added to
 * gs_fdtd3_memory_need's host figure). */
double gs_gpr3_outputs_host_bytes(const gs_scene *sc);

#endif

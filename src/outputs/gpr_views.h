/* gprMax's #snapshot and #geometry_view files of a run (docs/fdtd.md,
 * "Outputs"), written through gprmax_out.h. */
#ifndef GS_GPR_VIEWS_H
#define GS_GPR_VIEWS_H

#include <stddef.h>

#include "comm.h"
#include "error.h"
#include "fdtd.h"
#include "scene.h"

/* Rank 0: every #geometry_view of run (0-based) of runs into dir (the
 * model number appended to the name with several runs, as gprMax does). */
/* Where geometry view `file` of run `run` (0-based) of `runs` goes in dir:
 * dir/file, or with several runs the run number before the extension
 * (gprMax's naming), 2D and 3D alike. */
void gs_gpr_view_path(const char *dir, const char *file, int run, int runs, char *out, size_t n);
gs_status gs_gpr_write_views(const gs_scene *sc, int run, int runs, const char *dir, char *err, size_t errlen);
/* Collective: snapshot q of m's fields now (after q->iteration - 1 steps),
 * gathered on rank 0 and written to path there. GS_OK on the other ranks. */
gs_status gs_gpr_take_snapshot(gs_fdtd_sim *m, const gs_comm *c, const gs_snapshot_req *q, const char *path, char *err,
                               size_t errlen);

#endif

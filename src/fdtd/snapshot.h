/* FDTD pictures (docs/fdtd.md, "Outputs"). */
#ifndef GS_SNAPSHOT_H
#define GS_SNAPSHOT_H

#include "comm.h"
#include "fdtd.h"

/* Collective: Ez of every rank's part (parts: 4 int64 per rank, as gathered)
 * as one PNG at path on rank 0, with a symmetric diverging colour map scaled
 * to the exact 99.5th percentile of |Ez| and the material outlines. */
gs_status gs_fdtd_snapshot(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, const char *path, char *err,
                           size_t errlen);
/* A B-scan PNG: runs columns of steps Ez samples (ez[run * steps + step]). */
gs_status gs_fdtd_write_bscan(float *ez, int64_t runs, int64_t steps, const char *path, char *err, size_t errlen);

#endif

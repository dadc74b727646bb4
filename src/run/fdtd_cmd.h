/* The fdtd command: runs a gprMax scene on all ranks with its outputs,
 * checkpoints and restarts (docs/fdtd.md). The program's command table
 * (src/app) calls these. */
#ifndef GS_FDTD_CMD_H
#define GS_FDTD_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "comm.h"
#include "fdtd_opts.h"

/* Collective over c: runs the scene argv[0] with backend b. Returns a
 * GS_EXIT_* status. */
int gs_fdtd_run(const gs_comm *c, const gs_backend *backend, const gs_fdtd_opts *o, int argc, char **argv);

#endif

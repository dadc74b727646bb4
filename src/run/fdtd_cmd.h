/* The fdtd command: runs a gprMax scene on all ranks with its outputs,
 * checkpoints and restarts (docs/fdtd.md). The program's command table
 * (src/app) calls these. */
#ifndef GS_FDTD_CMD_H
#define GS_FDTD_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "comm.h"
#include "fdtd.h"
#include "options.h"

/* The fdtd command's options (docs/usage.md, "fdtd"). */
typedef struct gs_fdtd_opts {
  const char *outdir, *restart;
  const char *slice, *slice_field; /* 3D snapshots: the plane and the component */
  int64_t checkpoint_every, runs, steps, stop_after, snapshot_every;
  int progress;
  gs_fdtd_spread_opts spread; /* parsed by gs_fdtd_spread_opt_table */
} gs_fdtd_opts;

extern const gs_fdtd_opts gs_fdtd_defaults;
/* The option table for gs_fdtd_opts without the spread group. */
extern const gs_opt gs_fdtd_opt_table[];

/* Checks the options (opts: a gs_fdtd_opts, the type of gs_command.check) and arguments before any work; 0, or writes
 * one line into err. The same answer on every rank. */
int gs_fdtd_check(const void *opts, int argc, char **argv, char *err, size_t errlen);

/* Collective over c: runs the scene argv[0] with backend b. Returns a
 * GS_EXIT_* status. */
int gs_fdtd_run(const gs_comm *c, const gs_backend *backend, const gs_fdtd_opts *o, int argc, char **argv);

#endif

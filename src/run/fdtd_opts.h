/* The fdtd command's options, shared by its 2D and 3D drivers (docs/usage.md, "fdtd"). */
#ifndef GS_FDTD_OPTS_H
#define GS_FDTD_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "fdtd.h"
#include "options.h"

/* The options that say how a model is spread over ranks, shared by the fdtd
 * and bench commands (NULL strings: defaults). */
typedef struct gs_fdtd_spread_opts {
  const char *decomp, *transport, *depth;
  int no_overlap, no_graphs;
} gs_fdtd_spread_opts;
/* Their option table (offsets into gs_fdtd_spread_opts). */
extern const gs_opt gs_fdtd_spread_opt_table[];
/* Parses --halo-transport, --halo-depth, --no-overlap and --no-graphs into
 * sp; 0, or 1 with a one-line reason in err. */
int gs_fdtd_spread_parse(const gs_fdtd_spread_opts *so, gs_fdtd_spread *sp, char *err, size_t errlen);
/* The same for options that gs_fdtd_spread_parse() already accepted. */
gs_fdtd_spread gs_fdtd_spread_of(const gs_fdtd_spread_opts *so);

/* The fdtd command's options (docs/usage.md, "fdtd"). */
typedef struct gs_fdtd_opts {
  const char *outdir, *restart;
  const char *slice, *slice_field; /* 3D snapshots: the plane and the component */
  int64_t checkpoint_every, runs, steps, stop_after, snapshot_every;
  int64_t ranks_per_run; /* ranks that run one run of a survey together (0: the smallest that fits) */
  int64_t runs_per_gpu;  /* 3D surveys: runs a rank's device takes side by side (0: by the model's size) */
  int progress;
  gs_fdtd_spread_opts spread; /* parsed by gs_fdtd_spread_opt_table */
  /* #python blocks and the processed input (src/run/fdtd_scene.h) */
  int no_python, write_processed;
  const char *python;    /* the interpreter (NULL: python3 on PATH) */
  double python_timeout; /* seconds the blocks of a run may take (0: GS_PYTHON_TIMEOUT_S) */
} gs_fdtd_opts;

extern const gs_fdtd_opts gs_fdtd_defaults;
/* The option table for gs_fdtd_opts without the spread group. */
extern const gs_opt gs_fdtd_opt_table[];

/* Checks the options (opts: a gs_fdtd_opts, the type of gs_command.check) and arguments before any work; 0, or writes
 * one line into err. The same answer on every rank. */
int gs_fdtd_check(const void *opts, int argc, char **argv, char *err, size_t errlen);

#endif

/* The subcommands and what main() hands them. */
#ifndef GS_COMMANDS_H
#define GS_COMMANDS_H

#include "backend.h"
#include "comm.h"
#include "options.h"
#include "placement.h"

/* Exit statuses of gpustencil. */
enum {
  GS_EXIT_OK = 0,      /* everything done */
  GS_EXIT_PARTIAL = 1, /* ran, but some inputs failed (reported one per line) */
  GS_EXIT_USAGE = 2,   /* bad option, value or input before any work */
  GS_EXIT_FATAL = 3,   /* a CUDA/MPI/hwloc/libpng call failed; all ranks aborted */
};

typedef struct gs_run {
  gs_comm comm;
  const gs_backend *backend;
  gs_placement place;
  int json; /* --json */
} gs_run;

typedef struct gs_command {
  const char *name;
  const char *synopsis;
  const char *description;
  const gs_opt *opts; /* command-specific; common options are added by main */
  /* Called on every rank after placement with the positional arguments.
   * Returns a GS_EXIT_* status; main agrees on the largest over all ranks. */
  int (*run)(gs_run *run, int argc, char **argv);
  /* Called on every rank before the backend is chosen, after parsing, to
   * validate options and arguments; returns 0 or writes one line into err. */
  int (*check)(int argc, char **argv, char *err, size_t errlen);
} gs_command;

int gs_cmd_info(gs_run *run, int argc, char **argv);

extern const gs_command gs_command_info, gs_command_scale, gs_command_fdtd, gs_command_bench;

#endif

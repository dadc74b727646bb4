/* The program's commands: what main() hands each one, and the table of them
 * (src/app/commands.c). */
#ifndef GS_COMMANDS_H
#define GS_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "comm.h"
#include "fdtd_opts.h"
#include "options.h"
#include "placement.h"

/* What every command runs with, built once by main(). */
typedef struct gs_run {
  gs_comm comm;
  const gs_backend *backend;
  gs_placement place;
} gs_run;

typedef struct gs_command {
  const char *name;
  const char *synopsis;
  const char *description;
  const gs_opt_group *groups; /* the command's option tables; main adds the common ones */
  int ngroups;
  size_t opts_size;     /* the command's options struct, which main builds */
  const void *defaults; /* its initial value */
  /* Called on every rank before the backend is chosen, after parsing, to
   * validate options and arguments; returns 0 or writes one line into err. */
  int (*check)(const void *opts, int argc, char **argv, char *err, size_t errlen);
  /* Called on every rank after placement with the positional arguments.
   * Returns a GS_EXIT_* status; main agrees on the largest over all ranks. */
  int (*run)(gs_run *run, const void *opts, int argc, char **argv);
} gs_command;

/* The command called name ("info", "scale", "fdtd", "bench"), or NULL. */
const gs_command *gs_command_find(const char *name);

/* info: where each rank runs. */
typedef struct gs_info_opts {
  int json; /* --json */
} gs_info_opts;
int gs_info_run(gs_run *run, const void *opts, int argc, char **argv); /* opts: a gs_info_opts */

/* bench: benchmarks against ceilings measured in the same run. */
typedef struct gs_bench_opts {
  int64_t mib, reps, steps; /* steps 0: the default (200; a scene file's own) */
  const char *size, *csv;
  int weak;
  int64_t pml;                   /* 3D grid: CPML cells (-1: 10) */
  int64_t debye, lorentz, drude; /* 3D grid: the soil's poles of that kind (0: none) */
  double disp_fraction;          /* 3D grid: the soil's share of z (-1: 0.5) */
  gs_fdtd_spread_opts spread;
} gs_bench_opts;
extern const gs_bench_opts gs_bench_defaults;
extern const gs_opt gs_bench_opt_table[];
int gs_bench_check(const void *opts, int argc, char **argv, char *err, size_t errlen); /* opts: a gs_bench_opts */
int gs_bench_run(gs_run *run, const void *opts, int argc, char **argv);                /* opts: a gs_bench_opts */

#endif

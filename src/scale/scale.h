/* The scale workload: divides every pixel of PNG image sets by a number on all
 * ranks (docs/scale.md). The program's command table (src/app) calls these. */
#ifndef GS_SCALE_H
#define GS_SCALE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "comm.h"
#include "options.h"

/* The scale command's options (docs/usage.md, "scale"). */
typedef struct gs_scale_opts {
  double divisor;
  const char *outdir;
  int recursive, overwrite, skip_existing, progress;
  int64_t level, threads, memory_mb;
  const char *filter, *shard;
} gs_scale_opts;

extern const gs_scale_opts gs_scale_defaults;
/* The option table for gs_scale_opts (offsets into it). */
extern const gs_opt gs_scale_opt_table[];

/* Checks the options (opts: a gs_scale_opts, the type of gs_command.check) and
 * the inputs' count before any work; 0, or writes one
 * line into err. Runs on every rank and gives the same answer on each. */
int gs_scale_check(const void *opts, int argc, char **argv, char *err, size_t errlen);

/* Collective: scales the inputs argv[0..argc) (files and folders) on every
 * rank of c with backend b (device gpu, threads on the cores of cpuset, a list
 * such as "0-7"). Returns a GS_EXIT_* status. */
int gs_scale_run(const gs_comm *c, const gs_backend *b, int gpu, const char *cpuset, const gs_scale_opts *o, int argc,
                 char **argv);

#endif

/* The table of commands: each one's help, option tables, options struct and
 * entry points. Entry points take the options struct as `const void *` (the
 * type gs_command needs) and name its type in their header; the two
 * workloads that know nothing of gs_run get a small adapter. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "fdtd_cmd.h"
#include "scale.h"

static int no_arguments(const void *opts, int argc, char **argv, char *err, size_t errlen) {
  (void)opts;
  if (argc == 0) return 0;
  snprintf(err, errlen, "unexpected argument '%s'", argv[0]);
  return 1;
}

// clang-format off
static const gs_opt info_opt_table[] = {
    {"json", 0, GS_OPT_FLAG, offsetof(gs_info_opts, json), NULL, 0, 0, "print one JSON object instead of a table"},
    {NULL,   0, 0,           0,                            NULL, 0, 0, NULL},
};
// clang-format on
static const gs_info_opts info_defaults = {0};

/* Option tables of each command; fdtd and bench share the spread options. */
static const gs_opt_group info_groups[] = {{info_opt_table, 0}};
static const gs_opt_group scale_groups[] = {{gs_scale_opt_table, 0}};
static const gs_opt_group fdtd_groups[] = {{gs_fdtd_opt_table, 0},
                                           {gs_fdtd_spread_opt_table, offsetof(gs_fdtd_opts, spread)}};
static const gs_opt_group bench_groups[] = {{gs_bench_opt_table, 0},
                                            {gs_fdtd_spread_opt_table, offsetof(gs_bench_opts, spread)}};

static int scale_run(gs_run *run, const void *opts, int argc, char **argv) {
  return gs_scale_run(&run->comm, run->backend, run->place.gpu, run->place.cpuset, opts, argc, argv);
}

static int fdtd_run(gs_run *run, const void *opts, int argc, char **argv) {
  return gs_fdtd_run(&run->comm, run->backend, opts, argc, argv);
}

#define GROUPS(g) g, (int)(sizeof g / sizeof g[0])

// clang-format off
static const gs_command commands[] = {
    {"info", "[--json] [--backend B] [--bind auto|none]",
     "Shows where every rank runs: host, GPU, PCI bus id, NUMA node and bound cores,\n"
     "the peer-access matrix of each node's GPUs, and whether MPI is CUDA-aware.",
     GROUPS(info_groups), sizeof(gs_info_opts), &info_defaults, no_arguments, gs_info_run},
    {"scale", "-d D -o DIR [options] INPUT...",
     "Divides every grey sample of PNG images by D on all ranks' GPUs (or CPUs) and writes grey PNGs:\n"
     "out = rint(min(in * (1/D), max)), half to even; alpha is copied. Inputs are PNG files or\n"
     "folders (their *.png, --recursive to descend). Exit status 0 when every file is done,\n"
     "1 when some failed (one 'path: reason' line each), 2 for bad usage before any work.",
     GROUPS(scale_groups), sizeof(gs_scale_opts), &gs_scale_defaults, gs_scale_check, scale_run},
    {"fdtd", "SCENE.in [-o DIR] [-n RUNS] [--checkpoint-every N] [--restart DIR] [options]",
     "FDTD (Yee) of a gprMax input file, 2D or 3D (docs/fdtd.md), on one rank or split over many; -n runs a\n"
     "survey, shared out over groups of ranks in 3D. Writes gprMax's MODEL.h5 and DIR/receivers.csv, #snapshot and\n"
     "#geometry_view files, PNG snapshots and a B-scan (2D), prints a split-independent checksum and Mcells/s.",
     GROUPS(fdtd_groups), sizeof(gs_fdtd_opts), &gs_fdtd_defaults, gs_fdtd_check, fdtd_run},
    {"bench",
     "scale [--size MiB] [--reps N] | fdtd [--grid WxH] [--steps N] [--decomp PXxPY] [--weak] [--halo-transport T]\n"
     "       [--halo-depth R] [--no-overlap] [--no-graphs] [--csv FILE]\n"
     "       | fdtd --grid NXxNYxNZ [--pml CELLS] [--debye|--lorentz|--drude POLES] [--dispersive-fraction F] [--steps N]\n"
     "       | fdtd SCENE.in [--steps N] [--csv FILE] | halo [--grid WxH] [--reps N] [--decomp PXxPY]\n"
     "       [--halo-transport T] [--halo-depth R] [--csv FILE]",
     "Benchmarks that print their ratio to a ceiling measured in the same run.\n"
     "  scale: the scale kernel's GB/s (bytes read + written) over a device-to-device copy's GB/s.\n"
     "  fdtd: Mcells/s of the one-rank FDTD step, its bytes per cell and GB/s over the copy's GB/s;\n"
     "        on several ranks: the N-rank time against the 1-rank time measured in the same job.\n"
     "        3D: a synthetic soil model (--grid NXxNYxNZ) or a scene file's own steps (SCENE.in), with the\n"
     "        bytes per cell of a model of the step's traffic and its floor (those bytes at the copy's GB/s).\n"
     "  halo: the ghost-layer exchange alone (several ranks), GB/s over cudaMemcpyPeer's between rank 0's GPU\n"
     "        and rank 1's.",
     GROUPS(bench_groups), sizeof(gs_bench_opts), &gs_bench_defaults, gs_bench_check, gs_bench_run},
};
// clang-format on

const gs_command *gs_command_find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

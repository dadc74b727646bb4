/* The fdtd command's options (docs/usage.md, "fdtd"): the table, their checks, the spread
 * over ranks (fdtd_opts.h). */
#include "fdtd_opts.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

const gs_fdtd_opts gs_fdtd_defaults = {.runs = 1};

// clang-format off
const gs_opt gs_fdtd_opt_table[] = {
    {"output",           'o', GS_OPT_STRING, offsetof(gs_fdtd_opts, outdir),           "DIR",   0, 0,      "output folder (default: SCENE without .in, plus _out)"},
    {"runs",             'n', GS_OPT_INT,    offsetof(gs_fdtd_opts, runs),             "N",     1, 100000, "model runs, moving sources and receivers by #src_steps/#rx_steps"},
    {"ranks-per-run",    0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, ranks_per_run),    "G",     1, 1e6,    "3D surveys: ranks that run one run together, the runs shared out over the groups (default: 1 where the model fits a rank, else all)"},
    {"runs-per-gpu",     0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, runs_per_gpu),     "B",     1, 16,     "3D surveys: runs a rank's GPU takes side by side, each on its own stream, same bits (default: as many as hold about 32 M cells together; 1 on the CPU)"},
    {"checkpoint-every", 0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, checkpoint_every), "STEPS", 1, 1e15,   "write a checkpoint every STEPS steps"},
    {"restart",          0,   GS_OPT_STRING, offsetof(gs_fdtd_opts, restart),          "DIR",   0, 0,      "continue from the checkpoint in DIR"},
    {"stop-after",       0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, stop_after),       "STEPS", 1, 1e15,   "end the run after STEPS steps (with a checkpoint), as a time-limited job would"},
    {"steps",            0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, steps),            "N",     1, 1e15,   "override the iteration count of #time_window"},
    {"snapshot-every",   0,   GS_OPT_INT,    offsetof(gs_fdtd_opts, snapshot_every),   "STEPS", 1, 1e15,   "override #snapshot_png"},
    {"slice",            0,   GS_OPT_STRING, offsetof(gs_fdtd_opts, slice),            "AXIS=AT", 0, 0,    "3D: the snapshots' plane, x=, y= or z= metres or i=, j= or k= node (default: through the first source, normal to z)"},
    {"slice-field",      0,   GS_OPT_STRING, offsetof(gs_fdtd_opts, slice_field),      "F",     0, 0,      "3D: the snapshots' component, ex ey ez hx hy hz (default: the first source's)"},
    {"progress",         0,   GS_OPT_FLAG,   offsetof(gs_fdtd_opts, progress),         NULL,    0, 0,      "show progress on rank 0 (default when a terminal)"},
    {"no-python",        0,   GS_OPT_FLAG,   offsetof(gs_fdtd_opts, no_python),        NULL,    0, 0,      "refuse the input's #python blocks instead of running them in python3"},
    {"python",           0,   GS_OPT_STRING, offsetof(gs_fdtd_opts, python),           "EXE",   0, 0,      "the Python that runs #python blocks (default: python3 on PATH)"},
    {"python-timeout",   0,   GS_OPT_DOUBLE, offsetof(gs_fdtd_opts, python_timeout),   "SECONDS", 0.001, 1e6, "stop and refuse #python blocks that run longer (default 300, for each run)"},
    {"write-processed",  0,   GS_OPT_FLAG,   offsetof(gs_fdtd_opts, write_processed),  NULL,    0, 0,      "write the input after its #python blocks and #include_file commands as OUTDIR/MODEL_processed.in (MODELn_ with -n), as gprMax's option"},
    {NULL,               0,   0,             0,                                        NULL,    0, 0,      NULL},
};
// clang-format on

// clang-format off
const gs_opt gs_fdtd_spread_opt_table[] = {
    {"decomp",         0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, decomp),     "PXxPY[xPZ]", 0, 0, "ranks along x and y (2D), or x, y and z (3D) (default: the split with the cheapest halo)"},
    {"halo-transport", 0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, transport),  "T",     0, 0, "auto|ipc|mpi-cuda|mpi-host: how ghost layers move between ranks (default auto)"},
    {"halo-depth",     0, GS_OPT_STRING, offsetof(gs_fdtd_spread_opts, depth),      "R",     0, 0, "auto|1..8: ghost layers, exchanged every R steps with redundant work (default auto)"},
    {"no-overlap",     0, GS_OPT_FLAG,   offsetof(gs_fdtd_spread_opts, no_overlap), NULL,    0, 0, "exchange after the whole step (for comparison)"},
    {"no-graphs",      0, GS_OPT_FLAG,   offsetof(gs_fdtd_spread_opts, no_graphs),  NULL,    0, 0, "launch every kernel from the host, no CUDA graphs (for comparison)"},
    {NULL,             0, 0,             0,                                         NULL,    0, 0, NULL},
};
// clang-format on

int gs_fdtd_spread_parse(const gs_fdtd_spread_opts *so, gs_fdtd_spread *sp, char *err, size_t errlen) {
  const char *transport = so->transport, *depth = so->depth;
  sp->overlap = !so->no_overlap;
  sp->graphs = !so->no_graphs;
  sp->transport = GS_HALO_AUTO;
  sp->depth = 0;
  if (transport) {
    int t = gs_halo_transport_parse(transport);
    if (t < 0) {
      snprintf(err, errlen, "--halo-transport '%s': expected auto, ipc, mpi-cuda or mpi-host", transport);
      return 1;
    }
    sp->transport = (gs_halo_transport)t;
  }
  if (depth && strcmp(depth, "auto") != 0) {
    char *end;
    long v = strtol(depth, &end, 10);
    if (*end || end == depth || v < 1 || v > GS_FDTD_MAX_DEPTH) {
      snprintf(err, errlen, "--halo-depth '%s': expected auto or 1..%d", depth, GS_FDTD_MAX_DEPTH);
      return 1;
    }
    sp->depth = (int)v;
  }
  return 0;
}

gs_fdtd_spread gs_fdtd_spread_of(const gs_fdtd_spread_opts *so) {
  gs_fdtd_spread sp;
  char err[160];
  if (gs_fdtd_spread_parse(so, &sp, err, sizeof err)) gs_fatal("gs_fdtd_spread_of", err, __FILE__, __LINE__);
  return sp;
}

int gs_fdtd_check(const void *opts, int argc, char **argv, char *err, size_t errlen) {
  const gs_fdtd_opts *o = opts;
  (void)argv;
  gs_fdtd_spread spread;
  if (gs_fdtd_spread_parse(&o->spread, &spread, err, errlen)) return 1;
  if (argc != 1) {
    snprintf(err, errlen, "expected one scene file, got %d arguments", argc);
    return 1;
  }
  return 0;
}

/* gpustencil: one MPI rank per GPU; subcommands info, scale, fdtd, bench. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"

static const char *g_backend_name = "auto";
static const char *g_bind = "auto";
static int g_json = 0;

static const gs_opt g_common_opts[] = {
    {"backend", 0, GS_OPT_CHOICE, &g_backend_name, "auto|cuda|cpu", 0, 0,
     "compute backend (auto: CUDA when a GPU is visible)"},
    {"bind", 0, GS_OPT_CHOICE, &g_bind, "auto|none", 0, 0,
     "bind threads and memory near the rank's GPU (default auto)"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};

static const gs_opt g_info_opts[] = {
    {"json", 0, GS_OPT_FLAG, &g_json, NULL, 0, 0, "print one JSON object instead of a table"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};

const gs_command gs_command_info = {
    "info", "[--json] [--backend B] [--bind auto|none]",
    "Shows where every rank runs: host, GPU, PCI bus id, NUMA node and bound cores,\n"
    "the peer-access matrix of each node's GPUs, and whether MPI is CUDA-aware.",
    g_info_opts, gs_cmd_info, NULL};

static const gs_command *const g_commands[] = {&gs_command_info, &gs_command_scale, &gs_command_fdtd,
                                               &gs_command_bench};

static void top_usage(FILE *o) {
  fprintf(o,
          "usage: gpustencil COMMAND [options] [arguments]\n"
          "       gpustencil --version | --help\n\n"
          "Runs one MPI rank per GPU (mpirun -np N gpustencil ...). Commands:\n"
          "  info    where each rank runs, GPU peer access, MPI CUDA awareness\n"
          "  scale   divide every pixel of PNG images by a number\n"
          "  fdtd    2D FDTD (Yee, TMz) simulation of a gprMax-style scene\n"
          "  bench   kernel and end-to-end benchmarks against measured ceilings\n\n"
          "'gpustencil COMMAND --help' describes each command's options.\n");
}

/* Combined option table: command's own, then the common ones. */
static gs_opt *merge_opts(const gs_opt *a) {
  size_t na = 0, nb = 0;
  while (a && a[na].name) ++na;
  while (g_common_opts[nb].name) ++nb;
  gs_opt *all = gs_xcalloc(na + nb + 1, sizeof *all);
  if (na) memcpy(all, a, na * sizeof *all);
  memcpy(all + na, g_common_opts, (nb + 1) * sizeof *all);
  return all;
}

static int finish(gs_comm *c, int status) {
  int all = gs_comm_agree(status, c->world);
  gs_comm_free(c);
  MPI_Finalize();
  return all;
}

int main(int argc, char **argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "gpustencil: fatal: MPI_Init_thread failed\n");
    return GS_EXIT_FATAL;
  }
  gs_run run;
  memset(&run, 0, sizeof run);
  gs_comm_init(&run.comm);
  const int root = run.comm.rank == 0;

  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    if (root) top_usage(argc < 2 ? stderr : stdout);
    return finish(&run.comm, argc < 2 ? GS_EXIT_USAGE : GS_EXIT_OK);
  }
  if (strcmp(argv[1], "--version") == 0) {
    if (root) printf("gpustencil %s\n", GS_VERSION);
    return finish(&run.comm, GS_EXIT_OK);
  }
  const gs_command *cmd = NULL;
  for (size_t i = 0; i < sizeof g_commands / sizeof g_commands[0]; ++i)
    if (strcmp(argv[1], g_commands[i]->name) == 0) cmd = g_commands[i];
  if (!cmd) {
    if (root) gs_log_error("unknown command '%s' (try 'gpustencil --help')", argv[1]);
    return finish(&run.comm, GS_EXIT_USAGE);
  }

  gs_opt *opts = merge_opts(cmd->opts);
  char **pos = gs_xcalloc((size_t)argc, sizeof *pos);
  int npos = 0, want_help = 0;
  char err[512] = "";
  gs_status st = gs_opts_parse(opts, argc - 2, argv + 2, pos, &npos, &want_help, err, sizeof err);
  if (st == GS_OK && !want_help && cmd->check) st = cmd->check(npos, pos, err, sizeof err) ? GS_ERR_USAGE : GS_OK;
  /* Options parse the same on every rank, but agree anyway: one exit for all. */
  int bad = gs_comm_agree(st != GS_OK, run.comm.world);
  if (bad) {
    if (root) gs_log_error("%s: %s (try 'gpustencil %s --help')", cmd->name, err[0] ? err : "invalid arguments", cmd->name);
    free(opts);
    free(pos);
    return finish(&run.comm, GS_EXIT_USAGE);
  }
  if (want_help) {
    if (root) gs_opts_help(stdout, cmd->name, cmd->synopsis, cmd->description, opts);
    free(opts);
    free(pos);
    return finish(&run.comm, GS_EXIT_OK);
  }
  free(opts);

  char why[256] = "";
  run.backend = gs_backend_choose(g_backend_name, why, sizeof why);
  if (gs_comm_agree(run.backend == NULL, run.comm.world)) {
    if (!run.backend)
      gs_log_error("%s: %s", cmd->name, why);
    else if (root)
      gs_log_error("%s: --backend %s is unavailable on some ranks", cmd->name, g_backend_name);
    free(pos);
    return finish(&run.comm, GS_EXIT_USAGE);
  }
  run.json = g_json;
  gs_place(&run.comm, run.backend, strcmp(g_bind, "none") != 0, &run.place);
  gs_fault_point("main.placed");

  int status = cmd->run(&run, npos, pos);
  free(pos);
  return finish(&run.comm, status);
}

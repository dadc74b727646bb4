/* gpustencil: one MPI rank per GPU; subcommands info, scale, fdtd, bench. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "commands.h"
#include "config.h"
#include "log.h"

/* Options every command takes. */
typedef struct common_opts {
  const char *backend, *bind;
} common_opts;

// clang-format off
static const gs_opt common_opt_table[] = {
    {"backend", 0, GS_OPT_CHOICE, offsetof(common_opts, backend), "auto|cuda|cpu", 0, 0, "compute backend (auto: CUDA when a GPU is visible)"},
    {"bind",    0, GS_OPT_CHOICE, offsetof(common_opts, bind),    "auto|none",     0, 0, "bind threads and memory near the rank's GPU (default auto)"},
    {NULL,      0, 0,             0,                              NULL,            0, 0, NULL},
};
// clang-format on

/* A command's options struct followed by the common options, parsed as one. */
typedef struct parsed {
  void *opts; /* the command's struct, then a common_opts at common_at */
  size_t common_at;
  gs_opt *table;
  char **pos;
  int npos, want_help;
} parsed;

static void top_usage(FILE *o) {
  fprintf(o, "usage: gpustencil COMMAND [options] [arguments]\n"
             "       gpustencil --version | --help\n\n"
             "Runs one MPI rank per GPU (mpirun -np N gpustencil ...). Commands:\n"
             "  info    where each rank runs, GPU peer access, MPI CUDA awareness\n"
             "  scale   divide every pixel of PNG images by a number\n"
             "  fdtd    FDTD (Yee) of a gprMax input file, 2D or 3D, and surveys (-n)\n"
             "  bench   kernel and end-to-end benchmarks against measured ceilings\n\n"
             "'gpustencil COMMAND --help' describes each command's options.\n");
}

static const common_opts *common_of(const parsed *p) {
  return (const common_opts *)((char *)p->opts + p->common_at);
}

/* Builds cmd's options struct from its defaults and parses argv into it. */
static gs_status parse_command(const gs_command *cmd, int argc, char **argv, parsed *p, char *err, size_t errlen) {
  enum { MAX_GROUPS = 8 };
  gs_opt_group groups[MAX_GROUPS + 1];
  int n = cmd->ngroups < MAX_GROUPS ? cmd->ngroups : MAX_GROUPS;
  memcpy(groups, cmd->groups, (size_t)n * sizeof groups[0]);
  p->common_at = (cmd->opts_size + 15) / 16 * 16;
  groups[n] = (gs_opt_group){common_opt_table, p->common_at};
  p->table = gs_opts_merge(groups, n + 1);
  p->opts = gs_xcalloc(1, p->common_at + sizeof(common_opts));
  memcpy(p->opts, cmd->defaults, cmd->opts_size);
  *(common_opts *)((char *)p->opts + p->common_at) = (common_opts){"auto", "auto"};
  p->pos = gs_xcalloc((size_t)argc + 1, sizeof *p->pos);
  gs_status st = gs_opts_parse(p->table, p->opts, argc, argv, p->pos, &p->npos, &p->want_help, err, errlen);
  if (st == GS_OK && !p->want_help && cmd->check(p->opts, p->npos, p->pos, err, errlen)) st = GS_ERR_USAGE;
  return st;
}

static void parsed_free(parsed *p) {
  free(p->opts);
  free(p->table);
  free(p->pos);
}

static int finish(gs_comm *c, int status) {
  /* Results printed to a full or closed standard output are lost: say so,
   * and do not end with success. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "gpustencil: standard output: write failed (%s)\n", strerror(errno));
    if (status == GS_EXIT_OK) status = GS_EXIT_PARTIAL;
  }
  int all = gs_comm_agree(status, c->world);
  gs_comm_free(c);
  MPI_Finalize();
  gs_log_debug("MPI finalized");
  return all;
}

/* Options, configuration and backend, agreed by all ranks; then the command. */
static int run_command(gs_run *run, const gs_command *cmd, int argc, char **argv) {
  const int root = run->comm.rank == 0;
  parsed p = {0};
  char err[512] = "", cfg_err[256] = "";
  gs_status st = parse_command(cmd, argc, argv, &p, err, sizeof err);
  /* Options parse the same on every rank, but agree anyway: one exit for all. */
  if (gs_comm_agree(st != GS_OK, run->comm.world)) {
    if (root)
      gs_log_error("%s: %s (try 'gpustencil %s --help')", cmd->name, err[0] ? err : "invalid arguments", cmd->name);
    parsed_free(&p);
    return GS_EXIT_USAGE;
  }
  if (p.want_help) {
    if (root) gs_opts_help(stdout, cmd->name, cmd->synopsis, cmd->description, p.table);
    parsed_free(&p);
    return GS_EXIT_OK;
  }
  gs_config config; /* installed for everything below: gs_config_get() */
  gs_config_load(&config, cfg_err, sizeof cfg_err);
  if (gs_comm_agree(cfg_err[0] != 0, run->comm.world)) {
    if (cfg_err[0] && root) gs_log_error("%s: %s", cmd->name, cfg_err); /* every rank read the same environment */
    parsed_free(&p);
    return GS_EXIT_USAGE;
  }
  gs_config_set(&config);
  gs_log_debug("MPI started, options and configuration read");
  const common_opts *co = common_of(&p);
  char why[256] = "";
  run->backend = gs_backend_choose(co->backend, why, sizeof why);
  if (gs_comm_agree(run->backend == NULL, run->comm.world)) {
    if (!run->backend)
      gs_log_error("%s: %s", cmd->name, why);
    else if (root)
      gs_log_error("%s: --backend %s is unavailable on some ranks", cmd->name, co->backend);
    parsed_free(&p);
    return GS_EXIT_USAGE;
  }
  gs_log_debug("backend %s chosen", run->backend->name);
  gs_place(&run->comm, run->backend, strcmp(co->bind, "none") != 0, &run->place);
  gs_log_debug("placed (device selected, threads and memory bound)");
  gs_fault_point("main.placed");
  int status = cmd->run(run, p.opts, p.npos, p.pos);
  gs_log_debug("%s done", cmd->name);
  parsed_free(&p);
  return status;
}

int main(int argc, char **argv) {
  gs_log_clock_start();
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
  const gs_command *cmd = gs_command_find(argv[1]);
  if (!cmd) {
    if (root) gs_log_error("unknown command '%s' (try 'gpustencil --help')", argv[1]);
    return finish(&run.comm, GS_EXIT_USAGE);
  }
  return finish(&run.comm, run_command(&run, cmd, argc - 2, argv + 2));
}

#include "commands.h"
#include "log.h"
static int bench_run(gs_run *run, int argc, char **argv) {
  (void)run; (void)argc; (void)argv;
  gs_log_notice("bench: not yet available in this version");
  return GS_EXIT_USAGE;
}
static const gs_opt bench_opts[] = {{NULL, 0, 0, NULL, NULL, 0, 0, NULL}};
const gs_command gs_command_bench = {"bench", "WHAT [options]", "Not yet.", bench_opts, bench_run, NULL};

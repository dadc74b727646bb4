#include "commands.h"
#include "log.h"
static int scale_run(gs_run *run, int argc, char **argv) {
  (void)run; (void)argc; (void)argv;
  gs_log_notice("scale: not yet available in this version");
  return GS_EXIT_USAGE;
}
static const gs_opt scale_opts[] = {{NULL, 0, 0, NULL, NULL, 0, 0, NULL}};
const gs_command gs_command_scale = {"scale", "[options] INPUT...", "Not yet.", scale_opts, scale_run, NULL};

/* gpustencil fdtd: not implemented yet (issue #4). */
#include "commands.h"
#include "log.h"

static int fdtd_run(gs_run *run, int argc, char **argv) {
  (void)run;
  (void)argc;
  (void)argv;
  gs_log_notice("fdtd: not yet available in this version");
  return GS_EXIT_USAGE;
}

static const gs_opt fdtd_opts[] = {{NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

const gs_command gs_command_fdtd = {"fdtd", "SCENE.in [options]",
                                    "2D FDTD (Yee, TMz) simulation of a gprMax-style scene. Not yet available.",
                                    fdtd_opts, fdtd_run, NULL};

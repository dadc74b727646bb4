/* libFuzzer target: the gprMax scene parser (gs_scene_load) on any bytes.
 * Every input must end in GS_OK or a refusal with a one-line reason; never a
 * crash, an undefined operation (UBSan), a leak, or more than the harness's
 * memory limit (tests/fuzz/run.sh: 300 MB). */
#include <string.h>

#include "fuzz_input.h"
#include "geometry.h"
#include "scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = gs_fuzz_file("scene", ".in", data, size);
  gs_scene sc;
  char err[1024] = "";
  gs_status st = gs_scene_load(path, &sc, err, sizeof err);
  if (st == GS_OK) {
    /* Small models also go through gprMax's geometry rules (painting, smoothing, the PML's sigma). */
    if ((sc.nx + 1) * (sc.ny + 1) <= 100000) {
      gs_geometry g;
      gs_geometry_build(&g, &sc, 0, sc.nx + 1, 0, sc.ny + 1);
      gs_geometry_free(&g);
      (void)gs_geometry_sigma_max(&sc);
    }
    gs_scene_free(&sc);
  } else if (!err[0] || strchr(err, '\n')) {
    abort(); /* a refusal must say why, in one line */
  }
  unlink(path);
  return 0;
}

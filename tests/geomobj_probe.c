/* geomobj_probe MAX_CELLS FILE...: reads each geometry objects file as #geometry_objects_read does
 * (gs_gpr_read_geometry_object: its helper process, bounds and checks) and prints one line per
 * file, "FILE: ok SX SY SZ" or "FILE: refused STATUS: REASON" (tests/geomobj_hostile.sh). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gprmax_out.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: geomobj_probe MAX_CELLS FILE...\n");
    return 2;
  }
  const int64_t most = strtoll(argv[1], NULL, 10);
  for (int k = 2; k < argc; ++k) {
    gs_gpr_geomobj_in g;
    char err[1024] = "";
    gs_status st = gs_gpr_read_geometry_object(argv[k], most, &g, err, sizeof err);
    if (st == GS_OK)
      printf("%s: ok %" PRId64 " %" PRId64 " %" PRId64 "%s\n", argv[k], g.size[0], g.size[1], g.size[2],
             g.rigid ? " rigid" : "");
    else
      printf("%s: refused %d: %s\n", argv[k], (int)st, err);
    gs_gpr_geomobj_in_free(&g);
  }
  return 0;
}

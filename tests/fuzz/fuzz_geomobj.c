/* libFuzzer target: the geometry objects file reader (gs_gpr_read_geometry_object,
 * #geometry_objects_read) on any bytes as a file of at most 4096 cells, the way the program
 * reads it: in a helper process (this binary again, caught by the reader's constructor before
 * libFuzzer starts), bounded in memory and time, whose crashes, loops and refusals come back as
 * one line. Every input must end in GS_OK with arrays of the shape declared, or a refusal with a
 * one-line reason; never a crash, a hang, a leak, undefined behaviour (UBSan) or more than the
 * harness's memory limit in this process. Seeds: corpus/geomobj (make_geomobj_seeds.py). */
#include <string.h>

#include "fuzz_input.h"
#include "gprmax_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = gs_fuzz_file("geomobj", ".h5", data, size);
  gs_gpr_geomobj_in g;
  char err[1024] = "";
  gs_status st = gs_gpr_read_geometry_object(path, 4096, &g, err, sizeof err);
  if (st != GS_OK) {
    if (!err[0] || strchr(err, '\n') || g.data || g.rigid || g.id) abort();
  } else {
    const int64_t cells = g.size[0] * g.size[1] * g.size[2];
    if (!g.data || g.size[0] < 1 || g.size[1] < 1 || g.size[2] < 1 || cells > 4096 || !(g.rigid) != !(g.id)) abort();
    int64_t sum = 0; /* every byte of the arrays is there to be read (ASan) */
    for (int64_t k = 0; k < cells; ++k)
      sum += g.data[k];
    if (g.rigid)
      sum += g.rigid[18 * cells - 1] + (int64_t)g.id[6 * (g.size[0] + 1) * (g.size[1] + 1) * (g.size[2] + 1) - 1];
    (void)sum;
  }
  gs_gpr_geomobj_in_free(&g);
  unlink(path);
  return 0;
}

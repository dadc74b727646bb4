/* Receiver outputs of one run: receivers.csv and gprMax's HDF5 file. */
#ifndef GS_RX_OUTPUT_H
#define GS_RX_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fdtd3d_sources.h"
#include "gprmax_out.h"
#include "scene.h"

/* rx: [receiver][step][frame Ez, Hx, Hy] for every receiver of the scene,
 * steps long, for run (0-based; positions moved by #rx_steps/#src_steps).
 *
 * CSV: a header `time_s,NAME_COMP,...` (a name with a comma or quote is
 * quoted as CSV quotes) and one row per step: time n dt, then each
 * receiver's requested components that the 2D model computes, in file
 * order of the receivers. Written under a temporary name, then renamed. */
gs_status gs_rx_write_csv(const gs_scene *sc, const float *rx, int64_t steps, const char *path, char *err,
                          size_t errlen);
/* gprMax 4's receiver file (docs/fdtd.md, "Outputs"): receivers sorted by
 * name, every requested component (those a 2D model does not compute are
 * 0, as in gprMax). */
gs_status gs_rx_write_h5(const gs_scene *sc, const float *rx, int64_t steps, int run, const char *path, char *err,
                         size_t errlen);

/* The same for a 3D model: rx is [step][receiver][Ex Ey Ez Hx Hy Hz]. */
gs_status gs_rx3_write_csv(const gs_scene *sc, const float *rx, int64_t steps, const char *path, char *err,
                           size_t errlen);
gs_status gs_rx3_write_h5(const gs_scene *sc, const float *rx, int64_t steps, int run, const gs_fdtd3_line_record *tl,
                          int ntl, const char *path, char *err, size_t errlen);

#endif

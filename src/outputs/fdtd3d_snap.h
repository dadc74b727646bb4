/* PNG snapshots of one plane of a 3D model (docs/fdtd.md, "3D models"):
 * --slice picks the plane, --slice-field the component. */
#ifndef GS_FDTD3D_SNAP_H
#define GS_FDTD3D_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "fdtd3d.h"

/* A plane of nodes normal to axis (0 x, 1 y, 2 z) at node index at (-1:
 * through the run's first source, normal to z), of component comp (0..5:
 * Ex Ey Ez Hx Hy Hz). */
typedef struct gs_fdtd3_slice {
  int axis, comp;
  int64_t at;
} gs_fdtd3_slice;

/* --slice (NULL, "x=M", "y=M", "z=M" in metres, rounded to the nearest
 * node, or "i=N", "j=N", "k=N" a node index) and --slice-field (NULL or
 * ex..hz) for scene sc into out. GS_OK, or GS_ERR_USAGE with one line in err
 * naming the option and the reason. */
gs_status gs_fdtd3_slice_parse(const gs_scene *sc, const char *slice, const char *field, gs_fdtd3_slice *out, char *err,
                               size_t errlen);
/* The slice of m now as a PNG at path (the labelled picture of 2D snapshots;
 * horizontal axis the first of x, y, z other than the normal, the second
 * upwards; outlines of the E materials of the component's axis). */
gs_status gs_fdtd3_slice_png(gs_fdtd3_sim *m, const gs_fdtd3_slice *s, const char *path, char *err, size_t errlen);
/* The same for a model split over the ranks of sp: collective;
 * each rank sends the plane's owned nodes, rank 0 writes the picture (one
 * rank's bytes). The status agreed (reason in every rank's err). */
struct gs_fdtd3_ranks;
gs_status gs_fdtd3_slice_png_split(gs_fdtd3_sim *m, const struct gs_fdtd3_ranks *sp, const gs_fdtd3_slice *s,
                                   const char *path, char *err, size_t errlen);
/* "ez_z25": the component and the plane, for file names. */
void gs_fdtd3_slice_name(const gs_fdtd3_sim *m, const gs_fdtd3_slice *s, char *out, size_t n);

#endif

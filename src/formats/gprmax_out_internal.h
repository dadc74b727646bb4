/* What the writers of gprMax's files share (gprmax_out.c, gprmax_layers.c, gprmax_vti.c); not
 * an interface and not installed. The HDF5 primitives are in gprmax_h5w_internal.h. */
#ifndef GS_GPRMAX_OUT_INTERNAL_H
#define GS_GPRMAX_OUT_INTERNAL_H

#include <stdio.h>

#include "gprmax_h5w_internal.h"
#include "gprmax_out.h"

/* The version gprMax 4 writes in its files (readers only display it). */
#define GS_GPR_VERSION "4.0.0b0"

/* Ex, Ey, Ez, Hx, Hy, Hz: a snapshot's datasets and arrays. */
extern const char *const gs_gpr_field_names[6];

/* GS_ERR_USAGE with "PATH: not written: WHAT" in err. */
gs_status gs_gpr_bad_input(const char *path, const char *what, char *err, size_t errlen);
/* Checks a box; *cells = its number of cells. */
gs_status gs_gpr_check_box(const char *path, const gs_gpr_box *b, int64_t *cells, char *err, size_t errlen);
/* Whether path ends in ext (and is longer). */
int gs_gpr_has_ext(const char *path, const char *ext);
/* A geometry view's names, sources and receivers (not its material array). */
gs_status gs_gpr_check_geometry_meta(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen);
/* A fine (lines) geometry view of cells cells: .vtkhdf, fewer than 2^31 points and
 * connectivity ids (gprMax's int32). */
gs_status gs_gpr_check_lines(const char *path, const gs_gpr_geometry *g, int64_t cells, char *err, size_t errlen);

/* The VTKHDF group of an ImageData file with its attributes (close it with
 * gs_h5w_close_group), as gprMax's VtkImageData writes them. */
hid_t gs_gpr_put_image_group(gs_h5w *o, const gs_gpr_box *b);
/* FieldData of a geometry view, as gprMax's Metadata.write_to_vtkhdf. */
int gs_gpr_put_geometry_fields(gs_h5w *o, hid_t vtk, const gs_gpr_geometry *g);

/* The XML of a .vti file of n arrays (names, VTK type, bytes per value; a
 * NULL data[a] is left out) of cells values each, up to the appended data's '_'. */
void gs_gpr_vti_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                     const char *const *names, const char *type, size_t vsize, const void *const *data, int64_t cells);
/* A .vti file of n arrays (names, VTK type, bytes per value, data) of cells
 * values each, through a temporary file. */
gs_status gs_gpr_write_vti(const char *path, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                           const char *const *names, const char *type, size_t vsize, const void *const *data,
                           int64_t cells, char *err, size_t errlen);

#endif

/* gprMax 4's output files, written from plain data (docs/gprmax-rules.md,
 * section h; docs/fdtd.md, "gprMax output files"): the receiver file MODEL.h5,
 * snapshots (.h5, .vtkhdf, .vti) and geometry views (.vtkhdf, .vti). The
 * module knows nothing of the simulation: callers pass arrays and numbers.
 *
 * Every writer writes PATH.tmp-PID in PATH's folder and renames it to PATH
 * when it is complete, so a reader never sees a partial file and a failed
 * write leaves none. On failure err holds one line naming PATH, the failing
 * call and this file's line. The HDF5 library prints nothing (its automatic
 * error printing is off during each call). Not thread-safe: one call at a
 * time per process. */
#ifndef GS_GPRMAX_OUT_H
#define GS_GPRMAX_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* One receiver, already in output order (the caller sorts by name). */
typedef struct gs_gpr_rx {
  const char *name;     /* attribute Name (gprMax's plot_Ascan shows it) */
  double pos[3];        /* attribute Position, metres */
  int ncomp;            /* datasets, 1..9 */
  const char *comp[9];  /* dataset names, e.g. "Ez" (caller gives them sorted) */
  const float *data[9]; /* each `iterations` floats */
} gs_gpr_rx;

/* One source group srcs/srcN. */
typedef struct gs_gpr_src {
  const char *type; /* attribute Type, e.g. "HertzianDipole" */
  double pos[3];    /* attribute Position, metres */
} gs_gpr_src;

/* One transmission line, group tls/tlN (gprMax's TransmissionLine outputs). */
typedef struct gs_gpr_tl {
  double pos[3];                              /* attribute Position, metres */
  double resistance, dl;                      /* attributes Resistance (Ohms) and dl (m) */
  int64_t n;                                  /* samples of each dataset (gprMax: iterations + 1) */
  const float *vinc, *iinc, *vtotal, *itotal; /* datasets Vinc, Iinc, Vtotal, Itotal */
} gs_gpr_tl;

/* A model's receiver file. */
typedef struct gs_gpr_model {
  const char *title; /* "" (or NULL) if none */
  int64_t iterations;
  double dt, dxdydz[3];
  int64_t nxnynz[3];
  int32_t srcsteps[3], rxsteps[3]; /* cells */
  int nsrc, nrx;
  const gs_gpr_src *src;
  const gs_gpr_rx *rx;
  int ntl; /* transmission lines (counted in the nsrc attribute, as gprMax does) */
  const gs_gpr_tl *tl;
} gs_gpr_model;

/* Writes gprMax 4's receiver file (MODEL.h5) at path: root attributes gprMax
 * ("4.0.0b0"), Title, Iterations, dt, dx_dy_dz, nx_ny_nz, nrx, nsrc, srcsteps,
 * rxsteps; groups srcs/src1.. (attributes Type, Position) and rxs/rx1..
 * (attributes Name, Position; one float32 dataset of shape (iterations,) per
 * component). Types as gprMax writes them through h5py: strings are scalar
 * variable-length UTF-8, counts int64, steps int32. GS_OK, GS_ERR_USAGE
 * (inconsistent model: no receivers array, ncomp outside 1..9, a NULL name,
 * type or array), GS_ERR_NOMEM or GS_ERR_IO (HDF5 or the rename failed), with the
 * reason in err. */
gs_status gs_gpr_write_receivers(const char *path, const gs_gpr_model *m, char *err, size_t errlen);

/* A snapshot's or geometry view's cells. */
typedef struct gs_gpr_box {
  int64_t size[3];              /* cells along x, y, z; each 1..INT32_MAX */
  double origin[3], spacing[3]; /* metres */
} gs_gpr_box;

/* Writes a snapshot at path; the format is chosen by path's extension.
 * fields[0..5] = Ex Ey Ez Hx Hy Hz, each size[0]*size[1]*size[2] floats with x
 * fastest (index (k*size[1] + j)*size[0] + i); a NULL field is left out of
 * the file (gprMax's snapshot output selection). time: seconds.
 * - ".h5": gprMax's snapshot layout: root attributes gprMax, nx_ny_nz
 *   int32[3], dx_dy_dz (= spacing), time; datasets Ex.. float32 of shape
 *   (sx, sy, sz) (x slowest: the data is transposed in blocks of x-planes).
 * - ".vtkhdf": VTKHDF ImageData as gprMax writes it: group VTKHDF with
 *   attributes Type "ImageData", Version [2,2], WholeExtent, Origin, Spacing,
 *   Direction; datasets CellData/Ex.. float32 of shape (sz, sy, sx). gprMax
 *   writes no time in this format, nor does this.
 * - ".vti": VTK XML ImageData (version 1.0, UInt64 headers) with one Float32
 *   CellData array per field, the data appended raw after the XML (VTK's
 *   "appended raw" encoding: '_' then, per array, its byte count as a uint64
 *   and its bytes, in host byte order, which byte_order names), and time as
 *   FieldData TimeValue (which ParaView shows as the time).
 * GS_OK, GS_ERR_USAGE (another extension, a size out of range, no field),
 * GS_ERR_NOMEM or GS_ERR_IO. */
gs_status gs_gpr_write_snapshot(const char *path, const gs_gpr_box *b, double time, const float *const fields[6],
                                char *err, size_t errlen);

/* A .vtkhdf snapshot written one z layer of cells at a time (the layout of
 * gs_gpr_write_snapshot's .vtkhdf, all six fields), so that a large box
 * needs no more than a layer in memory. */
typedef struct gs_gpr_layers gs_gpr_layers;
/* Starts one at path (".vtkhdf" only; path must stay valid until close).
 * GS_OK with *out set, or GS_ERR_USAGE (another extension, a size out of
 * range), GS_ERR_NOMEM or GS_ERR_IO with *out NULL and nothing left behind. */
gs_status gs_gpr_layers_open(const char *path, const gs_gpr_box *b, gs_gpr_layers **out, char *err, size_t errlen);
/* The same for any snapshot format, all six fields: ".h5" (gprMax's x-slowest
 * datasets, each layer transposed; time as gs_gpr_write_snapshot's),
 * ".vtkhdf", or ".vti" (the appended arrays' places known beforehand, each
 * layer written at its own); the file's data as gs_gpr_write_snapshot's for
 * the same values (a .vti byte for byte). */
gs_status gs_gpr_snapshot_layers_open(const char *path, const gs_gpr_box *b, double time, gs_gpr_layers **out,
                                      char *err, size_t errlen);
/* Layer z (0-based) of each field: fields[c] holds size[0] * size[1] floats,
 * x fastest. After a failure the later calls do nothing. */
void gs_gpr_layers_put(gs_gpr_layers *w, int64_t z, const float *const fields[6]);
/* Layer z of a geometry view's Material (size[0] * size[1] values, x fastest). */
void gs_gpr_layers_put_u32(gs_gpr_layers *w, int64_t z, const uint32_t *material);
/* Completes the file (renamed into place), or removes it after a failure:
 * the status of the whole write (the reason in the err given to open). */
gs_status gs_gpr_layers_close(gs_gpr_layers *w);

/* A geometry view's cells and the model's metadata. */
typedef struct gs_gpr_geometry {
  gs_gpr_box box;
  const uint32_t *material; /* cell material index, x fastest */
  int nmaterials;
  const char *const *material_names; /* index order */
  double dxdydz[3];
  int64_t nxnynz[3];
  int64_t pml[6]; /* x0 y0 z0 xmax ymax zmax, cells inside the view; all 0: none written */
  int nsrc;
  const char *const *src_ids;
  const double *src_pos; /* [nsrc][3] metres */
  int nrx;
  const char *const *rx_ids;
  const double *rx_pos; /* [nrx][3] metres */
  int pml_always;       /* 3D: pml_thickness written even when all six are 0 (gprMax: the model has PML) */
  int64_t start[3];     /* lines: the view's first cell (gprMax's points are (start + i) * dx) */
} gs_gpr_geometry;

/* Writes a geometry view at path; the format is chosen by path's extension.
 * - ".vtkhdf": as gprMax 4 writes one for mode `n`: the VTKHDF ImageData
 *   group (as for snapshots) with CellData/Material uint32 of shape
 *   (sz, sy, sx) and FieldData gprMax_version, dx_dy_dz, nx_ny_nz (int64),
 *   material_ids, pml_thickness (left out when all six are 0, as gprMax does
 *   for a model without PML), source_ids and sources (left out without
 *   sources), receiver_ids and receivers (left out without receivers);
 *   strings are variable-length ASCII arrays, as gprMax writes them.
 * - ".vti": VTK XML ImageData with CellData Material (UInt32, appended raw as
 *   for snapshots) and the metadata as gprMax 3 wrote it: a JSON comment
 *   after the VTKFile tag (gprMax_version, dx_dy_dz, nx_ny_nz, Materials,
 *   PMLthickness, Sources and Receivers as {"name", "position"}).
 * GS_OK, GS_ERR_USAGE (another extension, a size out of range, NULL arrays),
 * GS_ERR_NOMEM or GS_ERR_IO. */
gs_status gs_gpr_write_geometry(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen);

/* A type n geometry view (".vtkhdf" or ".vti", as gs_gpr_write_geometry
 * writes it; g->material unused) written one z layer of cells at a time
 * through gs_gpr_layers_put_u32 and gs_gpr_layers_close. */
gs_status gs_gpr_geometry_layers_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                      size_t errlen);

/* A fine (f) view as gs_gpr_write_geometry_lines writes it, its topology
 * written at open one x plane at a time and its materials given one x plane
 * of cells at a time (gs_gpr_lines_slabs_put: the plane's 3 size[1] size[2]
 * values, in the file's order); closed with gs_gpr_layers_close. */
gs_status gs_gpr_lines_slabs_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                  size_t errlen);
void gs_gpr_lines_slabs_put(gs_gpr_layers *w, int64_t x, const uint32_t *material);

/* Writes gprMax 4's fine geometry view (type f) at path (".vtkhdf" only): a
 * VTKHDF UnstructuredGrid of the box's cell edges, as gprMax's
 * GeometryViewLines: Points (float64, (start + index) * spacing for every
 * node, z fastest), three VTK_LINE cells per cell (its x, y and z edge from
 * its lower corner, cells in x-slowest order), Connectivity and Offsets
 * int32, Types uint8, NumberOf* int64, CellData/Material uint32 (g->material
 * holds the three edges' materials of each cell in that order), FieldData
 * gprMax_version, dx_dy_dz, nx_ny_nz and material_ids only. GS_OK,
 * GS_ERR_USAGE (another extension, 2^31 or more points, bad arrays),
 * GS_ERR_NOMEM or GS_ERR_IO. */
gs_status gs_gpr_write_geometry_lines(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen);

/* A geometry objects file (#geometry_objects_write): sizes in cells. */
typedef struct gs_gpr_geomobj {
  const char *title;
  double dxdydz[3];
  int64_t size[3];
  const int16_t *data;  /* [sx][sy][sz] (z fastest): the view's material of each cell */
  const int8_t *rigidE; /* [12][sx][sy][sz] */
  const int8_t *rigidH; /* [6][sx][sy][sz] */
  const uint32_t *id;   /* [6][sx + 1][sy + 1][sz + 1] */
} gs_gpr_geomobj;

/* Writes gprMax 4's geometry objects file at path (.h5): root attributes
 * gprMax, Title (variable-length UTF-8 strings), dx_dy_dz (float64[3]);
 * datasets data (int16), rigidE, rigidH (int8), ID (uint32) of the shapes
 * above, as gprMax's GeometryObject.write_hdf5 (through h5py). GS_OK,
 * GS_ERR_USAGE (a size out of range, NULL arrays), GS_ERR_NOMEM or GS_ERR_IO. */
gs_status gs_gpr_write_geometry_object(const char *path, const gs_gpr_geomobj *g, char *err, size_t errlen);

/* The same file written one x plane at a time (g's arrays unused): x plane
 * x of the cells (data: size[1] size[2] values, z fastest; rigid: the 12
 * rigidE then the 6 rigidH planes of as many) and of the nodes (id: the 6
 * components' (size[1] + 1) (size[2] + 1) values each); gs_gpr_layers_close
 * completes it. */
gs_status gs_gpr_geomobj_slabs_open(const char *path, const gs_gpr_geomobj *g, gs_gpr_layers **out, char *err,
                                    size_t errlen);
void gs_gpr_geomobj_slabs_put_cells(gs_gpr_layers *w, int64_t x, const int16_t *data, const int8_t *rigid);
void gs_gpr_geomobj_slabs_put_nodes(gs_gpr_layers *w, int64_t x, const uint32_t *id);

/* A geometry objects file as read (#geometry_objects_read). */
typedef struct gs_gpr_geomobj_in {
  double dxdydz[3]; /* attribute dx_dy_dz */
  int64_t size[3];  /* data's shape */
  int16_t *data;    /* [sx][sy][sz] */
  int8_t *rigid;    /* [12 + 6][sx][sy][sz] (rigidE then rigidH), NULL when the file has no rigid or ID arrays */
  uint32_t *id;     /* [6][sx + 1][sy + 1][sz + 1], NULL likewise */
} gs_gpr_geomobj_in;

/* The most bytes reading a geometry objects file holds at once per cell:
 * data (2), rigidE and rigidH (18, then 18 again merged), ID (24 a node),
 * rounded up for the copies the scene makes of them. */
#define GS_GEOMOBJ_READ_BYTES_PER_CELL 72
/* Reads gprMax's geometry objects file at path: dx_dy_dz (float64[3]), data
 * (3-D, integers, converted to int16 as gprMax does), and when rigidE,
 * rigidH and ID are all there, those too (their shapes must match data's).
 * At most max_cells cells. GS_OK, or GS_ERR_FORMAT (not HDF5, no dx_dy_dz or
 * data, a wrong shape or type, too large) or GS_ERR_NOMEM with one line in
 * err naming path; g is then empty. Free with gs_gpr_geomobj_in_free. */
gs_status gs_gpr_read_geometry_object(const char *path, int64_t max_cells, gs_gpr_geomobj_in *g, char *err,
                                      size_t errlen);
void gs_gpr_geomobj_in_free(gs_gpr_geomobj_in *g);

#endif

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

#endif

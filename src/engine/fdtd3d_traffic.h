/* The bytes one step of a 3D model must move between the device's memory
 * and its processors (issue #36): the model behind the floor that `bench
 * fdtd` prints (floor time = bytes per step / the device-to-device copy's
 * GB/s). It counts what the engine stores, each element once a step as if
 * every neighbour came from a cache (a node's neighbours are other nodes'
 * own elements), nothing recomputed, no second pass:
 *   fields     six components, float32, two sets (fdtd3d.h): each read from
 *              one set and written to the other: 6 x (4 + 4) = 48 bytes a cell;
 *   materials  the E material index of each component (uint8 each,
 *              fdtd3d.c: 3 bytes a cell), and the same for H in magnetic
 *              scenes only (3 more);
 *   CPML       on the slab cells only (t x n_a x n_b a face, corners counted
 *              in each slab, as the engine stores them): four psi arrays
 *              (E and H, two slots each), read and written: 32 bytes, per
 *              CFS term (two with two #pml_cfs);
 *   poles      on the dispersive E nodes only (Ex, Ey, Ez counted apart, in
 *              gprMax's update range): the pole state read and written (8
 *              bytes a float) and the bytes that locate it; plus a map over
 *              every cell where a layout keeps one;
 *   sources, receivers, plane waves  a few bytes a step each (below).
 * The pole state layout is the dispersion code's (src/engine/fdtd3d_
 * dispersion.c); where it changes, change gs_fdtd3_traffic_of's three
 * figures (state floats and index bytes per dispersive node, map bytes per
 * cell), or count the nodes another way: the model is a function of them. */
#ifndef GS_FDTD3D_TRAFFIC_H
#define GS_FDTD3D_TRAFFIC_H

#include <stdint.h>

#include "fdtd3d.h"

/* Bytes per unit a step moves (read + written). */
#define GS_FDTD3_TRAFFIC_FIELDS 48.0    /* per cell: six float32 components, read and written */
#define GS_FDTD3_TRAFFIC_PSI 32.0       /* per slab cell: four float32 psi, read and written */
#define GS_FDTD3_TRAFFIC_POLE_FLOAT 8.0 /* per pole state float: read and written */
#define GS_FDTD3_TRAFFIC_DIPOLE 20.0    /* per Hertzian dipole: its value (4), offset (8), E read and written (8) */
#define GS_FDTD3_TRAFFIC_SOURCE3 32.0   /* per other source: a float64 value, offset, field read and written, more */
#define GS_FDTD3_TRAFFIC_RX 56.0        /* per receiver: six fields read, an offset, six samples written */
#define GS_FDTD3_TRAFFIC_TFSF 32.0      /* per TFSF surface node of a plane wave: 2 E and 2 H read and written */

/* What the model needs to know of a model. */
typedef struct gs_fdtd3_traffic_in {
  int64_t nx, ny, nz;      /* cells */
  int pml6[6];             /* CPML cells, x- y- z- x+ y+ z+ */
  int pml_terms;           /* CFS terms (#pml_cfs): 2 doubles the psi; 0 or 1: one */
  int e_mat_bytes;         /* material index bytes per cell, three E components together (3) */
  int h_mat_bytes;         /* the same for H: 3 in magnetic scenes, else 0 (free-space H, no array) */
  double disp_nodes;       /* dispersive E nodes, Ex, Ey, Ez counted apart */
  double disp_any_nodes;   /* nodes with at least one dispersive E component (for per-node layouts) */
  double disp_floats;      /* pole state floats per dispersive node */
  double disp_index_bytes; /* bytes per dispersive node that locate it and its state */
  double disp_map_bytes;   /* bytes per cell of a map to the pole state (0: none) */
  int ndipoles, nsources3, nrx;
  double tfsf_nodes; /* TFSF surface nodes of the plane waves */
} gs_fdtd3_traffic_in;

/* Bytes per step of each part and in all; per_cell: total over nx ny nz. */
typedef struct gs_fdtd3_traffic {
  double cells;
  double fields, materials, cpml, poles, sources, receivers, planewaves;
  double total, per_cell;
} gs_fdtd3_traffic;

/* The model (above): pure arithmetic on in. */
gs_fdtd3_traffic gs_fdtd3_traffic_model(const gs_fdtd3_traffic_in *in);

/* The model's inputs for scene sc as the engine stores it today, before
 * anything is built: no dispersive node counted (gs_fdtd3_traffic_of counts
 * them), H materials where a material of the scene is magnetic. */
gs_fdtd3_traffic_in gs_fdtd3_traffic_scene(const gs_scene *sc);

/* The same for a built model m (after gs_fdtd3_sim_init or _init_part):
 * its dispersive E nodes counted from the material arrays it holds (its
 * owned nodes only: on a part of a split model, sum disp_nodes and
 * disp_any_nodes over the ranks), H materials where m keeps them. Reads
 * the device's material arrays back (plane by plane), only in scenes with
 * dispersion. */
gs_fdtd3_traffic_in gs_fdtd3_traffic_of(const gs_fdtd3_sim *m);

#endif

/* gprMax 4's geometry for a 3D model (docs/gprmax-rules.md, sections b and c,
 * which describe the rules gprMax's 3D code applies): the geometry commands
 * painted in file order onto cells (`solid`) with gprMax's rounding and
 * voxelisation of each primitive, rigid edges of non-averaged objects, then
 * the material of every E and H component averaged from the cells around it
 * (dielectric smoothing into compound materials named as gprMax names them).
 * Independent of the scene parser: the caller resolves material names into
 * indices (0 pec, 1 free_space, then the #material commands in file order).
 * Whole grid, one rank. */
#ifndef GS_GEOMETRY3D_H
#define GS_GEOMETRY3D_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum {
  GS_O3_BOX,
  GS_O3_SPHERE,
  GS_O3_CYLINDER,
  GS_O3_CYLINDRICAL_SECTOR,
  GS_O3_CONE,
  GS_O3_ELLIPSOID,
  GS_O3_EDGE,
  GS_O3_PLATE,
  GS_O3_TRIANGLE,
  GS_O3_ARRAY /* #geometry_objects_read: a geometry objects file placed at cell v[0..2] */
};

/* The arrays of a geometry objects file (#geometry_objects_read), in
 * gprMax's layout ([x][y][z], z fastest), numbered from the file's first
 * material: the build adds `offset` (gprMax's numexistmaterials). */
typedef struct gs_obj3_array {
  int64_t size[3];
  int16_t *data;   /* cells: material, < 0 leaves the cell (voxels-only files) */
  uint32_t *rigid; /* cells: rigidE bits 0-11, rigidH bits 12-17; NULL: the file has data only */
  uint32_t *id;    /* [6][sx + 1][sy + 1][sz + 1] (with rigid) */
  int offset;
} gs_obj3_array;

/* One geometry command as written, in file order. v[] holds its numbers in
 * metres (and degrees) in the command's order:
 *   box, edge, plate:   x1 y1 z1 x2 y2 z2
 *   sphere:             x y z r
 *   cylinder:           x1 y1 z1 x2 y2 z2 r
 *   cone:               x1 y1 z1 x2 y2 z2 r1 r2
 *   ellipsoid:          x y z xr yr zr
 *   triangle:           x1 y1 z1 x2 y2 z2 x3 y3 z3 thickness
 *   cylindrical_sector: ctr1 ctr2 extent1 extent2 r start_deg sector_deg (and `normal`) */
typedef struct gs_obj3 {
  int type;
  int material;  /* index into the materials table */
  int averaging; /* the y/n flag (default y); the material's own averagable applies too */
  double v[16];
  int nv;
  char normal;                /* cylindrical_sector: 'x', 'y' or 'z' */
  const gs_obj3_array *array; /* GS_O3_ARRAY */
} gs_obj3;

typedef struct gs_mat3 {
  char name[160];
  double er, se, mr, sm;
  int averagable; /* 0 for pec, se = inf, dispersive materials */
} gs_mat3;

typedef struct gs_geometry3 {
  int64_t nx, ny, nz;
  double dx, dy, dz;
  uint32_t *solid; /* nx*ny*nz cells, x fastest: material index */
  uint32_t *rigid; /* per cell: bits 0-11 gprMax's rigidE[0..11], bits 12-17 rigidH[0..5] */
  uint16_t *id[6]; /* Ex Ey Ez Hx Hy Hz: (nx+1)(ny+1)(nz+1) nodes, x fastest: material index */
  gs_mat3 *mat;    /* the given materials, then the compounds smoothing made (gprMax's order and names) */
  int nmat;
} gs_geometry3;

/* Index of cell (i, j, k) in g->solid and of node (i, j, k) in g->id[c]. */
static inline int64_t gs_geometry3_cell(const gs_geometry3 *g, int64_t i, int64_t j, int64_t k) {
  return i + g->nx * (j + g->ny * k);
}
static inline int64_t gs_geometry3_node(const gs_geometry3 *g, int64_t i, int64_t j, int64_t k) {
  return i + (g->nx + 1) * (j + (g->ny + 1) * k);
}

/* Builds the geometry; GS_OK, or GS_ERR_FORMAT with the reason in err (the
 * checks gprMax makes: points outside the domain, degenerate objects, bad
 * radii or angles), or GS_ERR_LIMIT past 65535 materials. */
gs_status gs_geometry3_build(gs_geometry3 *g, int64_t nx, int64_t ny, int64_t nz, double dx, double dy, double dz,
                             const gs_mat3 *mats, int nmats, const gs_obj3 *objs, int nobjs, char *err, size_t errlen);
void gs_geometry3_free(gs_geometry3 *g);

/* gprMax's name of the material averaged from n (2 or 4) cells' materials
 * (create_compound_id): the names, each twice when n = 2, sorted and joined
 * by '+'. Shared by the 2D and 3D geometry. */
void gs_compound_name(const char *const *names, int n, char *out, size_t len);

/* The compound materials a geometry build has made, keyed by their cells'
 * materials in gprMax's order (most interface nodes repeat a few). */
#define GS_COMPOUND_CACHE 4096
typedef struct gs_compound_cache {
  uint64_t key[GS_COMPOUND_CACHE];
  int value[GS_COMPOUND_CACHE];
} gs_compound_cache;
/* The cache entry of cells ids[0..n): its material, or -1 until the caller
 * stores one there; NULL when the cache is full (the caller then looks the
 * name up without it). */
int *gs_compound_cache_slot(gs_compound_cache *c, const uint32_t *ids, int n);

#endif

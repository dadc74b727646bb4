/* gprMax 4's geometry for a 3D model (docs/gprmax-rules.md, sections b and c,
 * which describe the rules gprMax's 3D code applies): the geometry commands
 * painted in file order onto cells (`solid`) with gprMax's rounding and
 * voxelisation of each primitive, rigid edges of non-averaged objects, then
 * the material of every E and H component averaged from the cells around it
 * (dielectric smoothing into compound materials named as gprMax names them).
 * Independent of the scene parser: the caller resolves material names into
 * indices (0 pec, 1 free_space, then the #material commands in file order).
 * The whole grid, or the part of it one rank holds (gs_geometry3_paint). */
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
  GS_O3_ARRAY,  /* #geometry_objects_read: a geometry objects file placed at cell v[0..2] */
  GS_O3_FRACTAL /* #fractal_box: its cells as src/model/scene_fractals.c built them */
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

/* A fractal box's cells (gprMax's build_voxels_from_array and _mask):
 * cells [start, start + size), [x][y][z] with z fastest; data the
 * material (gprMax's numbers); mask NULL: every cell its data, else per
 * cell 0 none, 1 data, 2 water, 3 grass. Painted with the object's
 * averaging flag as given (gprMax does not ask the materials). */
typedef struct gs_obj3_fractal {
  int64_t start[3], size[3];
  int16_t *data;
  int8_t *mask;
  int water, grass; /* materials of mask 2 and 3 */
} gs_obj3_fractal;

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
  char normal;                    /* cylindrical_sector: 'x', 'y' or 'z' */
  const gs_obj3_array *array;     /* GS_O3_ARRAY */
  const gs_obj3_fractal *fractal; /* GS_O3_FRACTAL */
  int line;                       /* the command's line in the scene (0: none), for messages */
} gs_obj3;

typedef struct gs_mat3 {
  char name[160];
  double er, se, mr, sm;
  int averagable; /* 0 for pec, se = inf, dispersive materials */
} gs_mat3;

/* The first visit of gprMax's smoothing to a compound material (its cells'
 * materials as the multiset `key`, the cells in the order met, and where in
 * gprMax's visiting order): the earliest visit of each key over the whole
 * model decides the compound's index and how its properties are summed. */
typedef struct gs_compound_visit {
  uint64_t key, order;
  uint32_t ids[4];
  int32_t n, material;
} gs_compound_visit;

/* The geometry of nodes [lo, hi) of a model of nx x ny x nz cells (the
 * whole model: lo 0, hi n + 1), with the cells those nodes touch,
 * [clo, chi) = [max(lo - 1, 0), min(hi, n)). */
typedef struct gs_geometry3 {
  int64_t nx, ny, nz; /* the whole model's cells */
  double dx, dy, dz;
  int64_t lo[3], hi[3];   /* nodes held */
  int64_t clo[3], chi[3]; /* cells held */
  uint32_t *solid;        /* cells held, x fastest: material index */
  uint32_t *rigid;        /* cells held: bits 0-11 gprMax's rigidE[0..11], bits 12-17 rigidH[0..5] */
  uint16_t *id[6];        /* Ex Ey Ez Hx Hy Hz of the nodes held, x fastest: material index */
  gs_mat3 *mat;           /* the given materials, then the compounds smoothing made (gprMax's order and names) */
  int nmat;
  gs_compound_visit *visits; /* after gs_geometry3_paint: this part's first visits */
  int64_t nvisits;
} gs_geometry3;

/* Index of cell (i, j, k) in g->solid and g->rigid and of node (i, j, k) in
 * g->id[c] (global indices, within the part held). */
static inline int64_t gs_geometry3_cell(const gs_geometry3 *g, int64_t i, int64_t j, int64_t k) {
  return (i - g->clo[0]) + (g->chi[0] - g->clo[0]) * ((j - g->clo[1]) + (g->chi[1] - g->clo[1]) * (k - g->clo[2]));
}
static inline int64_t gs_geometry3_node(const gs_geometry3 *g, int64_t i, int64_t j, int64_t k) {
  return (i - g->lo[0]) + (g->hi[0] - g->lo[0]) * ((j - g->lo[1]) + (g->hi[1] - g->lo[1]) * (k - g->lo[2]));
}

/* The axis (0-2) on which two corners' cells a and b differ (differ 1: an
 * edge) or agree (differ 0: a plate or a face), where exactly one axis does;
 * -1 otherwise. Shared by the 3D painting and the parser's checks. */
static inline int gs_corners_single_axis(const int64_t a[3], const int64_t b[3], int differ) {
  int n = 0, axis = -1;
  for (int k = 0; k < 3; ++k)
    if ((a[k] != b[k]) == differ) {
      ++n;
      axis = k;
    }
  return n == 1 ? axis : -1;
}

/* Paints the geometry commands onto the part of nodes [lo, hi) (clipped to
 * the model) and finds the part's first visits of compounds (g->visits). A
 * model split over ranks paints each part, merges every part's visits
 * (gs_geometry3_smooth keeps the earliest of each key), then smooths each
 * part with the merged list: the same indices and properties as one build
 * of the whole model. GS_OK, GS_ERR_FORMAT (gprMax's checks, reason in
 * err), GS_ERR_NOMEM. */
gs_status gs_geometry3_paint(gs_geometry3 *g, int64_t nx, int64_t ny, int64_t nz, double dx, double dy, double dz,
                             const int64_t lo[3], const int64_t hi[3], const gs_mat3 *mats, int nmats,
                             const gs_obj3 *objs, int nobjs, char *err, size_t errlen);
/* Makes the compounds of visits[0..n) in gprMax's order (n may hold
 * several visits of one key and any order) and writes every E and H
 * component's material. GS_OK, or GS_ERR_LIMIT past 65535 materials (the
 * geometry is freed). */
gs_status gs_geometry3_smooth(gs_geometry3 *g, const gs_compound_visit *visits, int64_t n, char *err, size_t errlen);

/* Builds the whole model's geometry (paint, then smooth with its own
 * visits); GS_OK, or GS_ERR_FORMAT with the reason in err (the
 * checks gprMax makes: points outside the domain, degenerate objects, bad
 * radii or angles), or GS_ERR_LIMIT past 65535 materials. */
/* An error of gs_geometry3_build or _paint ("LINE: #command: reason" where
 * the object has a line, else "#command: reason") as "PATH:LINE: ..." or
 * "PATH: ...", the form of the parser's messages. */
void gs_geometry3_where(char *err, size_t errlen, const char *path);

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

/* gprMax's geometry for a window of a 2D model (docs/gprmax-rules.md,
 * sections b and c; docs/fdtd.md, "Geometry"): objects painted in file
 * order onto cells (gprMax's `solid`), rigid edges of non-averaged objects,
 * then the material of every Ez node averaged from the four cells around it
 * (dielectric smoothing, new compound materials), and the materials of the
 * H nodes. The window's result does not depend on the window: ranks build
 * their own parts and agree bit for bit. */
#ifndef GS_GEOMETRY_H
#define GS_GEOMETRY_H

#include <stdint.h>

#include "error.h"
#include "scene.h"

typedef struct gs_geometry {
  const gs_scene *sc;
  int64_t i0, i1, j0, j1;     /* nodes [i0, i1) x [j0, j1), inside [0, nx] x [0, ny] */
  int64_t ci0, ci1, cj0, cj1; /* cells held: those around the nodes, inside [0, nx) x [0, ny) */
  uint16_t *solid;            /* material of each cell */
  uint8_t *rigid;             /* per cell: bits 0-3 its Ez corners (0 (i,j), 1 (i+1,j), 2 (i,j+1),
                                 3 (i+1,j+1)) pinned; bit 4 its H edges pinned */
  uint16_t *ez, *hx, *hy;     /* material of each node's Ez, Hx, Hy */
  gs_material *mat;           /* the scene's materials, then the compounds this window made */
  int nmat;
  int magnetic; /* some H node's material has mu_r != 1 or magnetic loss */
} gs_geometry;

/* Builds the window of nodes [i0, i1) x [j0, j1) (clipped to the grid). */
void gs_geometry_build(gs_geometry *g, const gs_scene *sc, int64_t i0, int64_t i1, int64_t j0, int64_t j1);
void gs_geometry_free(gs_geometry *g);

static inline uint16_t gs_geometry_cell(const gs_geometry *g, int64_t i, int64_t j) {
  return g->solid[(j - g->cj0) * (g->ci1 - g->ci0) + (i - g->ci0)];
}
/* Index of node (i, j) in g->ez, g->hx, g->hy. */
static inline int64_t gs_geometry_node(const gs_geometry *g, int64_t i, int64_t j) {
  return (j - g->j0) * (g->i1 - g->i0) + (i - g->i0);
}

/* gprMax's sigma_max of the CPML (one value for every slab): from the first
 * slab built (x-, y-, x+, y+ order), 0.8 (m + 1) / (Z0 d sqrt(er mr)) with er
 * and mr averaged over one plane of its cells (the outermost of a lower
 * slab, the innermost of an upper one); 0 when there is no slab. */
double gs_geometry_sigma_max(const gs_scene *sc);

#endif

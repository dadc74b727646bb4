/* What the 3D geometry's two files share (geometry3d.c paints the geometry
 * commands, geometry3d_smooth.c smooths them into compound materials): the
 * state of a build, whether a cell or node is in the part held, the write
 * of a component's material, and the smoothing's first sweep, which
 * painting runs. Not for use outside them. */
#ifndef GS_GEOMETRY3D_INTERNAL_H
#define GS_GEOMETRY3D_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "geometry3d.h"

typedef struct b3 {
  gs_geometry3 *g;
  uint32_t *rigid;    /* g->rigid: bits 0-11: rigidE[0..11], bits 12-17: rigidH[0..5] of the cell */
  int64_t nx, ny, nz; /* the whole model */
  char *err;
  size_t errlen;
} b3;

static inline int64_t cell(const b3 *b, int64_t i, int64_t j, int64_t k) {
  return gs_geometry3_cell(b->g, i, j, k);
}

/* Is cell (i, j, k) / node (i, j, k) in the part held? Writes outside it are dropped. */
static inline int held_cell(const b3 *b, int64_t i, int64_t j, int64_t k) {
  const gs_geometry3 *g = b->g;
  return i >= g->clo[0] && i < g->chi[0] && j >= g->clo[1] && j < g->chi[1] && k >= g->clo[2] && k < g->chi[2];
}
static inline int held_node(const b3 *b, int64_t i, int64_t j, int64_t k) {
  const gs_geometry3 *g = b->g;
  return i >= g->lo[0] && i < g->hi[0] && j >= g->lo[1] && j < g->hi[1] && k >= g->lo[2] && k < g->hi[2];
}

/* Component c (0-2 Ex Ey Ez, 3-5 Hx Hy Hz) of node (i, j, k) takes material m, if the node is held. */
static inline void put_id(const b3 *b, int c, int64_t i, int64_t j, int64_t k, int m) {
  if (held_node(b, i, j, k)) b->g->id[c][gs_geometry3_node(b->g, i, j, k)] = (uint16_t)m;
}

/* The smoothing's first sweep over the part painted: the part's first
 * visit of every compound, in b->g->visits (geometry3d_smooth.c). */
void gs_geometry3_find_visits(b3 *b);

#endif

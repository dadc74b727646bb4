/* Helpers shared by the FDTD sources (src/fdtd*.c, checkpoint.c, snapshot.c);
 * not an interface. */
#ifndef GS_FDTD_INTERNAL_H
#define GS_FDTD_INTERNAL_H

#include "fdtd.h"

/* Offset of global node (i, j) in this rank's arrays. */
static inline size_t gs_fdtd_index(const gs_fdtd_sim *m, int64_t i, int64_t j) {
  return (size_t)((j - m->grid.own.j0 + m->grid.g) * m->grid.pitch + (i - m->grid.own.i0 + m->grid.g));
}

static inline gs_fdtd_region gs_region_meet(gs_fdtd_region a, gs_fdtd_region b) {
  gs_fdtd_region r = {a.i0 > b.i0 ? a.i0 : b.i0, a.i1 < b.i1 ? a.i1 : b.i1, a.j0 > b.j0 ? a.j0 : b.j0,
                      a.j1 < b.j1 ? a.j1 : b.j1};
  if (r.i1 < r.i0) r.i1 = r.i0;
  if (r.j1 < r.j0) r.j1 = r.j0;
  return r;
}

static inline int gs_region_empty(gs_fdtd_region r) {
  return r.i1 <= r.i0 || r.j1 <= r.j0;
}

#endif

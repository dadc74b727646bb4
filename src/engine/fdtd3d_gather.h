/* Outputs of a 3D model split over ranks, assembled on rank 0
 * piece by piece: each rank reads the nodes of a sampled grid that it owns
 * and sends them to rank 0 in one message; no rank holds more than the grid
 * asked for (the callers ask for one layer or one plane at a time). */
#ifndef GS_FDTD3D_GATHER_H
#define GS_FDTD3D_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "fdtd3d_dist.h"

/* Nodes start + t * step for t in [0, count) along each axis. A cell (i, j,
 * k) counts as its lower corner node: the part owning that node gives it. */
typedef struct gs_fdtd3_grid {
  int64_t start[3], step[3], count[3];
} gs_fdtd3_grid;

/* How a rank reads its nodes: plane(ctx, k) before the nodes of plane k,
 * then value(ctx, i, j, k, dst) writes node (i, j, k)'s record of `bytes`
 * bytes at dst. */
typedef struct gs_fdtd3_reader {
  void (*plane)(void *ctx, int64_t k);
  void (*value)(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst);
  void *ctx;
  size_t bytes;
} gs_fdtd3_reader;

/* Collective over sp's ranks: the records of grid gr's nodes into out on
 * rank 0 (count[0] * count[1] * count[2] records, x fastest; out unused
 * elsewhere), each from the rank owning the node (sc's nodes split as sp). */
void gs_fdtd3_gather(const gs_fdtd3_ranks *sp, const gs_scene *sc, const gs_fdtd3_grid *gr, const gs_fdtd3_reader *rd,
                     void *out);

/* A reader of m's device arrays (narr of them, elem[q] bytes a value, m's
 * layout): plane copies each array's plane k to the host; a record is the
 * arrays' values in turn. Free with gs_fdtd3_field_reader_free. */
gs_fdtd3_reader gs_fdtd3_field_reader(gs_fdtd3_sim *m, int narr, const void *const *dev, const size_t *elem);
void gs_fdtd3_field_reader_free(gs_fdtd3_reader *rd);

#endif

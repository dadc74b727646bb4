/* Ghost-layer exchange between the ranks of a 2D Cartesian decomposition,
 * through pinned host buffers and MPI (the "mpi-host" transport: works with
 * any MPI; device memory is never handed to MPI). Knows nothing of physics:
 * it moves the owned edge rows and columns of float arrays into the
 * neighbours' ghost layers, for the sides each array asks for. */
#ifndef GS_HALO_H
#define GS_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "backend.h"

enum { GS_GHOST_LEFT = 1, GS_GHOST_RIGHT = 2, GS_GHOST_BOTTOM = 4, GS_GHOST_TOP = 8, GS_GHOST_ALL = 15 };

typedef struct gs_halo gs_halo;

/* cart: a 2D Cartesian communicator, dimension 0 along x (columns i),
 * dimension 1 along y (rows j). Arrays hold (nxl + 2g) x (nyl + 2g) floats,
 * pitch floats a row, owned node (0, 0) at [g * pitch + g]. Collective. */
gs_halo *gs_halo_create(MPI_Comm cart, const gs_backend *b, int64_t nxl, int64_t nyl, int64_t pitch, int g, int nfields);
/* Fills the ghost layers named by ghosts[k] (GS_GHOST_* bits) of fields[k]
 * (device arrays, n <= nfields) from the neighbours' owned edges, after the
 * work queued on s. Collective over cart; sides without a neighbour are left
 * alone. */
void gs_halo_exchange(gs_halo *h, float *const *fields, const unsigned *ghosts, int n, gs_stream s);
void gs_halo_destroy(gs_halo *h);
/* Bytes this rank sent and seconds it spent in gs_halo_exchange so far. */
void gs_halo_stats(const gs_halo *h, double *bytes_sent, double *seconds);

#endif

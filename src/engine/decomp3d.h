/* How a 3D model's nodes are split over ranks: a Cartesian grid
 * of PX x PY x PZ parts, each rank one part, parts of one axis differing by
 * at most one node (uneven splits). Pure functions: no MPI, no model. */
#ifndef GS_DECOMP3D_H
#define GS_DECOMP3D_H

#include <stddef.h>
#include <stdint.h>

/* Nodes [lo[a], hi[a]) of axis a that one part owns. */
typedef struct gs_part3 {
  int64_t lo[3], hi[3];
} gs_part3;

/* Parses an explicit "PXxPYxPZ" for size ranks: three decimal counts >= 1
 * without sign or leading zero whose product is size. 0, or -1 with the
 * reason (one line) in why. */
int gs_decomp3_parse(const char *spec, int size, int dims[3], char *why, size_t whylen);

/* The halo bytes per step that the busiest part of the split dims sends:
 * per split axis, one face (two for a middle part) of the largest part's
 * cross-section, bytes_per_node each. */
double gs_decomp3_halo_bytes(const int64_t nodes[3], const int dims[3], double bytes_per_node);

/* The split of size ranks that sends the fewest halo bytes (the busiest
 * part's, gs_decomp3_halo_bytes), among those whose parts are at least
 * min_part nodes thick along every split axis; equal costs prefer splitting
 * z, then y (whole planes and rows: contiguous faces). 0, or -1 when no
 * split keeps min_part nodes (then dims is the cheapest split regardless). */
int gs_decomp3_choose(int size, const int64_t nodes[3], int64_t min_part, int dims[3]);

/* The nodes of the part at coords (0 <= coords[a] < dims[a]). */
gs_part3 gs_decomp3_part(const int64_t nodes[3], const int dims[3], const int coords[3]);

#endif

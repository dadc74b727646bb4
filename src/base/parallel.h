/* A parallel loop for the host's set-up work (building a 3D model's
 * geometry and material arrays): [0, n) cut into contiguous parts, one
 * thread each. Results must not depend on the part count: callers either
 * write disjoint elements or merge per-part results in part order. */
#ifndef GS_PARALLEL_H
#define GS_PARALLEL_H

#include <stdint.h>

/* fn(ctx, lo, hi, part): the part-th range [lo, hi) of the loop. */
typedef void (*gs_range_fn)(void *ctx, int64_t lo, int64_t hi, int part);

/* Threads the set-up loops use: the cores this process may run on (its
 * affinity mask, which the rank placement narrows to the GPU's NUMA node),
 * at most GS_PARALLEL_MAX; 1 when unknown. */
#define GS_PARALLEL_MAX 64
int gs_parallel_threads(void);

/* Runs fn over [0, n) in `parts` parts (1..GS_PARALLEL_MAX; part p covers
 * [n p / parts, n (p + 1) / parts)), part 0 on the calling thread; returns
 * when all are done. A thread that cannot be started has its part run on
 * the calling thread instead (slower, same result). */
void gs_parallel_for(int64_t n, int parts, gs_range_fn fn, void *ctx);

#endif

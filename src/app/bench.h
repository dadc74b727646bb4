/* What the bench command's files share (bench.c: scale, halo, 2D fdtd;
 * bench_fdtd3.c: the 3D fdtd benchmarks). */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "commands.h"

/* Untimed steps before the timed ones. They must contain the CUDA graph's
 * capture and instantiation (about 1 ms, once per run): on one rank the graph
 * is captured at step 0, on several at the first deep-halo cycle start after
 * the first exchange (step R <= 8) with a graph's length (16 to 28 steps)
 * left; 100 covers both. */
#define GS_BENCH_WARMUP 100

/* Device-to-device copy GB/s (read + write) of bytes, median of 10. */
double gs_bench_copy_gbs(const gs_backend *b, size_t bytes);

/* Appends a row to the CSV file path (and the header to an empty file);
 * nothing when path is NULL. GS_EXIT_PARTIAL where it cannot (said on one
 * line), else GS_EXIT_OK. */
int gs_bench_csv_row(const char *path, const char *header, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether every rank's share of a model needing dev device bytes fits its
 * memory (with a fifth to spare), agreed by all ranks. Collective. */
int gs_bench_parts_fit(gs_run *run, double dev);

/* bench fdtd --grid NXxNYxNZ [--pml C] [--debye|--lorentz|--drude P]
 * [--dispersive-fraction F]: the 3D engine on a synthetic model, one rank or
 * split over all (bench_fdtd3.c). */
int gs_bench_fdtd3(gs_run *run, const gs_bench_opts *o, int64_t nx, int64_t ny, int64_t nz);

/* bench fdtd SCENE.in: a scene file's own steps (or --steps), on one rank. */
int gs_bench_fdtd3_scene(gs_run *run, const gs_bench_opts *o, const char *path);

#endif

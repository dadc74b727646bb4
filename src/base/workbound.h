/* How long a job can take at the most (docs/usage.md, "Limits on a job's length"): the fdtd and
 * bench commands refuse, before anything is made, work that would run for days or for good. */
#ifndef GS_WORKBOUND_H
#define GS_WORKBOUND_H

#include <stddef.h>

/* The longest an fdtd job may take (7 days) and a bench command (1 hour), at the rates below. */
#define GS_FDTD_MAX_SECONDS (7.0 * 24 * 3600)
#define GS_BENCH_MAX_SECONDS 3600.0
/* Steps a model with no source may run (its fields stay zero whatever the step count). */
#define GS_IDLE_MAX_STEPS 1000000.0

/* The least time `steps` steps over `cells` cells (one cell update each) can take on `ranks`
 * ranks of a backend, on the GPU or not: at rates faster than any machine this program runs on
 * (4e11 cell updates a second a GPU; 1e9 a second a core of the rank's CPU set on the CPU
 * backend), and at least 0.1 us (GPU) or 1 us (CPU) a step. Seconds. */
double gs_work_least_seconds(double cells, double steps, int ranks, int is_gpu);

/* The least time moving `bytes` bytes through memory can take on one rank: at 1e13 bytes a second
 * on a GPU, 1e10 a second a core of the rank's CPU set on the CPU backend. Seconds. */
double gs_copy_least_seconds(double bytes, int is_gpu);

/* Whether work of least_seconds exceeds limit_s: 1 with one line in why ("would take at least
 * D days (the limit is L)"), or 0. */
int gs_work_too_long(double least_seconds, double limit_s, char *why, size_t whylen);

#endif

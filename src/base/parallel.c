/* Host-side parallel loops (parallel.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>

typedef struct part_job {
  gs_range_fn fn;
  void *ctx;
  int64_t lo, hi;
  int part;
} part_job;

static void *run_part(void *arg) {
  part_job *j = arg;
  j->fn(j->ctx, j->lo, j->hi, j->part);
  return NULL;
}

int gs_parallel_threads(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n < 1 ? 1 : n > GS_PARALLEL_MAX ? GS_PARALLEL_MAX : n;
}

void gs_parallel_for(int64_t n, int parts, gs_range_fn fn, void *ctx) {
  if (parts < 1) parts = 1;
  if (parts > GS_PARALLEL_MAX) parts = GS_PARALLEL_MAX;
  if (n < parts) parts = n > 0 ? (int)n : 1;
  part_job job[GS_PARALLEL_MAX];
  pthread_t th[GS_PARALLEL_MAX];
  int started[GS_PARALLEL_MAX] = {0};
  for (int p = 0; p < parts; ++p)
    job[p] = (part_job){fn, ctx, n * p / parts, n * (p + 1) / parts, p};
  for (int p = 1; p < parts; ++p)
    started[p] = pthread_create(&th[p], NULL, run_part, &job[p]) == 0;
  run_part(&job[0]);
  for (int p = 1; p < parts; ++p) {
    if (started[p])
      pthread_join(th[p], NULL);
    else
      run_part(&job[p]);
  }
}

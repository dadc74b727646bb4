/* How long a job can take at the most (workbound.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "workbound.h"

#include <sched.h>
#include <stdio.h>

/* The cores this process may run on (1 when unknown). */
static int cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

double gs_work_least_seconds(double cells, double steps, int ranks, int is_gpu) {
  const double rate = is_gpu ? 4e11 : 1e9 * (double)cores(); /* cell updates a second, a rank */
  const double per_step = is_gpu ? 1e-7 : 1e-6;
  return steps * (cells / (rate * (double)(ranks > 0 ? ranks : 1)) + per_step);
}

double gs_copy_least_seconds(double bytes, int is_gpu) {
  return bytes / (is_gpu ? 1e13 : 1e10 * (double)cores());
}

/* Seconds as "N s", "N min", "N h" or "N days". */
static void span(double s, char *out, size_t n) {
  if (s < 120)
    snprintf(out, n, "%.0f s", s);
  else if (s < 3600)
    snprintf(out, n, "%.0f min", s / 60);
  else if (s < 3 * 86400)
    snprintf(out, n, "%.3g h", s / 3600);
  else
    snprintf(out, n, s < 1000 * 86400 ? "%.3g days" : "%.0f days", s / 86400);
}

int gs_work_too_long(double least_seconds, double limit_s, char *why, size_t whylen) {
  if (!(least_seconds > limit_s)) return 0;
  char least[32], limit[32];
  span(least_seconds, least, sizeof least);
  span(limit_s, limit, sizeof limit);
  snprintf(why, whylen, "would take at least %s (the limit is %s)", least, limit);
  return 1;
}

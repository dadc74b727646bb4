#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct gs_progress {
  const char *label, *unit;
  int64_t total;
  double t0, last;
  int tty, drawn;
};

double gs_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

gs_progress *gs_progress_create(const char *label, int64_t total, const char *unit) {
  gs_progress *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->label = label;
  p->unit = unit;
  p->total = total;
  p->t0 = p->last = gs_now_s();
  p->tty = isatty(2);
  return p;
}

void gs_progress_update(gs_progress *p, int64_t done, double work) {
  if (!p) return;
  double t = gs_now_s();
  if (t - p->last < (p->tty ? 0.25 : 10.0) && done < p->total) return;
  p->last = t;
  double el = t - p->t0, rate = el > 0 ? work / el : 0;
  double eta = done > 0 ? el * (double)(p->total - done) / (double)done : 0;
  int eh = (int)(eta / 3600), em = (int)(eta / 60) % 60, es = (int)eta % 60;
  fprintf(stderr, "%s%s: %lld/%lld %s (%.0f%%), %.1f M/s, ETA %d:%02d:%02d%s", p->tty ? "\r" : "", p->label,
          (long long)done, (long long)p->total, p->unit, p->total ? 100.0 * (double)done / (double)p->total : 100.0,
          rate, eh, em, es, p->tty ? "\033[K" : "\n");
  fflush(stderr);
  p->drawn = 1;
}

void gs_progress_end(gs_progress *p) {
  if (!p) return;
  if (p->tty && p->drawn) fputc('\n', stderr);
  free(p);
}

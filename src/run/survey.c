/* A survey's markers of finished runs (survey.h). */
#include "survey.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"

static void marker(const char *dir, int64_t r, char *path, size_t n) {
  snprintf(path, n, "%.1000s/.survey/run%06lld.done", dir, (long long)r + 1);
}

int gs_survey_finished(const gs_comm *g, const char *dir, int64_t r) {
  char path[1100];
  marker(dir, r, path, sizeof path);
  return gs_comm_agree(g->rank == 0 && access(path, F_OK) == 0, g->world);
}

int gs_survey_mark(const char *dir, int64_t r, const float *col, size_t n) {
  char path[1100], folder[1100], err[1300];
  snprintf(folder, sizeof folder, "%.1000s/.survey", dir);
  marker(dir, r, path, sizeof path);
  if (gs_mkdirs(folder, 1) != 0) {
    gs_log_error("fdtd: %s: %s", folder, strerror(errno));
    return 1;
  }
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, sizeof err);
  if (st == GS_OK) st = gs_tmpfile_commit(&t, n && fwrite(col, sizeof *col, n, t.fp) != n, 0, err, sizeof err);
  if (st == GS_OK) return 0;
  gs_log_error("fdtd: %s", err);
  return 1;
}

int gs_survey_column(const char *dir, int64_t r, float *col, size_t n) {
  char path[1100];
  marker(dir, r, path, sizeof path);
  FILE *f = fopen(path, "rb");
  struct stat sb;
  const int ok = f && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size == n * sizeof *col &&
                 fread(col, sizeof *col, n, f) == n;
  if (f) fclose(f);
  if (ok) return 0;
  gs_log_error("fdtd: --restart: %s: not the marker of a finished run of this model (%zu samples expected)", path, n);
  return 1;
}

int gs_survey_checkpoint_in(const gs_comm *g, const char *dir) {
  char a[1100], b[1100];
  snprintf(a, sizeof a, "%.1000s/checkpoint.gsck", dir);
  snprintf(b, sizeof b, "%.1000s/checkpoint.manifest", dir);
  return gs_comm_agree(g->rank == 0 && (access(a, F_OK) == 0 || access(b, F_OK) == 0), g->world);
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

gs_survey_clock gs_survey_clock_start(int64_t first, int64_t stride, int64_t runs) {
  gs_survey_clock k = {.group = first, .mine = (runs - first + stride - 1) / stride, .t0 = seconds_now()};
  return k;
}

void gs_survey_clock_skip(gs_survey_clock *k) {
  --k->mine;
}

void gs_survey_clock_done(gs_survey_clock *k, int64_t r, int64_t runs, double solve, double wall) {
  ++k->done;
  const double left = (seconds_now() - k->t0) / (double)k->done * (double)(k->mine - k->done);
  printf(
      "fdtd: run %lld of %lld done in %.3f s (%.3f s with its set-up); group %lld: %lld of its %lld runs, about %.0f "
      "s left\n",
      (long long)r + 1, (long long)runs, solve, wall, (long long)k->group + 1, (long long)k->done, (long long)k->mine,
      left);
}

int gs_survey_group_rule(const gs_comm *c, const gs_fdtd_opts *o, const char *scene_path, int64_t runs) {
  if (o->ranks_per_run) {
    if (o->ranks_per_run <= c->size && c->size % o->ranks_per_run == 0) return (int)o->ranks_per_run;
    if (c->rank == 0)
      gs_log_error("fdtd: %s: --ranks-per-run %lld does not divide the %d ranks into groups", scene_path,
                   (long long)o->ranks_per_run, c->size);
    return -1;
  }
  /* a restart from a checkpoint continues its run as it was split; one without (a survey shared
   * out over groups, which write none) just skips the finished runs */
  const int from_checkpoint = o->restart && gs_survey_checkpoint_in(c, o->restart);
  if (runs < 2 || c->size == 1 || from_checkpoint || o->stop_after || o->checkpoint_every || o->spread.decomp)
    return c->size;
  return 0;
}

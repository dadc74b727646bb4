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
#include "progress.h"

static void marker(const char *dir, int64_t r, char *path, size_t n) {
  snprintf(path, n, "%.1000s/.survey/run%06lld.done", dir, (long long)r + 1);
}

/* The marker's first 16 bytes: a tag and the FNV-1a hash of the input file's bytes, so that a
 * resumed survey knows the runs of another input (or of an older gpustencil) from its own. */
static const char kTag[8] = {'G', 'S', 'S', 'V', 'R', 'U', 'N', '1'};
enum { kHead = 16 };

/* FNV-1a of the file's bytes; 0 where it cannot be read (then no marker matches). */
static uint64_t input_hash(const char *input) {
  FILE *f = fopen(input, "rb");
  if (!f) return 0;
  uint64_t h = 0xCBF29CE484222325ull;
  unsigned char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    h = gs_fnv1a(h, buf, got);
  const int bad = ferror(f);
  fclose(f);
  return bad ? 0 : h;
}

/* Rank 0: 1 where run r's marker is there and made from input, 0 where there is none, -1 (after
 * one line) where it is another input's or not a marker. */
static int marker_state(const char *dir, int64_t r, const char *input) {
  char path[1100];
  marker(dir, r, path, sizeof path);
  if (access(path, F_OK) != 0) return 0;
  FILE *f = fopen(path, "rb");
  unsigned char head[kHead];
  const int read = f && fread(head, 1, kHead, f) == kHead;
  if (f) fclose(f);
  uint64_t h = 0;
  for (int k = 0; k < 8; ++k)
    h |= (uint64_t)head[8 + k] << (8 * k);
  if (read && !memcmp(head, kTag, sizeof kTag) && h == input_hash(input) && h) return 1;
  gs_log_error("fdtd: --restart: %s: not the marker of a finished run of %s (another input, or changed since)", path,
               input);
  return -1;
}

void gs_survey_receiver_paths(const char *scene_path, const char *outdir, int64_t r, int64_t runs, char *h5,
                              char *csv) {
  char model[512];
  gs_model_name(scene_path, model, sizeof model);
  if (runs > 1) {
    snprintf(h5, 1700, "%s/%s%lld.h5", outdir, model, (long long)r + 1);
    snprintf(csv, 1300, "%s/receivers_run%03lld.csv", outdir, (long long)r + 1);
  } else {
    snprintf(h5, 1700, "%s/%s.h5", outdir, model);
    snprintf(csv, 1300, "%s/receivers.csv", outdir);
  }
}

int gs_survey_finished(const gs_comm *g, const char *dir, int64_t r, const char *input) {
  const int state = g->rank == 0 ? marker_state(dir, r, input) : 0;
  const int agreed = gs_comm_agree(state < 0 ? 2 : state, g->world); /* the largest: rank 0's */
  return agreed == 2 ? -1 : agreed;
}

int gs_survey_mark(const char *dir, int64_t r, const char *input, const float *col, size_t n) {
  char path[1100], folder[1100], err[1300];
  snprintf(folder, sizeof folder, "%.1000s/.survey", dir);
  marker(dir, r, path, sizeof path);
  if (gs_mkdirs(folder, 1) != 0) {
    gs_log_error("fdtd: %s: %s", folder, strerror(errno));
    return 1;
  }
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, sizeof err);
  unsigned char head[kHead];
  const uint64_t h = input_hash(input);
  memcpy(head, kTag, sizeof kTag);
  for (int k = 0; k < 8; ++k)
    head[8 + k] = (unsigned char)(h >> (8 * k));
  if (st == GS_OK)
    st = gs_tmpfile_commit(&t, fwrite(head, 1, kHead, t.fp) != kHead || (n && fwrite(col, sizeof *col, n, t.fp) != n),
                           0, err, sizeof err);
  if (st == GS_OK) return 0;
  gs_log_error("fdtd: %s", err);
  return 1;
}

int gs_survey_column(const char *dir, int64_t r, float *col, size_t n) {
  char path[1100];
  marker(dir, r, path, sizeof path);
  FILE *f = fopen(path, "rb");
  struct stat sb;
  const int ok = f && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
                 (size_t)sb.st_size == kHead + n * sizeof *col && fseek(f, kHead, SEEK_SET) == 0 &&
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

gs_survey_clock gs_survey_clock_start(int64_t first, int64_t stride, int64_t runs) {
  gs_survey_clock k = {.group = first, .mine = (runs - first + stride - 1) / stride, .t0 = gs_now_s()};
  return k;
}

void gs_survey_clock_skip(gs_survey_clock *k) {
  --k->mine;
}

void gs_survey_clock_done(gs_survey_clock *k, int64_t r, int64_t runs, double solve, double wall) {
  ++k->done;
  const int64_t ended = k->ended > k->done ? k->ended : k->done;
  const double left = (gs_now_s() - k->t0) / (double)ended * (double)(k->mine - ended);
  printf(
      "fdtd: run %lld of %lld done in %.3f s (%.3f s with its set-up); group %lld: %lld of its %lld runs, about %.0f "
      "s left\n",
      (long long)r + 1, (long long)runs, solve, wall, (long long)k->group + 1, (long long)k->done, (long long)k->mine,
      left);
}

void gs_survey_clock_together(gs_survey_clock *k, int64_t n) {
  k->ended = k->done + n;
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

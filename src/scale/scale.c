/* gpustencil scale: divide every pixel of a set of PNG images by a number.
 *
 * Plan (rank 0): list inputs, map them to outputs, refuse collisions and
 * existing outputs before any work. Every rank reads a share of the headers;
 * all sort the list largest first. Items are then claimed dynamically through
 * a one-sided counter (mpi/workq). Each rank runs a pool of threads: the
 * thread that owns an image decodes it strip by strip, scales each strip on
 * the backend (pinned buffer, its own stream), filters it, and hands the
 * compression of the strip to the pool; any thread compresses, the owner
 * writes the compressed pieces in order. Memory is bounded by the strip size
 * and the number of pieces in flight, not by the image size. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scale.h"

#include <stddef.h>

#include "fsutil.h"
#include "log.h"
#include "png_io.h"
#include "progress.h"
#include "workq.h"

/* Target bytes of samples per strip; the strip height depends only on the
 * image, so the output bytes do not depend on rank or thread counts. */
#define GS_STRIP_BYTES ((size_t)4 << 20)
#define GS_DICT_BYTES 32768u

const gs_scale_opts gs_scale_defaults = {.divisor = 0, .level = 1, .memory_mb = 256, .filter = "sub"};

// clang-format off
const gs_opt gs_scale_opt_table[] = {
    {"divisor",       'd', GS_OPT_DOUBLE, offsetof(gs_scale_opts, divisor),       "D",                              0,  0,       "divide every grey sample by D (> 0; below 1 brightens)"},
    {"output",        'o', GS_OPT_STRING, offsetof(gs_scale_opts, outdir),        "DIR",                            0,  0,       "output folder (created if missing)"},
    {"recursive",     'r', GS_OPT_FLAG,   offsetof(gs_scale_opts, recursive),     NULL,                             0,  0,       "descend into sub-folders of folder inputs"},
    {"overwrite",     0,   GS_OPT_FLAG,   offsetof(gs_scale_opts, overwrite),     NULL,                             0,  0,       "replace existing outputs"},
    {"skip-existing", 0,   GS_OPT_FLAG,   offsetof(gs_scale_opts, skip_existing), NULL,                             0,  0,       "skip inputs whose output exists (resume)"},
    {"png-level",     0,   GS_OPT_INT,    offsetof(gs_scale_opts, level),         "0..9",                           0,  9,       "zlib level of the outputs (default 1)"},
    {"png-filter",    0,   GS_OPT_CHOICE, offsetof(gs_scale_opts, filter),        "none|sub|up|avg|paeth|adaptive", 0,  0,       "PNG row filter of the outputs (default sub)"},
    {"threads",       0,   GS_OPT_INT,    offsetof(gs_scale_opts, threads),       "N",                              1,  1024,    "threads per rank (default: the rank's bound cores)"},
    {"memory",        0,   GS_OPT_INT,    offsetof(gs_scale_opts, memory_mb),     "MB",                             16, 1 << 20, "memory budget per rank for strips in flight (256)"},
    {"progress",      0,   GS_OPT_FLAG,   offsetof(gs_scale_opts, progress),      NULL,                             0,  0,       "show progress on rank 0 (default when a terminal)"},
    {"shard",         0,   GS_OPT_STRING, offsetof(gs_scale_opts, shard),         "K/N",                            0,  0,       "process only the inputs whose position in the sorted list is K modulo N (array jobs)"},
    {NULL,            0,   0,             0,                                      NULL,                             0,  0,       NULL},
};
// clang-format on

/* "K/N": decimal digits only, 0 <= K < N <= 2^31 (sscanf's %ld would
 * quietly clamp "0/99999999999999999999"). 0, or -1 for anything else. */
static int parse_shard(const char *text, long *k, long *n) {
  long v[2];
  const char *p = text;
  for (int i = 0; i < 2; ++i) {
    char *end;
    if (*p < '0' || *p > '9') return -1;
    errno = 0;
    v[i] = strtol(p, &end, 10);
    if (errno || v[i] > (1L << 31) || *end != (i == 0 ? '/' : '\0')) return -1;
    p = end + 1;
  }
  if (v[1] < 1 || v[0] >= v[1]) return -1;
  *k = v[0];
  *n = v[1];
  return 0;
}

int gs_scale_check(const void *opts, int argc, char **argv, char *err, size_t errlen) {
  const gs_scale_opts *o = opts;
  (void)argv;
  if (!(o->divisor > 0)) {
    snprintf(err, errlen, "--divisor is required and must be > 0");
    return 1;
  }
  float inv = (float)(1.0 / o->divisor);
  if (!isfinite(inv)) {
    snprintf(err, errlen, "--divisor: %g is too small (1/D must be a finite float)", o->divisor);
    return 1;
  }
  if (!o->outdir) {
    snprintf(err, errlen, "-o/--output DIR is required");
    return 1;
  }
  if (argc < 1) {
    snprintf(err, errlen, "no input files or folders");
    return 1;
  }
  long shard_k, shard_n;
  if (o->shard && parse_shard(o->shard, &shard_k, &shard_n) != 0) {
    snprintf(err, errlen, "--shard: '%s' is not K/N with 0 <= K < N <= 2^31", o->shard);
    return 1;
  }
  if (o->overwrite && o->skip_existing) {
    snprintf(err, errlen, "--overwrite and --skip-existing exclude each other");
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ plan */

typedef struct item {
  char *in, *out;
} item;

typedef struct plan {
  const gs_scale_opts *o;
  item *items;
  size_t n, cap;
  int64_t skipped;
  int64_t failed; /* what the walk could not read (said on one line each) */
} plan;

/* A folder being walked and the folders above it (device and inode): a link back to one of them
 * is a cycle. */
typedef struct walk_dir {
  dev_t dev;
  ino_t ino;
  const char *path;
  const struct walk_dir *up;
} walk_dir;

/* Rank 0: what the walk cannot read, said on one line ("PATH: reason", as a failed image) and
 * counted as a failure in the summary; the rest goes on. */
static void walk_failed(plan *p, const char *path, const char *why) {
  fprintf(stderr, "%s: %s\n", path, why);
  fflush(stderr);
  p->failed++;
}

static void plan_add(plan *p, const char *in, const char *out) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->items = gs_xrealloc(p->items, p->cap * sizeof *p->items);
  }
  p->items[p->n].in = gs_xstrdup(in);
  p->items[p->n].out = gs_xstrdup(out);
  p->n++;
}

static int has_png_ext(const char *name) {
  size_t n = strlen(name);
  return n > 4 && strcasecmp(name + n - 4, ".png") == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *a, const char *b) {
  size_t la = strlen(a);
  char *s = gs_xmalloc(la + strlen(b) + 2);
  sprintf(s, "%s%s%s", a, (la && a[la - 1] == '/') ? "" : "/", b);
  return s;
}

static int walk(plan *p, const walk_dir *at, const char *rel, char *err, size_t errlen);

/* One entry of a folder being walked: a PNG file (or what is named like one: a FIFO, a dangling
 * link, a file that cannot be read fails as an input, with its reason), a folder to walk with
 * --recursive (a link back to a folder above is a cycle: named, not followed), or nothing. */
static int walk_entry(plan *p, const walk_dir *at, const char *name, const char *path, const char *r, char *err,
                      size_t errlen) {
  const gs_scale_opts *o = p->o;
  struct stat sb;
  if (stat(path, &sb) != 0) {
    const int e = errno;
    if (has_png_ext(name)) {
      char *out = join(o->outdir, r);
      plan_add(p, path, out); /* fails when opened, with the reason */
      free(out);
    } else if (o->recursive && lstat(path, &sb) == 0 && !S_ISLNK(sb.st_mode)) {
      walk_failed(p, path, strerror(e)); /* perhaps a folder: it cannot be walked */
    }
    return 0;
  }
  if (S_ISDIR(sb.st_mode)) {
    if (!o->recursive) return 0;
    for (const walk_dir *d = at; d; d = d->up)
      if (d->dev == sb.st_dev && d->ino == sb.st_ino) {
        char why[1200];
        snprintf(why, sizeof why, "a link back to %.1100s (a cycle): not followed", d->path);
        walk_failed(p, path, why);
        return 0;
      }
    const walk_dir sub = {sb.st_dev, sb.st_ino, path, at};
    return walk(p, &sub, r, err, errlen);
  }
  if (has_png_ext(name)) { /* a FIFO or device named *.png fails as an input, with its reason */
    char *out = join(o->outdir, r);
    plan_add(p, path, out);
    free(out);
  }
  return 0;
}

/* Adds the PNG files under folder at (sorted by name); rel is the path below the input folder.
 * Returns 0, or -1 with err when the input folder itself cannot be read (a folder below it that
 * cannot is one failure). */
static int walk(plan *p, const walk_dir *at, const char *rel, char *err, size_t errlen) {
  DIR *d = opendir(at->path);
  if (!d) {
    if (!at->up) {
      snprintf(err, errlen, "%s: %s", at->path, strerror(errno));
      return -1;
    }
    walk_failed(p, at->path, strerror(errno));
    return 0;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue; /* hidden files, our own temporaries */
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      names = gs_xrealloc(names, cap * sizeof *names);
    }
    names[n] = gs_xstrdup(e->d_name);
    ++n;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    char *path = join(at->path, names[i]);
    char *r = *rel ? join(rel, names[i]) : gs_xstrdup(names[i]);
    rc = walk_entry(p, at, names[i], path, r, err, errlen);
    free(path);
    free(r);
  }
  for (size_t i = 0; i < n; ++i)
    free(names[i]);
  free(names);
  return rc;
}

static int cmp_item_out(const void *a, const void *b) {
  return strcmp(((const item *)a)->out, ((const item *)b)->out);
}

/* A file by its device and inode (the same file under any name). */
typedef struct {
  dev_t dev;
  ino_t ino;
} file_id;

static int cmp_file_id(const void *a, const void *b) {
  const file_id *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Whether some output already exists as one of the inputs (-o the inputs'
 * own folder, or a link to an input): written, with --overwrite, it would
 * destroy an input, perhaps before it is read (tests/cli_bad_inputs.sh).
 * 0, or -1 and a line in err. */
static int output_is_an_input(const plan *p, char *err, size_t errlen) {
  file_id *ids = gs_xmalloc((p->n ? p->n : 1) * sizeof *ids);
  size_t n = 0;
  for (size_t i = 0; i < p->n; ++i) {
    struct stat sb;
    if (stat(p->items[i].in, &sb) == 0) ids[n++] = (file_id){sb.st_dev, sb.st_ino};
  }
  qsort(ids, n, sizeof *ids, cmp_file_id);
  int found = 0;
  for (size_t i = 0; i < p->n && !found; ++i) {
    struct stat sb;
    if (stat(p->items[i].out, &sb) != 0) continue;
    const file_id key = {sb.st_dev, sb.st_ino};
    if (bsearch(&key, ids, n, sizeof *ids, cmp_file_id)) {
      snprintf(err, errlen, "%s: the output would replace an input (choose another -o)", p->items[i].out);
      found = 1;
    }
  }
  free(ids);
  return found ? -1 : 0;
}

/* Rank 0: builds the plan; 0 or a one-line error in err. */
static int plan_build(plan *p, int argc, char **argv, char *err, size_t errlen) {
  const gs_scale_opts *o = p->o;
  for (int i = 0; i < argc; ++i) {
    struct stat sb;
    const int e = stat(argv[i], &sb) != 0 ? errno : 0;
    if (e && lstat(argv[i], &sb) == 0 && S_ISLNK(sb.st_mode)) { /* a dangling link fails as an input */
      const char *base = strrchr(argv[i], '/');
      char *out = join(o->outdir, base ? base + 1 : argv[i]);
      plan_add(p, argv[i], out);
      free(out);
      continue;
    }
    if (e) { /* a name that is not there: a usage error */
      snprintf(err, errlen, "%s: %s", argv[i], strerror(e));
      return -1;
    }
    if (S_ISDIR(sb.st_mode)) {
      const walk_dir top = {sb.st_dev, sb.st_ino, argv[i], NULL};
      if (walk(p, &top, "", err, errlen)) return -1;
    } else if (S_ISREG(sb.st_mode)) {
      const char *base = strrchr(argv[i], '/');
      char *out = join(o->outdir, base ? base + 1 : argv[i]);
      plan_add(p, argv[i], out);
      free(out);
    } else {
      snprintf(err, errlen, "%s: not a regular file or folder", argv[i]);
      return -1;
    }
  }
  if (p->n == 0 && !p->failed) {
    snprintf(err, errlen, "no PNG files found in the inputs%s", o->recursive ? "" : " (folders: try --recursive)");
    return -1;
  }
  if (o->shard) { /* keep positions K, K+N, K+2N, ... of the list in input order */
    long k = 0, n = 1;
    parse_shard(o->shard, &k, &n); /* checked by gs_scale_check */
    size_t kept = 0;
    for (size_t i = 0; i < p->n; ++i) {
      if ((long)(i % (size_t)n) == k) {
        p->items[kept++] = p->items[i];
      } else {
        free(p->items[i].in);
        free(p->items[i].out);
      }
    }
    p->n = kept;
  }
  /* Two inputs for one output: refuse before any work. */
  item *sorted = gs_xmalloc(p->n * sizeof *sorted);
  memcpy(sorted, p->items, p->n * sizeof *sorted);
  qsort(sorted, p->n, sizeof *sorted, cmp_item_out);
  for (size_t i = 1; i < p->n; ++i)
    if (strcmp(sorted[i].out, sorted[i - 1].out) == 0) {
      snprintf(err, errlen, "%s and %s both map to %s", sorted[i - 1].in, sorted[i].in, sorted[i].out);
      free(sorted);
      return -1;
    }
  free(sorted);
  if (output_is_an_input(p, err, errlen)) return -1;
  /* Existing outputs: skip, replace later, or refuse. */
  size_t kept = 0, exist = 0;
  const char *first = NULL;
  for (size_t i = 0; i < p->n; ++i) {
    struct stat sb;
    if (!o->overwrite && stat(p->items[i].out, &sb) == 0) {
      if (o->skip_existing) {
        free(p->items[i].in);
        free(p->items[i].out);
        p->skipped++;
        continue;
      }
      if (!exist++) first = p->items[i].out;
    }
    p->items[kept++] = p->items[i];
  }
  if (exist) {
    snprintf(err, errlen, "%s: exists%s (use --overwrite or --skip-existing)", first,
             exist > 1 ? " with other outputs" : "");
    return -1;
  }
  p->n = kept;
  return 0;
}

/* Rank 0 builds, everybody receives; returns 0 or 1 (error printed). */
static int plan_share(plan *p, const gs_comm *c, int argc, char **argv) {
  char err[1024] = "";
  int64_t meta[4] = {0, 0, 0, 0}; /* status, bytes, skipped, failed */
  char *buf = NULL;
  if (c->rank == 0) {
    meta[0] = plan_build(p, argc, argv, err, sizeof err) ? 1 : 0;
    if (meta[0]) gs_log_error("scale: %s", err);
    size_t bytes = 0;
    for (size_t i = 0; i < p->n; ++i)
      bytes += strlen(p->items[i].in) + strlen(p->items[i].out) + 2;
    meta[1] = (int64_t)bytes;
    meta[2] = p->skipped;
    meta[3] = p->failed;
    buf = gs_xmalloc(bytes + 1);
    char *w = buf;
    for (size_t i = 0; i < p->n; ++i) {
      w = stpcpy(w, p->items[i].in) + 1;
      w = stpcpy(w, p->items[i].out) + 1;
    }
  }
  GS_MPI_CHECK(MPI_Bcast(meta, 4, MPI_INT64_T, 0, c->world));
  if (meta[0]) {
    free(buf);
    return 1;
  }
  if (meta[1] > INT32_MAX) gs_fatal("plan_share", "the list of inputs exceeds 2 GiB", __FILE__, __LINE__);
  if (c->rank != 0) {
    buf = gs_xmalloc((size_t)meta[1] + 1);
  }
  GS_MPI_CHECK(MPI_Bcast(buf, (int)meta[1], MPI_CHAR, 0, c->world));
  if (c->rank != 0) {
    p->skipped = meta[2];
    p->failed = meta[3];
    for (const char *r = buf; r < buf + meta[1];) {
      const char *out = r + strlen(r) + 1;
      plan_add(p, r, out);
      r = out + strlen(out) + 1;
    }
  }
  free(buf);
  return 0;
}

/* --------------------------------------------------------------- the pool */

typedef struct piece {
  struct piece *next_ready; /* pool queue */
  struct piece *next_in_job;
  uint8_t *data; /* filtered rows */
  size_t len;
  uint8_t dict[GS_DICT_BYTES];
  size_t dictlen;
  int first, last;
  uint8_t *out;
  size_t outlen;
  uint32_t adler;
  gs_status st;
  int done;
} piece;

typedef struct job {
  piece *head, *tail; /* in stream order, not yet written */
  int inflight;
} job;

typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  piece *ready_head, *ready_tail;
  int64_t *images; /* queue of plan indices */
  size_t nimages, images_cap;
  int no_more_images;
  int active;       /* images being processed */
  int inflight;     /* pieces not yet written, over all images */
  int max_inflight; /* memory bound */
  int per_image;    /* pieces per image in flight */
  int running;      /* worker threads alive */
  int64_t finished; /* images ended (done or failed) since the last report */
  /* totals */
  int64_t done, failed;
  double pixels, sample_bytes, file_bytes;
  /* shared, read-only */
  const gs_backend *backend;
  int gpu;
  const plan *plan;
  const gs_scale_opts *o;
  gs_png_filter filter;
  int level;
} pool;

/* Takes one ready piece and compresses it; returns 0 when none was ready.
 * Called with the lock held; releases it while working. */
static int help_one(pool *pl, int level) {
  piece *pc = pl->ready_head;
  if (!pc) return 0;
  pl->ready_head = pc->next_ready;
  if (!pl->ready_head) pl->ready_tail = NULL;
  pthread_mutex_unlock(&pl->mu);
  pc->out = malloc(gs_png_deflate_bound(pc->len));
  pc->st = pc->out ? gs_png_deflate_piece(pc->data, pc->len, pc->dictlen ? pc->dict : NULL, pc->dictlen, level,
                                          pc->first, pc->last, pc->out, &pc->outlen, &pc->adler)
                   : GS_ERR_NOMEM;
  free(pc->data);
  pc->data = NULL;
  pthread_mutex_lock(&pl->mu);
  pc->done = 1;
  pthread_cond_broadcast(&pl->cv);
  return 1;
}

typedef struct worker {
  pool *pl;
  pthread_t th;
  uint8_t *host; /* staging (pinned on the GPU backend) */
  void *dev;
  size_t cap;
  gs_stream stream;
} worker;

typedef struct image_state {
  gs_png_reader *rd;
  gs_png_writer *wr;
  uint32_t adler;
  size_t total_len;
  int first_written;
  gs_status st;
  char err[512];
} image_state;

/* Writes the finished pieces at the head of the job, in order. Lock held. */
static void flush_ready(pool *pl, job *j, image_state *is) {
  while (j->head && j->head->done) {
    piece *pc = j->head;
    j->head = pc->next_in_job;
    if (!j->head) j->tail = NULL;
    pthread_mutex_unlock(&pl->mu);
    if (is->st == GS_OK && pc->st != GS_OK) {
      is->st = pc->st;
      snprintf(is->err, sizeof is->err, "compression failed: %s", gs_strerror(pc->st));
    }
    if (is->st == GS_OK) {
      is->st = gs_png_writer_idat(is->wr, pc->out, pc->outlen, is->err, sizeof is->err);
      is->adler = is->first_written ? gs_png_adler_combine(is->adler, pc->adler, pc->len) : pc->adler;
      is->first_written = 1;
    }
    free(pc->out);
    free(pc);
    pthread_mutex_lock(&pl->mu);
    j->inflight--;
    pl->inflight--;
    pthread_cond_broadcast(&pl->cv);
  }
}

static void ensure_stage(worker *w, size_t bytes) {
  if (bytes <= w->cap) return;
  const gs_backend *b = w->pl->backend;
  if (w->host) b->host_free(w->host);
  if (w->dev) b->dev_free(w->dev);
  w->host = b->host_alloc(bytes);
  w->dev = b->is_gpu ? b->dev_alloc(bytes) : NULL;
  w->cap = bytes;
}

static void scale_strip(worker *w, const gs_png_format *f, size_t bytes, gs_scale_params sp) {
  const gs_backend *b = w->pl->backend;
  size_t count = bytes / (size_t)(f->depth / 8);
  void *buf = b->is_gpu ? w->dev : w->host;
  if (b->is_gpu) b->copy_h2d(w->dev, w->host, bytes, w->stream);
  if (f->depth == 16)
    b->scale_u16(buf, buf, count, sp, w->stream);
  else
    b->scale_u8(buf, buf, count, sp, w->stream);
  if (b->is_gpu) b->copy_d2h(w->host, w->dev, bytes, w->stream);
  b->stream_sync(w->stream);
}

static void to_big_endian16(uint8_t *p, size_t bytes) {
  const uint16_t one = 1;
  if (*(const uint8_t *)&one == 0) return;
  for (size_t i = 0; i + 1 < bytes; i += 2) {
    uint8_t t = p[i];
    p[i] = p[i + 1];
    p[i + 1] = t;
  }
}

/* The filtered stream of one image as it is cut into pieces: filters look at
 * the previous row, and each piece's compression is primed with the stream's
 * last 32 KiB before it. */
typedef struct strip_cursor {
  size_t rowbytes;
  int bpp;
  uint8_t *prev; /* last row of the previous strip, unfiltered */
  uint8_t *tail; /* last GS_DICT_BYTES (or fewer) of the filtered stream */
  size_t taillen;
} strip_cursor;

/* Opens the input and the output (and the output's folder). */
static void image_open(const item *it, image_state *is, gs_png_format *f) {
  is->st = gs_png_reader_open(it->in, &is->rd, is->err, sizeof is->err);
  if (is->st != GS_OK) return;
  *f = *gs_png_reader_format(is->rd);
  if (gs_mkdirs(it->out, 0) != 0) {
    snprintf(is->err, sizeof is->err, "cannot create the folder of %s: %s", it->out, strerror(errno));
    is->st = GS_ERR_IO;
    return;
  }
  is->st = gs_png_writer_open(it->out, f, &is->wr, is->err, sizeof is->err);
}

/* Waits, compressing others' pieces meanwhile, until the image and the pool
 * may have one more piece in flight (the memory bound), writing this image's
 * finished pieces as they come. Lock NOT held. */
static void wait_for_room(pool *pl, job *j, image_state *is) {
  pthread_mutex_lock(&pl->mu);
  flush_ready(pl, j, is);
  while (is->st == GS_OK && (j->inflight >= pl->per_image || pl->inflight >= pl->max_inflight)) {
    if (!help_one(pl, pl->level)) pthread_cond_wait(&pl->cv, &pl->mu);
    flush_ready(pl, j, is);
  }
  pthread_mutex_unlock(&pl->mu);
}

/* The scaled strip at rows y..y+rows of an image of height rows, filtered
 * into a new piece with its dictionary; advances the cursor. */
static piece *piece_from_strip(const pool *pl, strip_cursor *sc, const uint8_t *strip, uint32_t y, uint32_t rows,
                               uint32_t height) {
  size_t rowbytes = sc->rowbytes;
  piece *pc = gs_xcalloc(1, sizeof *pc);
  pc->len = (rowbytes + 1) * rows;
  pc->data = gs_xmalloc(pc->len);
  gs_png_filter_rows(strip, rows, rowbytes, sc->bpp, y ? sc->prev : NULL, pl->filter, pc->data);
  memcpy(sc->prev, strip + (size_t)(rows - 1) * rowbytes, rowbytes);
  pc->first = y == 0;
  pc->last = y + rows == height;
  memcpy(pc->dict, sc->tail, sc->taillen);
  pc->dictlen = sc->taillen;
  /* New dictionary tail: last 32 KiB of the filtered stream so far. */
  if (pc->len >= GS_DICT_BYTES) {
    memcpy(sc->tail, pc->data + pc->len - GS_DICT_BYTES, GS_DICT_BYTES);
    sc->taillen = GS_DICT_BYTES;
  } else {
    size_t keep = sc->taillen + pc->len > GS_DICT_BYTES ? GS_DICT_BYTES - pc->len : sc->taillen;
    memmove(sc->tail, sc->tail + sc->taillen - keep, keep);
    memcpy(sc->tail + keep, pc->data, pc->len);
    sc->taillen = keep + pc->len;
  }
  return pc;
}

/* Queues the piece for compression by any thread and for writing, in order,
 * by this image's owner. Lock NOT held. */
static void piece_hand_off(pool *pl, job *j, piece *pc) {
  pthread_mutex_lock(&pl->mu);
  if (j->tail)
    j->tail->next_in_job = pc;
  else
    j->head = pc;
  j->tail = pc;
  j->inflight++;
  pl->inflight++;
  if (pl->ready_tail)
    pl->ready_tail->next_ready = pc;
  else
    pl->ready_head = pc;
  pl->ready_tail = pc;
  pthread_cond_broadcast(&pl->cv);
  pthread_mutex_unlock(&pl->mu);
}

/* Reads, scales and filters the image strip by strip, handing each strip to
 * the pool; stops at the first error (in is). The strip height depends only
 * on the image, never on the rank or thread counts. */
static void image_strips(worker *w, job *j, image_state *is, const gs_png_format *f) {
  pool *pl = w->pl;
  strip_cursor sc = {.rowbytes = gs_png_row_bytes(f), .bpp = f->channels * f->depth / 8};
  uint32_t strip_rows = (uint32_t)(GS_STRIP_BYTES / sc.rowbytes);
  if (strip_rows == 0) strip_rows = 1;
  if (strip_rows > f->height) strip_rows = f->height;
  ensure_stage(w, sc.rowbytes * strip_rows);
  sc.prev = gs_xmalloc(sc.rowbytes);
  sc.tail = gs_xmalloc(GS_DICT_BYTES);
  gs_scale_params sp = gs_scale_params_make(pl->o->divisor, f->depth, f->channels);
  for (uint32_t y = 0; y < f->height && is->st == GS_OK; y += strip_rows) {
    uint32_t rows = f->height - y < strip_rows ? f->height - y : strip_rows;
    wait_for_room(pl, j, is);
    if (is->st != GS_OK) break;
    size_t bytes = sc.rowbytes * rows;
    is->st = gs_png_reader_rows(is->rd, w->host, rows, is->err, sizeof is->err);
    if (is->st != GS_OK) break;
    scale_strip(w, f, bytes, sp);
    if (f->depth == 16) to_big_endian16(w->host, bytes);
    piece_hand_off(pl, j, piece_from_strip(pl, &sc, w->host, y, rows, f->height));
  }
  free(sc.prev); /* the pieces hold copies of what they need */
  free(sc.tail);
}

/* Waits for (and writes) every piece of the image still in flight, also
 * after an error: they hold pool memory. Lock NOT held. */
static void drain_job(pool *pl, job *j, image_state *is) {
  pthread_mutex_lock(&pl->mu);
  flush_ready(pl, j, is);
  while (j->head) {
    if (!help_one(pl, pl->level)) pthread_cond_wait(&pl->cv, &pl->mu);
    flush_ready(pl, j, is);
  }
  pthread_mutex_unlock(&pl->mu);
}

/* Completes (or abandons) the output, reports a failure on one line, and
 * counts the image in the pool's totals. */
static void image_close(pool *pl, const item *it, image_state *is, const gs_png_format *f) {
  if (is->st == GS_OK) is->st = gs_png_reader_finish(is->rd, is->err, sizeof is->err);
  if (is->wr) {
    if (is->st == GS_OK)
      is->st = gs_png_writer_finish(is->wr, is->adler, pl->o->overwrite, is->err, sizeof is->err);
    else
      gs_png_writer_abort(is->wr);
  }
  gs_png_reader_close(is->rd);
  struct stat sb;
  double fbytes = stat(it->in, &sb) == 0 ? (double)sb.st_size : 0;
  if (is->st != GS_OK) {
    fprintf(stderr, "%s: %s\n", it->in, is->err); /* one line per failed file */
    fflush(stderr);
  }
  pthread_mutex_lock(&pl->mu);
  if (is->st == GS_OK) {
    pl->done++;
    pl->pixels += (double)f->width * f->height;
    pl->sample_bytes += (double)gs_png_row_bytes(f) * f->height;
    pl->file_bytes += fbytes;
  } else {
    pl->failed++;
  }
  pl->finished++;
  pl->active--;
  pthread_cond_broadcast(&pl->cv);
  pthread_mutex_unlock(&pl->mu);
}

/* Decodes, scales, filters and writes one image. Lock NOT held on entry. */
static void process_image(worker *w, size_t index) {
  pool *pl = w->pl;
  const item *it = &pl->plan->items[index];
  image_state is = {.st = GS_OK};
  job j = {0};
  gs_png_format f;
  memset(&f, 0, sizeof f);
  gs_fault_point("scale.image");
  image_open(it, &is, &f);
  if (is.st == GS_OK) image_strips(w, &j, &is, &f);
  drain_job(pl, &j, &is);
  image_close(pl, it, &is, &f);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  pool *pl = w->pl;
  if (pl->gpu >= 0) pl->backend->device_select(pl->gpu); /* the device is per thread */
  w->stream = pl->backend->stream_create(0);
  pthread_mutex_lock(&pl->mu);
  for (;;) {
    if (help_one(pl, pl->level)) continue;
    if (pl->nimages) {
      int64_t idx = pl->images[0];
      memmove(pl->images, pl->images + 1, --pl->nimages * sizeof *pl->images);
      pl->active++;
      pthread_cond_broadcast(&pl->cv); /* the main thread refills */
      pthread_mutex_unlock(&pl->mu);
      process_image(w, (size_t)idx);
      pthread_mutex_lock(&pl->mu);
      continue;
    }
    if (pl->no_more_images && pl->active == 0 && !pl->ready_head) break;
    pthread_cond_wait(&pl->cv, &pl->mu);
  }
  pl->running--;
  pthread_cond_broadcast(&pl->cv);
  pthread_mutex_unlock(&pl->mu);
  gs_png_thread_cleanup();
  pl->backend->stream_destroy(w->stream);
  if (w->host) pl->backend->host_free(w->host);
  if (w->dev) pl->backend->dev_free(w->dev);
  return NULL;
}

static int count_cpus(const char *list) {
  int n = 0;
  for (const char *p = list; *p;) {
    char *end;
    long a = strtol(p, &end, 10), b = a;
    if (end == p) break;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    n += (int)(b - a + 1);
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

static gs_png_filter parse_filter(const char *s) {
  static const char *const names[] = {"none", "sub", "up", "avg", "paeth", "adaptive"};
  for (int i = 0; i < 6; ++i)
    if (strcmp(s, names[i]) == 0) return (gs_png_filter)i;
  return GS_PNG_FILTER_SUB;
}

static int cmp_pair(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

static void plan_free(plan *p) {
  for (size_t i = 0; i < p->n; ++i) {
    free(p->items[i].in);
    free(p->items[i].out);
  }
  free(p->items);
  p->items = NULL;
  p->n = p->cap = 0;
}

/* Collective: rank 0 creates the output folder; 0 when every rank may go on,
 * 1 when it is missing (the error printed once). */
static int outdir_check(const gs_comm *c, const gs_scale_opts *o) {
  if (c->rank == 0 && gs_mkdirs(o->outdir, 1) != 0) {
    gs_log_error("scale: %s: %s", o->outdir, strerror(errno));
    /* fall through: agreed below */
  }
  struct stat sb;
  int bad_out = c->rank == 0 && (stat(o->outdir, &sb) != 0 || !S_ISDIR(sb.st_mode));
  return gs_comm_agree(bad_out, c->world);
}

/* Collective: the plan's indices, largest image first (ties in plan order),
 * so that the long images start early and the small ones fill the end. Every
 * rank reads a share of the headers and all learn all. */
static int64_t *order_largest_first(const plan *p, const gs_comm *c) {
  size_t n = p->n ? p->n : 1;
  int64_t *pixels = gs_xcalloc(n, sizeof *pixels), *order = gs_xmalloc(n * sizeof *order);
  for (size_t i = (size_t)c->rank; i < p->n; i += (size_t)c->size) {
    uint32_t w = 0, h = 0;
    char err[256];
    if (gs_png_peek(p->items[i].in, &w, &h, err, sizeof err) == GS_OK) pixels[i] = (int64_t)w * h;
  }
  if (p->n > (size_t)INT32_MAX) gs_fatal("scale", "more than 2^31 inputs", __FILE__, __LINE__);
  GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, pixels, (int)p->n, MPI_INT64_T, MPI_SUM, c->world));
  /* Stable insertion by size would be O(n^2); sort (size, index) pairs. */
  int64_t *keys = gs_xmalloc(2 * n * sizeof *keys);
  for (size_t i = 0; i < p->n; ++i) {
    keys[2 * i] = -pixels[i];
    keys[2 * i + 1] = (int64_t)i;
  }
  qsort(keys, p->n, 2 * sizeof *keys, cmp_pair);
  for (size_t i = 0; i < p->n; ++i)
    order[i] = keys[2 * i + 1];
  free(keys);
  free(pixels);
  return order;
}

/* An empty pool for nthreads workers; the bound on pieces in flight comes
 * from --memory (each holds up to a strip's filtered and compressed bytes and
 * a dictionary). */
static void pool_init(pool *pl, const gs_backend *b, int gpu, const plan *p, int nthreads) {
  const gs_scale_opts *o = p->o;
  memset(pl, 0, sizeof *pl);
  pthread_mutex_init(&pl->mu, NULL);
  pthread_cond_init(&pl->cv, NULL);
  pl->backend = b;
  pl->gpu = gpu;
  pl->o = o;
  pl->plan = p;
  pl->filter = parse_filter(o->filter);
  pl->level = (int)o->level;
  pl->per_image = nthreads + 2;
  pl->max_inflight = (int)((size_t)o->memory_mb * (1u << 20) / (2 * GS_STRIP_BYTES + GS_DICT_BYTES));
  if (pl->max_inflight < 2) pl->max_inflight = 2;
  pl->images_cap = (size_t)nthreads + 1;
  pl->images = gs_xmalloc(pl->images_cap * sizeof *pl->images);
}

static void pool_destroy(pool *pl) {
  free(pl->images);
  pthread_mutex_destroy(&pl->mu);
  pthread_cond_destroy(&pl->cv);
}

static worker *workers_start(pool *pl, int nthreads) {
  worker *ws = gs_xcalloc((size_t)nthreads, sizeof *ws);
  pl->running = nthreads;
  for (int i = 0; i < nthreads; ++i) {
    ws[i].pl = pl;
    if (pthread_create(&ws[i].th, NULL, worker_main, &ws[i]) != 0)
      gs_fatal("pthread_create", strerror(errno), __FILE__, __LINE__);
  }
  return ws;
}

static void workers_join(worker *ws, int nthreads) {
  for (int i = 0; i < nthreads; ++i)
    pthread_join(ws[i].th, NULL);
  free(ws);
}

/* The absolute CLOCK_REALTIME time ms milliseconds from now, for
 * pthread_cond_timedwait. */
static struct timespec deadline_in_ms(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ms * 1000000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000;
  }
  return ts;
}

/* The MPI thread's loop (only it calls MPI): keeps one image queued per idle
 * worker from the shared counter, reports finished images to it and to the
 * progress line, and serves the counter's one-sided traffic; returns when the
 * counter is empty and every worker has ended. */
static void feed_workers(pool *pl, gs_workq *q, const int64_t *order, gs_progress *prog, int nthreads) {
  pthread_mutex_lock(&pl->mu);
  for (;;) {
    int idle = nthreads - pl->active;
    if (!pl->no_more_images && (int)pl->nimages < (idle > 0 ? idle : 1) && pl->nimages < pl->images_cap) {
      pthread_mutex_unlock(&pl->mu);
      int64_t k = gs_workq_next(q);
      pthread_mutex_lock(&pl->mu);
      if (k < 0)
        pl->no_more_images = 1;
      else
        pl->images[pl->nimages++] = order[k];
      pthread_cond_broadcast(&pl->cv);
      continue;
    }
    int64_t fin = pl->finished;
    pl->finished = 0;
    double megapixels = pl->pixels * 1e-6;
    int all_done = pl->no_more_images && pl->running == 0;
    pthread_mutex_unlock(&pl->mu);
    gs_workq_add_done(q, fin);
    if (prog) gs_progress_update(prog, gs_workq_done(q), megapixels);
    gs_workq_poll(q);
    if (all_done) break;
    pthread_mutex_lock(&pl->mu);
    struct timespec ts = deadline_in_ms(2);
    pthread_cond_timedwait(&pl->cv, &pl->mu, &ts);
  }
}

/* Collective: sums the ranks' totals and prints the summary line on rank 0;
 * returns the number of images that failed on any rank. */
static double report_summary(const gs_comm *c, const pool *pl, const plan *p, double secs, int nthreads) {
  double local[5] = {(double)pl->done, (double)pl->failed, pl->pixels, pl->sample_bytes, pl->file_bytes}, total[5];
  GS_MPI_CHECK(MPI_Reduce(local, total, 5, MPI_DOUBLE, MPI_SUM, 0, c->world));
  GS_MPI_CHECK(MPI_Bcast(total, 5, MPI_DOUBLE, 0, c->world));
  total[1] += (double)p->failed; /* what the walk could not read (rank 0's, shared with the plan) */
  if (c->rank == 0) {
    printf("scale: %.0f done, %" PRId64 " skipped, %.0f failed in %.2f s on %d rank(s) x %d thread(s): "
           "%.1f MP/s, %.1f MB/s of samples, %.1f MB/s of PNG input (%s level %d)\n",
           total[0], p->skipped, total[1], secs, c->size, nthreads, total[2] / secs * 1e-6, total[3] / secs * 1e-6,
           total[4] / secs * 1e-6, gs_png_deflate_engine_at(pl->level), pl->level);
    fflush(stdout);
  }
  return total[1];
}

/* Strips and their compressed pieces (a few MiB each) are allocated and freed
 * on every thread all the time. glibc serves blocks that size by mmap and
 * trims freed heap tops, so each new piece faulted its pages in again, zeroed:
 * measured at a third of one thread's time (docs/performance.md, "PNG codec").
 * Keeping them on the heap lets freed pieces be reused; what is held stays
 * bounded by the pieces in flight (--memory). */
static void keep_piece_memory(void) {
#ifdef __GLIBC__
  if (!mallopt(M_MMAP_THRESHOLD, 64 << 20) || !mallopt(M_TRIM_THRESHOLD, 1 << 30))
    gs_log_debug("scale: mallopt failed; pieces stay on mmap");
#endif
}

int gs_scale_run(const gs_comm *c, const gs_backend *b, int gpu, const char *cpuset, const gs_scale_opts *o, int argc,
                 char **argv) {
  plan p = {.o = o};
  keep_piece_memory();
  if (plan_share(&p, c, argc, argv) || outdir_check(c, o)) {
    plan_free(&p);
    return GS_EXIT_USAGE;
  }
  int64_t *order = order_largest_first(&p, c);
  int nthreads = o->threads ? (int)o->threads : count_cpus(cpuset);
  if (nthreads < 1) nthreads = 1;
  pool pl;
  pool_init(&pl, b, gpu, &p, nthreads);

  gs_workq *q = gs_workq_create(c->world, (int64_t)p.n);
  int show = o->progress || (c->rank == 0 && isatty(2));
  gs_progress *prog = c->rank == 0 && show ? gs_progress_create("scale", (int64_t)p.n, "files") : NULL;
  double t0 = gs_now_s();
  worker *ws = workers_start(&pl, nthreads);
  feed_workers(&pl, q, order, prog, nthreads);
  workers_join(ws, nthreads);
  gs_workq_destroy(q);
  double secs = gs_now_s() - t0;
  if (prog) gs_progress_end(prog);

  double failed = report_summary(c, &pl, &p, secs, nthreads);
  pool_destroy(&pl);
  free(order);
  plan_free(&p);
  return failed > 0 ? GS_EXIT_PARTIAL : GS_EXIT_OK;
}

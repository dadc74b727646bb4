/* gs_bench_codec: the codec ceiling of a PNG set on one core. For each file,
 * its zlib stream (the IDAT chunks' data) is inflated with ISA-L into the
 * filtered rows, and those rows are deflated with ISA-L at level 1 (the
 * output side's work at --png-level 1), each timed alone on this thread, the
 * files read into memory first. Prints Mpixel/s of inflate, deflate and both.
 * With --levels it also compresses the rows in 4 MiB pieces through
 * gs_png_deflate_piece at every --png-level and prints speed and size.
 * usage: gs_bench_codec [--levels] [--reps N] FILE.png... */
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "png_io.h"
#include "png_isal.h"

typedef struct image {
  uint8_t *z; /* the zlib stream */
  size_t zlen;
  uint8_t *rows; /* filtered rows */
  size_t len;
  double pixels;
} image;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Loads path and gathers its IDAT data; the filtered size from IHDR. */
static int load(const char *path, image *im) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  fseek(fp, 0, SEEK_END);
  size_t n = (size_t)ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *d = malloc(n);
  if (!d || fread(d, 1, n, fp) != n) {
    fclose(fp);
    free(d);
    return -1;
  }
  fclose(fp);
  im->z = malloc(n);
  im->zlen = 0;
  static const int chans[7] = {1, 0, 3, 1, 2, 0, 4};
  uint32_t w = rd32(d + 16), h = rd32(d + 20);
  size_t bpp_bits = (size_t)chans[d[25] % 7] * d[24];
  im->len = ((size_t)w * bpp_bits + 7) / 8 * h + h;
  im->pixels = (double)w * h;
  for (size_t p = 8; p + 12 <= n;) {
    uint32_t len = rd32(d + p);
    if (!memcmp(d + p + 4, "IDAT", 4)) memcpy(im->z + im->zlen, d + p + 8, len), im->zlen += len;
    p += 12 + (size_t)len;
  }
  free(d);
  im->rows = malloc(im->len);
  return im->rows ? 0 : -1;
}

static int inflate_one(image *im) {
  struct inflate_state s;
  isal_inflate_init(&s);
  s.crc_flag = ISAL_ZLIB;
  s.next_in = im->z;
  s.avail_in = (uint32_t)im->zlen;
  s.next_out = im->rows;
  s.avail_out = (uint32_t)im->len;
  int rc = isal_inflate(&s);
  return rc == ISAL_DECOMP_OK && s.avail_out == 0 && s.block_state == ISAL_BLOCK_FINISH ? 0 : -1;
}

/* Compresses len bytes at in, a piece of a stream (first and last say which
 * ends it holds), into out (cap bytes) at level; *olen its size. 0 on success. */
typedef int (*compress_fn)(const uint8_t *in, size_t len, int level, int first, int last, uint8_t *out, size_t cap,
                           size_t *olen);

static int png_level(const uint8_t *in, size_t len, int level, int first, int last, uint8_t *out, size_t cap,
                     size_t *olen) {
  uint32_t adler;
  return gs_png_deflate_piece(in, len, NULL, 0, level, first, last, out, olen, &adler) == GS_OK ? 0 : -1;
}

static int isal_level(const uint8_t *in, size_t len, int level, int first, int last, uint8_t *out, size_t cap,
                      size_t *olen) {
  int rc = 0;
  if (gs_png_isal_deflate(in, len, level, last, out, cap, olen, &rc) == GS_OK) return 0;
  return rc ? rc : -1; /* ISA-L's code where it gave one */
}

typedef struct pieces {
  image *ims;
  int n, reps;
  size_t piece, in; /* piece size; bytes of rows of all images */
  uint8_t *out;     /* gs_png_deflate_bound(piece) bytes */
} pieces;

/* Compresses every image's rows piece by piece with fn at level, reps times,
 * and prints the speed and the output size under label. */
static void time_level(const pieces *b, compress_fn fn, int level, const char *label) {
  size_t total = 0;
  double t0 = now();
  for (int r = 0; r < b->reps; ++r)
    for (int i = 0; i < b->n; ++i) {
      const image *im = &b->ims[i];
      for (size_t p = 0; p < im->len; p += b->piece) {
        size_t len = im->len - p < b->piece ? im->len - p : b->piece, olen = 0;
        int rc =
            fn(im->rows + p, len, level, p == 0, p + len == im->len, b->out, gs_png_deflate_bound(b->piece), &olen);
        if (rc != 0) {
          fprintf(stderr, "%s: compression failed (%d)\n", label, rc);
          exit(1);
        }
        if (r == 0) total += olen;
      }
    }
  double secs = (now() - t0) / b->reps;
  printf("  %-26s: %8.1f MB/s of rows, output %6.2f%% of the rows\n", label, (double)b->in / secs * 1e-6,
         100.0 * (double)total / (double)b->in);
}

static void levels(image *ims, int n, int reps) {
  pieces b = {ims, n, reps, (size_t)4 << 20, 0, NULL};
  for (int i = 0; i < n; ++i)
    b.in += ims[i].len;
  b.out = malloc(gs_png_deflate_bound(b.piece));
  char label[64];
  for (int level = 0; level <= 9; ++level) {
    snprintf(label, sizeof label, "--png-level %d (%-10s)", level, gs_png_deflate_engine_at(level));
    time_level(&b, png_level, level, label);
  }
  /* ISA-L's own levels 0..3 on the same pieces, whether or not a --png-level maps to them. */
  for (int level = 0; level <= 3; ++level) {
    snprintf(label, sizeof label, "ISA-L level %d", level);
    time_level(&b, isal_level, level, label);
  }
  free(b.out);
  gs_png_thread_cleanup();
}

int main(int argc, char **argv) {
  int reps = 3, lv = 0, a = 1;
  for (; a < argc && argv[a][0] == '-'; ++a) {
    if (!strcmp(argv[a], "--levels")) lv = 1;
    if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
  }
  int n = argc - a;
  if (n <= 0) {
    fprintf(stderr, "usage: gs_bench_codec [--levels] [--reps N] FILE.png...\n");
    return 2;
  }
  image *ims = calloc((size_t)n, sizeof *ims);
  double pixels = 0, tin = 0, tout = 0;
  size_t zin = 0, zout = 0, raw = 0;
  for (int i = 0; i < n; ++i) {
    if (load(argv[a + i], &ims[i]) != 0 || inflate_one(&ims[i]) != 0) {
      fprintf(stderr, "gs_bench_codec: %s: cannot read or inflate\n", argv[a + i]);
      return 1;
    }
    pixels += ims[i].pixels;
    zin += ims[i].zlen;
    raw += ims[i].len;
  }
  uint8_t *out = NULL;
  size_t cap = 0;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int i = 0; i < n; ++i)
      inflate_one(&ims[i]);
    double t1 = now();
    zout = 0;
    for (int i = 0; i < n; ++i) {
      size_t need = gs_png_deflate_bound(ims[i].len), olen = 0;
      int rc = 0;
      if (need > cap) free(out), out = malloc(cap = need);
      if (gs_png_isal_deflate(ims[i].rows, ims[i].len, 1, 1, out, cap, &olen, &rc) != GS_OK) {
        fprintf(stderr, "gs_bench_codec: ISA-L deflate failed (%d)\n", rc);
        return 1;
      }
      zout += olen;
    }
    double t2 = now();
    if (r == 0 || t1 - t0 < tin) tin = t1 - t0;
    if (r == 0 || t2 - t1 < tout) tout = t2 - t1;
  }
  printf("codec ceiling, one core, %d files, %.1f Mpixel, %.1f MB of rows (best of %d):\n", n, pixels * 1e-6,
         (double)raw * 1e-6, reps);
  printf("  ISA-L inflate:          %8.1f Mpixel/s (%.1f MB in, %.1f MB/s of rows)\n", pixels / tin * 1e-6,
         (double)zin * 1e-6, (double)raw / tin * 1e-6);
  printf("  ISA-L deflate level 1:  %8.1f Mpixel/s (%.1f MB out, %.1f MB/s of rows)\n", pixels / tout * 1e-6,
         (double)zout * 1e-6, (double)raw / tout * 1e-6);
  printf("  ceiling (both):         %8.1f Mpixel/s\n", pixels / (tin + tout) * 1e-6);
  if (lv) levels(ims, n, reps);
  for (int i = 0; i < n; ++i)
    free(ims[i].z), free(ims[i].rows);
  free(ims);
  free(out);
  gs_png_isal_thread_cleanup();
  return 0;
}

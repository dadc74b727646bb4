/* The fast read path against libpng, the reference: the same files, good and
 * broken, through both. libpng and the default reader (fast path with libpng
 * deciding on every problem) must agree exactly: same format and samples, or
 * both refuse. The fast path alone may refuse more than libpng, never accept
 * what libpng refuses, and never give other samples. Broken files: every
 * truncation, flipped bytes with and without repaired CRCs, corrupt deflate
 * data, a wrong Adler-32, wrong chunk lengths, huge dimensions, a bad filter
 * byte, palette indices past the palette, added metadata chunks, and a fixed
 * seed of random mutations (a small fuzz run; GS_FUZZ_ITERS sets how many).
 * usage: test_png_read WORKDIR */
#include <errno.h>
#include <png.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "check.h"
#include "png_io.h"
#include "pnggen.h"

typedef struct result {
  gs_status st;
  gs_png_format f;
  uint8_t *pix;
  size_t n;
  char err[512];
  char engine[16];
} result;

static void decode(const char *path, gs_png_read_engine e, uint32_t strip, result *res) {
  memset(res, 0, sizeof *res);
  gs_png_reader *r = NULL;
  res->st = gs_png_reader_open_with(path, e, &r, res->err, sizeof res->err);
  if (res->st != GS_OK) return;
  res->f = *gs_png_reader_format(r);
  snprintf(res->engine, sizeof res->engine, "%s", gs_png_reader_engine(r));
  size_t row = gs_png_row_bytes(&res->f);
  res->n = row * res->f.height;
  res->pix = malloc(res->n ? res->n : 1);
  for (uint32_t y = 0; y < res->f.height && res->st == GS_OK; y += strip) {
    uint32_t k = res->f.height - y < strip ? res->f.height - y : strip;
    res->st = gs_png_reader_rows(r, res->pix + (size_t)y * row, k, res->err, sizeof res->err);
  }
  if (res->st == GS_OK) res->st = gs_png_reader_finish(r, res->err, sizeof res->err);
  gs_png_reader_close(r);
  if (res->st != GS_OK) {
    free(res->pix);
    res->pix = NULL;
  }
}

static int same(const result *a, const result *b) {
  if ((a->st == GS_OK) != (b->st == GS_OK)) return 0;
  if (a->st != GS_OK) return 1;
  return !memcmp(&a->f, &b->f, sizeof a->f) && a->n == b->n && !memcmp(a->pix, b->pix, a->n);
}

static int n_fast_served, n_fast_refused_lib_ok, n_both_refused;

/* Checks one file; want_fast: the fast path must serve it (a good common file). */
static void compare(const char *path, const char *what, int want_fast) {
  static const uint32_t strips[] = {1, 7, 1000000};
  result lib, aut, fast;
#ifndef GS_HAVE_ISAL
  want_fast = 0;
#endif
  for (int s = 0; s < 3; ++s) {
    decode(path, GS_PNG_READ_LIBPNG, strips[s], &lib);
    decode(path, GS_PNG_READ_AUTO, strips[s], &aut);
    decode(path, GS_PNG_READ_FAST, strips[s], &fast);
    CHECKF(same(&lib, &aut), "%s (strip %u): libpng %s '%s', default reader %s '%s'", what, strips[s],
           lib.st ? "refuses" : "accepts", lib.err, aut.st ? "refuses" : "accepts", aut.err);
    if (fast.st == GS_OK) {
      CHECKF(same(&lib, &fast), "%s (strip %u): the fast path accepts with other samples or refusal: libpng '%s'", what,
             strips[s], lib.err);
    }
    if (want_fast) {
      CHECKF(fast.st == GS_OK, "%s: the fast path refuses a good file: %s", what, fast.err);
      CHECKF(lib.st == GS_OK, "%s: libpng refuses a good file: %s", what, lib.err);
      CHECKF(!strcmp(aut.engine, "isa-l"), "%s: served by %s", what, aut.engine);
    }
    if (s == 0) {
      n_fast_served += fast.st == GS_OK;
      n_fast_refused_lib_ok += fast.st != GS_OK && lib.st == GS_OK;
      n_both_refused += fast.st != GS_OK && lib.st != GS_OK;
      if (getenv("GS_VERBOSE"))
        printf("  %-40s libpng: %s | fast: %s | default: %s\n", what, lib.st ? lib.err : "ok",
               fast.st ? fast.err : "ok", aut.st ? aut.err : "ok");
    }
    free(lib.pix);
    free(aut.pix);
    free(fast.pix);
  }
}

/* ------------------------------------------------------ file surgery */

typedef struct file {
  uint8_t *d;
  size_t n;
} file;

static file load(const char *path) {
  file f = {0};
  FILE *fp = fopen(path, "rb");
  if (!fp) return f;
  fseek(fp, 0, SEEK_END);
  f.n = (size_t)ftell(fp);
  fseek(fp, 0, SEEK_SET);
  f.d = malloc(f.n + 1024);
  f.n = fread(f.d, 1, f.n, fp);
  fclose(fp);
  return f;
}

static void save(const char *path, const uint8_t *d, size_t n) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return;
  fwrite(d, 1, n, fp);
  fclose(fp);
}

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* Offset of the n-th chunk of the given type (its length field), or 0. */
static size_t find_chunk(const file *f, const char *type, int nth) {
  for (size_t p = 8; p + 12 <= f->n;) {
    uint32_t len = rd32(f->d + p);
    if (!memcmp(f->d + p + 4, type, 4) && nth-- == 0) return p;
    if (len > f->n - p - 12) return 0;
    p += 12 + len;
  }
  return 0;
}

/* Recomputes every chunk's CRC (stops at a length that runs past the end). */
static void fix_crcs(file *f) {
  for (size_t p = 8; p + 12 <= f->n;) {
    uint32_t len = rd32(f->d + p);
    if (len > f->n - p - 12) return;
    wr32(f->d + p + 8 + len, (uint32_t)crc32(0, f->d + p + 4, len + 4));
    p += 12 + len;
  }
}

/* Inserts a chunk before the chunk at offset at. */
static void insert_chunk(file *f, size_t at, const char *type, const uint8_t *data, uint32_t len) {
  memmove(f->d + at + 12 + len, f->d + at, f->n - at);
  wr32(f->d + at, len);
  memcpy(f->d + at + 4, type, 4);
  if (len) memcpy(f->d + at + 8, data, len);
  f->n += 12 + len;
  fix_crcs(f);
}

static uint32_t rng = 2024;
static uint32_t next_rand(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void variant(const char *dir, const char *name, const file *f, int fast) {
  char path[512], what[128];
  snprintf(path, sizeof path, "%s/v.png", dir);
  snprintf(what, sizeof what, "%s", name);
  save(path, f->d, f->n);
  compare(path, what, fast);
}

/* Every kind of damage to one good file. */
static void damage(const char *dir, const char *good, const char *tag) {
  file g = load(good), f;
  f.d = malloc(g.n + 4096);
  char what[160];
  size_t step = g.n / 40 + 1;
  for (size_t cut = 0; cut < g.n; cut += step) { /* truncations */
    snprintf(what, sizeof what, "%s cut at %zu", tag, cut);
    f.n = cut;
    memcpy(f.d, g.d, cut);
    variant(dir, what, &f, 0);
  }
  size_t idat = find_chunk(&g, "IDAT", 0), ihdr = find_chunk(&g, "IHDR", 0);
  uint32_t idat_len = rd32(g.d + idat);
  for (int fix = 0; fix < 2; ++fix) /* flipped bytes in the image data, CRC left or repaired */
    for (uint32_t k = 0; k < 6; ++k) {
      memcpy(f.d, g.d, f.n = g.n);
      f.d[idat + 8 + (k * 997u) % idat_len] ^= (uint8_t)(0x41 + k);
      if (fix) fix_crcs(&f);
      snprintf(what, sizeof what, "%s IDAT byte %u flipped%s", tag, k, fix ? ", CRC repaired" : "");
      variant(dir, what, &f, 0);
    }
  size_t last = find_chunk(&g, "IEND", 0) - 16; /* the Adler-32 of a single-IDAT file */
  memcpy(f.d, g.d, f.n = g.n);
  f.d[last + 2] ^= 1;
  fix_crcs(&f);
  snprintf(what, sizeof what, "%s wrong Adler-32", tag);
  variant(dir, what, &f, 0);
  for (int dl = -2; dl <= 2; dl += 1) { /* wrong IDAT length */
    if (!dl) continue;
    memcpy(f.d, g.d, f.n = g.n);
    wr32(f.d + idat, idat_len + (uint32_t)dl);
    snprintf(what, sizeof what, "%s IDAT length %+d", tag, dl);
    variant(dir, what, &f, 0);
    fix_crcs(&f);
    variant(dir, what, &f, 0);
  }
  static const uint32_t dims[][2] = {{0x7fffffffu, 0x7fffffffu}, {1000001, 1}, {0, 5}, {1, 1}, {200000, 200000}};
  for (int k = 0; k < 5; ++k) { /* dimensions */
    memcpy(f.d, g.d, f.n = g.n);
    wr32(f.d + ihdr + 8, dims[k][0]);
    wr32(f.d + ihdr + 12, dims[k][1]);
    fix_crcs(&f);
    snprintf(what, sizeof what, "%s %ux%u", tag, dims[k][0], dims[k][1]);
    variant(dir, what, &f, 0);
  }
  free(f.d);
  free(g.d);
}

/* Metadata and chunk-order variants of one good file, and a bad filter byte. */
static void chunks(const char *dir, const char *good, const char *tag, int fast) {
  file g = load(good), f;
  f.d = malloc(g.n + 4096);
  char what[160];
  uint8_t gama[4], srgb = 1, text[] = "Comment\0hello";
  struct {
    const char *type;
    const uint8_t *d;
    uint32_t len;
    int fast;
  } add[] = {
      {"gAMA", gama, 4, fast}, {"sRGB", &srgb, 1, fast}, {"tEXt", text, sizeof text - 1, fast}, {"prIv", text, 5, fast},
      {"cHRM", text, 8, 0},    {"sRGB", text, 3, 0},     {"gAMA", (uint8_t *)"\0\0\0\0", 4, 0}};
  wr32(gama, 45455);
  for (size_t k = 0; k < sizeof add / sizeof add[0]; ++k) {
    memcpy(f.d, g.d, f.n = g.n);
    insert_chunk(&f, 33, add[k].type, add[k].d, add[k].len); /* right after IHDR */
    snprintf(what, sizeof what, "%s + %s (%u bytes)", tag, add[k].type, add[k].len);
    variant(dir, what, &f, add[k].fast);
  }
  memcpy(f.d, g.d, f.n = g.n); /* gAMA then sRGB, and a tEXt after the image data */
  wr32(gama, 50000);
  insert_chunk(&f, 33, "gAMA", gama, 4);
  snprintf(what, sizeof what, "%s gAMA 0.5", tag);
  variant(dir, what, &f, fast);
  insert_chunk(&f, 33, "sRGB", &srgb, 1);
  insert_chunk(&f, find_chunk(&f, "IEND", 0), "tEXt", text, sizeof text - 1);
  snprintf(what, sizeof what, "%s gAMA 0.5 + sRGB + late tEXt", tag);
  variant(dir, what, &f, 0);
  free(f.d);
  free(g.d);
}

/* A file whose zlib stream is rewritten with the first row's filter byte 5. */
static void bad_filter(const char *dir) {
  uint8_t raw[4 * 5];
  memset(raw, 9, sizeof raw);
  raw[0] = 5;
  for (int y = 1; y < 4; ++y)
    raw[y * 5] = 0;
  uint8_t z[256];
  uLongf zn = sizeof z;
  compress(z, &zn, raw, sizeof raw);
  uint8_t d[512] = {137, 80, 78, 71, 13, 10, 26, 10};
  file f = {d, 8};
  uint8_t ihdr[13] = {0, 0, 0, 4, 0, 0, 0, 4, 8, 0, 0, 0, 0};
  insert_chunk(&f, 8, "IHDR", ihdr, 13);
  insert_chunk(&f, f.n, "IDAT", z, (uint32_t)zn);
  insert_chunk(&f, f.n, "IEND", NULL, 0);
  variant(dir, "filter byte 5", &f, 0);
  f.d[8 + 25 + 8 + 2] = 0; /* not the filter: the zlib header */
  fix_crcs(&f);
  variant(dir, "bad zlib header", &f, 0);
}

/* A palette image whose PLTE is cut short: indices past it are black. */
static void short_palette(const char *dir, const char *good, int trns) {
  file g = load(good);
  size_t p = find_chunk(&g, "PLTE", 0);
  if (!p) {
    free(g.d);
    return;
  }
  uint32_t len = rd32(g.d + p);
  memmove(g.d + p + 8 + 30, g.d + p + 8 + len, g.n - (p + 8 + len));
  g.n -= len - 30;
  wr32(g.d + p, 30);
  fix_crcs(&g);
  variant(dir, trns ? "palette+tRNS, 10 entries" : "palette, 10 entries", &g, 0);
  free(g.d);
}

static void fuzz(const char *dir, const char *good, int iters) {
  file g = load(good), f;
  f.d = malloc(g.n + 16);
  char what[64];
  for (int i = 0; i < iters; ++i) {
    memcpy(f.d, g.d, f.n = g.n);
    int flips = 1 + (int)(next_rand() % 4);
    for (int k = 0; k < flips; ++k)
      f.d[8 + next_rand() % (f.n - 8)] ^= (uint8_t)(1u << (next_rand() % 8));
    if (next_rand() % 2) fix_crcs(&f);
    snprintf(what, sizeof what, "fuzz %d", i);
    variant(dir, what, &f, 0);
  }
  free(f.d);
  free(g.d);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const char *dir = argv[1];
  mkdir(dir, 0755);
  /* img: w, h, colour type, depth, interlace, tRNS; the seed and zlib level
   * are set below. fast: the fast path must serve the file. */
  struct {
    const char *name;
    gs_testimg img;
    int smooth, fast;
  } kinds[] = {
      {"grey8", {1000, 300, PNG_COLOR_TYPE_GRAY, 8, 0, 0}, 1, 1},
      {"grey8 noise", {257, 131, PNG_COLOR_TYPE_GRAY, 8, 0, 0}, 0, 1},
      {"grey16", {333, 200, PNG_COLOR_TYPE_GRAY, 16, 0, 0}, 1, 1},
      {"greyalpha8", {301, 77, PNG_COLOR_TYPE_GRAY_ALPHA, 8, 0, 0}, 1, 1},
      {"greyalpha16", {129, 65, PNG_COLOR_TYPE_GRAY_ALPHA, 16, 0, 0}, 0, 1},
      {"rgb8", {640, 240, PNG_COLOR_TYPE_RGB, 8, 0, 0}, 1, 1},
      {"rgb16", {99, 70, PNG_COLOR_TYPE_RGB, 16, 0, 0}, 1, 1},
      {"rgba8", {150, 90, PNG_COLOR_TYPE_RGB_ALPHA, 8, 0, 0}, 0, 1},
      {"rgba16", {77, 41, PNG_COLOR_TYPE_RGB_ALPHA, 16, 0, 0}, 1, 1},
      {"palette8", {200, 150, PNG_COLOR_TYPE_PALETTE, 8, 0, 0}, 1, 1},
      {"palette8 trns", {180, 60, PNG_COLOR_TYPE_PALETTE, 8, 0, 1}, 0, 1},
      {"grey8 interlaced", {101, 67, PNG_COLOR_TYPE_GRAY, 8, 1, 0}, 1, 0},
      {"grey4", {101, 67, PNG_COLOR_TYPE_GRAY, 4, 0, 0}, 1, 0},
      {"palette4", {55, 31, PNG_COLOR_TYPE_PALETTE, 4, 0, 0}, 1, 0},
      {"grey8 trns", {64, 64, PNG_COLOR_TYPE_GRAY, 8, 0, 1}, 1, 0},
      {"rgb8 trns", {64, 64, PNG_COLOR_TYPE_RGB, 8, 0, 1}, 1, 0},
  };
  char path[512];
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    gs_testimg t = kinds[k].img;
    t.seed = (uint32_t)k + 1;
    t.smooth = kinds[k].smooth;
    t.level = (int)(k % 10);
    snprintf(path, sizeof path, "%s/good%zu.png", dir, k);
    CHECKF(gs_testimg_write(&t, path) == 0, "cannot write %s", path);
    compare(path, kinds[k].name, kinds[k].fast);
    chunks(dir, path, kinds[k].name, kinds[k].fast);
    if (t.color_type == PNG_COLOR_TYPE_PALETTE && t.depth == 8) short_palette(dir, path, t.trns);
    if (k == 1 || k == 2 || k == 5 || k == 10) damage(dir, path, kinds[k].name);
  }
  bad_filter(dir);
  const char *it = getenv("GS_FUZZ_ITERS");
  snprintf(path, sizeof path, "%s/good1.png", dir);
  fuzz(dir, path, it ? atoi(it) : 300);
  printf("test_png_read: fast path served %d files; refused %d that libpng reads (libpng read them instead), %d that "
         "both refuse\n",
         n_fast_served, n_fast_refused_lib_ok, n_both_refused);
#ifndef GS_HAVE_ISAL
  printf("test_png_read: built without ISA-L: only libpng against itself\n");
#endif
  return gs_test_done("test_png_read");
}

/* The label strip of FDTD snapshots (src/outputs/snapshot.c): the field's
 * pixels are those of the unlabelled picture (the picture written before
 * labels existed), the strip below holds the time line as documented (read
 * back glyph by glyph), the colour bar and its values; every digit has its own
 * glyph; fields of 3 x 3 up to 6000 x 400 and 12000 x 16 nodes work. One
 * rank, CPU. */
#include <math.h>
#include <mpi.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm.h"
#include "snapshot.h"

typedef struct picture {
  int64_t w, h;
  uint8_t *rgb;
} picture;

static picture read_rgb(const char *path) {
  picture p = {0, 0, NULL};
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path)) {
    fprintf(stderr, "%s: %s\n", path, img.message);
    return p;
  }
  img.format = PNG_FORMAT_RGB;
  p.rgb = malloc(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, NULL, p.rgb, 0, NULL)) {
    fprintf(stderr, "%s: %s\n", path, img.message);
    free(p.rgb);
    p.rgb = NULL;
    return p;
  }
  p.w = img.width;
  p.h = img.height;
  return p;
}

static const uint8_t *px(const picture *p, int64_t x, int64_t y) {
  return p->rgb + 3 * ((size_t)y * (size_t)p->w + (size_t)x);
}

/* A synthetic scene (soil below, air above, a pulse at the centre) of nx x
 * ny cells, no CPML (tiny grids cannot hold it), stepped steps times on the
 * CPU. */
static void make_sim(gs_fdtd_sim *m, gs_scene *sc, int64_t nx, int64_t ny, int64_t steps) {
  gs_scene_synthetic(sc, nx, ny, steps + 1);
  sc->pml[0] = sc->pml[1] = sc->pml[2] = sc->pml[3] = 0;
  sc->sources[0].i = sc->rxs[0].i = nx / 2; /* inside the smallest grids too */
  sc->sources[0].j = sc->rxs[0].j = ny / 2;
  gs_fdtd_sim_init(m, sc, &gs_backend_cpu, 0);
  gs_fdtd_sim_advance(m, steps);
  gs_fdtd_sim_sync(m);
}

static picture snap(gs_fdtd_sim *m, const gs_comm *c, const gs_snapshot_label *lab, const char *path) {
  int64_t parts[4] = {m->grid.own.i0, m->grid.own.i1, m->grid.own.j0, m->grid.own.j1};
  char err[1024] = "";
  gs_status st = gs_fdtd_snapshot(m, c, parts, lab, path, err, sizeof err);
  CHECKF(st == GS_OK, "%s: %s", path, err);
  picture p = read_rgb(path);
  CHECKF(p.rgb != NULL, "%s unreadable", path);
  remove(path);
  return p;
}

/* Reads text back from picture p: the 5x7 cells of want's characters from
 * (x, y), font pixels u wide, sampled at their centres. 1 when every cell is
 * the glyph of want's character (black on the margin grey) and the column
 * after it is empty. */
static int text_at(const picture *p, int64_t x, int64_t y, int64_t u, const char *want) {
  for (size_t k = 0; want[k]; ++k) {
    const uint8_t *g = gs_snapshot_glyph(want[k]);
    for (int r = 0; r < 7; ++r)
      for (int b = 0; b < 6; ++b) {
        int64_t cx = x + ((int64_t)k * 6 + b) * u + u / 2, cy = y + r * u + u / 2;
        if (cx >= p->w || cy >= p->h) return 0;
        const uint8_t *q = px(p, cx, cy);
        int ink = b < 5 && (g[r] & (0x10 >> b));
        int want_v = ink ? 0 : GS_SNAPSHOT_MARGIN_GREY;
        if (q[0] != want_v || q[1] != want_v || q[2] != want_v) {
          fprintf(stderr, "'%s' char %zu '%c': pixel (%lld, %lld) is %d,%d,%d\n", want, k, want[k], (long long)cx,
                  (long long)cy, q[0], q[1], q[2]);
          return 0;
        }
      }
  }
  return 1;
}

/* The field region of labelled picture a equals unlabelled picture bare
 * (the whole of it); columns right of the field are margin grey. */
static int field_same(const picture *a, const picture *bare) {
  for (int64_t y = 0; y < bare->h; ++y) {
    if (memcmp(px(a, 0, y), px(bare, 0, y), 3 * (size_t)bare->w) != 0) return 0;
    for (int64_t x = bare->w; x < a->w; ++x)
      if (px(a, x, y)[0] != GS_SNAPSHOT_MARGIN_GREY || px(a, x, y)[2] != GS_SNAPSHOT_MARGIN_GREY) return 0;
  }
  return 1;
}

/* Counts strip pixels (rows y0..) that are not margin grey. */
static int64_t inked(const picture *p, int64_t y0) {
  int64_t n = 0;
  for (int64_t y = y0; y < p->h; ++y)
    for (int64_t x = 0; x < p->w; ++x)
      n += px(p, x, y)[0] != GS_SNAPSHOT_MARGIN_GREY || px(p, x, y)[1] != GS_SNAPSHOT_MARGIN_GREY;
  return n;
}

static void test_glyphs(void) {
  const uint8_t *unknown = gs_snapshot_glyph('?');
  for (char a = '0'; a <= '9'; ++a) {
    int lit = 0;
    for (int r = 0; r < 7; ++r)
      lit += gs_snapshot_glyph(a)[r] != 0;
    CHECKF(lit > 0, "digit %c is blank", a);
    for (char b = '0'; b <= '9'; ++b)
      if (a != b) CHECKF(memcmp(gs_snapshot_glyph(a), gs_snapshot_glyph(b), 7) != 0, "digits %c and %c alike", a, b);
  }
  /* Every character a label prints has a glyph of its own. */
  for (const char *s = "0123456789.+-=/ aefimnpstuV"; *s; ++s)
    CHECKF(gs_snapshot_glyph(*s) != unknown, "'%c' has no glyph", *s);
  CHECK(gs_snapshot_glyph('Q') == unknown);
  CHECK(gs_snapshot_glyph_scale(20, 20) == 1 && gs_snapshot_glyph_scale(1200, 1200) == 3);
  CHECK(gs_snapshot_glyph_scale(1000000, 100) == 4 && gs_snapshot_glyph_scale(1000000, 10) == 1);
}

/* One field, labelled and not: the field's pixels, the strip, the time line,
 * the colour bar; a label differing in one digit changes only the strip. */
static void test_field(const gs_comm *c, int64_t nx, int64_t ny, int64_t steps) {
  gs_scene sc;
  gs_fdtd_sim m;
  make_sim(&m, &sc, nx, ny, steps);
  const int64_t W = nx + 1, H = ny + 1, u = gs_snapshot_glyph_scale(W, H);
  gs_snapshot_label lab = {1.234e-9, 1234, NULL}, lab2 = {1.234e-9, 1235, NULL};
  picture bare = snap(&m, c, NULL, "snap_label_bare.png");
  picture a = snap(&m, c, &lab, "snap_label_a.png");
  picture b = snap(&m, c, &lab2, "snap_label_b.png");
  if (bare.rgb && a.rgb && b.rgb) {
    CHECKF(bare.w == W && bare.h == H, "%lldx%lld: unlabelled picture %lldx%lld", (long long)W, (long long)H,
           (long long)bare.w, (long long)bare.h);
    CHECKF(a.w >= W && a.h == H + 31 * u, "%lldx%lld: labelled picture %lldx%lld", (long long)W, (long long)H,
           (long long)a.w, (long long)a.h);
    CHECKF(field_same(&a, &bare), "%lldx%lld: the field's pixels changed", (long long)W, (long long)H);
    CHECKF(inked(&a, H) > 0, "%lldx%lld: the strip is empty", (long long)W, (long long)H);
    CHECKF(text_at(&a, 2 * u, H + 3 * u, u, "t = 1.234 ns   step 1234"), "%lldx%lld: time line", (long long)W,
           (long long)H);
    CHECKF(text_at(&b, 2 * u, H + 3 * u, u, "t = 1.234 ns   step 1235"), "%lldx%lld: time line", (long long)W,
           (long long)H);
    CHECK(a.w == b.w && a.h == b.h && field_same(&b, &bare));
    if (a.w == b.w && a.h == b.h)
      CHECKF(memcmp(a.rgb, b.rgb, 3 * (size_t)a.w * (size_t)a.h) != 0, "steps 1234 and 1235 look alike");
    /* The bar, 14u below the strip's top, 5u tall: blue at its left end, red at its right. */
    const uint8_t *lo = px(&a, 3 * u + 1, H + 16 * u), *hi = px(&a, a.w - 3 * u - 2, H + 16 * u);
    CHECKF(lo[2] == 255 && lo[0] < 64 && hi[0] == 255 && hi[2] < 64, "bar ends %d,%d,%d and %d,%d,%d", lo[0], lo[1],
           lo[2], hi[0], hi[1], hi[2]);
  }
  free(bare.rgb);
  free(a.rgb);
  free(b.rgb);
  gs_fdtd_sim_free(&m);
  gs_scene_free(&sc);
}

/* The unit that keeps the number below 1000, and the values of a zero
 * field, read back on 20 x 20 nodes. */
static void test_units(const gs_comm *c) {
  gs_scene sc;
  gs_fdtd_sim m;
  make_sim(&m, &sc, 19, 19, 0);
  static const struct {
    double t;
    int64_t step;
    const char *text;
  } cases[] = {{0, 0, "t = 0.000 ps   step 0"},
               {5e-13, 1, "t = 0.500 ps   step 1"},
               {999.9e-12, 7, "t = 999.900 ps   step 7"},
               {2.5e-6, 123456789, "t = 2.500 us   step 123456789"},
               {NAN, 9, "t = nan ps   step 9"}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    gs_snapshot_label lab = {cases[k].t, cases[k].step, NULL};
    picture p = snap(&m, c, &lab, "snap_label_units.png");
    if (!p.rgb) continue;
    CHECKF(text_at(&p, 2, 20 + 3, 1, cases[k].text), "%s", cases[k].text);
    CHECKF(text_at(&p, 2, 20 + 21, 1, "-0.0e+00 V/m"), "%s: low end", cases[k].text);
    free(p.rgb);
  }
  gs_fdtd_sim_free(&m);
  gs_scene_free(&sc);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  gs_comm c;
  gs_comm_init(&c);
  test_glyphs();
  test_field(&c, 199, 99, 60);  /* 200 x 100 nodes: the bar spans the field */
  test_field(&c, 19, 19, 30);   /* 20 x 20: the strip is wider than the field */
  test_field(&c, 2, 2, 3);      /* 3 x 3 */
  test_field(&c, 5999, 399, 5); /* 6000 x 400: 11 x 11 picture pixels a font pixel */
  test_field(&c, 11999, 15, 5); /* 12000 x 16: the height keeps the font pixel 1 pixel */
  test_units(&c);
  int rc = gs_test_done("test_snapshot_label");
  gs_comm_free(&c);
  MPI_Finalize();
  return rc;
}

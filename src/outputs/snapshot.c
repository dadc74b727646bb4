/* FDTD pictures: Ez snapshots written in row bands gathered to rank 0 with a
 * split-independent colour scale and a label strip below (time, step, colour
 * bar), and B-scans (docs/fdtd.md, "Outputs"). */
#include "snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd_internal.h"
#include "geometry.h"
#include "png_io.h"

/* ------------------------------------------------------------- colours */

static void diverging(float v, float scale, uint8_t rgb[3]) {
  float t = scale > 0 ? v / scale : 0;
  if (t > 1) t = 1;
  if (t < -1) t = -1;
  /* blue (-1) - white (0) - red (+1) */
  if (t >= 0) {
    rgb[0] = 255;
    rgb[1] = rgb[2] = (uint8_t)(255 * (1 - t) + 0.5f);
  } else {
    rgb[2] = 255;
    rgb[0] = rgb[1] = (uint8_t)(255 * (1 + t) + 0.5f);
  }
}

static int cmp_float_abs(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The q-quantile (0..1) of |v| over n values, from a sample of at most 2^20. */
static float abs_quantile(const float *v, size_t n, size_t stride, double q) {
  size_t step = n > (1u << 20) ? n / (1u << 20) : 1, m = 0;
  float *s = gs_xmalloc(sizeof *s * (n / step + 1));
  for (size_t k = 0; k < n; k += step)
    s[m++] = fabsf(v[k * stride]);
  qsort(s, m, sizeof *s, cmp_float_abs);
  float r = m ? s[(size_t)(q * (double)(m - 1))] : 0;
  free(s);
  return r;
}

/* ------------------------------------------------------------- B-scans */

/* B-scan: Ez of the first receiver, one column per run, time downwards,
 * after background removal (the mean trace over the runs, mostly the direct
 * wave, is subtracted), scaled to the 99.5th percentile of |value|. At most
 * 1000 rows (time decimated) and at least 256 pixels wide. */
gs_status gs_fdtd_write_bscan(float *ez, int64_t runs, int64_t steps, const char *path, char *err, size_t errlen) {
  for (int64_t s = 0; s < steps; ++s) {
    double mean = 0;
    for (int64_t r = 0; r < runs; ++r)
      mean += ez[(size_t)r * (size_t)steps + (size_t)s];
    mean /= (double)runs;
    for (int64_t r = 0; r < runs; ++r)
      ez[(size_t)r * (size_t)steps + (size_t)s] -= (float)mean;
  }
  float scale = abs_quantile(ez, (size_t)runs * (size_t)steps, 1, 0.995);
  int64_t every = (steps + 999) / 1000, rows = (steps + every - 1) / every;
  int64_t cw = runs < 256 ? (256 + runs - 1) / runs : 1;
  int64_t w = runs * cw;
  uint8_t *img = gs_xmalloc((size_t)w * (size_t)rows * 3);
  for (int64_t y = 0; y < rows; ++y)
    for (int64_t r = 0; r < runs; ++r)
      for (int64_t c = 0; c < cw; ++c)
        diverging(ez[(size_t)r * (size_t)steps + (size_t)(y * every)], scale,
                  img + 3 * ((size_t)y * (size_t)w + (size_t)(r * cw + c)));
  gs_png_format f = {.width = (uint32_t)w, .height = (uint32_t)rows, .depth = 8, .channels = 3};
  gs_status st = gs_png_write_image(path, &f, img, 6, err, errlen);
  free(img);
  return st;
}

/* ------------------------------------------------------------ the label */

/* Only the characters the label prints: times, steps, %e numbers (inf and
 * nan included), units. 5x7, one byte per row, bit 4 leftmost. */
static const struct {
  char ch;
  uint8_t rows[7];
} glyphs[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}}, {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}}, {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
    {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}}, {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
    {'m', {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'p', {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10}}, {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}},
    {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}}, {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}}, {'?', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}},
};

const uint8_t *gs_snapshot_glyph(char ch) {
  const size_t n = sizeof glyphs / sizeof glyphs[0];
  for (size_t k = 0; k < n; ++k)
    if (glyphs[k].ch == ch) return glyphs[k].rows;
  return glyphs[n - 1].rows;
}

int64_t gs_snapshot_glyph_scale(int64_t width, int64_t height) {
  int64_t by_width = 1 + (width > 0 ? width : 0) / 600, by_height = 1 + (height > 0 ? height : 0) / 31;
  return by_width < by_height ? by_width : by_height;
}

/* The strip in font pixels: a margin of SIDE left and right, the time line
 * at row TIME_Y, the colour bar at BAR_Y (BAR_H tall, a frame of half a font
 * pixel), its values at VAL_Y, STRIP_H rows in all. A glyph is 5 wide and 7
 * tall, characters ADVANCE apart; end values at least GAP characters from
 * the "0". */
enum { SIDE = 2, TIME_Y = 3, BAR_Y = 14, BAR_H = 5, VAL_Y = 21, STRIP_H = 31, ADVANCE = 6, GAP = 3 };

typedef struct snap_layout {
  int64_t width, rows; /* of the picture; strip rows (0: no label) */
  int64_t u;           /* picture pixels per font pixel */
  int64_t bar0, bar1;  /* colour bar columns [bar0, bar1) */
  char time[96], lo[48], hi[48];
} snap_layout;

static int64_t text_width(const char *s, int64_t u) {
  int64_t n = (int64_t)strlen(s);
  return n ? (n * ADVANCE - 1) * u : 0;
}

/* "t = 1.234 ns   step 1234": the first unit that keeps the printed number
 * below 1000 (0.5 ps prints as "0.500 ps"). */
static void format_time(char *buf, size_t n, double t, int64_t step) {
  static const struct {
    double per;
    const char *name;
  } units[] = {{1e12, "ps"}, {1e9, "ns"}, {1e6, "us"}, {1e3, "ms"}, {1, "s"}};
  size_t k = 0;
  while (k + 1 < sizeof units / sizeof units[0] && fabs(t) * units[k].per >= 999.9995)
    ++k;
  snprintf(buf, n, "t = %.3f %s   step %lld", t * units[k].per, units[k].name, (long long)step);
}

/* Sizes the strip for a field w x h pixels: the bar spans the field (less
 * the margins), longer where its values need it; the picture grows wider
 * than the field only where the text does not fit. */
static void label_layout(snap_layout *L, const gs_snapshot_label *lab, float scale, int64_t w, int64_t h) {
  memset(L, 0, sizeof *L);
  L->width = w;
  if (!lab) return;
  const int64_t u = L->u = gs_snapshot_glyph_scale(w, h);
  format_time(L->time, sizeof L->time, lab->t_seconds, lab->step);
  const char *unit = lab->unit ? lab->unit : "V/m";
  snprintf(L->lo, sizeof L->lo, "-%.1e %.8s", (double)scale, unit);
  snprintf(L->hi, sizeof L->hi, "+%.1e %.8s", (double)scale, unit);
  int64_t ends = text_width(L->lo, u) > text_width(L->hi, u) ? text_width(L->lo, u) : text_width(L->hi, u);
  int64_t bar = 2 * (ends + GAP * ADVANCE * u) + text_width("0", u);
  if (bar < w - 2 * SIDE * u) bar = w - 2 * SIDE * u;
  int64_t need = 2 * SIDE * u + (bar > text_width(L->time, u) ? bar : text_width(L->time, u));
  L->width = need > w ? need : w;
  L->bar0 = SIDE * u;
  L->bar1 = L->bar0 + bar;
  L->rows = STRIP_H * u;
}

/* Picture row gy (0 .. 7u - 1) of text s starting at column x, in black. */
static void draw_text_row(uint8_t *row, int64_t x, int64_t u, const char *s, int64_t gy) {
  for (; *s; ++s, x += ADVANCE * u) {
    uint8_t bits = gs_snapshot_glyph(*s)[gy / u];
    for (int64_t b = 0; b < 5; ++b)
      if (bits & (0x10 >> b)) memset(row + 3 * (x + b * u), 0, 3 * (size_t)u);
  }
}

/* Row y of the strip: grey, the time, the colour bar (the field's map from -1
 * to +1 in a dark grey frame), its end values and the 0 under its middle. */
static void label_row(const snap_layout *L, int64_t y, uint8_t *row) {
  const int64_t u = L->u, len = L->bar1 - L->bar0, f = (u + 1) / 2;
  memset(row, GS_SNAPSHOT_MARGIN_GREY, 3 * (size_t)L->width);
  if (y >= TIME_Y * u && y < (TIME_Y + 7) * u) draw_text_row(row, SIDE * u, u, L->time, y - TIME_Y * u);
  if (y >= BAR_Y * u && y < (BAR_Y + BAR_H) * u) {
    int edge = y < BAR_Y * u + f || y >= (BAR_Y + BAR_H) * u - f;
    for (int64_t x = L->bar0; x < L->bar1; ++x) {
      uint8_t *p = row + 3 * x;
      if (edge || x < L->bar0 + f || x >= L->bar1 - f)
        p[0] = p[1] = p[2] = 40;
      else
        diverging((float)(2 * (x - L->bar0) + 1 - len) / (float)len, 1.0f, p);
    }
  }
  if (y >= VAL_Y * u && y < (VAL_Y + 7) * u) {
    int64_t gy = y - VAL_Y * u;
    draw_text_row(row, L->bar0, u, L->lo, gy);
    draw_text_row(row, (L->bar0 + L->bar1 - text_width("0", u)) / 2, u, "0", gy);
    draw_text_row(row, L->bar1 - text_width(L->hi, u), u, L->hi, gy);
  }
}

/* ------------------------------------------------------------ snapshots */

/* Exact q-quantile of |Ez| over every node of the grid, the same for any
 * split: non-negative floats sort like their bit patterns, so a histogram of
 * the top 16 bits (summed over ranks) finds the bin holding the k-th value and
 * a second histogram of the low 16 bits within it finds the value. Collective. */
static float ez_abs_quantile(gs_fdtd_sim *m, const gs_comm *c, double q) {
  const size_t bins = 65536;
  uint64_t *hist = gs_xcalloc(bins, sizeof *hist);
  int64_t lw = m->grid.own.i1 - m->grid.own.i0, lh = m->grid.own.j1 - m->grid.own.j0;
  float *rows = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch * (size_t)lh);
  gs_fdtd_sim_read_rows(m, 0, m->grid.own.j0, m->grid.own.j1, rows);
  uint32_t top = 0;
  uint64_t k = (uint64_t)(q * (double)((uint64_t)(m->grid.nx + 1) * (uint64_t)(m->grid.ny + 1) - 1));
  for (int pass = 0; pass < 2; ++pass) {
    memset(hist, 0, bins * sizeof *hist);
    for (int64_t j = 0; j < lh; ++j)
      for (int64_t i = 0; i < lw; ++i) {
        float a = fabsf(rows[(size_t)j * (size_t)m->grid.pitch + (size_t)(i + m->grid.g)]);
        uint32_t b;
        memcpy(&b, &a, 4);
        if (pass == 0)
          hist[b >> 16]++;
        else if ((b >> 16) == top)
          hist[b & 0xFFFFu]++;
      }
    GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, hist, (int)bins, MPI_UINT64_T, MPI_SUM, c->world));
    uint32_t bin = 0;
    while (bin + 1 < bins && hist[bin] <= k)
      k -= hist[bin++];
    top = pass == 0 ? bin : (top << 16 | bin);
  }
  free(rows);
  free(hist);
  float v;
  memcpy(&v, &top, 4);
  return v;
}

/* Rank 0's PNG stream: each call's rows become one piece of the zlib stream
 * (filtered, compressed, written), so no picture is held whole. */
typedef struct snap_png {
  gs_png_writer *w;
  size_t rowbytes;
  uint8_t *prev; /* the last row written: the filter's row above */
  uint32_t adler;
  int64_t written;
  gs_status st;
} snap_png;

static void png_piece(snap_png *o, const uint8_t *rgb, int64_t rows, int last, char *err, size_t errlen) {
  if (o->st != GS_OK) return;
  size_t len = (o->rowbytes + 1) * (size_t)rows, zlen = 0;
  uint8_t *filtered = gs_xmalloc(len), *z = gs_xmalloc(gs_png_deflate_bound(len));
  gs_png_filter_rows(rgb, (uint32_t)rows, o->rowbytes, 3, o->written ? o->prev : NULL, GS_PNG_FILTER_SUB, filtered);
  memcpy(o->prev, rgb + (size_t)(rows - 1) * o->rowbytes, o->rowbytes);
  uint32_t a = 0;
  o->st = gs_png_deflate_piece(filtered, len, NULL, 0, 6, o->written == 0, last, z, &zlen, &a);
  if (o->st != GS_OK)
    snprintf(err, errlen, "compressing the picture: %s", gs_strerror(o->st));
  else
    o->st = gs_png_writer_idat(o->w, z, zlen, err, errlen);
  o->adler = o->written ? gs_png_adler_combine(o->adler, a, len) : a;
  o->written += rows;
  free(filtered);
  free(z);
}

/* One band's buffers: this rank's rows and its packed part; on rank 0 the
 * band's Ez, a receive buffer, materials, picture rows and the row above. */
typedef struct snap_bufs {
  float *mine, *block, *ez, *recv;
  uint8_t *rgb, *matrow, *prev;
} snap_bufs;

static void bufs_alloc(snap_bufs *b, const gs_fdtd_sim *m, const gs_comm *c, int64_t width, int64_t band) {
  const size_t W = (size_t)m->grid.nx + 1, lw = (size_t)(m->grid.own.i1 - m->grid.own.i0), n = (size_t)band;
  int root = c->rank == 0;
  b->mine = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch * n);
  b->block = gs_xmalloc(sizeof(float) * lw * n);
  b->ez = root ? gs_xmalloc(sizeof(float) * W * n) : NULL;
  b->recv = root ? gs_xmalloc(sizeof(float) * W * n) : NULL;
  b->rgb = root ? gs_xmalloc((size_t)width * 3 * n) : NULL;
  b->matrow = root ? gs_xmalloc(W * (n + 1)) : NULL;
  b->prev = root ? gs_xmalloc((size_t)width * 3) : NULL;
}

static void bufs_free(snap_bufs *b) {
  free(b->mine);
  free(b->block);
  free(b->ez);
  free(b->recv);
  free(b->rgb);
  free(b->matrow);
  free(b->prev);
}

/* Grid rows [j0, j1) of Ez: every rank sends its part to rank 0, which
 * assembles them in b->ez (nx + 1 values a row, row j0 first). */
static void gather_band(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, int64_t j0, int64_t j1, snap_bufs *b) {
  const int64_t W = m->grid.nx + 1, lw = m->grid.own.i1 - m->grid.own.i0;
  int64_t r0 = j0 > m->grid.own.j0 ? j0 : m->grid.own.j0, r1 = j1 < m->grid.own.j1 ? j1 : m->grid.own.j1;
  if (r1 > r0) { /* my part of the band, packed */
    gs_fdtd_sim_read_rows(m, 0, r0, r1, b->mine);
    for (int64_t j = r0; j < r1; ++j)
      memcpy(b->block + (size_t)(j - r0) * (size_t)lw,
             b->mine + (size_t)(j - r0) * (size_t)m->grid.pitch + (size_t)m->grid.g, sizeof(float) * (size_t)lw);
    if (c->rank != 0) GS_MPI_CHECK(MPI_Send(b->block, (int)(lw * (r1 - r0)), MPI_FLOAT, 0, 7, c->world));
  }
  if (c->rank != 0) return;
  for (int r = 0; r < c->size; ++r) {
    const int64_t *q = parts + 4 * r;
    int64_t a0 = j0 > q[2] ? j0 : q[2], a1 = j1 < q[3] ? j1 : q[3], bw = q[1] - q[0];
    if (a1 <= a0) continue;
    const float *src = b->block;
    if (r != 0) {
      GS_MPI_CHECK(MPI_Recv(b->recv, (int)(bw * (a1 - a0)), MPI_FLOAT, r, 7, c->world, MPI_STATUS_IGNORE));
      src = b->recv;
    }
    for (int64_t j = a0; j < a1; ++j)
      memcpy(b->ez + (size_t)(j - j0) * (size_t)W + (size_t)q[0], src + (size_t)(j - a0) * (size_t)bw,
             sizeof(float) * (size_t)bw);
  }
}

/* Grid rows [j0, j1) as picture rows width pixels wide, top (j1 - 1) first:
 * the colour map, material outlines in dark grey, margin grey right of the
 * field. */
static void colour_band(const gs_scene *sc, snap_bufs *b, int64_t W, int64_t width, int64_t j0, int64_t j1,
                        float scale) {
  /* The band's cell materials and the row below (gprMax's `solid`, one geometry build per band;
   * node (i, j) shows cell (i, j), the last row and column their neighbours'). */
  int64_t jb = j0 > 0 ? j0 - 1 : 0;
  gs_geometry g;
  gs_geometry_build(&g, sc, 0, sc->nx + 1, jb, j1 + 1);
  for (int64_t j = jb; j < j1; ++j)
    for (int64_t i = 0; i < W; ++i) {
      int64_t ci = i < sc->nx ? i : sc->nx - 1, cj = j < sc->ny ? j : sc->ny - 1;
      b->matrow[(size_t)(j - j0 + 1) * (size_t)W + (size_t)i] = (uint8_t)gs_geometry_cell(&g, ci, cj);
    }
  gs_geometry_free(&g);
  for (int64_t y = 0; y < j1 - j0; ++y) {
    int64_t j = j1 - 1 - y;
    const uint8_t *mr = b->matrow + (size_t)(j - j0 + 1) * (size_t)W, *md = mr - W;
    uint8_t *out = b->rgb + (size_t)y * (size_t)width * 3;
    for (int64_t i = 0; i < W; ++i) {
      diverging(b->ez[(size_t)(j - j0) * (size_t)W + (size_t)i], scale, out + 3 * i);
      if ((i > 0 && mr[i - 1] != mr[i]) || (j > 0 && md[i] != mr[i])) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 40;
    }
    memset(out + 3 * W, GS_SNAPSHOT_MARGIN_GREY, 3 * (size_t)(width - W));
  }
}

/* Writes Ez as a PNG, y up, in bands of rows from the top: every rank sends
 * its part of each band to rank 0, which colours, filters and compresses the
 * band as one piece of the PNG stream, so no rank holds the whole field; the
 * label strip follows in pieces of the same height. Colour scale: the exact
 * 99.5th percentile of |Ez| (the field at the source would otherwise wash out
 * everything else). Collective; the status is rank 0's. */
gs_status gs_fdtd_snapshot(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, const gs_snapshot_label *label,
                           const char *path, char *err, size_t errlen) {
  const int64_t W = m->grid.nx + 1, H = m->grid.ny + 1, band = 64;
  float scale = ez_abs_quantile(m, c, 0.995);
  snap_layout L;
  label_layout(&L, label, scale, W, H);
  snap_bufs b;
  bufs_alloc(&b, m, c, L.width, band);
  snap_png o = {.rowbytes = (size_t)L.width * 3, .prev = b.prev, .st = GS_OK};
  if (c->rank == 0) {
    gs_png_format f = {.width = (uint32_t)L.width, .height = (uint32_t)(H + L.rows), .depth = 8, .channels = 3};
    o.st = gs_png_writer_open(path, &f, &o.w, err, errlen);
  }
  for (int64_t top = H; top > 0; top -= band) {
    int64_t j0 = top - band > 0 ? top - band : 0; /* rows [j0, top), written top - 1 first */
    gather_band(m, c, parts, j0, top, &b);
    if (c->rank != 0 || o.st != GS_OK) continue;
    colour_band(m->sc, &b, W, L.width, j0, top, scale);
    png_piece(&o, b.rgb, top - j0, j0 == 0 && L.rows == 0, err, errlen);
  }
  for (int64_t y0 = 0; c->rank == 0 && y0 < L.rows; y0 += band) {
    int64_t n = L.rows - y0 < band ? L.rows - y0 : band;
    for (int64_t y = 0; y < n; ++y)
      label_row(&L, y0 + y, b.rgb + (size_t)y * o.rowbytes);
    png_piece(&o, b.rgb, n, y0 + n == L.rows, err, errlen);
  }
  if (c->rank == 0 && o.w) {
    if (o.st == GS_OK)
      o.st = gs_png_writer_finish(o.w, o.adler, 1, err, errlen);
    else
      gs_png_writer_abort(o.w);
  }
  bufs_free(&b);
  return o.st;
}

/* Rows [j0, j1) of a plane as picture rows (j1 - 1 first), outlines where
 * mat changes to the left or below, margin grey right of the field. */
static void colour_plane(const float *v, const uint8_t *mat, int64_t W, int64_t width, int64_t j0, int64_t j1,
                         float scale, uint8_t *rgb) {
  for (int64_t y = 0; y < j1 - j0; ++y) {
    int64_t j = j1 - 1 - y;
    uint8_t *out = rgb + (size_t)y * (size_t)width * 3;
    for (int64_t i = 0; i < W; ++i) {
      size_t at = (size_t)j * (size_t)W + (size_t)i;
      diverging(v[at], scale, out + 3 * i);
      if (mat && ((i > 0 && mat[at - 1] != mat[at]) || (j > 0 && mat[at - (size_t)W] != mat[at])))
        out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 40;
    }
    memset(out + 3 * W, GS_SNAPSHOT_MARGIN_GREY, 3 * (size_t)(width - W));
  }
}

gs_status gs_snapshot_plane_png(const float *v, const uint8_t *mat, int64_t W, int64_t H,
                                const gs_snapshot_label *label, const char *path, char *err, size_t errlen) {
  const int64_t band = 64;
  float scale = abs_quantile(v, (size_t)(W * H), 1, 0.995); /* exact up to 2^20 values, sampled beyond */
  snap_layout L;
  label_layout(&L, label, scale, W, H);
  uint8_t *rgb = gs_xmalloc((size_t)L.width * 3 * (size_t)band), *prev = gs_xmalloc((size_t)L.width * 3);
  snap_png o = {.rowbytes = (size_t)L.width * 3, .prev = prev, .st = GS_OK};
  gs_png_format f = {.width = (uint32_t)L.width, .height = (uint32_t)(H + L.rows), .depth = 8, .channels = 3};
  o.st = gs_png_writer_open(path, &f, &o.w, err, errlen);
  for (int64_t top = H; top > 0 && o.st == GS_OK; top -= band) {
    int64_t j0 = top - band > 0 ? top - band : 0;
    colour_plane(v, mat, W, L.width, j0, top, scale, rgb);
    png_piece(&o, rgb, top - j0, j0 == 0 && L.rows == 0, err, errlen);
  }
  for (int64_t y0 = 0; y0 < L.rows && o.st == GS_OK; y0 += band) {
    int64_t n = L.rows - y0 < band ? L.rows - y0 : band;
    for (int64_t y = 0; y < n; ++y)
      label_row(&L, y0 + y, rgb + (size_t)y * o.rowbytes);
    png_piece(&o, rgb, n, y0 + n == L.rows, err, errlen);
  }
  if (o.w) {
    if (o.st == GS_OK)
      o.st = gs_png_writer_finish(o.w, o.adler, 1, err, errlen);
    else
      gs_png_writer_abort(o.w);
  }
  free(rgb);
  free(prev);
  return o.st;
}

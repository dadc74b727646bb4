/* FDTD pictures: Ez snapshots written in row bands gathered to rank 0 with a
 * split-independent colour scale, and B-scans (docs/fdtd.md, "Outputs"). */
#include "snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd_internal.h"
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

/* Writes Ez as a PNG, y up, in bands of rows from the top: every rank sends
 * its part of each band to rank 0, which colours, filters and compresses the
 * band as one piece of the PNG stream, so no rank holds the whole field.
 * Colour scale: the exact 99.5th percentile of |Ez| (the field at the source
 * would otherwise wash out everything else); material outlines in dark grey.
 * Collective; the status is rank 0's. */
gs_status gs_fdtd_snapshot(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, const char *path, char *err,
                           size_t errlen) {
  const gs_scene *sc = m->sc;
  const int64_t W = m->grid.nx + 1, H = m->grid.ny + 1, band = 64;
  float scale = ez_abs_quantile(m, c, 0.995);
  int64_t lw = m->grid.own.i1 - m->grid.own.i0;
  float *mine = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch * (size_t)band);
  float *block = gs_xmalloc(sizeof(float) * (size_t)lw * (size_t)band);
  float *ez = c->rank == 0 ? gs_xmalloc(sizeof(float) * (size_t)W * (size_t)band) : NULL;
  float *recv = c->rank == 0 ? gs_xmalloc(sizeof(float) * (size_t)W * (size_t)band) : NULL;
  uint8_t *rgb = c->rank == 0 ? gs_xmalloc((size_t)W * 3 * (size_t)band) : NULL;
  uint8_t *matrow = c->rank == 0 ? gs_xmalloc((size_t)W * (size_t)(band + 1)) : NULL;
  uint8_t *prev = c->rank == 0 ? gs_xmalloc((size_t)W * 3) : NULL;
  gs_png_writer *w = NULL;
  gs_status st = GS_OK;
  uint32_t adler = 1;
  if (c->rank == 0) {
    gs_png_format f = {.width = (uint32_t)W, .height = (uint32_t)H, .depth = 8, .channels = 3};
    st = gs_png_writer_open(path, &f, &w, err, errlen);
  }
  for (int64_t top = H; top > 0; top -= band) {
    int64_t j0 = top - band > 0 ? top - band : 0, j1 = top; /* rows [j0, j1), written j1-1 first */
    int64_t r0 = j0 > m->grid.own.j0 ? j0 : m->grid.own.j0, r1 = j1 < m->grid.own.j1 ? j1 : m->grid.own.j1;
    if (r1 > r0) { /* my part of the band, packed */
      gs_fdtd_sim_read_rows(m, 0, r0, r1, mine);
      for (int64_t j = r0; j < r1; ++j)
        memcpy(block + (size_t)(j - r0) * (size_t)lw,
               mine + (size_t)(j - r0) * (size_t)m->grid.pitch + (size_t)m->grid.g, sizeof(float) * (size_t)lw);
      if (c->rank != 0) GS_MPI_CHECK(MPI_Send(block, (int)(lw * (r1 - r0)), MPI_FLOAT, 0, 7, c->world));
    }
    if (c->rank != 0) continue;
    for (int r = 0; r < c->size; ++r) {
      const int64_t *q = parts + 4 * r;
      int64_t a0 = j0 > q[2] ? j0 : q[2], a1 = j1 < q[3] ? j1 : q[3], bw = q[1] - q[0];
      if (a1 <= a0) continue;
      const float *src = block;
      if (r != 0) {
        GS_MPI_CHECK(MPI_Recv(recv, (int)(bw * (a1 - a0)), MPI_FLOAT, r, 7, c->world, MPI_STATUS_IGNORE));
        src = recv;
      }
      for (int64_t j = a0; j < a1; ++j)
        memcpy(ez + (size_t)(j - j0) * (size_t)W + (size_t)q[0], src + (size_t)(j - a0) * (size_t)bw,
               sizeof(float) * (size_t)bw);
    }
    if (st != GS_OK) continue;
    /* Materials of the band and the row below it, for the outlines. */
    for (int64_t j = (j0 > 0 ? j0 - 1 : 0); j < j1; ++j)
      for (int64_t i = 0; i < W; ++i)
        matrow[(size_t)(j - j0 + 1) * (size_t)W + (size_t)i] = (uint8_t)gs_scene_material_at(sc, i, j);
    int64_t rows = j1 - j0;
    for (int64_t y = 0; y < rows; ++y) { /* image row y of the band is grid row j1 - 1 - y */
      int64_t j = j1 - 1 - y;
      const uint8_t *mr = matrow + (size_t)(j - j0 + 1) * (size_t)W, *md = mr - W;
      uint8_t *out = rgb + (size_t)y * (size_t)W * 3;
      for (int64_t i = 0; i < W; ++i) {
        diverging(ez[(size_t)(j - j0) * (size_t)W + (size_t)i], scale, out + 3 * i);
        if ((i > 0 && mr[i - 1] != mr[i]) || (j > 0 && md[i] != mr[i]))
          out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 40;
      }
    }
    size_t rowbytes = (size_t)W * 3, len = (rowbytes + 1) * (size_t)rows;
    uint8_t *filtered = gs_xmalloc(len), *z = gs_xmalloc(gs_png_deflate_bound(len));
    gs_png_filter_rows(rgb, (uint32_t)rows, rowbytes, 3, top == H ? NULL : prev, GS_PNG_FILTER_SUB, filtered);
    memcpy(prev, rgb + (size_t)(rows - 1) * rowbytes, rowbytes);
    size_t zlen = 0;
    uint32_t a = 0;
    st = gs_png_deflate_piece(filtered, len, NULL, 0, 6, top == H, j0 == 0, z, &zlen, &a);
    if (st == GS_OK) st = gs_png_writer_idat(w, z, zlen, err, errlen);
    adler = top == H ? a : gs_png_adler_combine(adler, a, len);
    free(filtered);
    free(z);
  }
  if (c->rank == 0 && w) {
    if (st == GS_OK)
      st = gs_png_writer_finish(w, adler, 1, err, errlen);
    else
      gs_png_writer_abort(w);
  }
  free(mine);
  free(block);
  free(ez);
  free(recv);
  free(rgb);
  free(matrow);
  free(prev);
  return st;
}

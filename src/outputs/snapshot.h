/* FDTD pictures (docs/fdtd.md, "Outputs"). */
#ifndef GS_SNAPSHOT_H
#define GS_SNAPSHOT_H

#include "comm.h"
#include "fdtd.h"

/* What a snapshot's label says: the simulated time of the field and the step
 * it follows (Ez after step n is the field at t = n dt). */
typedef struct gs_snapshot_label {
  double t_seconds;
  int64_t step;
  const char *unit; /* of the colour bar's end values; NULL: V/m */
} gs_snapshot_label;

/* Grey of the label strip and of any columns beside the field: not white,
 * which is the colour of Ez = 0, so the field's edge stays visible. */
#define GS_SNAPSHOT_MARGIN_GREY 235

/* Collective: Ez of every rank's part (parts: 4 int64 per rank, as gathered)
 * as one PNG at path on rank 0, with a symmetric diverging colour map scaled
 * to the exact 99.5th percentile of |Ez| and the material outlines.
 * With a label, a strip is added below the field (and, where the text needs
 * it, grey columns to its right): "t = 1.234 ns   step 1234", the colour bar
 * and its end values ("-3.2e+01 V/m", "0", "+3.2e+01 V/m"). The field's
 * pixels are those of the picture without a label (label NULL), which is
 * exactly the picture written before labels existed. Text is drawn in 5x7
 * glyphs (gs_snapshot_glyph), each font pixel u x u picture pixels with
 * u = gs_snapshot_glyph_scale(nx + 1, ny + 1), characters 6u apart; the time line
 * starts 2u from the left and 3u below the field. The status is rank 0's. */
gs_status gs_fdtd_snapshot(gs_fdtd_sim *m, const gs_comm *c, const int64_t *parts, const gs_snapshot_label *label,
                           const char *path, char *err, size_t errlen);
/* Picture pixels per font pixel for a field width x height pixels: 1 +
 * width / 600, so that the text stays readable when the picture is shrunk to
 * fit a screen (about 12 screen pixels tall at 1000 pixels across), but at
 * most 1 + height / 31, so that the strip (31 font pixels tall) is never much
 * taller than the field: a 10^6 x 100 field keeps a strip of 31 rows, not of
 * 51677 rows of 10^6 pixels. */
int64_t gs_snapshot_glyph_scale(int64_t width, int64_t height);
/* The 5x7 glyph of ch, 7 rows from the top, bit 4 the leftmost pixel; the
 * glyph of '?' for characters the label never prints. */
const uint8_t *gs_snapshot_glyph(char ch);
/* One plane of a field (v: w x h values, row 0 the bottom row of the
 * picture) as a PNG at path, coloured as gs_fdtd_snapshot (the exact 99.5th
 * percentile of |v|, the label strip below), outlines where mat (w x h
 * material numbers, or NULL) changes between neighbours. */
gs_status gs_snapshot_plane_png(const float *v, const uint8_t *mat, int64_t w, int64_t h,
                                const gs_snapshot_label *label, const char *path, char *err, size_t errlen);
/* A B-scan PNG: runs columns of steps Ez samples (ez[run * steps + step]). */
gs_status gs_fdtd_write_bscan(float *ez, int64_t runs, int64_t steps, const char *path, char *err, size_t errlen);

#endif

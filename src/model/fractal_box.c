/* gprMax's FractalBox.build (fractals.h): the volume extended to its
 * surfaces, binned into its materials, and the mask its rough surfaces,
 * water and grass leave, in gprMax's loop orders (a blade or root writes
 * cells its neighbours' columns read). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fractals.h"

/* The two axes across a face of normal a, in order. */
static void across(int a, int *u, int *w) {
  *u = a == 0 ? 1 : 0;
  *w = a == 2 ? 1 : 2;
}

typedef struct fmask {
  int8_t *m;
  int64_t start[3], size[3];
} fmask;

static int8_t *mask_at(const fmask *k, const int64_t c[3]) {
  return &k->m[((c[0] - k->start[0]) * k->size[1] + (c[1] - k->start[1])) * k->size[2] + (c[2] - k->start[2])];
}

/* A rough surface (and its water) over its face's cells and its range. */
static void apply_roughness(const fmask *k, const gs_fsurface *s) {
  int u, w;
  across(s->axis, &u, &w);
  const int64_t nw = s->hi[w] - s->lo[w];
  int64_t c[3];
  for (c[u] = s->lo[u]; c[u] < s->hi[u]; ++c[u])
    for (c[w] = s->lo[w]; c[w] < s->hi[w]; ++c[w])
      for (c[s->axis] = s->range[0]; c[s->axis] < s->range[1]; ++c[s->axis]) {
        const double h = s->height[(c[u] - s->lo[u]) * nw + (c[w] - s->lo[w])];
        const int64_t x = c[s->axis];
        int8_t v;
        if (s->plus)
          v = (double)x < h ? 1 : s->filldepth > 0 && x < s->filldepth ? 2 : 0;
        else
          v = (double)x > h ? 1 : s->filldepth > 0 && x > s->filldepth ? 2 : 0;
        *mask_at(k, c) = v;
      }
}

/* Marks cell c moved by (du, dw) across the face as grass; 0, or -1 when it leaves the volume. */
static int grass_cell(const fmask *k, int u, int w, const int64_t c[3], int64_t du, int64_t dw) {
  int64_t d[3] = {c[0], c[1], c[2]};
  d[u] += du;
  d[w] += dw;
  if (d[u] < k->start[u] || d[u] >= k->start[u] + k->size[u] || d[w] < k->start[w] || d[w] >= k->start[w] + k->size[w])
    return -1;
  *mask_at(k, d) = 3;
  return 0;
}

/* Blades: from the volume's bottom up to each blade's height, in cells not soil. */
static void grow_blades(const fmask *k, const gs_fsurface *s, const int64_t vstart[3]) {
  int u, w, a = s->axis;
  across(a, &u, &w);
  const int64_t nw = s->hi[w] - s->lo[w];
  int64_t c[3], blade = 0;
  for (c[u] = s->lo[u]; c[u] < s->hi[u]; ++c[u])
    for (c[w] = s->lo[w]; c[w] < s->hi[w]; ++c[w]) {
      const double top = s->blades[(c[u] - s->lo[u]) * nw + (c[w] - s->lo[w])];
      if (!(top > 0)) continue;
      int64_t height = 0, du, dw;
      for (c[a] = vstart[a]; c[a] < s->range[1]; ++c[a]) {
        if (!((double)c[a] < top && *mask_at(k, c) != 1)) continue;
        gs_grass_blade(s->grass, blade, height, &du, &dw);
        if (grass_cell(k, u, w, c, du, dw)) break;
        ++height;
      }
      ++blade;
    }
}

/* Roots: down from the volume's top, in soil below 2 ostop - height. */
static void grow_roots(const fmask *k, const gs_fsurface *s, const int64_t vstart[3], const int64_t vstop[3],
                       const int64_t ostop[3]) {
  int u, w, a = s->axis;
  across(a, &u, &w);
  const int64_t nw = s->hi[w] - s->lo[w];
  int64_t c[3], root = 0;
  for (c[u] = s->lo[u]; c[u] < s->hi[u]; ++c[u])
    for (c[w] = s->lo[w]; c[w] < s->hi[w]; ++c[w]) {
      const double top = s->blades[(c[u] - s->lo[u]) * nw + (c[w] - s->lo[w])];
      if (!(top > 0)) continue;
      int64_t du, dw;
      for (c[a] = vstop[a] - 1; c[a] > vstart[a]; --c[a]) {
        if (!((double)c[a] > (double)ostop[a] - (top - (double)ostop[a]) && *mask_at(k, c) == 1)) continue;
        gs_grass_root(s->grass, root, &du, &dw);
        if (grass_cell(k, u, w, c, du, dw)) break;
      }
      ++root;
    }
}

/* The volume extended to reach every surface's range (before clipping). */
static void extend(gs_fbox *b, const gs_fsurface *s, int ns) {
  memcpy(b->start, b->ostart, sizeof b->start);
  memcpy(b->stop, b->ostop, sizeof b->stop);
  for (int q = 0; q < ns; ++q) {
    const int a = s[q].axis;
    if (!s[q].plus && s[q].range[0] < b->start[a]) b->start[a] = s[q].range[0];
    if (s[q].plus && s[q].range[1] > b->stop[a]) b->stop[a] = s[q].range[1];
  }
}

/* The volume's materials: one material, or the fractal binned into the material list. */
static gs_status fill_data(const gs_fbox *b, const int64_t size[3], int16_t *data, char *why, size_t whylen) {
  const size_t cells = (size_t)(size[0] * size[1] * size[2]);
  if (b->nbins == 1) {
    for (size_t q = 0; q < cells; ++q)
      data[q] = (int16_t)b->material[0];
    return GS_OK;
  }
  float *v = malloc(sizeof *v * cells);
  int32_t *bin = malloc(sizeof *bin * cells);
  gs_status st = v && bin ? gs_fractal_volume(size, b->dimension, b->weighting, b->seed, v) : GS_ERR_NOMEM;
  if (st == GS_OK) gs_fractal_bin(v, cells, b->nbins, bin);
  for (size_t q = 0; st == GS_OK && q < cells; ++q) {
    if (bin[q] >= b->nmaterial) {
      snprintf(why, whylen, "bin %d has no material (the mixing model made %d; gprMax fails here)", (int)bin[q],
               b->nmaterial);
      st = GS_ERR_FORMAT;
    } else {
      data[q] = (int16_t)b->material[bin[q]];
    }
  }
  free(v);
  free(bin);
  return st;
}

/* The mask: 1 in the original box, then each surface in order. */
static void build_mask(const gs_fbox *b, gs_fsurface *s, int ns, const int64_t n[3], const fmask *k) {
  int64_t c[3];
  for (c[0] = b->ostart[0]; c[0] < b->ostop[0]; ++c[0])
    for (c[1] = b->ostart[1]; c[1] < b->ostop[1]; ++c[1])
      for (c[2] = b->ostart[2]; c[2] < b->ostop[2]; ++c[2])
        *mask_at(k, c) = 1;
  for (int q = 0; q < ns; ++q) {
    const int a = s[q].axis;
    s[q].range[0] = s[q].range[0] > 0 ? s[q].range[0] : 0;
    s[q].range[1] = s[q].range[1] < n[a] ? s[q].range[1] : n[a];
    if (!s[q].grass) {
      apply_roughness(k, &s[q]);
    } else if (s[q].plus) {
      grow_blades(k, &s[q], b->start);
      grow_roots(k, &s[q], b->start, b->stop, b->ostop);
    }
  }
}

gs_status gs_fbox_build(gs_fbox *b, gs_fsurface *s, int ns, const int64_t n[3], gs_fbox_cells *out, char *why,
                        size_t whylen) {
  memset(out, 0, sizeof *out);
  extend(b, s, ns);
  fmask k = {0};
  for (int a = 0; a < 3; ++a) {
    out->start[a] = k.start[a] = b->start[a];
    out->size[a] = k.size[a] = b->stop[a] - b->start[a];
  }
  const size_t cells = (size_t)(k.size[0] * k.size[1] * k.size[2]);
  if (!cells) { /* gprMax fails on it too (an FFT of no points) */
    snprintf(why, whylen, "the box spans no cells (%lld x %lld x %lld): a fractal box needs a volume",
             (long long)k.size[0], (long long)k.size[1], (long long)k.size[2]);
    return GS_ERR_FORMAT;
  }
  out->data = malloc(sizeof *out->data * cells);
  if (ns > 0) out->mask = k.m = calloc(cells, 1);
  gs_status st = out->data && (ns == 0 || out->mask) ? fill_data(b, out->size, out->data, why, whylen) : GS_ERR_NOMEM;
  if (st == GS_ERR_NOMEM) snprintf(why, whylen, "out of memory for %zu cells", cells);
  if (st == GS_OK && ns > 0) build_mask(b, s, ns, n, &k);
  if (st != GS_OK) gs_fbox_cells_free(out);
  return st;
}

void gs_fbox_cells_free(gs_fbox_cells *c) {
  free(c->data);
  free(c->mask);
  memset(c, 0, sizeof *c);
}

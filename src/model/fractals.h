/* gprMax 4's fractals (its fractals/ package and the build of
 * #fractal_box, #add_surface_roughness, #add_surface_water, #add_grass),
 * independent of the scene parser (src/model/scene_fractals.c reads the
 * commands and makes the materials; docs/gprmax-rules.md, "Fractal boxes",
 * says what matches gprMax and why).
 *
 * A fractal is white noise (numpy's default_rng(seed).standard_normal, in
 * C order) filtered in the Fourier domain by 1 / |r - r_c|^D (gprMax's
 * generate_fractal2D/3D: its positions, its fused multiply-adds and pow
 * calls), its mean removed, transformed back (FFTW here, pocketfft in
 * gprMax: the real parts agree to a few units in the last place of a
 * double) and stored as float32, as gprMax stores it. Arrays are [i][j][k]
 * with the last index fastest (numpy's C order). */
#ifndef GS_FRACTALS_H
#define GS_FRACTALS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "nprandom.h"

/* FractalVolume.generate_fractal_volume before binning: n cells, fractal
 * dimension `dimension` (gprMax passes it as a C float), weighting as given
 * (scaled here by min(n) / n, gprMax's filterscaling). out: n[0] n[1] n[2]
 * floats. GS_OK or GS_ERR_NOMEM. */
gs_status gs_fractal_volume(const int64_t n[3], double dimension, const double weighting[3], uint64_t seed, float *out);

/* FractalSurface.generate_fractal_surface: n[0] x n[1] values scaled onto
 * [lo, hi] with gprMax's float32 arithmetic. GS_OK, GS_ERR_NOMEM, or
 * GS_ERR_FORMAT for a flat field (gprMax divides by its zero range). */
gs_status gs_fractal_surface(const int64_t n[2], double dimension, const double weighting[2], uint64_t seed, int64_t lo,
                             int64_t hi, float *out);

/* gprMax's binning of a fractal volume: bins = linspace(min, max, nbins)
 * (float64 from the float32 extremes, numpy 1.x), each value's bin =
 * digitize(v, bins, right=True), the number of bins below it (0 .. nbins - 1). */
void gs_fractal_bin(const float *v, size_t n, int nbins, int32_t *bin);

/* One blade field of #add_grass (gprMax's Grass): per blade its two growth
 * rates (10 + 20 U, float32) and two signs (choice([-1, 1])), each column
 * drawn from its own default_rng(seed); the roots' random walks draw from
 * two more of the same seed. */
typedef struct gs_grass {
  int64_t nblades;
  float *gp; /* [nblades][6]: rate 1, rate 2, sign 1, sign 2, root walk 1, root walk 2 */
  gs_pcg64 r5, r6;
} gs_grass;

/* The blades' parameters (Grass.set_geometry_parameters); 0 or -1 out of memory. */
int gs_grass_init(gs_grass *g, int64_t nblades, uint64_t seed);
void gs_grass_free(gs_grass *g);
/* Grass.calculate_blade_geometry: the blade's offsets at `height` cells. */
void gs_grass_blade(const gs_grass *g, int64_t blade, int64_t height, int64_t *u, int64_t *w);
/* Grass.calculate_root_geometry: the root's next offsets (one random step each). */
void gs_grass_root(gs_grass *g, int64_t root, int64_t *u, int64_t *w);

/* #add_grass's blade map (AddGrass.build): a fractal surface scaled to [0,
 * 1] as a probability (float32 sum and cumulative sum, numpy's order),
 * nblades positions drawn from RandomState(seed).random_sample and a height
 * each from randint(lo, hi). heights: n[0] x n[1], 0 where no blade stands.
 * 0, or -1 with gprMax's failure in why (a distribution numpy refuses, a
 * draw past its last bin, lo >= hi). */
int gs_grass_heights(const int64_t n[2], double dimension, const double weighting[2], uint64_t seed, int64_t nblades,
                     int64_t lo, int64_t hi, double *heights, char *why, size_t whylen);

/* ---- a fractal box with its surfaces (FractalBox.build) ---- */

/* A rough surface, or grass, on one face of a box. */
typedef struct gs_fsurface {
  int axis;             /* the face's normal: 0 x, 1 y, 2 z */
  int plus;             /* the upper face (xplus, yplus, zplus) */
  int64_t lo[3], hi[3]; /* its cells across the face (lo[axis] == hi[axis]) */
  int64_t range[2];     /* gprMax's fractalrange along the normal, cells */
  int64_t filldepth;    /* #add_surface_water: cells (0: none) */
  float *height;        /* roughness: [n_u][n_w] float32 (u, w: the other axes in order) */
  double *blades;       /* grass: heights [n_u][n_w], 0: no blade */
  gs_grass *grass;      /* grass: its blades' parameters */
} gs_fsurface;

/* The volume: original and extended cells, and the material of each bin. */
typedef struct gs_fbox {
  int64_t ostart[3], ostop[3]; /* as given */
  int64_t start[3], stop[3];   /* extended to the surfaces' ranges */
  double dimension, weighting[3];
  uint64_t seed;
  int nbins;           /* 1: one material (material[0]) */
  const int *material; /* bin -> material number (gprMax's mixing model matID) */
  int nmaterial;
} gs_fbox;

/* What the box paints (build_voxels_from_array[_mask]): cells [start,
 * start + size), data the material, mask 0 nothing, 1 data, 2 water, 3
 * grass (mask NULL: every cell with its data). */
typedef struct gs_fbox_cells {
  int64_t start[3], size[3];
  int16_t *data;
  int8_t *mask;
} gs_fbox_cells;

/* Builds the box's cells: the volume extended to its surfaces, binned
 * into materials (or one material), the mask of its rough surfaces, water
 * and grass applied in the surfaces' order, clipped to the model's n.
 * GS_OK, GS_ERR_NOMEM, or GS_ERR_FORMAT (why: a bin past the material list). */
gs_status gs_fbox_build(gs_fbox *b, gs_fsurface *s, int ns, const int64_t n[3], gs_fbox_cells *out, char *why,
                        size_t whylen);
void gs_fbox_cells_free(gs_fbox_cells *c);

#endif

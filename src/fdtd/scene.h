/* gprMax-compatible scene files for 2D TMz models (docs/fdtd.md lists the
 * commands and their meaning here). */
#ifndef GS_SCENE_H
#define GS_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum {
  GS_WAVE_GAUSSIAN,
  GS_WAVE_GAUSSIANDOT,
  GS_WAVE_GAUSSIANDOTNORM,
  GS_WAVE_GAUSSIANDOTDOT,
  GS_WAVE_GAUSSIANDOTDOTNORM,
  GS_WAVE_RICKER,
  GS_WAVE_SINE,
  GS_WAVE_CONTSINE
};

typedef struct gs_material {
  char name[64];
  double er, sigma; /* relative permittivity, conductivity (S/m) */
  int pec;
} gs_material;

typedef struct gs_waveform {
  char name[64];
  int type;
  double amp, freq;
} gs_waveform;

typedef struct gs_source {
  int64_t i, j; /* Ez node, first run */
  int waveform;
  double start, stop; /* seconds */
} gs_source;

typedef struct gs_rx {
  int64_t i, j;
  char name[64];
} gs_rx;

enum { GS_OBJ_BOX, GS_OBJ_CYLINDER, GS_OBJ_MAP };

typedef struct gs_object {
  int type;
  int material;             /* box, cylinder */
  double x0, y0, x1, y1, r; /* metres: box corners; cylinder centre (x0, y0) and radius */
  int64_t mi0, mj0;         /* map: lower-left node */
  uint32_t mw, mh;          /* map: picture size */
  uint8_t *grey;            /* map: picture, top row first */
  int16_t lut[256];         /* map: grey level -> material, -1 keeps */
} gs_object;

/* CFS-CPML parameter profile: value(d) = min + (max - min) * d^order with d
 * the depth into the PML (0 at its inner face, 1 at the wall; reversed:
 * 1 - d). max < 0 for sigma means "computed" (gprMax's default). */
typedef struct gs_cfs_param {
  int order;
  int reverse;
  double min, max;
} gs_cfs_param;

typedef struct gs_scene {
  char path[1024];
  char title[256];
  double dx, dy, dz, dt, stability;
  int64_t nx, ny; /* cells; Ez nodes 0..nx x 0..ny */
  int64_t iterations;
  int pml[4]; /* cells at x-, y-, x+, y+ */
  gs_cfs_param cfs_alpha, cfs_kappa, cfs_sigma;
  int messages;
  int64_t snapshot_every;               /* 0: none */
  int64_t src_di, src_dj, rx_di, rx_dj; /* cells moved per run */
  gs_material *materials;               /* [0] free_space, [1] pec */
  int nmaterials;
  gs_waveform *waveforms;
  int nwaveforms;
  gs_source *sources;
  int nsources;
  gs_rx *rxs;
  int nrx;
  gs_object *objects;
  int nobjects;
  uint64_t hash; /* FNV-1a of the scene and the files it reads */
} gs_scene;

/* Iterations a scene may ask for at most (2^40); whether a model of that many
 * steps fits in memory is checked later, against what the rank has. */
#define GS_SCENE_MAX_ITERATIONS 1099511627776.0

/* Parses path, which must be a regular file (a FIFO or folder is refused
 * without blocking). On failure returns GS_ERR_FORMAT (or GS_ERR_IO) with one
 * line "FILE:LINE: reason" in err, and *s is left empty (already freed;
 * gs_scene_free() on it is harmless). */
gs_status gs_scene_load(const char *path, gs_scene *s, char *err, size_t errlen);
void gs_scene_free(gs_scene *s);

/* A benchmark scene: nx x ny cells of 1 mm, soil in the lower half, 10-cell
 * CPML, a Ricker source and a receiver near the centre. */
void gs_scene_synthetic(gs_scene *s, int64_t nx, int64_t ny, int64_t iterations);

/* Material index of Ez node (i, j) after painting every object in order. */
int gs_scene_material_at(const gs_scene *s, int64_t i, int64_t j);

/* Waveform value at time t (seconds), gprMax's definitions. */
double gs_waveform_value(const gs_waveform *w, double t);

#endif

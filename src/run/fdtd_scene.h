/* Each run's scene for the fdtd command (docs/usage.md, "fdtd"): rank 0 of
 * the ranks that run it expands the input file (its #include_file commands;
 * its #python blocks, run by the user's python3) and sends the expanded text
 * to the other ranks; every rank parses it. A file with #python blocks is
 * expanded anew for every run (its blocks see current_model_run); a file
 * without them once. --write-processed writes the text as gprMax's
 * MODEL_processed.in into the output folder. */
#ifndef GS_FDTD_SCENE_H
#define GS_FDTD_SCENE_H

#include <stdint.h>

#include "comm.h"
#include "fdtd_opts.h"
#include "scene.h"

typedef struct gs_fdtd_scenes {
  const gs_fdtd_opts *o;
  const char *path;
  double host_bytes; /* the host memory a rank may use (gs_scene_load_within) */
  gs_scene_python py;
  char libdir[1200];
  int per_run;         /* the file has #python blocks: every run parses its own scene */
  gs_scene_text *text; /* rank 0: the latest expansion, until written (--write-processed) */
  int64_t text_run;    /* its run (0-based) */
  char outdir[1100];   /* "" until the output folder is made */
  int have_grid;       /* grid: run 1's, which every later run must have */
  int64_t grid_n[4];   /* nx, ny, nz, iterations */
  double grid_d[4];    /* dx, dy, dz, dt */
  int grid_pml[10];    /* pml, pml6 */
} gs_fdtd_scenes;

/* Sets f up for the input file path (the options and the host memory a rank may use). */
void gs_fdtd_scenes_init(gs_fdtd_scenes *f, const gs_fdtd_opts *o, const char *path, double host_bytes);
void gs_fdtd_scenes_free(gs_fdtd_scenes *f);

/* Collective over c->world: the scene of run r (0-based) in sc, with the
 * options' overrides (--steps, --snapshot-every), its outputs checked against
 * each other over the runs (gs_scene_check_outputs) and, after the first
 * load, its grid, time step and PML checked against run 1's (the runs of one
 * job share them). With --write-processed and the output folder known, rank 0
 * writes the run's processed file. 0, or 1 on every rank after one line said
 * once (sc empty). */
int gs_fdtd_scene_load(gs_fdtd_scenes *f, const gs_comm *c, int64_t r, gs_scene *sc);

/* Collective over c->world: the output folder is made; with --write-processed
 * rank 0 writes the processed file of the text in hand (of every run when the
 * file has no #python blocks), and later loads write theirs. 0, or on every
 * rank after one line 2 (a processed file would overwrite an input) or 1 (it
 * could not be written). */
int gs_fdtd_scenes_outdir(gs_fdtd_scenes *f, const gs_comm *c, const char *outdir);

#endif

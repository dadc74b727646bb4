/* The fdtd command for a 3D model (one rank; docs/fdtd.md, "3D models"). */
#ifndef GS_FDTD3D_CMD_H
#define GS_FDTD3D_CMD_H

#include "backend.h"
#include "comm.h"
#include "fdtd_opts.h"
#include "fdtd_scene.h"
#include "scene.h"

/* Collective over c: runs o->runs runs of 3D
 * scene sc into outdir (made, with gs_fdtd_make_outdir, once the first run
 * is set up: a scene refused before leaves no folder), writing MODEL.h5
 * (MODELn.h5) and receivers.csv (receivers_runNNN.csv) as the 2D engine
 * does. Returns a GS_EXIT_* status; refuses, before any work, what 3D models
 * do not take yet. sc is run 1's scene; where the input's #python blocks give
 * every run its own, each later run loads its scene from scenes (NULL: none). */
int gs_fdtd3_run(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, const char *outdir,
                 gs_fdtd_scenes *scenes);

/* Collective over c: rank 0 makes the output folder outdir (and outdir/snapshots
 * when snapshots is set) and, with scenes, writes what --write-processed asks
 * for there (gs_fdtd_scenes_outdir); 0, or on every rank after one line on
 * rank 0: 1 (the folder and the system's reason) or 2 (a processed file would
 * overwrite an input). Called once a model's first run
 * is set up (fdtd_cmd.c). */
int gs_fdtd_make_outdir(const gs_comm *c, const char *outdir, int snapshots, gs_fdtd_scenes *scenes);

#endif

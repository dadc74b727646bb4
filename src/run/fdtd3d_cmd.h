/* The fdtd command for a 3D model (one rank; docs/fdtd.md, "3D models"). */
#ifndef GS_FDTD3D_CMD_H
#define GS_FDTD3D_CMD_H

#include "backend.h"
#include "comm.h"
#include "fdtd_opts.h"
#include "fdtd_scene.h"
#include "scene.h"

/* Collective over c (which must hold one rank): runs o->runs runs of 3D
 * scene sc into outdir (made), writing MODEL.h5 (MODELn.h5) and
 * receivers.csv (receivers_runNNN.csv) as the 2D engine does. Returns a
 * GS_EXIT_* status; refuses, before any work, what 3D models do not take yet.
 * sc is run 1's scene; where the input's #python blocks give every run its
 * own, each later run loads its scene from scenes (NULL: none). */
int gs_fdtd3_run(const gs_comm *c, const gs_backend *b, const gs_fdtd_opts *o, const gs_scene *sc, const char *outdir,
                 gs_fdtd_scenes *scenes);

#endif

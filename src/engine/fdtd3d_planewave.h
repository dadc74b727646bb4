/* The 3D model's discrete plane waves (#plane_wave_angles,
 * #plane_wave_vector; kernels/fdtd3d_pw.h has their order within a step). */
#ifndef GS_FDTD3D_PLANEWAVE_H
#define GS_FDTD3D_PLANEWAVE_H

#include "fdtd3d.h"

/* Sets up the scene's plane waves for run m->run, after the materials:
 * GS_OK, or GS_ERR_USAGE with the reason in err. */
gs_status gs_fdtd3_pw_init(gs_fdtd3_sim *m, char *err, size_t errlen);
/* Queues part GS_FDTD3_PW_H or _E of every plane wave for step t, after the fused update a and the
 * other sources' part. On a part of a split model (fdtd3d_dist.c) the H part must come after
 * the H pass and the H sources and before the H ghosts are sent (the E pass then reads the
 * corrected H, its ghosts included), the E part after the E sources and before the E ghosts
 * are sent; each rank corrects its owned nodes only. */
void gs_fdtd3_pw_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t, int part);
/* The E nodes whose new E the plane waves change after the E update (the
 * total-field E nodes on the boxes' faces) or update again (those whose
 * curl reads a corrected H node): fn(ctx, component, i, j, k) for each, the
 * nodes m owns and some next to them, duplicates possible. */
void gs_fdtd3_pw_e_nodes(const gs_fdtd3_sim *m, gs_fdtd3_node_fn fn, void *ctx);
/* The 1D grids' state as checkpoint sections (3 per plane wave); returns the count. */
int gs_fdtd3_pw_state(gs_fdtd3_sim *m, gs_fdtd3_state *out);
void gs_fdtd3_pw_free(gs_fdtd3_sim *m);

/* Bytes the plane waves need (device; the host holds the tables once while they are made). */
double gs_fdtd3_pw_memory(const gs_scene *sc);

/* gprMax's choice of the rational direction m for angles theta, phi
 * (degrees) on cells d within tolerance tol (degrees): 0 and m, the angles
 * it stands for (degrees); -1 when gprMax finds none or would overflow. */
int gs_fdtd3_pw_direction(double theta, double phi, const double d[3], double tol, int64_t m[3], double angles[2]);

#endif

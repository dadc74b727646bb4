/* Dispersive materials (Debye, Lorentz, Drude) in a 3D model (issue #18): the pole state of the nodes
 * whose material is dispersive and the two update halves around the step
 * (kernels/fdtd3d_disp.h says why the work is split this way). */
#ifndef GS_FDTD3D_DISP_HOST_H
#define GS_FDTD3D_DISP_HOST_H

#include "fdtd3d.h"
#include "geometry3d.h"

/* After the coefficients are made (fdtd3d.c's init_materials), before the
 * sources take srce: the dispersive materials' coefficients (gprMax's EA
 * with the poles) replace theirs, on the host and the device, and the node
 * lists and pole state are made. NULL (and nothing changed) when the scene
 * has no dispersion. */
gs_fdtd3_disp *gs_fdtd3_disp_init(gs_fdtd3_sim *m, const gs_geometry3 *g);
/* After gs_fdtd3_step (a: its arguments): the listed nodes' E again. */
void gs_fdtd3_disp_after_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a);
/* After the sources: the poles' second half from the final new E. */
void gs_fdtd3_disp_after_sources(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a);
void gs_fdtd3_disp_free(gs_fdtd3_sim *m);
/* Device bytes the model's lists, pole state and coefficients take (0
 * without dispersion). */
/* The pole state as checkpoint sections (gs_fdtd3_sim_state); returns the count (0 without poles). */
int gs_fdtd3_disp_state(gs_fdtd3_sim *m, gs_fdtd3_state *out);
double gs_fdtd3_disp_bytes(const gs_fdtd3_sim *m);
/* Device bytes of the pole state and lists (also made on the host first),
 * an upper bound from the
 * dispersive objects' boxes (before the geometry is built). */
double gs_fdtd3_disp_memory(const gs_scene *sc);

#endif

/* Dispersive materials (Debye, Lorentz, Drude) in a 3D model (issue #18): the pole state of the nodes
 * whose material is dispersive, advanced by the E update itself (fused nodes) or, where a source
 * changes a node's E after that update, by two halves around the sources (deferred nodes;
 * kernels/fdtd3d_disp.h says why). */
#ifndef GS_FDTD3D_DISP_HOST_H
#define GS_FDTD3D_DISP_HOST_H

#include "fdtd3d.h"
#include "geometry3d.h"

/* After the coefficients are made (fdtd3d.c's init_materials), before the
 * sources take srce: the dispersive materials' coefficients (gprMax's EA
 * with the poles) replace theirs, on the host and the device. NULL (and
 * nothing changed) when the scene has no dispersion. */
gs_fdtd3_disp *gs_fdtd3_disp_init(gs_fdtd3_sim *m, const gs_geometry3 *g);
/* After the sources and plane waves are set up: the dispersive nodes m owns
 * split into fused and deferred ones (kernels/fdtd3d_disp.h; every one
 * deferred with GS_FDTD3_DISP=passes in the environment), the map made and
 * the pole state zeroed. Called again for each later run of a survey on the
 * same model (gs_fdtd3_sim_keep): the split follows that run's sources, in
 * the arrays of the run before where they hold it. GS_OK, or GS_ERR_USAGE
 * with the reason in err. */
gs_status gs_fdtd3_disp_place(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen);
/* The fused nodes' poles into the step's arguments (nothing without dispersion). */
void gs_fdtd3_disp_poles(const gs_fdtd3_sim *m, gs_fdtd3_step_args *a);
/* After gs_fdtd3_step and the H sources (a: the step's arguments): the
 * deferred nodes' E again, with their poles' first half. */
void gs_fdtd3_disp_after_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a);
/* After the E sources: the deferred nodes' poles' second half from the final new E. */
void gs_fdtd3_disp_after_sources(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a);
void gs_fdtd3_disp_free(gs_fdtd3_sim *m);
/* The pole state as checkpoint sections (gs_fdtd3_sim_state): per component
 * the fused nodes' (disp.poles.e[xyz]) and the deferred ones'
 * (disp.defer.e[xyz]) where there are any; returns the count (0 without poles). */
int gs_fdtd3_disp_state(gs_fdtd3_sim *m, gs_fdtd3_state *out);
/* Device bytes the model's map, lists, pole state and coefficients take (0
 * without dispersion). */
double gs_fdtd3_disp_bytes(const gs_fdtd3_sim *m);
/* Device bytes of the pole state, map and lists (also made on the host
 * first), an upper bound from the dispersive objects' boxes (before the
 * geometry is built). */
double gs_fdtd3_disp_memory(const gs_scene *sc);

#endif

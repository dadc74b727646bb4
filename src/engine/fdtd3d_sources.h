/* The 3D model's magnetic dipoles, voltage sources and transmission lines
 * (kernels/fdtd3d_src.h has their order within a step). */
#ifndef GS_FDTD3D_SRC_ENGINE_H
#define GS_FDTD3D_SRC_ENGINE_H

#include "fdtd3d.h"

/* One transmission line at a run's end (gprMax's TransmissionLine outputs): its
 * position (metres), resistance (Ohms) and dl (m), and its four series of n
 * samples. */
typedef struct gs_fdtd3_line_record {
  double pos[3];
  double resistance, dl;
  int64_t n;
  const float *vinc, *iinc, *vtotal, *itotal;
} gs_fdtd3_line_record;

/* Sets up the scene's sources for run m->run, after the materials and before
 * the Hertzian dipoles (a resistive voltage source changes its node's
 * material, as in gprMax): GS_OK, or GS_ERR_USAGE with the reason in err. */
gs_status gs_fdtd3_src_init(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen);
/* Gives the nodes whose materials the resistive voltage sources changed
 * their geometry's materials back (on the device; synchronous): before the
 * sources of a survey's next run are set up on the same arrays
 * (gs_fdtd3_sim_keep). Nothing without sources. */
void gs_fdtd3_src_restore(gs_fdtd3_sim *m);
/* Queues the sources of step t, after the fused H and E update a. */
void gs_fdtd3_src_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t, int part);
/* The E nodes whose new E the sources change after the E update (every
 * voltage source's, line's and Hertzian dipole's node) or update again
 * (those whose curl reads a magnetic dipole's H node), for run m->run:
 * fn(ctx, component, i, j, k) for each, owned or not, duplicates possible
 * (kernels/fdtd3d_disp.h's deferred nodes). */
void gs_fdtd3_src_e_nodes(const gs_fdtd3_sim *m, gs_fdtd3_node_fn fn, void *ctx);
/* Transmission lines a checkpoint holds (5 sections each, within GS_FDTD3_MAX_STATE with the
 * fields, CPML and poles); a model with more is refused checkpoints. */
#define GS_FDTD3_CKPT_LINES 20
/* The transmission lines' state as checkpoint sections (gs_fdtd3_sim_state; the other sources
 * keep none); returns the count. */
int gs_fdtd3_src_state(gs_fdtd3_sim *m, gs_fdtd3_state *out);
/* Transmission lines, and line q's outputs (vtotal, itotal: iterations + 1
 * floats each, filled here; out points into them and into m). */
int gs_fdtd3_src_lines(const gs_fdtd3_sim *m);
/* The scene's source of line q (0 <= q < gs_fdtd3_src_lines(m)). */
const gs_source3 *gs_fdtd3_src_line_of(const gs_fdtd3_sim *m, int q);
void gs_fdtd3_src_line(const gs_fdtd3_sim *m, int q, gs_fdtd3_line_record *out, float *vtotal, float *itotal);
void gs_fdtd3_src_free(gs_fdtd3_sim *m);

#endif

/* CPU twin of kernels/fdtd3d_pw.cu (compiled with -ffp-contract=off): the
 * same expressions (fdtd3d_pw_node.h) in gprMax's order. */
#include "fdtd3d_pw.h"
#include "fdtd3d_pw_node.h"

/* The corrections of the face lists of axis a (no node twice within one axis). */
static void correct_axis(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int e, int axis) {
  for (int f = 4 * axis; f < 4 * axis + 4; ++f) {
    gs_pw_face fc;
    const int64_t count = gs_pw_face_init(w, e, f, &fc);
    for (int64_t t = 0; t < count; ++t)
      gs_pw_correct(a, w, e, &fc, t);
  }
}

int gs_fdtd3_pw_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_pw *w, int part, gs_tick t, void *stream) {
  (void)stream;
  const gs_fdtd3_step_args local = *args, *a = &local;
  const int64_t step = gs_tick_value(t);
  if (part == GS_FDTD3_PW_H) {
    for (int64_t j = 0; j < w->n; ++j)
      gs_pw_h1(w, j, step);
    for (int axis = 0; axis < 3; ++axis)
      correct_axis(a, w, 0, axis);
    for (int f = 0; f < 12 && w->again; ++f) {
      gs_pw_face fc;
      const int64_t count = gs_pw_face_init(w, 0, f, &fc);
      for (int64_t q = 0; q < count; ++q)
        for (int r = 0; r < 4; ++r)
          gs_pw_e_again(a, &fc, q, r);
    }
  } else {
    for (int64_t j = 0; j < w->n; ++j)
      gs_pw_e1(w, j, step);
    for (int axis = 0; axis < 3; ++axis)
      correct_axis(a, w, 1, axis);
  }
  return 0;
}

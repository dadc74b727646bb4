/* CPU twin of kernels/fdtd3d_src.cu (compiled with -ffp-contract=off). */
#include "fdtd3d_src.h"
#include "fdtd3d_src_node.h"

int gs_fdtd3_sources_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_srcs *s, gs_tick t, void *stream) {
  (void)stream;
  const gs_fdtd3_step_args local = *args, *a = &local;
  const int64_t step = gs_tick_value(t);
  const int part = s->part ? s->part : GS_FDTD3_SRC_H | GS_FDTD3_SRC_E;
  for (int q = 0; q < s->ntl && (part & GS_FDTD3_SRC_H); ++q)
    gs_fdtd3_tl_h(a, &s->tl[q], step);
  for (int q = 0; q < s->nmag && (part & GS_FDTD3_SRC_H); ++q)
    gs_fdtd3_src_mag(a, s, q, step);
  for (int q = 0; q < s->nmag && (part & GS_FDTD3_SRC_H); ++q)
    for (int w = 0; w < 4; ++w)
      gs_fdtd3_src_mag_e(a, s, q, w);
  if (!(part & GS_FDTD3_SRC_E)) return 0;
  for (int q = 0; q < s->nvolt; ++q)
    gs_fdtd3_src_volt(a, s, q, step);
  for (int q = 0; q < s->ntl; ++q)
    gs_fdtd3_tl_e(a, &s->tl[q], step);
  for (int q = 0; q < s->nhd; ++q)
    gs_fdtd3_src_hertz(a, s, q, step);
  return 0;
}

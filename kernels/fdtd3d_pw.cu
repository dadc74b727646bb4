// The discrete plane wave of fdtd3d_pw.h on the GPU (--fmad=false; the
// expressions of fdtd3d_pw_node.h, shared with the CPU twin). Each launch is
// one stage of the CPU twin's order: the 1D cells are independent within a
// part (H reads E only, E reads H only); the face lists of one axis never
// share a node; the E nodes updated again after the H corrections may be
// reached from two H nodes, and both threads write the same bits.
#include <cuda_runtime.h>

#include "fdtd3d_pw.h"
#include "fdtd3d_pw_node.h"

namespace {

constexpr int kThreads = 256;

__global__ void line_kernel(const gs_fdtd3_pw w, int e, gs_tick t) {
  const int64_t step = gs_tick_value(t);
  const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= w.n) return;
  if (e)
    gs_pw_e1(&w, j, step);
  else
    gs_pw_h1(&w, j, step);
}

// Face lists [f0, f1): thread t takes node t of the lists laid end to end;
// again: the four E nodes around each (H) node instead of the correction.
__global__ void face_kernel(const gs_fdtd3_step_args a, const gs_fdtd3_pw w, int e, int f0, int f1, int again) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int f = f0; f < f1; ++f) {
    gs_pw_face fc;
    const int64_t count = gs_pw_face_init(&w, e, f, &fc) * (again ? 4 : 1);
    if (t < count) {
      if (again)
        gs_pw_e_again(&a, &fc, t / 4, (int)(t % 4));
      else
        gs_pw_correct(&a, &w, e, &fc, t);
      return;
    }
    t -= count;
  }
}

int64_t face_count(const gs_fdtd3_pw *w, int e, int f0, int f1) {
  int64_t total = 0;
  for (int f = f0; f < f1; ++f) {
    gs_pw_face fc;
    total += gs_pw_face_init(w, e, f, &fc);
  }
  return total;
}

unsigned blocks(int64_t n) {
  return (unsigned)((n + kThreads - 1) / kThreads);
}

} // namespace

extern "C" int gs_fdtd3_pw_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int part, gs_tick t, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const int e = part == GS_FDTD3_PW_E;
  if (w->n < 1) return 0;
  line_kernel<<<blocks(w->n), kThreads, 0, s>>>(*w, e, t);
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t n = face_count(w, e, 4 * axis, 4 * axis + 4);
    if (n > 0) face_kernel<<<blocks(n), kThreads, 0, s>>>(*a, *w, e, 4 * axis, 4 * axis + 4, 0);
  }
  if (!e && w->again) {
    const int64_t n = 4 * face_count(w, 0, 0, 12);
    if (n > 0) face_kernel<<<blocks(n), kThreads, 0, s>>>(*a, *w, 0, 0, 12, 1);
  }
  return (int)cudaGetLastError();
}

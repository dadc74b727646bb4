// The SM count of the current device, for the launchers that size grids by
// it (kernels/fdtd.cu, kernels/halo.cu). Asked once per process (a rank uses
// one device); 0 when the query fails, its error then pending for
// cudaGetLastError().
#ifndef GS_SM_COUNT_CUH
#define GS_SM_COUNT_CUH

#include <cuda_runtime.h>

static inline int gs_sm_count() {
  static int n = 0;
  if (!n) {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess)
      n = v;
  }
  return n;
}

#endif

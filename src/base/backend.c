#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

const gs_backend *gs_backend_choose(const char *which, char *why, size_t whylen) {
  if (strcmp(which, "cpu") == 0) return &gs_backend_cpu;
#ifdef GS_HAVE_CUDA
  int n = gs_cuda_probe();
  if (strcmp(which, "cuda") == 0) {
    if (n > 0) return &gs_backend_cuda;
    snprintf(why, whylen, "--backend cuda: no CUDA GPU is visible to this process");
    return NULL;
  }
  if (n > 0) return &gs_backend_cuda;
  gs_log_notice("no CUDA GPU visible: using the CPU backend");
  return &gs_backend_cpu;
#else
  if (strcmp(which, "cuda") == 0) {
    snprintf(why, whylen, "--backend cuda: this gpustencil was built without CUDA");
    return NULL;
  }
  gs_log_notice("built without CUDA: using the CPU backend");
  return &gs_backend_cpu;
#endif
}

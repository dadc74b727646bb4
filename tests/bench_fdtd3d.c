/* The 3D FDTD step on one GPU: bench_fdtd3d N [STEPS [PML]] times STEPS
 * steps (default 20) of an N^3 grid (random dielectrics, free-space H, PML
 * cells on every face, default 0) and prints Mcells/s, the bytes per cell the
 * fused kernel moves (6 fields read and written, 3 material bytes), the
 * bandwidth that makes, and its ratio to a device-to-device cudaMemcpy of
 * 1 GiB measured in the same run. Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd3d_kernels.h"
#ifdef GS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#ifdef GS_HAVE_CUDA
#define CU(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "bench_fdtd3d: %s: %s\n", #call, cudaGetErrorString(e_));                                        \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static void *dev_zero(size_t bytes) {
  void *p;
  CU(cudaMalloc(&p, bytes));
  CU(cudaMemset(p, 0, bytes));
  return p;
}

static void *dev_copy(const void *h, size_t bytes) {
  void *p;
  CU(cudaMalloc(&p, bytes));
  CU(cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice));
  return p;
}

/* Device-to-device copy bandwidth (bytes read + written per second). */
static double copy_bandwidth(void) {
  const size_t bytes = (size_t)1 << 30;
  void *a = dev_zero(bytes), *b = dev_zero(bytes);
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  CU(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
  CU(cudaEventRecord(e0, 0));
  for (int r = 0; r < 10; ++r)
    CU(cudaMemcpyAsync(r % 2 ? a : b, r % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, 0));
  CU(cudaEventRecord(e1, 0));
  CU(cudaEventSynchronize(e1));
  float ms = 0;
  CU(cudaEventElapsedTime(&ms, e0, e1));
  CU(cudaFree(a));
  CU(cudaFree(b));
  return 2.0 * 10 * (double)bytes / (ms * 1e-3);
}

/* PML slabs of p cells on every face, gprMax's order, with plausible
 * profiles and zero psi (two buffer sets). */
static void add_slabs(gs_fdtd3_step_args *a, gs_fdtd3_step_args *b, int64_t n, int p) {
  float *prof = malloc((size_t)p * sizeof *prof);
  for (int f = 0; f < 6 && p > 0; ++f) {
    gs_fdtd3_slab *s = &a->slab[a->nslab++], *t = &b->slab[b->nslab++];
    s->dir = f % 3, s->side = f / 3, s->t = p, s->sa = n, s->sb = n;
    const float *pr[8];
    for (int w = 0; w < 8; ++w) { /* RA - 1, RB, RE, RF for E, then for H */
      for (int q = 0; q < p; ++q)
        prof[q] = w % 4 == 0 ? -0.05f : w % 4 == 3 ? 0.01f : 0.9f;
      pr[w] = dev_copy(prof, (size_t)p * sizeof *prof);
    }
    s->d = 1.0f;
    s->ra1e = pr[0], s->rbe = pr[1], s->ree = pr[2], s->rfe = pr[3];
    s->ra1h = pr[4], s->rbh = pr[5], s->reh = pr[6], s->rfh = pr[7];
    const size_t bytes = (size_t)(p * n * n) * sizeof(float);
    for (int w = 0; w < 2; ++w) {
      s->psi_e_out[w] = dev_zero(bytes), s->psi_h_out[w] = dev_zero(bytes);
      s->psi_e_in[w] = dev_zero(bytes), s->psi_h_in[w] = dev_zero(bytes);
    }
    *t = *s;
    for (int w = 0; w < 2; ++w) {
      t->psi_e_in[w] = s->psi_e_out[w], t->psi_h_in[w] = s->psi_h_out[w];
      t->psi_e_out[w] = (float *)s->psi_e_in[w], t->psi_h_out[w] = (float *)s->psi_h_in[w];
    }
  }
  free(prof);
}

/* Two argument sets (a reads set 0 and writes set 1, b the reverse) of an n^3
 * grid. */
static void make_args(gs_fdtd3_step_args *a, gs_fdtd3_step_args *b, int64_t n, int pml) {
  int64_t count;
  memset(a, 0, sizeof *a);
  a->nx = a->ny = a->nz = n;
  gs_fdtd3_layout(n, n, n, &a->pitch, &a->plane, &count);
  float *f[12];
  for (int c = 0; c < 12; ++c)
    f[c] = dev_zero((size_t)count * sizeof(float));
  uint8_t *m = malloc((size_t)count);
  for (int64_t o = 0; o < count; ++o)
    m[o] = (uint8_t)((o * 2654435761u >> 7) % 4);
  a->mex = dev_copy(m, (size_t)count), a->mey = dev_copy(m, (size_t)count), a->mez = dev_copy(m, (size_t)count);
  free(m);
  gs_fdtd3_coef coef[GS_FDTD3_MAX_MATERIALS];
  for (int q = 0; q < GS_FDTD3_MAX_MATERIALS; ++q) {
    float er = 1.0f + (float)(q % 4);
    gs_fdtd3_coef c = {1.0f, 0.5f / er, 0.5f / er, 0.5f / er, 0.5f / er};
    coef[q] = c;
  }
  a->coef = dev_copy(coef, sizeof coef);
  a->dbx = a->dby = a->dbz = a->srcm = 0.5f;
  *b = *a;
  a->ex = f[0], a->ey = f[1], a->ez = f[2], a->hx = f[3], a->hy = f[4], a->hz = f[5];
  a->ex_out = f[6], a->ey_out = f[7], a->ez_out = f[8], a->hx_out = f[9], a->hy_out = f[10], a->hz_out = f[11];
  b->ex = f[6], b->ey = f[7], b->ez = f[8], b->hx = f[9], b->hy = f[10], b->hz = f[11];
  b->ex_out = f[0], b->ey_out = f[1], b->ez_out = f[2], b->hx_out = f[3], b->hy_out = f[4], b->hz_out = f[5];
  add_slabs(a, b, n, pml);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_fdtd3d N [STEPS [PML]]\n");
    return 2;
  }
  const int64_t n = atoll(argv[1]), steps = argc > 2 ? atoll(argv[2]) : 20;
  const int pml = argc > 3 ? atoi(argv[3]) : 0;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("no CUDA GPU visible: skipped\n");
    return 77;
  }
  if (n < 4 || steps < 1 || pml < 0 || 2 * pml >= n) return 2;
  gs_fdtd3_step_args a[2];
  make_args(&a[0], &a[1], n, pml);
  const int64_t off = n / 2 * a[0].plane + n / 2 * a[0].pitch + n / 2;
  const float one = 1.0f;
  int64_t *d_off = dev_copy(&off, sizeof off);
  float *d_val = dev_copy(&one, sizeof one);
  gs_fdtd3_region r = {0, n + 1, 0, n + 1, 0, n + 1};
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  for (int64_t s = 0; s < steps + 2; ++s) {
    if (s == 2) CU(cudaEventRecord(e0, 0));
    CU((cudaError_t)gs_fdtd3_step_cuda(&a[s % 2], &r, 1, 0));
    CU((cudaError_t)gs_fdtd3_inject_cuda(a[s % 2].ez_out, d_off, d_val, 0, gs_tick_at(0), 1, 0));
  }
  CU(cudaEventRecord(e1, 0));
  CU(cudaEventSynchronize(e1));
  float ms = 0;
  CU(cudaEventElapsedTime(&ms, e0, e1));
  const double cells = (double)n * (double)n * (double)n * (double)steps, sec = ms * 1e-3;
  const double bpc = 12 * 4 + 3, bw = cells * bpc / sec, copy = copy_bandwidth();
  struct cudaDeviceProp prop;
  CU(cudaGetDeviceProperties(&prop, 0));
  printf("fdtd3d %lld^3, %lld steps, pml %d, %s: %.3f ms/step, %.0f Mcells/s, %.0f bytes/cell, %.0f GB/s, "
         "copy %.0f GB/s, ratio %.3f\n",
         (long long)n, (long long)steps, pml, prop.name, ms / (double)steps, cells / sec * 1e-6, bpc, bw * 1e-9,
         copy * 1e-9, bw / copy);
  return 0;
}
#else
int main(void) {
  printf("built without CUDA: skipped\n");
  return 77;
}
#endif

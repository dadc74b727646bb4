// Probe: L2 persistence attributes; peer copy uni/bidirectional (copy engine
// and SM stores / SM loads). One process, two GPUs.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
__global__ void push(float4 *dst, const float4 *src, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
int main() {
  int sms, l2, pmax, wmax;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&pmax, cudaDevAttrMaxPersistingL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&wmax, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  printf("sms %d l2 %d MB persist max %d MB window max %d MB\n", sms, l2 >> 20, pmax >> 20, wmax >> 20);
  int nd; CK(cudaGetDeviceCount(&nd)); if (nd < 2) return 0;
  size_t sizes[] = {1 << 20, 6 << 20, 24 << 20, 96 << 20};
  float *buf[2][2]; cudaStream_t st[2]; cudaEvent_t e0[2], e1[2];
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d)); cudaDeviceEnablePeerAccess(1 - d, 0); cudaGetLastError();
    CK(cudaMalloc(&buf[d][0], 96 << 20)); CK(cudaMalloc(&buf[d][1], 96 << 20));
    CK(cudaMemset(buf[d][0], 1, 96 << 20));
    CK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking)); CK(cudaEventCreate(&e0[d])); CK(cudaEventCreate(&e1[d]));
  }
  for (size_t bytes : sizes) for (int mode = 0; mode < 3; ++mode) for (int both = 0; both < 2; ++both) {
    double best = 0;
    for (int rep = 0; rep < 8; ++rep) {
      for (int d = 0; d <= both; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
      for (int d = 0; d <= both; ++d) {
        CK(cudaSetDevice(d)); CK(cudaEventRecord(e0[d], st[d]));
        float *src = buf[d][0], *dst = buf[1 - d][1];
        if (mode == 0) CK(cudaMemcpyPeerAsync(dst, 1 - d, src, d, bytes, st[d]));
        else if (mode == 1) push<<<sms * 4, 512, 0, st[d]>>>((float4 *)dst, (const float4 *)src, bytes / 16);
        else push<<<sms * 4, 512, 0, st[d]>>>((float4 *)buf[d][1], (const float4 *)buf[1 - d][0], bytes / 16); // pull
        CK(cudaEventRecord(e1[d], st[d]));
      }
      float worst = 0;
      for (int d = 0; d <= both; ++d) { CK(cudaSetDevice(d)); CK(cudaEventSynchronize(e1[d])); float ms; CK(cudaEventElapsedTime(&ms, e0[d], e1[d])); if (ms > worst) worst = ms; }
      double g = bytes / (worst * 1e-3) * 1e-9; if (rep && g > best) best = g;
    }
    printf("%8zu KB %-9s %-5s %7.1f GB/s per direction\n", bytes >> 10, mode == 0 ? "engine" : mode == 1 ? "sm-push" : "sm-pull", both ? "both" : "one", best);
  }
  return 0;
}

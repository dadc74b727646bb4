// What a tagged edge word costs to travel (issue #20): the on-chip 2D kernel's
// tiles swap their edges of Ez every step as 64-bit words (value and step
// number), stored by the owner and polled by the neighbour. This probe times
// that round trip alone, so the step's floor can be weighed against it:
//   - same GPU: two blocks of one launch, the words through L2 (what the tiles
//     form does between its tiles today);
//   - two GPUs: one block on each, each storing into the other's memory over
//     NVLink (peer access) and polling its own (what an on-chip form split
//     over GPUs would do at the GPUs' shared edge).
// Each side sends W words a message (one thread a word, up to 1024; 1: a bare
// flag), waits for all W of the other's with the next tag, then answers. The
// round trip is the time of N messages each way over N, by %globaltimer.
// A diagnostic, no part of gpustencil (scripts/onchip_ladder.sh's words part
// builds and runs it on the GPU machine), so it checks its CUDA calls itself.
//   nvcc -arch=sm_90 -O3 -o word_latency scripts/diag_word_latency.cu
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "word_latency: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_));    \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

// sys: the other side is another GPU (stores and polls at system scope; at
// GPU scope a poll of local memory may be served stale across devices).
__device__ __forceinline__ void put(unsigned long long *w, unsigned long long v, bool sys) {
  if (sys)
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
  else
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
}

__device__ __forceinline__ void await(const unsigned long long *w, unsigned tag, bool sys) {
  unsigned long long v;
  do {
    if (sys)
      asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    else
      asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
  } while ((unsigned)(v >> 32) != tag);
}

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One side of the ping-pong: side 0 sends first. mine: the words the other
// side stores into; theirs: the other side's. ns: side 0's elapsed time.
__device__ void ping_pong(unsigned long long *mine, unsigned long long *theirs, int side, int words, int n, bool sys,
                          unsigned long long *ns) {
  const int k = threadIdx.x;
  const bool active = k < words;
  const unsigned long long t0 = now_ns();
  for (int m = 0; m < n; ++m) {
    const unsigned ping = 2 * m + 1, pong = 2 * m + 2; // (side 0 sends the pings, side 1 the pongs)
    if (side == 0) {
      if (active) put(theirs + k, (unsigned long long)ping << 32 | (unsigned)k, sys);
      if (active) await(mine + k, pong, sys);
    } else {
      if (active) await(mine + k, ping, sys);
      __syncthreads(); // (all of the ping in before the pong goes out, as a tile's step)
      if (active) put(theirs + k, (unsigned long long)pong << 32 | (unsigned)k, sys);
    }
    __syncthreads();
  }
  __syncthreads();
  if (side == 0 && k == 0) *ns = now_ns() - t0;
}

// Both sides in one launch on one GPU: block b is side b (two blocks of an
// idle GPU run at once; the probe would hang on a GPU too busy for that).
__global__ void both_sides(unsigned long long *a, unsigned long long *b, int words, int n, unsigned long long *ns) {
  if (blockIdx.x == 0)
    ping_pong(a, b, 0, words, n, false, ns);
  else
    ping_pong(b, a, 1, words, n, false, ns);
}

// One side a launch (two GPUs).
__global__ void one_side(unsigned long long *mine, unsigned long long *theirs, int side, int words, int n,
                         unsigned long long *ns) {
  ping_pong(mine, theirs, side, words, n, true, ns);
}

static unsigned long long *words_on(int dev) {
  unsigned long long *p;
  CHECK(cudaSetDevice(dev));
  CHECK(cudaMalloc(&p, 1024 * sizeof *p));
  CHECK(cudaMemset(p, 0, 1024 * sizeof *p));
  return p;
}

static double elapsed_us(unsigned long long *ns_dev, int n) {
  unsigned long long ns = 0;
  CHECK(cudaMemcpy(&ns, ns_dev, sizeof ns, cudaMemcpyDeviceToHost));
  return ns / 1e3 / n;
}

static double same_gpu(int words, int n) {
  unsigned long long *a = words_on(0), *b = words_on(0), *ns;
  CHECK(cudaMalloc(&ns, sizeof *ns));
  both_sides<<<2, 1024>>>(a, b, words, n, ns);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const double us = elapsed_us(ns, n);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(ns));
  return us;
}

static double two_gpus(int words, int n) {
  unsigned long long *a = words_on(0), *b = words_on(1), *ns;
  // (both memsets done before either side starts: side 0's first ping must not be zeroed)
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(0));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&ns, sizeof *ns));
  one_side<<<1, 1024>>>(a, b, 0, words, n, ns);
  CHECK(cudaGetLastError());
  CHECK(cudaSetDevice(1));
  one_side<<<1, 1024>>>(b, a, 1, words, n, ns); // (side 1 writes no time)
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(0));
  CHECK(cudaDeviceSynchronize());
  const double us = elapsed_us(ns, n);
  CHECK(cudaFree(a));
  CHECK(cudaFree(ns));
  CHECK(cudaSetDevice(1));
  CHECK(cudaFree(b));
  return us;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 20000;
  if (n < 1) {
    fprintf(stderr, "word_latency: the message count %s is not a positive integer\n", argv[1]);
    return 2;
  }
  int gpus = 0, peer = 0;
  CHECK(cudaGetDeviceCount(&gpus));
  if (gpus > 1) {
    CHECK(cudaDeviceCanAccessPeer(&peer, 0, 1));
    if (peer) {
      CHECK(cudaSetDevice(0));
      CHECK(cudaDeviceEnablePeerAccess(1, 0));
      CHECK(cudaSetDevice(1));
      CHECK(cudaDeviceEnablePeerAccess(0, 0));
    }
  }
  const int sizes[] = {1, 32, 256, 1024};
  printf("round trip of a message of W tagged 64-bit words, %d messages each way (us)\n", n);
  printf("%6s %12s %12s\n", "W", "same GPU", peer ? "GPU0<->GPU1" : "(no peer)");
  for (int s = 0; s < 4; ++s) {
    const double one = same_gpu(sizes[s], n);
    if (peer)
      printf("%6d %12.3f %12.3f\n", sizes[s], one, two_gpus(sizes[s], n));
    else
      printf("%6d %12.3f %12s\n", sizes[s], one, "-");
  }
  return 0;
}

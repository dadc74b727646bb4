// What a step costs when it is not the memory (small 2D grids): one
// cooperative-groups grid.sync() inside a persistent kernel, against one
// kernel launch per step from a stream and from a CUDA graph. Prints
// microseconds per sync or per launch for several grid sizes, measured in the
// same run (cudaEvent timing over many repetitions after a warm-up).
//   bench_gridsync [REPS]      exit 77 without a GPU
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

namespace cg = cooperative_groups;

#define CU(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "bench_gridsync: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

// reps grid-wide barriers; each block adds to a counter between them so the
// barrier orders real memory traffic (the counter ends at reps * blocks).
__global__ void sync_loop(int reps, unsigned *count) {
  cg::grid_group g = cg::this_grid();
  for (int r = 0; r < reps; ++r) {
    if (threadIdx.x == 0) atomicAdd(count, 1u);
    g.sync();
  }
}

__global__ void empty_kernel(unsigned *count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(count, 1u);
}

static float time_ms(cudaStream_t s, cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CU(cudaEventSynchronize(b));
  CU(cudaEventElapsedTime(&ms, a, b));
  (void)s;
  return ms;
}

// Microseconds per grid.sync with `blocks` blocks of `threads`.
static double per_sync(int blocks, int threads, int reps, unsigned *count, cudaStream_t s, cudaEvent_t a,
                       cudaEvent_t b) {
  void *args[2];
  int warm = 100;
  args[0] = &warm;
  args[1] = &count;
  CU(cudaLaunchCooperativeKernel((void *)sync_loop, blocks, threads, args, 0, s));
  args[0] = &reps;
  CU(cudaMemsetAsync(count, 0, sizeof *count, s));
  CU(cudaEventRecord(a, s));
  CU(cudaLaunchCooperativeKernel((void *)sync_loop, blocks, threads, args, 0, s));
  CU(cudaEventRecord(b, s));
  double us = 1000.0 * time_ms(s, a, b) / reps;
  unsigned got = 0;
  CU(cudaMemcpy(&got, count, sizeof got, cudaMemcpyDeviceToHost));
  if (got != (unsigned)reps * (unsigned)blocks) {
    fprintf(stderr, "bench_gridsync: counter %u, expected %u\n", got, (unsigned)reps * (unsigned)blocks);
    exit(1);
  }
  return us;
}

// Microseconds per launch of an empty kernel of `blocks` blocks: reps
// launches from the stream, then the same reps captured in one graph.
static void per_launch(int blocks, int reps, unsigned *count, cudaStream_t s, cudaEvent_t a, cudaEvent_t b,
                       double *stream_us, double *graph_us) {
  for (int r = 0; r < 100; ++r)
    empty_kernel<<<blocks, 256, 0, s>>>(count);
  CU(cudaEventRecord(a, s));
  for (int r = 0; r < reps; ++r)
    empty_kernel<<<blocks, 256, 0, s>>>(count);
  CU(cudaEventRecord(b, s));
  *stream_us = 1000.0 * time_ms(s, a, b) / reps;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  const int nodes = reps < 2000 ? reps : 2000; /* a graph of 2000 launches, as a run's chunk of steps */
  CU(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int r = 0; r < nodes; ++r)
    empty_kernel<<<blocks, 256, 0, s>>>(count);
  CU(cudaStreamEndCapture(s, &graph));
  CU(cudaGraphInstantiate(&exec, graph, 0));
  CU(cudaGraphLaunch(exec, s)); // warm-up
  CU(cudaEventRecord(a, s));
  CU(cudaGraphLaunch(exec, s));
  CU(cudaEventRecord(b, s));
  *graph_us = 1000.0 * time_ms(s, a, b) / nodes;
  CU(cudaGraphExecDestroy(exec));
  CU(cudaGraphDestroy(graph));
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20000, ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("bench_gridsync: no GPU: skipped\n");
    return 77;
  }
  if (reps < 1 || reps > 10000000) {
    fprintf(stderr, "usage: bench_gridsync [REPS 1..10^7]\n");
    return 2;
  }
  cudaDeviceProp p;
  CU(cudaGetDeviceProperties(&p, 0));
  int coop = 0, per_sm = 0;
  CU(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  if (!coop) {
    printf("bench_gridsync: %s has no cooperative launch: skipped\n", p.name);
    return 77;
  }
  cudaStream_t s;
  cudaEvent_t a, b;
  unsigned *count;
  CU(cudaStreamCreate(&s));
  CU(cudaEventCreate(&a));
  CU(cudaEventCreate(&b));
  CU(cudaMalloc(&count, sizeof *count));
  const int threads[2] = {256, 1024};
  for (int t = 0; t < 2; ++t) {
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sync_loop, threads[t], 0));
    for (int k = 1; k <= per_sm; k *= 2) {
      const int blocks = k * p.multiProcessorCount;
      printf("grid.sync: %s, %d blocks (%d per SM) of %d threads: %.3f us per sync (%d syncs)\n", p.name, blocks, k,
             threads[t], per_sync(blocks, threads[t], reps, count, s, a, b), reps);
    }
  }
  for (int k = 1; k <= 4; k *= 2) {
    double st, gr;
    per_launch(k * p.multiProcessorCount, reps, count, s, a, b, &st, &gr);
    printf("launch: %s, empty kernel of %d blocks: %.3f us per launch from a stream, %.3f us in a graph\n", p.name,
           k * p.multiProcessorCount, st, gr);
  }
  CU(cudaFree(count));
  CU(cudaEventDestroy(a));
  CU(cudaEventDestroy(b));
  CU(cudaStreamDestroy(s));
  return 0;
}

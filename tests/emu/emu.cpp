// The fibers of tests/emu's CUDA emulator (cuda_runtime.h says what it is
// for): every thread of a launch a ucontext fiber on one host thread, run
// round robin; a fiber runs until it waits at a barrier (of its block, of
// its warp, of the grid) and is resumed until the barrier's generation has
// moved on. A round in which no barrier opens and no fiber ends is a
// deadlock (a barrier some threads never reach): the launch fails.
// A fiber starts through makecontext/swapcontext; after that the switches
// are _setjmp/_longjmp, which save no signal mask (swapcontext makes two
// system calls a switch: most of the emulator's time). The build compiles
// this file without _FORTIFY_SOURCE, whose longjmp check refuses a jump to
// another stack.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <memory>
#include <vector>

#include "cuda_runtime.h"

namespace {

struct Barrier {
  int need = 0, arrived = 0;
  long gen = 0;
};

struct Warp {
  Barrier bar;
  float val[32];
  int vote[32];
};

struct Block {
  Barrier bar;
  std::vector<float4> smem;
  std::vector<Warp> warps;
  int any[2] = {0, 0}; // __syncthreads_or's accumulators, alternate calls
};

struct Fiber {
  ucontext_t ctx;
  jmp_buf jb;
  bool started = false;
  std::unique_ptr<char[]> stack;
  dim3 tid, bid;
  Block *block = nullptr;
  int lane = 0, warp = 0, or_calls = 0;
  bool done = false;
};

struct Launch {
  dim3 grid, block;
  std::function<void()> body;
  std::vector<Block> blocks;
  std::vector<Fiber> fibers;
  Barrier grid_bar;
  Fiber *cur = nullptr;
  ucontext_t sched;
  jmp_buf sched_jb;
  long progress = 0; // barriers opened and fibers ended
};

Launch *L = nullptr;
constexpr size_t kStack = 64 * 1024;

void yield() {
  if (!_setjmp(L->cur->jb)) _longjmp(L->sched_jb, 1);
}

// Arrive at b and wait until every peer has.
void wait_at(Barrier &b) {
  const long gen = b.gen;
  if (++b.arrived == b.need) {
    b.arrived = 0;
    ++b.gen;
    ++L->progress;
    return;
  }
  while (b.gen == gen)
    yield();
}

void fiber_main() {
  L->body();
  L->cur->done = true;
  ++L->progress;
  _longjmp(L->sched_jb, 1); // never returns: its stack is not used again
}

// Run fiber f until it waits or ends.
void resume(Fiber &f) {
  L->cur = &f;
  if (_setjmp(L->sched_jb)) return;
  if (!f.started) {
    f.started = true;
    swapcontext(&L->sched, &f.ctx);
    return; // (not reached: the fiber comes back by _longjmp)
  }
  _longjmp(f.jb, 1);
}

int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

// The fibers of blocks [first, first + nblocks) of the launch.
void make_fibers(Launch &l, unsigned smem, unsigned first, unsigned nblocks) {
  const unsigned threads = l.block.x * l.block.y * l.block.z;
  l.blocks.resize(nblocks);
  l.fibers.resize((size_t)nblocks * threads);
  l.grid_bar.need = (int)(nblocks * threads);
  for (unsigned k = 0; k < nblocks; ++k) {
    const unsigned b = first + k;
    Block &blk = l.blocks[k];
    blk.bar.need = (int)threads;
    blk.smem.assign(smem / sizeof(float4) + 1, float4{0, 0, 0, 0});
    blk.warps.resize((threads + 31) / 32);
    for (unsigned w = 0; w < blk.warps.size(); ++w)
      blk.warps[w].bar.need = (int)std::min(32u, threads - 32 * w);
    for (unsigned t = 0; t < threads; ++t) {
      Fiber &f = l.fibers[(size_t)k * threads + t];
      f.tid = dim3(t % l.block.x, t / l.block.x % l.block.y, t / (l.block.x * l.block.y));
      f.bid = dim3(b % l.grid.x, b / l.grid.x % l.grid.y, b / (l.grid.x * l.grid.y));
      f.block = &blk;
      f.warp = (int)(t / 32);
      f.lane = (int)(t % 32);
      f.stack.reset(new char[kStack]);
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.get();
      f.ctx.uc_stack.ss_size = kStack;
      f.ctx.uc_link = &l.sched;
      makecontext(&f.ctx, fiber_main, 0);
    }
  }
}

} // namespace

namespace {

// Blocks [first, first + n) of the launch, all at once.
cudaError_t run_blocks(dim3 grid, dim3 block, unsigned smem, const std::function<void()> &body, unsigned first,
                       unsigned n) {
  Launch l;
  l.grid = grid;
  l.block = block;
  l.body = body;
  L = &l;
  make_fibers(l, smem, first, n);
  size_t left = l.fibers.size();
  int idle_rounds = 0;
  while (left > 0) {
    const long before = l.progress;
    for (Fiber &f : l.fibers) {
      if (f.done) continue;
      resume(f);
      if (f.done) --left;
    }
    idle_rounds = l.progress == before ? idle_rounds + 1 : 0;
    if (idle_rounds >= 2) {
      fprintf(stderr, "emu: deadlock: %zu of %zu threads wait at a barrier the others never reach\n", left,
              l.fibers.size());
      L = nullptr;
      return cudaErrorInvalidConfiguration;
    }
  }
  L = nullptr;
  return cudaSuccess;
}

} // namespace

cudaError_t gs_emu_launch(dim3 grid, dim3 block, unsigned smem, std::function<void()> body) {
  return run_blocks(grid, block, smem, body, 0, grid.x * grid.y * grid.z);
}

cudaError_t gs_emu_launch_blocks(dim3 grid, dim3 block, unsigned smem, std::function<void()> body) {
  for (unsigned b = 0; b < grid.x * grid.y * grid.z; ++b) {
    const cudaError_t e = run_blocks(grid, block, smem, body, b, 1);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
  static char token;
  *s = &token;
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
  static char token;
  *e = &token;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t) {
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) {
  return cudaSuccess;
}

dim3 gs_emu_thread_idx() {
  return L->cur->tid;
}
dim3 gs_emu_block_idx() {
  return L->cur->bid;
}
dim3 gs_emu_block_dim() {
  return L->block;
}
dim3 gs_emu_grid_dim() {
  return L->grid;
}
void *gs_emu_smem() {
  return L->cur->block->smem.data();
}

void __syncthreads() {
  wait_at(L->cur->block->bar);
}

int __syncthreads_or(int predicate) {
  Fiber &f = *L->cur;
  Block &b = *f.block;
  const int k = f.or_calls++ % 2;
  if (predicate) b.any[k] = 1;
  wait_at(b.bar);
  const int r = b.any[k];
  if (f.tid.x == 0 && f.tid.y == 0 && f.tid.z == 0) b.any[1 - k] = 0; // the next call's, before anyone reaches it
  wait_at(b.bar);
  return r;
}

void gs_emu_grid_sync() {
  __syncthreads();
  wait_at(L->grid_bar);
  __syncthreads();
}

void gs_emu_spin() {
  yield();
}

void gs_emu_spun() {
  ++L->progress;
}

int __any_sync(unsigned, int predicate) {
  Fiber &f = *L->cur;
  Warp &w = f.block->warps[f.warp];
  w.vote[f.lane] = predicate != 0;
  wait_at(w.bar);
  int any = 0;
  for (int k = 0; k < w.bar.need; ++k)
    any |= w.vote[k];
  wait_at(w.bar);
  return any;
}

// Lane lane + delta's v (delta may be negative), or v where there is none.
static float shuffle(float v, int delta) {
  Fiber &f = *L->cur;
  Warp &w = f.block->warps[f.warp];
  w.val[f.lane] = v;
  wait_at(w.bar);
  const int from = f.lane + delta;
  const float r = from >= 0 && from < w.bar.need ? w.val[from] : v;
  wait_at(w.bar);
  return r;
}

float __shfl_down_sync(unsigned, float v, int delta) {
  return shuffle(v, delta);
}
float __shfl_up_sync(unsigned, float v, int delta) {
  return shuffle(v, -delta);
}

cudaError_t cudaGetDevice(int *dev) {
  *dev = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr what, int) {
  switch (what) {
  case cudaDevAttrMultiProcessorCount:
    *value = env_int("GS_EMU_SMS", 4);
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *value = 227 * 1024;
    break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    *value = 228 * 1024;
    break;
  case cudaDevAttrReservedSharedMemoryPerBlock:
    *value = 1024;
    break;
  case cudaDevAttrCooperativeLaunch:
    *value = 1;
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  return cudaSuccess;
}

// An H200 SM: 2048 threads, 64 K registers (the kernels' launch bounds cap a
// thread at 64), 228 KB of shared memory with 1 KB reserved a block.
int gs_emu_blocks_per_sm(int threads, size_t smem) {
  if (threads <= 0 || threads > 1024 || smem > 227 * 1024) return 0;
  const int by_threads = 2048 / threads, by_regs = 65536 / (64 * threads);
  const int by_smem = (int)(228 * 1024 / (smem + 1024));
  return std::min(std::min(by_threads, by_regs), std::min(by_smem, 32));
}

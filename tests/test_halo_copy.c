/* The halo box copy (kernels/halo_kernels.h). Without arguments: the CPU
 * twin against a plain loop. With "gpu": the CUDA kernel against the CPU
 * twin on the same boxes, bit for bit, into device memory and into pinned
 * host memory (the mpi-host packing writes there); skips (77) without a GPU.
 * Boxes: rows (some longer than a warp's 512-float task), columns, small
 * corners, odd pitches and pitches that allow 16-byte copies, source and
 * destination with the same and with different alignments,
 * boxes of several planes (3D faces packed into a buffer, one float wide
 * too), 1..GS_HALO_MAX_BOXES in one call, each box's destination in its own band of
 * rows; every call also raises the fused flag, checked after it. Then the
 * stream-ordered flags (signal, wait) of the ipc transport, with plain
 * values and with values read from a device word (ticks, CUDA graphs). */
#include <string.h>

#include "backend.h"
#include "check.h"

#define SW 1301
#define SH 47
#define SP 1320
#define DPMAX 1336

static int64_t DP = 1333; /* the destination pitch of this round: 1333 or 1336 */

static uint64_t rng = 88172645463325252ull;
static int64_t pick(int64_t n) { /* 0 .. n-1 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)n);
}

/* n boxes from src (SW x SH, pitch SP) into dst (pitch DP, n bands of SH rows). */
static void make(gs_halo_boxes *l, int n, const float *src, float *dst) {
  memset(l, 0, sizeof *l);
  l->n = n;
  for (int k = 0; k < n; ++k) {
    int64_t w = 1 + pick(k % 3 == 0 ? SW : k % 3 == 1 ? 4 : 40), h = 1 + pick(k % 3 == 1 ? SH : 9);
    int64_t x = pick(SW - w + 1), y = pick(SH - h + 1), x2 = pick(DP - w + 1), y2 = pick(SH - h + 1) + (int64_t)k * SH;
    if (k % 2 == 0 && (x2 & 3) != (x & 3))
      x2 = (x2 & ~(int64_t)3) + (x & 3) <= DP - w ? (x2 & ~(int64_t)3) + (x & 3) : x2;
    l->box[k] = (gs_halo_box){src + y * SP + x, dst + y2 * DP + x2, SP, DP, w, h, 1, 0, 0};
    if (k % 4 == 3) { /* a 3D face: d planes 7 source rows apart, packed into the destination */
      int64_t d = 1 + pick(6), hh = 1 + pick(6), ww = k % 8 == 3 ? 1 : 1 + pick(40);
      int64_t ys = pick(SH - ((d - 1) * 7 + hh) + 1), xs = pick(SW - ww + 1);
      l->box[k] =
          (gs_halo_box){src + ys * SP + xs, dst + (int64_t)k * SH * DP + pick(100), SP, ww, ww, hh, d, 7 * SP, ww * hh};
    }
  }
}

/* Copies with b into dst memory (device, or pinned host when host_dst),
 * with the fused flag set to 1000 + n, and returns the result in out (n
 * bands); checks the flag. */
static void with_backend(const gs_backend *b, int host_dst, const float *hs, const gs_halo_boxes *shape, int n,
                         float *out) {
  size_t ns = (size_t)SP * SH, nd = (size_t)DP * SH * (size_t)n;
  float *ds = b->dev_alloc(ns * sizeof *ds),
        *dd = host_dst ? b->host_alloc(nd * sizeof *dd) : b->dev_alloc(nd * sizeof *dd);
  float *zero = calloc(nd, sizeof *zero);
  b->copy_h2d(ds, hs, ns * sizeof *hs, NULL);
  b->copy_h2d(dd, zero, nd * sizeof *dd, NULL); /* memcpy for pinned host memory too (UVA) */
  b->stream_sync(NULL);
  gs_halo_boxes l = *shape;
  for (int k = 0; k < n; ++k) { /* the same boxes, moved onto ds / dd */
    l.box[k].src = ds + (shape->box[k].src - hs);
    l.box[k].dst = dd + (shape->box[k].dst - out);
  }
  uint64_t words[2] = {0, 0}, back[2];
  uint64_t *dw = b->dev_alloc(sizeof words);
  b->copy_h2d(dw, words, sizeof words, NULL);
  l.flag = dw;
  l.count = (unsigned *)(dw + 1);
  l.value = gs_tick_at(1000 + n);
  CHECK(b->halo_copy(&l, NULL) == 0);
  b->stream_sync(NULL);
  b->copy_d2h(out, dd, nd * sizeof *out, NULL);
  b->copy_d2h(back, dw, sizeof back, NULL);
  b->stream_sync(NULL);
  CHECKF(back[0] == (uint64_t)(1000 + n) && back[1] == 0, "fused flag %llu, count %llu after %d boxes",
         (unsigned long long)back[0], (unsigned long long)back[1], n);
  b->dev_free(dw);
  b->dev_free(ds);
  if (host_dst)
    b->host_free(dd);
  else
    b->dev_free(dd);
  free(zero);
}

int main(int argc, char **argv) {
  const gs_backend *gpu = NULL;
  if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
#ifdef GS_HAVE_CUDA
    if (gs_cuda_probe() == 0) {
      printf("no CUDA GPU visible: skipped\n");
      return GS_TEST_SKIP;
    }
    gs_backend_cuda.device_select(0);
    gpu = &gs_backend_cuda;
#else
    printf("built without CUDA: skipped\n");
    return GS_TEST_SKIP;
#endif
  }
  size_t ns = (size_t)SP * SH, nd = (size_t)DPMAX * SH * GS_HALO_MAX_BOXES;
  float *hs = malloc(ns * sizeof *hs), *want = malloc(nd * sizeof *want), *got = malloc(nd * sizeof *got);
  for (size_t i = 0; i < ns; ++i)
    hs[i] = (float)pick(100000) * 0.25f - 7.0f;
  for (int round = 0; round < 32; ++round) {
    int n = 1 + round % GS_HALO_MAX_BOXES;
    DP = round % 2 ? 1336 : 1333;
    size_t bytes = (size_t)DP * SH * (size_t)n * sizeof(float);
    gs_halo_boxes l;
    memset(want, 0, bytes);
    make(&l, n, hs, want);
    if (!gpu) {
      memset(got, 0, bytes);
      for (int k = 0; k < n; ++k) { /* the plain loop */
        const gs_halo_box *x = &l.box[k];
        for (int64_t p = 0; p < (x->d > 1 ? x->d : 1); ++p)
          for (int64_t r = 0; r < x->h; ++r)
            for (int64_t c = 0; c < x->w; ++c)
              got[(x->dst - want) + p * x->dplane + r * x->dpitch + c] = x->src[p * x->splane + r * x->spitch + c];
      }
      uint64_t fl = 0;
      l.flag = &fl;
      l.value = gs_tick_at(7 + round);
      CHECK(gs_halo_copy_ref(&l, NULL) == 0);
      CHECKF(memcmp(got, want, bytes) == 0, "round %d, %d boxes: CPU twin differs from the loop", round, n);
      CHECKF(fl == (uint64_t)(7 + round), "round %d: flag %llu", round, (unsigned long long)fl);
    } else {
      CHECK(gs_halo_copy_ref(&l, NULL) == 0);
      for (int host_dst = 0; host_dst < 2; ++host_dst) {
        gs_halo_boxes shape = l;
        for (int k = 0; k < n; ++k)
          shape.box[k].dst = got + (l.box[k].dst - want);
        with_backend(gpu, host_dst, hs, &shape, n, got);
        CHECKF(memcmp(got, want, bytes) == 0, "round %d, %d boxes, %s destination: GPU differs from the CPU twin",
               round, n, host_dst ? "pinned host" : "device");
      }
    }
  }
  /* Flags: a signalled value lets a wait for it (or less) through. */
  const gs_backend *fb = gpu ? gpu : &gs_backend_cpu;
  uint64_t *flag = fb->dev_alloc(2 * sizeof *flag), v[2] = {0, 30};
  fb->copy_h2d(flag, v, sizeof v, NULL);
  int64_t *base = (int64_t *)(flag + 1); /* a clock word holding 30 */
  CHECK(fb->halo_signal(flag, gs_tick_at(41), NULL) == 0);
  CHECK(fb->halo_signal(flag, (gs_tick){base, 12}, NULL) == 0);
  CHECK(fb->halo_wait(flag, gs_tick_at(42), NULL) == 0);
  CHECK(fb->halo_wait(flag, (gs_tick){base, 12}, NULL) == 0);
  CHECK(fb->halo_wait(flag, gs_tick_at(7), NULL) == 0);
  fb->stream_sync(NULL);
  fb->copy_d2h(v, flag, sizeof v, NULL);
  fb->stream_sync(NULL);
  CHECKF(v[0] == 42, "flag %llu", (unsigned long long)v[0]);
  if (!gpu) {
    CHECK(gs_halo_wait_ref(flag, gs_tick_at(43), NULL) == -1);
    CHECK(gs_halo_wait_ref(flag, (gs_tick){base, 13}, NULL) == -1);
  }
  fb->dev_free(flag);
  free(hs);
  free(want);
  free(got);
  return gs_test_done(gpu ? "test_halo_copy gpu" : "test_halo_copy");
}

/* The CPU scale rule: out = rint(min(in * (1/D), max)), alpha copied. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels.h"

int main(void) {
  uint8_t in8[256], out8[256];
  for (int i = 0; i < 256; ++i)
    in8[i] = (uint8_t)i;

  /* Away from half-way points the float rule equals exact rational rounding. */
  const double divisors[] = {1.0, 2.0, 3.0, 0.7, 1.5, 7.3, 255.0, 1000.0, 0.01};
  for (size_t d = 0; d < sizeof divisors / sizeof *divisors; ++d) {
    gs_scale_params p = gs_scale_params_make(divisors[d], 8, 1);
    CHECK(gs_scale_u8_ref(in8, out8, 256, p, NULL) == 0);
    for (int x = 0; x < 256; ++x) {
      double q = x / divisors[d];
      double frac = q - floor(q);
      if (fabs(frac - 0.5) < 1e-4) continue;
      double want = q > 255 ? 255 : floor(q + 0.5);
      CHECKF(out8[x] == want, "D=%g x=%d: got %d want %g", divisors[d], x, out8[x], want);
    }
  }
  /* Exact ties round half to even. */
  gs_scale_params half = gs_scale_params_make(2.0, 8, 1);
  gs_scale_u8_ref(in8, out8, 256, half, NULL);
  CHECK(out8[1] == 0 && out8[3] == 2 && out8[5] == 2 && out8[7] == 4 && out8[255] == 128);
  /* Below 1 brightens and saturates. */
  gs_scale_u8_ref(in8, out8, 256, gs_scale_params_make(0.5, 8, 1), NULL);
  CHECK(out8[100] == 200 && out8[127] == 254 && out8[128] == 255 && out8[255] == 255);

  /* 16 bit, in place, with alpha every other sample left alone. */
  uint16_t buf[1001];
  for (int i = 0; i < 1001; ++i)
    buf[i] = (uint16_t)(i * 65u + 7u);
  gs_scale_u16_ref(buf, buf, 1001, gs_scale_params_make(4.0, 16, 2), NULL);
  for (int i = 0; i < 1001; ++i) {
    uint16_t orig = (uint16_t)(i * 65u + 7u);
    if (i % 2) {
      CHECKF(buf[i] == orig, "alpha %d changed", i);
    } else {
      double q = orig / 4.0, fl = floor(q); /* 1/4 is exact: ties are real ties */
      uint16_t want = (uint16_t)(q - fl == 0.5 ? (fmod(fl, 2) == 0 ? fl : fl + 1) : floor(q + 0.5));
      CHECKF(buf[i] == want, "grey %d: %d -> %d want %d", i, orig, buf[i], want);
    }
  }
  uint16_t big[3] = {65535, 65534, 1}, bo[3];
  gs_scale_u16_ref(big, bo, 3, gs_scale_params_make(1e-3, 16, 1), NULL);
  CHECK(bo[0] == 65535 && bo[1] == 65535 && bo[2] == 1000);
  /* Long buffers take the 8-bit table: the same bytes as short ones (the
   * arithmetic), grey and grey+alpha, in place too, odd lengths included. */
  enum { LONG = 3 * 4096 + 5 };
  static uint8_t lin[LONG], lout[LONG], lref[LONG];
  for (int i = 0; i < LONG; ++i)
    lin[i] = (uint8_t)(i * 37 + i / 256);
  const double more[] = {2.0, 3.0, 0.7, 7.3, 0.01, 1e6};
  for (size_t d = 0; d < sizeof more / sizeof *more; ++d)
    for (int ch = 1; ch <= 2; ++ch) {
      gs_scale_params p = gs_scale_params_make(more[d], 8, ch);
      gs_scale_u8_ref(lin, lout, LONG, p, NULL);
      for (int at = 0; at < LONG; at += 1000) /* short calls: the arithmetic path */
        gs_scale_u8_ref(lin + at, lref + at, (size_t)(LONG - at < 1000 ? LONG - at : 1000), p, NULL);
      CHECKF(memcmp(lout, lref, LONG) == 0, "table differs from arithmetic: D=%g channels %d", more[d], ch);
      memcpy(lref, lin, LONG);
      gs_scale_u8_ref(lref, lref, LONG, p, NULL);
      CHECKF(memcmp(lout, lref, LONG) == 0, "in place differs: D=%g channels %d", more[d], ch);
    }
  /* Zero samples is a no-op. */
  CHECK(gs_scale_u8_ref(in8, out8, 0, half, NULL) == 0);
  return gs_test_done("test_scale_ref");
}

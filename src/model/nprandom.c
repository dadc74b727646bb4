/* numpy's random streams (nprandom.h), written from numpy's published
 * algorithms: SeedSequence's hash mixing, PCG64 (O'Neill's XSL-RR 128/64 with
 * numpy's seeding), the ziggurat normal with numpy's tables, Lemire's bounded
 * integers, and MT19937 with numpy's legacy double and masked integers. */
#include "nprandom.h"

#include <math.h>

#include "ziggurat_tables.h"

/* ---- SeedSequence (numpy.random.bit_generator) ---- */

#define SS_POOL 4
#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_L 0xca01f9ddu
#define SS_MIX_R 0x4973f715u

static uint32_t hashmix(uint32_t value, uint32_t *hash_const) {
  value ^= *hash_const;
  *hash_const *= SS_MULT_A;
  value *= *hash_const;
  return value ^ (value >> 16);
}

static uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = SS_MIX_L * x - SS_MIX_R * y;
  return r ^ (r >> 16);
}

/* The pool of SeedSequence(seed), then generate_state(4, uint64). */
static void seed_sequence_state(uint64_t seed, uint64_t out[4]) {
  uint32_t entropy[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  const int nent = seed >> 32 ? 2 : 1;
  uint32_t pool[SS_POOL], h = SS_INIT_A;
  for (int i = 0; i < SS_POOL; ++i)
    pool[i] = hashmix(i < nent ? entropy[i] : 0, &h);
  for (int s = 0; s < SS_POOL; ++s)
    for (int d = 0; d < SS_POOL; ++d)
      if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &h));
  uint32_t hb = SS_INIT_B, words[8];
  for (int i = 0; i < 8; ++i) {
    uint32_t v = pool[i % SS_POOL] ^ hb;
    hb *= SS_MULT_B;
    v *= hb;
    words[i] = v ^ (v >> 16);
  }
  for (int i = 0; i < 4; ++i)
    out[i] = (uint64_t)words[2 * i] | (uint64_t)words[2 * i + 1] << 32;
}

/* ---- PCG64 ---- */

/* The 64 x 64 -> 128-bit product as (hi, lo). */
static void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
  *lo = (mid << 32) | (uint32_t)p00;
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* state = state * multiplier + inc (mod 2^128). */
static void pcg_step(gs_pcg64 *g) {
  const uint64_t mh = 0x2360ED051FC65DA4ull, ml = 0x4385DF649FCCF645ull;
  uint64_t hi, lo;
  mul64(g->state_lo, ml, &hi, &lo);
  hi += g->state_hi * ml + g->state_lo * mh;
  const uint64_t nlo = lo + g->inc_lo;
  hi += g->inc_hi + (nlo < lo);
  g->state_hi = hi;
  g->state_lo = nlo;
}

void gs_pcg64_seed(gs_pcg64 *g, uint64_t seed) {
  uint64_t s[4];
  seed_sequence_state(seed, s);
  /* pcg_setseq_128_srandom_r(initstate = s[0]:s[1], initseq = s[2]:s[3]) */
  g->state_hi = g->state_lo = 0;
  g->inc_hi = s[2] << 1 | s[3] >> 63;
  g->inc_lo = s[3] << 1 | 1u;
  pcg_step(g);
  const uint64_t lo = g->state_lo + s[1];
  g->state_hi += s[0] + (lo < s[1]);
  g->state_lo = lo;
  pcg_step(g);
  g->has32 = 0;
  g->u32 = 0;
}

uint64_t gs_pcg64_next64(gs_pcg64 *g) {
  pcg_step(g);
  const uint64_t x = g->state_hi ^ g->state_lo;
  const unsigned rot = (unsigned)(g->state_hi >> 58);
  return (x >> rot) | (x << ((64u - rot) & 63u));
}

uint32_t gs_pcg64_next32(gs_pcg64 *g) {
  if (g->has32) {
    g->has32 = 0;
    return g->u32;
  }
  const uint64_t v = gs_pcg64_next64(g);
  g->has32 = 1;
  g->u32 = (uint32_t)(v >> 32);
  return (uint32_t)v;
}

double gs_pcg64_random(gs_pcg64 *g) {
  return (double)(gs_pcg64_next64(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* numpy's random_standard_normal: 8 bits pick the layer, 1 the sign, 52 the value. */
double gs_pcg64_normal(gs_pcg64 *g) {
  for (;;) {
    uint64_t r = gs_pcg64_next64(g);
    const int idx = (int)(r & 0xff);
    r >>= 8;
    const int sign = (int)(r & 1);
    const uint64_t rabs = (r >> 1) & 0x000fffffffffffffull;
    double x = (double)rabs * gs_zig_wi[idx];
    if (sign) x = -x;
    if (rabs < gs_zig_ki[idx]) return x;
    if (idx > 0) { /* a wedge */
      const double f = (gs_zig_fi[idx - 1] - gs_zig_fi[idx]) * gs_pcg64_random(g);
      if (f + gs_zig_fi[idx] < exp(-0.5 * x * x)) return x;
      continue;
    }
    for (;;) { /* the tail */
      const double xx = -gs_zig_inv_r * log1p(-gs_pcg64_random(g));
      const double yy = -log1p(-gs_pcg64_random(g));
      if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(gs_zig_r + xx) : gs_zig_r + xx;
    }
  }
}

uint32_t gs_pcg64_below(gs_pcg64 *g, uint32_t n) {
  const uint32_t rng = n - 1; /* numpy's inclusive range */
  if (rng == 0) return 0;
  uint64_t m = (uint64_t)gs_pcg64_next32(g) * n;
  uint32_t leftover = (uint32_t)m;
  if (leftover < n) {
    const uint32_t threshold = (UINT32_MAX - rng) % n;
    while (leftover < threshold) {
      m = (uint64_t)gs_pcg64_next32(g) * n;
      leftover = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}

/* ---- MT19937 (numpy's legacy RandomState) ---- */

void gs_mt19937_seed(gs_mt19937 *m, uint32_t seed) {
  for (int pos = 0; pos < 624; ++pos) {
    m->key[pos] = seed;
    seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)pos + 1u;
  }
  m->pos = 624;
}

static void mt_generate(gs_mt19937 *m) {
  static const uint32_t mag[2] = {0, 0x9908b0dfu};
  int i;
  uint32_t y;
  for (i = 0; i < 624 - 397; ++i) {
    y = (m->key[i] & 0x80000000u) | (m->key[i + 1] & 0x7fffffffu);
    m->key[i] = m->key[i + 397] ^ (y >> 1) ^ mag[y & 1];
  }
  for (; i < 623; ++i) {
    y = (m->key[i] & 0x80000000u) | (m->key[i + 1] & 0x7fffffffu);
    m->key[i] = m->key[i + 397 - 624] ^ (y >> 1) ^ mag[y & 1];
  }
  y = (m->key[623] & 0x80000000u) | (m->key[0] & 0x7fffffffu);
  m->key[623] = m->key[396] ^ (y >> 1) ^ mag[y & 1];
  m->pos = 0;
}

uint32_t gs_mt19937_next32(gs_mt19937 *m) {
  if (m->pos == 624) mt_generate(m);
  uint32_t y = m->key[m->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

double gs_mt19937_random(gs_mt19937 *m) {
  const int32_t a = (int32_t)(gs_mt19937_next32(m) >> 5), b = (int32_t)(gs_mt19937_next32(m) >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

int64_t gs_mt19937_randint(gs_mt19937 *m, int64_t low, int64_t high) {
  const uint64_t rng = (uint64_t)(high - 1 - low);
  if (rng == 0) return low;
  uint64_t mask = rng;
  for (int s = 1; s < 64; s <<= 1)
    mask |= mask >> s;
  uint32_t v;
  if (rng == 0xffffffffull) return low + (int64_t)gs_mt19937_next32(m);
  while ((v = gs_mt19937_next32(m) & (uint32_t)mask) > rng) {
  }
  return low + (int64_t)v;
}

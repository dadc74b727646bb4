/* numpy's random streams, bit for bit, for gprMax's fractals and grass
 * (src/model/fractals.c): gprMax draws them with numpy, so the same seed must
 * give the same numbers here.
 *
 * - gs_pcg64: numpy's Generator as np.random.default_rng(seed) makes it
 *   (SeedSequence(seed) -> PCG64), with Generator.standard_normal() (numpy's
 *   256-layer ziggurat), Generator.random() and Generator.integers(0, n).
 * - gs_mt19937: numpy's legacy RandomState(seed) (MT19937 seeded by
 *   init_genrand), with random_sample() and randint(low, high). */
#ifndef GS_NPRANDOM_H
#define GS_NPRANDOM_H

#include <stdint.h>

/* numpy's PCG64 (XSL-RR 128/64) and its buffered 32-bit half. */
typedef struct gs_pcg64 {
  uint64_t state_hi, state_lo, inc_hi, inc_lo;
  int has32;    /* a 32-bit half is waiting (next32) */
  uint32_t u32; /* that half */
} gs_pcg64;

/* np.random.default_rng(seed): SeedSequence(seed) (entropy words: seed's
 * 32-bit words, least significant first) -> generate_state(4, uint64) ->
 * PCG64. */
void gs_pcg64_seed(gs_pcg64 *g, uint64_t seed);
/* The next 64 raw bits. */
uint64_t gs_pcg64_next64(gs_pcg64 *g);
/* The next 32 raw bits: the low half of a 64-bit draw, then its high half. */
uint32_t gs_pcg64_next32(gs_pcg64 *g);
/* Generator.random(): a double in [0, 1) from the top 53 bits. */
double gs_pcg64_random(gs_pcg64 *g);
/* Generator.standard_normal(). */
double gs_pcg64_normal(gs_pcg64 *g);
/* Generator.integers(0, n) for 1 <= n <= 2^32 - 1 (Lemire's method on 32-bit
 * draws, as numpy uses for a range that fits 32 bits). */
uint32_t gs_pcg64_below(gs_pcg64 *g, uint32_t n);

/* numpy's legacy MT19937. */
typedef struct gs_mt19937 {
  uint32_t key[624];
  int pos;
} gs_mt19937;

/* RandomState(seed) for an integer seed in [0, 2^32). */
void gs_mt19937_seed(gs_mt19937 *m, uint32_t seed);
uint32_t gs_mt19937_next32(gs_mt19937 *m);
/* RandomState.random_sample(): (a >> 5, b >> 6) of two draws as a 53-bit double. */
double gs_mt19937_random(gs_mt19937 *m);
/* RandomState.randint(low, high) (high exclusive, low < high, high - low <=
 * 2^32): masked rejection on 32-bit draws; no draw when high - low is 1. */
int64_t gs_mt19937_randint(gs_mt19937 *m, int64_t low, int64_t high);

#endif

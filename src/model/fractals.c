/* gprMax's fractal fields, their binning and #add_grass's blades
 * (fractals.h). The filter repeats gprMax's Cython loop as its build
 * computes it (gcc -O3 -march=native, disassembled: the squared distance
 * as fma(dz, dz, fma(dx, dx, dy * dy)), then pow(., 0.5) and pow(., D)
 * with D a float), so this file is compiled without contraction and
 * writes its fused multiply-adds as fma(). The transforms are FFTW's, or
 * src/model/fft.c's in a build without FFTW. */
#include "fractals.h"

#ifdef GS_HAVE_FFTW3
#include <fftw3.h>
#else
#include "fft.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the field ---- */

typedef struct field_spec {
  int rank;           /* 2 or 3 */
  int64_t n[3];       /* cells per axis (rank of them) */
  double w[3], v1[3]; /* weighting and the filter's centre */
  double dim;
} field_spec;

/* The filter's value at (i, j, k): 1 / |v2 - v1|^D, 0.9 for D where it is 0. */
static double filter_b(const field_spec *f, const int64_t *idx) {
  double d[3] = {0, 0, 0};
  for (int a = 0; a < f->rank; ++a) {
    const double v2 = f->w[a] * (double)((idx[a] + f->n[a] / 2) % f->n[a]);
    d[a] = v2 - f->v1[a];
  }
  const double s = f->rank == 3 ? fma(d[2], d[2], fma(d[0], d[0], d[1] * d[1])) : fma(d[0], d[0], d[1] * d[1]);
  const float dimf = (float)f->dim; /* the Cython function takes D as a float */
  const double b = pow(pow(s, 0.5), (double)dimf);
  return b == 0 ? 0.9 : b;
}

#ifdef GS_HAVE_FFTW3
/* The whole array transformed in place by FFTW (sign -1 forward, +1 backward, unnormalised). */
static gs_status transform(double *a, int rank, const int64_t *n, int sign) {
  int dims[3];
  for (int k = 0; k < rank; ++k)
    dims[k] = (int)n[k];
  fftw_plan plan = fftw_plan_dft(rank, dims, (fftw_complex *)a, (fftw_complex *)a,
                                 sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!plan) return GS_ERR_NOMEM;
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return GS_OK;
}
#define field_alloc(bytes) fftw_malloc(bytes)
#define field_free(p) fftw_free(p)
#else
static gs_status transform(double *a, int rank, const int64_t *n, int sign) {
  return gs_fft_nd(a, rank, n, sign);
}
#define field_alloc(bytes) malloc(bytes)
#define field_free(p) free(p)
#endif

/* Noise, forward transform, filter, mean removed, back, real part as float32. */
static gs_status make_field(const field_spec *f, uint64_t seed, float *out) {
  const int64_t total = f->n[0] * f->n[1] * (f->rank == 3 ? f->n[2] : 1), n2 = f->rank == 3 ? f->n[2] : 1;
  double *a = field_alloc(2 * sizeof *a * (size_t)total);
  if (!a) return GS_ERR_NOMEM;
  gs_pcg64 g;
  gs_pcg64_seed(&g, seed);
  for (int64_t q = 0; q < total; ++q) {
    a[2 * q] = gs_pcg64_normal(&g);
    a[2 * q + 1] = 0;
  }
  gs_status st = transform(a, f->rank, f->n, -1);
  int64_t idx[3];
  for (int64_t q = 0; st == GS_OK && q < total; ++q) {
    idx[0] = q / (f->n[1] * n2);
    idx[1] = q / n2 % f->n[1];
    idx[2] = q % n2;
    const double b = filter_b(f, idx);
    a[2 * q] /= b;
    a[2 * q + 1] /= b;
  }
  a[0] = a[1] = 0;
  if (st == GS_OK) st = transform(a, f->rank, f->n, +1);
  const double fct = (double)(1.0L / (long double)total); /* pocketfft's 1/N, applied to each value */
  for (int64_t q = 0; st == GS_OK && q < total; ++q)
    out[q] = (float)(a[2 * q] * fct);
  field_free(a);
  return st;
}

gs_status gs_fractal_volume(const int64_t n[3], double dimension, const double weighting[3], uint64_t seed,
                            float *out) {
  field_spec f = {.rank = 3, .n = {n[0], n[1], n[2]}, .dim = dimension};
  /* filterscaling: min(n) / n, except along the first one-cell axis (1 there) */
  int64_t lo = -1;
  const int thin = n[0] == 1 ? 0 : n[1] == 1 ? 1 : n[2] == 1 ? 2 : -1;
  for (int a = 0; a < 3; ++a)
    if (a != thin && (lo < 0 || n[a] < lo)) lo = n[a];
  for (int a = 0; a < 3; ++a) {
    const double scaling = a == thin ? 1.0 : (double)lo / (double)n[a];
    f.w[a] = weighting[a] * scaling;
    f.v1[a] = f.w[a] * (double)n[a] / 2;
  }
  return make_field(&f, seed, out);
}

gs_status gs_fractal_surface(const int64_t n[2], double dimension, const double weighting[2], uint64_t seed, int64_t lo,
                             int64_t hi, float *out) {
  field_spec f = {.rank = 2, .n = {n[0], n[1], 1}, .dim = dimension};
  for (int a = 0; a < 2; ++a) {
    f.w[a] = weighting[a];
    f.v1[a] = f.w[a] * (double)n[a] / 2;
  }
  gs_status st = make_field(&f, seed, out);
  if (st != GS_OK) return st;
  const size_t total = (size_t)(n[0] * n[1]);
  float fmin = out[0], fmax = out[0];
  for (size_t q = 1; q < total; ++q) {
    fmin = out[q] < fmin ? out[q] : fmin;
    fmax = out[q] > fmax ? out[q] : fmax;
  }
  /* numpy 1.x: (hi - lo) / range is float64; array * it, + lo and - the
   * float64 (scale * min) are float32 operations */
  const float range = fmax - fmin;
  if (!(range > 0)) return GS_ERR_FORMAT; /* a flat field: gprMax divides by its zero range */
  const double scale = (double)(hi - lo) / (double)range;
  const float scale32 = (float)scale, lo32 = (float)lo, shift32 = (float)(scale * (double)fmin);
  for (size_t q = 0; q < total; ++q) {
    const float v = out[q] * scale32 + lo32;
    out[q] = v - shift32;
  }
  return GS_OK;
}

void gs_fractal_bin(const float *v, size_t n, int nbins, int32_t *bin) {
  float fmin = v[0], fmax = v[0];
  for (size_t q = 1; q < n; ++q) {
    fmin = v[q] < fmin ? v[q] : fmin;
    fmax = v[q] > fmax ? v[q] : fmax;
  }
  /* np.linspace(min, max, nbins) in float64 (numpy 1.x promotes the float32 extremes) */
  double *edge = gs_xmalloc(sizeof *edge * (size_t)nbins);
  const double start = (double)fmin, stop = (double)fmax, delta = stop - start;
  const int div = nbins - 1;
  const double step = div > 0 ? delta / div : NAN;
  for (int k = 0; k < nbins; ++k) {
    double y = (double)k;
    if (div <= 0)
      y = y * delta;
    else if (step == 0)
      y = y / div * delta;
    else
      y = y * step;
    edge[k] = y + start;
  }
  if (nbins > 1) edge[nbins - 1] = stop;
  for (size_t q = 0; q < n; ++q) { /* digitize(right=True): the bins strictly below the value */
    const double x = (double)v[q];
    int lo = 0, hi = nbins;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (edge[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
    bin[q] = lo;
  }
  free(edge);
}

/* ---- grass ---- */

int gs_grass_init(gs_grass *g, int64_t nblades, uint64_t seed) {
  memset(g, 0, sizeof *g);
  g->nblades = nblades;
  g->gp = calloc((size_t)(nblades > 0 ? nblades : 1) * 6, sizeof *g->gp);
  if (!g->gp) return -1;
  gs_pcg64 r[4];
  for (int c = 0; c < 4; ++c)
    gs_pcg64_seed(&r[c], seed);
  gs_pcg64_seed(&g->r5, seed);
  gs_pcg64_seed(&g->r6, seed);
  for (int64_t b = 0; b < nblades; ++b) {
    float *p = &g->gp[6 * b];
    p[0] = (float)(10 + 20 * gs_pcg64_random(&r[0]));
    p[1] = (float)(10 + 20 * gs_pcg64_random(&r[1]));
    p[2] = gs_pcg64_below(&r[2], 2) ? 1.0f : -1.0f; /* choice([-1, 1]) */
    p[3] = gs_pcg64_below(&r[3], 2) ? 1.0f : -1.0f;
  }
  return 0;
}

void gs_grass_free(gs_grass *g) {
  free(g->gp);
  g->gp = NULL;
}

/* gprMax's round_value: the nearest integer, an exact half toward zero. */
static int64_t round_half_down(double v) {
  const double t = trunc(v);
  if (fabs(v - t) == 0.5) return (int64_t)t;
  return (int64_t)nearbyint(v);
}

void gs_grass_blade(const gs_grass *g, int64_t blade, int64_t height, int64_t *u, int64_t *w) {
  const float *p = &g->gp[6 * blade];
  /* numpy 1.x scalars: int / float32 is float64, float32 * float64 float64 */
  const double qu = (double)height / (double)p[0], qw = (double)height / (double)p[1];
  *u = round_half_down((double)p[2] * qu * qu);
  *w = round_half_down((double)p[3] * qw * qw);
}

void gs_grass_root(gs_grass *g, int64_t root, int64_t *u, int64_t *w) {
  float *p = &g->gp[6 * root];
  p[4] = (float)((double)p[4] + (-1 + 2 * gs_pcg64_random(&g->r5)));
  p[5] = (float)((double)p[5] + (-1 + 2 * gs_pcg64_random(&g->r6)));
  *u = (int64_t)nearbyint((double)p[4]); /* Python's round(): half to even */
  *w = (int64_t)nearbyint((double)p[5]);
}

/* numpy's pairwise summation of float32 (its add.reduce inner loop). */
static float pairwise_sum(const float *a, int64_t n) {
  if (n < 8) {
    float res = 0;
    for (int64_t i = 0; i < n; ++i)
      res += a[i];
    return res;
  }
  if (n <= 128) {
    float r[8];
    for (int j = 0; j < 8; ++j)
      r[j] = a[j];
    int64_t i;
    for (i = 8; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j)
        r[j] += a[i + j];
    float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i)
      res += a[i];
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* The blades' cells: cumulative float32 probabilities searched with float64
 * draws (digitize, right=False: the bins at or below the draw). */
static int place_blades(const float *cum, int64_t cells, gs_mt19937 *r, int64_t nblades, int64_t *at, char *why,
                        size_t whylen) {
  for (int64_t q = 1; q < cells; ++q)
    if (cum[q] < cum[q - 1]) { /* numpy needs monotonic bins; a dip makes it fail */
      snprintf(why, whylen, "the grass distribution is not monotonic (numpy's digitize refuses it)");
      return -1;
    }
  for (int64_t b = 0; b < nblades; ++b) {
    const double x = gs_mt19937_random(r);
    int64_t lo = 0, hi = cells;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if ((double)cum[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo >= cells) {
      snprintf(why, whylen, "a blade's draw lies past the grass distribution's last bin (numpy's unravel_index fails)");
      return -1;
    }
    at[b] = lo;
  }
  return 0;
}

int gs_grass_heights(const int64_t n[2], double dimension, const double weighting[2], uint64_t seed, int64_t nblades,
                     int64_t lo, int64_t hi, double *heights, char *why, size_t whylen) {
  const int64_t cells = n[0] * n[1];
  if (nblades > cells) {
    snprintf(why, whylen, "the surface is not large enough for %lld blades", (long long)nblades);
    return -1;
  }
  if (lo >= hi && nblades > 0) {
    snprintf(why, whylen, "the blades' lowest height is not below their highest (numpy's randint refuses it)");
    return -1;
  }
  float *f = malloc(sizeof *f * (size_t)cells);
  int64_t *at = malloc(sizeof *at * (size_t)(nblades > 0 ? nblades : 1));
  int rc = f && at ? 0 : -1;
  if (rc) snprintf(why, whylen, "out of memory");
  gs_status st = rc ? GS_ERR_NOMEM : gs_fractal_surface(n, dimension, weighting, seed, 0, 1, f);
  if (!rc && st != GS_OK)
    rc = -1, snprintf(why, whylen, "%s", st == GS_ERR_NOMEM ? "out of memory" : "the grass distribution is flat");
  if (!rc) {
    const float total = pairwise_sum(f, cells);
    float acc = 0;
    for (int64_t q = 0; q < cells; ++q)
      f[q] = acc += f[q] / total;
    gs_mt19937 r;
    gs_mt19937_seed(&r, (uint32_t)seed);
    rc = place_blades(f, cells, &r, nblades, at, why, whylen);
    for (int64_t q = 0; !rc && q < cells; ++q)
      heights[q] = 0;
    for (int64_t b = 0; !rc && b < nblades; ++b)
      heights[at[b]] = (double)gs_mt19937_randint(&r, lo, hi);
  }
  free(f);
  free(at);
  return rc;
}

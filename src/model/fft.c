/* A plain mixed-radix complex FFT with Bluestein's algorithm for large prime
 * factors (fft.h): decimation in time, recursive, twiddles from one table of
 * the full length; lines of a multi-dimensional array in parallel. */
#include "fft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

typedef struct cx {
  double re, im;
} cx;

#define MAX_FACTORS 64
#define LARGEST_DIRECT 61 /* a prime factor above this goes through Bluestein */

typedef struct plan1 {
  int64_t n;
  int nf;
  int64_t f[MAX_FACTORS];
  cx *tw; /* exp(sign 2 pi i k / n), k < n */
  /* Bluestein: n = the line's length, m a power of two >= 2 n - 1 */
  int blue;
  int64_t m;
  cx *chirp, *kernel; /* chirp[k] = exp(sign pi i k^2 / n); kernel: FFT of its conjugate, wrapped */
  struct plan1 *sub;  /* size m, forward */
  struct plan1 *subi; /* size m, backward */
} plan1;

static cx mul(cx a, cx b) {
  return (cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

static int factorize(int64_t n, int64_t *f) {
  int nf = 0;
  while (n % 4 == 0 && nf < MAX_FACTORS)
    f[nf++] = 4, n /= 4;
  for (int64_t p = 2; n > 1 && nf < MAX_FACTORS; p += p == 2 ? 1 : 2)
    while (n % p == 0 && nf < MAX_FACTORS)
      f[nf++] = p, n /= p;
  return nf;
}

static void plan_free(plan1 *p) {
  if (!p) return;
  free(p->tw);
  free(p->chirp);
  free(p->kernel);
  plan_free(p->sub);
  plan_free(p->subi);
  free(p);
}

static void direct(const plan1 *p, const cx *in, cx *out);

static plan1 *plan_make(int64_t n, int sign) {
  plan1 *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n = n;
  p->nf = factorize(n, p->f);
  p->tw = malloc(sizeof *p->tw * (size_t)n);
  if (!p->tw) return plan_free(p), NULL;
  for (int64_t k = 0; k < n; ++k) {
    const double a = 2.0 * 3.141592653589793 * (double)k / (double)n;
    p->tw[k] = (cx){cos(a), sign * sin(a)};
  }
  if (p->nf == 0 || p->f[p->nf - 1] <= LARGEST_DIRECT) return p;
  p->blue = 1; /* Bluestein: a chirp convolution of power-of-two size */
  for (p->m = 1; p->m < 2 * n - 1; p->m *= 2) {
  }
  p->chirp = malloc(sizeof *p->chirp * (size_t)n);
  p->kernel = calloc((size_t)p->m, sizeof *p->kernel);
  cx *tmp = calloc((size_t)(2 * p->m), sizeof *tmp);
  p->sub = plan_make(p->m, -1);
  p->subi = plan_make(p->m, +1);
  if (!p->chirp || !p->kernel || !tmp || !p->sub || !p->subi) return free(tmp), plan_free(p), NULL;
  for (int64_t k = 0; k < n; ++k) {
    const double a = 3.141592653589793 * (double)((k * k) % (2 * n)) / (double)n;
    p->chirp[k] = (cx){cos(a), sign * sin(a)};
    tmp[k] = (cx){p->chirp[k].re, -p->chirp[k].im};
    if (k) tmp[p->m - k] = tmp[k];
  }
  direct(p->sub, tmp, p->kernel);
  free(tmp);
  return p;
}

/* Decimation in time over the factors f[0..]: out[0..n) is the transform of
 * in[0], in[stride], ...; the twiddle of k in this sub-length is tw[k t]. */
static void rec(const plan1 *p, const cx *in, cx *out, int64_t n, int64_t stride, const int64_t *f, int64_t t) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t r = f[0], m = n / r, N = p->n;
  for (int64_t q = 0; q < r; ++q)
    rec(p, in + q * stride, out + q * m, m, stride * r, f + 1, t * r);
  cx y[MAX_FACTORS > LARGEST_DIRECT ? MAX_FACTORS : LARGEST_DIRECT + 1];
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t q = 0; q < r; ++q)
      y[q] = q ? mul(out[q * m + k], p->tw[(q * k * t) % N]) : out[k];
    for (int64_t s = 0; s < r; ++s) {
      cx acc = y[0];
      for (int64_t q = 1; q < r; ++q) {
        const cx w = p->tw[((q * s) % r) * m * t];
        acc.re += y[q].re * w.re - y[q].im * w.im;
        acc.im += y[q].re * w.im + y[q].im * w.re;
      }
      out[k + s * m] = acc;
    }
  }
}

/* One line without Bluestein: in -> out. */
static void direct(const plan1 *p, const cx *in, cx *out) {
  rec(p, in, out, p->n, 1, p->f, 1);
}

/* One line: in -> out (n values); scratch holds 2 m values for Bluestein. */
static void transform(const plan1 *p, const cx *in, cx *out, cx *scratch) {
  if (!p->blue) {
    direct(p, in, out);
    return;
  }
  cx *a = scratch, *b = scratch + p->m;
  memset(a, 0, sizeof *a * (size_t)p->m);
  for (int64_t k = 0; k < p->n; ++k)
    a[k] = mul(in[k], p->chirp[k]);
  direct(p->sub, a, b);
  for (int64_t k = 0; k < p->m; ++k)
    b[k] = mul(b[k], p->kernel[k]);
  direct(p->subi, b, a);
  const double inv = 1.0 / (double)p->m;
  for (int64_t k = 0; k < p->n; ++k) {
    const cx v = mul(a[k], p->chirp[k]);
    out[k] = (cx){v.re * inv, v.im * inv};
  }
}

typedef struct axis_job {
  cx *data;
  const plan1 *p;
  int64_t len, stride; /* the axis' length and the distance of its neighbours */
  int failed[GS_PARALLEL_MAX];
} axis_job;

/* Lines [l0, l1) of one axis: line l starts at (l / stride) len stride + l % stride. */
static void axis_lines(void *ctx, int64_t l0, int64_t l1, int part) {
  axis_job *j = ctx;
  const int64_t len = j->len, st = j->stride, m = j->p->blue ? j->p->m : 0;
  cx *buf = malloc(sizeof *buf * (size_t)(2 * len + 2 * m));
  if (!buf) {
    j->failed[part] = 1;
    return;
  }
  for (int64_t l = l0; l < l1; ++l) {
    cx *base = j->data + (l / st) * len * st + l % st;
    for (int64_t k = 0; k < len; ++k)
      buf[k] = base[k * st];
    transform(j->p, buf, buf + len, buf + 2 * len);
    for (int64_t k = 0; k < len; ++k)
      base[k * st] = buf[len + k];
  }
  free(buf);
}

gs_status gs_fft_nd(double *data, int rank, const int64_t *n, int sign) {
  int64_t total = 1;
  for (int a = 0; a < rank; ++a)
    total *= n[a];
  int64_t stride = total;
  for (int a = 0; a < rank; ++a) {
    stride /= n[a];
    if (n[a] == 1) continue;
    axis_job *j = calloc(1, sizeof *j);
    plan1 *p = j ? plan_make(n[a], sign) : NULL;
    int bad = !p;
    if (p) {
      j->data = (cx *)data;
      j->p = p;
      j->len = n[a];
      j->stride = stride;
      const int64_t lines = total / n[a];
      const int parts = gs_parallel_threads();
      gs_parallel_for(lines, parts, axis_lines, j);
      for (int q = 0; q < parts; ++q)
        bad |= j->failed[q];
    }
    plan_free(p);
    free(j);
    if (bad) return GS_ERR_NOMEM;
  }
  return GS_OK;
}

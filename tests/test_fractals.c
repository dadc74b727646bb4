/* gprMax's heterogeneous soils (src/model/nprandom.c, fractals.c,
 * scene_fractals.c) against numpy and gprMax.
 *
 *   test_fractals                      numpy's streams (values numpy 1.24 printed) and
 *                                      src/model/fft.c against a plain DFT
 *   test_fractals MODEL.in MODEL.g3 [N] the scene built (gs_scene_load, then the 3D
 *                                      geometry) against gprMax's built grid
 *                                      (scripts/gprmax/dump_ids.py): materials by
 *                                      name and properties, then every cell's
 *                                      material and every component's; at most N
 *                                      values may differ (default 0), each printed */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd3d.h"
#include "fft.h"
#include "geometry3d.h"
#include "nprandom.h"
#include "scene.h"

/* Values numpy 1.24.2 printed (%.17g) for default_rng(seed).standard_normal(),
 * .random(), .choice([-1, 1]) and RandomState(seed).random_sample(), .randint(). */
static void check_streams(void) {
  gs_pcg64 g;
  gs_pcg64_seed(&g, 42);
  static const double normal42[] = {0.30471707975443135, -1.0399841062404955, 0.75045119580645725, 0.94056471639121386,
                                    -1.9510351886538364};
  for (int k = 0; k < 5; ++k)
    CHECKF(gs_pcg64_normal(&g) == normal42[k], "normal %d", k);
  gs_pcg64_seed(&g, 22);
  static const double uniform22[] = {0.36634691543207609, 0.1992953793750829, 0.088558373261278911};
  for (int k = 0; k < 3; ++k)
    CHECKF(gs_pcg64_random(&g) == uniform22[k], "random %d", k);
  gs_pcg64_seed(&g, 123456789012ull);
  static const unsigned choice[] = {1, 1, 1, 0, 0, 0, 0, 0};
  for (int k = 0; k < 8; ++k)
    CHECKF(gs_pcg64_below(&g, 2) == choice[k], "choice %d", k);
  gs_mt19937 m;
  gs_mt19937_seed(&m, 17);
  static const double sample17[] = {0.29466500268710971, 0.53058675560529411, 0.19152078694749486};
  for (int k = 0; k < 3; ++k)
    CHECKF(gs_mt19937_random(&m) == sample17[k], "random_sample %d", k);
  static const int64_t randint17[] = {72, 81, 54, 89, 70};
  for (int k = 0; k < 5; ++k)
    CHECKF(gs_mt19937_randint(&m, 50, 90) == randint17[k], "randint %d", k);
}

/* src/model/fft.c (the transform of builds without FFTW) against a plain DFT in long
 * double: lengths of every kind (radix 2, 3, 4, 5, odd factors, Bluestein past 61),
 * forward and backward, and a 3D array (each axis in turn). */
static void check_fft(void) {
  static const int64_t lens[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 30, 49, 61, 64, 67, 97, 100, 134, 384};
  gs_pcg64 g;
  gs_pcg64_seed(&g, 5);
  for (size_t t = 0; t < sizeof lens / sizeof lens[0]; ++t)
    for (int sign = -1; sign <= 1; sign += 2) {
      const int64_t n = lens[t];
      double *x = malloc(sizeof *x * 2 * (size_t)n), *y = malloc(sizeof *y * 2 * (size_t)n);
      for (int64_t k = 0; k < 2 * n; ++k)
        x[k] = y[k] = gs_pcg64_normal(&g);
      CHECK(gs_fft_nd(y, 1, &n, sign) == GS_OK);
      double worst = 0, peak = 0;
      for (int64_t k = 0; k < n; ++k) {
        long double re = 0, im = 0;
        for (int64_t j = 0; j < n; ++j) {
          const long double a = sign * 2 * 3.14159265358979323846264338327950288L * (long double)((j * k) % n) / n;
          re += x[2 * j] * cosl(a) - x[2 * j + 1] * sinl(a);
          im += x[2 * j] * sinl(a) + x[2 * j + 1] * cosl(a);
        }
        worst = fmax(worst, fmax(fabs((double)(y[2 * k] - re)), fabs((double)(y[2 * k + 1] - im))));
        peak = fmax(peak, fmax(fabs((double)re), fabs((double)im)));
      }
      CHECKF(worst <= 1e-13 * peak, "fft of %lld (sign %d): error %g of %g", (long long)n, sign, worst, peak);
      free(x);
      free(y);
    }
  const int64_t dims[3] = {6, 67, 5}; /* 3D: forward then backward gives N times the input */
  const size_t total = 6 * 67 * 5;
  double *x = malloc(sizeof *x * 2 * total), *y = malloc(sizeof *y * 2 * total);
  for (size_t k = 0; k < 2 * total; ++k)
    x[k] = y[k] = gs_pcg64_normal(&g);
  CHECK(gs_fft_nd(y, 3, dims, -1) == GS_OK && gs_fft_nd(y, 3, dims, +1) == GS_OK);
  double worst = 0;
  for (size_t k = 0; k < 2 * total; ++k)
    worst = fmax(worst, fabs(y[k] / (double)total - x[k]));
  CHECKF(worst < 1e-13, "3D round trip: error %g", worst);
  free(x);
  free(y);
}

typedef struct ref {
  int32_t n[3], nmat;
  char (*name)[160];
  double (*prop)[4];
  uint16_t *arr[7]; /* solid, Ex..Hz, x fastest */
} ref;

static int read_rle(FILE *f, uint16_t *out, size_t count) {
  size_t at = 0;
  for (;;) {
    uint16_t vr[2];
    if (fread(vr, 2, 2, f) != 2) return -1;
    if (vr[1] == 0) return at == count ? 0 : -1;
    if (at + vr[1] > count) return -1;
    for (int k = 0; k < vr[1]; ++k)
      out[at++] = vr[0];
  }
}

static int read_ref(const char *path, ref *r) {
  FILE *f = fopen(path, "rb");
  char magic[4];
  if (!f) return -1;
  int ok = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "GSG3", 4) && fread(r->n, 4, 3, f) == 3 &&
           fread(&r->nmat, 4, 1, f) == 1 && r->nmat > 0 && r->nmat < 100000;
  r->name = ok ? calloc((size_t)r->nmat, sizeof *r->name) : NULL;
  r->prop = ok ? calloc((size_t)r->nmat, sizeof *r->prop) : NULL;
  for (int k = 0; ok && k < r->nmat; ++k) {
    uint16_t len;
    ok = fread(&len, 2, 1, f) == 1 && len < sizeof r->name[k] && fread(r->name[k], 1, len, f) == len &&
         fread(r->prop[k], 8, 4, f) == 4;
  }
  const size_t cells = (size_t)r->n[0] * (size_t)r->n[1] * (size_t)r->n[2];
  const size_t nodes = (size_t)(r->n[0] + 1) * (size_t)(r->n[1] + 1) * (size_t)(r->n[2] + 1);
  for (int a = 0; ok && a < 7; ++a) {
    r->arr[a] = malloc((a ? nodes : cells) * sizeof *r->arr[a]);
    ok = r->arr[a] && read_rle(f, r->arr[a], a ? nodes : cells) == 0;
  }
  fclose(f);
  return ok ? 0 : -1;
}

static void free_ref(ref *r) {
  free(r->name);
  free(r->prop);
  for (int a = 0; a < 7; ++a)
    free(r->arr[a]);
}

/* x and y equal within a few units in the last place: numpy 1.24 computes
 * the powers in gprMax's Peplinski formula with its own SIMD pow (SVML on
 * AVX-512 machines), glibc's pow differs in the last bits there. */
static int close(double x, double y) {
  return x == y || (isinf(x) && isinf(y)) || fabs(x - y) <= 1e-14 * fabs(y);
}

/* The same material: name, and properties (to round-off: close()). */
static int same_material(const gs_mat3 *a, const ref *r, int k) {
  const double *p = r->prop[k];
  return !strcmp(a->name, r->name[k]) && close(a->er, p[0]) && close(a->se, p[1]) && close(a->mr, p[2]) &&
         close(a->sm, p[3]);
}

static long compare_grid(const gs_geometry3 *g, const ref *r, const char *name) {
  static const char *comp[7] = {"solid", "Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  long bad = 0, total = 0, per[7] = {0};
  for (int a = 0; a < 7; ++a) {
    const int64_t ni = g->nx + (a > 0), nj = g->ny + (a > 0), nk = g->nz + (a > 0);
    for (int64_t k = 0; k < nk; ++k)
      for (int64_t j = 0; j < nj; ++j)
        for (int64_t i = 0; i < ni; ++i) {
          const int64_t q = i + ni * (j + nj * k);
          const int ours = a ? g->id[a - 1][q] : (int)g->solid[q], theirs = r->arr[a][q];
          /* compounds may be numbered in another order: compared by name and properties */
          const int ok = ours < g->nmat && theirs < r->nmat && same_material(&g->mat[ours], r, theirs);
          ++total;
          if (ok) continue;
          ++per[a];
          if (bad++ < 20)
            fprintf(stderr, "%s: %s[%lld,%lld,%lld]: ours %s, gprMax %s\n", name, comp[a], (long long)i, (long long)j,
                    (long long)k, ours < g->nmat ? g->mat[ours].name : "?", theirs < r->nmat ? r->name[theirs] : "?");
        }
  }
  printf("%s: %ld of %ld values differ (solid %ld, Ex %ld, Ey %ld, Ez %ld, Hx %ld, Hy %ld, Hz %ld); materials ours %d, "
         "gprMax %d\n",
         name, bad, total, per[0], per[1], per[2], per[3], per[4], per[5], per[6], g->nmat, r->nmat);
  return bad;
}

static int check_model(const char *in, const char *g3, long allowed) {
  gs_scene sc;
  char err[1024];
  if (gs_scene_load(in, &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  ref r;
  memset(&r, 0, sizeof r);
  int fail = read_ref(g3, &r) != 0;
  CHECKF(!fail, "%s: not a gprMax grid dump", g3);
  if (!fail) fail = r.n[0] != sc.nx || r.n[1] != sc.ny || r.n[2] != sc.nz;
  gs_geometry3 g;
  gs_mat3 *mats = fail ? NULL : gs_fdtd3_materials(&sc);
  if (mats && gs_geometry3_build(&g, sc.nx, sc.ny, sc.nz, sc.dx, sc.dy, sc.dz, mats, sc.nmaterials, sc.objs3, sc.nobjs3,
                                 err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    fail = 1;
    free(mats);
    mats = NULL;
  }
  if (mats) {
    for (int k = 0; k < sc.nmaterials && k < r.nmat; ++k) /* the given materials in gprMax's order */
      CHECKF(same_material(&g.mat[k], &r, k), "material %d: ours %s (%.17g %.17g), gprMax %s (%.17g %.17g)", k,
             g.mat[k].name, g.mat[k].er, g.mat[k].se, r.name[k], r.prop[k][0], r.prop[k][1]);
    const long bad = compare_grid(&g, &r, in);
    CHECKF(bad <= allowed, "%ld values differ, %ld allowed", bad, allowed);
    gs_geometry3_free(&g);
    free(mats);
  }
  CHECK(!fail);
  free_ref(&r);
  gs_scene_free(&sc);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3)
    check_model(argv[1], argv[2], argc > 3 ? atol(argv[3]) : 0);
  else
    check_streams(), check_fft();
  printf("%d checks, %d failures\n", gs_test_checks, gs_test_failures);
  return gs_test_failures ? 1 : 0;
}

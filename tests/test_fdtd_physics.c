/* Validation of the FDTD solver against analytic results (CPU backend by
 * default, or the backend named by argv[3]).
 *   test_fdtd_physics cavity  INPUTS_DIR   TM11/TM12 peaks vs the Yee formula (1e-4)
 *   test_fdtd_physics energy  INPUTS_DIR   lossless PEC box: energy drift < 1e-4 over 10^4 steps
 *   test_fdtd_physics greens  INPUTS_DIR   line source vs the 2D Green's function (< 2%)
 *   test_fdtd_physics cpml    INPUTS_DIR   CPML reflection vs a large domain (< -40 dB) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"

#define C0 299792458.0
#define MU0 1.25663706212e-6
#define EPS0 8.8541878128e-12
#define PI 3.14159265358979323846

static const gs_backend *backend = &gs_backend_cpu;

static gs_scene load(const char *dir, const char *name) {
  char path[1024], err[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  gs_scene sc;
  if (gs_scene_load(path, &sc, err, sizeof err) != GS_OK) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  return sc;
}

/* Runs the scene; returns receiver 0's Ez (malloc'd, sc->iterations values). */
static double *run_ez(gs_scene *sc) {
  gs_fdtd_sim m;
  gs_fdtd_sim_init(&m, sc, backend, 0);
  while (m.step < sc->iterations)
    gs_fdtd_sim_step(&m);
  gs_fdtd_sim_sync(&m);
  double *ez = malloc(sizeof *ez * (size_t)sc->iterations);
  for (int64_t n = 0; n < sc->iterations; ++n)
    ez[n] = m.rx.hist[(size_t)n * 3 * (size_t)m.rx.n];
  gs_fdtd_sim_free(&m);
  return ez;
}

/* |DTFT| of the Blackman-Harris-windowed signal at frequency f. */
static double spectrum(const double *x, int64_t n, double dt, double f) {
  double re = 0, im = 0;
  for (int64_t k = 0; k < n; ++k) {
    double t = (double)k / (double)(n - 1);
    double w = 0.35875 - 0.48829 * cos(2 * PI * t) + 0.14128 * cos(4 * PI * t) - 0.01168 * cos(6 * PI * t);
    double ph = 2 * PI * f * (double)k * dt;
    re += w * x[k] * cos(ph);
    im -= w * x[k] * sin(ph);
  }
  return sqrt(re * re + im * im);
}

/* The peak of the spectrum in [lo, hi] by golden-section search. */
static double peak(const double *x, int64_t n, double dt, double lo, double hi) {
  const double g = (sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = spectrum(x, n, dt, c), fd = spectrum(x, n, dt, d);
  while (b - a > 1e-9 * (hi + lo)) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = spectrum(x, n, dt, c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = spectrum(x, n, dt, d);
    }
  }
  return (a + b) / 2;
}

static double yee_mode(const gs_scene *sc, int mm, int nn) {
  double a = (double)sc->nx * sc->dx, b = (double)sc->ny * sc->dy;
  double kx = 2 / sc->dx * sin(mm * PI / a * sc->dx / 2), ky = 2 / sc->dy * sin(nn * PI / b * sc->dy / 2);
  double K = sqrt(kx * kx + ky * ky);
  return asin(C0 * sc->dt * K / 2) / (PI * sc->dt);
}

static void test_cavity(const char *dir) {
  gs_scene sc = load(dir, "pec_cavity.in");
  double *ez = run_ez(&sc);
  int modes[2][2] = {{1, 1}, {1, 2}};
  for (int k = 0; k < 2; ++k) {
    double want = yee_mode(&sc, modes[k][0], modes[k][1]);
    double bin = 1 / ((double)sc.iterations * sc.dt);
    double got = peak(ez, sc.iterations, sc.dt, want - 3 * bin, want + 3 * bin);
    double rel = fabs(got - want) / want;
    printf("cavity TM%d%d: measured %.6f GHz, Yee formula %.6f GHz, relative error %.2e (limit 1e-4)\n", modes[k][0],
           modes[k][1], got * 1e-9, want * 1e-9, rel);
    CHECKF(rel < 1e-4, "TM%d%d off by %.2e", modes[k][0], modes[k][1], rel);
    /* The peak must be a real resonance, not noise: well above the spectrum
     * half-way to the neighbouring bins. */
    double side = spectrum(ez, sc.iterations, sc.dt, want + 4 * bin);
    CHECKF(spectrum(ez, sc.iterations, sc.dt, got) > 100 * side, "TM%d%d peak not prominent", modes[k][0], modes[k][1]);
  }
  free(ez);
  gs_scene_free(&sc);
}

/* W^n = eps0 |E^n|^2 + mu0 H^{n-1/2} . H^{n+1/2}, conserved exactly by the
 * lossless Yee scheme with PEC walls (up to rounding). */
static void test_energy(const char *dir) {
  gs_scene sc = load(dir, "pec_cavity.in");
  sc.iterations = 12002;
  gs_fdtd_sim m;
  gs_fdtd_sim_init(&m, &sc, backend, 0);
  size_t per = (size_t)m.grid.pitch * (size_t)(m.grid.ny + 1);
  float *e = malloc(per * sizeof *e), *hx0 = malloc(per * sizeof *e), *hy0 = malloc(per * sizeof *e),
        *hx1 = malloc(per * sizeof *e), *hy1 = malloc(per * sizeof *e);
  double w[2];
  int64_t at[2] = {2000, 12000};
  for (int s = 0; s < 2; ++s) {
    while (m.step < at[s])
      gs_fdtd_sim_step(&m);
    gs_fdtd_sim_sync(&m);
    gs_fdtd_sim_read_rows(&m, 0, 0, m.grid.ny + 1, e);
    gs_fdtd_sim_read_rows(&m, 1, 0, m.grid.ny + 1, hx0);
    gs_fdtd_sim_read_rows(&m, 2, 0, m.grid.ny + 1, hy0);
    gs_fdtd_sim_step(&m);
    gs_fdtd_sim_sync(&m);
    gs_fdtd_sim_read_rows(&m, 1, 0, m.grid.ny + 1, hx1);
    gs_fdtd_sim_read_rows(&m, 2, 0, m.grid.ny + 1, hy1);
    double we = 0, wh = 0;
    for (int64_t j = 0; j <= m.grid.ny; ++j)
      for (int64_t i = 0; i <= m.grid.nx; ++i) {
        size_t k = (size_t)j * (size_t)m.grid.pitch + (size_t)(i + m.grid.g);
        we += (double)e[k] * e[k];
        wh += (double)hx0[k] * hx1[k] + (double)hy0[k] * hy1[k];
      }
    w[s] = EPS0 * we + MU0 * wh;
  }
  double drift = fabs(w[1] - w[0]) / w[0];
  printf("energy: W(2000) = %.9e, W(12000) = %.9e, relative drift %.2e over 10^4 steps (limit 1e-4)\n", w[0], w[1],
         drift);
  CHECK(w[0] > 0);
  CHECKF(drift < 1e-4, "energy drift %.2e", drift);
  gs_fdtd_sim_free(&m);
  free(e);
  free(hx0);
  free(hy0);
  free(hx1);
  free(hy1);
  gs_scene_free(&sc);
}

/* Ez of a line current I(t) (A) in free space:
 * Ez(rho, t) = -(mu0 / 2 pi) * integral_0^inf I'(t - (rho/c) cosh u) du. */
static double greens_ez(const gs_waveform *wf, double rho, double t) {
  if (C0 * t <= rho) return 0;
  double umax = acosh(C0 * t / rho);
  int n = 20000;
  double h = umax / n, sum = 0;
  for (int k = 0; k <= n; ++k) {
    double u = k * h, tt = t - rho / C0 * cosh(u);
    double d = 1e-3 / wf->freq; /* I'(t) by a central difference of the waveform */
    double ip = (gs_waveform_value(wf, tt + d) - gs_waveform_value(wf, tt - d)) / (2 * d);
    if (tt < 0) ip = 0; /* the source starts at t = 0 */
    sum += (k == 0 || k == n ? 1 : (k % 2 ? 4 : 2)) * ip;
  }
  return -MU0 / (2 * PI) * sum * h / 3;
}

static void test_greens(const char *dir) {
  gs_scene sc = load(dir, "free_space.in");
  double *ez = run_ez(&sc);
  const gs_source *src = &sc.sources[0];
  double rho = (double)(sc.rxs[0].i - src->i) * sc.dx;
  /* The first reflection from the PML's inner face cannot arrive before
   * the wave travels to the nearest face and back to the receiver. */
  double face = (double)(sc.nx - sc.pml[2] - src->i) * sc.dx;
  double t_refl = (2 * face - rho) / C0;
  double err = 0, peakv = 0;
  int64_t used = 0;
  for (int64_t n = 0; n < sc.iterations; ++n) {
    double t = (double)n * sc.dt;
    if (t >= t_refl) break;
    double want = greens_ez(&sc.waveforms[src->waveform], rho, t);
    err = fmax(err, fabs(ez[n] - want));
    peakv = fmax(peakv, fabs(want));
    ++used;
  }
  double rel = err / peakv;
  printf("greens: %lld samples before t = %.3f ns, rho = %.0f cells: max |error| / max |Ez| = %.3f%% (limit 2%%)\n",
         (long long)used, t_refl * 1e9, rho / sc.dx, 100 * rel);
  CHECK(used > 100);
  CHECKF(rel < 0.02, "Green's function error %.3f%%", 100 * rel);
  free(ez);
  gs_scene_free(&sc);
}

/* The same source and receiver in a small domain with CPML and in a domain
 * so large that nothing returns within the window: their difference is what
 * the CPML reflects. */
static void test_cpml(const char *dir) {
  gs_scene small = load(dir, "free_space.in"), big = load(dir, "free_space.in");
  gs_waveform ricker = {"ricker", GS_WAVE_RICKER, 1, 1.5e9};
  small.waveforms[0] = ricker;
  big.waveforms[0] = ricker;
  int64_t cells = 100, pml = 10, grow = 460;
  small.nx = small.ny = cells;
  small.pml[0] = small.pml[1] = small.pml[2] = small.pml[3] = (int)pml;
  small.sources[0].i = small.sources[0].j = cells / 2;
  small.rxs[0].i = cells - pml - 5; /* 5 cells from the PML's inner face */
  small.rxs[0].j = cells / 2;
  small.iterations = 1200;
  big.nx = big.ny = cells + 2 * grow;
  big.pml[0] = big.pml[1] = big.pml[2] = big.pml[3] = 0;
  big.sources[0].i = big.sources[0].j = cells / 2 + grow;
  big.rxs[0].i = small.rxs[0].i + grow;
  big.rxs[0].j = cells / 2 + grow;
  big.iterations = small.iterations;
  double *a = run_ez(&small), *b = run_ez(&big);
  double ref, db = gs_test_db(a, b, small.iterations, &ref);
  printf("cpml: %lld-cell CPML, receiver 5 cells from it: max reflection %.1f dB of the incident peak (limit -40 dB)\n",
         (long long)pml, db);
  CHECK(ref > 0);
  CHECKF(db < -40, "CPML reflection %.1f dB", db);
  free(a);
  free(b);
  gs_scene_free(&small);
  gs_scene_free(&big);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_fdtd_physics cavity|energy|greens|cpml INPUTS_DIR [cpu|cuda]\n");
    return 2;
  }
  if (argc > 3 && strcmp(argv[3], "cuda") == 0) {
#ifdef GS_HAVE_CUDA
    if (gs_cuda_probe() == 0) {
      printf("no CUDA GPU visible: skipped\n");
      return GS_TEST_SKIP;
    }
    backend = &gs_backend_cuda;
    backend->device_select(0);
#else
    printf("built without CUDA: skipped\n");
    return GS_TEST_SKIP;
#endif
  }
  const char *dir = argv[2];
  if (!strcmp(argv[1], "cavity"))
    test_cavity(dir);
  else if (!strcmp(argv[1], "energy"))
    test_energy(dir);
  else if (!strcmp(argv[1], "greens"))
    test_greens(dir);
  else if (!strcmp(argv[1], "cpml"))
    test_cpml(dir);
  else
    return 2;
  return gs_test_done(argv[1]);
}

/* The 3D engine's CPML (src/engine/fdtd3d.c, gprMax's HORIPML on six faces):
 * the same dipole and receiver in a 40^3 free-space domain with 10 CPML
 * cells, the receiver 5 cells from a CPML face, and in a domain large enough
 * that nothing returns from its walls within the time window; the
 * difference is what the CPML reflects (< -40 dB of the incident peak, the
 * 3D engine's check). The same for gprMax's other forms: MRIPML with its
 * default CFS term, and HORIPML and MRIPML of second order with the CFS
 * terms of gprMax's own comparison of them (testing/models_pmls/
 * pml_3D_pec_plate, scaled to the cell). CPU backend. PML3=N sets the
 * CPML's cells (a check that the test can fail: 1 cell reads -18 dB). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "fdtd3d.h"

/* A free-space model of n^3 cells of 2 mm, pml cells on every face, a
 * 3 GHz Ricker z dipole at the centre and a receiver `off` cells along x. */
static void make_scene(gs_scene *s, int64_t n, int pml, int64_t off, int64_t steps) {
  gs_scene_synthetic3(s, n, n, n, steps);
  s->nobjs3 = 0; /* free space */
  for (int k = 0; k < 6; ++k)
    s->pml6[k] = pml;
  s->dx = s->dy = s->dz = 0.002;
  s->dt = 1 / (299792458.0 * sqrt(3 / (s->dx * s->dx))); /* the 3D Courant limit */
  s->waveforms[0] = (gs_waveform){.name = "w", .type = GS_WAVE_RICKER, .amp = 1, .freq = 3e9, .dt = s->dt};
  s->sources[0] = (gs_source){.i = n / 2, .j = n / 2, .k = n / 2, .pol = 2, .stop = INFINITY};
  s->rxs[0].i = n / 2 + off;
  s->rxs[0].j = s->rxs[0].k = n / 2;
}

/* Ez at the receiver over the steps (gs_fdtd3_sim's order: [step][rx][6]). */
static double *run_ez(gs_scene *s) {
  gs_fdtd3_sim m;
  char err[256];
  if (gs_fdtd3_sim_init(&m, s, &gs_backend_cpu, 0, err, sizeof err) != GS_OK) {
    fprintf(stderr, "init: %s\n", err);
    exit(1);
  }
  gs_fdtd3_sim_advance(&m, s->iterations);
  gs_fdtd3_sim_sync(&m);
  double *ez = malloc(sizeof(double) * (size_t)s->iterations);
  for (int64_t n = 0; n < s->iterations; ++n)
    ez[n] = m.rx_hist[(size_t)n * 6 * (size_t)m.nrx + 2];
  gs_fdtd3_sim_free(&m);
  return ez;
}

/* CFS term k of s: scalings (order, reverse) and min/max of alpha, kappa, sigma. */
static void set_cfs(gs_scene *s, int k, const double v[12]) {
  gs_cfs_param *p[3] = {&s->cfs[k].alpha, &s->cfs[k].kappa, &s->cfs[k].sigma};
  for (int q = 0; q < 3; ++q)
    *p[q] = (gs_cfs_param){(int)v[4 * q], (int)v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]};
  if (k + 1 > s->ncfs) s->ncfs = k + 1;
}

/* The reflection (dB) of the small model in form f: 1 MRIPML (gprMax's
 * default term), 2 HORIPML of second order, 3 MRIPML of second order. */
static double form_db(int f, int64_t n, int pml, int64_t off, int64_t steps, const double *b) {
  gs_scene s;
  make_scene(&s, n, pml, off, steps);
  const double pi = 3.14159265358979323846, dl = s.dx, g = 150 * pi * dl; /* gprMax's sigma scale */
  if (f == 2) {                                                           /* HORIPML-2 of gprMax's comparison */
    const double c0[12] = {0, 0, 0, 0, 0, 0, 1, 1, 6, 0, 0, 0.275 / g};
    const double c1[12] = {6, 0, 0.07, 0.07 + 0.275 / g, 3, 0, 1, 8, 2, 0, 0, 2.75 / g};
    set_cfs(&s, 0, c0);
    set_cfs(&s, 1, c1);
  } else if (f == 3) { /* MRIPML-2 */
    const double c0[12] = {2, 1, 0, 0.15, 4, 0, 1, 12, 4, 0, 0, 0.65 * 5 / g};
    const double c1[12] = {1, 1, 0.07, 0.8, 0, 0, 0, 0, 2, 0, 0, 0.65 * 3 / g};
    set_cfs(&s, 0, c0);
    set_cfs(&s, 1, c1);
  }
  s.pml_formulation = f == 2 ? GS_PML_HORIPML : GS_PML_MRIPML;
  double *a = run_ez(&s), ref, db = gs_test_db(a, b, steps, &ref);
  free(a);
  gs_scene_free(&s);
  return db;
}

int main(void) {
  const int64_t small_n = 40, pml = getenv("PML3") ? atoll(getenv("PML3")) : 10, off = 5, steps = 250, big_n = 150;
  gs_scene small, big;
  make_scene(&small, small_n, (int)pml, off, steps);
  make_scene(&big, big_n, 0, off, steps);
  double *a = run_ez(&small), *b = run_ez(&big);
  double ref, db = gs_test_db(a, b, steps, &ref);
  printf("cpml3d: %lld-cell CPML on six faces, receiver 5 cells from it: max reflection %.1f dB of the incident peak "
         "(limit -40 dB)\n",
         (long long)pml, db);
  CHECK(ref > 0);
  CHECKF(db < -40, "CPML reflection %.1f dB", db);
  static const char *const names[4] = {"", "MRIPML", "HORIPML, two CFS terms", "MRIPML, two CFS terms"};
  for (int f = 1; f < 4; ++f) {
    double dbf = form_db(f, small_n, (int)pml, off, steps, b);
    printf("cpml3d %s: max reflection %.1f dB (limit -40 dB)\n", names[f], dbf);
    CHECKF(dbf < -40, "%s reflection %.1f dB", names[f], dbf);
  }
  free(a);
  free(b);
  gs_scene_free(&small);
  gs_scene_free(&big);
  return gs_test_done("test_fdtd3d_cpml");
}

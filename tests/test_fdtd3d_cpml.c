/* The 3D engine's CPML (src/engine/fdtd3d.c, gprMax's HORIPML on six faces):
 * the same dipole and receiver in a 40^3 free-space domain with 10 CPML
 * cells, the receiver 5 cells from a CPML face, and in a domain large enough
 * that nothing returns from its walls within the time window; the
 * difference is what the CPML reflects (< -40 dB of the incident peak, the
 * 3D engine's check). CPU backend. PML3=N sets the CPML's cells (a check that
 * the test can fail: 1 cell reads -18 dB). */
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
  free(a);
  free(b);
  gs_scene_free(&small);
  gs_scene_free(&big);
  return gs_test_done("test_fdtd3d_cpml");
}

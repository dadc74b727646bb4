/* What the FDTD bit tests share (test_fdtd_gpu.c, test_fdtd_onchip_emu.c):
 * running a sim by single steps or through gs_fdtd_sim_advance in uneven
 * pieces, and comparing two sims' fields, CPML auxiliaries and receivers
 * bit for bit. */
#ifndef GS_TEST_FDTD_SAME_BITS_H
#define GS_TEST_FDTD_SAME_BITS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd.h"

/* Runs m to its scene's last step through gs_fdtd_sim_advance in uneven pieces. */
static inline void advance_in_pieces(gs_fdtd_sim *m) {
  const int64_t end = m->sc->iterations;
  for (int64_t k = 0; m->step < end; ++k) {
    int64_t piece = 5 + (k * 37) % 61;
    gs_fdtd_sim_advance(m, piece < end - m->step ? piece : end - m->step);
  }
  gs_fdtd_sim_sync(m);
}

static inline void run_steps(gs_fdtd_sim *m) {
  while (m->step < m->sc->iterations)
    gs_fdtd_sim_step(m);
  gs_fdtd_sim_sync(m);
}

/* Field f (0 Ez, 1 Hx, 2 Hy) of m's current set, all rows; n: floats. */
static inline float *read_field(gs_fdtd_sim *m, int f, size_t *n) {
  *n = (size_t)m->grid.pitch * (size_t)(m->grid.ny + 1);
  float *v = malloc(*n * sizeof *v);
  gs_fdtd_sim_read_rows(m, f, 0, m->grid.ny + 1, v);
  return v;
}

/* CPML auxiliary k (slab k / 2, E or H) of m's current set, on the host. */
static inline float *read_psi(gs_fdtd_sim *m, int k, size_t *n) {
  *n = m->pml.cells[k / 2];
  float *v = malloc(*n * sizeof *v + 1);
  m->b->copy_d2h(v, m->pml.psi[k / 2][m->fields.cur][k % 2], *n * sizeof *v, m->s);
  m->b->stream_sync(m->s);
  return v;
}

/* x and y hold the same bits: every field, every CPML auxiliary and every
 * receiver sample. */
static inline void check_same_bits(gs_fdtd_sim *x, gs_fdtd_sim *y, const char *what) {
  const char *names[3] = {"Ez", "Hx", "Hy"};
  for (int f = 0; f < 3; ++f) {
    size_t n;
    float *fx = read_field(x, f, &n), *fy = read_field(y, f, &n);
    CHECKF(memcmp(fx, fy, n * sizeof *fx) == 0, "%s: %s not the bits of single steps", what, names[f]);
    free(fx);
    free(fy);
  }
  for (int k = 0; k < 2 * x->pml.n; ++k) {
    size_t n;
    float *px = read_psi(x, k, &n), *py = read_psi(y, k, &n);
    CHECKF(memcmp(px, py, n * sizeof *px) == 0, "%s: psi of slab %d (%s) not the bits of single steps", what, k / 2,
           k % 2 ? "H" : "E");
    free(px);
    free(py);
  }
  CHECKF(x->rx.n == 0 ||
             memcmp(x->rx.hist, y->rx.hist, sizeof(float) * 3 * (size_t)x->rx.n * (size_t)x->sc->iterations) == 0,
         "%s: receivers not the bits of single steps", what);
  printf("%s: the bits of single steps (%d receivers)\n", what, x->rx.n);
}

#endif

/* CPU twins of kernels/fdtd.cu (compiled with -ffp-contract=off). */
#include "fdtd_kernels.h"
#include "fdtd_node.h"

#include <string.h>

/* A region that touches no CPML slab: the expressions of fdtd_node.h with
 * nslab = 0, in loops the compiler vectorises. Nodes on the region's first
 * row or column recompute their neighbour's H through fdtd_node.h. */
static int step_plain(const gs_fdtd_step_args *a, gs_fdtd_region r) {
  const float chx = a->chx, chy = a->chy;
  const int64_t P = a->pitch;
  /* Row pointers are based at column r.i0; index t is column r.i0 + t. */
  for (int64_t j = r.j0; j < r.j1; ++j) {
    const int64_t b = gs_fdtd_at(a, r.i0, j);
    const float *ez = a->ez + b, *hx = a->hx + b, *hy = a->hy + b;
    float *hxo = a->hx_out + b, *hyo = a->hy_out + b;
    const int64_t n = r.i1 - r.i0, ny_ = (r.i1 < a->nx ? r.i1 : a->nx) - r.i0;
    if (j < a->ny)
      for (int64_t t = 0; t < n; ++t)
        hxo[t] = hx[t] - chy * (ez[t + P] - ez[t]);
    for (int64_t t = 0; t < ny_; ++t)
      hyo[t] = hy[t] + chx * (ez[t + 1] - ez[t]);
  }
  int64_t j0 = r.j0 > 1 ? r.j0 : 1, j1 = r.j1 < a->ny ? r.j1 : a->ny;
  int64_t i0 = r.i0 > 1 ? r.i0 : 1, i1 = r.i1 < a->nx ? r.i1 : a->nx;
  for (int64_t j = j0; j < j1; ++j) {
    const int64_t b = gs_fdtd_at(a, i0, j);
    const float *ez = a->ez + b, *hxo = a->hx_out + b, *hyo = a->hy_out + b;
    const uint8_t *mat = a->mat + b;
    float *ezo = a->ez_out + b;
    int64_t i = i0;
    for (; i < i1 && (j == r.j0 || i == r.i0); ++i) { /* neighbours outside the region: recompute */
      int64_t t = i - i0;
      float hy_l = i - 1 >= r.i0 ? hyo[t - 1] : gs_fdtd_hy_new(a, i - 1, j, 0);
      float hx_d = j - 1 >= r.j0 ? hxo[t - P] : gs_fdtd_hx_new(a, i, j - 1, 0);
      gs_fdtd_e(a, i, j, hxo[t], hyo[t], hy_l, hx_d);
    }
    for (int64_t t = i - i0; t < i1 - i0; ++t) {
      gs_fdtd_coef c = a->coef[mat[t]];
      ezo[t] = c.ca * ez[t] + (c.cbx * (hyo[t] - hyo[t - 1]) - c.cby * (hxo[t] - hxo[t - P]));
    }
  }
  return 0;
}

/* Two passes over the region: new H, then new Ez reading the new H its
 * neighbours stored, or recomputing it where the neighbour lies outside the
 * region (the same bits either way: fdtd_node.h). */
static int step_one(const gs_fdtd_step_args *args, gs_fdtd_region r) {
  /* A private copy: stores through the field pointers cannot alias it, so
   * the compiler keeps its members in registers. */
  const gs_fdtd_step_args local = *args, *a = &local;
  if (gs_fdtd_slab_free(a, r)) return step_plain(a, r);
  for (int64_t j = r.j0; j < r.j1; ++j)
    for (int64_t i = r.i0; i < r.i1; ++i) {
      int64_t k = gs_fdtd_at(a, i, j);
      if (j < a->ny) a->hx_out[k] = gs_fdtd_hx_new(a, i, j, 1);
      if (i < a->nx) a->hy_out[k] = gs_fdtd_hy_new(a, i, j, 1);
    }
  for (int64_t j = r.j0; j < r.j1; ++j)
    for (int64_t i = r.i0; i < r.i1; ++i) {
      if (!gs_fdtd_interior(a, i, j)) continue;
      int64_t k = gs_fdtd_at(a, i, j);
      float hy_l = i - 1 >= r.i0 ? a->hy_out[k - 1] : gs_fdtd_hy_new(a, i - 1, j, 0);
      float hx_d = j - 1 >= r.j0 ? a->hx_out[k - a->pitch] : gs_fdtd_hx_new(a, i, j - 1, 0);
      gs_fdtd_e(a, i, j, a->hx_out[k], a->hy_out[k], hy_l, hx_d);
    }
  return 0;
}

int gs_fdtd_step_ref(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *stream) {
  (void)stream;
  for (int k = 0; k < n; ++k)
    if (r[k].i1 > r[k].i0 && r[k].j1 > r[k].j0) step_one(a, r[k]);
  return 0;
}

int gs_fdtd_inject_ref(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n, int pdl,
                       void *stream) {
  (void)pdl;
  (void)stream;
  const float *v = val + gs_tick_value(t) * stride;
  for (int k = 0; k < n; ++k)
    ez[off[k]] = ez[off[k]] - v[k];
  return 0;
}

int gs_fdtd_sample_ref(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t, void *stream) {
  (void)stream;
  out += gs_tick_value(t) % slots * 3 * n;
  for (int k = 0; k < n; ++k) {
    out[3 * k] = v.ez[off[k]];
    out[3 * k + 1] = v.hx[off[k]];
    out[3 * k + 2] = v.hy[off[k]];
  }
  return 0;
}

int gs_fdtd_clock_ref(int64_t *c, int64_t v0, int64_t v1, int add, void *stream) {
  (void)stream;
  c[0] = add ? c[0] + v0 : v0;
  c[1] = add ? c[1] + v1 : v1;
  return 0;
}

int gs_fdtd_run_ref(const gs_fdtd_run_args *a, int64_t steps, void *stream) {
  const gs_fdtd_region whole = {0, a->set[0].nx + 1, 0, a->set[0].ny + 1};
  const gs_fdtd_region *piece = a->npiece ? a->piece : &whole;
  const int npiece = a->npiece ? a->npiece : 1;
  for (int64_t s = 0; s < steps; ++s) {
    const gs_fdtd_step_args *q = &a->set[s % 2];
    const gs_tick t = gs_tick_at(a->t0 + s);
    gs_fdtd_view v = {(float *)q->ez, (float *)q->hx, (float *)q->hy, q->mat, q->pitch, q->g};
    if (a->nrx) gs_fdtd_sample_ref(v, a->rx_off, a->nrx, a->rx_out, a->rx_slots, t, stream);
    gs_fdtd_step_ref(q, piece, npiece, stream);
    gs_fdtd_inject_ref(q->ez_out, a->src_off, a->src_val, a->src_stride, t, a->nsrc, 0, stream);
  }
  return 0;
}

int gs_fdtd_run_fits_ref(const gs_fdtd_step_args *a) {
  (void)a;
  return 1;
}

int64_t gs_fdtd_run_scratch_ref(const gs_fdtd_step_args *a) {
  (void)a;
  return 2 * (int64_t)sizeof(uint64_t);
}

const char *gs_fdtd_run_form_ref(const gs_fdtd_step_args *a) {
  (void)a;
  return "the CPU twin";
}

/* dst's outputs (fields, psi) from src's: after an even number of single
 * steps the state lies in set[1]'s outputs, the fused contract wants set[0]'s. */
static void copy_outputs(const gs_fdtd_step_args *dst, const gs_fdtd_step_args *src, int64_t rows) {
  const size_t n = (size_t)dst->pitch * (size_t)rows;
  memcpy(dst->ez_out, src->ez_out, n * sizeof(float));
  memcpy(dst->hx_out, src->hx_out, n * sizeof(float));
  memcpy(dst->hy_out, src->hy_out, n * sizeof(float));
  for (int k = 0; k < dst->nslab; ++k) {
    const gs_fdtd_slab *p = &dst->slab[k];
    const size_t w = (size_t)(p->hi - p->lo) * (size_t)(p->o1 - p->o0);
    memcpy(p->psi_e_out, src->slab[k].psi_e_out, w * sizeof(float));
    memcpy(p->psi_h_out, src->slab[k].psi_h_out, w * sizeof(float));
  }
}

int gs_fdtd_fuse_ref(const gs_fdtd_run_args *a, int64_t steps, void *stream) {
  if (steps < 1 || steps > GS_FDTD_FUSE_MAX || !gs_fdtd_fuse_takes(&a->set[0])) return 1;
  gs_fdtd_run_ref(a, steps, stream);
  if (steps % 2 == 0) copy_outputs(&a->set[0], &a->set[1], a->rows);
  return 0;
}

int gs_fdtd_fuse_fits_ref(const gs_fdtd_step_args *a) {
  return gs_fdtd_fuse_takes(a) ? GS_FDTD_FUSE_MAX : 0;
}

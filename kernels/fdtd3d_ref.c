/* CPU twins of kernels/fdtd3d.cu (compiled with -ffp-contract=off). */
#include "fdtd3d_kernels.h"
#include "fdtd3d_node.h"

#include <limits.h>
#include <string.h>

void gs_fdtd3_layout(int64_t nx, int64_t ny, int64_t nz, int64_t *pitch, int64_t *plane, int64_t *count) {
  *pitch = (nx + 1 + 31) / 32 * 32;
  *plane = *pitch * (ny + 1);
  *count = *plane * (nz + 1);
}

static int empty(gs_fdtd3_region r) {
  return r.i1 <= r.i0 || r.j1 <= r.j0 || r.k1 <= r.k0;
}

static int64_t max64(int64_t x, int64_t y) {
  return x > y ? x : y;
}
static int64_t min64(int64_t x, int64_t y) {
  return x < y ? x : y;
}

int gs_fdtd3_split(const gs_fdtd3_step_args *a, gs_fdtd3_region r, gs_fdtd3_region out[7]) {
  gs_fdtd3_region in = gs_fdtd3_inner(a), c;
  int n = 1;
  c.i0 = max64(r.i0, in.i0), c.i1 = min64(r.i1, in.i1);
  c.j0 = max64(r.j0, in.j0), c.j1 = min64(r.j1, in.j1);
  c.k0 = max64(r.k0, in.k0), c.k1 = min64(r.k1, in.k1);
  if (a->hmx || a->hmy || a->hmz || empty(c) || empty(r)) {
    gs_fdtd3_region none = {0, 0, 0, 0, 0, 0};
    out[0] = none;
    if (!empty(r)) out[n++] = r;
    return n;
  }
  out[0] = c;
  return 1 + gs_fdtd3_around(r, c, out + 1);
}

int gs_fdtd3_around(gs_fdtd3_region r, gs_fdtd3_region c, gs_fdtd3_region out[6]) {
  const gs_fdtd3_region p[6] = {
      {r.i0, r.i1, r.j0, r.j1, r.k0, c.k0}, {r.i0, r.i1, r.j0, r.j1, c.k1, r.k1}, {r.i0, r.i1, r.j0, c.j0, c.k0, c.k1},
      {r.i0, r.i1, c.j1, r.j1, c.k0, c.k1}, {r.i0, c.i0, c.j0, c.j1, c.k0, c.k1}, {c.i1, r.i1, c.j0, c.j1, c.k0, c.k1},
  };
  int n = 0;
  for (int q = 0; q < 6; ++q)
    if (!empty(p[q])) out[n++] = p[q];
  return n;
}

/* Slab p's geometry for E (e = 1) or H (e = 0) on a grid of n[3] cells,
 * N = n[p->dir]: gs_fdtd3_in_slab's range of the node's index m along the
 * slab's axis (side 0: E [1, t], H [0, t); side 1: [N - t, N)) and below
 * the far face on the other two axes; gs_fdtd3_cpml_f's depth (side 0: E
 * t - m, H t - 1 - m; side 1: m - (N - t)) and Phi element, [(b sa + a) t +
 * q] for an x slab, [(q sb + b) sa + a] for the others (fdtd3d_kernels.h). */
static gs_fdtd3_slab_geo slab_geo(const gs_fdtd3_slab *p, int e, const int64_t n[3]) {
  const int dir = p->dir, t = (int)p->t, N = (int)n[dir];
  const int lo = p->side ? N - t : e ? 1 : 0, qs = p->side ? 1 : -1, q0 = p->side ? t - N : e ? t : t - 1;
  int lim[3][2];
  for (int x = 0; x < 3; ++x) {
    lim[x][0] = x == dir ? lo : INT_MIN;
    lim[x][1] = x == dir ? lo + t : (int)n[x];
  }
  const int64_t sa = p->sa, sb = p->sb;
  gs_fdtd3_slab_geo g = {.dir = dir,
                         .i0 = lim[0][0],
                         .i1 = lim[0][1],
                         .j0 = lim[1][0],
                         .j1 = lim[1][1],
                         .k0 = lim[2][0],
                         .k1 = lim[2][1],
                         .qi = dir == 0 ? qs : 0,
                         .qj = dir == 1 ? qs : 0,
                         .qk = dir == 2 ? qs : 0,
                         .q0 = q0};
  if (dir == 0) { /* w = k sa t + j t + q */
    g.wi = qs;
    g.wj = t;
    g.wk = sa * t;
    g.w0 = q0;
  } else { /* w = q sb sa + (k or j) sa + i */
    g.wi = 1;
    g.wj = dir == 1 ? qs * sb * sa : sa;
    g.wk = dir == 1 ? sa : qs * sb * sa;
    g.w0 = q0 * sb * sa;
  }
  return g;
}

void gs_fdtd3_geo_of(const gs_fdtd3_step_args *a, gs_fdtd3_geo *g) {
  const int64_t n[3] = {a->nx, a->ny, a->nz};
  for (int s = 0; s < a->nslab && s < 6; ++s)
    for (int e = 0; e < 2; ++e)
      g->s[e][s] = slab_geo(&a->slab[s], e, n);
}

/* New H of every node of r, then new E (fdtd3d_node.h; g: the slabs'
 * geometry). The loops are written twice: first-order HORIPML (gprMax's
 * default: its CPML code as a constant) and the other forms (the form read
 * once per node). */
GS_FMA_CLONES static void h_pass(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, gs_fdtd3_region r) {
  const int pf = a->pml_form;
  for (int64_t k = r.k0; k < r.k1; ++k)
    for (int64_t j = r.j0; j < r.j1; ++j)
      if (pf == GS_FDTD3_HORIPML1)
        for (int64_t i = r.i0; i < r.i1; ++i)
          gs_fdtd3_h_node(a, i, j, k, GS_FDTD3_HORIPML1, ~0u, g);
      else
        for (int64_t i = r.i0; i < r.i1; ++i)
          gs_fdtd3_h_node(a, i, j, k, pf, ~0u, g);
}

/* (stored: whose new H is stored; poles: gs_fdtd3_has_poles) */
GS_FMA_CLONES static void e_pass(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, gs_fdtd3_region r,
                                 gs_fdtd3_region stored) {
  const int poles = gs_fdtd3_has_poles(a), pf = a->pml_form;
  for (int64_t k = r.k0; k < r.k1; ++k)
    for (int64_t j = r.j0; j < r.j1; ++j)
      if (pf == GS_FDTD3_HORIPML1)
        for (int64_t i = r.i0; i < r.i1; ++i)
          gs_fdtd3_e_node(a, stored, i, j, k, poles, 0, GS_FDTD3_HORIPML1, ~0u, g);
      else
        for (int64_t i = r.i0; i < r.i1; ++i)
          gs_fdtd3_e_node(a, stored, i, j, k, poles, 0, pf, ~0u, g);
}

int gs_fdtd3_axes_of(const gs_fdtd3_step_args *a, gs_fdtd3_axes *ax) {
  const int64_t n[3] = {a->nx, a->ny, a->nz};
  int64_t t[3] = {0, 0, 0};
  memset(ax, -1, sizeof *ax);
  for (int s = 0; s < a->nslab && s < 6; ++s) {
    const gs_fdtd3_slab *p = &a->slab[s];
    if (ax->s[p->dir][p->side] >= 0) return 0;
    ax->s[p->dir][p->side] = (signed char)s;
    t[p->dir] += p->t;
  }
  return t[0] < n[0] && t[1] < n[1] && t[2] < n[2] && a->plane * (a->nz + 1) <= INT32_MAX;
}

GS_FMA_CLONES static void axes_box(const gs_fdtd3_step_args *a, const gs_fdtd3_geo *g, const gs_fdtd3_axes *ax,
                                   gs_fdtd3_region r, int e) {
  const int poles = gs_fdtd3_has_poles(a), pf = a->pml_form;
  for (int64_t k = r.k0; k < r.k1; ++k)
    for (int64_t j = r.j0; j < r.j1; ++j)
      for (int64_t i = r.i0; i < r.i1; ++i)
        if (e)
          gs_fdtd3_e_axes(a, g, ax, pf, poles, 0, (int)i, (int)j, (int)k);
        else
          gs_fdtd3_h_axes(a, g, ax, pf, (int)i, (int)j, (int)k);
}

int gs_fdtd3_boxes_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_region *box, int n, int e, void *stream) {
  const gs_fdtd3_step_args local = *args, *a = &local;
  const gs_fdtd3_region from0 = {0, INT64_MAX, 0, INT64_MAX, 0, INT64_MAX};
  gs_fdtd3_axes ax;
  gs_fdtd3_geo g;
  const int fit = gs_fdtd3_axes_of(a, &ax);
  gs_fdtd3_geo_of(a, &g);
  for (int q = 0; q < n; ++q)
    if (empty(box[q]))
      continue;
    else if (fit)
      axes_box(a, &g, &ax, box[q], e);
    else
      gs_fdtd3_pass_ref(a, box[q], from0, !e, stream);
  return 0;
}

int gs_fdtd3_step_boxes_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  for (int q = 0; q < n; ++q) {
    gs_fdtd3_region part[7];
    if (r[q].i0 || r[q].j0 || r[q].k0) {
      gs_fdtd3_step_ref(a, &r[q], 1, stream);
      continue;
    }
    const int np = gs_fdtd3_split(a, r[q], part);
    if (!empty(part[0])) gs_fdtd3_step_ref(a, part, 1, stream);
    gs_fdtd3_boxes_ref(a, part + 1, np - 1, 0, stream);
    gs_fdtd3_boxes_ref(a, part + 1, np - 1, 1, stream);
  }
  return 0;
}

void gs_fdtd3_pml_coefs(int form, const float r[2][4], float out[GS_FDTD3_PML_K]) {
  for (int q = 0; q < GS_FDTD3_PML_K; ++q)
    out[q] = 0.0f;
  const float ra0 = r[0][0], rb0 = r[0][1], re0 = r[0][2], rf0 = r[0][3];
  if (form == GS_FDTD3_HORIPML2) {
    const float ra1 = r[1][0], rb1 = r[1][1], re1 = r[1][2], rf1 = r[1][3];
    const float k[GS_FDTD3_PML_K] = {fmaf(ra0, ra1, -1.0f), ra1 * rb0, rb1, ra0, rb0, rf1, re1, rf0, re0};
    for (int q = 0; q < GS_FDTD3_PML_K; ++q)
      out[q] = k[q];
  } else if (form == GS_FDTD3_MRIPML1) {
    const float ira = 1.0f / ra0;
    out[0] = ira;
    out[1] = ira - 1.0f;
    out[2] = ira * rb0 * rf0;
    out[3] = re0;
  } else if (form == GS_FDTD3_MRIPML2) {
    const float ira = 1.0f / (ra0 + r[1][0]);
    const float k[8] = {ira, ira - 1.0f, rb0, r[1][1], ira * rf0, ira * r[1][3], re0, r[1][2]};
    for (int q = 0; q < 8; ++q)
      out[q] = k[q];
  }
}

int gs_fdtd3_step_ref(const gs_fdtd3_step_args *args, const gs_fdtd3_region *r, int n, void *stream) {
  (void)stream;
  /* A private copy: stores through the field pointers cannot alias it. */
  const gs_fdtd3_step_args local = *args, *a = &local;
  gs_fdtd3_geo g;
  gs_fdtd3_geo_of(a, &g);
  for (int q = 0; q < n; ++q) {
    if (empty(r[q])) continue;
    h_pass(a, &g, r[q]);
    e_pass(a, &g, r[q], r[q]);
  }
  return 0;
}

int gs_fdtd3_pass_ref(const gs_fdtd3_step_args *args, gs_fdtd3_region box, gs_fdtd3_region stored, int h,
                      void *stream) {
  (void)stream;
  const gs_fdtd3_step_args local = *args, *a = &local;
  if (empty(box)) return 0;
  gs_fdtd3_geo g;
  gs_fdtd3_geo_of(a, &g);
  if (h)
    h_pass(a, &g, box);
  else
    e_pass(a, &g, box, stored);
  return 0;
}

int gs_fdtd3_inject_ref(float *field, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                        void *stream) {
  (void)stream;
  const float *v = val + gs_tick_value(t) * stride;
  for (int k = 0; k < n; ++k)
    field[off[k]] = field[off[k]] - v[k];
  return 0;
}

int gs_fdtd3_sample_ref(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                        void *stream) {
  (void)stream;
  out += gs_tick_value(t) % slots * 6 * n;
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < 6; ++c)
      out[6 * k + c] = v.f[c][off[k]];
  return 0;
}

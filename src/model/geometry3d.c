/* gprMax 4's geometry rules for 3D models (geometry3d.h), the painting: the
 * part's arrays, every geometry command's cells, rigid flags and components
 * as gprMax's primitives write them, and the build's entry points; the
 * dielectric smoothing that follows: geometry3d_smooth.c. The shape tests
 * repeat gprMax's arithmetic: float where its Cython declares float, double
 * where C promotes, and the fused multiply-adds its build (gcc -O3
 * -march=native, as disassembled) contracts, so cells on a shape's surface
 * fall on the same side. gprMax's rigid flags are kept per cell (12 E bits,
 * 6 H bits); a flag gprMax writes past the end of an axis lands where its
 * flat C-order offset points, as it does in gprMax (no bounds check there). */
#include "geometry3d.h"
#include "geometry3d_internal.h"

#include "parallel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.141592653589793

static gs_status fail(b3 *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (b->err && b->errlen) vsnprintf(b->err, b->errlen, fmt, ap);
  va_end(ap);
  return GS_ERR_FORMAT;
}

/* gprMax's round_int: nearest integer of the binary value, an exact half toward zero. */
static int64_t round_int(double v) {
  double t = trunc(v);
  if (fabs(v - t) == 0.5) return (int64_t)t;
  return (int64_t)nearbyint(v);
}

/* ---- rigid flags: gprMax's rigidE[12][nx][ny][nz] / rigidH[6][nx][ny][nz] ---- */

static void rigid_put(const b3 *b, int base, int ncomp, int c, int64_t i, int64_t j, int64_t k) {
  int64_t off = ((c * b->nx + i) * b->ny + j) * b->nz + k;
  if (off < 0 || off >= ncomp * b->nx * b->ny * b->nz) return; /* past gprMax's array */
  int64_t kk = off % b->nz, jj = (off / b->nz) % b->ny, r = off / b->nz / b->ny;
  int64_t ii = r % b->nx, cc = r / b->nx;
  if (held_cell(b, ii, jj, kk)) b->rigid[cell(b, ii, jj, kk)] |= 1u << (base + cc);
}

static void set_rigid_ex(const b3 *b, int64_t i, int64_t j, int64_t k) {
  rigid_put(b, 0, 12, 0, i, j, k);
  if (j) rigid_put(b, 0, 12, 1, i, j - 1, k);
  if (k) rigid_put(b, 0, 12, 3, i, j, k - 1);
  if (j && k) rigid_put(b, 0, 12, 2, i, j - 1, k - 1);
}
static void set_rigid_ey(const b3 *b, int64_t i, int64_t j, int64_t k) {
  rigid_put(b, 0, 12, 4, i, j, k);
  if (i) rigid_put(b, 0, 12, 7, i - 1, j, k);
  if (k) rigid_put(b, 0, 12, 5, i, j, k - 1);
  if (i && k) rigid_put(b, 0, 12, 6, i - 1, j, k - 1);
}
static void set_rigid_ez(const b3 *b, int64_t i, int64_t j, int64_t k) {
  rigid_put(b, 0, 12, 8, i, j, k);
  if (i) rigid_put(b, 0, 12, 9, i - 1, j, k);
  if (j) rigid_put(b, 0, 12, 11, i, j - 1, k);
  if (i && j) rigid_put(b, 0, 12, 10, i - 1, j - 1, k);
}

/* ---- writes of gprMax's primitives ---- */

/* build_voxel: an averaged voxel takes the cell and frees its 18 edges;
 * another pins them and writes the material on all of them. */
static void voxel(const b3 *b, int64_t i, int64_t j, int64_t k, int m, int averaging) {
  if (!held_cell(b, i, j, k)) return; /* its edges' nodes are not held either */
  int64_t c = cell(b, i, j, k);
  b->g->solid[c] = (uint32_t)m;
  b->rigid[c] = averaging ? 0 : 0x3ffffu;
  if (averaging) return;
  for (int h = 0; h < 2; ++h) { /* E then H: the same edge positions */
    put_id(b, 0 + 3 * h, i, j, k, m);
    put_id(b, 0 + 3 * h, i, j + 1, k + 1, m);
    put_id(b, 0 + 3 * h, i, j + 1, k, m);
    put_id(b, 0 + 3 * h, i, j, k + 1, m);
    put_id(b, 1 + 3 * h, i, j, k, m);
    put_id(b, 1 + 3 * h, i + 1, j, k + 1, m);
    put_id(b, 1 + 3 * h, i + 1, j, k, m);
    put_id(b, 1 + 3 * h, i, j, k + 1, m);
    put_id(b, 2 + 3 * h, i, j, k, m);
    put_id(b, 2 + 3 * h, i + 1, j + 1, k, m);
    put_id(b, 2 + 3 * h, i + 1, j, k, m);
    put_id(b, 2 + 3 * h, i, j + 1, k, m);
  }
}

static void edge(const b3 *b, int axis, int64_t i, int64_t j, int64_t k, int m) {
  if (axis == 0) set_rigid_ex(b, i, j, k);
  if (axis == 1) set_rigid_ey(b, i, j, k);
  if (axis == 2) set_rigid_ez(b, i, j, k);
  put_id(b, axis, i, j, k, m);
}

/* build_face_yz / xz / xy: the four E edges of one face of cell (i, j, k);
 * normal 0, 1, 2. */
static void face(const b3 *b, int normal, int64_t i, int64_t j, int64_t k, int m) {
  if (normal == 0) {
    edge(b, 1, i, j, k, m);
    edge(b, 2, i, j, k, m);
    edge(b, 1, i, j, k + 1, m);
    edge(b, 2, i, j + 1, k, m);
  } else if (normal == 1) {
    edge(b, 0, i, j, k, m);
    edge(b, 2, i, j, k, m);
    edge(b, 0, i, j, k + 1, m);
    edge(b, 2, i + 1, j, k, m);
  } else {
    edge(b, 0, i, j, k, m);
    edge(b, 1, i, j, k, m);
    edge(b, 0, i, j + 1, k, m);
    edge(b, 1, i + 1, j, k, m);
  }
}

/* gprMax's check of user points: discretised, then within [0, n]. */
static int discretise(const b3 *b, const double *p, int64_t *q) {
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  const int64_t n[3] = {b->nx, b->ny, b->nz};
  int ok = 1;
  for (int a = 0; a < 3; ++a) {
    q[a] = round_int(p[a] / d[a]);
    ok &= q[a] >= 0 && q[a] <= n[a];
  }
  return ok;
}

/* check_box_points: both corners within the domain, lower <= upper, not all equal. */
static gs_status box_points(b3 *b, const gs_obj3 *o, const char *what, int64_t *lo, int64_t *hi) {
  if (!discretise(b, o->v, lo) || !discretise(b, o->v + 3, hi))
    return fail(b, "#%s: a coordinate is not within the model domain", what);
  if (lo[0] > hi[0] || lo[1] > hi[1] || lo[2] > hi[2] || (lo[0] == hi[0] && lo[1] == hi[1] && lo[2] == hi[2]))
    return fail(b, "#%s: the lower coordinates should be less than the upper coordinates", what);
  return GS_OK;
}

static int averages(const b3 *b, const gs_obj3 *o) {
  const gs_mat3 *m = &b->g->mat[o->material];
  return o->averaging && m->averagable && !isinf(m->se);
}

/* Cells [lo, hi) of axis a clipped to the cells held. */
static void clip(const b3 *b, int a, int64_t *lo, int64_t *hi) {
  if (*lo < b->g->clo[a]) *lo = b->g->clo[a];
  if (*hi > b->g->chi[a]) *hi = b->g->chi[a];
}

/* Cells [lo, hi) clipped to the model's [0, n): the plane shapes (triangle,
 * sector) loop over the whole model's cells, since a face on the far
 * boundary writes its rigid flags where gprMax's flat offset wraps (another
 * part's cells); voxels outside the part are dropped by voxel(). */
static void clip_model(int64_t *lo, int64_t *hi, int64_t n) {
  if (*lo < 0) *lo = 0;
  if (*hi > n) *hi = n;
}

/* build_box: non-averaged boxes write every component at each cell's lower
 * corner plus the far faces/edges gprMax adds (docs/gprmax-rules.md, #box). */
static gs_status paint_box(b3 *b, const gs_obj3 *o) {
  int64_t s[3], f[3];
  gs_status st = box_points(b, o, "box", s, f);
  if (st != GS_OK) return st;
  int m = o->material, avg = averages(b, o);
  int64_t lo[3] = {s[0], s[1], s[2]}, hi[3] = {f[0], f[1], f[2]};
  for (int a = 0; a < 3; ++a)
    clip(b, a, &lo[a], &hi[a]);
  for (int64_t k = lo[2]; k < hi[2]; ++k)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t i = lo[0]; i < hi[0]; ++i) {
        int64_t c = cell(b, i, j, k);
        b->g->solid[c] = (uint32_t)m;
        b->rigid[c] = avg ? 0 : 0x3ffffu;
        if (!avg)
          for (int q = 0; q < 6; ++q)
            put_id(b, q, i, j, k, m);
      }
  if (avg) return GS_OK;
  for (int64_t i = s[0]; i < f[0]; ++i)
    put_id(b, 0, i, f[1], f[2], m);
  for (int64_t j = s[1]; j < f[1]; ++j)
    put_id(b, 1, f[0], j, f[2], m);
  for (int64_t k = s[2]; k < f[2]; ++k)
    put_id(b, 2, f[0], f[1], k, m);
  for (int64_t k = s[2]; k < f[2]; ++k)
    for (int64_t j = s[1]; j < f[1]; ++j)
      put_id(b, 3, f[0], j, k, m);
  for (int64_t k = s[2]; k < f[2]; ++k)
    for (int64_t i = s[0]; i < f[0]; ++i)
      put_id(b, 4, i, f[1], k, m);
  for (int64_t j = s[1]; j < f[1]; ++j)
    for (int64_t i = s[0]; i < f[0]; ++i)
      put_id(b, 5, i, j, f[2], m);
  return GS_OK;
}

/* The corners s, f of an edge or a plate (`what`, checked as box_points does)
 * and the one axis on which they differ (an edge: differ 1) or agree (a
 * plate: differ 0); -1 with the reason in b's err otherwise. */
static int single_axis_points(b3 *b, const gs_obj3 *o, const char *what, int differ, int64_t *s, int64_t *f) {
  if (box_points(b, o, what, s, f) != GS_OK) return -1;
  const int axis = gs_corners_single_axis(s, f, differ);
  if (axis < 0) fail(b, "#%s: the %s is not specified correctly", what, what);
  return axis;
}

static gs_status paint_edge(b3 *b, const gs_obj3 *o) {
  int64_t s[3], f[3];
  const int axis = single_axis_points(b, o, "edge", 1, s, f);
  if (axis < 0) return GS_ERR_FORMAT;
  int64_t p[3] = {s[0], s[1], s[2]};
  for (p[axis] = s[axis]; p[axis] < f[axis]; ++p[axis])
    edge(b, axis, p[0], p[1], p[2], o->material);
  return GS_OK;
}

static gs_status paint_plate(b3 *b, const gs_obj3 *o) {
  int64_t s[3], f[3];
  const int normal = single_axis_points(b, o, "plate", 0, s, f);
  if (normal < 0) return GS_ERR_FORMAT;
  int u = normal == 0 ? 1 : 0, w = normal == 2 ? 1 : 2; /* gprMax's loop order: u outer, w inner */
  int64_t p[3] = {s[0], s[1], s[2]};
  for (p[u] = s[u]; p[u] < f[u]; ++p[u])
    for (p[w] = s[w]; p[w] < f[w]; ++p[w])
      face(b, normal, p[0], p[1], p[2], o->material);
  return GS_OK;
}

static float rv_f(float a, float d) {
  return (float)(a / d);
}

/* The cells of a sphere's or ellipsoid's centre, as gprMax's C ints take
 * them: a centre beyond their range is refused (gprMax raises
 * OverflowError) rather than wrapped into the domain. */
static gs_status centre_cells(b3 *b, const gs_obj3 *o, const double d[3], int64_t c[3]) {
  for (int a = 0; a < 3; ++a) {
    c[a] = round_int(o->v[a] / d[a]);
    if (c[a] < INT32_MIN || c[a] > INT32_MAX)
      return fail(b, "#%s: the centre is %g m along %c, beyond 2^31 cells",
                  o->type == GS_O3_SPHERE ? "sphere" : "ellipsoid", o->v[a], 'x' + a);
  }
  return GS_OK;
}

/* The centre cells c of a sphere or an ellipsoid (semi-axes r) and the
 * cells [lo, hi) of its bounding box clipped to the cells held, in gprMax's
 * float arithmetic; d2: each cell size squared (in float). */
static gs_status centred_box(b3 *b, const gs_obj3 *o, const float r[3], int64_t c[3], int64_t lo[3], int64_t hi[3],
                             double d2[3]) {
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  gs_status st = centre_cells(b, o, d, c);
  if (st != GS_OK) return st;
  float fd[3] = {(float)d[0], (float)d[1], (float)d[2]};
  for (int a = 0; a < 3; ++a) {
    float at = (float)c[a] * fd[a];
    lo[a] = round_int(rv_f(at - r[a], fd[a])) - 1;
    hi[a] = round_int(rv_f(at + r[a], fd[a])) + 1;
    clip(b, a, &lo[a], &hi[a]);
    d2[a] = (double)(fd[a] * fd[a]);
  }
  return GS_OK;
}

/* The voxels of the cells in [lo, hi) whose centre lies inside a sphere of
 * radius r (r2 NULL; fused as gprMax's build_sphere: ((A dx2 + B dy2) + C
 * dz2)) or inside an ellipsoid of squared semi-axes r2. */
static void fill_centred(b3 *b, const gs_obj3 *o, const int64_t c[3], const int64_t lo[3], const int64_t hi[3],
                         const double d2[3], float r, const double *r2) {
  int avg = averages(b, o);
  for (int64_t i = lo[0]; i < hi[0]; ++i)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t k = lo[2]; k < hi[2]; ++k) {
        double A = ((double)i + 0.5) - (double)c[0], B = ((double)j + 0.5) - (double)c[1];
        double C = ((double)k + 0.5) - (double)c[2];
        int in = r2 ? (A * A * d2[0]) / r2[0] + (B * B * d2[1]) / r2[1] + (C * C * d2[2]) / r2[2] <= 1
                    : sqrt(fma(C * C, d2[2], fma(A * A, d2[0], (B * B) * d2[1]))) <= (double)r;
        if (in) voxel(b, i, j, k, o->material, avg);
      }
}

/* build_sphere. */
static gs_status paint_sphere(b3 *b, const gs_obj3 *o) {
  const float r = (float)o->v[3], rr[3] = {r, r, r};
  int64_t c[3], lo[3], hi[3];
  double d2[3];
  gs_status st = centred_box(b, o, rr, c, lo, hi, d2);
  if (st != GS_OK) return st;
  fill_centred(b, o, c, lo, hi, d2, r, NULL);
  return GS_OK;
}

/* build_ellipsoid. */
static gs_status paint_ellipsoid(b3 *b, const gs_obj3 *o) {
  const float rr[3] = {(float)o->v[3], (float)o->v[4], (float)o->v[5]};
  int64_t c[3], lo[3], hi[3];
  double d2[3], r2[3];
  gs_status st = centred_box(b, o, rr, c, lo, hi, d2);
  if (st != GS_OK) return st;
  for (int a = 0; a < 3; ++a) {
    r2[a] = (double)(rr[a] * rr[a]);
    if (r2[a] == 0) return fail(b, "#ellipsoid: a semi-axis is zero");
  }
  fill_centred(b, o, c, lo, hi, d2, 0, r2);
  return GS_OK;
}

/* ---- cylinders and cones ---- */

typedef struct axial {
  float p1[3], p2[3], fd[3];
  float r1, r2, rmax;
  int align;          /* 0, 1, 2 the axis it is aligned with, -1 none */
  int64_t s[3], f[3]; /* bounding box before clipping */
  int64_t lo[3], hi[3];
} axial;

/* The snapped face centres, the alignment and the bounding box of build_cylinder / build_cone. */
static void axial_setup(const b3 *b, const gs_obj3 *o, axial *x, float r1, float r2) {
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  for (int a = 0; a < 3; ++a) {
    x->fd[a] = (float)d[a];
    x->p1[a] = (float)((double)round_int(o->v[a] / d[a]) * d[a]);
    x->p2[a] = (float)((double)round_int(o->v[3 + a] / d[a]) * d[a]);
  }
  x->r1 = r1;
  x->r2 = r2;
  x->rmax = r1 > r2 ? r1 : r2;
  int same[3];
  for (int a = 0; a < 3; ++a)
    same[a] = round_int(rv_f(x->p1[a], x->fd[a])) == round_int(rv_f(x->p2[a], x->fd[a]));
  x->align = same[1] && same[2] ? 0 : same[0] && same[2] ? 1 : same[0] && same[1] ? 2 : -1;
  for (int a = 0; a < 3; ++a) {
    float lo = x->p1[a] < x->p2[a] ? x->p1[a] : x->p2[a], hi = x->p1[a] < x->p2[a] ? x->p2[a] : x->p1[a];
    if (x->align == a) {
      x->s[a] = round_int(rv_f(lo, x->fd[a]));
      x->f[a] = round_int(rv_f(hi, x->fd[a]));
    } else {
      x->s[a] = round_int(rv_f(lo - x->rmax, x->fd[a])) - 1;
      x->f[a] = round_int(rv_f(hi + x->rmax, x->fd[a])) + 1;
    }
    x->lo[a] = x->s[a];
    x->hi[a] = x->f[a];
    clip(b, a, &x->lo[a], &x->hi[a]);
  }
}

/* Distance (as gprMax's double expression, fused) of the cell centre from
 * the axis of an aligned cylinder/cone, in the two other axes u < w. */
static double axial_dist(const axial *x, int u, int w, int64_t pu, int64_t pw) {
  double a = ((double)((float)pu * x->fd[u]) + 0.5 * (double)x->fd[u]) - (double)x->p1[u];
  double c = ((double)((float)pw * x->fd[w]) + 0.5 * (double)x->fd[w]) - (double)x->p1[w];
  return sqrt(fma(a, a, c * c));
}

/* The float32 vector tests of a cylinder/cone along no axis: angles from
 * both faces within 90 degrees and distance from the axis within the radius
 * (for a cone, the radius there). */
static int oblique_holds(const axial *x, int64_t i, int64_t j, int64_t k, int cone) {
  float v12[3], v21[3], p1[3], p2[3];
  const int64_t q[3] = {i, j, k};
  for (int a = 0; a < 3; ++a) {
    v12[a] = x->p2[a] - x->p1[a];
    v21[a] = x->p1[a] - x->p2[a];
    double centre = (double)((float)q[a] * x->fd[a]) + 0.5 * (double)x->fd[a];
    p1[a] = (float)(centre - (double)x->p1[a]);
    p2[a] = (float)(centre - (double)x->p2[a]);
  }
  float m12 = sqrtf(v12[0] * v12[0] + v12[1] * v12[1] + v12[2] * v12[2]);
  float m21 = sqrtf(v21[0] * v21[0] + v21[1] * v21[1] + v21[2] * v21[2]);
  float m1 = sqrtf(p1[0] * p1[0] + p1[1] * p1[1] + p1[2] * p1[2]);
  float m2 = sqrtf(p2[0] * p2[0] + p2[1] * p2[1] + p2[2] * p2[2]);
  float dot1 = v12[0] * p1[0] + v12[1] * p1[1] + v12[2] * p1[2];
  float dot2 = v21[0] * p2[0] + v21[1] * p2[1] + v21[2] * p2[2];
  if (m1 == 0 || m2 == 0) return 1;
  float f1 = dot1 / (m12 * m1), f2 = dot2 / (m21 * m2);
  float t1 = (float)acos((double)f1), t2 = (float)acos((double)f2);
  float d1 = (float)((double)m1 * sin((double)t1)), d2 = (float)((double)m2 * sin((double)t2));
  int near;
  if (cone) {
    float a1 = (float)((double)m1 * cos((double)t1)), a2 = (float)((double)m2 * cos((double)t2));
    near = d1 <= fmaf(a1 / m12, x->r2 - x->r1, x->r1) || d2 <= fmaf(a2 / m12, x->r1 - x->r2, x->r2);
  } else {
    near = d1 <= x->r1 || d2 <= x->r1;
  }
  return near && (double)t1 <= PI / 2 && (double)t2 <= PI / 2;
}

static gs_status paint_axial(b3 *b, const gs_obj3 *o, int cone) {
  axial x;
  if (cone) {
    if (o->v[6] < 0 || o->v[7] < 0) return fail(b, "#cone: the radii should be non negative");
    if (o->v[6] == 0 && o->v[7] == 0) return fail(b, "#cone: at least one radius should be positive");
    axial_setup(b, o, &x, (float)o->v[6], (float)o->v[7]);
  } else {
    if (o->v[6] <= 0) return fail(b, "#cylinder: the radius should be a positive value");
    axial_setup(b, o, &x, (float)o->v[6], (float)o->v[6]);
  }
  int avg = averages(b, o), a = x.align;
  if (cone && a >= 0 && x.f[a] == x.s[a]) return fail(b, "#cone: the two ends are the same point (zero length)");
  for (int64_t i = x.lo[0]; i < x.hi[0]; ++i)
    for (int64_t j = x.lo[1]; j < x.hi[1]; ++j)
      for (int64_t k = x.lo[2]; k < x.hi[2]; ++k) {
        const int64_t q[3] = {i, j, k};
        int in;
        if (a < 0) {
          in = oblique_holds(&x, i, j, k, cone);
        } else {
          int u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
          double dist = axial_dist(&x, u, w, q[u], q[w]);
          double lim = (double)x.r1;
          if (cone) lim = fma((double)(q[a] - x.s[a]) / (double)(x.f[a] - x.s[a]), (double)(x.r2 - x.r1), (double)x.r1);
          in = dist <= lim;
        }
        if (in) voxel(b, i, j, k, o->material, avg);
      }
  return GS_OK;
}

/* ---- triangles and cylindrical sectors (a plane shape, then thickness) ---- */

/* check_thickness for extent [lower, lower + thickness] along axis a: the
 * level and thickness in metres on the grid. */
static gs_status thickness(b3 *b, const char *what, int a, double lower, double thick, double *level, double *t) {
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  const int64_t n[3] = {b->nx, b->ny, b->nz};
  if (thick < 0) return fail(b, "#%s: requires a non negative thickness", what);
  if (lower < 0) return fail(b, "#%s: lower extent should be non negative", what);
  int64_t up = round_int((lower + thick) / d[a]);
  if (up < 0 || up > n[a]) return fail(b, "#%s: extends beyond the size of the model", what);
  *level = (double)round_int(lower / d[a]) * d[a];
  *t = (double)round_int(thick / d[a]) * d[a];
  return GS_OK;
}

/* The cells of a plane shape, (p, q) in the plane's axes (u, w), painted
 * through `thick` cells from `level` along the normal, or its faces. */
static void extrude(const b3 *b, const gs_obj3 *o, int normal, int64_t pu, int64_t pw, int64_t level, int64_t thick,
                    int avg) {
  int u = normal == 0 ? 1 : 0, w = normal == 2 ? 1 : 2;
  int64_t c[3];
  c[u] = pu;
  c[w] = pw;
  if (thick == 0) {
    c[normal] = level;
    face(b, normal, c[0], c[1], c[2], o->material);
    return;
  }
  for (c[normal] = level; c[normal] < level + thick; ++c[normal])
    voxel(b, c[0], c[1], c[2], o->material, avg);
}

typedef struct tri {
  float a[3], c[3]; /* vertices in the plane's first (u) and second (w) axis */
  float area;
  int sign;
} tri;

static int tri_holds(const tri *t, double ir, double jr) {
  const float *a = t->a, *c = t->c;
  float s0 = fmaf(c[0], a[2], -(a[0] * c[2]));
  double sd = fma((double)(a[0] - a[2]), jr, fma((double)(c[2] - c[0]), ir, (double)s0));
  float t0 = fmaf(a[0], c[1], -(c[0] * a[1]));
  double td = fma((double)(a[1] - a[0]), jr, fma((double)(c[0] - c[1]), ir, (double)t0));
  float s = (float)(t->sign * sd), tt = (float)(t->sign * td);
  return s > 0 && tt > 0 && s + tt < 2 * t->area * (float)t->sign;
}

static gs_status paint_triangle(b3 *b, const gs_obj3 *o) {
  int64_t q[3][3];
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  const int64_t n[3] = {b->nx, b->ny, b->nz};
  for (int v = 0; v < 3; ++v)
    if (!discretise(b, o->v + 3 * v, q[v])) return fail(b, "#triangle: a vertex is not within the model domain");
  int normal = -1;
  for (int a = 0; a < 3 && normal < 0; ++a)
    if ((double)q[0][a] * d[a] == (double)q[1][a] * d[a] && (double)q[1][a] * d[a] == (double)q[2][a] * d[a])
      normal = a;
  if (normal < 0) return fail(b, "#triangle: the triangle is not specified correctly");
  double level, thick;
  gs_status st = thickness(b, "triangle", normal, o->v[normal], o->v[9], &level, &thick);
  if (st != GS_OK) return st;
  int u = normal == 0 ? 1 : 0, w = normal == 2 ? 1 : 2;
  tri t;
  for (int v = 0; v < 3; ++v) {
    t.a[v] = (float)((double)q[v][u] * d[u]);
    t.c[v] = (float)((double)q[v][w] * d[w]);
  }
  const float *a = t.a, *c = t.c;
  t.area = 0.5f * fmaf(a[1], c[2], fmaf(a[0], c[1] - c[2], fmaf(-c[1], a[2], c[0] * (a[2] - a[1]))));
  t.sign = (t.area > 0) - (t.area < 0);
  float fu = (float)d[u], fw = (float)d[w], fn = (float)d[normal];
  float amin = fminf(fminf(a[0], a[1]), a[2]), amax = fmaxf(fmaxf(a[0], a[1]), a[2]);
  float cmin = fminf(fminf(c[0], c[1]), c[2]), cmax = fmaxf(fmaxf(c[0], c[1]), c[2]);
  int64_t i1 = round_int(rv_f(amin, fu)) - 1, i2 = round_int(rv_f(amax, fu)) + 1;
  int64_t j1 = round_int(rv_f(cmin, fw)) - 1, j2 = round_int(rv_f(cmax, fw)) + 1;
  clip_model(&i1, &i2, n[u]);
  clip_model(&j1, &j2, n[w]);
  int64_t lc = round_int(rv_f((float)level, fn)), tc = round_int(rv_f((float)thick, fn));
  int avg = tc > 0 && averages(b, o);
  for (int64_t i = i1; i < i2; ++i)
    for (int64_t j = j1; j < j2; ++j)
      if (tri_holds(&t, ((double)i + 0.5) * (double)fu, ((double)j + 0.5) * (double)fw))
        extrude(b, o, normal, i, j, lc, tc, avg);
  return GS_OK;
}

static int clockwise(float v1x, float v1y, float v2x, float v2y) {
  return fmaf(-v1x, v2y, v1y * v2x) > 0;
}

/* is_inside_sector, float as gprMax declares it, fused as its build. */
static int sector_holds(float px, float py, float cx, float cy, float start, float angle, float r) {
  float s1 = (float)((double)r * cos((double)start)), s2 = (float)((double)r * sin((double)start));
  float e1 = (float)((double)r * cos((double)(start + angle))), e2 = (float)((double)r * sin((double)(start + angle)));
  float rx = px - cx, ry = py - cy;
  int within = fmaf(rx, rx, ry * ry) <= r * r;
  if ((double)angle <= PI) return !clockwise(s1, s2, rx, ry) && clockwise(e1, e2, rx, ry) && within;
  return (!clockwise(s1, s2, rx, ry) || clockwise(e1, e2, rx, ry)) && within;
}

static gs_status paint_sector(b3 *b, const gs_obj3 *o) {
  int normal = o->normal == 'x' ? 0 : o->normal == 'y' ? 1 : o->normal == 'z' ? 2 : -1;
  if (normal < 0) return fail(b, "#cylindrical_sector: the normal direction must be either x, y or z");
  const double d[3] = {b->g->dx, b->g->dy, b->g->dz};
  const int64_t n[3] = {b->nx, b->ny, b->nz};
  int u = normal == 0 ? 1 : 0, w = normal == 2 ? 1 : 2;
  double level, thick;
  gs_status st = thickness(b, "cylindrical_sector", normal, o->v[2], o->v[3] - o->v[2], &level, &thick);
  if (st != GS_OK) return st;
  double start = 2 * PI * (o->v[5] / 360), angle = 2 * PI * (o->v[6] / 360);
  if (start < 0 || angle <= 0)
    return fail(b, "#cylindrical_sector: the starting angle and sector angle should be positive values");
  if (start >= 2 * PI || angle >= 2 * PI)
    return fail(b, "#cylindrical_sector: the starting angle and sector angle must be less than 360 degrees");
  float c1 = (float)((double)round_int(o->v[0] / d[u]) * d[u]), c2 = (float)((double)round_int(o->v[1] / d[w]) * d[w]);
  float r = (float)o->v[4], fu = (float)d[u], fw = (float)d[w], fn = (float)d[normal];
  int64_t i1 = round_int(rv_f(c1 - r, fu)), i2 = round_int(rv_f(c1 + r, fu));
  int64_t j1 = round_int(rv_f(c2 - r, fw)), j2 = round_int(rv_f(c2 + r, fw));
  clip_model(&i1, &i2, n[u]);
  clip_model(&j1, &j2, n[w]);
  int64_t lc = round_int(rv_f((float)level, fn)), tc = round_int(rv_f((float)thick, fn));
  int avg = tc > 0 && averages(b, o);
  for (int64_t i = i1; i < i2; ++i)
    for (int64_t j = j1; j < j2; ++j) {
      float px = (float)((double)((float)i * fu) + 0.5 * (double)fu);
      float py = (float)((double)((float)j * fw) + 0.5 * (double)fw);
      if (sector_holds(px, py, c1, c2, (float)start, (float)angle, r)) extrude(b, o, normal, i, j, lc, tc, avg);
    }
  return GS_OK;
}

/* #geometry_objects_read, gprMax's ReadGeometryObject: with rigid and ID
 * arrays the box's cells, flags and nodes (upper faces included) are
 * overwritten; a file of data only is built as voxels that are never
 * averaged (build_voxels_from_array, clipped to the grid, negative values
 * skipped). The materials are the file's numbers plus the offset. */
static gs_status paint_array(b3 *b, const gs_obj3 *o) {
  const gs_obj3_array *a = o->array;
  const int64_t s[3] = {(int64_t)o->v[0], (int64_t)o->v[1], (int64_t)o->v[2]}, *n = a->size;
  const int64_t nn[3] = {b->nx, b->ny, b->nz};
  for (int q = 0; q < 3; ++q)
    if (a->rigid && s[q] + n[q] > nn[q])
      return fail(b, "#geometry_objects_read: the geometry (%lld x %lld x %lld cells) does not fit in the domain there",
                  (long long)n[0], (long long)n[1], (long long)n[2]);
  for (int64_t i = 0, at = 0; i < n[0]; ++i)
    for (int64_t j = 0; j < n[1]; ++j)
      for (int64_t k = 0; k < n[2]; ++k, ++at) {
        int m = a->data[at] + a->offset;
        if (a->data[at] < 0 || s[0] + i >= b->nx || s[1] + j >= b->ny || s[2] + k >= b->nz) continue;
        if (m >= b->g->nmat) return fail(b, "#geometry_objects_read: material %d is not in the materials list", m);
        if (!a->rigid) {
          voxel(b, s[0] + i, s[1] + j, s[2] + k, m, 0);
          continue;
        }
        if (!held_cell(b, s[0] + i, s[1] + j, s[2] + k)) continue;
        b->g->solid[cell(b, s[0] + i, s[1] + j, s[2] + k)] = (uint32_t)m;
        b->rigid[cell(b, s[0] + i, s[1] + j, s[2] + k)] = a->rigid[at];
      }
  if (!a->rigid) return GS_OK;
  const size_t nodes = (size_t)((n[0] + 1) * (n[1] + 1) * (n[2] + 1));
  for (int c = 0; c < 6; ++c)
    for (int64_t i = 0, at = 0; i <= n[0]; ++i)
      for (int64_t j = 0; j <= n[1]; ++j)
        for (int64_t k = 0; k <= n[2]; ++k, ++at) {
          uint64_t m = (uint64_t)a->id[(size_t)c * nodes + (size_t)at] + (uint64_t)a->offset;
          if (m >= (uint64_t)b->g->nmat)
            return fail(b, "#geometry_objects_read: ID material %llu is not in the materials list",
                        (unsigned long long)m);
          put_id(b, c, s[0] + i, s[1] + j, s[2] + k, (int)m);
        }
  return GS_OK;
}

/* build_voxels_from_array (no mask: clipped to the model) or _mask, in
 * gprMax's loop order (a voxel also writes its upper edges, which the next
 * voxel's own write replaces). */
static gs_status paint_fractal(b3 *b, const gs_obj3 *o) {
  const gs_obj3_fractal *f = o->fractal;
  if (!f) return fail(b, "#fractal_box: not built");
  const int64_t *s = f->start, *n = f->size;
  const int64_t nn[3] = {b->nx, b->ny, b->nz};
  int64_t hi[3];
  for (int a = 0; a < 3; ++a)
    hi[a] = f->mask || s[a] + n[a] <= nn[a] ? s[a] + n[a] : nn[a];
  for (int64_t i = s[0] > 0 ? s[0] : 0; i < hi[0]; ++i)
    for (int64_t j = s[1] > 0 ? s[1] : 0; j < hi[1]; ++j)
      for (int64_t k = s[2] > 0 ? s[2] : 0; k < hi[2]; ++k) {
        const size_t at = (size_t)(((i - s[0]) * n[1] + (j - s[1])) * n[2] + (k - s[2]));
        const int mask = f->mask ? f->mask[at] : 1;
        const int m = mask == 1 ? f->data[at] : mask == 2 ? f->water : mask == 3 ? f->grass : -1;
        if (m < 0) continue;
        if (m >= b->g->nmat) return fail(b, "#fractal_box: material %d is not in the materials list", m);
        voxel(b, i, j, k, m, o->averaging);
      }
  return GS_OK;
}

static gs_status paint(b3 *b, const gs_obj3 *o) {
  switch (o->type) {
  case GS_O3_FRACTAL:
    return paint_fractal(b, o);
  case GS_O3_ARRAY:
    return paint_array(b, o);
  case GS_O3_BOX:
    return paint_box(b, o);
  case GS_O3_SPHERE:
    return paint_sphere(b, o);
  case GS_O3_CYLINDER:
    return paint_axial(b, o, 0);
  case GS_O3_CONE:
    return paint_axial(b, o, 1);
  case GS_O3_ELLIPSOID:
    return paint_ellipsoid(b, o);
  case GS_O3_EDGE:
    return paint_edge(b, o);
  case GS_O3_PLATE:
    return paint_plate(b, o);
  case GS_O3_TRIANGLE:
    return paint_triangle(b, o);
  case GS_O3_CYLINDRICAL_SECTOR:
    return paint_sector(b, o);
  default:
    return fail(b, "unknown geometry object type %d", o->type);
  }
}

/* Every cell and component of the part free space (material 1), node
 * planes lo[2] + [k0, k1) (with their cells). */
static void fill_free_space(void *ctx, int64_t k0, int64_t k1, int part) {
  (void)part;
  gs_geometry3 *g = ctx;
  const size_t plane_cells = (size_t)((g->chi[0] - g->clo[0]) * (g->chi[1] - g->clo[1]));
  const size_t plane_nodes = (size_t)((g->hi[0] - g->lo[0]) * (g->hi[1] - g->lo[1]));
  const int64_t cell_planes = g->chi[2] - g->clo[2];
  for (int64_t k = k0; k < k1; ++k) {
    if (k < cell_planes)
      for (size_t q = 0; q < plane_cells; ++q)
        g->solid[(size_t)k * plane_cells + q] = 1;
    for (int c = 0; c < 6; ++c)
      for (size_t q = 0; q < plane_nodes; ++q)
        g->id[c][(size_t)k * plane_nodes + q] = 1;
  }
  if (k1 == g->hi[2] - g->lo[2]) /* the last part also fills cell planes past the node planes */
    for (int64_t k = k1; k < cell_planes; ++k)
      for (size_t q = 0; q < plane_cells; ++q)
        g->solid[(size_t)k * plane_cells + q] = 1;
}

/* The part's boxes and arrays, every value free space. */
static gs_status allocate_part(b3 *b, const int64_t lo[3], const int64_t hi[3], const gs_mat3 *mats, int nmats) {
  gs_geometry3 *g = b->g;
  const int64_t n[3] = {g->nx, g->ny, g->nz};
  size_t cells = 1, nodes = 1;
  for (int a = 0; a < 3; ++a) {
    g->lo[a] = lo[a] < 0 ? 0 : lo[a] > n[a] ? n[a] : lo[a];
    g->hi[a] = hi[a] > n[a] + 1 ? n[a] + 1 : hi[a] < g->lo[a] + 1 ? g->lo[a] + 1 : hi[a];
    g->clo[a] = g->lo[a] > 0 ? g->lo[a] - 1 : 0;
    g->chi[a] = g->hi[a] < n[a] ? g->hi[a] : n[a];
    cells *= (size_t)(g->chi[a] - g->clo[a]);
    nodes *= (size_t)(g->hi[a] - g->lo[a]);
  }
  g->solid = malloc(cells * sizeof *g->solid);
  g->rigid = b->rigid = calloc(cells, sizeof *b->rigid);
  g->mat = malloc(sizeof *g->mat * (size_t)nmats);
  int ok = g->solid && b->rigid && g->mat;
  for (int c = 0; c < 6; ++c)
    ok &= (g->id[c] = malloc(nodes * sizeof *g->id[c])) != NULL;
  if (!ok) return GS_ERR_NOMEM;
  memcpy(g->mat, mats, sizeof *g->mat * (size_t)nmats);
  g->nmat = nmats;
  gs_parallel_for(g->hi[2] - g->lo[2], gs_parallel_threads(), fill_free_space, g);
  return GS_OK;
}

gs_status gs_geometry3_paint(gs_geometry3 *g, int64_t nx, int64_t ny, int64_t nz, double dx, double dy, double dz,
                             const int64_t lo[3], const int64_t hi[3], const gs_mat3 *mats, int nmats,
                             const gs_obj3 *objs, int nobjs, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  b3 b = {.g = g, .nx = nx, .ny = ny, .nz = nz, .err = err, .errlen = errlen};
  if (err && errlen) err[0] = 0;
  if (nx < 1 || ny < 1 || nz < 1 || nmats < 2 || nmats > 65535) return fail(&b, "bad grid or materials table");
  g->nx = nx, g->ny = ny, g->nz = nz, g->dx = dx, g->dy = dy, g->dz = dz;
  gs_status st = allocate_part(&b, lo, hi, mats, nmats);
  for (int q = 0; q < nobjs && st == GS_OK; ++q) {
    if (objs[q].material < 0 || objs[q].material >= nmats)
      st = fail(&b, "object %d: material index %d out of range", q + 1, objs[q].material);
    else
      st = paint(&b, &objs[q]);
    if (st != GS_OK && objs[q].line > 0 && err && errlen && err[0]) { /* the line first: gs_geometry3_where */
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      snprintf(err, errlen, "%d: %s", objs[q].line, why);
    }
  }
  if (st == GS_OK) gs_geometry3_find_visits(&b);
  if (st != GS_OK) gs_geometry3_free(g);
  return st;
}

gs_status gs_geometry3_build(gs_geometry3 *g, int64_t nx, int64_t ny, int64_t nz, double dx, double dy, double dz,
                             const gs_mat3 *mats, int nmats, const gs_obj3 *objs, int nobjs, char *err, size_t errlen) {
  const int64_t lo[3] = {0, 0, 0}, hi[3] = {nx + 1, ny + 1, nz + 1};
  gs_status st = gs_geometry3_paint(g, nx, ny, nz, dx, dy, dz, lo, hi, mats, nmats, objs, nobjs, err, errlen);
  if (st != GS_OK) return st;
  return gs_geometry3_smooth(g, g->visits, g->nvisits, err, errlen);
}

void gs_geometry3_where(char *err, size_t errlen, const char *path) {
  if (!err || !errlen || !path) return;
  char why[600];
  snprintf(why, sizeof why, "%s", err);
  snprintf(err, errlen, "%.400s:%s%s", path, why[0] >= '0' && why[0] <= '9' ? "" : " ", why);
}

void gs_geometry3_free(gs_geometry3 *g) {
  free(g->solid);
  free(g->rigid);
  for (int c = 0; c < 6; ++c)
    free(g->id[c]);
  free(g->mat);
  free(g->visits);
  memset(g, 0, sizeof *g);
}

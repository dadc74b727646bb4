/* The geometry commands of gprMax input files (#box, #cylinder, #edge,
 * #plate, #triangle, #cylindrical_sector), in the engine's frame, with
 * gprMax's rounding (docs/gprmax-rules.md, section b). Painting them is
 * src/model/geometry.c's work. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_internal.h"

static const char axes[] = "xyz";

#define GROW3(arr, n) ((arr) = gs_xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1)))

/* 3D models: the command as written (nnum numbers, then the material and
 * an optional y/n), for src/model/geometry3d.c, which applies gprMax's
 * rounding and checks; materials numbered as gprMax numbers them (pec 0,
 * free_space 1). */
static int store3(gs_parser *p, const gs_command_call *c, int type, int first, int nnum, int smoothing) {
  gs_obj3 o = {.type = type, .averaging = 1, .nv = nnum, .line = p->line};
  if (gs_parse_args(p, c, first, nnum, o.v) || gs_check_lengths(p, c->name, o.v, nnum)) return -1;
  int at = first + nnum, m = gs_find_material(p->s, c->arg[at]);
  if (m < 0) return gs_perr(p, "#%s: material '%s' is not defined (yet)", c->name, c->arg[at]);
  if (c->nargs > at + 1 + (smoothing ? 1 : 0))
    return gs_perr(p, "#%s: anisotropic objects (several materials) are not supported", c->name);
  if (smoothing && gs_parse_averaging(p, c, at + 1, &o.averaging)) return -1;
  o.material = m == 0 ? 1 : m == 1 ? 0 : m;
  if (first) o.normal = c->arg[0][0];
  if (p->s->nobjs3 >= 1000000) return gs_perr(p, "#%s: more than 10^6 objects", c->name);
  GROW3(p->s->objs3, p->s->nobjs3);
  p->s->objs3[p->s->nobjs3++] = o;
  return 0;
}

int gs_cmd_sphere(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#sphere: only in 3D models here");
  return store3(p, c, GS_O3_SPHERE, 0, 4, 1);
}

int gs_cmd_cone(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#cone: only in 3D models here");
  return store3(p, c, GS_O3_CONE, 0, 8, 1);
}

int gs_cmd_ellipsoid(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#ellipsoid: only in 3D models here");
  return store3(p, c, GS_O3_ELLIPSOID, 0, 6, 1);
}

static int object_material(gs_parser *p, const gs_command_call *c, const char *name, int *material) {
  *material = gs_find_material(p->s, name);
  if (*material < 0) return gs_perr(p, "#%s: material '%s' is not defined (yet)", c->name, name);
  return 0;
}

int gs_parse_averaging(gs_parser *p, const gs_command_call *c, int at, int *flag) {
  *flag = 1;
  if (at >= c->nargs) return 0;
  if (strcmp(c->arg[at], "y") && strcmp(c->arg[at], "n"))
    return gs_perr(p, "#%s: '%s': dielectric smoothing is y or n", c->name, c->arg[at]);
  *flag = c->arg[at][0] == 'y';
  return 0;
}

/* The material (one: anisotropic objects are refused) and smoothing of an
 * object whose material is argument `at`. */
static int object_material_and_flag(gs_parser *p, const gs_command_call *c, int at, gs_object *o) {
  if (c->nargs > at + 2) return gs_perr(p, "#%s: anisotropic objects (several materials) are not supported", c->name);
  int flag;
  if (object_material(p, c, c->arg[at], &o->material) || gs_parse_averaging(p, c, at + 1, &flag)) return -1;
  o->averaging = flag && !p->s->materials[o->material].pec;
  return 0;
}

int gs_corner_cells(gs_parser *p, const gs_command_call *c, const double v[6], int64_t lo[3], int64_t hi[3],
                    const char *same_point) {
  if (gs_point_cells(p, v, lo, 1, c->name) || gs_point_cells(p, v + 3, hi, 1, c->name)) return -1;
  int equal = 1;
  for (int k = 0; k < 3; ++k) {
    if (lo[k] > hi[k])
      return gs_perr(p, "#%s: the lower coordinates should be less than the upper coordinates", c->name);
    equal &= lo[k] == hi[k];
  }
  if (equal) return gs_perr(p, "#%s: %s", c->name, same_point);
  return 0;
}

/* An object's two corners (gs_corner_cells). */
static int corner_cells(gs_parser *p, const gs_command_call *c, const double v[6], int64_t lo[3], int64_t hi[3]) {
  return gs_corner_cells(p, c, v, lo, hi, "the two points are the same cell");
}

/* Whether cells [lo, hi) along the thin axis hold the model's one layer. */
static int spans_plane(const gs_scene *s, const int64_t lo[3], const int64_t hi[3]) {
  return lo[s->axis[2]] <= 0 && hi[s->axis[2]] >= 1;
}

int gs_cmd_box(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_BOX, 0, 6, 1);
  double v[6];
  int64_t lo[3], hi[3], c0, c1;
  gs_object o = {.type = GS_OBJ_BOX};
  if (gs_parse_args(p, c, 0, 6, v) || corner_cells(p, c, v, lo, hi) || object_material_and_flag(p, c, 6, &o)) return -1;
  if (!spans_plane(p->s, lo, hi)) return 0; /* paints no cell of the model */
  gs_frame_of(p->s, lo, &o.ci0, &o.cj0, &c0);
  gs_frame_of(p->s, hi, &o.ci1, &o.cj1, &c1);
  gs_scene_add_object(p->s, &o);
  return 0;
}

/* gprMax's rounding of a float quotient (its geometry code works in float). */
static int64_t round_f(float v) {
  return gs_round_cells((double)v);
}

int gs_cmd_cylinder(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_CYLINDER, 0, 7, 1);
  double v[7];
  int64_t f1[3], f2[3];
  gs_object o = {.type = GS_OBJ_CYLINDER};
  if (gs_parse_args(p, c, 0, 7, v) || gs_point_cells(p, v, f1, 1, c->name) ||
      gs_point_cells(p, v + 3, f2, 1, c->name) || object_material_and_flag(p, c, 7, &o))
    return -1;
  if (!(v[6] > 0)) return gs_perr(p, "#cylinder: the radius must be > 0");
  if (gs_check_lengths(p, c->name, v + 6, 1)) return -1;
  const gs_scene *s = p->s;
  int a = s->axis[0], b = s->axis[1], t = s->axis[2];
  /* The face centres snapped to the grid, then held as float (gprMax). */
  float fa = (float)((double)f1[a] * p->d[a]), fb = (float)((double)f1[b] * p->d[b]);
  float fa2 = (float)((double)f2[a] * p->d[a]), fb2 = (float)((double)f2[b] * p->d[b]);
  o.fdx = (float)s->dx;
  o.fdy = (float)s->dy;
  if (round_f(fa / o.fdx) != round_f(fa2 / o.fdx) || round_f(fb / o.fdy) != round_f(fb2 / o.fdy))
    return gs_perr(p, "#cylinder: in this 2D model a cylinder must run along %c, across the model", axes[t]);
  int64_t t0 = f1[t] < f2[t] ? f1[t] : f2[t], t1 = f1[t] < f2[t] ? f2[t] : f1[t];
  if (!(t0 <= 0 && t1 >= 1)) return 0;
  o.fx[0] = fa;
  o.fy[0] = fb;
  o.fr = (float)v[6];
  /* Every cell whose centre can be within r (gprMax's box is no smaller). */
  o.ci0 = (int64_t)floor(((double)fa - v[6]) / s->dx) - 2;
  o.ci1 = (int64_t)ceil(((double)fa + v[6]) / s->dx) + 2;
  o.cj0 = (int64_t)floor(((double)fb - v[6]) / s->dy) - 2;
  o.cj1 = (int64_t)ceil(((double)fb + v[6]) / s->dy) + 2;
  gs_scene_add_object(p->s, &o);
  return 0;
}

/* #edge: pins the E component along the edge to the material; in 2D only an
 * edge along the thin axis touches the model's field (one node). */
int gs_cmd_edge(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_EDGE, 0, 6, 0);
  double v[6];
  int64_t lo[3], hi[3], c0;
  gs_object o = {.type = GS_OBJ_EDGE};
  if (gs_parse_args(p, c, 0, 6, v) || corner_cells(p, c, v, lo, hi) || object_material(p, c, c->arg[6], &o.material))
    return -1;
  int along = gs_corners_single_axis(lo, hi, 1);
  if (along < 0) return gs_perr(p, "#edge: the two points must differ along exactly one axis");
  if (along != p->s->axis[2] || !spans_plane(p->s, lo, hi)) return 0;
  gs_frame_of(p->s, lo, &o.ci0, &o.cj0, &c0);
  o.ci1 = o.ci0;
  o.cj1 = o.cj0;
  gs_scene_add_object(p->s, &o);
  return 0;
}

/* #plate: pins the E components in the plate; in 2D only a plate that
 * contains the thin axis touches the model's field: a line of nodes, both
 * ends included. */
int gs_cmd_plate(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_PLATE, 0, 6, 0);
  double v[6];
  int64_t lo[3], hi[3], c0, c1;
  gs_object o = {.type = GS_OBJ_PLATE};
  if (gs_parse_args(p, c, 0, 6, v) || corner_cells(p, c, v, lo, hi)) return -1;
  if (c->nargs > 7) return gs_perr(p, "#plate: anisotropic plates (several materials) are not supported");
  if (object_material(p, c, c->arg[6], &o.material)) return -1;
  int normal = gs_corners_single_axis(lo, hi, 0);
  if (normal < 0) return gs_perr(p, "#plate: the two points must agree along exactly one axis");
  if (normal == p->s->axis[2] || !spans_plane(p->s, lo, hi)) return 0;
  gs_frame_of(p->s, lo, &o.ci0, &o.cj0, &c0);
  gs_frame_of(p->s, hi, &o.ci1, &o.cj1, &c1);
  gs_scene_add_object(p->s, &o);
  return 0;
}

/* gprMax's "thickness" cells of an object that starts at `lower` metres on
 * the thin axis: its first cell and how many. */
static int thin_extent(gs_parser *p, const gs_command_call *c, double lower, double thickness, int64_t *level,
                       int64_t *cells) {
  int t = p->s->axis[2];
  if (thickness < 0 || lower < 0) return gs_perr(p, "#%s: the extent and thickness must not be negative", c->name);
  double pt[3] = {0, 0, 0}, pu[3] = {0, 0, 0};
  pt[t] = lower;
  pu[t] = lower + thickness;
  int64_t lo[3], hi[3];
  if (gs_point_cells(p, pt, lo, 1, c->name) || gs_point_cells(p, pu, hi, 0, c->name)) return -1;
  *level = lo[t];
  *cells = hi[t] - lo[t];
  return 0;
}

/* The frame's first and second in-plane axes in the order gprMax's
 * triangle and sector code takes them (x before y before z), and whether
 * that order is the frame's (b, a) (TMy). */
static void plane_order(const gs_scene *s, int *first, int *second, int *swap) {
  int a = s->axis[0], b = s->axis[1];
  *swap = a > b;
  *first = *swap ? b : a;
  *second = *swap ? a : b;
}

int gs_cmd_triangle(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_TRIANGLE, 0, 10, 1);
  double v[10];
  int64_t cell[3][3], level, cells;
  gs_object o = {.type = GS_OBJ_TRIANGLE};
  if (gs_parse_args(p, c, 0, 10, v) || object_material_and_flag(p, c, 10, &o)) return -1;
  for (int k = 0; k < 3; ++k)
    if (gs_point_cells(p, v + 3 * k, cell[k], 1, c->name)) return -1;
  int t = p->s->axis[2], f, g;
  if (cell[0][t] != cell[1][t] || cell[0][t] != cell[2][t])
    return gs_perr(p, "#triangle: in this 2D model a triangle must lie in a plane normal to %c", axes[t]);
  if (thin_extent(p, c, v[t], v[9], &level, &cells)) return -1;
  if (!(level <= 0 && level + cells >= 1)) return 0; /* a face (thickness 0) or off the model's layer */
  plane_order(p->s, &f, &g, &o.swap);
  float df = (float)p->d[f], dg = (float)p->d[g];
  for (int k = 0; k < 3; ++k) {
    o.fx[k] = (float)((double)cell[k][f] * p->d[f]);
    o.fy[k] = (float)((double)cell[k][g] * p->d[g]);
  }
  o.fdx = df;
  o.fdy = dg;
  int64_t i1 = INT64_MAX, i2 = INT64_MIN, j1 = INT64_MAX, j2 = INT64_MIN;
  for (int k = 0; k < 3; ++k) {
    int64_t ri = round_f(o.fx[k] / df), rj = round_f(o.fy[k] / dg);
    i1 = ri < i1 ? ri : i1;
    i2 = ri > i2 ? ri : i2;
    j1 = rj < j1 ? rj : j1;
    j2 = rj > j2 ? rj : j2;
  }
  /* Cells in gprMax's order (f, g); the painter maps them to the frame. */
  o.ci0 = i1 - 1;
  o.ci1 = i2 + 1;
  o.cj0 = j1 - 1;
  o.cj1 = j2 + 1;
  gs_scene_add_object(p->s, &o);
  return 0;
}

/* #cylindrical_sector: normal ctr1 ctr2 extent1 extent2 r start angle mat [y|n]. */
int gs_cmd_cylindrical_sector(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode == GS_MODE_3D) return store3(p, c, GS_O3_CYLINDRICAL_SECTOR, 1, 7, 1);
  double v[7];
  int64_t level, cells;
  gs_object o = {.type = GS_OBJ_SECTOR};
  int t = p->s->axis[2], f, g, swap;
  if (gs_parse_args(p, c, 1, 7, v) || object_material_and_flag(p, c, 8, &o)) return -1;
  if (strcmp(c->arg[0], (const char[]){axes[t], 0}))
    return gs_perr(p, "#cylindrical_sector: in this 2D model the normal must be %c", axes[t]);
  if (!(v[4] > 0)) return gs_perr(p, "#cylindrical_sector: the radius must be > 0");
  if (gs_check_lengths(p, c->name, v, 5)) return -1;
  if (v[5] < 0 || v[5] >= 360 || !(v[6] > 0) || v[6] >= 360)
    return gs_perr(p, "#cylindrical_sector: the start angle must be in [0, 360) and the sector angle in (0, 360)");
  if (thin_extent(p, c, v[2], v[3] - v[2], &level, &cells)) return -1;
  if (!(level <= 0 && level + cells >= 1)) return 0;
  plane_order(p->s, &f, &g, &swap);
  double ctr[3] = {0, 0, 0};
  ctr[f] = v[0];
  ctr[g] = v[1];
  int64_t cc[3];
  if (gs_point_cells(p, ctr, cc, 1, c->name)) return -1;
  o.swap = swap; /* the painter's (f, g) order, as for triangles */
  o.fdx = (float)p->d[f];
  o.fdy = (float)p->d[g];
  o.fx[0] = (float)((double)cc[f] * p->d[f]);
  o.fy[0] = (float)((double)cc[g] * p->d[g]);
  o.fr = (float)v[4];
  float start = (float)(2 * GS_PI * (v[5] / 360)), angle = (float)(2 * GS_PI * (v[6] / 360));
  o.fx[1] = start;
  o.fx[2] = angle;
  o.ci0 = round_f((o.fx[0] - o.fr) / o.fdx);
  o.ci1 = round_f((o.fx[0] + o.fr) / o.fdx);
  o.cj0 = round_f((o.fy[0] - o.fr) / o.fdy);
  o.cj1 = round_f((o.fy[0] + o.fr) / o.fdy);
  gs_scene_add_object(p->s, &o);
  return 0;
}

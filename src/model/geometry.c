/* gprMax's geometry rules for 2D models (geometry.h; docs/gprmax-rules.md,
 * sections b, c and g, says where each rule comes from). The arithmetic of
 * the shape tests follows gprMax's (float where it computes in float), so
 * that cells on a shape's edge fall on the same side. */
#include "geometry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RIGID_E = 0x0f, RIGID_H = 0x10 };

static int cell_in(const gs_geometry *g, int64_t i, int64_t j) {
  return i >= g->ci0 && i < g->ci1 && j >= g->cj0 && j < g->cj1;
}

static int64_t cell_at(const gs_geometry *g, int64_t i, int64_t j) {
  return (j - g->cj0) * (g->ci1 - g->ci0) + (i - g->ci0);
}

static int node_in(const gs_geometry *g, int64_t i, int64_t j) {
  return i >= g->i0 && i < g->i1 && j >= g->j0 && j < g->j1;
}

/* Node materials written by objects that are not averaged. */
static void set_node(const gs_geometry *g, uint16_t *a, int64_t i, int64_t j, int m) {
  if (node_in(g, i, j)) a[gs_geometry_node(g, i, j)] = (uint16_t)m;
}

/* gprMax's build_voxel: an averaged voxel only takes the cell (and frees its
 * edges); another also pins the edges of the cell to the material. */
static void voxel(const gs_geometry *g, int64_t i, int64_t j, int m, int averaging) {
  if (!cell_in(g, i, j)) return; /* nothing it writes reaches the window */
  int64_t c = cell_at(g, i, j);
  g->solid[c] = (uint16_t)m;
  g->rigid[c] = averaging ? 0 : RIGID_E | RIGID_H;
  if (averaging) return;
  set_node(g, g->ez, i, j, m);
  set_node(g, g->ez, i + 1, j, m);
  set_node(g, g->ez, i, j + 1, m);
  set_node(g, g->ez, i + 1, j + 1, m);
  set_node(g, g->hx, i, j, m);
  set_node(g, g->hx, i, j + 1, m);
  set_node(g, g->hy, i, j, m);
  set_node(g, g->hy, i + 1, j, m);
}

/* gprMax's build_box: cells [ci0, ci1) x [cj0, cj1); a box that is not
 * averaged writes Ez only at each cell's lower corner and at the box's far
 * corner, and H on its cells and far faces (so its right and top rows of Ez
 * nodes keep what they had: docs/gprmax-rules.md, item 5). */
static void paint_box(const gs_geometry *g, const gs_object *o) {
  for (int64_t j = o->cj0 > g->cj0 ? o->cj0 : g->cj0; j < o->cj1 && j < g->cj1; ++j)
    for (int64_t i = o->ci0 > g->ci0 ? o->ci0 : g->ci0; i < o->ci1 && i < g->ci1; ++i) {
      int64_t c = cell_at(g, i, j);
      g->solid[c] = (uint16_t)o->material;
      g->rigid[c] = o->averaging ? 0 : RIGID_E | RIGID_H;
      if (o->averaging) continue;
      set_node(g, g->ez, i, j, o->material);
      set_node(g, g->hx, i, j, o->material);
      set_node(g, g->hy, i, j, o->material);
    }
  if (o->averaging) return;
  set_node(g, g->ez, o->ci1, o->cj1, o->material);
  for (int64_t j = o->cj0; j < o->cj1; ++j)
    if (j >= g->j0 && j < g->j1) set_node(g, g->hx, o->ci1, j, o->material);
  for (int64_t i = o->ci0; i < o->ci1; ++i)
    if (i >= g->i0 && i < g->i1) set_node(g, g->hy, i, o->cj1, o->material);
}

/* Cells [lo, hi) of one axis clipped to the window's and the grid's. */
static void clip(int64_t *lo, int64_t *hi, int64_t wlo, int64_t whi) {
  if (*lo < wlo) *lo = wlo;
  if (*hi > whi) *hi = whi;
}

/* gprMax's build_cylinder along the thin axis: cells whose centre lies
 * within r of the snapped centre (float and double as gprMax mixes them). */
static void paint_cylinder(const gs_geometry *g, const gs_object *o) {
  int64_t i0 = o->ci0, i1 = o->ci1, j0 = o->cj0, j1 = o->cj1;
  clip(&i0, &i1, g->ci0, g->ci1);
  clip(&j0, &j1, g->cj0, g->cj1);
  /* gprMax's build contracts u^2 + w^2 to fma(u, u, w^2), u its lower axis (frame b in TMy). */
  int swap = g->sc->axis[0] > g->sc->axis[1];
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) {
      double a = (double)((float)i * o->fdx) + 0.5 * (double)o->fdx - (double)o->fx[0];
      double b = (double)((float)j * o->fdy) + 0.5 * (double)o->fdy - (double)o->fy[0];
      double d = swap ? fma(b, b, a * a) : fma(a, a, b * b);
      if (sqrt(d) <= (double)o->fr) voxel(g, i, j, o->material, o->averaging);
    }
}

/* gprMax's build_triangle (normal along the thin axis): cell centres
 * strictly inside, by its float barycentric test, in its axis order, with the
 * multiply-adds its build fuses (the same as src/model/geometry3d.c). */
static int triangle_holds(const gs_object *o, int64_t p, int64_t q) {
  const float *a = o->fx, *c = o->fy;
  float area = 0.5f * fmaf(a[1], c[2], fmaf(a[0], c[1] - c[2], fmaf(-c[1], a[2], c[0] * (a[2] - a[1]))));
  int sign = (area > 0) - (area < 0);
  double ir = ((double)p + 0.5) * (double)o->fdx, jr = ((double)q + 0.5) * (double)o->fdy;
  float s0 = fmaf(c[0], a[2], -(a[0] * c[2])), t0 = fmaf(a[0], c[1], -(c[0] * a[1]));
  double sd = fma((double)(a[0] - a[2]), jr, fma((double)(c[2] - c[0]), ir, (double)s0));
  double td = fma((double)(a[1] - a[0]), jr, fma((double)(c[0] - c[1]), ir, (double)t0));
  float s = (float)(sign * sd), t = (float)(sign * td);
  return s > 0 && t > 0 && s + t < 2 * area * (float)sign;
}

static int clockwise(float v1x, float v1y, float v2x, float v2y) {
  return fmaf(-v1x, v2y, v1y * v2x) > 0;
}

/* gprMax's is_inside_sector for the centre of cell (p, q). */
static int sector_holds(const gs_object *o, int64_t p, int64_t q) {
  float px = (float)((double)((float)p * o->fdx) + 0.5 * (double)o->fdx);
  float py = (float)((double)((float)q * o->fdy) + 0.5 * (double)o->fdy);
  float r = o->fr, start = o->fx[1], angle = o->fx[2];
  float s1 = (float)((double)r * cos((double)start)), s2 = (float)((double)r * sin((double)start));
  float e1 = (float)((double)r * cos((double)(start + angle))), e2 = (float)((double)r * sin((double)(start + angle)));
  float rx = px - o->fx[0], ry = py - o->fy[0];
  int within = fmaf(rx, rx, ry * ry) <= r * r;
  if ((double)angle <= GS_PI) return !clockwise(s1, s2, rx, ry) && clockwise(e1, e2, rx, ry) && within;
  return (!clockwise(s1, s2, rx, ry) || clockwise(e1, e2, rx, ry)) && within;
}

/* Triangles and sectors: cells (p, q) in gprMax's axis order, clipped to the
 * grid there, painted at the frame's cell. */
static void paint_plane_shape(const gs_geometry *g, const gs_object *o) {
  const gs_scene *sc = g->sc;
  int64_t np = o->swap ? sc->ny : sc->nx, nq = o->swap ? sc->nx : sc->ny;
  int64_t p0 = o->ci0, p1 = o->ci1, q0 = o->cj0, q1 = o->cj1;
  clip(&p0, &p1, 0, np);
  clip(&q0, &q1, 0, nq);
  /* Only cells of the window: its box in (p, q) order. */
  clip(&p0, &p1, o->swap ? g->cj0 : g->ci0, o->swap ? g->cj1 : g->ci1);
  clip(&q0, &q1, o->swap ? g->ci0 : g->cj0, o->swap ? g->ci1 : g->cj1);
  for (int64_t p = p0; p < p1; ++p)
    for (int64_t q = q0; q < q1; ++q) {
      int in = o->type == GS_OBJ_TRIANGLE ? triangle_holds(o, p, q) : sector_holds(o, p, q);
      if (in) voxel(g, o->swap ? q : p, o->swap ? p : q, o->material, o->averaging);
    }
}

/* gprMax's set_rigid_Ez and the node's material (#edge, #plate). */
static void pin_node(const gs_geometry *g, int64_t i, int64_t j, int m) {
  static const int64_t di[4] = {0, -1, 0, -1}, dj[4] = {0, 0, -1, -1};
  for (int k = 0; k < 4; ++k) {
    int64_t ci = i + di[k], cj = j + dj[k];
    if (ci >= 0 && cj >= 0 && cell_in(g, ci, cj)) g->rigid[cell_at(g, ci, cj)] |= (uint8_t)(1u << k);
  }
  set_node(g, g->ez, i, j, m);
}

/* #material_map (gpustencil's): one pixel per cell, averaged like any voxel. */
static void paint_map(const gs_geometry *g, const gs_object *o) {
  int64_t i0 = o->mi0, i1 = o->mi0 + o->mw, j0 = o->mj0, j1 = o->mj0 + o->mh;
  clip(&i0, &i1, g->ci0, g->ci1);
  clip(&j0, &j1, g->cj0, g->cj1);
  for (int64_t j = j0; j < j1; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      size_t px = (size_t)(i - o->mi0), py = (size_t)(o->mh - 1 - (j - o->mj0));
      int m = o->lut[o->grey[py * o->mw + px]];
      if (m >= 0) voxel(g, i, j, m, !g->sc->materials[m].pec);
    }
}

static void paint(const gs_geometry *g, const gs_object *o) {
  switch (o->type) {
  case GS_OBJ_BOX:
    paint_box(g, o);
    break;
  case GS_OBJ_CYLINDER:
    paint_cylinder(g, o);
    break;
  case GS_OBJ_TRIANGLE:
  case GS_OBJ_SECTOR:
    paint_plane_shape(g, o);
    break;
  case GS_OBJ_EDGE:
  case GS_OBJ_PLATE:
    for (int64_t j = o->cj0; j <= o->cj1; ++j)
      for (int64_t i = o->ci0; i <= o->ci1; ++i)
        pin_node(g, i, j, o->material);
    break;
  default:
    paint_map(g, o);
  }
}

/* ---- dielectric smoothing: compound materials ---- */

/* The material averaged from n (2 or 4) cell materials, made once per
 * window: gprMax names it by the four names sorted and joined by '+' (two
 * cells count twice) and takes the plain mean of each property. */
static int compound(gs_geometry *g, const uint32_t *ids, int n) {
  const char *names[4];
  for (int k = 0; k < n; ++k)
    names[k] = g->mat[ids[k]].name;
  char name[sizeof g->mat[0].name];
  gs_compound_name(names, n, name, sizeof name);
  for (int k = g->sc->nmaterials; k < g->nmat; ++k)
    if (!strcmp(g->mat[k].name, name)) return k;
  if (g->nmat >= 65535) gs_fatal("geometry", "more than 65535 averaged materials", __FILE__, __LINE__);
  g->mat = gs_xrealloc(g->mat, sizeof *g->mat * (size_t)(g->nmat + 1));
  gs_material m = {.er = 0};
  snprintf(m.name, sizeof m.name, "%s", name);
  for (int k = 0; k < n; ++k) { /* numpy's mean of a few values: a running sum, then / n */
    m.er += g->mat[ids[k]].er;
    m.sigma += g->mat[ids[k]].sigma;
    m.mr += g->mat[ids[k]].mr;
    m.sm += g->mat[ids[k]].sm;
  }
  m.er /= n;
  m.sigma /= n;
  m.mr /= n;
  m.sm /= n;
  g->mat[g->nmat] = m;
  return g->nmat++;
}

typedef gs_compound_cache compound_cache;

static int cached_compound(gs_geometry *g, compound_cache *cache, const uint32_t *ids, int n) {
  int *slot = gs_compound_cache_slot(cache, ids, n);
  if (slot && *slot >= 0) return *slot;
  int m = compound(g, ids, n);
  if (slot) *slot = m;
  return m;
}

static int rigid_bit(const gs_geometry *g, int64_t i, int64_t j, unsigned bit) {
  return i >= 0 && j >= 0 && i < g->sc->nx && j < g->sc->ny && (g->rigid[cell_at(g, i, j)] & bit);
}

/* gprMax's build_electric_components for the model's Ez: every interior node
 * that no non-averaged object pinned takes the mean of its four cells. */
static void smooth_e(gs_geometry *g, compound_cache *cache) {
  const gs_scene *sc = g->sc;
  for (int64_t j = g->j0 > 1 ? g->j0 : 1; j < g->j1 && j < sc->ny; ++j)
    for (int64_t i = g->i0 > 1 ? g->i0 : 1; i < g->i1 && i < sc->nx; ++i) {
      if (rigid_bit(g, i, j, 1) || rigid_bit(g, i - 1, j, 2) || rigid_bit(g, i, j - 1, 4) ||
          rigid_bit(g, i - 1, j - 1, 8))
        continue;
      uint32_t ids[4] = {gs_geometry_cell(g, i, j), gs_geometry_cell(g, i - 1, j), gs_geometry_cell(g, i - 1, j - 1),
                         gs_geometry_cell(g, i, j - 1)};
      int same = ids[0] == ids[1] && ids[0] == ids[2] && ids[0] == ids[3];
      g->ez[gs_geometry_node(g, i, j)] = (uint16_t)(same ? (int)ids[0] : cached_compound(g, cache, ids, 4));
    }
}

/* gprMax averages H only where a 2D model's loops reach: Hx on the first row
 * (mean of the cells left and right) and Hy on the first column (below and
 * above); elsewhere H keeps free space unless a non-averaged object set it. */
static void smooth_h(gs_geometry *g, compound_cache *cache) {
  const gs_scene *sc = g->sc;
  for (int64_t i = 1; i < sc->nx; ++i)
    if (node_in(g, i, 0) && !rigid_bit(g, i, 0, RIGID_H) && !rigid_bit(g, i - 1, 0, RIGID_H)) {
      uint32_t ids[2] = {gs_geometry_cell(g, i, 0), gs_geometry_cell(g, i - 1, 0)};
      g->hx[gs_geometry_node(g, i, 0)] = (uint16_t)(ids[0] == ids[1] ? (int)ids[0] : cached_compound(g, cache, ids, 2));
    }
  for (int64_t j = 1; j < sc->ny; ++j)
    if (node_in(g, 0, j) && !rigid_bit(g, 0, j, RIGID_H) && !rigid_bit(g, 0, j - 1, RIGID_H)) {
      uint32_t ids[2] = {gs_geometry_cell(g, 0, j), gs_geometry_cell(g, 0, j - 1)};
      g->hy[gs_geometry_node(g, 0, j)] = (uint16_t)(ids[0] == ids[1] ? (int)ids[0] : cached_compound(g, cache, ids, 2));
    }
}

static int magnetic(const gs_material *m) {
  return m->mr != 1 || m->sm != 0;
}

void gs_geometry_build(gs_geometry *g, const gs_scene *sc, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  memset(g, 0, sizeof *g);
  g->sc = sc;
  g->i0 = i0 < 0 ? 0 : i0;
  g->i1 = i1 > sc->nx + 1 ? sc->nx + 1 : i1;
  g->j0 = j0 < 0 ? 0 : j0;
  g->j1 = j1 > sc->ny + 1 ? sc->ny + 1 : j1;
  g->ci0 = g->i0 > 0 ? g->i0 - 1 : 0;
  g->ci1 = g->i1 < sc->nx ? g->i1 : sc->nx;
  g->cj0 = g->j0 > 0 ? g->j0 - 1 : 0;
  g->cj1 = g->j1 < sc->ny ? g->j1 : sc->ny;
  size_t cells = (size_t)(g->ci1 - g->ci0) * (size_t)(g->cj1 - g->cj0) + 1;
  size_t nodes = (size_t)(g->i1 - g->i0) * (size_t)(g->j1 - g->j0) + 1;
  g->solid = gs_xcalloc(cells, sizeof *g->solid); /* free_space */
  g->rigid = gs_xcalloc(cells, 1);
  g->ez = gs_xcalloc(nodes, sizeof *g->ez);
  g->hx = gs_xcalloc(nodes, sizeof *g->hx);
  g->hy = gs_xcalloc(nodes, sizeof *g->hy);
  g->nmat = sc->nmaterials;
  g->mat = gs_xmalloc(sizeof *g->mat * (size_t)g->nmat);
  memcpy(g->mat, sc->materials, sizeof *g->mat * (size_t)g->nmat);
  for (int k = 0; k < sc->nobjects; ++k)
    paint(g, &sc->objects[k]);
  compound_cache *cache = gs_xcalloc(1, sizeof *cache);
  smooth_e(g, cache);
  smooth_h(g, cache);
  free(cache);
  for (size_t k = 0; k + 1 < nodes; ++k)
    g->magnetic |= magnetic(&g->mat[g->hx[k]]) || magnetic(&g->mat[g->hy[k]]);
}

void gs_geometry_free(gs_geometry *g) {
  free(g->solid);
  free(g->rigid);
  free(g->ez);
  free(g->hx);
  free(g->hy);
  free(g->mat);
  memset(g, 0, sizeof *g);
}

double gs_geometry_sigma_max(const gs_scene *sc) {
  /* gprMax builds the slabs in the file's order x-, y-, z-, x+, y+, z+. */
  int side = -1;
  for (int key = 0; key < 6 && side < 0; ++key)
    for (int s = 0; s < 4; ++s)
      if ((s < 2 ? 0 : 3) + sc->axis[s % 2] == key && sc->pml[s]) side = s;
  if (side < 0) return 0;
  int along_x = side % 2 == 0; /* a slab normal to x: one column of cells */
  int64_t at = side == 0 || side == 1 ? 0 : (along_x ? sc->nx : sc->ny) - sc->pml[side];
  int64_t n = along_x ? sc->ny : sc->nx;
  gs_geometry g;
  if (along_x)
    gs_geometry_build(&g, sc, at, at + 1, 0, sc->ny + 1);
  else
    gs_geometry_build(&g, sc, 0, sc->nx + 1, at, at + 1);
  double er = 0, mr = 0;
  for (int64_t k = 0; k < n; ++k) {
    const gs_material *m = &g.mat[along_x ? gs_geometry_cell(&g, at, k) : gs_geometry_cell(&g, k, at)];
    er += m->er;
    mr += m->mr;
  }
  gs_geometry_free(&g);
  er /= (double)n;
  mr /= (double)n;
  double d = along_x ? sc->dx : sc->dy;
  return 0.8 * (sc->cfs[0].sigma.order + 1) / (sqrt(GS_MU0 / GS_EPS0) * d * sqrt(er * mr));
}

int gs_scene_material_at(const gs_scene *s, int64_t i, int64_t j) {
  i = i < 0 ? 0 : i >= s->nx ? s->nx - 1 : i;
  j = j < 0 ? 0 : j >= s->ny ? s->ny - 1 : j;
  gs_geometry g;
  gs_geometry_build(&g, s, i, i + 1, j, j + 1);
  int m = gs_geometry_cell(&g, i, j);
  gs_geometry_free(&g);
  return m;
}

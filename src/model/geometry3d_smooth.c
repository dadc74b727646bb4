/* gprMax 4's dielectric smoothing of a 3D model (geometry3d.h): after the
 * painting (geometry3d.c), the material of every E and H component not
 * pinned by a rigid edge averaged from the cells around it, a compound
 * material named and numbered as gprMax names and numbers it; the two
 * sweeps, parallel over z planes, give the same indices whatever the split
 * over ranks. */
#include "geometry3d.h"
#include "geometry3d_internal.h"

#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rigid flags (painting sets them): does an edge pin the component? ---- */

static int rigid_at(const b3 *b, int bit, int64_t i, int64_t j, int64_t k) {
  return (b->rigid[cell(b, i, j, k)] >> bit) & 1u;
}

static int rigid_e(const b3 *b, int c, int64_t i, int64_t j, int64_t k) {
  if (c == 0)
    return rigid_at(b, 0, i, j, k) || (j && rigid_at(b, 1, i, j - 1, k)) || (k && rigid_at(b, 3, i, j, k - 1)) ||
           (j && k && rigid_at(b, 2, i, j - 1, k - 1));
  if (c == 1)
    return rigid_at(b, 4, i, j, k) || (i && rigid_at(b, 7, i - 1, j, k)) || (k && rigid_at(b, 5, i, j, k - 1)) ||
           (i && k && rigid_at(b, 6, i - 1, j, k - 1));
  return rigid_at(b, 8, i, j, k) || (i && rigid_at(b, 9, i - 1, j, k)) || (j && rigid_at(b, 11, i, j - 1, k)) ||
         (i && j && rigid_at(b, 10, i - 1, j - 1, k));
}

static int rigid_h(const b3 *b, int c, int64_t i, int64_t j, int64_t k) {
  if (c == 0) return rigid_at(b, 12, i, j, k) || (i && rigid_at(b, 13, i - 1, j, k));
  if (c == 1) return rigid_at(b, 14, i, j, k) || (j && rigid_at(b, 15, i, j - 1, k));
  return rigid_at(b, 16, i, j, k) || (k && rigid_at(b, 17, i, j, k - 1));
}

/* ---- dielectric smoothing ---- */

static int by_name(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void gs_compound_name(const char *const *names, int n, char *out, size_t len) {
  const char *sorted[4];
  for (int k = 0; k < 4; ++k)
    sorted[k] = names[k % n];
  qsort(sorted, 4, sizeof sorted[0], by_name);
  snprintf(out, len, "%s+%s+%s+%s", sorted[0], sorted[1], sorted[2], sorted[3]);
}

int *gs_compound_cache_slot(gs_compound_cache *c, const uint32_t *ids, int n) {
  uint64_t key = 1;
  for (int k = 0; k < n; ++k)
    key = key << 16 | (uint64_t)ids[k];
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52);
  for (int probe = 0; probe < GS_COMPOUND_CACHE; ++probe, h = (h + 1) % GS_COMPOUND_CACHE) {
    if (c->key[h] == key) return &c->value[h];
    if (c->key[h] == 0) {
      c->key[h] = key;
      c->value[h] = -1;
      return &c->value[h];
    }
  }
  return NULL;
}

/* create_compound_id and the material lookup by name: the n (2 or 4) cell
 * materials' names sorted and joined by '+' (2 count twice); a new material
 * takes numpy's mean of each property (a running sum, then / n). */
static int compound(b3 *b, const uint32_t *ids, int n) {
  gs_geometry3 *g = b->g;
  if (n != 2 && n != 4) return -1; /* an H (2 cells) or E (4 cells) component */
  const char *names[4] = {"", "", "", ""};
  for (int k = 0; k < n; ++k)
    names[k] = g->mat[ids[k]].name;
  char name[sizeof g->mat[0].name];
  gs_compound_name(names, n, name, sizeof name);
  for (int k = 0; k < g->nmat; ++k)
    if (!strcmp(g->mat[k].name, name)) return k;
  if (g->nmat >= 65535) return -1;
  g->mat = realloc(g->mat, sizeof *g->mat * (size_t)(g->nmat + 1));
  if (!g->mat) abort();
  gs_mat3 m = {.averagable = 1};
  snprintf(m.name, sizeof m.name, "%s", name);
  for (int k = 0; k < n; ++k) {
    m.er += g->mat[ids[k]].er;
    m.se += g->mat[ids[k]].se;
    m.mr += g->mat[ids[k]].mr;
    m.sm += g->mat[ids[k]].sm;
  }
  m.er /= n;
  m.se /= n;
  m.mr /= n;
  m.sm /= n;
  g->mat[g->nmat] = m;
  return g->nmat++;
}

/* Smoothing in two parallel sweeps with gprMax's numbering. gprMax visits
 * the components in eight loops (E inside, E on the x0/y0/z0 faces, H
 * inside, H on the three axes; see `smooth_phase`) and numbers a compound
 * material when it first meets it. Sweep 1 finds, per distinct set of cell
 * materials, where gprMax first meets it (its position in that visiting
 * order) and the cells in the order met there; the compounds are then made
 * in that order, so their indices, names and averaged properties (summed in
 * that order) are gprMax's; sweep 2 writes every component. Both sweeps walk
 * the arrays in memory order, each thread a range of z planes. */

/* Which of gprMax's smoothing loops visits component q (0-2 Ex Ey Ez, 3-5
 * Hx Hy Hz) of node (i, j, k): 0-3 for E, 4-7 for H, -1 none. */
static int smooth_phase(const b3 *b, int q, int64_t i, int64_t j, int64_t k) {
  const int in_i = i >= 1 && i < b->nx, in_j = j >= 1 && j < b->ny, in_k = k >= 1 && k < b->nz;
  const int c = q % 3, h = q >= 3;
  if (in_i && in_j && in_k) return h ? 4 : 0;
  if (!h) {
    if (c == 0 && i == 0 && in_j && in_k) return 1;
    if (c == 1 && j == 0 && in_i && in_k) return 2;
    if (c == 2 && k == 0 && in_i && in_j) return 3;
    return -1;
  }
  if (c == 0 && j == 0 && k == 0 && in_i) return 5;
  if (c == 1 && i == 0 && k == 0 && in_j) return 6;
  if (c == 2 && i == 0 && j == 0 && in_k) return 7;
  return -1;
}

/* The position of a visit in gprMax's order: loop number, then its indices
 * (outer first: i, j, k, then the component inside the interior loops). */
static uint64_t smooth_order(const b3 *b, int phase, int q, int64_t i, int64_t j, int64_t k) {
  const uint64_t ny1 = (uint64_t)b->ny + 1, nz1 = (uint64_t)b->nz + 1, c = (uint64_t)(q % 3);
  uint64_t at = 0;
  switch (phase) {
  case 0:
  case 4:
    at = (((uint64_t)i * ny1 + (uint64_t)j) * nz1 + (uint64_t)k) * 3 + c;
    break;
  case 1:
    at = (uint64_t)j * nz1 + (uint64_t)k;
    break;
  case 2:
    at = (uint64_t)i * nz1 + (uint64_t)k;
    break;
  case 3:
    at = (uint64_t)i * ny1 + (uint64_t)j;
    break;
  default: /* 5, 6, 7: one index runs */
    at = (uint64_t)(i + j + k);
  }
  return (uint64_t)phase << 58 | at;
}

/* The cells component q of node (i, j, k) averages, in gprMax's order (E 4,
 * H 2); 0 when the component is pinned by a rigid edge. */
static int smooth_cells(const b3 *b, int q, int64_t i, int64_t j, int64_t k, uint32_t ids[4]) {
  static const int d[3][3][3] = {{{0, -1, 0}, {0, -1, -1}, {0, 0, -1}},
                                 {{-1, 0, 0}, {-1, 0, -1}, {0, 0, -1}},
                                 {{-1, 0, 0}, {-1, -1, 0}, {0, -1, 0}}};
  const int c = q % 3;
  const uint32_t *solid = b->g->solid;
  if (q < 3) {
    if (rigid_e(b, c, i, j, k)) return 0;
    ids[0] = solid[cell(b, i, j, k)];
    for (int n = 0; n < 3; ++n)
      ids[n + 1] = solid[cell(b, i + d[c][n][0], j + d[c][n][1], k + d[c][n][2])];
    return 4;
  }
  if (rigid_h(b, c, i, j, k)) return 0;
  ids[0] = solid[cell(b, i, j, k)];
  ids[1] = solid[cell(b, i - (c == 0), j - (c == 1), k - (c == 2))];
  return 2;
}

/* A compound's key: its cells' materials as a sorted multiset of four (an H
 * component's two count twice, as in gprMax's name), 16 bits each. Never 0:
 * a compound has two different materials. */
static uint64_t compound_key(const uint32_t *ids, int n) {
  uint32_t s[4];
  for (int m = 0; m < 4; ++m)
    s[m] = ids[n == 4 ? m : m / 2];
  for (int x = 1; x < 4; ++x)
    for (int y = x; y > 0 && s[y - 1] > s[y]; --y) {
      uint32_t t = s[y];
      s[y] = s[y - 1];
      s[y - 1] = t;
    }
  return (uint64_t)s[0] << 48 | (uint64_t)s[1] << 32 | (uint64_t)s[2] << 16 | s[3];
}

/* Open-addressing map from compound key to the first visit (sweep 1) or to
 * the material index (sweep 2); grows at half full. */
typedef gs_compound_visit first_visit;

typedef struct visit_map {
  first_visit *e;
  size_t cap, used;
} visit_map;

static first_visit *map_slot(visit_map *m, uint64_t key) {
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
  while (m->e[h].key && m->e[h].key != key)
    h = (h + 1) & (m->cap - 1);
  return &m->e[h];
}

static void map_grow(visit_map *m) {
  visit_map bigger = {gs_xcalloc(m->cap ? 2 * m->cap : 256, sizeof *m->e), m->cap ? 2 * m->cap : 256, m->used};
  for (size_t h = 0; h < m->cap; ++h)
    if (m->e[h].key) *map_slot(&bigger, m->e[h].key) = m->e[h];
  free(m->e);
  *m = bigger;
}

/* Keeps the earlier of v and the visit already known for v's key. */
static void map_keep_first(visit_map *m, const first_visit *v) {
  if (2 * (m->used + 1) > m->cap) map_grow(m);
  first_visit *e = map_slot(m, v->key);
  if (!e->key) {
    *e = *v;
    m->used++;
  } else if (v->order < e->order) {
    *e = *v;
  }
}

typedef struct smooth_job {
  b3 *b;
  visit_map part[GS_PARALLEL_MAX]; /* sweep 1: one map per part */
  const visit_map *index;          /* sweep 2: key -> material */
} smooth_job;

/* Sweep 1 over the held nodes' z planes lo[2] + [k0, k1): the first visit
 * of every compound. */
static void find_compounds(void *ctx, int64_t k0, int64_t k1, int part) {
  smooth_job *job = ctx;
  const b3 *b = job->b;
  const int64_t *lo = b->g->lo, *hi = b->g->hi;
  for (int64_t k = lo[2] + k0; k < lo[2] + k1; ++k)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t i = lo[0]; i < hi[0]; ++i)
        for (int q = 0; q < 6; ++q) {
          int phase = smooth_phase(b, q, i, j, k);
          first_visit v = {0};
          if (phase < 0 || !(v.n = smooth_cells(b, q, i, j, k, v.ids))) continue;
          if (v.ids[1] == v.ids[0] && (v.n == 2 || (v.ids[2] == v.ids[0] && v.ids[3] == v.ids[0]))) continue;
          v.key = compound_key(v.ids, v.n);
          v.order = smooth_order(b, phase, q, i, j, k);
          map_keep_first(&job->part[part], &v);
        }
}

/* Sweep 2 over the held nodes' z planes lo[2] + [k0, k1): every visited
 * component's material. */
static void write_smoothed(void *ctx, int64_t k0, int64_t k1, int part) {
  (void)part;
  smooth_job *job = ctx;
  const b3 *b = job->b;
  visit_map *index = (visit_map *)job->index;
  const int64_t *lo = b->g->lo, *hi = b->g->hi;
  for (int64_t k = lo[2] + k0; k < lo[2] + k1; ++k)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t i = lo[0]; i < hi[0]; ++i)
        for (int q = 0; q < 6; ++q) {
          uint32_t ids[4];
          int n;
          if (smooth_phase(b, q, i, j, k) < 0 || !(n = smooth_cells(b, q, i, j, k, ids))) continue;
          int same = ids[1] == ids[0] && (n == 2 || (ids[2] == ids[0] && ids[3] == ids[0]));
          put_id(b, q, i, j, k, same ? (int)ids[0] : map_slot(index, compound_key(ids, n))->material);
        }
}

static int by_order(const void *x, const void *y) {
  const first_visit *a = x, *c = y;
  return (a->order > c->order) - (a->order < c->order);
}

/* The visits found by every thread, one per key (the earliest). */
static void collect_visits(b3 *b, smooth_job *job, int parts) {
  visit_map all = {0};
  for (int p = 0; p < parts; ++p) {
    for (size_t h = 0; h < job->part[p].cap; ++h)
      if (job->part[p].e[h].key) map_keep_first(&all, &job->part[p].e[h]);
    free(job->part[p].e);
  }
  gs_geometry3 *g = b->g;
  g->visits = gs_xcalloc(all.used + 1, sizeof *g->visits);
  g->nvisits = 0;
  for (size_t h = 0; h < all.cap; ++h)
    if (all.e[h].key) g->visits[g->nvisits++] = all.e[h];
  free(all.e);
}

/* The compounds of visits[0..n) made in gprMax's order (the earliest visit
 * of each key); their indices in `index`. Returns -1 past 65535 materials. */
static int number_compounds(b3 *b, const first_visit *visits, int64_t n, visit_map *index) {
  visit_map first = {0};
  map_grow(&first);
  for (int64_t q = 0; q < n; ++q)
    map_keep_first(&first, &visits[q]);
  first_visit *list = gs_xcalloc(first.used + 1, sizeof *list);
  size_t count = 0;
  for (size_t h = 0; h < first.cap; ++h)
    if (first.e[h].key) list[count++] = first.e[h];
  qsort(list, count, sizeof *list, by_order);
  int bad = 0;
  for (size_t q = 0; q < count && !bad; ++q) {
    list[q].material = compound(b, list[q].ids, list[q].n);
    bad = list[q].material < 0;
    map_keep_first(index, &list[q]);
  }
  free(list);
  free(first.e);
  return bad ? -1 : 0;
}

/* The first sweep (find_compounds) over the part's z planes in parallel,
 * then the visits of every thread merged. */
void gs_geometry3_find_visits(b3 *b) {
  smooth_job *job = gs_xcalloc(1, sizeof *job);
  job->b = b;
  int parts = gs_parallel_threads();
  gs_parallel_for(b->g->hi[2] - b->g->lo[2], parts, find_compounds, job);
  collect_visits(b, job, parts);
  free(job);
}

/* build_electric_components then build_magnetic_components: the compounds
 * numbered by gprMax's loop order, then every component written. */
gs_status gs_geometry3_smooth(gs_geometry3 *g, const gs_compound_visit *visits, int64_t n, char *err, size_t errlen) {
  b3 b = {.g = g, .rigid = g->rigid, .nx = g->nx, .ny = g->ny, .nz = g->nz, .err = err, .errlen = errlen};
  visit_map index = {0};
  map_grow(&index);
  int bad = number_compounds(&b, visits, n, &index);
  if (!bad) {
    smooth_job *job = gs_xcalloc(1, sizeof *job);
    job->b = &b;
    job->index = &index;
    gs_parallel_for(g->hi[2] - g->lo[2], gs_parallel_threads(), write_smoothed, job);
    free(job);
  }
  free(index.e);
  if (!bad) return GS_OK;
  if (err && errlen) snprintf(err, errlen, "more than 65535 materials");
  gs_geometry3_free(g);
  return GS_ERR_LIMIT;
}

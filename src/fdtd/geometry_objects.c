/* gprMax's #geometry_objects_write (geometry_objects.h). */
#include "geometry_objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprmax_out.h"

static const gs_geometry3 *sort_g; /* qsort has no context argument; one sort at a time */
static int sort_nbase;

/* gprMax's Material.__lt__: own materials by number, before every compound; compounds by name. */
static int material_order(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb, ca = a >= sort_nbase, cb = b >= sort_nbase;
  if (ca != cb) return ca - cb;
  if (!ca) return (a > b) - (a < b);
  return strcmp(sort_g->mat[a].name, sort_g->mat[b].name);
}

int gs_view_materials(const gs_geometry3 *g, int nbase, const uint8_t *used, int *order, uint32_t *map) {
  int n = 0;
  for (int k = 0; k < g->nmat; ++k)
    if (!used || used[k]) order[n++] = k;
  sort_g = g;
  sort_nbase = nbase;
  qsort(order, (size_t)n, sizeof *order, material_order);
  for (int k = 0; k < n; ++k)
    map[order[k]] = (uint32_t)k;
  return n;
}

/* gprMax's materials list: `#material: er se mr sm name` with Python's
 * {:g} (which C's %g matches for finite values and inf). */
static gs_status write_materials(const char *path, const gs_geometry3 *g, const int *order, int n, char *err,
                                 size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return GS_ERR_IO;
  }
  int bad = 0;
  for (int k = 0; k < n; ++k) {
    const gs_mat3 *m = &g->mat[order[k]];
    bad |= fprintf(f, "#material: %g %g %g %g %s\n", m->er, m->se, m->mr, m->sm, m->name) < 0;
  }
  bad |= fclose(f) != 0;
  if (bad) {
    snprintf(err, errlen, "%s: write failed", path);
    return GS_ERR_IO;
  }
  return GS_OK;
}

/* The box's arrays in gprMax's layout ([..][x][y][z], z fastest), numbered
 * by the view's materials. */
static void fill_arrays(const gs_geometry3 *g, const gs_geo_write *w, const uint32_t *map, int16_t *data,
                        int8_t *rigid_e, int8_t *rigid_h, uint32_t *id) {
  const int64_t sx = w->hi[0] - w->lo[0], sy = w->hi[1] - w->lo[1], sz = w->hi[2] - w->lo[2];
  const size_t cells = (size_t)(sx * sy * sz), nodes = (size_t)((sx + 1) * (sy + 1) * (sz + 1));
  for (int64_t i = 0, at = 0; i < sx; ++i)
    for (int64_t j = 0; j < sy; ++j)
      for (int64_t k = 0; k < sz; ++k, ++at) {
        int64_t c = gs_geometry3_cell(g, w->lo[0] + i, w->lo[1] + j, w->lo[2] + k);
        data[at] = (int16_t)map[g->solid[c]];
        for (int b = 0; b < 12; ++b)
          rigid_e[(size_t)b * cells + (size_t)at] = (int8_t)(g->rigid[c] >> b & 1u);
        for (int b = 0; b < 6; ++b)
          rigid_h[(size_t)b * cells + (size_t)at] = (int8_t)(g->rigid[c] >> (12 + b) & 1u);
      }
  for (int64_t i = 0, at = 0; i <= sx; ++i)
    for (int64_t j = 0; j <= sy; ++j)
      for (int64_t k = 0; k <= sz; ++k, ++at)
        for (int c = 0; c < 6; ++c)
          id[(size_t)c * nodes + (size_t)at] = map[g->id[c][gs_geometry3_node(g, w->lo[0] + i, w->lo[1] + j, w->lo[2] + k)]];
}

static gs_status write_one(const gs_scene *sc, const gs_geometry3 *g, const gs_geo_write *w, const char *dir,
                           char *err, size_t errlen) {
  const int64_t s[3] = {w->hi[0] - w->lo[0], w->hi[1] - w->lo[1], w->hi[2] - w->lo[2]};
  const size_t cells = (size_t)(s[0] * s[1] * s[2]), nodes = (size_t)((s[0] + 1) * (s[1] + 1) * (s[2] + 1));
  uint8_t *used = gs_xcalloc((size_t)g->nmat, 1);
  for (int64_t i = w->lo[0]; i <= w->hi[0]; ++i) /* the materials of the box's nodes (ID), and of its cells */
    for (int64_t j = w->lo[1]; j <= w->hi[1]; ++j)
      for (int64_t k = w->lo[2]; k <= w->hi[2]; ++k) {
        for (int c = 0; c < 6; ++c)
          used[g->id[c][gs_geometry3_node(g, i, j, k)]] = 1;
        if (i < w->hi[0] && j < w->hi[1] && k < w->hi[2]) used[g->solid[gs_geometry3_cell(g, i, j, k)]] = 1;
      }
  int *order = gs_xmalloc(sizeof *order * (size_t)g->nmat);
  uint32_t *map = gs_xcalloc((size_t)g->nmat, sizeof *map);
  int n = gs_view_materials(g, sc->nmaterials, used, order, map);
  int16_t *data = gs_xmalloc(sizeof *data * cells);
  int8_t *rigid = gs_xmalloc(18 * cells);
  uint32_t *id = gs_xmalloc(sizeof *id * 6 * nodes);
  fill_arrays(g, w, map, data, rigid, rigid + 12 * cells, id);
  gs_gpr_geomobj o = {.title = sc->title,
                      .dxdydz = {sc->dx, sc->dy, sc->dz},
                      .size = {s[0], s[1], s[2]},
                      .data = data,
                      .rigidE = rigid,
                      .rigidH = rigid + 12 * cells,
                      .id = id};
  char path[2400];
  snprintf(path, sizeof path, "%s/%s.h5", dir, w->base);
  gs_status st = gs_gpr_write_geometry_object(path, &o, err, errlen);
  if (st == GS_OK) {
    snprintf(path, sizeof path, "%s/%s_materials.txt", dir, w->base);
    st = write_materials(path, g, order, n, err, errlen);
  }
  free(used);
  free(order);
  free(map);
  free(data);
  free(rigid);
  free(id);
  return st;
}

gs_status gs_geometry_objects_write(const gs_scene *sc, const gs_geometry3 *g, const char *dir, char *err,
                                    size_t errlen) {
  gs_status st = GS_OK;
  for (int k = 0; k < sc->ngeo_writes && st == GS_OK; ++k)
    st = write_one(sc, g, &sc->geo_writes[k], dir, err, errlen);
  return st;
}

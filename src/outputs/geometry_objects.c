/* gprMax's #geometry_objects_write: a box of the built geometry saved as gprMax 4's geometry
 * objects file and its materials list (geometry_objects.h). */
#include "geometry_objects.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "fdtd3d_gather.h"
#include "fsutil.h"
#include "gprmax_out.h"
#include "scene_internal.h"

#define GROW(arr, n) ((arr) = gs_xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1)))

static const gs_geometry3 *sort_g; /* qsort has no context argument; one sort at a time */

/* gprMax's Material.__lt__: materials without '+' in their names by number,
 * before every compound ('+' in the name: made by smoothing, or imported
 * from a geometry objects file); compounds by name. */
static int material_order(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  int ca = strchr(sort_g->mat[a].name, '+') != NULL, cb = strchr(sort_g->mat[b].name, '+') != NULL;
  if (ca != cb) return ca - cb;
  if (!ca) return (a > b) - (a < b);
  return strcmp(sort_g->mat[a].name, sort_g->mat[b].name);
}

int gs_view_materials(const gs_geometry3 *g, const uint8_t *used, int *order, uint32_t *map) {
  int n = 0;
  for (int k = 0; k < g->nmat; ++k)
    if (!used || used[k]) order[n++] = k;
  sort_g = g;
  qsort(order, (size_t)n, sizeof *order, material_order);
  for (int k = 0; k < n; ++k)
    map[order[k]] = (uint32_t)k;
  return n;
}

/* A dispersive material's line after its #material, as gprMax writes it:
 * `#add_dispersion_debye: poles de tau ... name` (drude: omega alpha).
 * gprMax writes none for Lorentz materials (its test looks for "lorenz"
 * in "lorentz" and then fails); nothing is written for them here. */
static int write_dispersion(FILE *f, const gs_scene *sc, int k, const char *name) {
  const int e = k >= 2 && k < sc->nmaterials ? gs_scene_dispersion_of(sc, k) : -1; /* gprMax numbers from 2 = ours */
  if (e < 0 || sc->disps[e].kind == GS_DISP_LORENTZ) return 0;
  const gs_dispersion *d = &sc->disps[e];
  const int drude = d->kind == GS_DISP_DRUDE;
  int bad = fprintf(f, "#add_dispersion_%s: %d ", drude ? "drude" : "debye", d->npoles) < 0;
  for (int q = 0; q < d->npoles; ++q)
    bad |= fprintf(f, "%g %g ", drude ? d->tau[q] : d->deltaer[q], drude ? d->alpha[q] : d->tau[q]) < 0;
  return bad | (fprintf(f, "%s\n", name) < 0);
}

/* gprMax's materials list: `#material: er se mr sm name` with Python's
 * {:g} (which C's %g matches for finite values and inf), each dispersive
 * material followed by its dispersion. */
static gs_status write_materials(const char *path, const gs_scene *sc, const gs_geometry3 *g, const int *order, int n,
                                 char *err, size_t errlen) {
  gs_tmpfile t; /* written under a temporary name and renamed: never half a list */
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  int bad = 0;
  for (int k = 0; k < n && !bad; ++k) {
    const gs_mat3 *m = &g->mat[order[k]];
    bad = fprintf(t.fp, "#material: %g %g %g %g %s\n", m->er, m->se, m->mr, m->sm, m->name) < 0;
    bad |= write_dispersion(t.fp, sc, order[k], m->name);
  }
  return gs_tmpfile_commit(&t, bad, 0, err, errlen);
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
          id[(size_t)c * nodes + (size_t)at] =
              map[g->id[c][gs_geometry3_node(g, w->lo[0] + i, w->lo[1] + j, w->lo[2] + k)]];
}

static gs_status write_one(const gs_scene *sc, const gs_geometry3 *g, const gs_geo_write *w, const char *dir, char *err,
                           size_t errlen) {
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
  int n = gs_view_materials(g, used, order, map);
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
    st = write_materials(path, sc, g, order, n, err, errlen);
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

/* ---- over ranks ---- */

/* The materials of the box's nodes and cells (write_one's) that part own holds, marked in used. */
static void used_here(const gs_geometry3 *g, const gs_geo_write *w, const gs_part3 *own, uint8_t *used) {
  int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = w->lo[a] > own->lo[a] ? w->lo[a] : own->lo[a];
    hi[a] = w->hi[a] + 1 < own->hi[a] ? w->hi[a] + 1 : own->hi[a];
  }
  for (int64_t i = lo[0]; i < hi[0]; ++i)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t k = lo[2]; k < hi[2]; ++k) {
        for (int c = 0; c < 6; ++c)
          used[g->id[c][gs_geometry3_node(g, i, j, k)]] = 1;
        if (i < w->hi[0] && j < w->hi[1] && k < w->hi[2]) used[g->solid[gs_geometry3_cell(g, i, j, k)]] = 1;
      }
}

typedef struct geo_ctx {
  const gs_geometry3 *g;
  const uint32_t *map;
} geo_ctx;

static void no_plane(void *ctx, int64_t k) {
  (void)ctx, (void)k;
}

/* A cell's record: its data value (int16) and its 18 rigid flags. */
static void cell_record(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst) {
  const geo_ctx *x = ctx;
  const int64_t c = gs_geometry3_cell(x->g, i, j, k);
  const int16_t d = (int16_t)x->map[x->g->solid[c]];
  memcpy(dst, &d, sizeof d);
  for (int b = 0; b < 18; ++b)
    dst[2 + b] = (uint8_t)(x->g->rigid[c] >> b & 1u);
}

/* A node's record: its six materials (uint32). */
static void node_record(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst) {
  const geo_ctx *x = ctx;
  for (int c = 0; c < 6; ++c) {
    const uint32_t v = x->map[x->g->id[c][gs_geometry3_node(x->g, i, j, k)]];
    memcpy(dst + 4 * c, &v, sizeof v);
  }
}

/* x plane x of the box's cells and nodes, gathered on rank 0 and written to f there. */
static void put_plane(const gs_scene *sc, const gs_fdtd3_ranks *sp, const gs_geo_write *w, const geo_ctx *ctx,
                      int64_t x, uint8_t *rec, uint8_t *buf, gs_gpr_layers *f) {
  const int64_t sy = w->hi[1] - w->lo[1], sz = w->hi[2] - w->lo[2], ny = sy + 1, nz = sz + 1;
  const int root = sp->rank == 0;
  if (x < w->hi[0] - w->lo[0]) {
    const gs_fdtd3_grid cells = {{w->lo[0] + x, w->lo[1], w->lo[2]}, {1, 1, 1}, {1, sy, sz}};
    const gs_fdtd3_reader rd = {no_plane, cell_record, (void *)ctx, 20};
    gs_fdtd3_gather(sp, sc, &cells, &rd, rec);
    int16_t *data = (int16_t *)(void *)buf;
    int8_t *rigid = (int8_t *)(buf + sizeof(int16_t) * (size_t)(sy * sz));
    for (int64_t z = 0; root && z < sz; ++z) /* gathered z slowest; the file's z fastest */
      for (int64_t y = 0; y < sy; ++y) {
        const uint8_t *r = rec + 20 * (size_t)(z * sy + y);
        memcpy(&data[y * sz + z], r, sizeof *data);
        for (int b = 0; b < 18; ++b)
          rigid[(size_t)(b * sy * sz + y * sz + z)] = (int8_t)r[2 + b];
      }
    if (root) gs_gpr_geomobj_slabs_put_cells(f, x, data, rigid);
  }
  const gs_fdtd3_grid nodes = {{w->lo[0] + x, w->lo[1], w->lo[2]}, {1, 1, 1}, {1, ny, nz}};
  const gs_fdtd3_reader rd = {no_plane, node_record, (void *)ctx, 24};
  gs_fdtd3_gather(sp, sc, &nodes, &rd, rec);
  uint32_t *id = (uint32_t *)(void *)buf;
  for (int64_t z = 0; root && z < nz; ++z)
    for (int64_t y = 0; y < ny; ++y)
      for (int c = 0; c < 6; ++c)
        memcpy(&id[(size_t)(c * ny * nz + y * nz + z)], rec + 24 * (size_t)(z * ny + y) + 4 * c, sizeof *id);
  if (root) gs_gpr_geomobj_slabs_put_nodes(f, x, id);
}

static gs_status write_one_split(const gs_scene *sc, const gs_geometry3 *g, const gs_fdtd3_ranks *sp,
                                 const gs_geo_write *w, const char *dir, char *err, size_t errlen) {
  const int root = sp->rank == 0;
  const int64_t s[3] = {w->hi[0] - w->lo[0], w->hi[1] - w->lo[1], w->hi[2] - w->lo[2]};
  uint8_t *used = gs_xcalloc((size_t)g->nmat, 1);
  used_here(g, w, &sp->part, used);
  GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, used, g->nmat, MPI_UINT8_T, MPI_MAX, sp->comm));
  int *order = gs_xmalloc(sizeof *order * (size_t)g->nmat);
  uint32_t *map = gs_xcalloc((size_t)g->nmat, sizeof *map);
  const int n = gs_view_materials(g, used, order, map);
  const gs_gpr_geomobj meta = {.title = sc->title, .dxdydz = {sc->dx, sc->dy, sc->dz}, .size = {s[0], s[1], s[2]}};
  char path[2400];
  snprintf(path, sizeof path, "%s/%s.h5", dir, w->base);
  gs_gpr_layers *f = NULL;
  gs_status st = root ? gs_gpr_geomobj_slabs_open(path, &meta, &f, err, errlen) : GS_OK;
  st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  if (st == GS_OK) {
    const size_t nodes = (size_t)((s[1] + 1) * (s[2] + 1)); /* a plane's; more than its cells */
    uint8_t *rec = root ? gs_xmalloc(24 * nodes) : NULL, *buf = root ? gs_xmalloc(24 * nodes) : NULL;
    const geo_ctx ctx = {g, map};
    for (int64_t x = 0; x <= s[0]; ++x)
      put_plane(sc, sp, w, &ctx, x, rec, buf, f);
    free(rec);
    free(buf);
    st = root ? gs_gpr_layers_close(f) : GS_OK;
    snprintf(path, sizeof path, "%s/%s_materials.txt", dir, w->base);
    if (root && st == GS_OK) st = write_materials(path, sc, g, order, n, err, errlen);
    st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  }
  free(used);
  free(order);
  free(map);
  return st;
}

gs_status gs_geometry_objects_write_split(const gs_scene *sc, const gs_geometry3 *g, const gs_fdtd3_ranks *sp,
                                          const char *dir, char *err, size_t errlen) {
  gs_status st = GS_OK;
  for (int k = 0; k < sc->ngeo_writes && st == GS_OK; ++k)
    st = write_one_split(sc, g, sp, &sc->geo_writes[k], dir, err, errlen);
  return st;
}

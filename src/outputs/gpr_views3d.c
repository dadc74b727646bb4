/* gprMax's geometry views and snapshots of a 3D model (gpr_views3d.h). */
#include "gpr_views3d.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd3d_dist.h"
#include "fdtd3d_gather.h"
#include "fsutil.h"
#include "geometry_objects.h"
#include "gpr_views.h"
#include "gprmax_out.h"
#include "log.h"

static gs_gpr_box view_box(const gs_scene *sc, const int64_t lo[3], const int64_t step[3], const int64_t size[3]) {
  gs_gpr_box b;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  for (int a = 0; a < 3; ++a) {
    b.size[a] = size[a];
    b.origin[a] = (double)lo[a] * d[a];
    b.spacing[a] = (double)step[a] * d[a];
  }
  return b;
}

/* gprMax's pml_thickness of a view (Metadata.pml_gv_comment): the PML cells
 * between the view's start and the inner face, and between the inner face
 * and the view's stop as given (not its last sampled cell). */
static void view_pml(const gs_scene *sc, const gs_geometry_view *v, int64_t pml[6]) {
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  for (int a = 0; a < 3; ++a) {
    int64_t lo = sc->pml6[a], hi = sc->pml6[3 + a];
    pml[a] = v->lo[a] < lo ? lo - v->lo[a] : 0;
    pml[3 + a] = v->hi[a] > n[a] - hi ? v->hi[a] - (n[a] - hi) : 0;
  }
}

/* Sources and receivers as gprMax names them (HertzianDipole(i,j,k); the
 * receivers' names) with their positions in metres. Returns the count;
 * *ids, *names and *pos are freed by the caller. */
static int sources_receivers(const gs_scene *sc, int run, char (**ids)[80], const char ***names, double **pos) {
  int n = sc->nsources + sc->nrx, at = 0;
  *ids = gs_xcalloc((size_t)n + 1, sizeof **ids);
  *names = gs_xcalloc((size_t)n + 1, sizeof **names);
  *pos = gs_xcalloc(3 * (size_t)n + 3, sizeof **pos);
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  for (int k = 0; k < sc->nsources; ++k, ++at) {
    const gs_source *s = &sc->sources[k];
    const int64_t c[3] = {s->i + run * sc->src_di, s->j + run * sc->src_dj, s->k + run * sc->src_dk};
    snprintf((*ids)[at], sizeof(*ids)[at], "HertzianDipole(%lld,%lld,%lld)", (long long)c[0], (long long)c[1],
             (long long)c[2]);
    for (int a = 0; a < 3; ++a)
      (*pos)[3 * at + a] = (double)c[a] * d[a];
  }
  for (int k = 0; k < sc->nrx; ++k) {
    const gs_rx *r = &sc->rxs[k];
    if (r->hidden) continue;
    const int64_t c[3] = {r->i + run * sc->rx_di, r->j + run * sc->rx_dj, r->k + run * sc->rx_dk};
    snprintf((*ids)[at], sizeof(*ids)[at], "%s", r->name);
    for (int a = 0; a < 3; ++a)
      (*pos)[3 * at + a] = (double)c[a] * d[a];
    ++at;
  }
  for (int k = 0; k < at; ++k)
    (*names)[k] = (*ids)[k];
  return at;
}

/* Cell materials of a type n view, x fastest (gprMax's solid[lo:hi:step]). */
static uint32_t *voxel_materials(const gs_geometry3 *g, const gs_geometry_view *v) {
  uint32_t *cells = gs_xmalloc(sizeof *cells * (size_t)(v->size[0] * v->size[1] * v->size[2]) + 1);
  size_t at = 0;
  for (int64_t z = 0; z < v->size[2]; ++z)
    for (int64_t y = 0; y < v->size[1]; ++y)
      for (int64_t x = 0; x < v->size[0]; ++x)
        cells[at++] = g->solid[gs_geometry3_cell(g, v->lo[0] + x * v->step[0], v->lo[1] + y * v->step[1],
                                                 v->lo[2] + z * v->step[2])];
  return cells;
}

/* Edge materials of a type f view: per cell (x slowest) its Ex, Ey, Ez IDs,
 * numbered as the view lists the materials (map). */
static uint32_t *edge_materials(const gs_geometry3 *g, const gs_geometry_view *v, const uint32_t *map) {
  uint32_t *lines = gs_xmalloc(sizeof *lines * 3 * (size_t)(v->size[0] * v->size[1] * v->size[2]) + 1);
  size_t at = 0;
  for (int64_t x = 0; x < v->size[0]; ++x)
    for (int64_t y = 0; y < v->size[1]; ++y)
      for (int64_t z = 0; z < v->size[2]; ++z)
        for (int c = 0; c < 3; ++c)
          lines[at++] = map[g->id[c][gs_geometry3_node(g, v->lo[0] + x, v->lo[1] + y, v->lo[2] + z)]];
  return lines;
}

/* A view's metadata (gv, its data not set) and what holds it. */
typedef struct view_meta {
  gs_gpr_geometry gv;
  const char **mnames, **names;
  int *order;
  uint32_t *map; /* f: each material's index in the view's list */
  char (*ids)[80];
  double *pos;
} view_meta;

static void view_meta_make(view_meta *vm, const gs_scene *sc, const gs_geometry3 *g, int run,
                           const gs_geometry_view *v) {
  /* f lists every material, compounds sorted by name (gprMax's initialise_materials(filter_materials=False)) */
  vm->mnames = gs_xcalloc((size_t)g->nmat + 1, sizeof *vm->mnames);
  vm->order = gs_xmalloc(sizeof *vm->order * (size_t)g->nmat);
  vm->map = gs_xmalloc(sizeof *vm->map * (size_t)g->nmat);
  gs_view_materials(g, NULL, vm->order, vm->map);
  for (int k = 0; k < g->nmat; ++k)
    vm->mnames[k] = g->mat[v->fine ? vm->order[k] : k].name;
  vm->gv = (gs_gpr_geometry){.box = view_box(sc, v->lo, v->step, v->size),
                             .nmaterials = v->fine ? g->nmat : sc->nmaterials, /* the compounds only in f */
                             .material_names = vm->mnames,
                             .dxdydz = {sc->dx, sc->dy, sc->dz},
                             .nxnynz = {sc->nx, sc->ny, sc->nz},
                             .start = {v->lo[0], v->lo[1], v->lo[2]}};
  for (int s = 0; s < 6; ++s)
    vm->gv.pml_always |= sc->pml6[s] != 0;
  view_pml(sc, v, vm->gv.pml);
  int n = sources_receivers(sc, run, &vm->ids, &vm->names, &vm->pos), nsrc = sc->nsources;
  vm->gv.nsrc = nsrc;
  vm->gv.src_ids = vm->names;
  vm->gv.src_pos = vm->pos;
  vm->gv.nrx = n - nsrc;
  vm->gv.rx_ids = vm->names + nsrc;
  vm->gv.rx_pos = vm->pos + 3 * nsrc;
}

static void view_meta_free(view_meta *vm) {
  free(vm->ids);
  free(vm->names);
  free(vm->pos);
  free(vm->mnames);
  free(vm->order);
  free(vm->map);
}

static gs_status write_view(const gs_scene *sc, const gs_geometry3 *g, int run, const gs_geometry_view *v,
                            const char *path, char *err, size_t errlen) {
  view_meta vm;
  view_meta_make(&vm, sc, g, run, v);
  uint32_t *data = v->fine ? edge_materials(g, v, vm.map) : voxel_materials(g, v);
  vm.gv.material = data;
  gs_status st = v->fine ? gs_gpr_write_geometry_lines(path, &vm.gv, err, errlen)
                         : gs_gpr_write_geometry(path, &vm.gv, err, errlen);
  free(data);
  view_meta_free(&vm);
  return st;
}

gs_status gs_gpr3_write_views(const gs_scene *sc, const gs_geometry3 *g, int run, int runs, const char *dir, char *err,
                              size_t errlen) {
  gs_status st = GS_OK;
  for (int k = 0; k < sc->nviews && st == GS_OK; ++k) {
    char path[2048];
    gs_gpr_view_path(dir, sc->views[k].file, run, runs, path, sizeof path);
    st = write_view(sc, g, run, &sc->views[k], path, err, errlen);
  }
  return st;
}

/* The snapshot's sampled nodes of node plane z of all six fields into
 * layer[c] ((sx + 1) x (sy + 1), x fastest). */
static void sample_plane(gs_fdtd3_sim *m, const gs_snapshot_req *q, int64_t z, float *plane, float *const layer[6]) {
  const int64_t sx = q->size[0], sy = q->size[1];
  for (int c = 0; c < 6; ++c) {
    m->b->copy_d2h(plane, m->f[m->cur][c] + z * m->plane, sizeof(float) * (size_t)m->plane, m->s);
    m->b->stream_sync(m->s);
    for (int64_t y = 0; y <= sy; ++y)
      for (int64_t x = 0; x <= sx; ++x)
        layer[c][y * (sx + 1) + x] = plane[(q->lo[1] + y * q->step[1]) * m->pitch + q->lo[0] + x * q->step[0]];
  }
}

/* gprMax's cell values of one layer of cells between node layers a (below)
 * and b (above): E the mean of the four edges of the cell along its axis,
 * H the mean of the two faces across its axis (calculate_snapshot_fields). */
static void cell_layer(const gs_snapshot_req *q, float *const a[6], float *const b[6], int64_t z, float *const out[6]) {
  const int64_t sx = q->size[0], sy = q->size[1], w = sx + 1;
  for (int64_t y = 0; y < sy; ++y)
    for (int64_t x = 0; x < sx; ++x) {
      size_t n = (size_t)(y * w + x), o = (size_t)((z * sy + y) * sx + x);
      out[0][o] = (a[0][n] + a[0][n + w] + b[0][n] + b[0][n + w]) / 4;
      out[1][o] = (a[1][n] + a[1][n + 1] + b[1][n] + b[1][n + 1]) / 4;
      out[2][o] = (a[2][n] + a[2][n + 1] + a[2][n + w] + a[2][n + w + 1]) / 4;
      out[3][o] = (a[3][n] + a[3][n + 1]) / 2;
      out[4][o] = (a[4][n] + a[4][n + w]) / 2;
      out[5][o] = (a[5][n] + b[5][n]) / 2;
    }
}

static int layered(const char *path) {
  size_t n = strlen(path);
  return n > 7 && !strcmp(path + n - 7, ".vtkhdf");
}

gs_status gs_gpr3_take_snapshot(gs_fdtd3_sim *m, const gs_snapshot_req *q, const char *path, char *err, size_t errlen) {
  /* .vtkhdf: one layer of cells at a time; .h5 and .vti: the whole box, then written */
  const int by_layer = layered(path);
  const size_t layer = (size_t)(q->size[0] * q->size[1]), cells = by_layer ? layer : layer * (size_t)q->size[2];
  const size_t nodes = (size_t)((q->size[0] + 1) * (q->size[1] + 1));
  gs_gpr_box box = view_box(m->sc, q->lo, q->step, q->size);
  gs_gpr_layers *w = NULL;
  if (by_layer) {
    gs_status st = gs_gpr_layers_open(path, &box, &w, err, errlen);
    if (st != GS_OK) return st;
  }
  float *store = gs_xmalloc(sizeof(float) * 6 * cells + 1), *layers = gs_xmalloc(sizeof(float) * 12 * nodes);
  float *plane = gs_xmalloc(sizeof(float) * (size_t)m->plane), *fields[6], *lo[6], *hi[6];
  for (int c = 0; c < 6; ++c) {
    fields[c] = store + (size_t)c * cells;
    lo[c] = layers + (size_t)c * nodes;
    hi[c] = layers + (size_t)(6 + c) * nodes;
  }
  const float *const cf[6] = {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]};
  gs_fdtd3_sim_sync(m);
  sample_plane(m, q, q->lo[2], plane, lo);
  for (int64_t z = 0; z < q->size[2]; ++z) {
    sample_plane(m, q, q->lo[2] + (z + 1) * q->step[2], plane, hi);
    cell_layer(q, lo, hi, by_layer ? 0 : z, fields);
    if (by_layer) gs_gpr_layers_put(w, z, cf);
    for (int c = 0; c < 6; ++c) { /* the upper layer is the next one's lower */
      float *t = lo[c];
      lo[c] = hi[c];
      hi[c] = t;
    }
  }
  gs_status st = by_layer ? gs_gpr_layers_close(w)
                          : gs_gpr_write_snapshot(path, &box, (double)q->iteration * m->sc->dt, cf, err, errlen);
  free(plane);
  free(layers);
  free(store);
  return st;
}

/* Sampled node layer z of snapshot q over the ranks into layer[c] on rank 0
 * (as sample_plane; rec: (sx + 1) (sy + 1) records of the six fields). */
static void gather_node_layer(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, const gs_snapshot_req *q, int64_t z,
                              const gs_fdtd3_reader *rd, float *rec, float *const layer[6]) {
  const gs_fdtd3_grid g = {{q->lo[0], q->lo[1], q->lo[2] + z * q->step[2]},
                           {q->step[0], q->step[1], 1},
                           {q->size[0] + 1, q->size[1] + 1, 1}};
  gs_fdtd3_gather(sp, m->sc, &g, rd, rec);
  if (sp->rank != 0) return;
  const size_t nodes = (size_t)(g.count[0] * g.count[1]);
  for (size_t n = 0; n < nodes; ++n)
    for (int c = 0; c < 6; ++c)
      layer[c][n] = rec[6 * n + (size_t)c];
}

/* The node layers of a snapshot on rank 0, layer by layer into w (NULL elsewhere). */
static void snapshot_layers(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, const gs_snapshot_req *q, gs_gpr_layers *w) {
  const int root = sp->rank == 0;
  const size_t nodes = (size_t)((q->size[0] + 1) * (q->size[1] + 1)), cells = (size_t)(q->size[0] * q->size[1]);
  float *rec = root ? gs_xmalloc(sizeof(float) * 6 * nodes) : NULL;
  float *layers = root ? gs_xmalloc(sizeof(float) * 12 * nodes) : NULL;
  float *store = root ? gs_xmalloc(sizeof(float) * 6 * cells) : NULL, *fields[6], *lo[6], *hi[6];
  for (int c = 0; c < 6; ++c) {
    fields[c] = root ? store + (size_t)c * cells : NULL;
    lo[c] = root ? layers + (size_t)c * nodes : NULL;
    hi[c] = root ? layers + (size_t)(6 + c) * nodes : NULL;
  }
  const float *const cf[6] = {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]};
  const void *dev[6];
  size_t elem[6];
  for (int c = 0; c < 6; ++c) {
    dev[c] = m->f[m->cur][c];
    elem[c] = sizeof(float);
  }
  gs_fdtd3_reader rd = gs_fdtd3_field_reader(m, 6, dev, elem);
  gather_node_layer(m, sp, q, 0, &rd, rec, lo);
  for (int64_t z = 0; z < q->size[2]; ++z) {
    gather_node_layer(m, sp, q, z + 1, &rd, rec, hi);
    if (root) {
      cell_layer(q, lo, hi, 0, fields); /* rank 0's arithmetic: one rank's */
      gs_gpr_layers_put(w, z, cf);
    }
    for (int c = 0; c < 6; ++c) {
      float *t = lo[c];
      lo[c] = hi[c];
      hi[c] = t;
    }
  }
  gs_fdtd3_field_reader_free(&rd);
  free(rec);
  free(layers);
  free(store);
}

gs_status gs_gpr3_take_snapshot_split(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, const gs_snapshot_req *q,
                                      const char *path, char *err, size_t errlen) {
  gs_gpr_box box = view_box(m->sc, q->lo, q->step, q->size);
  gs_gpr_layers *w = NULL;
  gs_status st = sp->rank == 0
                     ? gs_gpr_snapshot_layers_open(path, &box, (double)q->iteration * m->sc->dt, &w, err, errlen)
                     : GS_OK;
  st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  if (st != GS_OK) return st;
  gs_fdtd3_sim_sync(m);
  snapshot_layers(m, sp, q, w);
  st = sp->rank == 0 ? gs_gpr_layers_close(w) : GS_OK;
  return gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
}

/* A part's geometry read for a view: each cell's material. */
static void no_plane(void *ctx, int64_t k) {
  (void)ctx, (void)k;
}
static void cell_material(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst) {
  const gs_geometry3 *g = ctx;
  memcpy(dst, &g->solid[gs_geometry3_cell(g, i, j, k)], sizeof(uint32_t));
}

/* A part's node read for a fine view: its Ex, Ey, Ez materials, numbered as the view lists them. */
typedef struct edge_ctx {
  const gs_geometry3 *g;
  const uint32_t *map;
} edge_ctx;
static void edge_ids(void *ctx, int64_t i, int64_t j, int64_t k, uint8_t *dst) {
  const edge_ctx *e = ctx;
  for (int c = 0; c < 3; ++c) {
    const uint32_t v = e->map[e->g->id[c][gs_geometry3_node(e->g, i, j, k)]];
    memcpy(dst + 4 * c, &v, sizeof v);
  }
}

/* A type f view over the ranks: rank 0 writes its materials one x plane of
 * cells at a time (the file's order: y, then z fastest, then the 3 edges). */
static void fine_view_planes(const gs_scene *sc, const gs_geometry3 *g, const gs_fdtd3_ranks *sp,
                             const gs_geometry_view *v, const uint32_t *map, gs_gpr_layers *w) {
  const int root = sp->rank == 0;
  const int64_t sy = v->size[1], sz = v->size[2];
  uint32_t *got = root ? gs_xmalloc(sizeof *got * 3 * (size_t)(sy * sz)) : NULL;
  uint32_t *plane = root ? gs_xmalloc(sizeof *plane * 3 * (size_t)(sy * sz)) : NULL;
  edge_ctx ctx = {g, map};
  const gs_fdtd3_reader rd = {no_plane, edge_ids, &ctx, 3 * sizeof(uint32_t)};
  for (int64_t x = 0; x < v->size[0]; ++x) {
    const gs_fdtd3_grid grid = {{v->lo[0] + x, v->lo[1], v->lo[2]}, {1, 1, 1}, {1, sy, sz}};
    gs_fdtd3_gather(sp, sc, &grid, &rd, got); /* z slowest: turned to z fastest */
    if (!root) continue;
    for (int64_t z = 0; z < sz; ++z)
      for (int64_t y = 0; y < sy; ++y)
        memcpy(plane + 3 * (y * sz + z), got + 3 * (z * sy + y), 3 * sizeof *plane);
    gs_gpr_lines_slabs_put(w, x, plane);
  }
  free(got);
  free(plane);
}

/* A type n view's cells over the ranks, one layer of cells at a time into w on rank 0. */
static void voxel_view_layers(const gs_scene *sc, gs_geometry3 *g, const gs_fdtd3_ranks *sp, const gs_geometry_view *v,
                              gs_gpr_layers *w) {
  const int root = sp->rank == 0;
  uint32_t *layer = root ? gs_xmalloc(sizeof *layer * (size_t)(v->size[0] * v->size[1])) : NULL;
  const gs_fdtd3_reader rd = {no_plane, cell_material, g, sizeof(uint32_t)};
  for (int64_t z = 0; z < v->size[2]; ++z) {
    const gs_fdtd3_grid grid = {
        {v->lo[0], v->lo[1], v->lo[2] + z * v->step[2]}, {v->step[0], v->step[1], 1}, {v->size[0], v->size[1], 1}};
    gs_fdtd3_gather(sp, sc, &grid, &rd, layer);
    if (root) gs_gpr_layers_put_u32(w, z, layer);
  }
  free(layer);
}

/* A view over the ranks: rank 0 writes it as the parts send their pieces. */
static gs_status write_view_split(const gs_scene *sc, gs_geometry3 *g, const gs_fdtd3_ranks *sp, int run,
                                  const gs_geometry_view *v, const char *path, char *err, size_t errlen) {
  const int root = sp->rank == 0;
  view_meta vm;
  view_meta_make(&vm, sc, g, run, v);
  gs_gpr_layers *w = NULL;
  gs_status st = !root     ? GS_OK
                 : v->fine ? gs_gpr_lines_slabs_open(path, &vm.gv, &w, err, errlen)
                           : gs_gpr_geometry_layers_open(path, &vm.gv, &w, err, errlen);
  st = gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
  if (st != GS_OK) {
    view_meta_free(&vm);
    return st;
  }
  if (v->fine)
    fine_view_planes(sc, g, sp, v, vm.map, w);
  else
    voxel_view_layers(sc, g, sp, v, w);
  st = root ? gs_gpr_layers_close(w) : GS_OK;
  view_meta_free(&vm);
  return gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
}

gs_status gs_gpr3_geometry_outputs_split(const gs_scene *sc, const gs_fdtd3_ranks *sp, int run, int runs,
                                         const char *dir, char *err, size_t errlen) {
  if (!sc->nviews && !sc->ngeo_writes) return GS_OK;
  gs_mat3 *mats = gs_fdtd3_materials(sc);
  gs_geometry3 g, plane;
  gs_status st = gs_fdtd3_dist_geometry(&g, &plane, sc, mats, sp, err, errlen);
  free(mats);
  if (st != GS_OK) {
    gs_geometry3_where(err, errlen, sc->path);
    return st;
  }
  gs_geometry3_free(&plane);
  for (int k = 0; k < sc->nviews && st == GS_OK; ++k) {
    char path[2048];
    gs_gpr_view_path(dir, sc->views[k].file, run, runs, path, sizeof path);
    st = write_view_split(sc, &g, sp, run, &sc->views[k], path, err, errlen);
  }
  if (st == GS_OK) st = gs_geometry_objects_write_split(sc, &g, sp, dir, err, errlen);
  gs_geometry3_free(&g);
  return st;
}

double gs_gpr3_outputs_host_bytes(const gs_scene *sc) {
  double most = 0;
  for (int k = 0; k < sc->nviews; ++k) {
    const gs_geometry_view *v = &sc->views[k];
    double cells = (double)v->size[0] * (double)v->size[1] * (double)v->size[2];
    /* f: points (24 bytes a node), per cell three lines of material, connectivity, offset and type */
    double need = v->fine ? 24.0 * (double)(v->size[0] + 1) * (double)(v->size[1] + 1) * (double)(v->size[2] + 1) +
                                3.0 * (4 + 8 + 4 + 1) * cells
                          : 4.0 * cells;
    most = need > most ? need : most;
  }
  int64_t pitch, plane, count;
  gs_fdtd3_layout(sc->nx, sc->ny, sc->nz, &pitch, &plane, &count);
  for (int k = 0; k < sc->nsnaps; ++k) {
    const gs_snapshot_req *q = &sc->snaps[k];
    double cells = (double)q->size[0] * (double)q->size[1] * (layered(q->file) ? 1.0 : (double)q->size[2]);
    double need = 24.0 * cells + 48.0 * (double)(q->size[0] + 1) * (double)(q->size[1] + 1) + 4.0 * (double)plane;
    most = need > most ? need : most;
  }
  for (int k = 0; k < sc->ngeo_writes; ++k) { /* data, rigid flags, then per node six IDs */
    const gs_geo_write *w = &sc->geo_writes[k];
    const double sx = (double)(w->hi[0] - w->lo[0]), sy = (double)(w->hi[1] - w->lo[1]),
                 sz = (double)(w->hi[2] - w->lo[2]);
    double need = 20.0 * sx * sy * sz + 24.0 * (sx + 1) * (sy + 1) * (sz + 1);
    most = need > most ? need : most;
  }
  double held = 0; /* #geometry_objects_read's arrays, held by the scene for the whole run */
  for (int k = 0; k < sc->ngeo_reads; ++k) {
    const gs_obj3_array *a = sc->objs3[sc->geo_reads[k].obj].array;
    if (!a) continue;
    double cells = (double)a->size[0] * (double)a->size[1] * (double)a->size[2];
    held += 6.0 * cells +
            (a->id ? 24.0 * (double)(a->size[0] + 1) * (double)(a->size[1] + 1) * (double)(a->size[2] + 1) : 0.0);
  }
  return most + held;
}

gs_status gs_gpr3_geometry_outputs(const gs_scene *sc, int run, int runs, const char *dir, char *err, size_t errlen) {
  if (!sc->nviews && !sc->ngeo_writes) return GS_OK;
  gs_mat3 *mats = gs_fdtd3_materials(sc);
  gs_geometry3 g;
  gs_status st = gs_geometry3_build(&g, sc->nx, sc->ny, sc->nz, sc->dx, sc->dy, sc->dz, mats, sc->nmaterials, sc->objs3,
                                    sc->nobjs3, err, errlen);
  free(mats);
  if (st != GS_OK) {
    gs_geometry3_where(err, errlen, sc->path);
    return st;
  }
  st = gs_gpr3_write_views(sc, &g, run, runs, dir, err, errlen);
  if (st == GS_OK) st = gs_geometry_objects_write(sc, &g, dir, err, errlen);
  gs_geometry3_free(&g);
  return st;
}

int64_t gs_gpr3_next_snapshot(const gs_scene *sc, int64_t after) {
  int64_t next = sc->iterations;
  for (int k = 0; k < sc->nsnaps; ++k)
    if (sc->snaps[k].iteration - 1 > after && sc->snaps[k].iteration - 1 < next) next = sc->snaps[k].iteration - 1;
  return next;
}

int gs_gpr3_snapshots_due(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, const char *dir, const char *model, int runs,
                          int say) {
  const gs_scene *sc = m->sc;
  const int root = !sp || sp->rank == 0;
  int failed = 0;
  for (int k = 0; k < sc->nsnaps; ++k) {
    if (sc->snaps[k].iteration - 1 != m->step) continue;
    char sdir[2048], path[2400], err[2600];
    if (runs > 1)
      snprintf(sdir, sizeof sdir, "%s/%s%d_snaps", dir, model, m->run + 1);
    else
      snprintf(sdir, sizeof sdir, "%s/%s_snaps", dir, model);
    snprintf(path, sizeof path, "%s/%s", sdir, sc->snaps[k].file);
    gs_status st = GS_OK;
    if (root && gs_mkdirs(sdir, 1) != 0) { /* rank 0 writes every file */
      snprintf(err, sizeof err, "%s: %s", sdir, strerror(errno));
      st = GS_ERR_IO;
    }
    if (sp) st = gs_fdtd3_dist_agree(st, sp->comm, err, sizeof err);
    if (st == GS_OK)
      st = sp ? gs_gpr3_take_snapshot_split(m, sp, &sc->snaps[k], path, err, sizeof err)
              : gs_gpr3_take_snapshot(m, &sc->snaps[k], path, err, sizeof err);
    if (st == GS_OK) continue;
    if (root && say && !failed) gs_log_error("fdtd: snapshot: %s", err);
    ++failed;
  }
  return failed;
}

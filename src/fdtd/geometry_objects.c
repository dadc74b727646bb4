/* gprMax's #geometry_objects_write and #geometry_objects_read (geometry_objects.h). */
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
    if (root && st == GS_OK) st = write_materials(path, g, order, n, err, errlen);
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

/* A file named in the input: as given when it exists there, else in the
 * input file's folder (gprMax's rule). */
static void input_path(const gs_parser *p, const char *name, char *out, size_t n) {
  if (name[0] == '/' || access(name, F_OK) == 0)
    snprintf(out, n, "%s", name);
  else
    snprintf(out, n, "%s%s", p->base_dir, name);
}

/* #geometry_objects_read: x y z geometry.h5 materials.txt (3D models). */
int gs_cmd_geometry_objects_read(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#geometry_objects_read: only in 3D models here");
  double v[3];
  gs_geo_read r;
  memset(&r, 0, sizeof r);
  if (gs_parse_args(p, c, 0, 3, v) || gs_point_cells(p, v, r.lo, 1, c->name)) return -1;
  if (strlen(c->arg[3]) > 1000 || strlen(c->arg[4]) > 1000)
    return gs_perr(p, "#geometry_objects_read: a file name of more than 1000 characters");
  input_path(p, c->arg[3], r.geo, sizeof r.geo);
  input_path(p, c->arg[4], r.mat, sizeof r.mat);
  gs_scene_add_input(p->s, r.geo, p->line, c->name);
  gs_scene_add_input(p->s, r.mat, p->line, c->name);
  if (p->s->ngeo_reads >= 100) return gs_perr(p, "#geometry_objects_read: more than 100 files");
  if (p->s->nobjs3 >= 1000000) return gs_perr(p, "#geometry_objects_read: more than 10^6 objects");
  r.obj = p->s->nobjs3;
  r.line = p->line;
  GROW(p->s->objs3, p->s->nobjs3);
  p->s->objs3[p->s->nobjs3++] =
      (gs_obj3){.type = GS_O3_ARRAY, .v = {(double)r.lo[0], (double)r.lo[1], (double)r.lo[2]}, .line = p->line};
  GROW(p->s->geo_reads, p->s->ngeo_reads);
  p->s->geo_reads[p->s->ngeo_reads++] = r;
  return 0;
}

/* One material line of a materials list: `#material: er se mr sm name`;
 * 0, or -1 with the reason in why. */
static int material_line(char *line, gs_material *m, char *name, size_t nlen, char *why, size_t wlen) {
  char cmd[64], tok[4][64], extra[8];
  int n = sscanf(line, "%63s %63s %63s %63s %63s %159s %7s", cmd, tok[0], tok[1], tok[2], tok[3], name, extra);
  if (strcmp(cmd, "#material:") != 0) {
    snprintf(why, wlen, "'%.40s': only #material lines are read here (dispersive materials are not supported)", cmd);
    return -1;
  }
  /* the numbers as the scene takes them (plain decimals, finite, at most 1e30); sigma may be inf (pec) */
  double er = 0, sigma = 0, mr = 0, sm = -1;
  int inf = n >= 3 && !strcmp(tok[1], "inf");
  int numbers = n >= 5 && !gs_scene_number(tok[0], &er) && (inf || !gs_scene_number(tok[1], &sigma)) &&
                !gs_scene_number(tok[2], &mr) && !gs_scene_number(tok[3], &sm);
  if (n != 6 || !numbers || !(sigma >= 0) || !(er >= 1) || !(mr >= 1) || !(sm >= 0) || strlen(name) >= nlen) {
    snprintf(why, wlen,
             "not '#material: er sigma mu_r sigma_m name' with er, mu_r >= 1, the losses >= 0 (plain decimals up to "
             "1e30; sigma may be inf)");
    return -1;
  }
  *m = (gs_material){.er = er, .sigma = inf ? 0 : sigma, .mr = mr, .sm = sm, .pec = inf};
  return 0;
}

/* The materials list of read r appended to the scene as gprMax imports it:
 * `#` lines (not `##`), each name suffixed with {LIST} (the list's file name
 * without its extension); a leading pec line (and free_space after it), or a
 * leading free_space line, written as gprMax writes them is dropped. *offset:
 * gprMax's numexistmaterials, what the file's numbers are shifted by. */
static int import_materials(gs_scene *s, const gs_geo_read *r, int *offset, char *err, size_t errlen) {
  gs_status st;
  char why[512], line[4096], list[256], prev[4096] = "";
  FILE *f = gs_fopen_regular(r->mat, &st, why, sizeof why);
  if (!f) return snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why), -1;
  const char *base = strrchr(r->mat, '/') ? strrchr(r->mat, '/') + 1 : r->mat, *dot = strrchr(base, '.');
  snprintf(list, sizeof list, "%.*s", (int)(dot && dot != base ? dot - base : (ptrdiff_t)strlen(base)), base);
  int existing = s->nmaterials, seen = 0, popped = 0, lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof line, f)) {
    ++lineno;
    size_t n = strlen(line);
    if (n == sizeof line - 1 && line[n - 1] != '\n') {
      bad = snprintf(err, errlen, "%s:%d: a line of more than %zu characters", r->mat, lineno, sizeof line - 2);
      break;
    }
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
      line[--n] = 0;
    if (line[0] != '#' || line[1] == '#' || !n) continue;
    ++seen;
    int is_pec = !strcmp(line, "#material: 1 inf 1 0 pec"), is_free = !strcmp(line, "#material: 1 0 1 0 free_space");
    if ((seen == 1 && (is_pec || is_free)) || (seen == 2 && popped == 1 && is_free && !strcmp(prev, "pec"))) {
      ++popped;
      snprintf(prev, sizeof prev, "%s", is_pec ? "pec" : "free_space");
      continue;
    }
    prev[0] = 0;
    gs_material m;
    char name[160];
    if (material_line(line, &m, name, sizeof name, why, sizeof why)) {
      bad = snprintf(err, errlen, "%s:%d: %s", r->mat, lineno, why);
      break;
    }
    char full[512];
    snprintf(full, sizeof full, "%s{%s}", name, list);
    if (strlen(full) >= sizeof m.name) {
      bad = snprintf(err, errlen, "%s:%d: the name '%s' is longer than %zu characters", r->mat, lineno, full,
                     sizeof m.name - 1);
      break;
    }
    memcpy(m.name, full, strlen(full) + 1);
    if (gs_find_material(s, m.name) >= 0)
      bad = snprintf(err, errlen, "%s:%d: material '%s' is already defined", r->mat, lineno, m.name);
    else if (s->nmaterials >= 200)
      bad = snprintf(err, errlen, "%s:%d: more than 200 materials", r->mat, lineno);
    else {
      GROW(s->materials, s->nmaterials);
      s->materials[s->nmaterials++] = m;
    }
  }
  if (!bad && ferror(f)) bad = snprintf(err, errlen, "%s: read error", r->mat);
  if (!bad && !seen) bad = snprintf(err, errlen, "%s: no #material lines", r->mat);
  fclose(f);
  *offset = existing - popped;
  return bad ? -1 : 0;
}

/* The file's arrays as the geometry build takes them. */
static gs_obj3_array *to_array(gs_gpr_geomobj_in *in, int offset) {
  gs_obj3_array *a = gs_xcalloc(1, sizeof *a);
  memcpy(a->size, in->size, sizeof a->size);
  a->data = in->data;
  a->id = in->id;
  a->offset = offset;
  if (in->rigid) {
    size_t n = (size_t)(in->size[0] * in->size[1] * in->size[2]);
    a->rigid = gs_xcalloc(n + 1, sizeof *a->rigid);
    for (int b = 0; b < 18; ++b)
      for (size_t q = 0; q < n; ++q)
        a->rigid[q] |= (uint32_t)(in->rigid[(size_t)b * n + q] != 0) << b;
    free(in->rigid);
  }
  memset(in, 0, sizeof *in);
  return a;
}

/* FNV-1a of n bytes into the scene's hash (the scene and the files it reads). */
static uint64_t fold(uint64_t h, const void *bytes, size_t n) {
  const unsigned char *b = bytes;
  for (size_t k = 0; k < n; ++k)
    h = (h ^ b[k]) * 0x100000001B3ull;
  return h;
}

static void hash_array(gs_scene *s, const gs_obj3_array *a, int first_material) {
  size_t cells = (size_t)(a->size[0] * a->size[1] * a->size[2]);
  s->hash = fold(s->hash, a->size, sizeof a->size);
  s->hash = fold(s->hash, a->data, cells * sizeof *a->data);
  if (a->rigid) s->hash = fold(s->hash, a->rigid, cells * sizeof *a->rigid);
  if (a->id)
    s->hash =
        fold(s->hash, a->id, 6 * (size_t)((a->size[0] + 1) * (a->size[1] + 1) * (a->size[2] + 1)) * sizeof *a->id);
  for (int k = first_material; k < s->nmaterials; ++k) {
    const gs_material *m = &s->materials[k];
    const double v[4] = {m->er, m->sigma, m->mr, m->sm};
    s->hash = fold(fold(s->hash, m->name, strlen(m->name)), v, sizeof v);
  }
}

int gs_scene_resolve_geometry_reads(gs_scene *s, double host_bytes, char *err, size_t errlen) {
  for (int k = 0; k < s->ngeo_reads; ++k) {
    const gs_geo_read *r = &s->geo_reads[k];
    int offset, first = s->nmaterials;
    if (import_materials(s, r, &offset, err, errlen)) return -1;
    gs_status st;
    char why[1024];
    FILE *probe = gs_fopen_regular(r->geo, &st, why, sizeof why); /* a FIFO or folder is refused, not opened */
    if (!probe) return snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why), -1;
    fclose(probe);
    gs_gpr_geomobj_in in;
    double cells = (double)s->nx * (double)s->ny * (double)s->nz;
    int64_t most = cells * 8 < 4294967296.0 ? (int64_t)(cells * 8) : (int64_t)4294967296LL;
    /* The file is read before the model's memory check: its own size is weighed against the rank's
     * host memory first (a few bytes of HDF5 may declare a dataset of 10^9 cells never written;
     * every rank of the node reads it). */
    const double room = host_bytes / GS_GEOMOBJ_READ_BYTES_PER_CELL;
    if (room > 0 && room < (double)most) most = room >= 1 ? (int64_t)room : 1;
    if (gs_gpr_read_geometry_object(r->geo, most, &in, why, sizeof why) != GS_OK) {
      snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why);
      return -1;
    }
    if (in.dxdydz[0] != s->dx || in.dxdydz[1] != s->dy || in.dxdydz[2] != s->dz) {
      snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s: its cells (%g x %g x %g m) are not the model's",
               s->path, r->line, r->geo, in.dxdydz[0], in.dxdydz[1], in.dxdydz[2]);
      gs_gpr_geomobj_in_free(&in);
      return -1;
    }
    s->objs3[r->obj].array = to_array(&in, offset);
    hash_array(s, s->objs3[r->obj].array, first);
  }
  return 0;
}

void gs_scene_free_geometry_reads(gs_scene *s) {
  for (int k = 0; k < s->ngeo_reads; ++k) {
    int o = s->geo_reads[k].obj;
    if (o >= s->nobjs3 || !s->objs3[o].array) continue;
    gs_obj3_array *a = (gs_obj3_array *)s->objs3[o].array;
    free(a->data);
    free(a->rigid);
    free(a->id);
    free(a);
    s->objs3[o].array = NULL;
  }
}

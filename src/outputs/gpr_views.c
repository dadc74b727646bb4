/* gprMax's snapshot and geometry-view files (gpr_views.h). */
#include "gpr_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "gprmax_out.h"

/* gprMax numbers pec 0 and free_space 1; the scene has them the other way. */
static uint32_t gprmax_id(int m) {
  return m == 0 ? 1u : m == 1 ? 0u : (uint32_t)m;
}

static gs_gpr_box file_box(const gs_scene *sc, const int64_t lo[3], const int64_t step[3], const int64_t size[3]) {
  gs_gpr_box b;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  for (int k = 0; k < 3; ++k) {
    int f = sc->axis[k];
    b.size[f] = size[f];
    b.origin[f] = (double)lo[f] * d[k];
    b.spacing[f] = (double)step[f] * d[k];
  }
  return b;
}

/* The cell materials of view v, x fastest in the file's axes. */
static uint32_t *view_cells(const gs_scene *sc, const gs_geometry_view *v, const gs_geometry *g) {
  size_t n = (size_t)(v->size[0] * v->size[1] * v->size[2]);
  uint32_t *cells = gs_xmalloc(sizeof *cells * n + 1);
  for (int64_t z = 0; z < v->size[2]; ++z)
    for (int64_t y = 0; y < v->size[1]; ++y)
      for (int64_t x = 0; x < v->size[0]; ++x) {
        int64_t f[3] = {v->lo[0] + x * v->step[0], v->lo[1] + y * v->step[1], v->lo[2] + z * v->step[2]};
        int64_t i = f[sc->axis[0]], j = f[sc->axis[1]];
        i = i >= sc->nx ? sc->nx - 1 : i;
        j = j >= sc->ny ? sc->ny - 1 : j;
        cells[(size_t)((z * v->size[1] + y) * v->size[0] + x)] = gprmax_id(gs_geometry_cell(g, i, j));
      }
  return cells;
}

static gs_status write_view(const gs_scene *sc, int run, const gs_geometry_view *v, const gs_geometry *g,
                            const char *path, char *err, size_t errlen) {
  const char *names[GS_FDTD_MAX_MATERIALS];
  int nm = sc->nmaterials < GS_FDTD_MAX_MATERIALS ? sc->nmaterials : GS_FDTD_MAX_MATERIALS;
  for (int k = 0; k < nm; ++k)
    names[gprmax_id(k)] = sc->materials[k].name;
  uint32_t *cells = view_cells(sc, v, g);
  gs_gpr_geometry gv = {
      .box = file_box(sc, v->lo, v->step, v->size), .material = cells, .nmaterials = nm, .material_names = names};
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  const int64_t n[3] = {sc->nx, sc->ny, 1};
  for (int k = 0; k < 3; ++k) {
    gv.dxdydz[sc->axis[k]] = d[k];
    gv.nxnynz[sc->axis[k]] = n[k];
  }
  for (int s = 0; s < 4; ++s) /* frame x- y- x+ y+ to the file's x0 y0 z0 xmax ymax zmax */
    gv.pml[sc->axis[s % 2] + (s < 2 ? 0 : 3)] = sc->pml[s];
  /* Sources and receivers as gprMax lists them: HertzianDipole(i,j,k) and the receivers' names. */
  char(*ids)[80] = gs_xcalloc((size_t)(sc->nsources + sc->nrx) + 1, sizeof *ids);
  const char **idp = gs_xcalloc((size_t)(sc->nsources + sc->nrx) + 1, sizeof *idp);
  double *pos = gs_xcalloc(3 * (size_t)(sc->nsources + sc->nrx) + 3, sizeof *pos);
  int n_ids = 0;
  for (int k = 0; k < sc->nsources; ++k, ++n_ids) {
    int64_t c3[3];
    c3[sc->axis[0]] = sc->sources[k].i + run * sc->src_di;
    c3[sc->axis[1]] = sc->sources[k].j + run * sc->src_dj;
    c3[sc->axis[2]] = 0;
    snprintf(ids[n_ids], sizeof ids[n_ids], "HertzianDipole(%lld,%lld,%lld)", (long long)c3[0], (long long)c3[1],
             (long long)c3[2]);
    for (int a = 0; a < 3; ++a)
      pos[3 * n_ids + a] = (double)c3[a] * gv.dxdydz[a];
  }
  int first_rx = n_ids;
  for (int k = 0; k < sc->nrx; ++k) {
    if (sc->rxs[k].hidden) continue;
    snprintf(ids[n_ids], sizeof ids[n_ids], "%s", sc->rxs[k].name);
    int64_t c3[3];
    c3[sc->axis[0]] = sc->rxs[k].i + run * sc->rx_di;
    c3[sc->axis[1]] = sc->rxs[k].j + run * sc->rx_dj;
    c3[sc->axis[2]] = sc->rxs[k].offplane;
    for (int a = 0; a < 3; ++a)
      pos[3 * n_ids + a] = (double)c3[a] * gv.dxdydz[a];
    ++n_ids;
  }
  for (int k = 0; k < n_ids; ++k)
    idp[k] = ids[k];
  gv.nsrc = first_rx;
  gv.src_ids = idp;
  gv.src_pos = pos;
  gv.nrx = n_ids - first_rx;
  gv.rx_ids = idp + first_rx;
  gv.rx_pos = pos + 3 * first_rx;
  gs_status st = gs_gpr_write_geometry(path, &gv, err, errlen);
  free(ids);
  free(idp);
  free(pos);
  free(cells);
  return st;
}

void gs_gpr_view_path(const char *dir, const char *file, int run, int runs, char *out, size_t n) {
  const char *dot = strrchr(file, '.');
  if (runs > 1 && dot)
    snprintf(out, n, "%s/%.*s%d%s", dir, (int)(dot - file), file, run + 1, dot);
  else
    snprintf(out, n, "%s/%s", dir, file);
}

gs_status gs_gpr_write_views(const gs_scene *sc, int run, int runs, const char *dir, char *err, size_t errlen) {
  if (!sc->nviews) return GS_OK;
  gs_geometry g;
  gs_geometry_build(&g, sc, 0, sc->nx + 1, 0, sc->ny + 1);
  gs_status st = GS_OK;
  for (int k = 0; k < sc->nviews && st == GS_OK; ++k) {
    char path[2048];
    gs_gpr_view_path(dir, sc->views[k].file, run, runs, path, sizeof path);
    st = write_view(sc, run, &sc->views[k], &g, path, err, errlen);
  }
  gs_geometry_free(&g);
  return st;
}

/* This rank's samples of the frame's Ez, Hx, Hy at the snapshot's nodes
 * ((na + 1) x (nb + 1), a fastest; 0 where another rank owns the node). */
static void local_samples(gs_fdtd_sim *m, const gs_snapshot_req *q, int64_t na, int64_t nb, float *out) {
  const gs_scene *sc = m->sc;
  const gs_fdtd_part *own = &m->grid.own;
  int64_t la = q->lo[sc->axis[0]], sa = q->step[sc->axis[0]], lb = q->lo[sc->axis[1]], sb = q->step[sc->axis[1]];
  float *row = gs_xmalloc(sizeof(float) * (size_t)m->grid.pitch);
  size_t plane = (size_t)((na + 1) * (nb + 1));
  for (int64_t mb = 0; mb <= nb; ++mb) {
    int64_t j = lb + mb * sb;
    if (j < own->j0 || j >= own->j1) continue;
    for (int f = 0; f < 3; ++f) {
      gs_fdtd_sim_read_rows(m, f, j, j + 1, row);
      for (int64_t ma = 0; ma <= na; ++ma) {
        int64_t i = la + ma * sa;
        if (i >= own->i0 && i < own->i1)
          out[(size_t)f * plane + (size_t)(mb * (na + 1) + ma)] = row[i - own->i0 + m->grid.g];
      }
    }
  }
  free(row);
}

/* gprMax's cell values from the node samples: E the mean of the cell's four
 * corners, H the mean of the two ends along its own axis. */
static void cell_values(const gs_scene *sc, const float *s, int64_t na, int64_t nb, float *const fields[6]) {
  int comp[3];
  gs_scene_components(sc, comp);
  size_t plane = (size_t)((na + 1) * (nb + 1));
  const float *e = s, *hx = s + plane, *hy = s + 2 * plane;
  for (int64_t mb = 0; mb < nb; ++mb)
    for (int64_t ma = 0; ma < na; ++ma) {
      size_t n = (size_t)(mb * (na + 1) + ma), up = n + (size_t)(na + 1);
      int64_t f[3];
      f[sc->axis[0]] = ma;
      f[sc->axis[1]] = mb;
      f[sc->axis[2]] = 0;
      int64_t size[3];
      size[sc->axis[0]] = na;
      size[sc->axis[1]] = nb;
      size[sc->axis[2]] = 1;
      size_t out = (size_t)((f[2] * size[1] + f[1]) * size[0] + f[0]);
      fields[comp[0]][out] = (e[n] + e[n + 1] + e[up] + e[up + 1]) / 4;
      fields[comp[1]][out] = (hx[n] + hx[n + 1]) / 2;
      fields[comp[2]][out] = (hy[n] + hy[up]) / 2;
    }
}

gs_status gs_gpr_take_snapshot(gs_fdtd_sim *m, const gs_comm *c, const gs_snapshot_req *q, const char *path, char *err,
                               size_t errlen) {
  const gs_scene *sc = m->sc;
  int64_t na = q->size[sc->axis[0]], nb = q->size[sc->axis[1]];
  size_t plane = (size_t)((na + 1) * (nb + 1));
  if (3 * plane > 1u << 30) {
    snprintf(err, errlen, "%s: the snapshot samples %zu nodes: at most 2^30 / 3", path, plane);
    return GS_ERR_USAGE;
  }
  float *mine = gs_xcalloc(3 * plane, sizeof(float));
  float *all = c->rank == 0 ? gs_xcalloc(3 * plane, sizeof(float)) : NULL;
  gs_fdtd_sim_sync(m);
  local_samples(m, q, na, nb, mine);
  /* Each node has one owner and zeros elsewhere, so the sum is the field. */
  GS_MPI_CHECK(MPI_Reduce(mine, all, (int)(3 * plane), MPI_FLOAT, MPI_SUM, 0, c->world));
  free(mine);
  if (c->rank != 0) return GS_OK;
  size_t cells = (size_t)(na * nb);
  float *store = gs_xcalloc(6 * cells + 1, sizeof(float)), *fields[6];
  for (int k = 0; k < 6; ++k)
    fields[k] = store + (size_t)k * cells;
  cell_values(sc, all, na, nb, fields);
  gs_gpr_box box = file_box(sc, q->lo, q->step, q->size);
  const float *const cf[6] = {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]};
  gs_status st = gs_gpr_write_snapshot(path, &box, (double)q->iteration * sc->dt, cf, err, errlen);
  free(store);
  free(all);
  return st;
}

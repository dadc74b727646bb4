/* PNG snapshots of one plane of a 3D model (fdtd3d_snap.h). */
#include "fdtd3d_snap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fdtd3d_gather.h"
#include "snapshot.h"

static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

static gs_status parse_at(const gs_scene *sc, const char *slice, gs_fdtd3_slice *out, char *err, size_t errlen) {
  const int64_t n[3] = {sc->nx, sc->ny, sc->nz};
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  static const char axes[] = "xyzijk"; /* metres, then a node index */
  const char *hit = slice[0] ? strchr(axes, slice[0]) : NULL;
  int metres = hit && hit - axes < 3, cells = hit && !metres;
  char *end = NULL;
  if (!hit || slice[1] != '=' || slice[2] == '\0') {
    snprintf(err, errlen, "--slice '%.200s': not x=, y=, z= (metres) or i=, j=, k= (node) and a number", slice);
    return GS_ERR_USAGE;
  }
  int axis = (int)(hit - axes) % 3;
  double v = strtod(slice + 2, &end);
  size_t plain = strspn(slice + 2, cells ? "0123456789" : "0123456789.eE+-"); /* no hex, no inf */
  if (*end != '\0' || slice[2 + plain] != '\0' || !isfinite(v) || (cells && v != floor(v))) {
    snprintf(err, errlen, "--slice '%.200s': '%.200s' is not %s", slice, slice + 2,
             metres ? "a number of metres" : "a whole node index");
    return GS_ERR_USAGE;
  }
  double node = metres ? floor(v / d[axis] + 0.5) : v;
  if (!(v >= 0 && node <= (double)n[axis])) {
    snprintf(err, errlen, "--slice '%.200s': outside the domain (%c nodes 0..%lld%s)", slice, "ijk"[axis],
             (long long)n[axis], metres ? ", metres divided by the cell size and rounded" : "");
    return GS_ERR_USAGE;
  }
  out->axis = axis;
  out->at = (int64_t)node;
  return GS_OK;
}

gs_status gs_fdtd3_slice_parse(const gs_scene *sc, const char *slice, const char *field, gs_fdtd3_slice *out, char *err,
                               size_t errlen) {
  *out = (gs_fdtd3_slice){2, sc->nsources ? sc->sources[0].pol : 2, -1};
  if (!sc->nsources) out->at = sc->nz / 2; /* no source to go through: the middle */
  if (slice && parse_at(sc, slice, out, err, errlen) != GS_OK) return GS_ERR_USAGE;
  if (field) {
    int c = 0;
    while (c < 6 && strcmp(field, comp_names[c]) != 0)
      ++c;
    if (c == 6) {
      snprintf(err, errlen, "--slice-field '%.200s': not one of ex ey ez hx hy hz", field);
      return GS_ERR_USAGE;
    }
    out->comp = c;
  }
  return GS_OK;
}

static int64_t plane_at(const gs_fdtd3_sim *m, const gs_fdtd3_slice *s) {
  return s->at >= 0 ? s->at : m->sc->sources[0].k + (int64_t)m->run * m->sc->src_dk;
}

void gs_fdtd3_slice_name(const gs_fdtd3_sim *m, const gs_fdtd3_slice *s, char *out, size_t n) {
  snprintf(out, n, "%s_%c%lld", comp_names[s->comp], "xyz"[s->axis], (long long)plane_at(m, s));
}

/* The plane's values of one device array (floats or bytes, elem bytes each)
 * into out, w x h with the first in-plane axis fastest: a z plane is one
 * copy; x and y planes are picked from each z plane in turn. */
static void read_plane(gs_fdtd3_sim *m, const void *dev, size_t elem, int axis, int64_t at, void *out) {
  const gs_scene *sc = m->sc;
  const int64_t n[3] = {sc->nx + 1, sc->ny + 1, sc->nz + 1};
  uint8_t *z = gs_xmalloc(elem * (size_t)m->plane);
  int64_t k0 = axis == 2 ? at : 0, k1 = axis == 2 ? at + 1 : n[2];
  for (int64_t k = k0; k < k1; ++k) {
    m->b->copy_d2h(z, (const uint8_t *)dev + elem * (size_t)(k * m->plane), elem * (size_t)m->plane, m->s);
    m->b->stream_sync(m->s);
    uint8_t *o = out;
    if (axis == 2)
      for (int64_t j = 0; j < n[1]; ++j)
        memcpy(o + elem * (size_t)(j * n[0]), z + elem * (size_t)(j * m->pitch), elem * (size_t)n[0]);
    else if (axis == 1) /* x across, z up */
      memcpy(o + elem * (size_t)(k * n[0]), z + elem * (size_t)(at * m->pitch), elem * (size_t)n[0]);
    else /* y across, z up */
      for (int64_t j = 0; j < n[1]; ++j)
        memcpy(o + elem * (size_t)(k * n[1] + j), z + elem * (size_t)(j * m->pitch + at), elem);
  }
  free(z);
}

gs_status gs_fdtd3_slice_png(gs_fdtd3_sim *m, const gs_fdtd3_slice *s, const char *path, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const int64_t n[3] = {sc->nx + 1, sc->ny + 1, sc->nz + 1};
  int a = s->axis == 0 ? 1 : 0, b = s->axis == 2 ? 1 : 2;
  int64_t at = plane_at(m, s);
  gs_fdtd3_sim_sync(m);
  float *v = gs_xmalloc(sizeof(float) * (size_t)(n[a] * n[b]));
  uint8_t *mat = gs_xmalloc((size_t)(n[a] * n[b]));
  read_plane(m, m->f[m->cur][s->comp], sizeof(float), s->axis, at, v);
  read_plane(m, m->mat[s->comp % 3], 1, s->axis, at, mat);
  /* E after step n is the field at n dt, H at (n - 1/2) dt (gprMax's). */
  double t = ((double)m->step - (s->comp >= 3 ? 0.5 : 0.0)) * sc->dt;
  gs_snapshot_label lab = {t > 0 ? t : 0, m->step, s->comp >= 3 ? "A/m" : "V/m"};
  gs_status st = gs_snapshot_plane_png(v, mat, n[a], n[b], &lab, path, err, errlen);
  free(v);
  free(mat);
  return st;
}

gs_status gs_fdtd3_slice_png_split(gs_fdtd3_sim *m, const gs_fdtd3_ranks *sp, const gs_fdtd3_slice *s, const char *path,
                                   char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const int root = sp->rank == 0;
  const int64_t n[3] = {sc->nx + 1, sc->ny + 1, sc->nz + 1};
  int a = s->axis == 0 ? 1 : 0, b = s->axis == 2 ? 1 : 2;
  gs_fdtd3_grid g = {{0, 0, 0}, {1, 1, 1}, {n[0], n[1], n[2]}};
  g.start[s->axis] = plane_at(m, s);
  g.count[s->axis] = 1; /* x fastest: read_plane's order for each axis */
  gs_fdtd3_sim_sync(m);
  const void *dev[2] = {m->f[m->cur][s->comp], m->mat[s->comp % 3]};
  const size_t elem[2] = {sizeof(float), 1}, cells = (size_t)(n[a] * n[b]);
  gs_fdtd3_reader rd = gs_fdtd3_field_reader(m, 2, dev, elem);
  uint8_t *rec = root ? gs_xmalloc(5 * cells) : NULL;
  gs_fdtd3_gather(sp, sc, &g, &rd, rec);
  gs_fdtd3_field_reader_free(&rd);
  gs_status st = GS_OK;
  if (root) {
    float *v = gs_xmalloc(sizeof(float) * cells);
    uint8_t *mat = gs_xmalloc(cells);
    for (size_t q = 0; q < cells; ++q) {
      memcpy(&v[q], rec + 5 * q, sizeof(float));
      mat[q] = rec[5 * q + 4];
    }
    double t = ((double)m->step - (s->comp >= 3 ? 0.5 : 0.0)) * sc->dt; /* as gs_fdtd3_slice_png */
    gs_snapshot_label lab = {t > 0 ? t : 0, m->step, s->comp >= 3 ? "A/m" : "V/m"};
    st = gs_snapshot_plane_png(v, mat, n[a], n[b], &lab, path, err, errlen);
    free(v);
    free(mat);
  }
  free(rec);
  return gs_fdtd3_dist_agree(st, sp->comm, err, errlen);
}

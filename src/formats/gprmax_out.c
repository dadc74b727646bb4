/* gprMax 4's output files written whole (gprmax_out.h): the receiver file MODEL.h5, snapshots
 * (.h5, .vtkhdf; .vti through gprmax_vti.c), geometry views (.vtkhdf, fine views of lines),
 * geometry objects files; and what the writers of a piece at a time (gprmax_layers.c) share
 * with them: the checks of their arguments, the VTKHDF ImageData group, a view's FieldData.
 * HDF5 through gprmax_h5w.c with the types h5py gives gprMax's Python values. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprmax_out_internal.h"

/* Floats transposed at a time for the x-slowest datasets of .h5 snapshots. */
#define GPR_BLOCK_FLOATS ((int64_t)1 << 22)

const char *const gs_gpr_field_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

/* ---- the receiver file ---------------------------------------------------- */

gs_status gs_gpr_bad_input(const char *path, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: not written: %s", path, what);
  return GS_ERR_USAGE;
}

static gs_status check_model(const char *path, const gs_gpr_model *m, char *err, size_t errlen) {
  if (m->iterations < 0 || m->nsrc < 0 || m->nrx < 0) return gs_gpr_bad_input(path, "negative count", err, errlen);
  if ((m->nsrc && !m->src) || (m->nrx && !m->rx))
    return gs_gpr_bad_input(path, "no source or receiver array", err, errlen);
  if (m->ntl < 0 || (m->ntl && !m->tl)) return gs_gpr_bad_input(path, "no transmission line array", err, errlen);
  for (int q = 0; q < m->ntl; q++)
    if (m->tl[q].n < 0 || !m->tl[q].vinc || !m->tl[q].iinc || !m->tl[q].vtotal || !m->tl[q].itotal)
      return gs_gpr_bad_input(path, "a transmission line without data", err, errlen);
  for (int s = 0; s < m->nsrc; s++)
    if (!m->src[s].type) return gs_gpr_bad_input(path, "a source without a type", err, errlen);
  for (int r = 0; r < m->nrx; r++) {
    const gs_gpr_rx *rx = &m->rx[r];
    if (!rx->name) return gs_gpr_bad_input(path, "a receiver without a name", err, errlen);
    if (rx->ncomp < 1 || rx->ncomp > 9) return gs_gpr_bad_input(path, "a receiver's components not 1..9", err, errlen);
    for (int c = 0; c < rx->ncomp; c++)
      if (!rx->comp[c] || !rx->comp[c][0] || (!rx->data[c] && m->iterations > 0))
        return gs_gpr_bad_input(path, "a receiver component without a name or data", err, errlen);
  }
  return GS_OK;
}

/* Root attributes of MODEL.h5. */
static int put_model_attrs(gs_h5w *o, const gs_gpr_model *m) {
  hid_t r = o->file;
  int64_t nsrc = m->nsrc + (int64_t)m->ntl, nrx = m->nrx;
  if (gs_h5w_put_str(o, r, "gprMax", GS_GPR_VERSION) || gs_h5w_put_str(o, r, "Title", m->title ? m->title : "") ||
      gs_h5w_put_i64(o, r, "Iterations", 0, &m->iterations) || gs_h5w_put_i32(o, r, "srcsteps", 3, m->srcsteps) ||
      gs_h5w_put_i32(o, r, "rxsteps", 3, m->rxsteps) || gs_h5w_put_i64(o, r, "nx_ny_nz", 3, m->nxnynz) ||
      gs_h5w_put_f64(o, r, "dx_dy_dz", 3, m->dxdydz) || gs_h5w_put_f64(o, r, "dt", 0, &m->dt) ||
      gs_h5w_put_i64(o, r, "nsrc", 0, &nsrc) || gs_h5w_put_i64(o, r, "nrx", 0, &nrx))
    return -1;
  return 0;
}

/* srcs/srcN (N from 1), when there are sources. */
static int put_sources(gs_h5w *o, const gs_gpr_model *m) {
  if (m->nsrc == 0) return 0;
  char name[32];
  hid_t top = gs_h5w_make_group(o, o->file, "srcs");
  for (int s = 0; s < m->nsrc && top >= 0 && o->st == GS_OK; s++) {
    snprintf(name, sizeof name, "src%d", s + 1);
    hid_t g = gs_h5w_make_group(o, top, name);
    if (g >= 0)
      (void)(gs_h5w_put_str(o, g, "Type", m->src[s].type) || gs_h5w_put_f64(o, g, "Position", 3, m->src[s].pos));
    gs_h5w_close_group(o, g);
  }
  gs_h5w_close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

/* tls/tlN (N from 1): gprMax's transmission line outputs. */
static int put_lines(gs_h5w *o, const gs_gpr_model *m) {
  if (m->ntl == 0) return 0;
  char name[32];
  hid_t top = gs_h5w_make_group(o, o->file, "tls");
  for (int q = 0; q < m->ntl && top >= 0 && o->st == GS_OK; q++) {
    const gs_gpr_tl *l = &m->tl[q];
    hsize_t n = (hsize_t)l->n;
    snprintf(name, sizeof name, "tl%d", q + 1);
    hid_t g = gs_h5w_make_group(o, top, name);
    if (g >= 0)
      (void)(gs_h5w_put_f64(o, g, "Position", 3, l->pos) || gs_h5w_put_f64(o, g, "Resistance", 0, &l->resistance) ||
             gs_h5w_put_f64(o, g, "dl", 0, &l->dl) ||
             gs_h5w_put_dset(o, g, "Vinc", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->vinc) ||
             gs_h5w_put_dset(o, g, "Iinc", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->iinc) ||
             gs_h5w_put_dset(o, g, "Vtotal", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->vtotal) ||
             gs_h5w_put_dset(o, g, "Itotal", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->itotal));
    gs_h5w_close_group(o, g);
  }
  gs_h5w_close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

/* rxs/rxN (N from 1), when there are receivers. */
static int put_receivers(gs_h5w *o, const gs_gpr_model *m) {
  if (m->nrx == 0) return 0;
  char name[32];
  hsize_t n = (hsize_t)m->iterations;
  hid_t top = gs_h5w_make_group(o, o->file, "rxs");
  for (int r = 0; r < m->nrx && top >= 0 && o->st == GS_OK; r++) {
    const gs_gpr_rx *rx = &m->rx[r];
    snprintf(name, sizeof name, "rx%d", r + 1);
    hid_t g = gs_h5w_make_group(o, top, name);
    if (g >= 0) (void)(gs_h5w_put_str(o, g, "Name", rx->name) || gs_h5w_put_f64(o, g, "Position", 3, rx->pos));
    for (int c = 0; c < rx->ncomp && g >= 0 && o->st == GS_OK; c++)
      gs_h5w_put_dset(o, g, rx->comp[c], H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, rx->data[c]);
    gs_h5w_close_group(o, g);
  }
  gs_h5w_close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

gs_status gs_gpr_write_receivers(const char *path, const gs_gpr_model *m, char *err, size_t errlen) {
  gs_status st = check_model(path, m, err, errlen);
  if (st != GS_OK) return st;
  gs_h5w o;
  if (gs_h5w_open(&o, path, err, errlen) == GS_OK && put_model_attrs(&o, m) == 0 && put_sources(&o, m) == 0 &&
      put_lines(&o, m) == 0)
    put_receivers(&o, m);
  return gs_h5w_close(&o);
}

/* ---- snapshots and geometry views: HDF5 ------------------------------------ */

/* Checks a box; *cells = its number of cells. */
gs_status gs_gpr_check_box(const char *path, const gs_gpr_box *b, int64_t *cells, char *err, size_t errlen) {
  int64_t n = 1;
  for (int a = 0; a < 3; a++) {
    if (b->size[a] < 1 || b->size[a] > INT32_MAX)
      return gs_gpr_bad_input(path, "a size outside 1..2^31-1 cells", err, errlen);
    if (n > INT64_MAX / 8 / b->size[a]) return gs_gpr_bad_input(path, "too many cells", err, errlen);
    n *= b->size[a];
  }
  *cells = n;
  return GS_OK;
}

int gs_gpr_has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

/* The VTKHDF group of an ImageData file with its attributes (close it with
 * gs_h5w_close_group), as gprMax's VtkImageData writes them. */
hid_t gs_gpr_put_image_group(gs_h5w *o, const gs_gpr_box *b) {
  static const float direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  static const int64_t version[2] = {2, 2};
  int32_t extent[6] = {0, (int32_t)b->size[0], 0, (int32_t)b->size[1], 0, (int32_t)b->size[2]};
  hid_t g = gs_h5w_make_group(o, o->file, "VTKHDF");
  if (g < 0) return -1;
  hid_t type = gs_h5w_str_type(o, strlen("ImageData"), H5T_CSET_ASCII);
  if (type >= 0) {
    gs_h5w_put_attr(o, g, "Type", type, type, 0, "ImageData");
    if (H5Tclose(type) < 0) GS_H5W_FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK)
    (void)(gs_h5w_put_i64(o, g, "Version", 2, version) || gs_h5w_put_i32(o, g, "WholeExtent", 6, extent) ||
           gs_h5w_put_f64(o, g, "Origin", 3, b->origin) || gs_h5w_put_f64(o, g, "Spacing", 3, b->spacing) ||
           gs_h5w_put_attr(o, g, "Direction", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 9, direction));
  if (o->st == GS_OK) return g;
  gs_h5w_close_group(o, g);
  return -1;
}

/* Dataset name of shape (sx, sy, sz) from x-fastest src, written in blocks
 * of x-planes transposed through buf (bx * sy * sz floats). */
static int put_xslow(gs_h5w *o, const char *name, const int64_t size[3], const float *src, float *buf, int64_t bx) {
  const hsize_t dims[3] = {(hsize_t)size[0], (hsize_t)size[1], (hsize_t)size[2]};
  int64_t sx = size[0], sy = size[1], sz = size[2];
  hid_t d = gs_h5w_make_dset(o, o->file, name, H5T_IEEE_F32LE, 3, dims);
  hid_t fs = d < 0 ? -1 : H5Dget_space(d);
  if (d >= 0 && fs < 0) GS_H5W_FAIL(o, "H5Dget_space");
  for (int64_t x0 = 0; x0 < sx && fs >= 0 && o->st == GS_OK; x0 += bx) {
    int64_t n = sx - x0 < bx ? sx - x0 : bx;
    for (int64_t k = 0; k < sz; k++)
      for (int64_t j = 0; j < sy; j++) {
        const float *row = src + (k * sy + j) * sx + x0;
        for (int64_t i = 0; i < n; i++)
          buf[(i * sy + j) * sz + k] = row[i];
      }
    hsize_t start[3] = {(hsize_t)x0, 0, 0}, count[3] = {(hsize_t)n, dims[1], dims[2]};
    hid_t ms = gs_h5w_space(o, 3, count);
    if (ms < 0) break;
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
      GS_H5W_FAIL(o, "H5Sselect_hyperslab");
    else if (H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf) < 0)
      GS_H5W_FAIL(o, "H5Dwrite");
    if (H5Sclose(ms) < 0) GS_H5W_FAIL(o, "H5Sclose");
  }
  if (fs >= 0 && H5Sclose(fs) < 0) GS_H5W_FAIL(o, "H5Sclose");
  gs_h5w_close_dset(o, d);
  return o->st == GS_OK ? 0 : -1;
}

/* gprMax's .h5 snapshot. */
static int put_snapshot_h5(gs_h5w *o, const gs_gpr_box *b, double time, const float *const fields[6]) {
  int32_t size[3] = {(int32_t)b->size[0], (int32_t)b->size[1], (int32_t)b->size[2]};
  if (gs_h5w_put_str(o, o->file, "gprMax", GS_GPR_VERSION) || gs_h5w_put_i32(o, o->file, "nx_ny_nz", 3, size) ||
      gs_h5w_put_f64(o, o->file, "dx_dy_dz", 3, b->spacing) || gs_h5w_put_f64(o, o->file, "time", 0, &time))
    return -1;
  int64_t plane = b->size[1] * b->size[2];
  int64_t bx = GPR_BLOCK_FLOATS / plane < 1 ? 1 : GPR_BLOCK_FLOATS / plane;
  if (bx > b->size[0]) bx = b->size[0];
  float *buf = malloc((size_t)(bx * plane) * sizeof *buf);
  if (!buf) {
    snprintf(o->err, o->errlen, "%s: out of memory (%" PRId64 " floats)", o->path, bx * plane);
    o->st = GS_ERR_NOMEM;
    return -1;
  }
  for (int c = 0; c < 6 && o->st == GS_OK; c++)
    if (fields[c]) put_xslow(o, gs_gpr_field_names[c], b->size, fields[c], buf, bx);
  free(buf);
  return o->st == GS_OK ? 0 : -1;
}

/* A VTKHDF snapshot: CellData/Ex.. of shape (sz, sy, sx). */
static int put_snapshot_vtkhdf(gs_h5w *o, const gs_gpr_box *b, const float *const fields[6]) {
  const hsize_t dims[3] = {(hsize_t)b->size[2], (hsize_t)b->size[1], (hsize_t)b->size[0]};
  hid_t vtk = gs_gpr_put_image_group(o, b);
  hid_t cells = vtk < 0 ? -1 : gs_h5w_make_group(o, vtk, "CellData");
  for (int c = 0; c < 6 && cells >= 0 && o->st == GS_OK; c++)
    if (fields[c])
      gs_h5w_put_dset(o, cells, gs_gpr_field_names[c], H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, dims, fields[c]);
  gs_h5w_close_group(o, cells);
  gs_h5w_close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* FieldData of a geometry view, as gprMax's Metadata.write_to_vtkhdf. */
int gs_gpr_put_geometry_fields(gs_h5w *o, hid_t vtk, const gs_gpr_geometry *g) {
  hid_t fd = gs_h5w_make_group(o, vtk, "FieldData");
  if (fd < 0) return -1;
  const char *version = GS_GPR_VERSION;
  hsize_t one = 1, three = 3, six = 6, nm = (hsize_t)g->nmaterials;
  hsize_t src[2] = {(hsize_t)g->nsrc, 3}, rx[2] = {(hsize_t)g->nrx, 3};
  int pml = g->pml_always;
  for (int a = 0; a < 6; a++)
    pml |= g->pml[a] != 0;
  (void)(gs_h5w_put_strings(o, fd, "gprMax_version", one, &version) ||
         gs_h5w_put_dset(o, fd, "dx_dy_dz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &three, g->dxdydz) ||
         gs_h5w_put_dset(o, fd, "nx_ny_nz", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &three, g->nxnynz) ||
         gs_h5w_put_strings(o, fd, "material_ids", nm, g->material_names) ||
         (pml && gs_h5w_put_dset(o, fd, "pml_thickness", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &six, g->pml)) ||
         (g->nsrc && (gs_h5w_put_strings(o, fd, "source_ids", src[0], g->src_ids) ||
                      gs_h5w_put_dset(o, fd, "sources", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, src, g->src_pos))) ||
         (g->nrx && (gs_h5w_put_strings(o, fd, "receiver_ids", rx[0], g->rx_ids) ||
                     gs_h5w_put_dset(o, fd, "receivers", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, rx, g->rx_pos))));
  gs_h5w_close_group(o, fd);
  return o->st == GS_OK ? 0 : -1;
}

static int put_geometry_vtkhdf(gs_h5w *o, const gs_gpr_geometry *g) {
  const hsize_t dims[3] = {(hsize_t)g->box.size[2], (hsize_t)g->box.size[1], (hsize_t)g->box.size[0]};
  hid_t vtk = gs_gpr_put_image_group(o, &g->box);
  hid_t cells = vtk < 0 ? -1 : gs_h5w_make_group(o, vtk, "CellData");
  if (cells >= 0) gs_h5w_put_dset(o, cells, "Material", H5T_STD_U32LE, H5T_NATIVE_UINT32, 3, dims, g->material);
  gs_h5w_close_group(o, cells);
  if (vtk >= 0 && o->st == GS_OK) gs_gpr_put_geometry_fields(o, vtk, g);
  gs_h5w_close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* The topology of gprMax's fine view: node coordinates (z fastest), then
 * per cell its x, y and z edges as point pairs, offsets and cell types. */
static int put_lines_topology(gs_h5w *o, hid_t vtk, const gs_gpr_geometry *g, int64_t np, int64_t nl) {
  const int64_t *s = g->box.size, ys = s[2] + 1, xs = (s[1] + 1) * ys;
  double *pts = malloc(sizeof(double) * 3 * (size_t)np);
  int32_t *conn = malloc(sizeof(int32_t) * 2 * (size_t)nl), *offs = malloc(sizeof(int32_t) * (size_t)(nl + 1));
  uint8_t *types = malloc((size_t)nl + 1);
  if (!pts || !conn || !offs || !types) {
    snprintf(o->err, o->errlen, "%s: out of memory (%" PRId64 " lines)", o->path, nl);
    o->st = GS_ERR_NOMEM;
  }
  for (int64_t i = 0, p = 0; o->st == GS_OK && i <= s[0]; ++i)
    for (int64_t j = 0; j <= s[1]; ++j)
      for (int64_t k = 0; k <= s[2]; ++k, ++p) {
        const int64_t at[3] = {i, j, k};
        for (int a = 0; a < 3; ++a)
          pts[3 * p + a] = (double)(at[a] + g->start[a]) * g->box.spacing[a];
      }
  for (int64_t i = 0, l = 0; o->st == GS_OK && i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j)
      for (int64_t k = 0; k < s[2]; ++k)
        for (int a = 0; a < 3; ++a, ++l) {
          int64_t p = i * xs + j * ys + k;
          conn[2 * l] = (int32_t)p;
          conn[2 * l + 1] = (int32_t)(p + (a == 0 ? xs : a == 1 ? ys : 1));
        }
  for (int64_t l = 0; o->st == GS_OK && l <= nl; ++l) {
    offs[l] = (int32_t)(2 * l);
    if (l < nl) types[l] = 3; /* VTK_LINE */
  }
  const hsize_t dp[2] = {(hsize_t)np, 3}, dc = (hsize_t)(2 * nl), doff = (hsize_t)(nl + 1), dt = (hsize_t)nl;
  if (o->st == GS_OK)
    (void)(gs_h5w_put_dset(o, vtk, "Points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dp, pts) ||
           gs_h5w_put_dset(o, vtk, "Connectivity", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &dc, conn) ||
           gs_h5w_put_dset(o, vtk, "Offsets", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &doff, offs) ||
           gs_h5w_put_dset(o, vtk, "Types", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &dt, types));
  free(pts);
  free(conn);
  free(offs);
  free(types);
  return o->st == GS_OK ? 0 : -1;
}

static int put_lines_vtkhdf(gs_h5w *o, const gs_gpr_geometry *g, int64_t cells) {
  static const int64_t version[2] = {2, 2};
  const int64_t nl = 3 * cells, np = (g->box.size[0] + 1) * (g->box.size[1] + 1) * (g->box.size[2] + 1);
  const int64_t counts[3] = {nl, 2 * nl, np};
  const hsize_t one = 1, dl = (hsize_t)nl;
  hid_t vtk = gs_h5w_make_group(o, o->file, "VTKHDF");
  hid_t type = vtk < 0 ? -1 : gs_h5w_str_type(o, strlen("UnstructuredGrid"), H5T_CSET_ASCII);
  if (type >= 0) {
    gs_h5w_put_attr(o, vtk, "Type", type, type, 0, "UnstructuredGrid");
    if (H5Tclose(type) < 0) GS_H5W_FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK)
    (void)(gs_h5w_put_i64(o, vtk, "Version", 2, version) ||
           gs_h5w_put_dset(o, vtk, "NumberOfCells", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[0]) ||
           gs_h5w_put_dset(o, vtk, "NumberOfConnectivityIds", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[1]) ||
           gs_h5w_put_dset(o, vtk, "NumberOfPoints", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[2]) ||
           put_lines_topology(o, vtk, g, np, nl));
  hid_t cd = o->st == GS_OK ? gs_h5w_make_group(o, vtk, "CellData") : -1;
  if (cd >= 0) gs_h5w_put_dset(o, cd, "Material", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &dl, g->material);
  gs_h5w_close_group(o, cd);
  if (o->st == GS_OK) {
    gs_gpr_geometry meta = *g; /* materials only, as gprMax's fine view */
    meta.pml_always = 0;
    memset(meta.pml, 0, sizeof meta.pml);
    meta.nsrc = meta.nrx = 0;
    gs_gpr_put_geometry_fields(o, vtk, &meta);
  }
  gs_h5w_close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* ---- the entry points -------------------------------------------------------- */

gs_status gs_gpr_write_snapshot(const char *path, const gs_gpr_box *b, double time, const float *const fields[6],
                                char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = gs_gpr_check_box(path, b, &cells, err, errlen);
  if (st != GS_OK) return st;
  int any = 0;
  for (int c = 0; c < 6; c++)
    any |= fields[c] != NULL;
  if (!any) return gs_gpr_bad_input(path, "no field", err, errlen);
  if (gs_gpr_has_ext(path, ".vti"))
    return gs_gpr_write_vti(path, b, NULL, &time, 6, gs_gpr_field_names, "Float32", sizeof(float),
                            (const void *const *)fields, cells, err, errlen);
  int h5 = gs_gpr_has_ext(path, ".h5");
  if (!h5 && !gs_gpr_has_ext(path, ".vtkhdf"))
    return gs_gpr_bad_input(path, "a snapshot is .h5, .vtkhdf or .vti", err, errlen);
  gs_h5w o;
  if (gs_h5w_open(&o, path, err, errlen) == GS_OK) {
    if (h5)
      put_snapshot_h5(&o, b, time, fields);
    else
      put_snapshot_vtkhdf(&o, b, fields);
  }
  return gs_h5w_close(&o);
}

/* A geometry view's names, sources and receivers (not its material array). */
gs_status gs_gpr_check_geometry_meta(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  if (g->nmaterials < 0 || (g->nmaterials && !g->material_names))
    return gs_gpr_bad_input(path, "no material names", err, errlen);
  for (int m = 0; m < g->nmaterials; m++)
    if (!g->material_names[m]) return gs_gpr_bad_input(path, "a material without a name", err, errlen);
  if (g->nsrc < 0 || g->nrx < 0 || (g->nsrc && (!g->src_ids || !g->src_pos)) || (g->nrx && (!g->rx_ids || !g->rx_pos)))
    return gs_gpr_bad_input(path, "no source or receiver arrays", err, errlen);
  for (int s = 0; s < g->nsrc; s++)
    if (!g->src_ids[s]) return gs_gpr_bad_input(path, "a source without a name", err, errlen);
  for (int r = 0; r < g->nrx; r++)
    if (!g->rx_ids[r]) return gs_gpr_bad_input(path, "a receiver without a name", err, errlen);
  return GS_OK;
}

static gs_status check_geometry(const char *path, const gs_gpr_geometry *g, int64_t *cells, char *err, size_t errlen) {
  gs_status st = gs_gpr_check_box(path, &g->box, cells, err, errlen);
  if (st != GS_OK) return st;
  if (!g->material) return gs_gpr_bad_input(path, "no material array", err, errlen);
  return gs_gpr_check_geometry_meta(path, g, err, errlen);
}

gs_status gs_gpr_check_lines(const char *path, const gs_gpr_geometry *g, int64_t cells, char *err, size_t errlen) {
  if (!gs_gpr_has_ext(path, ".vtkhdf"))
    return gs_gpr_bad_input(path, "a fine (f) geometry view is .vtkhdf", err, errlen);
  if ((double)(g->box.size[0] + 1) * (double)(g->box.size[1] + 1) * (double)(g->box.size[2] + 1) >= 2147483647.0 ||
      6.0 * (double)cells >= 2147483647.0)
    return gs_gpr_bad_input(path, "a fine view of 2^31 points or more (gprMax's int32 connectivity)", err, errlen);
  return GS_OK;
}

gs_status gs_gpr_write_geometry(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = check_geometry(path, g, &cells, err, errlen);
  if (st != GS_OK) return st;
  if (gs_gpr_has_ext(path, ".vti")) {
    static const char *const name[1] = {"Material"};
    const void *data[1] = {g->material};
    return gs_gpr_write_vti(path, &g->box, g, NULL, 1, name, "UInt32", sizeof(uint32_t), data, cells, err, errlen);
  }
  if (!gs_gpr_has_ext(path, ".vtkhdf"))
    return gs_gpr_bad_input(path, "a geometry view is .vtkhdf or .vti", err, errlen);
  gs_h5w o;
  if (gs_h5w_open(&o, path, err, errlen) == GS_OK) put_geometry_vtkhdf(&o, g);
  return gs_h5w_close(&o);
}

gs_status gs_gpr_write_geometry_lines(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = check_geometry(path, g, &cells, err, errlen);
  if (st != GS_OK) return st;
  st = gs_gpr_check_lines(path, g, cells, err, errlen);
  if (st != GS_OK) return st;
  gs_h5w o;
  if (gs_h5w_open(&o, path, err, errlen) == GS_OK) put_lines_vtkhdf(&o, g, cells);
  return gs_h5w_close(&o);
}

gs_status gs_gpr_write_geometry_object(const char *path, const gs_gpr_geomobj *g, char *err, size_t errlen) {
  gs_gpr_box box = {.size = {g->size[0], g->size[1], g->size[2]}};
  int64_t cells = 0;
  gs_status st = gs_gpr_check_box(path, &box, &cells, err, errlen);
  if (st != GS_OK) return st;
  if (!g->data || !g->rigidE || !g->rigidH || !g->id)
    return gs_gpr_bad_input(path, "no data, rigid or ID array", err, errlen);
  const hsize_t dd[3] = {(hsize_t)g->size[0], (hsize_t)g->size[1], (hsize_t)g->size[2]};
  const hsize_t de[4] = {12, dd[0], dd[1], dd[2]}, dh[4] = {6, dd[0], dd[1], dd[2]};
  const hsize_t di[4] = {6, dd[0] + 1, dd[1] + 1, dd[2] + 1};
  gs_h5w o;
  if (gs_h5w_open(&o, path, err, errlen) == GS_OK)
    (void)(gs_h5w_put_str(&o, o.file, "gprMax", GS_GPR_VERSION) ||
           gs_h5w_put_str(&o, o.file, "Title", g->title ? g->title : "") ||
           gs_h5w_put_f64(&o, o.file, "dx_dy_dz", 3, g->dxdydz) ||
           gs_h5w_put_dset(&o, o.file, "data", H5T_STD_I16LE, H5T_NATIVE_INT16, 3, dd, g->data) ||
           gs_h5w_put_dset(&o, o.file, "rigidE", H5T_STD_I8LE, H5T_NATIVE_INT8, 4, de, g->rigidE) ||
           gs_h5w_put_dset(&o, o.file, "rigidH", H5T_STD_I8LE, H5T_NATIVE_INT8, 4, dh, g->rigidH) ||
           gs_h5w_put_dset(&o, o.file, "ID", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, di, g->id));
  return gs_h5w_close(&o);
}

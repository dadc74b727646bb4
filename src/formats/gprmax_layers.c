/* gprMax's files written a piece at a time (gprmax_out.h's gs_gpr_layers): snapshots and
 * geometry views one z layer of cells at a time (.h5, .vtkhdf, .vti), fine geometry views and
 * geometry objects files one x slab at a time (HDF5), so that a large grid is never held whole. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "gprmax_out_internal.h"

/* Floats of a field held at a time by the layered .h5 snapshot writer (a slab of z layers). */
#define GPR_SLAB_FLOATS ((int64_t)1 << 20)

/* A file written one z layer of cells at a time (gprmax_out.h). */
enum { LAYERS_VTKHDF, LAYERS_H5, LAYERS_VTI, LAYERS_HDF5_SLABS }; /* the last: lines views, geometry objects */
struct gs_gpr_layers {
  int kind, narr; /* LAYERS_*; arrays (6 fields, or a view's Material) */
  hid_t mtype;    /* their memory type */
  size_t vsize;   /* bytes of a value */
  gs_h5w o;       /* .h5 and .vtkhdf */
  gs_gpr_box b;
  hid_t vtk, cells, d[6];
  float *xslow;   /* .h5: a slab of up to nz layers of the six fields, transposed to x slowest */
  int64_t nz, z0; /* .h5: the slab's layers at most, its first (-1: none yet) */
  uint8_t *have;  /* .h5: which of the slab's layers were put */
  gs_tmpfile t;   /* .vti */
  off_t base;     /* .vti: where the appended data starts (after '_') */
  int failed;     /* .vti: a write failed */
  const char *path;
  char *err;
  size_t errlen;
};

/* A new writer of narr arrays of vsize-byte values for box b; NULL when out of memory. */
static gs_gpr_layers *layers_new(const char *path, const gs_gpr_box *b, int kind, int narr, size_t vsize, char *err,
                                 size_t errlen) {
  gs_gpr_layers *w = calloc(1, sizeof *w);
  /* .h5: z layers are strided in its x-slowest datasets; a slab of them (at most GPR_SLAB_FLOATS
   * a field) is written at once, so that the file is not rewritten once per layer */
  int64_t layer = b->size[0] * b->size[1], nz = GPR_SLAB_FLOATS / layer < 1 ? 1 : GPR_SLAB_FLOATS / layer;
  nz = nz < b->size[2] ? nz : b->size[2];
  if (w && kind == LAYERS_H5) {
    w->xslow = malloc(sizeof(float) * 6 * (size_t)(layer * nz));
    w->have = calloc((size_t)nz, 1);
  }
  if (!w || (kind == LAYERS_H5 && (!w->xslow || !w->have))) {
    if (w) free(w->xslow), free(w->have);
    free(w);
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  *w = (gs_gpr_layers){.kind = kind,
                       .narr = narr,
                       .vsize = vsize,
                       .b = *b,
                       .vtk = -1,
                       .cells = -1,
                       .path = path,
                       .err = err,
                       .errlen = errlen,
                       .xslow = w->xslow,
                       .have = w->have,
                       .nz = nz,
                       .z0 = -1,
                       .o = {.file = -1}};
  w->mtype = vsize == sizeof(float) && narr == 6 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT32;
  for (int c = 0; c < 6; c++)
    w->d[c] = -1;
  return w;
}

/* The snapshot's HDF5 file and its empty datasets (.h5: root attributes and
 * datasets (sx, sy, sz); .vtkhdf: CellData (sz, sy, sx)). */
static void layers_h5_snapshot(gs_gpr_layers *w, double time) {
  gs_h5w *o = &w->o;
  const gs_gpr_box *b = &w->b;
  if (w->kind == LAYERS_H5) {
    const int32_t size[3] = {(int32_t)b->size[0], (int32_t)b->size[1], (int32_t)b->size[2]};
    const hsize_t dims[3] = {(hsize_t)b->size[0], (hsize_t)b->size[1], (hsize_t)b->size[2]};
    if (gs_h5w_put_str(o, o->file, "gprMax", GS_GPR_VERSION) || gs_h5w_put_i32(o, o->file, "nx_ny_nz", 3, size) ||
        gs_h5w_put_f64(o, o->file, "dx_dy_dz", 3, b->spacing) || gs_h5w_put_f64(o, o->file, "time", 0, &time))
      return;
    for (int c = 0; c < 6 && o->st == GS_OK; c++)
      w->d[c] = gs_h5w_make_dset(o, o->file, gs_gpr_field_names[c], H5T_IEEE_F32LE, 3, dims);
    return;
  }
  const hsize_t dims[3] = {(hsize_t)b->size[2], (hsize_t)b->size[1], (hsize_t)b->size[0]};
  w->vtk = gs_gpr_put_image_group(o, b);
  w->cells = w->vtk < 0 ? -1 : gs_h5w_make_group(o, w->vtk, "CellData");
  for (int c = 0; c < 6 && w->cells >= 0 && o->st == GS_OK; c++)
    w->d[c] = gs_h5w_make_dset(o, w->cells, gs_gpr_field_names[c], H5T_IEEE_F32LE, 3, dims);
}

/* A .vti's XML and the byte counts of its arrays; the values come layer by layer. */
static gs_status layers_vti_open(gs_gpr_layers *w, const gs_gpr_geometry *g, const double *time,
                                 const char *const *names, const char *type) {
  gs_status st = gs_tmpfile_open(&w->t, w->path, w->err, w->errlen);
  if (st != GS_OK) return st;
  const int64_t cells = w->b.size[0] * w->b.size[1] * w->b.size[2];
  const void *present[6] = {w, w, w, w, w, w};
  gs_gpr_vti_head(w->t.fp, &w->b, g, time, w->narr, names, type, w->vsize, present, cells);
  const uint64_t bytes = (uint64_t)cells * w->vsize;
  w->base = ftello(w->t.fp);
  w->failed = w->base < 0;
  for (int a = 0; a < w->narr && !w->failed; a++)
    w->failed = fseeko(w->t.fp, w->base + (off_t)(a * (sizeof bytes + bytes)), SEEK_SET) != 0 ||
                fwrite(&bytes, sizeof bytes, 1, w->t.fp) != 1;
  if (!w->failed) return GS_OK;
  snprintf(w->err, w->errlen, "%s: writing %s failed: %s", w->path, w->t.tmp, strerror(errno));
  char ignored[8]; /* the reason above stays: this only removes the temporary file */
  gs_tmpfile_commit(&w->t, 1, 0, ignored, sizeof ignored);
  w->t.fp = NULL;
  return GS_ERR_IO;
}

/* After kind and the arrays are set: the file begun, or removed with *out NULL. */
static gs_status layers_begin(gs_gpr_layers *w, gs_gpr_layers **out) {
  const gs_status st = w->o.st;
  *out = st == GS_OK ? w : NULL;
  if (st == GS_OK) return GS_OK;
  if (w->kind == LAYERS_VTI) { /* layers_vti_open removed its temporary file */
    free(w);
    return st;
  }
  const gs_status closed = gs_gpr_layers_close(w); /* removes the partial file; frees w */
  return closed != GS_OK ? closed : st;
}

gs_status gs_gpr_snapshot_layers_open(const char *path, const gs_gpr_box *b, double time, gs_gpr_layers **out,
                                      char *err, size_t errlen) {
  int64_t n = 0;
  *out = NULL;
  gs_status st = gs_gpr_check_box(path, b, &n, err, errlen);
  if (st != GS_OK) return st;
  const int kind = gs_gpr_has_ext(path, ".vtkhdf") ? LAYERS_VTKHDF
                   : gs_gpr_has_ext(path, ".h5")   ? LAYERS_H5
                   : gs_gpr_has_ext(path, ".vti")  ? LAYERS_VTI
                                                   : -1;
  if (kind < 0) return gs_gpr_bad_input(path, "a snapshot is .h5, .vtkhdf or .vti", err, errlen);
  gs_gpr_layers *w = layers_new(path, b, kind, 6, sizeof(float), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  if (kind == LAYERS_VTI)
    w->o.st = layers_vti_open(w, NULL, &time, gs_gpr_field_names, "Float32");
  else if (gs_h5w_open(&w->o, path, err, errlen) == GS_OK)
    layers_h5_snapshot(w, time);
  return layers_begin(w, out);
}

gs_status gs_gpr_layers_open(const char *path, const gs_gpr_box *b, gs_gpr_layers **out, char *err, size_t errlen) {
  *out = NULL;
  if (!gs_gpr_has_ext(path, ".vtkhdf")) return gs_gpr_bad_input(path, "a layered snapshot is .vtkhdf", err, errlen);
  return gs_gpr_snapshot_layers_open(path, b, 0.0, out, err, errlen);
}

/* A geometry view's box, names, sources and receivers (its materials come later); *cells. */
static gs_status check_view(const char *path, const gs_gpr_geometry *g, int64_t *cells, char *err, size_t errlen) {
  gs_status st = gs_gpr_check_box(path, &g->box, cells, err, errlen);
  return st == GS_OK ? gs_gpr_check_geometry_meta(path, g, err, errlen) : st;
}

gs_status gs_gpr_geometry_layers_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                      size_t errlen) {
  int64_t n = 0;
  *out = NULL;
  gs_status st = check_view(path, g, &n, err, errlen);
  if (st != GS_OK) return st;
  const int kind = gs_gpr_has_ext(path, ".vtkhdf") ? LAYERS_VTKHDF : gs_gpr_has_ext(path, ".vti") ? LAYERS_VTI : -1;
  if (kind < 0) return gs_gpr_bad_input(path, "a geometry view is .vtkhdf or .vti", err, errlen);
  gs_gpr_layers *w = layers_new(path, &g->box, kind, 1, sizeof(uint32_t), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  static const char *const name[1] = {"Material"};
  if (kind == LAYERS_VTI) {
    w->o.st = layers_vti_open(w, g, NULL, name, "UInt32");
  } else if (gs_h5w_open(&w->o, path, err, errlen) == GS_OK) {
    const hsize_t dims[3] = {(hsize_t)g->box.size[2], (hsize_t)g->box.size[1], (hsize_t)g->box.size[0]};
    w->vtk = gs_gpr_put_image_group(&w->o, &g->box);
    w->cells = w->vtk < 0 ? -1 : gs_h5w_make_group(&w->o, w->vtk, "CellData");
    if (w->cells >= 0) w->d[0] = gs_h5w_make_dset(&w->o, w->cells, "Material", H5T_STD_U32LE, 3, dims);
    if (w->o.st == GS_OK) gs_gpr_put_geometry_fields(&w->o, w->vtk, g);
  }
  return layers_begin(w, out);
}

/* Layer z of a .vti: each array's values at their place in the appended data. */
static void layers_vti_put(gs_gpr_layers *w, int64_t z, const void *const *arrays) {
  const int64_t layer = w->b.size[0] * w->b.size[1];
  const uint64_t bytes = (uint64_t)(layer * w->b.size[2]) * w->vsize;
  for (int a = 0; a < w->narr && !w->failed; a++) {
    off_t at = w->base + (off_t)(a * (8 + bytes) + 8 + (uint64_t)(z * layer) * w->vsize);
    w->failed =
        fseeko(w->t.fp, at, SEEK_SET) != 0 || fwrite(arrays[a], w->vsize, (size_t)layer, w->t.fp) != (size_t)layer;
    if (w->failed) snprintf(w->err, w->errlen, "%s: writing %s failed: %s", w->path, w->t.tmp, strerror(errno));
  }
}

/* Layer z of array a of a (sz, sy, sx) dataset. */
static void layers_h5_put(gs_gpr_layers *w, int64_t z, int a, const void *layer) {
  const hsize_t start[3] = {(hsize_t)z, 0, 0}, count[3] = {1, (hsize_t)w->b.size[1], (hsize_t)w->b.size[0]};
  gs_h5w_put_block(&w->o, w->d[a], 3, start, count, w->mtype, layer);
}

/* The .h5 slab's layers put so far, each run of consecutive ones at once. */
static void xslow_flush(gs_gpr_layers *w) {
  gs_h5w *o = &w->o;
  const hsize_t sx = (hsize_t)w->b.size[0], sy = (hsize_t)w->b.size[1], mdims[3] = {sx, sy, (hsize_t)w->nz};
  for (int64_t a = 0, b; w->z0 >= 0 && a < w->nz && o->st == GS_OK; a = b) {
    for (b = a + 1; w->have[a] && b < w->nz && w->have[b];)
      b++;
    if (!w->have[a]) continue;
    const hsize_t mstart[3] = {0, 0, (hsize_t)a}, fstart[3] = {0, 0, (hsize_t)(w->z0 + a)};
    const hsize_t count[3] = {sx, sy, (hsize_t)(b - a)};
    for (int c = 0; c < 6 && o->st == GS_OK; c++) {
      hid_t fs = H5Dget_space(w->d[c]), ms = fs < 0 ? -1 : gs_h5w_space(o, 3, mdims);
      if (fs < 0)
        GS_H5W_FAIL(o, "H5Dget_space");
      else if (ms >= 0 && (H5Sselect_hyperslab(fs, H5S_SELECT_SET, fstart, NULL, count, NULL) < 0 ||
                           H5Sselect_hyperslab(ms, H5S_SELECT_SET, mstart, NULL, count, NULL) < 0))
        GS_H5W_FAIL(o, "H5Sselect_hyperslab");
      else if (ms >= 0 && H5Dwrite(w->d[c], H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT,
                                   w->xslow + (size_t)c * sx * sy * (size_t)w->nz) < 0)
        GS_H5W_FAIL(o, "H5Dwrite");
      if (ms >= 0 && H5Sclose(ms) < 0) GS_H5W_FAIL(o, "H5Sclose");
      if (fs >= 0 && H5Sclose(fs) < 0) GS_H5W_FAIL(o, "H5Sclose");
    }
  }
  memset(w->have, 0, (size_t)w->nz);
}

/* Layer z of the six fields into the .h5 slab holding it (the last slab written first if another). */
static void xslow_put(gs_gpr_layers *w, int64_t z, const void *const *arrays) {
  const int64_t sx = w->b.size[0], sy = w->b.size[1], nz = w->nz;
  if (w->z0 < 0 || z < w->z0 || z >= w->z0 + nz) {
    xslow_flush(w);
    w->z0 = z - z % nz;
  }
  for (int c = 0; c < 6; c++) {
    const float *v = arrays[c];
    float *slab = w->xslow + (size_t)(c * sx * sy * nz);
    for (int64_t y = 0; y < sy; y++)
      for (int64_t x = 0; x < sx; x++)
        slab[(x * sy + y) * nz + z - w->z0] = v[y * sx + x];
  }
  w->have[z - w->z0] = 1;
}

static void layers_put(gs_gpr_layers *w, int64_t z, const void *const *arrays) {
  if (w->kind == LAYERS_VTI) {
    layers_vti_put(w, z, arrays);
    return;
  }
  if (w->kind == LAYERS_H5 && w->o.st == GS_OK) xslow_put(w, z, arrays);
  for (int a = 0; w->kind != LAYERS_H5 && a < w->narr && w->o.st == GS_OK; a++)
    layers_h5_put(w, z, a, arrays[a]);
}

void gs_gpr_layers_put(gs_gpr_layers *w, int64_t z, const float *const fields[6]) {
  const void *const arrays[6] = {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]};
  layers_put(w, z, arrays);
}

void gs_gpr_layers_put_u32(gs_gpr_layers *w, int64_t z, const uint32_t *material) {
  const void *const arrays[1] = {material};
  layers_put(w, z, arrays);
}

gs_status gs_gpr_layers_close(gs_gpr_layers *w) {
  if (!w) return GS_OK;
  gs_status st;
  if (w->kind == LAYERS_VTI) {
    const uint64_t bytes = (uint64_t)(w->b.size[0] * w->b.size[1] * w->b.size[2]) * w->vsize;
    if (!w->failed)
      w->failed = fseeko(w->t.fp, w->base + (off_t)((uint64_t)w->narr * (8 + bytes)), SEEK_SET) != 0 ||
                  fputs("\n</AppendedData>\n</VTKFile>\n", w->t.fp) < 0;
    char why[1024] = "";
    if (w->failed) snprintf(why, sizeof why, "%s", w->err); /* commit writes its own reason when it fails itself */
    st = gs_tmpfile_commit(&w->t, w->failed, 0, w->err, w->errlen);
    if (w->failed) {
      snprintf(w->err, w->errlen, "%s", why[0] ? why : "write failed");
      st = GS_ERR_IO;
    }
  } else {
    if (w->kind == LAYERS_H5) xslow_flush(w);
    for (int c = 0; c < 6; c++)
      gs_h5w_close_dset(&w->o, w->d[c]);
    gs_h5w_close_group(&w->o, w->cells);
    gs_h5w_close_group(&w->o, w->vtk);
    st = gs_h5w_close(&w->o);
  }
  free(w->xslow);
  free(w->have);
  free(w);
  return st;
}

/* ---- files written in x slabs (x the slowest axis of their arrays) ----------- */

/* The fine view's topology (as put_lines_topology's) one x plane at a time. */
static void put_lines_topology_slabs(gs_h5w *o, hid_t vtk, const gs_gpr_geometry *g, int64_t np, int64_t nl) {
  const int64_t *s = g->box.size, ys = s[2] + 1, xs = (s[1] + 1) * ys, per = 3 * s[1] * s[2];
  const hsize_t dp[2] = {(hsize_t)np, 3}, dc = (hsize_t)(2 * nl), doff = (hsize_t)(nl + 1), dt = (hsize_t)nl;
  hid_t d[4] = {gs_h5w_make_dset(o, vtk, "Points", H5T_IEEE_F64LE, 2, dp),
                gs_h5w_make_dset(o, vtk, "Connectivity", H5T_STD_I32LE, 1, &dc),
                gs_h5w_make_dset(o, vtk, "Offsets", H5T_STD_I32LE, 1, &doff),
                gs_h5w_make_dset(o, vtk, "Types", H5T_STD_U8LE, 1, &dt)};
  double *pts = malloc(sizeof(double) * 3 * (size_t)xs);
  int32_t *conn = malloc(sizeof(int32_t) * 2 * (size_t)(per + 1)), *offs = malloc(sizeof(int32_t) * (size_t)(per + 1));
  uint8_t *types = malloc((size_t)per + 1);
  if (!pts || !conn || !offs || !types) {
    snprintf(o->err, o->errlen, "%s: out of memory (%" PRId64 " lines)", o->path, per);
    o->st = GS_ERR_NOMEM;
  }
  for (int64_t i = 0; o->st == GS_OK && i <= s[0]; ++i) {
    for (int64_t j = 0, p = 0; j <= s[1]; ++j)
      for (int64_t k = 0; k <= s[2]; ++k, ++p) {
        const int64_t at[3] = {i, j, k};
        for (int a = 0; a < 3; ++a)
          pts[3 * p + a] = (double)(at[a] + g->start[a]) * g->box.spacing[a];
      }
    const hsize_t start[2] = {(hsize_t)(i * xs), 0}, count[2] = {(hsize_t)xs, 3};
    gs_h5w_put_block(o, d[0], 2, start, count, H5T_NATIVE_DOUBLE, pts);
    if (i == s[0]) break;
    for (int64_t j = 0, l = 0; j < s[1]; ++j)
      for (int64_t k = 0; k < s[2]; ++k)
        for (int a = 0; a < 3; ++a, ++l) {
          int64_t p = i * xs + j * ys + k;
          conn[2 * l] = (int32_t)p;
          conn[2 * l + 1] = (int32_t)(p + (a == 0 ? xs : a == 1 ? ys : 1));
          offs[l] = (int32_t)(2 * (i * per + l));
          types[l] = 3; /* VTK_LINE */
        }
    gs_h5w_put_rows(o, d[1], 2 * i * per, 2 * per, H5T_NATIVE_INT32, conn);
    gs_h5w_put_rows(o, d[2], i * per, per, H5T_NATIVE_INT32, offs);
    gs_h5w_put_rows(o, d[3], i * per, per, H5T_NATIVE_UINT8, types);
  }
  if (o->st == GS_OK) { /* the last offset: the end of the last line */
    offs[0] = (int32_t)(2 * nl);
    gs_h5w_put_rows(o, d[2], nl, 1, H5T_NATIVE_INT32, offs);
  }
  for (int q = 0; q < 4; ++q)
    gs_h5w_close_dset(o, d[q]);
  free(pts);
  free(conn);
  free(offs);
  free(types);
}

/* The fine view's file but its materials (put_lines_vtkhdf's layout). */
static void lines_slabs_begin(gs_gpr_layers *w, const gs_gpr_geometry *g, int64_t cells) {
  static const int64_t version[2] = {2, 2};
  gs_h5w *o = &w->o;
  const int64_t nl = 3 * cells, np = (g->box.size[0] + 1) * (g->box.size[1] + 1) * (g->box.size[2] + 1);
  const int64_t counts[3] = {nl, 2 * nl, np};
  const hsize_t one = 1, dl = (hsize_t)nl;
  w->vtk = gs_h5w_make_group(o, o->file, "VTKHDF");
  hid_t type = w->vtk < 0 ? -1 : gs_h5w_str_type(o, strlen("UnstructuredGrid"), H5T_CSET_ASCII);
  if (type >= 0) {
    gs_h5w_put_attr(o, w->vtk, "Type", type, type, 0, "UnstructuredGrid");
    if (H5Tclose(type) < 0) GS_H5W_FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK &&
      !(gs_h5w_put_i64(o, w->vtk, "Version", 2, version) ||
        gs_h5w_put_dset(o, w->vtk, "NumberOfCells", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[0]) ||
        gs_h5w_put_dset(o, w->vtk, "NumberOfConnectivityIds", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[1]) ||
        gs_h5w_put_dset(o, w->vtk, "NumberOfPoints", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[2])))
    put_lines_topology_slabs(o, w->vtk, g, np, nl);
  w->cells = o->st == GS_OK ? gs_h5w_make_group(o, w->vtk, "CellData") : -1;
  if (w->cells >= 0) w->d[0] = gs_h5w_make_dset(o, w->cells, "Material", H5T_STD_U32LE, 1, &dl);
  if (o->st == GS_OK) {
    gs_gpr_geometry meta = *g; /* materials only, as gprMax's fine view */
    meta.pml_always = 0;
    memset(meta.pml, 0, sizeof meta.pml);
    meta.nsrc = meta.nrx = 0;
    gs_gpr_put_geometry_fields(o, w->vtk, &meta);
  }
}

gs_status gs_gpr_lines_slabs_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                  size_t errlen) {
  int64_t cells = 0;
  *out = NULL;
  gs_status st = check_view(path, g, &cells, err, errlen);
  if (st == GS_OK) st = gs_gpr_check_lines(path, g, cells, err, errlen);
  if (st != GS_OK) return st;
  gs_gpr_layers *w = layers_new(path, &g->box, LAYERS_HDF5_SLABS, 1, sizeof(uint32_t), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  if (gs_h5w_open(&w->o, path, err, errlen) == GS_OK) lines_slabs_begin(w, g, cells);
  return layers_begin(w, out);
}

void gs_gpr_lines_slabs_put(gs_gpr_layers *w, int64_t x, const uint32_t *material) {
  const int64_t per = 3 * w->b.size[1] * w->b.size[2];
  gs_h5w_put_rows(&w->o, w->d[0], x * per, per, H5T_NATIVE_UINT32, material);
}

gs_status gs_gpr_geomobj_slabs_open(const char *path, const gs_gpr_geomobj *g, gs_gpr_layers **out, char *err,
                                    size_t errlen) {
  gs_gpr_box box = {.size = {g->size[0], g->size[1], g->size[2]}};
  int64_t cells = 0;
  *out = NULL;
  gs_status st = gs_gpr_check_box(path, &box, &cells, err, errlen);
  if (st != GS_OK) return st;
  gs_gpr_layers *w = layers_new(path, &box, LAYERS_HDF5_SLABS, 4, 1, err, errlen);
  if (!w) return GS_ERR_NOMEM;
  const hsize_t dd[3] = {(hsize_t)g->size[0], (hsize_t)g->size[1], (hsize_t)g->size[2]};
  const hsize_t de[4] = {12, dd[0], dd[1], dd[2]}, dh[4] = {6, dd[0], dd[1], dd[2]};
  const hsize_t di[4] = {6, dd[0] + 1, dd[1] + 1, dd[2] + 1};
  gs_h5w *o = &w->o;
  if (gs_h5w_open(o, path, err, errlen) == GS_OK && !(gs_h5w_put_str(o, o->file, "gprMax", GS_GPR_VERSION) ||
                                                      gs_h5w_put_str(o, o->file, "Title", g->title ? g->title : "") ||
                                                      gs_h5w_put_f64(o, o->file, "dx_dy_dz", 3, g->dxdydz))) {
    w->d[0] = gs_h5w_make_dset(o, o->file, "data", H5T_STD_I16LE, 3, dd);
    w->d[1] = gs_h5w_make_dset(o, o->file, "rigidE", H5T_STD_I8LE, 4, de);
    w->d[2] = gs_h5w_make_dset(o, o->file, "rigidH", H5T_STD_I8LE, 4, dh);
    w->d[3] = gs_h5w_make_dset(o, o->file, "ID", H5T_STD_U32LE, 4, di);
  }
  return layers_begin(w, out);
}

void gs_gpr_geomobj_slabs_put_cells(gs_gpr_layers *w, int64_t x, const int16_t *data, const int8_t *rigid) {
  const hsize_t sy = (hsize_t)w->b.size[1], sz = (hsize_t)w->b.size[2];
  const hsize_t start3[3] = {(hsize_t)x, 0, 0}, count3[3] = {1, sy, sz}, count4[4] = {1, 1, sy, sz};
  gs_h5w_put_block(&w->o, w->d[0], 3, start3, count3, H5T_NATIVE_INT16, data);
  for (int b = 0; b < 18; ++b) {
    const hsize_t start4[4] = {(hsize_t)(b < 12 ? b : b - 12), (hsize_t)x, 0, 0};
    gs_h5w_put_block(&w->o, w->d[b < 12 ? 1 : 2], 4, start4, count4, H5T_NATIVE_INT8, rigid + (size_t)b * sy * sz);
  }
}

void gs_gpr_geomobj_slabs_put_nodes(gs_gpr_layers *w, int64_t x, const uint32_t *id) {
  const hsize_t ny = (hsize_t)w->b.size[1] + 1, nz = (hsize_t)w->b.size[2] + 1, count[4] = {1, 1, ny, nz};
  for (int c = 0; c < 6; ++c) {
    const hsize_t start[4] = {(hsize_t)c, (hsize_t)x, 0, 0};
    gs_h5w_put_block(&w->o, w->d[3], 4, start, count, H5T_NATIVE_UINT32, id + (size_t)c * ny * nz);
  }
}

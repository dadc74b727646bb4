/* gprMax 4's output files (gprmax_out.h): HDF5 through libhdf5's C API with
 * the types h5py gives gprMax's Python values, VTK XML written as text. */
#include "gprmax_out.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

/* The version gprMax 4 writes in its files (readers only display it). */
#define GPR_VERSION "4.0.0b0"
/* Floats transposed at a time for the x-slowest datasets of .h5 snapshots. */
#define GPR_BLOCK_FLOATS ((int64_t)1 << 22)
/* Floats of a field held at a time by the layered .h5 snapshot writer (a slab of z layers). */
#define GPR_SLAB_FLOATS ((int64_t)1 << 20)

static const char *const field_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

/* ---- HDF5 files --------------------------------------------------------- */

/* Before main, before any HDF5 call (H5T_NATIVE_* alone starts the library, and H5dont_atexit
 * must come first): no clean-up by libhdf5 at exit. That clean-up closes whatever is still open,
 * and a file whose H5Fclose failed on a full disk stayed open: closing it again at exit crashed
 * the library (SIGSEGV in H5F__close_cb after the right message, status 139; or "infinite loop
 * closing library"). Every path here closes its files once, or abandons and unlinks them after a
 * failure, so nothing needs that clean-up. geomobj_read.c does the same (whichever runs second
 * gets a harmless failure). */
__attribute__((constructor)) static void h5_no_atexit(void) {
  (void)H5dont_atexit();
}

/* One HDF5 output being written: its temporary file and the first failure. */
typedef struct h5out {
  const char *path; /* the final name, for messages */
  char *tmp;        /* PATH.tmp-PID */
  hid_t file;
  gs_status st;
  char *err;
  size_t errlen;
  H5E_auto2_t old_func; /* the error printer to restore */
  void *old_data;
  int restore;
} h5out;

/* H5Ewalk2 callback: the innermost error's description; of a failed open,
 * only the system's reason ("... error message = 'Permission denied', ..."). */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data) {
  char *why = data;
  if (n != 0 || !e->desc) return 0;
  const char *sys = strstr(e->desc, "error message = '");
  if (sys) {
    sys += strlen("error message = '");
    const char *end = strchr(sys, '\'');
    snprintf(why, 256, "%.*s", end ? (int)(end - sys) : 200, sys);
  } else {
    snprintf(why, 256, "%s", e->desc);
  }
  return 0;
}

/* Records the first failure: "PATH: CALL failed: REASON [gprmax_out.c:LINE]",
 * with the reason from HDF5's error stack, which it then clears. Returns -1. */
static int h5_fail(h5out *o, const char *call, int line) {
  if (o->st != GS_OK) return -1;
  char why[256] = "";
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why) < 0 || !why[0]) snprintf(why, sizeof why, "HDF5 error");
  H5Eclear2(H5E_DEFAULT); /* nothing left to report if this fails too */
  const char *file = strrchr(__FILE__, '/');
  snprintf(o->err, o->errlen, "%s: %s failed: %s [%s:%d]", o->path, call, why, file ? file + 1 : __FILE__, line);
  o->st = GS_ERR_IO;
  return -1;
}
#define FAIL(o, call) h5_fail((o), (call), __LINE__)

/* Creates PATH.tmp-PID with HDF5's printing off (restored by h5_close):
 * superblock of the earliest version as h5py writes, no file locking (the
 * temporary is ours alone; some parallel file systems refuse locks), and
 * every object closed with the file. */
static gs_status h5_open(h5out *o, const char *path, char *err, size_t errlen) {
  *o = (h5out){.path = path, .file = -1, .err = err, .errlen = errlen};
  size_t len = strlen(path) + 32;
  o->tmp = malloc(len);
  if (!o->tmp) {
    snprintf(err, errlen, "%s: out of memory", path);
    return o->st = GS_ERR_NOMEM;
  }
  snprintf(o->tmp, len, "%s.tmp-%ld", path, (long)getpid());
  if (H5Eget_auto2(H5E_DEFAULT, &o->old_func, &o->old_data) < 0) {
    FAIL(o, "H5Eget_auto2");
    return o->st;
  }
  if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) {
    FAIL(o, "H5Eset_auto2");
    return o->st;
  }
  o->restore = 1;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) {
    FAIL(o, "H5Pcreate");
    return o->st;
  }
  if (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) FAIL(o, "H5Pset_fclose_degree");
#if H5_VERSION_GE(1, 10, 7)
  if (o->st == GS_OK && H5Pset_file_locking(fapl, 0, 1) < 0) FAIL(o, "H5Pset_file_locking");
#endif
  if (o->st == GS_OK) {
    o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (o->file < 0) FAIL(o, "H5Fcreate");
  }
  if (H5Pclose(fapl) < 0) FAIL(o, "H5Pclose");
  return o->st;
}

/* Closes the file and renames it into place, or removes it after a failure;
 * restores HDF5's printing; frees the name. The status of the whole write. */
static gs_status h5_close(h5out *o) {
  if (o->file >= 0 && H5Fclose(o->file) < 0) FAIL(o, "H5Fclose");
  if (o->tmp && o->st == GS_OK && rename(o->tmp, o->path) != 0) {
    snprintf(o->err, o->errlen, "%s: rename from %s failed: %s", o->path, o->tmp, strerror(errno));
    o->st = GS_ERR_IO;
  }
  if (o->tmp && o->st != GS_OK) unlink(o->tmp); /* may not exist: nothing to do then */
  if (o->restore && H5Eset_auto2(H5E_DEFAULT, o->old_func, o->old_data) < 0) FAIL(o, "H5Eset_auto2");
  free(o->tmp);
  o->tmp = NULL;
  return o->st;
}

/* A dataspace: a scalar for rank 0. */
static hid_t h5_space(h5out *o, int rank, const hsize_t *dims) {
  hid_t s = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  if (s < 0) FAIL(o, rank ? "H5Screate_simple" : "H5Screate");
  return s;
}

/* Writes attribute name of loc: n values (n 0: a scalar) of file type ftype
 * from memory type mtype. 0 or -1. */
static int put_attr(h5out *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *data) {
  hid_t space = h5_space(o, n ? 1 : 0, &n);
  if (space < 0) return -1;
  hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 ? FAIL(o, "H5Acreate2") : 0;
  if (rc == 0 && H5Awrite(a, mtype, data) < 0) rc = FAIL(o, "H5Awrite");
  if (a >= 0 && H5Aclose(a) < 0) rc = FAIL(o, "H5Aclose");
  if (H5Sclose(space) < 0) rc = FAIL(o, "H5Sclose");
  return rc;
}

static int put_f64(h5out *o, hid_t loc, const char *name, hsize_t n, const double *v) {
  return put_attr(o, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
}
static int put_i64(h5out *o, hid_t loc, const char *name, hsize_t n, const int64_t *v) {
  return put_attr(o, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v);
}
static int put_i32(h5out *o, hid_t loc, const char *name, hsize_t n, const int32_t *v) {
  return put_attr(o, loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, n, v);
}

/* A string type: variable length (len 0) or len bytes null-padded. */
static hid_t str_type(h5out *o, size_t len, H5T_cset_t cset) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return FAIL(o, "H5Tcopy");
  int bad = H5Tset_size(t, len ? len : H5T_VARIABLE) < 0 ? FAIL(o, "H5Tset_size") : 0;
  if (!bad && H5Tset_cset(t, cset) < 0) bad = FAIL(o, "H5Tset_cset");
  if (!bad && len && H5Tset_strpad(t, H5T_STR_NULLPAD) < 0) bad = FAIL(o, "H5Tset_strpad");
  if (bad && H5Tclose(t) < 0) FAIL(o, "H5Tclose");
  return bad ? -1 : t;
}

/* A scalar string attribute as h5py writes a Python str: variable-length UTF-8. */
static int put_str(h5out *o, hid_t loc, const char *name, const char *s) {
  hid_t t = str_type(o, 0, H5T_CSET_UTF8);
  if (t < 0) return -1;
  int rc = put_attr(o, loc, name, t, t, 0, &s);
  if (H5Tclose(t) < 0) rc = FAIL(o, "H5Tclose");
  return rc;
}

/* Object creation properties as h5py's: no modification times (files
 * written twice from the same data are identical). */
static hid_t no_times(h5out *o, hid_t cls) {
  hid_t p = H5Pcreate(cls);
  if (p < 0) return FAIL(o, "H5Pcreate");
  if (H5Pset_obj_track_times(p, 0) < 0) {
    FAIL(o, "H5Pset_obj_track_times");
    if (H5Pclose(p) < 0) FAIL(o, "H5Pclose");
    return -1;
  }
  return p;
}

/* Creates group name in loc (close it with close_group). */
static hid_t make_group(h5out *o, hid_t loc, const char *name) {
  hid_t p = no_times(o, H5P_GROUP_CREATE);
  if (p < 0) return -1;
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, p, H5P_DEFAULT);
  if (g < 0) FAIL(o, "H5Gcreate2");
  if (H5Pclose(p) < 0) FAIL(o, "H5Pclose");
  return g;
}

static int close_group(h5out *o, hid_t g) {
  return g >= 0 && H5Gclose(g) < 0 ? FAIL(o, "H5Gclose") : 0;
}

/* Creates dataset name in loc, contiguous, of ftype and dims (close it with
 * close_dset). */
static hid_t make_dset(h5out *o, hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims) {
  hid_t space = h5_space(o, rank, dims);
  hid_t dcpl = space < 0 ? -1 : no_times(o, H5P_DATASET_CREATE);
  hid_t d = dcpl < 0 ? -1 : H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0 && d < 0) FAIL(o, "H5Dcreate2");
  if (dcpl >= 0 && H5Pclose(dcpl) < 0) FAIL(o, "H5Pclose");
  if (space >= 0 && H5Sclose(space) < 0) FAIL(o, "H5Sclose");
  return d;
}

static int close_dset(h5out *o, hid_t d) {
  return d >= 0 && H5Dclose(d) < 0 ? FAIL(o, "H5Dclose") : 0;
}

/* Dataset name in loc (as make_dset) holding data of memory type mtype. */
static int put_dset(h5out *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                    const void *data) {
  hsize_t n = 1;
  for (int a = 0; a < rank; a++)
    n *= dims[a];
  hid_t d = make_dset(o, loc, name, ftype, rank, dims);
  if (d >= 0 && n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) FAIL(o, "H5Dwrite");
  close_dset(o, d);
  return o->st == GS_OK ? 0 : -1;
}

/* A 1-D dataset of n variable-length ASCII strings (VTKHDF field data). */
static int put_strings(h5out *o, hid_t loc, const char *name, hsize_t n, const char *const *s) {
  hid_t t = str_type(o, 0, H5T_CSET_ASCII);
  if (t < 0) return -1;
  int rc = put_dset(o, loc, name, t, t, 1, &n, s);
  if (H5Tclose(t) < 0) rc = FAIL(o, "H5Tclose");
  return rc;
}

/* ---- the receiver file ---------------------------------------------------- */

static gs_status bad_input(const char *path, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: not written: %s", path, what);
  return GS_ERR_USAGE;
}

static gs_status check_model(const char *path, const gs_gpr_model *m, char *err, size_t errlen) {
  if (m->iterations < 0 || m->nsrc < 0 || m->nrx < 0) return bad_input(path, "negative count", err, errlen);
  if ((m->nsrc && !m->src) || (m->nrx && !m->rx)) return bad_input(path, "no source or receiver array", err, errlen);
  if (m->ntl < 0 || (m->ntl && !m->tl)) return bad_input(path, "no transmission line array", err, errlen);
  for (int q = 0; q < m->ntl; q++)
    if (m->tl[q].n < 0 || !m->tl[q].vinc || !m->tl[q].iinc || !m->tl[q].vtotal || !m->tl[q].itotal)
      return bad_input(path, "a transmission line without data", err, errlen);
  for (int s = 0; s < m->nsrc; s++)
    if (!m->src[s].type) return bad_input(path, "a source without a type", err, errlen);
  for (int r = 0; r < m->nrx; r++) {
    const gs_gpr_rx *rx = &m->rx[r];
    if (!rx->name) return bad_input(path, "a receiver without a name", err, errlen);
    if (rx->ncomp < 1 || rx->ncomp > 9) return bad_input(path, "a receiver's components not 1..9", err, errlen);
    for (int c = 0; c < rx->ncomp; c++)
      if (!rx->comp[c] || !rx->comp[c][0] || (!rx->data[c] && m->iterations > 0))
        return bad_input(path, "a receiver component without a name or data", err, errlen);
  }
  return GS_OK;
}

/* Root attributes of MODEL.h5. */
static int put_model_attrs(h5out *o, const gs_gpr_model *m) {
  hid_t r = o->file;
  int64_t nsrc = m->nsrc + (int64_t)m->ntl, nrx = m->nrx;
  if (put_str(o, r, "gprMax", GPR_VERSION) || put_str(o, r, "Title", m->title ? m->title : "") ||
      put_i64(o, r, "Iterations", 0, &m->iterations) || put_i32(o, r, "srcsteps", 3, m->srcsteps) ||
      put_i32(o, r, "rxsteps", 3, m->rxsteps) || put_i64(o, r, "nx_ny_nz", 3, m->nxnynz) ||
      put_f64(o, r, "dx_dy_dz", 3, m->dxdydz) || put_f64(o, r, "dt", 0, &m->dt) || put_i64(o, r, "nsrc", 0, &nsrc) ||
      put_i64(o, r, "nrx", 0, &nrx))
    return -1;
  return 0;
}

/* srcs/srcN (N from 1), when there are sources. */
static int put_sources(h5out *o, const gs_gpr_model *m) {
  if (m->nsrc == 0) return 0;
  char name[32];
  hid_t top = make_group(o, o->file, "srcs");
  for (int s = 0; s < m->nsrc && top >= 0 && o->st == GS_OK; s++) {
    snprintf(name, sizeof name, "src%d", s + 1);
    hid_t g = make_group(o, top, name);
    if (g >= 0) (void)(put_str(o, g, "Type", m->src[s].type) || put_f64(o, g, "Position", 3, m->src[s].pos));
    close_group(o, g);
  }
  close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

/* tls/tlN (N from 1): gprMax's transmission line outputs. */
static int put_lines(h5out *o, const gs_gpr_model *m) {
  if (m->ntl == 0) return 0;
  char name[32];
  hid_t top = make_group(o, o->file, "tls");
  for (int q = 0; q < m->ntl && top >= 0 && o->st == GS_OK; q++) {
    const gs_gpr_tl *l = &m->tl[q];
    hsize_t n = (hsize_t)l->n;
    snprintf(name, sizeof name, "tl%d", q + 1);
    hid_t g = make_group(o, top, name);
    if (g >= 0)
      (void)(put_f64(o, g, "Position", 3, l->pos) || put_f64(o, g, "Resistance", 0, &l->resistance) ||
             put_f64(o, g, "dl", 0, &l->dl) ||
             put_dset(o, g, "Vinc", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->vinc) ||
             put_dset(o, g, "Iinc", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->iinc) ||
             put_dset(o, g, "Vtotal", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->vtotal) ||
             put_dset(o, g, "Itotal", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, l->itotal));
    close_group(o, g);
  }
  close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

/* rxs/rxN (N from 1), when there are receivers. */
static int put_receivers(h5out *o, const gs_gpr_model *m) {
  if (m->nrx == 0) return 0;
  char name[32];
  hsize_t n = (hsize_t)m->iterations;
  hid_t top = make_group(o, o->file, "rxs");
  for (int r = 0; r < m->nrx && top >= 0 && o->st == GS_OK; r++) {
    const gs_gpr_rx *rx = &m->rx[r];
    snprintf(name, sizeof name, "rx%d", r + 1);
    hid_t g = make_group(o, top, name);
    if (g >= 0) (void)(put_str(o, g, "Name", rx->name) || put_f64(o, g, "Position", 3, rx->pos));
    for (int c = 0; c < rx->ncomp && g >= 0 && o->st == GS_OK; c++)
      put_dset(o, g, rx->comp[c], H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, rx->data[c]);
    close_group(o, g);
  }
  close_group(o, top);
  return o->st == GS_OK ? 0 : -1;
}

gs_status gs_gpr_write_receivers(const char *path, const gs_gpr_model *m, char *err, size_t errlen) {
  gs_status st = check_model(path, m, err, errlen);
  if (st != GS_OK) return st;
  h5out o;
  if (h5_open(&o, path, err, errlen) == GS_OK && put_model_attrs(&o, m) == 0 && put_sources(&o, m) == 0 &&
      put_lines(&o, m) == 0)
    put_receivers(&o, m);
  return h5_close(&o);
}

/* ---- snapshots and geometry views: HDF5 ------------------------------------ */

/* Checks a box; *cells = its number of cells. */
static gs_status check_box(const char *path, const gs_gpr_box *b, int64_t *cells, char *err, size_t errlen) {
  int64_t n = 1;
  for (int a = 0; a < 3; a++) {
    if (b->size[a] < 1 || b->size[a] > INT32_MAX) return bad_input(path, "a size outside 1..2^31-1 cells", err, errlen);
    if (n > INT64_MAX / 8 / b->size[a]) return bad_input(path, "too many cells", err, errlen);
    n *= b->size[a];
  }
  *cells = n;
  return GS_OK;
}

static int has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

/* The VTKHDF group of an ImageData file with its attributes (close it with
 * close_group), as gprMax's VtkImageData writes them. */
static hid_t put_image_group(h5out *o, const gs_gpr_box *b) {
  static const float direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  static const int64_t version[2] = {2, 2};
  int32_t extent[6] = {0, (int32_t)b->size[0], 0, (int32_t)b->size[1], 0, (int32_t)b->size[2]};
  hid_t g = make_group(o, o->file, "VTKHDF");
  if (g < 0) return -1;
  hid_t type = str_type(o, strlen("ImageData"), H5T_CSET_ASCII);
  if (type >= 0) {
    put_attr(o, g, "Type", type, type, 0, "ImageData");
    if (H5Tclose(type) < 0) FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK)
    (void)(put_i64(o, g, "Version", 2, version) || put_i32(o, g, "WholeExtent", 6, extent) ||
           put_f64(o, g, "Origin", 3, b->origin) || put_f64(o, g, "Spacing", 3, b->spacing) ||
           put_attr(o, g, "Direction", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 9, direction));
  if (o->st == GS_OK) return g;
  close_group(o, g);
  return -1;
}

/* Dataset name of shape (sx, sy, sz) from x-fastest src, written in blocks
 * of x-planes transposed through buf (bx * sy * sz floats). */
static int put_xslow(h5out *o, const char *name, const int64_t size[3], const float *src, float *buf, int64_t bx) {
  const hsize_t dims[3] = {(hsize_t)size[0], (hsize_t)size[1], (hsize_t)size[2]};
  int64_t sx = size[0], sy = size[1], sz = size[2];
  hid_t d = make_dset(o, o->file, name, H5T_IEEE_F32LE, 3, dims);
  hid_t fs = d < 0 ? -1 : H5Dget_space(d);
  if (d >= 0 && fs < 0) FAIL(o, "H5Dget_space");
  for (int64_t x0 = 0; x0 < sx && fs >= 0 && o->st == GS_OK; x0 += bx) {
    int64_t n = sx - x0 < bx ? sx - x0 : bx;
    for (int64_t k = 0; k < sz; k++)
      for (int64_t j = 0; j < sy; j++) {
        const float *row = src + (k * sy + j) * sx + x0;
        for (int64_t i = 0; i < n; i++)
          buf[(i * sy + j) * sz + k] = row[i];
      }
    hsize_t start[3] = {(hsize_t)x0, 0, 0}, count[3] = {(hsize_t)n, dims[1], dims[2]};
    hid_t ms = h5_space(o, 3, count);
    if (ms < 0) break;
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
      FAIL(o, "H5Sselect_hyperslab");
    else if (H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf) < 0)
      FAIL(o, "H5Dwrite");
    if (H5Sclose(ms) < 0) FAIL(o, "H5Sclose");
  }
  if (fs >= 0 && H5Sclose(fs) < 0) FAIL(o, "H5Sclose");
  close_dset(o, d);
  return o->st == GS_OK ? 0 : -1;
}

/* gprMax's .h5 snapshot. */
static int put_snapshot_h5(h5out *o, const gs_gpr_box *b, double time, const float *const fields[6]) {
  int32_t size[3] = {(int32_t)b->size[0], (int32_t)b->size[1], (int32_t)b->size[2]};
  if (put_str(o, o->file, "gprMax", GPR_VERSION) || put_i32(o, o->file, "nx_ny_nz", 3, size) ||
      put_f64(o, o->file, "dx_dy_dz", 3, b->spacing) || put_f64(o, o->file, "time", 0, &time))
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
    if (fields[c]) put_xslow(o, field_names[c], b->size, fields[c], buf, bx);
  free(buf);
  return o->st == GS_OK ? 0 : -1;
}

/* A VTKHDF snapshot: CellData/Ex.. of shape (sz, sy, sx). */
static int put_snapshot_vtkhdf(h5out *o, const gs_gpr_box *b, const float *const fields[6]) {
  const hsize_t dims[3] = {(hsize_t)b->size[2], (hsize_t)b->size[1], (hsize_t)b->size[0]};
  hid_t vtk = put_image_group(o, b);
  hid_t cells = vtk < 0 ? -1 : make_group(o, vtk, "CellData");
  for (int c = 0; c < 6 && cells >= 0 && o->st == GS_OK; c++)
    if (fields[c]) put_dset(o, cells, field_names[c], H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, dims, fields[c]);
  close_group(o, cells);
  close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* A file written one z layer of cells at a time (gprmax_out.h). */
enum { LAYERS_VTKHDF, LAYERS_H5, LAYERS_VTI, LAYERS_HDF5_SLABS }; /* the last: lines views, geometry objects */
struct gs_gpr_layers {
  int kind, narr; /* LAYERS_*; arrays (6 fields, or a view's Material) */
  hid_t mtype;    /* their memory type */
  size_t vsize;   /* bytes of a value */
  h5out o;        /* .h5 and .vtkhdf */
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

static void put_block(h5out *o, hid_t d, int rank, const hsize_t *start, const hsize_t *count, hid_t mtype,
                      const void *buf);

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
  h5out *o = &w->o;
  const gs_gpr_box *b = &w->b;
  if (w->kind == LAYERS_H5) {
    const int32_t size[3] = {(int32_t)b->size[0], (int32_t)b->size[1], (int32_t)b->size[2]};
    const hsize_t dims[3] = {(hsize_t)b->size[0], (hsize_t)b->size[1], (hsize_t)b->size[2]};
    if (put_str(o, o->file, "gprMax", GPR_VERSION) || put_i32(o, o->file, "nx_ny_nz", 3, size) ||
        put_f64(o, o->file, "dx_dy_dz", 3, b->spacing) || put_f64(o, o->file, "time", 0, &time))
      return;
    for (int c = 0; c < 6 && o->st == GS_OK; c++)
      w->d[c] = make_dset(o, o->file, field_names[c], H5T_IEEE_F32LE, 3, dims);
    return;
  }
  const hsize_t dims[3] = {(hsize_t)b->size[2], (hsize_t)b->size[1], (hsize_t)b->size[0]};
  w->vtk = put_image_group(o, b);
  w->cells = w->vtk < 0 ? -1 : make_group(o, w->vtk, "CellData");
  for (int c = 0; c < 6 && w->cells >= 0 && o->st == GS_OK; c++)
    w->d[c] = make_dset(o, w->cells, field_names[c], H5T_IEEE_F32LE, 3, dims);
}

static void vti_arrays_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                            const char *const *names, const char *type, size_t vsize, const void *const *data,
                            int64_t cells);

/* A .vti's XML and the byte counts of its arrays; the values come layer by layer. */
static gs_status layers_vti_open(gs_gpr_layers *w, const gs_gpr_geometry *g, const double *time,
                                 const char *const *names, const char *type) {
  gs_status st = gs_tmpfile_open(&w->t, w->path, w->err, w->errlen);
  if (st != GS_OK) return st;
  const int64_t cells = w->b.size[0] * w->b.size[1] * w->b.size[2];
  const void *present[6] = {w, w, w, w, w, w};
  vti_arrays_head(w->t.fp, &w->b, g, time, w->narr, names, type, w->vsize, present, cells);
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
  gs_status st = check_box(path, b, &n, err, errlen);
  if (st != GS_OK) return st;
  const int kind = has_ext(path, ".vtkhdf") ? LAYERS_VTKHDF
                   : has_ext(path, ".h5")   ? LAYERS_H5
                   : has_ext(path, ".vti")  ? LAYERS_VTI
                                            : -1;
  if (kind < 0) return bad_input(path, "a snapshot is .h5, .vtkhdf or .vti", err, errlen);
  gs_gpr_layers *w = layers_new(path, b, kind, 6, sizeof(float), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  if (kind == LAYERS_VTI)
    w->o.st = layers_vti_open(w, NULL, &time, field_names, "Float32");
  else if (h5_open(&w->o, path, err, errlen) == GS_OK)
    layers_h5_snapshot(w, time);
  return layers_begin(w, out);
}

gs_status gs_gpr_layers_open(const char *path, const gs_gpr_box *b, gs_gpr_layers **out, char *err, size_t errlen) {
  *out = NULL;
  if (!has_ext(path, ".vtkhdf")) return bad_input(path, "a layered snapshot is .vtkhdf", err, errlen);
  return gs_gpr_snapshot_layers_open(path, b, 0.0, out, err, errlen);
}

static gs_status check_geometry_meta(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen);
static int put_geometry_fields(h5out *o, hid_t vtk, const gs_gpr_geometry *g);

gs_status gs_gpr_geometry_layers_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                      size_t errlen) {
  int64_t n = 0;
  *out = NULL;
  gs_status st = check_box(path, &g->box, &n, err, errlen);
  if (st == GS_OK) st = check_geometry_meta(path, g, err, errlen);
  if (st != GS_OK) return st;
  const int kind = has_ext(path, ".vtkhdf") ? LAYERS_VTKHDF : has_ext(path, ".vti") ? LAYERS_VTI : -1;
  if (kind < 0) return bad_input(path, "a geometry view is .vtkhdf or .vti", err, errlen);
  gs_gpr_layers *w = layers_new(path, &g->box, kind, 1, sizeof(uint32_t), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  static const char *const name[1] = {"Material"};
  if (kind == LAYERS_VTI) {
    w->o.st = layers_vti_open(w, g, NULL, name, "UInt32");
  } else if (h5_open(&w->o, path, err, errlen) == GS_OK) {
    const hsize_t dims[3] = {(hsize_t)g->box.size[2], (hsize_t)g->box.size[1], (hsize_t)g->box.size[0]};
    w->vtk = put_image_group(&w->o, &g->box);
    w->cells = w->vtk < 0 ? -1 : make_group(&w->o, w->vtk, "CellData");
    if (w->cells >= 0) w->d[0] = make_dset(&w->o, w->cells, "Material", H5T_STD_U32LE, 3, dims);
    if (w->o.st == GS_OK) put_geometry_fields(&w->o, w->vtk, g);
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
  put_block(&w->o, w->d[a], 3, start, count, w->mtype, layer);
}

/* The .h5 slab's layers put so far, each run of consecutive ones at once. */
static void xslow_flush(gs_gpr_layers *w) {
  h5out *o = &w->o;
  const hsize_t sx = (hsize_t)w->b.size[0], sy = (hsize_t)w->b.size[1], mdims[3] = {sx, sy, (hsize_t)w->nz};
  for (int64_t a = 0, b; w->z0 >= 0 && a < w->nz && o->st == GS_OK; a = b) {
    for (b = a + 1; w->have[a] && b < w->nz && w->have[b];)
      b++;
    if (!w->have[a]) continue;
    const hsize_t mstart[3] = {0, 0, (hsize_t)a}, fstart[3] = {0, 0, (hsize_t)(w->z0 + a)};
    const hsize_t count[3] = {sx, sy, (hsize_t)(b - a)};
    for (int c = 0; c < 6 && o->st == GS_OK; c++) {
      hid_t fs = H5Dget_space(w->d[c]), ms = fs < 0 ? -1 : h5_space(o, 3, mdims);
      if (fs < 0)
        FAIL(o, "H5Dget_space");
      else if (ms >= 0 && (H5Sselect_hyperslab(fs, H5S_SELECT_SET, fstart, NULL, count, NULL) < 0 ||
                           H5Sselect_hyperslab(ms, H5S_SELECT_SET, mstart, NULL, count, NULL) < 0))
        FAIL(o, "H5Sselect_hyperslab");
      else if (ms >= 0 && H5Dwrite(w->d[c], H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT,
                                   w->xslow + (size_t)c * sx * sy * (size_t)w->nz) < 0)
        FAIL(o, "H5Dwrite");
      if (ms >= 0 && H5Sclose(ms) < 0) FAIL(o, "H5Sclose");
      if (fs >= 0 && H5Sclose(fs) < 0) FAIL(o, "H5Sclose");
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
      close_dset(&w->o, w->d[c]);
    close_group(&w->o, w->cells);
    close_group(&w->o, w->vtk);
    st = h5_close(&w->o);
  }
  free(w->xslow);
  free(w->have);
  free(w);
  return st;
}

/* FieldData of a geometry view, as gprMax's Metadata.write_to_vtkhdf. */
static int put_geometry_fields(h5out *o, hid_t vtk, const gs_gpr_geometry *g) {
  hid_t fd = make_group(o, vtk, "FieldData");
  if (fd < 0) return -1;
  const char *version = GPR_VERSION;
  hsize_t one = 1, three = 3, six = 6, nm = (hsize_t)g->nmaterials;
  hsize_t src[2] = {(hsize_t)g->nsrc, 3}, rx[2] = {(hsize_t)g->nrx, 3};
  int pml = g->pml_always;
  for (int a = 0; a < 6; a++)
    pml |= g->pml[a] != 0;
  (void)(put_strings(o, fd, "gprMax_version", one, &version) ||
         put_dset(o, fd, "dx_dy_dz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &three, g->dxdydz) ||
         put_dset(o, fd, "nx_ny_nz", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &three, g->nxnynz) ||
         put_strings(o, fd, "material_ids", nm, g->material_names) ||
         (pml && put_dset(o, fd, "pml_thickness", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &six, g->pml)) ||
         (g->nsrc && (put_strings(o, fd, "source_ids", src[0], g->src_ids) ||
                      put_dset(o, fd, "sources", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, src, g->src_pos))) ||
         (g->nrx && (put_strings(o, fd, "receiver_ids", rx[0], g->rx_ids) ||
                     put_dset(o, fd, "receivers", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, rx, g->rx_pos))));
  close_group(o, fd);
  return o->st == GS_OK ? 0 : -1;
}

static int put_geometry_vtkhdf(h5out *o, const gs_gpr_geometry *g) {
  const hsize_t dims[3] = {(hsize_t)g->box.size[2], (hsize_t)g->box.size[1], (hsize_t)g->box.size[0]};
  hid_t vtk = put_image_group(o, &g->box);
  hid_t cells = vtk < 0 ? -1 : make_group(o, vtk, "CellData");
  if (cells >= 0) put_dset(o, cells, "Material", H5T_STD_U32LE, H5T_NATIVE_UINT32, 3, dims, g->material);
  close_group(o, cells);
  if (vtk >= 0 && o->st == GS_OK) put_geometry_fields(o, vtk, g);
  close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* The topology of gprMax's fine view: node coordinates (z fastest), then
 * per cell its x, y and z edges as point pairs, offsets and cell types. */
static int put_lines_topology(h5out *o, hid_t vtk, const gs_gpr_geometry *g, int64_t np, int64_t nl) {
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
    (void)(put_dset(o, vtk, "Points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dp, pts) ||
           put_dset(o, vtk, "Connectivity", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &dc, conn) ||
           put_dset(o, vtk, "Offsets", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &doff, offs) ||
           put_dset(o, vtk, "Types", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &dt, types));
  free(pts);
  free(conn);
  free(offs);
  free(types);
  return o->st == GS_OK ? 0 : -1;
}

static int put_lines_vtkhdf(h5out *o, const gs_gpr_geometry *g, int64_t cells) {
  static const int64_t version[2] = {2, 2};
  const int64_t nl = 3 * cells, np = (g->box.size[0] + 1) * (g->box.size[1] + 1) * (g->box.size[2] + 1);
  const int64_t counts[3] = {nl, 2 * nl, np};
  const hsize_t one = 1, dl = (hsize_t)nl;
  hid_t vtk = make_group(o, o->file, "VTKHDF");
  hid_t type = vtk < 0 ? -1 : str_type(o, strlen("UnstructuredGrid"), H5T_CSET_ASCII);
  if (type >= 0) {
    put_attr(o, vtk, "Type", type, type, 0, "UnstructuredGrid");
    if (H5Tclose(type) < 0) FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK)
    (void)(put_i64(o, vtk, "Version", 2, version) ||
           put_dset(o, vtk, "NumberOfCells", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[0]) ||
           put_dset(o, vtk, "NumberOfConnectivityIds", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[1]) ||
           put_dset(o, vtk, "NumberOfPoints", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[2]) ||
           put_lines_topology(o, vtk, g, np, nl));
  hid_t cd = o->st == GS_OK ? make_group(o, vtk, "CellData") : -1;
  if (cd >= 0) put_dset(o, cd, "Material", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &dl, g->material);
  close_group(o, cd);
  if (o->st == GS_OK) {
    gs_gpr_geometry meta = *g; /* materials only, as gprMax's fine view */
    meta.pml_always = 0;
    memset(meta.pml, 0, sizeof meta.pml);
    meta.nsrc = meta.nrx = 0;
    put_geometry_fields(o, vtk, &meta);
  }
  close_group(o, vtk);
  return o->st == GS_OK ? 0 : -1;
}

/* ---- files written in x slabs (x the slowest axis of their arrays) ----------- */

/* The block start + [0, count) of dataset d (rank dims) from buf (mtype, in the block's order). */
static void put_block(h5out *o, hid_t d, int rank, const hsize_t *start, const hsize_t *count, hid_t mtype,
                      const void *buf) {
  if (o->st != GS_OK) return;
  hid_t fs = H5Dget_space(d);
  if (fs < 0) {
    FAIL(o, "H5Dget_space");
    return;
  }
  hid_t ms = h5_space(o, rank, count);
  if (ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
    FAIL(o, "H5Sselect_hyperslab");
  else if (ms >= 0 && H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
    FAIL(o, "H5Dwrite");
  if (ms >= 0 && H5Sclose(ms) < 0) FAIL(o, "H5Sclose");
  if (H5Sclose(fs) < 0) FAIL(o, "H5Sclose");
}

/* 1-D rows [at, at + n) of dataset d. */
static void put_rows(h5out *o, hid_t d, int64_t at, int64_t n, hid_t mtype, const void *buf) {
  const hsize_t start = (hsize_t)at, count = (hsize_t)n;
  if (n > 0) put_block(o, d, 1, &start, &count, mtype, buf);
}

/* The fine view's topology (as put_lines_topology's) one x plane at a time. */
static void put_lines_topology_slabs(h5out *o, hid_t vtk, const gs_gpr_geometry *g, int64_t np, int64_t nl) {
  const int64_t *s = g->box.size, ys = s[2] + 1, xs = (s[1] + 1) * ys, per = 3 * s[1] * s[2];
  const hsize_t dp[2] = {(hsize_t)np, 3}, dc = (hsize_t)(2 * nl), doff = (hsize_t)(nl + 1), dt = (hsize_t)nl;
  hid_t d[4] = {
      make_dset(o, vtk, "Points", H5T_IEEE_F64LE, 2, dp), make_dset(o, vtk, "Connectivity", H5T_STD_I32LE, 1, &dc),
      make_dset(o, vtk, "Offsets", H5T_STD_I32LE, 1, &doff), make_dset(o, vtk, "Types", H5T_STD_U8LE, 1, &dt)};
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
    put_block(o, d[0], 2, start, count, H5T_NATIVE_DOUBLE, pts);
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
    put_rows(o, d[1], 2 * i * per, 2 * per, H5T_NATIVE_INT32, conn);
    put_rows(o, d[2], i * per, per, H5T_NATIVE_INT32, offs);
    put_rows(o, d[3], i * per, per, H5T_NATIVE_UINT8, types);
  }
  if (o->st == GS_OK) { /* the last offset: the end of the last line */
    offs[0] = (int32_t)(2 * nl);
    put_rows(o, d[2], nl, 1, H5T_NATIVE_INT32, offs);
  }
  for (int q = 0; q < 4; ++q)
    close_dset(o, d[q]);
  free(pts);
  free(conn);
  free(offs);
  free(types);
}

/* The fine view's file but its materials (put_lines_vtkhdf's layout). */
static void lines_slabs_begin(gs_gpr_layers *w, const gs_gpr_geometry *g, int64_t cells) {
  static const int64_t version[2] = {2, 2};
  h5out *o = &w->o;
  const int64_t nl = 3 * cells, np = (g->box.size[0] + 1) * (g->box.size[1] + 1) * (g->box.size[2] + 1);
  const int64_t counts[3] = {nl, 2 * nl, np};
  const hsize_t one = 1, dl = (hsize_t)nl;
  w->vtk = make_group(o, o->file, "VTKHDF");
  hid_t type = w->vtk < 0 ? -1 : str_type(o, strlen("UnstructuredGrid"), H5T_CSET_ASCII);
  if (type >= 0) {
    put_attr(o, w->vtk, "Type", type, type, 0, "UnstructuredGrid");
    if (H5Tclose(type) < 0) FAIL(o, "H5Tclose");
  }
  if (o->st == GS_OK &&
      !(put_i64(o, w->vtk, "Version", 2, version) ||
        put_dset(o, w->vtk, "NumberOfCells", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[0]) ||
        put_dset(o, w->vtk, "NumberOfConnectivityIds", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[1]) ||
        put_dset(o, w->vtk, "NumberOfPoints", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &one, &counts[2])))
    put_lines_topology_slabs(o, w->vtk, g, np, nl);
  w->cells = o->st == GS_OK ? make_group(o, w->vtk, "CellData") : -1;
  if (w->cells >= 0) w->d[0] = make_dset(o, w->cells, "Material", H5T_STD_U32LE, 1, &dl);
  if (o->st == GS_OK) {
    gs_gpr_geometry meta = *g; /* materials only, as gprMax's fine view */
    meta.pml_always = 0;
    memset(meta.pml, 0, sizeof meta.pml);
    meta.nsrc = meta.nrx = 0;
    put_geometry_fields(o, w->vtk, &meta);
  }
}

gs_status gs_gpr_lines_slabs_open(const char *path, const gs_gpr_geometry *g, gs_gpr_layers **out, char *err,
                                  size_t errlen) {
  int64_t cells = 0;
  *out = NULL;
  gs_status st = check_box(path, &g->box, &cells, err, errlen);
  if (st == GS_OK) st = check_geometry_meta(path, g, err, errlen);
  if (st != GS_OK) return st;
  if (!has_ext(path, ".vtkhdf")) return bad_input(path, "a fine (f) geometry view is .vtkhdf", err, errlen);
  if ((double)(g->box.size[0] + 1) * (double)(g->box.size[1] + 1) * (double)(g->box.size[2] + 1) >= 2147483647.0 ||
      6.0 * (double)cells >= 2147483647.0)
    return bad_input(path, "a fine view of 2^31 points or more (gprMax's int32 connectivity)", err, errlen);
  gs_gpr_layers *w = layers_new(path, &g->box, LAYERS_HDF5_SLABS, 1, sizeof(uint32_t), err, errlen);
  if (!w) return GS_ERR_NOMEM;
  if (h5_open(&w->o, path, err, errlen) == GS_OK) lines_slabs_begin(w, g, cells);
  return layers_begin(w, out);
}

void gs_gpr_lines_slabs_put(gs_gpr_layers *w, int64_t x, const uint32_t *material) {
  const int64_t per = 3 * w->b.size[1] * w->b.size[2];
  put_rows(&w->o, w->d[0], x * per, per, H5T_NATIVE_UINT32, material);
}

gs_status gs_gpr_geomobj_slabs_open(const char *path, const gs_gpr_geomobj *g, gs_gpr_layers **out, char *err,
                                    size_t errlen) {
  gs_gpr_box box = {.size = {g->size[0], g->size[1], g->size[2]}};
  int64_t cells = 0;
  *out = NULL;
  gs_status st = check_box(path, &box, &cells, err, errlen);
  if (st != GS_OK) return st;
  gs_gpr_layers *w = layers_new(path, &box, LAYERS_HDF5_SLABS, 4, 1, err, errlen);
  if (!w) return GS_ERR_NOMEM;
  const hsize_t dd[3] = {(hsize_t)g->size[0], (hsize_t)g->size[1], (hsize_t)g->size[2]};
  const hsize_t de[4] = {12, dd[0], dd[1], dd[2]}, dh[4] = {6, dd[0], dd[1], dd[2]};
  const hsize_t di[4] = {6, dd[0] + 1, dd[1] + 1, dd[2] + 1};
  h5out *o = &w->o;
  if (h5_open(o, path, err, errlen) == GS_OK &&
      !(put_str(o, o->file, "gprMax", GPR_VERSION) || put_str(o, o->file, "Title", g->title ? g->title : "") ||
        put_f64(o, o->file, "dx_dy_dz", 3, g->dxdydz))) {
    w->d[0] = make_dset(o, o->file, "data", H5T_STD_I16LE, 3, dd);
    w->d[1] = make_dset(o, o->file, "rigidE", H5T_STD_I8LE, 4, de);
    w->d[2] = make_dset(o, o->file, "rigidH", H5T_STD_I8LE, 4, dh);
    w->d[3] = make_dset(o, o->file, "ID", H5T_STD_U32LE, 4, di);
  }
  return layers_begin(w, out);
}

void gs_gpr_geomobj_slabs_put_cells(gs_gpr_layers *w, int64_t x, const int16_t *data, const int8_t *rigid) {
  const hsize_t sy = (hsize_t)w->b.size[1], sz = (hsize_t)w->b.size[2];
  const hsize_t start3[3] = {(hsize_t)x, 0, 0}, count3[3] = {1, sy, sz}, count4[4] = {1, 1, sy, sz};
  put_block(&w->o, w->d[0], 3, start3, count3, H5T_NATIVE_INT16, data);
  for (int b = 0; b < 18; ++b) {
    const hsize_t start4[4] = {(hsize_t)(b < 12 ? b : b - 12), (hsize_t)x, 0, 0};
    put_block(&w->o, w->d[b < 12 ? 1 : 2], 4, start4, count4, H5T_NATIVE_INT8, rigid + (size_t)b * sy * sz);
  }
}

void gs_gpr_geomobj_slabs_put_nodes(gs_gpr_layers *w, int64_t x, const uint32_t *id) {
  const hsize_t ny = (hsize_t)w->b.size[1] + 1, nz = (hsize_t)w->b.size[2] + 1, count[4] = {1, 1, ny, nz};
  for (int c = 0; c < 6; ++c) {
    const hsize_t start[4] = {(hsize_t)c, (hsize_t)x, 0, 0};
    put_block(&w->o, w->d[3], 4, start, count, H5T_NATIVE_UINT32, id + (size_t)c * ny * nz);
  }
}

/* ---- VTK XML ImageData (.vti) ---------------------------------------------- */

static const char *byte_order(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first ? "LittleEndian" : "BigEndian";
}

/* The shortest of %.15g..%.17g that reads back as v (null when not finite). */
static void put_num(FILE *f, double v) {
  char s[40];
  if (!isfinite(v)) {
    fputs("null", f);
    return;
  }
  for (int p = 15; p <= 17; p++) {
    snprintf(s, sizeof s, "%.*g", p, v);
    if (strtod(s, NULL) == v) break;
  }
  fputs(s, f);
}

static void put_nums(FILE *f, const double *v, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) fputs(sep, f);
    put_num(f, v[i]);
  }
}

/* s as a JSON string inside an XML comment: quotes, backslashes and control
 * characters escaped, and a '-' after a '-' too (a comment may not hold "--"). */
static void put_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || (*p == '-' && p != (const unsigned char *)s && p[-1] == '-'))
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void put_json_list(FILE *f, const char *key, int n, const char *const *ids, const double *pos) {
  fprintf(f, ", \"%s\": [", key);
  for (int i = 0; i < n; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    put_json_str(f, ids[i]);
    fputs(", \"position\": [", f);
    put_nums(f, pos + 3 * i, 3, ", ");
    fputs("]}", f);
  }
  fputc(']', f);
}

/* gprMax 3's metadata comment of a geometry view. */
static void put_geometry_comment(FILE *f, const gs_gpr_geometry *g) {
  fputs("<!-- {\"gprMax_version\": \"" GPR_VERSION "\", \"dx_dy_dz\": [", f);
  put_nums(f, g->dxdydz, 3, ", ");
  fprintf(f, "], \"nx_ny_nz\": [%" PRId64 ", %" PRId64 ", %" PRId64 "], \"Materials\": [", g->nxnynz[0], g->nxnynz[1],
          g->nxnynz[2]);
  for (int m = 0; m < g->nmaterials; m++) {
    if (m) fputs(", ", f);
    put_json_str(f, g->material_names[m]);
  }
  fputs("], \"PMLthickness\": [", f);
  for (int a = 0; a < 6; a++)
    fprintf(f, "%s%" PRId64, a ? ", " : "", g->pml[a]);
  fputc(']', f);
  put_json_list(f, "Sources", g->nsrc, g->src_ids, g->src_pos);
  put_json_list(f, "Receivers", g->nrx, g->rx_ids, g->rx_pos);
  fputs("} -->\n", f);
}

/* The XML before the CellData arrays. */
static void put_vti_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time) {
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n",
          byte_order());
  if (g) put_geometry_comment(f, g);
  char extent[80];
  snprintf(extent, sizeof extent, "0 %" PRId64 " 0 %" PRId64 " 0 %" PRId64, b->size[0], b->size[1], b->size[2]);
  fprintf(f, "<ImageData WholeExtent=\"%s\" Origin=\"", extent);
  put_nums(f, b->origin, 3, " ");
  fputs("\" Spacing=\"", f);
  put_nums(f, b->spacing, 3, " ");
  fputs("\">\n", f);
  if (time) {
    fputs("<FieldData>\n<DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">", f);
    put_num(f, *time);
    fputs("</DataArray>\n</FieldData>\n", f);
  }
  fprintf(f, "<Piece Extent=\"%s\">\n<CellData%s>\n", extent, g ? " Scalars=\"Material\"" : "");
}

/* The XML of a .vti file of n arrays (names, VTK type, bytes per value; a
 * NULL data[a] is left out) of cells values each, up to the appended data's '_'. */
static void vti_arrays_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                            const char *const *names, const char *type, size_t vsize, const void *const *data,
                            int64_t cells) {
  put_vti_head(f, b, g, time);
  uint64_t bytes = (uint64_t)cells * vsize, offset = 0;
  for (int a = 0; a < n; a++) {
    if (!data[a]) continue;
    fprintf(
        f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"1\" format=\"appended\" offset=\"%" PRIu64 "\"/>\n",
        type, names[a], offset);
    offset += sizeof bytes + bytes;
  }
  fputs("</CellData>\n</Piece>\n</ImageData>\n<AppendedData encoding=\"raw\">\n_", f);
}

/* A .vti file of n arrays (names, VTK type, bytes per value, data) of cells
 * values each, through a temporary file. */
static gs_status write_vti(const char *path, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                           const char *const *names, const char *type, size_t vsize, const void *const *data,
                           int64_t cells, char *err, size_t errlen) {
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  vti_arrays_head(t.fp, b, g, time, n, names, type, vsize, data, cells);
  uint64_t bytes = (uint64_t)cells * vsize;
  int failed = 0;
  for (int a = 0; a < n && !failed; a++)
    if (data[a])
      failed =
          fwrite(&bytes, sizeof bytes, 1, t.fp) != 1 || fwrite(data[a], vsize, (size_t)cells, t.fp) != (size_t)cells;
  failed |= fputs("\n</AppendedData>\n</VTKFile>\n", t.fp) < 0;
  return gs_tmpfile_commit(&t, failed, 0, err, errlen);
}

/* ---- the entry points -------------------------------------------------------- */

gs_status gs_gpr_write_snapshot(const char *path, const gs_gpr_box *b, double time, const float *const fields[6],
                                char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = check_box(path, b, &cells, err, errlen);
  if (st != GS_OK) return st;
  int any = 0;
  for (int c = 0; c < 6; c++)
    any |= fields[c] != NULL;
  if (!any) return bad_input(path, "no field", err, errlen);
  if (has_ext(path, ".vti"))
    return write_vti(path, b, NULL, &time, 6, field_names, "Float32", sizeof(float), (const void *const *)fields, cells,
                     err, errlen);
  int h5 = has_ext(path, ".h5");
  if (!h5 && !has_ext(path, ".vtkhdf")) return bad_input(path, "a snapshot is .h5, .vtkhdf or .vti", err, errlen);
  h5out o;
  if (h5_open(&o, path, err, errlen) == GS_OK) {
    if (h5)
      put_snapshot_h5(&o, b, time, fields);
    else
      put_snapshot_vtkhdf(&o, b, fields);
  }
  return h5_close(&o);
}

/* A geometry view's names, sources and receivers (not its material array). */
static gs_status check_geometry_meta(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  if (g->nmaterials < 0 || (g->nmaterials && !g->material_names))
    return bad_input(path, "no material names", err, errlen);
  for (int m = 0; m < g->nmaterials; m++)
    if (!g->material_names[m]) return bad_input(path, "a material without a name", err, errlen);
  if (g->nsrc < 0 || g->nrx < 0 || (g->nsrc && (!g->src_ids || !g->src_pos)) || (g->nrx && (!g->rx_ids || !g->rx_pos)))
    return bad_input(path, "no source or receiver arrays", err, errlen);
  for (int s = 0; s < g->nsrc; s++)
    if (!g->src_ids[s]) return bad_input(path, "a source without a name", err, errlen);
  for (int r = 0; r < g->nrx; r++)
    if (!g->rx_ids[r]) return bad_input(path, "a receiver without a name", err, errlen);
  return GS_OK;
}

static gs_status check_geometry(const char *path, const gs_gpr_geometry *g, int64_t *cells, char *err, size_t errlen) {
  gs_status st = check_box(path, &g->box, cells, err, errlen);
  if (st != GS_OK) return st;
  if (!g->material) return bad_input(path, "no material array", err, errlen);
  return check_geometry_meta(path, g, err, errlen);
}

gs_status gs_gpr_write_geometry(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = check_geometry(path, g, &cells, err, errlen);
  if (st != GS_OK) return st;
  if (has_ext(path, ".vti")) {
    static const char *const name[1] = {"Material"};
    const void *data[1] = {g->material};
    return write_vti(path, &g->box, g, NULL, 1, name, "UInt32", sizeof(uint32_t), data, cells, err, errlen);
  }
  if (!has_ext(path, ".vtkhdf")) return bad_input(path, "a geometry view is .vtkhdf or .vti", err, errlen);
  h5out o;
  if (h5_open(&o, path, err, errlen) == GS_OK) put_geometry_vtkhdf(&o, g);
  return h5_close(&o);
}

gs_status gs_gpr_write_geometry_lines(const char *path, const gs_gpr_geometry *g, char *err, size_t errlen) {
  int64_t cells = 0;
  gs_status st = check_geometry(path, g, &cells, err, errlen);
  if (st != GS_OK) return st;
  if (!has_ext(path, ".vtkhdf")) return bad_input(path, "a fine (f) geometry view is .vtkhdf", err, errlen);
  if ((double)(g->box.size[0] + 1) * (double)(g->box.size[1] + 1) * (double)(g->box.size[2] + 1) >= 2147483647.0 ||
      6.0 * (double)cells >= 2147483647.0)
    return bad_input(path, "a fine view of 2^31 points or more (gprMax's int32 connectivity)", err, errlen);
  h5out o;
  if (h5_open(&o, path, err, errlen) == GS_OK) put_lines_vtkhdf(&o, g, cells);
  return h5_close(&o);
}

gs_status gs_gpr_write_geometry_object(const char *path, const gs_gpr_geomobj *g, char *err, size_t errlen) {
  gs_gpr_box box = {.size = {g->size[0], g->size[1], g->size[2]}};
  int64_t cells = 0;
  gs_status st = check_box(path, &box, &cells, err, errlen);
  if (st != GS_OK) return st;
  if (!g->data || !g->rigidE || !g->rigidH || !g->id) return bad_input(path, "no data, rigid or ID array", err, errlen);
  const hsize_t dd[3] = {(hsize_t)g->size[0], (hsize_t)g->size[1], (hsize_t)g->size[2]};
  const hsize_t de[4] = {12, dd[0], dd[1], dd[2]}, dh[4] = {6, dd[0], dd[1], dd[2]};
  const hsize_t di[4] = {6, dd[0] + 1, dd[1] + 1, dd[2] + 1};
  h5out o;
  if (h5_open(&o, path, err, errlen) == GS_OK)
    (void)(put_str(&o, o.file, "gprMax", GPR_VERSION) || put_str(&o, o.file, "Title", g->title ? g->title : "") ||
           put_f64(&o, o.file, "dx_dy_dz", 3, g->dxdydz) ||
           put_dset(&o, o.file, "data", H5T_STD_I16LE, H5T_NATIVE_INT16, 3, dd, g->data) ||
           put_dset(&o, o.file, "rigidE", H5T_STD_I8LE, H5T_NATIVE_INT8, 4, de, g->rigidE) ||
           put_dset(&o, o.file, "rigidH", H5T_STD_I8LE, H5T_NATIVE_INT8, 4, dh, g->rigidH) ||
           put_dset(&o, o.file, "ID", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, di, g->id));
  return h5_close(&o);
}

/* The checked HDF5 writing of gprMax's files (gprmax_h5w_internal.h): a file written as
 * PATH.tmp-PID and renamed into place, attributes, strings, groups and datasets with the
 * types h5py gives gprMax's Python values, blocks of datasets; every libhdf5 call checked,
 * the first failure kept with HDF5's reason. */
#include "gprmax_h5w_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Records the first failure: "PATH: CALL failed: REASON [FILE:LINE]", FILE the
 * source file's name without its folders, with the reason from HDF5's error
 * stack, which it then clears. Returns -1. */
int gs_h5w_fail(gs_h5w *o, const char *call, const char *file, int line) {
  if (o->st != GS_OK) return -1;
  char why[256] = "";
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why) < 0 || !why[0]) snprintf(why, sizeof why, "HDF5 error");
  H5Eclear2(H5E_DEFAULT); /* nothing left to report if this fails too */
  const char *base = strrchr(file, '/');
  snprintf(o->err, o->errlen, "%s: %s failed: %s [%s:%d]", o->path, call, why, base ? base + 1 : file, line);
  o->st = GS_ERR_IO;
  return -1;
}

/* Creates PATH.tmp-PID with HDF5's printing off (restored by gs_h5w_close):
 * superblock of the earliest version as h5py writes, no file locking (the
 * temporary is ours alone; some parallel file systems refuse locks), and
 * every object closed with the file. */
gs_status gs_h5w_open(gs_h5w *o, const char *path, char *err, size_t errlen) {
  *o = (gs_h5w){.path = path, .file = -1, .err = err, .errlen = errlen};
  size_t len = strlen(path) + 32;
  o->tmp = malloc(len);
  if (!o->tmp) {
    snprintf(err, errlen, "%s: out of memory", path);
    return o->st = GS_ERR_NOMEM;
  }
  snprintf(o->tmp, len, "%s.tmp-%ld", path, (long)getpid());
  if (H5Eget_auto2(H5E_DEFAULT, &o->old_func, &o->old_data) < 0) {
    GS_H5W_FAIL(o, "H5Eget_auto2");
    return o->st;
  }
  if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) {
    GS_H5W_FAIL(o, "H5Eset_auto2");
    return o->st;
  }
  o->restore = 1;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) {
    GS_H5W_FAIL(o, "H5Pcreate");
    return o->st;
  }
  if (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) GS_H5W_FAIL(o, "H5Pset_fclose_degree");
#if H5_VERSION_GE(1, 10, 7)
  if (o->st == GS_OK && H5Pset_file_locking(fapl, 0, 1) < 0) GS_H5W_FAIL(o, "H5Pset_file_locking");
#endif
  if (o->st == GS_OK) {
    o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (o->file < 0) GS_H5W_FAIL(o, "H5Fcreate");
  }
  if (H5Pclose(fapl) < 0) GS_H5W_FAIL(o, "H5Pclose");
  return o->st;
}

/* Closes the file and renames it into place, or removes it after a failure;
 * restores HDF5's printing; frees the name. The status of the whole write. */
gs_status gs_h5w_close(gs_h5w *o) {
  if (o->file >= 0 && H5Fclose(o->file) < 0) GS_H5W_FAIL(o, "H5Fclose");
  if (o->tmp && o->st == GS_OK && rename(o->tmp, o->path) != 0) {
    snprintf(o->err, o->errlen, "%s: rename from %s failed: %s", o->path, o->tmp, strerror(errno));
    o->st = GS_ERR_IO;
  }
  if (o->tmp && o->st != GS_OK) unlink(o->tmp); /* may not exist: nothing to do then */
  if (o->restore && H5Eset_auto2(H5E_DEFAULT, o->old_func, o->old_data) < 0) GS_H5W_FAIL(o, "H5Eset_auto2");
  free(o->tmp);
  o->tmp = NULL;
  return o->st;
}

/* A dataspace: a scalar for rank 0. */
hid_t gs_h5w_space(gs_h5w *o, int rank, const hsize_t *dims) {
  hid_t s = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  if (s < 0) GS_H5W_FAIL(o, rank ? "H5Screate_simple" : "H5Screate");
  return s;
}

/* Writes attribute name of loc: n values (n 0: a scalar) of file type ftype
 * from memory type mtype. 0 or -1. */
int gs_h5w_put_attr(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *data) {
  hid_t space = gs_h5w_space(o, n ? 1 : 0, &n);
  if (space < 0) return -1;
  hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 ? GS_H5W_FAIL(o, "H5Acreate2") : 0;
  if (rc == 0 && H5Awrite(a, mtype, data) < 0) rc = GS_H5W_FAIL(o, "H5Awrite");
  if (a >= 0 && H5Aclose(a) < 0) rc = GS_H5W_FAIL(o, "H5Aclose");
  if (H5Sclose(space) < 0) rc = GS_H5W_FAIL(o, "H5Sclose");
  return rc;
}

int gs_h5w_put_f64(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const double *v) {
  return gs_h5w_put_attr(o, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
}
int gs_h5w_put_i64(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const int64_t *v) {
  return gs_h5w_put_attr(o, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v);
}
int gs_h5w_put_i32(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const int32_t *v) {
  return gs_h5w_put_attr(o, loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, n, v);
}

/* A string type: variable length (len 0) or len bytes null-padded. */
hid_t gs_h5w_str_type(gs_h5w *o, size_t len, H5T_cset_t cset) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return GS_H5W_FAIL(o, "H5Tcopy");
  int bad = H5Tset_size(t, len ? len : H5T_VARIABLE) < 0 ? GS_H5W_FAIL(o, "H5Tset_size") : 0;
  if (!bad && H5Tset_cset(t, cset) < 0) bad = GS_H5W_FAIL(o, "H5Tset_cset");
  if (!bad && len && H5Tset_strpad(t, H5T_STR_NULLPAD) < 0) bad = GS_H5W_FAIL(o, "H5Tset_strpad");
  if (bad && H5Tclose(t) < 0) GS_H5W_FAIL(o, "H5Tclose");
  return bad ? -1 : t;
}

/* A scalar string attribute as h5py writes a Python str: variable-length UTF-8. */
int gs_h5w_put_str(gs_h5w *o, hid_t loc, const char *name, const char *s) {
  hid_t t = gs_h5w_str_type(o, 0, H5T_CSET_UTF8);
  if (t < 0) return -1;
  int rc = gs_h5w_put_attr(o, loc, name, t, t, 0, &s);
  if (H5Tclose(t) < 0) rc = GS_H5W_FAIL(o, "H5Tclose");
  return rc;
}

/* Object creation properties as h5py's: no modification times (files
 * written twice from the same data are identical). */
static hid_t no_times(gs_h5w *o, hid_t cls) {
  hid_t p = H5Pcreate(cls);
  if (p < 0) return GS_H5W_FAIL(o, "H5Pcreate");
  if (H5Pset_obj_track_times(p, 0) < 0) {
    GS_H5W_FAIL(o, "H5Pset_obj_track_times");
    if (H5Pclose(p) < 0) GS_H5W_FAIL(o, "H5Pclose");
    return -1;
  }
  return p;
}

/* Creates group name in loc (close it with gs_h5w_close_group). */
hid_t gs_h5w_make_group(gs_h5w *o, hid_t loc, const char *name) {
  hid_t p = no_times(o, H5P_GROUP_CREATE);
  if (p < 0) return -1;
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, p, H5P_DEFAULT);
  if (g < 0) GS_H5W_FAIL(o, "H5Gcreate2");
  if (H5Pclose(p) < 0) GS_H5W_FAIL(o, "H5Pclose");
  return g;
}

int gs_h5w_close_group(gs_h5w *o, hid_t g) {
  return g >= 0 && H5Gclose(g) < 0 ? GS_H5W_FAIL(o, "H5Gclose") : 0;
}

/* Creates dataset name in loc, contiguous, of ftype and dims (close it with
 * gs_h5w_close_dset). */
hid_t gs_h5w_make_dset(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims) {
  hid_t space = gs_h5w_space(o, rank, dims);
  hid_t dcpl = space < 0 ? -1 : no_times(o, H5P_DATASET_CREATE);
  hid_t d = dcpl < 0 ? -1 : H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0 && d < 0) GS_H5W_FAIL(o, "H5Dcreate2");
  if (dcpl >= 0 && H5Pclose(dcpl) < 0) GS_H5W_FAIL(o, "H5Pclose");
  if (space >= 0 && H5Sclose(space) < 0) GS_H5W_FAIL(o, "H5Sclose");
  return d;
}

int gs_h5w_close_dset(gs_h5w *o, hid_t d) {
  return d >= 0 && H5Dclose(d) < 0 ? GS_H5W_FAIL(o, "H5Dclose") : 0;
}

/* Dataset name in loc (as gs_h5w_make_dset) holding data of memory type mtype. */
int gs_h5w_put_dset(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                    const void *data) {
  hsize_t n = 1;
  for (int a = 0; a < rank; a++)
    n *= dims[a];
  hid_t d = gs_h5w_make_dset(o, loc, name, ftype, rank, dims);
  if (d >= 0 && n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) GS_H5W_FAIL(o, "H5Dwrite");
  gs_h5w_close_dset(o, d);
  return o->st == GS_OK ? 0 : -1;
}

/* A 1-D dataset of n variable-length ASCII strings (VTKHDF field data). */
int gs_h5w_put_strings(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const char *const *s) {
  hid_t t = gs_h5w_str_type(o, 0, H5T_CSET_ASCII);
  if (t < 0) return -1;
  int rc = gs_h5w_put_dset(o, loc, name, t, t, 1, &n, s);
  if (H5Tclose(t) < 0) rc = GS_H5W_FAIL(o, "H5Tclose");
  return rc;
}

/* The block start + [0, count) of dataset d (rank dims) from buf (mtype, in the block's order). */
void gs_h5w_put_block(gs_h5w *o, hid_t d, int rank, const hsize_t *start, const hsize_t *count, hid_t mtype,
                      const void *buf) {
  if (o->st != GS_OK) return;
  hid_t fs = H5Dget_space(d);
  if (fs < 0) {
    GS_H5W_FAIL(o, "H5Dget_space");
    return;
  }
  hid_t ms = gs_h5w_space(o, rank, count);
  if (ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
    GS_H5W_FAIL(o, "H5Sselect_hyperslab");
  else if (ms >= 0 && H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
    GS_H5W_FAIL(o, "H5Dwrite");
  if (ms >= 0 && H5Sclose(ms) < 0) GS_H5W_FAIL(o, "H5Sclose");
  if (H5Sclose(fs) < 0) GS_H5W_FAIL(o, "H5Sclose");
}

/* 1-D rows [at, at + n) of dataset d. */
void gs_h5w_put_rows(gs_h5w *o, hid_t d, int64_t at, int64_t n, hid_t mtype, const void *buf) {
  const hsize_t start = (hsize_t)at, count = (hsize_t)n;
  if (n > 0) gs_h5w_put_block(o, d, 1, &start, &count, mtype, buf);
}

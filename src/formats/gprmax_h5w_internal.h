/* HDF5 writing for gprMax's files (gprmax_h5w.c), shared by the writers of src/formats; not
 * an interface and not installed. Every libhdf5 call is checked: the first failure is kept
 * in the gs_h5w (its status and one line "PATH: CALL failed: REASON [FILE:LINE]" in its err),
 * and every function below does nothing more once one is kept. Integer results are 0 or -1;
 * hid_t results are -1 after a failure. */
#ifndef GS_GPRMAX_H5W_INTERNAL_H
#define GS_GPRMAX_H5W_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* One HDF5 output being written: its temporary file and the first failure. */
typedef struct gs_h5w {
  const char *path; /* the final name, for messages */
  char *tmp;        /* PATH.tmp-PID */
  hid_t file;
  gs_status st;
  char *err;
  size_t errlen;
  H5E_auto2_t old_func; /* the error printer to restore */
  void *old_data;
  int restore;
} gs_h5w;

/* Records the first failure: "PATH: CALL failed: REASON [FILE:LINE]", with the reason from
 * HDF5's error stack, which it then clears. Returns -1. */
int gs_h5w_fail(gs_h5w *o, const char *call, const char *file, int line);
#define GS_H5W_FAIL(o, call) gs_h5w_fail((o), (call), __FILE__, __LINE__)

/* Creates PATH.tmp-PID with HDF5's printing off (restored by gs_h5w_close). */
gs_status gs_h5w_open(gs_h5w *o, const char *path, char *err, size_t errlen);
/* Closes the file and renames it into place, or removes it after a failure;
 * restores HDF5's printing; frees the name. The status of the whole write. */
gs_status gs_h5w_close(gs_h5w *o);
/* A dataspace: a scalar for rank 0. */
hid_t gs_h5w_space(gs_h5w *o, int rank, const hsize_t *dims);
/* Attribute name of loc: n values (n 0: a scalar) of file type ftype from memory type mtype. */
int gs_h5w_put_attr(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *data);
int gs_h5w_put_f64(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const double *v);
int gs_h5w_put_i64(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const int64_t *v);
int gs_h5w_put_i32(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const int32_t *v);
/* A string type: variable length (len 0) or len bytes null-padded (close it with H5Tclose). */
hid_t gs_h5w_str_type(gs_h5w *o, size_t len, H5T_cset_t cset);
/* A scalar string attribute as h5py writes a Python str: variable-length UTF-8. */
int gs_h5w_put_str(gs_h5w *o, hid_t loc, const char *name, const char *s);
/* Group name in loc, without modification times as h5py's (close it with gs_h5w_close_group). */
hid_t gs_h5w_make_group(gs_h5w *o, hid_t loc, const char *name);
int gs_h5w_close_group(gs_h5w *o, hid_t g);
/* Dataset name in loc, contiguous, of ftype and dims, without modification times (close it
 * with gs_h5w_close_dset). */
hid_t gs_h5w_make_dset(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims);
int gs_h5w_close_dset(gs_h5w *o, hid_t d);
/* Dataset name in loc (as gs_h5w_make_dset) holding data of memory type mtype. */
int gs_h5w_put_dset(gs_h5w *o, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                    const void *data);
/* A 1-D dataset of n variable-length ASCII strings (VTKHDF field data). */
int gs_h5w_put_strings(gs_h5w *o, hid_t loc, const char *name, hsize_t n, const char *const *s);
/* The block start + [0, count) of dataset d (rank dims) from buf (mtype, in the block's order). */
void gs_h5w_put_block(gs_h5w *o, hid_t d, int rank, const hsize_t *start, const hsize_t *count, hid_t mtype,
                      const void *buf);
/* 1-D rows [at, at + n) of dataset d. */
void gs_h5w_put_rows(gs_h5w *o, hid_t d, int64_t at, int64_t n, hid_t mtype, const void *buf);

#endif

/* gprMax's geometry objects files read (#geometry_objects_read; gprmax_out.h).
 *
 * The file comes from the user and libhdf5 trusts what it reads: a few bytes can make it open
 * other files (external links, external raw storage, a virtual dataset's sources: a FIFO there
 * hangs every rank), allocate gigabytes (a 1x1x1 dataset declared as one huge chunk, deflate
 * applied twice) or read out of bounds (corrupt attribute messages crash libhdf5 1.10 itself).
 * So the file is read in a helper process: this program again (/proc/self/exe) with
 * GS_GEOMOBJ_HELPER_ARG as its first argument, caught by a constructor before main (and before
 * MPI or libFuzzer start), its standard error discarded, its address space and CPU time bounded.
 * It checks what the file declares before anything is read (only hard or in-file soft links, no
 * external links, external storage or virtual datasets, integer datasets of gprMax's ranks, chunks
 * no larger than their dataset, only the deflate, shuffle and fletcher32 filters, storage no larger
 * than the chunks), lowers its memory bound to what the declared arrays need, reads them and sends
 * them through a pipe. A crash, a loop or a blown bound of the helper is one line here. */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "gprmax_out.h"
#include "progress.h"

extern char **environ;

/* The helper's first argument (then the file, the most cells). */
#define GS_GEOMOBJ_HELPER_ARG "--gs-internal-geometry-objects-reader"
/* The helper's address space beyond what it holds when it starts (the file's metadata), then
 * beyond what it holds, the array being read and four of its chunks while reading a dataset. */
#define HELPER_SLACK_BYTES ((double)(256u << 20))
#define READ_SLACK_BYTES ((double)(64u << 20))
/* A chunk may be as large as its dataset, or this many bytes for small datasets. */
#define CHUNK_FLOOR_BYTES ((double)(1u << 20))
#define WIRE_MAGIC 0x47534f42u /* "GSOB" */

/* What the helper answers before the arrays. */
typedef struct wire_head {
  uint32_t magic;
  int32_t status; /* a gs_status */
  int32_t has_rigid;
  int32_t pad;
  double dxdydz[3];
  int64_t size[3];
  char msg[1024];
} wire_head;

/* One read: the file, where the first failure is told. */
typedef struct reader {
  const char *path;
  hid_t file, lapl, dapl;
  gs_status st;
  char *err;
  size_t errlen;
  int bound;          /* the helper: each dataset's read bounds the address space */
  double chunk_bytes; /* the last dataset opened: its chunks' bytes (0: not chunked) */
} reader;

/* ---- the read itself, in the helper ---------------------------------------- */

static int refuse(reader *r, gs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(reader *r, gs_status st, const char *fmt, ...) {
  if (r->st != GS_OK) return -1;
  char why[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(r->err, r->errlen, "%s: %s", r->path, why);
  r->st = st;
  H5Eclear2(H5E_DEFAULT);
  return -1;
}

/* H5Ewalk2 callback: the innermost error's description. */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data) {
  if (n == 0 && e->desc) snprintf(data, 200, "%s", e->desc);
  return 0;
}

/* A failed HDF5 call: its name and the library's innermost reason. */
static int h5_refuse(reader *r, const char *call) {
  char why[200] = "";
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why) < 0 || !why[0]) snprintf(why, sizeof why, "HDF5 error");
  return refuse(r, GS_ERR_FORMAT, "%s failed: %s", call, why);
}

/* Link traversal callback: no external link is followed, wherever it is on a path. */
static herr_t no_external_links(const char *parent_file, const char *parent_group, const char *child_file,
                                const char *child_object, unsigned *acc_flags, hid_t fapl, void *op_data) {
  return -1;
}

/* The link name of the root group: a hard link, or a soft one (resolved in this file only, as
 * every traversal refuses external links). 1 when present, 0 when absent, -1 refused. */
static int check_link(reader *r, const char *name) {
  htri_t there = H5Lexists(r->file, name, r->lapl);
  if (there < 0) return h5_refuse(r, "H5Lexists");
  if (!there) return 0;
  H5L_info_t li;
  if (H5Lget_info(r->file, name, &li, r->lapl) < 0) return h5_refuse(r, "H5Lget_info");
  if (li.type == H5L_TYPE_EXTERNAL)
    return refuse(r, GS_ERR_FORMAT, "'%s' is an external link (to an object of another file): refused", name);
  if (li.type != H5L_TYPE_HARD && li.type != H5L_TYPE_SOFT)
    return refuse(r, GS_ERR_FORMAT, "'%s' is a user-defined link: refused", name);
  return 1;
}

/* Refuses what reads data from elsewhere (a virtual dataset, external raw storage) and filters
 * other than deflate, shuffle and fletcher32 (deflate once). */
static int check_layout(reader *r, const char *name, hid_t dcpl) {
  H5D_layout_t layout = H5Pget_layout(dcpl);
  if (layout == H5D_VIRTUAL)
    return refuse(r, GS_ERR_FORMAT, "'%s' is a virtual dataset (its data in other files): refused", name);
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED)
    return refuse(r, GS_ERR_FORMAT, "'%s' has an unknown storage layout (%d)", name, (int)layout);
  int ext = H5Pget_external_count(dcpl);
  if (ext != 0) return refuse(r, GS_ERR_FORMAT, "'%s' keeps its data in external raw files: refused", name);
  int nf = H5Pget_nfilters(dcpl), deflates = 0;
  if (nf < 0) return h5_refuse(r, "H5Pget_nfilters");
  if (nf > 4) return refuse(r, GS_ERR_FORMAT, "'%s' has %d filters: at most 4 are read", name, nf);
  for (int k = 0; k < nf; ++k) {
    unsigned flags, conf;
    size_t nelm = 0;
    char fname[64] = "";
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &nelm, NULL, sizeof fname, fname, &conf);
    fname[sizeof fname - 1] = '\0';
    for (char *c = fname; *c; ++c) /* a name stored in the file: printable only */
      if (*c < 0x20 || *c > 0x7e) *c = '?';
    deflates += id == H5Z_FILTER_DEFLATE;
    if ((id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) || deflates > 1)
      return refuse(r, GS_ERR_FORMAT, "'%s' uses filter %d%s%s%s: only deflate (once), shuffle and fletcher32 are read",
                    name, (int)id, fname[0] ? " (" : "", fname, fname[0] ? ")" : "");
  }
  return 0;
}

/* Bounds the chunks and the storage against the dataset's own size (elements of bytes each). */
static int check_storage(reader *r, const char *name, hid_t d, hid_t dcpl, int rank, const hsize_t *dims,
                         double bytes) {
  double data = bytes, grid = 1;
  for (int a = 0; a < rank; ++a)
    data *= (double)dims[a];
  double most = data; /* compact and contiguous: the data itself */
  r->chunk_bytes = 0;
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t cd[H5S_MAX_RANK];
    if (H5Pget_chunk(dcpl, H5S_MAX_RANK, cd) != rank) return h5_refuse(r, "H5Pget_chunk");
    double chunk = bytes;
    for (int a = 0; a < rank; ++a) {
      chunk *= (double)cd[a];
      grid *= ceil((double)dims[a] / (double)(cd[a] ? cd[a] : 1));
    }
    if (chunk > (data > CHUNK_FLOOR_BYTES ? data : CHUNK_FLOOR_BYTES))
      return refuse(r, GS_ERR_FORMAT,
                    "'%s' is stored in chunks of %.0f bytes, more than the dataset itself (%.0f bytes)", name, chunk,
                    data);
    most = grid * (chunk + 64); /* a chunk a filter could not shrink, with fletcher32's checksum */
    r->chunk_bytes = chunk;
  }
  double stored = (double)H5Dget_storage_size(d);
  if (stored > most + 4096)
    return refuse(r, GS_ERR_FORMAT, "'%s' declares %.0f bytes of storage for %.0f bytes of data", name, stored, data);
  return 0;
}

/* Opens dataset name of rank `rank` with integer values; its dims in dims. -1 when refused. */
static hid_t open_dset(reader *r, const char *name, int rank, hsize_t dims[4]) {
  hid_t d = H5Dopen2(r->file, name, r->dapl), dcpl = -1, sp = -1, t = -1;
  if (d < 0) {
    refuse(r, GS_ERR_FORMAT, "'%s' is not a dataset of this file (not a gprMax geometry objects file)", name);
    return -1;
  }
  dcpl = H5Dget_create_plist(d);
  if (dcpl < 0 || check_layout(r, name, dcpl)) goto fail;
  sp = H5Dget_space(d);
  int got = sp < 0 || H5Sget_simple_extent_type(sp) != H5S_SIMPLE ? -1 : H5Sget_simple_extent_ndims(sp);
  if (got != rank) {
    refuse(r, GS_ERR_FORMAT, "dataset '%s' has %d dimensions, gprMax writes %d", name, got, rank);
    goto fail;
  }
  H5Sget_simple_extent_dims(sp, dims, NULL);
  for (int a = 0; a < rank; ++a)
    if (dims[a] < 1 || dims[a] > INT32_MAX) {
      refuse(r, GS_ERR_FORMAT, "dataset '%s' has a dimension of %llu: 1 to 2^31-1 here", name,
             (unsigned long long)dims[a]);
      goto fail;
    }
  t = H5Dget_type(d);
  size_t tsize = t < 0 ? 0 : H5Tget_size(t);
  if (t < 0 || H5Tget_class(t) != H5T_INTEGER || tsize < 1 || tsize > 8) {
    refuse(r, GS_ERR_FORMAT, "dataset '%s' does not hold integers of 1 to 8 bytes (gprMax writes int8, int16, uint32)",
           name);
    goto fail;
  }
  if (check_storage(r, name, d, dcpl, rank, dims, (double)tsize)) goto fail;
  H5Tclose(t);
  H5Sclose(sp);
  H5Pclose(dcpl);
  return d;
fail:
  if (r->st == GS_OK) h5_refuse(r, "H5Dget_create_plist");
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  H5Dclose(d);
  return -1;
}

/* Sets the address space's soft bound to what this process holds now plus bytes, within the hard
 * bound (which stays: the bound can be set again). For the helper only. */
static void bound_memory(double bytes) {
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return;
  int got = fscanf(f, "%ld", &pages);
  fclose(f);
  double limit = (double)pages * (double)sysconf(_SC_PAGESIZE) + bytes;
  struct rlimit rl;
  if (got != 1 || getrlimit(RLIMIT_AS, &rl) != 0) return;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || limit < (double)rl.rlim_max ? (rlim_t)limit : rl.rlim_max;
  setrlimit(RLIMIT_AS, &rl);
}

/* Dataset name of the given dims (want, or any when NULL), converted to mtype, into a new array. */
static void *read_dset(reader *r, const char *name, int rank, const hsize_t *want, hid_t mtype, size_t esize) {
  hsize_t dims[4] = {0, 0, 0, 0};
  hid_t d = open_dset(r, name, rank, dims);
  if (d < 0) return NULL;
  size_t n = 1;
  for (int a = 0; a < rank; ++a) {
    if (want && dims[a] != want[a])
      refuse(r, GS_ERR_FORMAT, "dataset '%s' does not have the shape data's implies", name);
    n *= (size_t)dims[a];
  }
  if (r->bound) bound_memory((double)n * (double)esize + 4 * r->chunk_bytes + READ_SLACK_BYTES);
  void *buf = r->st == GS_OK ? malloc(n * esize + 1) : NULL;
  if (r->st == GS_OK && !buf) refuse(r, GS_ERR_NOMEM, "out of memory reading '%s'", name);
  if (buf && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) h5_refuse(r, "H5Dread");
  H5Dclose(d);
  if (r->st != GS_OK) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Root attribute dx_dy_dz: three finite positive numbers (floats or integers). */
static void read_spacing(reader *r, double dxdydz[3]) {
  htri_t there = H5Aexists(r->file, "dx_dy_dz");
  hid_t a = there > 0 ? H5Aopen(r->file, "dx_dy_dz", H5P_DEFAULT) : -1;
  hid_t sp = a < 0 ? -1 : H5Aget_space(a), t = a < 0 ? -1 : H5Aget_type(a);
  H5T_class_t cls = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
  size_t size = t < 0 ? 0 : H5Tget_size(t);
  int ok = sp >= 0 && H5Sget_simple_extent_type(sp) == H5S_SIMPLE && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_npoints(sp) == 3 && (cls == H5T_FLOAT || cls == H5T_INTEGER) && size >= 1 &&
           size <= 8 && H5Aread(a, H5T_NATIVE_DOUBLE, dxdydz) >= 0;
  for (int k = 0; ok && k < 3; ++k)
    ok = isfinite(dxdydz[k]) && dxdydz[k] > 0;
  if (!ok) refuse(r, GS_ERR_FORMAT, "no attribute dx_dy_dz of three positive numbers");
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  if (a >= 0) H5Aclose(a);
}

/* rigidE, rigidH and ID when all three are there (gprMax then uses them), as g->rigid and g->id. */
static void read_rigid(reader *r, const hsize_t dims[3], gs_gpr_geomobj_in *g) {
  int there = 0;
  const char *names[3] = {"rigidE", "rigidH", "ID"};
  for (int k = 0; k < 3 && r->st == GS_OK; ++k)
    there += check_link(r, names[k]) > 0;
  if (r->st != GS_OK || there < 3) return; /* gprMax then builds voxels from data alone */
  const hsize_t we[4] = {12, dims[0], dims[1], dims[2]}, wh[4] = {6, dims[0], dims[1], dims[2]};
  const hsize_t wi[4] = {6, dims[0] + 1, dims[1] + 1, dims[2] + 1};
  int8_t *e = read_dset(r, "rigidE", 4, we, H5T_NATIVE_INT8, 1);
  int8_t *h = e ? read_dset(r, "rigidH", 4, wh, H5T_NATIVE_INT8, 1) : NULL;
  g->id = h ? read_dset(r, "ID", 4, wi, H5T_NATIVE_UINT32, sizeof(uint32_t)) : NULL;
  size_t n = (size_t)(dims[0] * dims[1] * dims[2]);
  if (g->id && r->bound) bound_memory(18.0 * (double)n + READ_SLACK_BYTES); /* the joined copy (the helper) */
  g->rigid = g->id ? malloc(18 * n) : NULL;
  if (g->rigid) {
    memcpy(g->rigid, e, 12 * n);
    memcpy(g->rigid + 12 * n, h, 6 * n);
  } else if (g->id) {
    refuse(r, GS_ERR_NOMEM, "out of memory");
  }
  free(e);
  free(h);
}

/* CPU seconds the helper may add for a file declaring that many cells: a
 * small compressed file of many cells takes its time to inflate (about 44
 * bytes a cell at 50 MB/s, well below zlib's pace). */
static double cells_cpu_seconds(double cells) {
  return cells * 44.0 / 50e6;
}

/* Raises the helper's CPU-time bound by the cells the file declares (within
 * the hard bound bound_cpu set from the most cells allowed). */
static void cpu_for_cells(double cells) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_CPU, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
  double soft = (double)rl.rlim_cur + cells_cpu_seconds(cells);
  if (rl.rlim_max != RLIM_INFINITY && soft > (double)rl.rlim_max - 1) soft = (double)rl.rlim_max - 1;
  rl.rlim_cur = (rlim_t)soft;
  setrlimit(RLIMIT_CPU, &rl);
}

/* The file's contents into g (r->file open). */
static void read_geomobj(reader *r, int64_t max_cells, gs_gpr_geomobj_in *g) {
  read_spacing(r, g->dxdydz);
  if (r->st != GS_OK) return;
  int there = check_link(r, "data");
  if (there == 0) refuse(r, GS_ERR_FORMAT, "no dataset 'data' (not a gprMax geometry objects file)");
  hsize_t dims[4] = {0, 0, 0, 0};
  hid_t d = r->st == GS_OK ? open_dset(r, "data", 3, dims) : -1;
  if (d < 0) return;
  H5Dclose(d);
  double cells = (double)dims[0] * (double)dims[1] * (double)dims[2];
  if (cells > (double)max_cells) {
    refuse(r, GS_ERR_FORMAT,
           "data holds %.0f cells: 1 to %lld here (8 times the model's, and as many as the rank's share of "
           "host memory can read at %d bytes a cell)",
           cells, (long long)max_cells, GS_GEOMOBJ_READ_BYTES_PER_CELL);
    return;
  }
  if (r->bound) cpu_for_cells(cells);
  for (int k = 0; k < 3; ++k)
    g->size[k] = (int64_t)dims[k];
  g->data = read_dset(r, "data", 3, dims, H5T_NATIVE_INT16, sizeof(int16_t));
  if (r->st == GS_OK) read_rigid(r, dims, g);
}

/* The property lists every open uses: no external link followed, a bounded chain of soft links,
 * external raw files and virtual sources looked up nowhere. 0 or -1. */
static int make_lists(reader *r) {
  r->lapl = H5Pcreate(H5P_LINK_ACCESS);
  r->dapl = H5Pcreate(H5P_DATASET_ACCESS);
  if (r->lapl < 0 || r->dapl < 0) return h5_refuse(r, "H5Pcreate");
  for (int k = 0; k < 2; ++k) {
    hid_t p = k ? r->dapl : r->lapl;
    if (H5Pset_elink_cb(p, no_external_links, NULL) < 0 || H5Pset_nlinks(p, 16) < 0)
      return h5_refuse(r, "H5Pset_elink_cb");
  }
  if (H5Pset_efile_prefix(r->dapl, "/nonexistent-gpustencil-prefix") < 0) return h5_refuse(r, "H5Pset_efile_prefix");
#if H5_VERSION_GE(1, 10, 2)
  if (H5Pset_virtual_prefix(r->dapl, "/nonexistent-gpustencil-prefix") < 0)
    return h5_refuse(r, "H5Pset_virtual_prefix");
#endif
  return 0;
}

/* Reads the file in this process, with HDF5's printing off; bound: the helper's memory bounds. */
static gs_status read_here(const char *path, int64_t max_cells, gs_gpr_geomobj_in *g, int bound, char *err,
                           size_t errlen) {
  memset(g, 0, sizeof *g);
  reader r = {.path = path, .file = -1, .lapl = -1, .dapl = -1, .err = err, .errlen = errlen, .bound = bound};
  H5E_auto2_t old_func;
  void *old_data;
  if (H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data) < 0 || H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) {
    snprintf(err, errlen, "%s: H5Eset_auto2 failed", path);
    return GS_ERR_FORMAT;
  }
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) h5_refuse(&r, "H5Pcreate");
#if H5_VERSION_GE(1, 10, 7)
  if (r.st == GS_OK && H5Pset_file_locking(fapl, 0, 1) < 0) h5_refuse(&r, "H5Pset_file_locking");
#endif
  if (r.st == GS_OK && make_lists(&r) == 0) {
    r.file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (r.file < 0) refuse(&r, GS_ERR_FORMAT, "%s", access(path, R_OK) ? strerror(errno) : "not an HDF5 file");
  }
  if (r.file >= 0) {
    read_geomobj(&r, max_cells, g);
    if (H5Fclose(r.file) < 0) h5_refuse(&r, "H5Fclose");
  }
  if (fapl >= 0) H5Pclose(fapl);
  if (r.lapl >= 0) H5Pclose(r.lapl);
  if (r.dapl >= 0) H5Pclose(r.dapl);
  H5Eclear2(H5E_DEFAULT);
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  if (r.st != GS_OK) gs_gpr_geomobj_in_free(g);
  return r.st;
}

/* ---- the helper process ------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The CPU seconds the helper may spend on a file of that many bytes: a loop inside libhdf5 on a
 * corrupt file burns CPU and ends there (SIGXCPU), while reading a slow file system only waits,
 * which the caller's longer wall-clock limit bounds (helper_seconds). */
static double helper_cpu_seconds(double bytes) {
  return 2 + bytes / 20e6;
}

/* Sets the CPU-time bound of the helper for the file at path (raised by the
 * cells it declares once they are known, cpu_for_cells; the hard bound a
 * second past what the most cells allowed, max_cells, would add). */
static void bound_cpu(const char *path, double max_cells) {
  struct stat sb;
  struct rlimit rl;
  if (stat(path, &sb) != 0 || getrlimit(RLIMIT_CPU, &rl) != 0) return;
  const rlim_t soft = (rlim_t)helper_cpu_seconds((double)sb.st_size);
  const rlim_t hard = soft + 1 + (rlim_t)cells_cpu_seconds(max_cells);
  if (rl.rlim_max != RLIM_INFINITY && hard > rl.rlim_max) return;
  rl.rlim_cur = soft;
  rl.rlim_max = hard;
  setrlimit(RLIMIT_CPU, &rl);
}

/* The helper's work: argv {exe, GS_GEOMOBJ_HELPER_ARG, path, max_cells}; the answer on stdout. */
static int helper_main(char **argv) {
  bound_memory(HELPER_SLACK_BYTES);
  int64_t max_cells = strtoll(argv[3], NULL, 10);
  bound_cpu(argv[2], (double)max_cells);
  H5PLset_loading_state(0); /* no filter plugin is ever loaded for a file's sake */
  gs_gpr_geomobj_in g;
  wire_head h;
  memset(&h, 0, sizeof h);
  h.magic = WIRE_MAGIC;
  h.status = (int32_t)read_here(argv[2], max_cells, &g, 1, h.msg, sizeof h.msg);
  if (h.status == GS_OK) {
    memcpy(h.dxdydz, g.dxdydz, sizeof h.dxdydz);
    memcpy(h.size, g.size, sizeof h.size);
    h.has_rigid = g.rigid != NULL;
  }
  int bad = write_all(1, &h, sizeof h);
  if (!bad && h.status == GS_OK) {
    size_t n = (size_t)(g.size[0] * g.size[1] * g.size[2]);
    size_t nodes = (size_t)((g.size[0] + 1) * (g.size[1] + 1) * (g.size[2] + 1));
    bad = write_all(1, g.data, n * sizeof *g.data) ||
          (h.has_rigid && (write_all(1, g.rigid, 18 * n) || write_all(1, g.id, 6 * nodes * sizeof *g.id)));
  }
  return bad;
}

/* Before main, in every program that can read these files: the helper's work when this process
 * is one, and for every process no clean-up by libhdf5 at exit (that clean-up closes whatever is
 * still open, and a file whose H5Fclose failed on a full disk crashed it there). Runs before any
 * HDF5 call, as H5dont_atexit must. glibc passes argc and argv to constructors. */
__attribute__((constructor)) static void geomobj_early(int argc, char **argv, char **envp) {
  (void)envp;
  (void)H5dont_atexit(); /* fails only when already done (gprmax_h5w.c does the same) */
  if (argc == 4 && argv && argv[1] && strcmp(argv[1], GS_GEOMOBJ_HELPER_ARG) == 0) _exit(helper_main(argv) ? 3 : 0);
}

/* ---- the caller's side ------------------------------------------------------- */

/* The seconds a helper may take for a file of that many bytes, allowed up
 * to max_cells cells: its CPU bound's allowance for the cells, at most 5
 * minutes of it (the wall clock bounds a read that only waits). */
static double helper_seconds(double bytes, double max_cells) {
  const double inflate = cells_cpu_seconds(max_cells);
  return 60 + bytes / 20e6 + (inflate < 300 ? inflate : 300);
}

/* Reads n bytes from fd by the deadline: 0, 1 at the end of the data, -1 past the deadline or on an error. */
static int read_by(int fd, void *buf, size_t n, double deadline) {
  char *p = buf;
  while (n > 0) {
    double left = deadline - gs_now_s();
    if (left <= 0) return -1;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    int k = poll(&pf, 1, (int)(left * 1000) + 1);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) return 1;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

/* Starts the helper on path with its answer on *fd; 0, or -1 (no helper: read here). */
static int helper_start(const char *path, int64_t max_cells, pid_t *pid, int *fd) {
  int p[2];
  if (pipe(p) != 0) return -1;
  char cells[32];
  snprintf(cells, sizeof cells, "%" PRId64, max_cells);
  char *args[] = {"gpustencil", GS_GEOMOBJ_HELPER_ARG, (char *)path, cells, NULL};
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc == 0) {
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    rc = posix_spawn(pid, "/proc/self/exe", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
  }
  close(p[1]);
  if (rc != 0) {
    close(p[0]);
    return -1;
  }
  *fd = p[0];
  return 0;
}

/* The helper's answer on fd into g: GS_OK, or a status with err; *late set when past the deadline. */
static gs_status helper_answer(const char *path, int fd, int64_t max_cells, double deadline, gs_gpr_geomobj_in *g,
                               int *late, char *err, size_t errlen) {
  wire_head h;
  int rc = read_by(fd, &h, sizeof h, deadline);
  *late = rc < 0 && gs_now_s() >= deadline;
  if (rc != 0 || h.magic != WIRE_MAGIC) return GS_ERR_IO; /* the caller says why from the exit status */
  h.msg[sizeof h.msg - 1] = '\0';
  if (h.status != GS_OK) {
    for (char *c = h.msg; *c; ++c)
      if (*c == '\n' || *c == '\r') *c = ' ';
    snprintf(err, errlen, "%s", h.msg);
    return h.status > GS_OK && h.status < GS_ERR_COUNT_ ? (gs_status)h.status : GS_ERR_FORMAT;
  }
  double cells = 1;
  for (int a = 0; a < 3; ++a)
    cells *= h.size[a] >= 1 && h.size[a] <= INT32_MAX ? (double)h.size[a] : 0;
  if (cells < 1 || cells > (double)max_cells || (h.has_rigid != 0 && h.has_rigid != 1)) return GS_ERR_IO;
  size_t n = (size_t)cells, nodes = (size_t)((h.size[0] + 1) * (h.size[1] + 1) * (h.size[2] + 1));
  memcpy(g->dxdydz, h.dxdydz, sizeof g->dxdydz);
  memcpy(g->size, h.size, sizeof g->size);
  g->data = malloc(n * sizeof *g->data);
  g->rigid = h.has_rigid ? malloc(18 * n) : NULL;
  g->id = h.has_rigid ? malloc(6 * nodes * sizeof *g->id) : NULL;
  if (!g->data || (h.has_rigid && (!g->rigid || !g->id))) {
    snprintf(err, errlen, "%s: out of memory reading it", path);
    return GS_ERR_NOMEM;
  }
  rc = read_by(fd, g->data, n * sizeof *g->data, deadline);
  if (rc == 0 && h.has_rigid) rc = read_by(fd, g->rigid, 18 * n, deadline);
  if (rc == 0 && h.has_rigid) rc = read_by(fd, g->id, 6 * nodes * sizeof *g->id, deadline);
  *late = rc < 0 && gs_now_s() >= deadline;
  return rc == 0 ? GS_OK : GS_ERR_IO;
}

/* The helper's end: its exit status into a reason when the answer was not complete. */
static void helper_reason(const char *path, int status, int late, double limit, double bytes, char *err,
                          size_t errlen) {
  if (late)
    snprintf(err, errlen, "%s: not read within %.0f s: refused (a corrupt file can make the HDF5 library loop)", path,
             limit);
  else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    snprintf(err, errlen,
             "%s: not read within the CPU time its size and its cells allow (%.0f s and more): refused (a corrupt "
             "file can make the HDF5 library loop)",
             path, floor(helper_cpu_seconds(bytes)));
  else if (WIFSIGNALED(status))
    snprintf(err, errlen,
             "%s: the HDF5 library failed on it (signal %d; a crash or its memory bound): refused as corrupt", path,
             WTERMSIG(status));
  else /* a sanitizer's report ends it with a status */
    snprintf(err, errlen,
             "%s: the HDF5 library failed on it (exit status %d; a crash or its memory bound): refused as corrupt",
             path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void gs_gpr_geomobj_in_free(gs_gpr_geomobj_in *g) {
  free(g->data);
  free(g->rigid);
  free(g->id);
  memset(g, 0, sizeof *g);
}

gs_status gs_gpr_read_geometry_object(const char *path, int64_t max_cells, gs_gpr_geomobj_in *g, char *err,
                                      size_t errlen) {
  memset(g, 0, sizeof *g);
  struct stat sb; /* the file itself: a FIFO or a device is never opened */
  if (stat(path, &sb) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return GS_ERR_FORMAT;
  }
  if (!S_ISREG(sb.st_mode)) {
    snprintf(err, errlen, "%s: %s, not a regular file", path, gs_file_kind(sb.st_mode));
    return GS_ERR_FORMAT;
  }
  pid_t pid;
  int fd, late = 0, status = 0;
  if (helper_start(path, max_cells, &pid, &fd) != 0) return read_here(path, max_cells, g, 0, err, errlen);
  const double limit = helper_seconds((double)sb.st_size, (double)max_cells);
  err[0] = '\0';
  gs_status st = helper_answer(path, fd, max_cells, gs_now_s() + limit, g, &late, err, errlen);
  close(fd);
  if (st != GS_OK) kill(pid, SIGKILL); /* what it still had to say is not wanted */
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (st == GS_ERR_IO && !err[0]) {
    helper_reason(path, status, late, limit, (double)sb.st_size, err, errlen);
    st = GS_ERR_FORMAT;
  }
  if (st != GS_OK) gs_gpr_geomobj_in_free(g);
  return st;
}

/* gprmax_out: writes every file type into DIR (argument; tests/gprmax_out_read.py
 * then reads them as gprMax's tools do and compares them with gprMax's own
 * files), and checks the failures: a missing or unwritable folder, a file in
 * the way, an HDF5 call failing half-way, a rename failing, bad arguments.
 * Each failure gives one line naming the file (and, for HDF5, the call and
 * the writer's FILE:LINE, e.g. gprmax_h5w.c:LINE), leaves no file or
 * temporary behind, and HDF5 prints nothing. The metadata of the files compared with gprMax's are those of the
 * reference models (cylinder_Ascan_2D, whole_domain_2d); the data are
 * formulas the reader knows. */
#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "gprmax_out.h"

static const char *const comps6[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

/* Receiver data: (c + 1) * 1000 + n + offset, exact in float32. */
static float *series(int64_t n, int c, float offset) {
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t i = 0; i < n; i++)
    v[i] = (float)((c + 1) * 1000 + i) + offset;
  return v;
}

/* cylinder_Ascan_2D.h5 with gprMax's metadata for that model. */
static void write_ascan(const char *dir) {
  float *data[6];
  gs_gpr_rx rx = {.name = "Rx(70,85,0)", .pos = {0.14, 0.17, 0.0}, .ncomp = 6};
  for (int c = 0; c < 6; c++)
    rx.comp[c] = comps6[c], rx.data[c] = data[c] = series(637, c, 0);
  gs_gpr_src src = {"HertzianDipole", {0.1, 0.17, 0.0}};
  gs_gpr_model m = {.title = "A-scan from a metal cylinder buried in a dielectric half-space",
                    .iterations = 637,
                    .dt = 4.717308673499368e-12,
                    .dxdydz = {0.002, 0.002, 0.002},
                    .nxnynz = {120, 105, 1},
                    .nsrc = 1,
                    .nrx = 1,
                    .src = &src,
                    .rx = &rx};
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/cylinder_Ascan_2D.h5", dir);
  CHECKF(gs_gpr_write_receivers(path, &m, err, sizeof err) == GS_OK, "%s", err);
  for (int c = 0; c < 6; c++)
    free(data[c]);
}

/* multi.h5: three receivers with component subsets, two sources, steps, a UTF-8 title; bscan1..3.h5: one receiver (Ez,
 * Hx), data offset by the model number, for outputfiles_merge. */
static void write_multi(const char *dir) {
  float *d[4] = {series(5, 0, 0.5f), series(5, 1, 0.5f), series(5, 2, 0.5f), series(5, 3, 0.5f)};
  gs_gpr_rx rx[3] = {{.name = "r10", .pos = {0.01, 0.02, 0}, .ncomp = 2, .comp = {"Ez", "Iz"}, .data = {d[0], d[1]}},
                     {.name = "r2", .pos = {0.03, 0.04, 0}, .ncomp = 1, .comp = {"Hy"}, .data = {d[2]}},
                     {.name = "Rx(5,6,0)", .pos = {0.05, 0.06, 0}, .ncomp = 1, .comp = {"Ex"}, .data = {d[3]}}};
  gs_gpr_src src[2] = {{"VoltageSource", {0.1, 0.2, 0}}, {"HertzianDipole", {0.3, 0.4, 0}}};
  gs_gpr_model m = {.title = "caf\xc3\xa9 \xe2\x80\x93 model",
                    .iterations = 5,
                    .dt = 1e-12,
                    .dxdydz = {0.01, 0.01, 0.01},
                    .nxnynz = {10, 20, 1},
                    .srcsteps = {2, 0, 0},
                    .rxsteps = {3, 0, 0},
                    .nsrc = 2,
                    .nrx = 3,
                    .src = src,
                    .rx = rx};
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/multi.h5", dir);
  CHECKF(gs_gpr_write_receivers(path, &m, err, sizeof err) == GS_OK, "%s", err);
  for (int run = 1; run <= 3; run++) {
    float *e = series(7, 2, (float)run * 100), *h = series(7, 3, (float)run * 100);
    gs_gpr_rx one = {.name = "Rx(5,5,0)", .pos = {0.05, 0.05, 0}, .ncomp = 2, .comp = {"Ez", "Hx"}, .data = {e, h}};
    gs_gpr_src s = {"HertzianDipole", {0.02 * run, 0.05, 0}};
    gs_gpr_model b = {.title = "bscan",
                      .iterations = 7,
                      .dt = 2e-12,
                      .dxdydz = {0.01, 0.01, 0.01},
                      .nxnynz = {10, 10, 1},
                      .srcsteps = {1, 0, 0},
                      .rxsteps = {1, 0, 0},
                      .nsrc = 1,
                      .nrx = 1,
                      .src = &s,
                      .rx = &one};
    snprintf(path, sizeof path, "%s/bscan%d.h5", dir, run);
    CHECKF(gs_gpr_write_receivers(path, &b, err, sizeof err) == GS_OK, "%s", err);
    free(e);
    free(h);
  }
  for (int c = 0; c < 4; c++)
    free(d[c]);
}

/* Snapshot data: c * 1e6 + i + 100 j + 10000 k (exact in float32 here). */
static float *field(const int64_t size[3], int c) {
  int64_t n = size[0] * size[1] * size[2];
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t k = 0; k < size[2]; k++)
    for (int64_t j = 0; j < size[1]; j++)
      for (int64_t i = 0; i < size[0]; i++)
        v[(k * size[1] + j) * size[0] + i] = (float)(c * 1000000 + i + 100 * j + 10000 * k);
  return v;
}

static void write_snapshot(const char *dir, const char *name, const gs_gpr_box *b, double time, unsigned mask) {
  float *f[6] = {0};
  for (int c = 0; c < 6; c++)
    if (mask & (1u << c)) f[c] = field(b->size, c);
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CHECKF(gs_gpr_write_snapshot(path, b, time, (const float *const *)f, err, sizeof err) == GS_OK, "%s", err);
  for (int c = 0; c < 6; c++)
    free(f[c]);
}

static void write_snapshots(const char *dir) {
  gs_gpr_box ref = {{10, 10, 1}, {0, 0, 0}, {0.01, 0.01, 0.001}}; /* whole_domain_2d's snapshot_2 */
  write_snapshot(dir, "snapshot_2.h5", &ref, 2.002497531900482e-09, 63);
  write_snapshot(dir, "snapshot_2.vtkhdf", &ref, 2.002497531900482e-09, 63);
  gs_gpr_box small = {{4, 3, 2}, {0.1, 0.2, 0.3}, {0.01, 0.02, 0.03}};
  write_snapshot(dir, "small.h5", &small, 1.5e-9, 63);
  write_snapshot(dir, "small.vtkhdf", &small, 1.5e-9, 63);
  write_snapshot(dir, "small.vti", &small, 1.5e-9, 63);
  write_snapshot(dir, "twice.h5", &small, 1.5e-9, 63); /* identical bytes to small.h5 */
  /* 70 x-planes of 250 x 250: written in two blocks (67 + 3); Ez only. */
  gs_gpr_box big = {{70, 250, 250}, {0, 0, 0}, {0.001, 0.001, 0.001}};
  write_snapshot(dir, "blocks.h5", &big, 1e-9, 1u << 2);
}

static void write_geometries(const char *dir) {
  gs_gpr_geometry g = {.box = {{120, 105, 1}, {0, 0, 0}, {0.002, 0.002, 0.002}}, /* cylinder_Ascan_2D's view */
                       .nmaterials = 3,
                       .material_names = (const char *const[]){"pec", "free_space", "half_space"},
                       .dxdydz = {0.002, 0.002, 0.002},
                       .nxnynz = {120, 105, 1},
                       .pml = {10, 10, 0, 10, 10, 0},
                       .nsrc = 1,
                       .src_ids = (const char *const[]){"HertzianDipole(50,85,0)"},
                       .src_pos = (const double[]){0.1, 0.17, 0.0},
                       .nrx = 1,
                       .rx_ids = (const char *const[]){"Rx(70,85,0)"},
                       .rx_pos = (const double[]){0.14, 0.17, 0.0}};
  uint32_t *mat = malloc(120 * 105 * sizeof *mat);
  for (int j = 0; j < 105; j++)
    for (int i = 0; i < 120; i++)
      mat[j * 120 + i] = (uint32_t)(i * 7 + j * 3) % 3;
  g.material = mat;
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/cylinder_half_space.vtkhdf", dir);
  CHECKF(gs_gpr_write_geometry(path, &g, err, sizeof err) == GS_OK, "%s", err);
  snprintf(path, sizeof path, "%s/cylinder_half_space.vti", dir);
  CHECKF(gs_gpr_write_geometry(path, &g, err, sizeof err) == GS_OK, "%s", err);
  /* No PML, sources or receivers: those are left out; odd names for the .vti comment. */
  g.box = (gs_gpr_box){{5, 4, 3}, {0.01, 0, 0}, {0.5, 0.25, 0.125}};
  g.material_names = (const char *const[]){"a--b", "q\"uote\\", "tab\there-"};
  g.pml[0] = g.pml[1] = g.pml[3] = g.pml[4] = 0;
  g.nsrc = g.nrx = 0;
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 5; i++)
        mat[(k * 4 + j) * 5 + i] = (uint32_t)(i * 7 + j * 3 + k) % 3;
  snprintf(path, sizeof path, "%s/bare.vtkhdf", dir);
  CHECKF(gs_gpr_write_geometry(path, &g, err, sizeof err) == GS_OK, "%s", err);
  snprintf(path, sizeof path, "%s/bare.vti", dir);
  CHECKF(gs_gpr_write_geometry(path, &g, err, sizeof err) == GS_OK, "%s", err);
  free(mat);
}

/* 1 when files a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb, ca, cb;
  while (same && ((ca = fgetc(fa)) != EOF) | ((cb = fgetc(fb)) != EOF))
    same = ca == cb;
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

/* The layered writers (fdtd's outputs over ranks): each file beside the one
 * written whole (small.*, bare.*; gprmax_out_read.py compares the HDF5 pairs,
 * the .vti ones must be byte-identical), layers put in reverse order. */
static void write_layered(const char *dir) {
  gs_gpr_box small = {{4, 3, 2}, {0.1, 0.2, 0.3}, {0.01, 0.02, 0.03}};
  float *f[6];
  for (int c = 0; c < 6; c++)
    f[c] = field(small.size, c);
  static const char *const ext[3] = {"h5", "vtkhdf", "vti"};
  char path[512], whole[512], err[512] = "";
  for (int e = 0; e < 3; e++) {
    snprintf(path, sizeof path, "%s/small_layers.%s", dir, ext[e]);
    gs_gpr_layers *w = NULL;
    CHECKF(gs_gpr_snapshot_layers_open(path, &small, 1.5e-9, &w, err, sizeof err) == GS_OK, "%s", err);
    for (int64_t z = small.size[2] - 1; w && z >= 0; z--) {
      const float *layer[6];
      for (int c = 0; c < 6; c++)
        layer[c] = f[c] + z * small.size[0] * small.size[1];
      gs_gpr_layers_put(w, z, layer);
    }
    CHECKF(gs_gpr_layers_close(w) == GS_OK, "%s", err);
  }
  for (int c = 0; c < 6; c++)
    free(f[c]);
  /* 600 x 600 layers: the .h5 writer holds 2 at a time; put 2, 0, 1: slabs written part by part */
  gs_gpr_box wide = {{600, 600, 3}, {0, 0, 0}, {0.001, 0.001, 0.001}};
  write_snapshot(dir, "wide.h5", &wide, 1e-9, 63);
  for (int c = 0; c < 6; c++)
    f[c] = field(wide.size, c);
  snprintf(path, sizeof path, "%s/wide_layers.h5", dir);
  gs_gpr_layers *lw = NULL;
  CHECKF(gs_gpr_snapshot_layers_open(path, &wide, 1e-9, &lw, err, sizeof err) == GS_OK, "%s", err);
  for (int q = 0; lw && q < 3; q++) {
    const int64_t z = (q + 2) % 3;
    const float *layer[6];
    for (int c = 0; c < 6; c++)
      layer[c] = f[c] + z * 600 * 600;
    gs_gpr_layers_put(lw, z, layer);
  }
  CHECKF(gs_gpr_layers_close(lw) == GS_OK, "%s", err);
  for (int c = 0; c < 6; c++)
    free(f[c]);
  snprintf(path, sizeof path, "%s/small_layers.vti", dir);
  snprintf(whole, sizeof whole, "%s/small.vti", dir);
  CHECKF(same_bytes(path, whole), "%s differs from %s", path, whole);
  gs_gpr_geometry g = {.box = {{5, 4, 3}, {0.01, 0, 0}, {0.5, 0.25, 0.125}},
                       .nmaterials = 3,
                       .material_names = (const char *const[]){"a--b", "q\"uote\\", "tab\there-"},
                       .dxdydz = {0.002, 0.002, 0.002},
                       .nxnynz = {120, 105, 1},
                       .pml = {0, 0, 0, 0, 0, 0}};
  uint32_t mat[60], edges[180];
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 5; i++)
        mat[(k * 4 + j) * 5 + i] = (uint32_t)(i * 7 + j * 3 + k) % 3;
  for (int e = 0; e < 2; e++) {
    snprintf(path, sizeof path, "%s/bare_layers.%s", dir, ext[e + 1]);
    gs_gpr_layers *w = NULL;
    CHECKF(gs_gpr_geometry_layers_open(path, &g, &w, err, sizeof err) == GS_OK, "%s", err);
    for (int64_t z = 0; w && z < 3; z++)
      gs_gpr_layers_put_u32(w, z, mat + z * 20);
    CHECKF(gs_gpr_layers_close(w) == GS_OK, "%s", err);
  }
  snprintf(path, sizeof path, "%s/bare_layers.vti", dir);
  snprintf(whole, sizeof whole, "%s/bare.vti", dir);
  CHECKF(same_bytes(path, whole), "%s differs from %s", path, whole);
  for (int q = 0; q < 180; q++)
    edges[q] = (uint32_t)(q * 5) % 3;
  g.material = edges; /* a fine view: whole, then in x slabs */
  snprintf(whole, sizeof whole, "%s/lines.vtkhdf", dir);
  CHECKF(gs_gpr_write_geometry_lines(whole, &g, err, sizeof err) == GS_OK, "%s", err);
  snprintf(path, sizeof path, "%s/lines_slabs.vtkhdf", dir);
  gs_gpr_layers *w = NULL;
  CHECKF(gs_gpr_lines_slabs_open(path, &g, &w, err, sizeof err) == GS_OK, "%s", err);
  for (int64_t x = 4; w && x >= 0; x--)
    gs_gpr_lines_slabs_put(w, x, edges + x * 36);
  CHECKF(gs_gpr_layers_close(w) == GS_OK, "%s", err);
}

/* A geometry objects file whole and in x slabs (gprmax_out_read.py compares them). */
static void write_geomobj_slabs(const char *dir) {
  enum { SX = 3, SY = 2, SZ = 4, CELLS = SX * SY * SZ, NODES = (SX + 1) * (SY + 1) * (SZ + 1) };
  int16_t data[CELLS];
  int8_t rigid[18 * CELLS];
  uint32_t id[6 * NODES];
  for (int q = 0; q < CELLS; q++)
    data[q] = (int16_t)(q % 5);
  for (int q = 0; q < 18 * CELLS; q++)
    rigid[q] = (int8_t)(q % 3 == 0);
  for (int q = 0; q < 6 * NODES; q++)
    id[q] = (uint32_t)(q % 7);
  gs_gpr_geomobj o = {.title = "slabs",
                      .dxdydz = {0.1, 0.2, 0.3},
                      .size = {SX, SY, SZ},
                      .data = data,
                      .rigidE = rigid,
                      .rigidH = rigid + 12 * CELLS,
                      .id = id};
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/geomobj.h5", dir);
  CHECKF(gs_gpr_write_geometry_object(path, &o, err, sizeof err) == GS_OK, "%s", err);
  snprintf(path, sizeof path, "%s/geomobj_slabs.h5", dir);
  gs_gpr_layers *w = NULL;
  CHECKF(gs_gpr_geomobj_slabs_open(path, &o, &w, err, sizeof err) == GS_OK, "%s", err);
  for (int x = SX; w && x >= 0; x--) {
    int16_t d[SY * SZ];
    int8_t r[18 * SY * SZ];
    uint32_t n[6 * (SY + 1) * (SZ + 1)];
    if (x < SX) {
      memcpy(d, data + x * SY * SZ, sizeof d);
      for (int b = 0; b < 18; b++)
        memcpy(r + b * SY * SZ, rigid + b * CELLS + x * SY * SZ, SY * SZ);
      gs_gpr_geomobj_slabs_put_cells(w, x, d, r);
    }
    for (int c = 0; c < 6; c++)
      memcpy(n + c * (SY + 1) * (SZ + 1), id + c * NODES + x * (SY + 1) * (SZ + 1),
             sizeof(uint32_t) * (SY + 1) * (SZ + 1));
    gs_gpr_geomobj_slabs_put_nodes(w, x, n);
  }
  CHECKF(gs_gpr_layers_close(w) == GS_OK, "%s", err);
}

/* A layered snapshot opened and closed at once (its failures). */
static gs_status layers_open_close(const char *path, char *err, size_t errlen) {
  gs_gpr_box b = {{2, 1, 1}, {0, 0, 0}, {1, 1, 1}};
  gs_gpr_layers *w = NULL;
  gs_status st = gs_gpr_snapshot_layers_open(path, &b, 0, &w, err, errlen);
  gs_gpr_layers_close(w);
  return st;
}

/* Number of entries in dir besides . and .. */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

/* Runs one failing write with stderr sent to DIR.stderr; checks the status, that
 * err names path and holds each of the words ("|"-separated), that nothing
 * was printed, and that dir still holds `left` entries. */
typedef gs_status (*writer)(const char *path, char *err, size_t errlen);
static void fails(writer w, const char *dir, const char *path, gs_status want, const char *words, int left) {
  char log[600], err[1024] = "";
  snprintf(log, sizeof log, "%s.stderr", dir);
  fflush(stderr);
  int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
  gs_status st = w(path, err, sizeof err);
  fflush(stderr);
  CHECK(dup2(saved, 2) == 2);
  close(fd);
  close(saved);
  struct stat sb;
  CHECKF(stat(log, &sb) == 0 && sb.st_size == 0, "%s: something was printed on stderr (below)", path);
  if (sb.st_size > 0) { /* show it (a crash while redirected leaves the file behind instead: DIR.stderr) */
    FILE *fp = fopen(log, "r");
    for (int ch; fp && (ch = fgetc(fp)) != EOF;)
      fputc(ch, stderr);
    if (fp) fclose(fp);
  }
  unlink(log);
  CHECKF(st == want, "%s: status %d, want %d (%s)", path, (int)st, (int)want, err);
  CHECKF(strstr(err, path) && !strchr(err, '\n'), "%s: message '%s'", path, err);
  char copy[256];
  snprintf(copy, sizeof copy, "%s", words);
  for (char *save = NULL, *wd = strtok_r(copy, "|", &save); wd; wd = strtok_r(NULL, "|", &save))
    CHECKF(strstr(err, wd) != NULL, "%s: message '%s' lacks '%s'", path, err, wd);
  CHECKF(entries(dir) == left, "%s: %d entries left in %s, want %d", path, entries(dir), dir, left);
}

static gs_status receivers_ok(const char *path, char *err, size_t errlen) {
  static const float z[3] = {0, 0, 0};
  gs_gpr_rx rx = {.name = "r", .ncomp = 1, .comp = {"Ez"}, .data = {z}};
  gs_gpr_model m = {.title = "", .iterations = 3, .nrx = 1, .rx = &rx};
  return gs_gpr_write_receivers(path, &m, err, errlen);
}

/* Two datasets of one name: H5Dcreate2 fails after the file was begun. */
static gs_status receivers_twice(const char *path, char *err, size_t errlen) {
  static const float z[3] = {0, 0, 0};
  gs_gpr_rx rx = {.name = "r", .ncomp = 2, .comp = {"Ez", "Ez"}, .data = {z, z}};
  gs_gpr_model m = {.title = "", .iterations = 3, .nrx = 1, .rx = &rx};
  return gs_gpr_write_receivers(path, &m, err, errlen);
}

static gs_status receivers_bad(const char *path, char *err, size_t errlen) {
  gs_gpr_rx rx = {.name = "r", .ncomp = 0};
  gs_gpr_model m = {.iterations = 3, .nrx = 1, .rx = &rx};
  return gs_gpr_write_receivers(path, &m, err, errlen);
}

static gs_status snapshot_ok(const char *path, char *err, size_t errlen) {
  static const float z[2] = {0, 0};
  const float *f[6] = {z, z, z, z, z, z};
  gs_gpr_box b = {{2, 1, 1}, {0, 0, 0}, {1, 1, 1}};
  return gs_gpr_write_snapshot(path, &b, 0, f, err, errlen);
}

static gs_status snapshot_empty(const char *path, char *err, size_t errlen) {
  static const float z[2] = {0, 0};
  const float *f[6] = {z, z, z, z, z, z};
  gs_gpr_box b = {{2, 0, 1}, {0, 0, 0}, {1, 1, 1}};
  return gs_gpr_write_snapshot(path, &b, 0, f, err, errlen);
}

static void failures(void) {
  char dir[] = "/tmp/gs-gprout-XXXXXX", p[600], q[600];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(p, sizeof p, "%s/none/model.h5", dir);
  fails(receivers_ok, dir, p, GS_ERR_IO, "H5Fcreate failed|No such file or directory|gprmax_h5w.c:", 0);
  snprintf(p, sizeof p, "%s/none/snap.vti", dir);
  fails(snapshot_ok, dir, p, GS_ERR_IO, "No such file or directory", 0);
  snprintf(p, sizeof p, "%s/model.h5", dir);
  fails(receivers_twice, dir, p, GS_ERR_IO, "H5Dcreate2 failed|gprmax_h5w.c:", 0);
  fails(receivers_bad, dir, p, GS_ERR_USAGE, "not written", 0);
  snprintf(p, sizeof p, "%s/snap.png", dir);
  fails(snapshot_ok, dir, p, GS_ERR_USAGE, ".h5, .vtkhdf or .vti", 0);
  snprintf(p, sizeof p, "%s/snap.h5", dir);
  fails(snapshot_empty, dir, p, GS_ERR_USAGE, "size", 0);
  snprintf(p, sizeof p, "%s/snap.png", dir); /* the layered writers: refused, nothing left */
  fails(layers_open_close, dir, p, GS_ERR_USAGE, ".h5, .vtkhdf or .vti", 0);
  snprintf(p, sizeof p, "%s/none/snap.h5", dir);
  fails(layers_open_close, dir, p, GS_ERR_IO, "H5Fcreate failed|No such file or directory", 0);
  snprintf(p, sizeof p, "%s/none/snap.vti", dir);
  fails(layers_open_close, dir, p, GS_ERR_IO, "No such file or directory", 0);
  /* A folder in the way of the rename (not empty, so rename cannot replace it). */
  snprintf(p, sizeof p, "%s/taken.h5", dir);
  snprintf(q, sizeof q, "%s/taken.h5/x", dir);
  CHECK(mkdir(p, 0700) == 0 && mkdir(q, 0700) == 0);
  fails(receivers_ok, dir, p, GS_ERR_IO, "rename", 1);
  /* A regular file used as a folder. */
  snprintf(q, sizeof q, "%s/taken.h5/x/file", dir);
  FILE *f = fopen(q, "w");
  CHECK(f && fclose(f) == 0);
  snprintf(p, sizeof p, "%s/taken.h5/x/file/model.h5", dir);
  fails(receivers_ok, dir, p, GS_ERR_IO, "H5Fcreate failed|Not a directory", 1);
  if (geteuid() != 0) { /* root writes anywhere */
    snprintf(q, sizeof q, "%s/ro", dir);
    CHECK(mkdir(q, 0500) == 0);
    snprintf(p, sizeof p, "%s/ro/model.h5", dir);
    fails(receivers_ok, q, p, GS_ERR_IO, "H5Fcreate failed|Permission denied", 0);
    snprintf(p, sizeof p, "%s/ro/snap.vti", dir);
    fails(snapshot_ok, q, p, GS_ERR_IO, "Permission denied", 0);
    rmdir(q);
  }
  /* The writes that work there do work. */
  snprintf(p, sizeof p, "%s/ok.h5", dir);
  char err[512] = "";
  CHECKF(receivers_ok(p, err, sizeof err) == GS_OK && entries(dir) == 2, "%s", err);
  unlink(p);
  const char *made[] = {"taken.h5/x/file", "taken.h5/x", "taken.h5"};
  for (int i = 0; i < 3; i++) {
    snprintf(q, sizeof q, "%s/%s", dir, made[i]);
    CHECK(remove(q) == 0);
  }
  CHECK(rmdir(dir) == 0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_gprmax_out DIR\n");
    return 2;
  }
  CHECK(gs_mkdirs(argv[1], 1) == 0);
  write_ascan(argv[1]);
  write_multi(argv[1]);
  write_snapshots(argv[1]);
  write_geometries(argv[1]);
  write_layered(argv[1]);
  write_geomobj_slabs(argv[1]);
  failures();
  /* Every file closed, on the failure paths too. */
  CHECKF(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0, "%zd HDF5 objects open",
         H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL));
  /* HDF5's error printing is back as it was (the default printer). */
  H5E_auto2_t func = NULL;
  void *data = NULL;
  CHECK(H5Eget_auto2(H5E_DEFAULT, &func, &data) >= 0 && func != NULL);
  return gs_test_done("test_gprmax_out");
}

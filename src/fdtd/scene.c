/* Parser for gprMax input files describing 2D TMz models.
 *
 * Every command is one entry of commands[] (below the handlers): its name, the
 * argument counts it takes, whether the grid must be known first, and a handler
 * that sees only well-shaped arguments. Supporting another gprMax command is one
 * handler and one entry. */
#include "scene.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "png_io.h"

#define GS_C0 299792458.0
/* Parameters of a command line past this many are dropped, which makes every
 * such line fail its command's argument count. */
#define MAX_ARGS 32

typedef struct parser {
  const char *file;
  int line;
  char *err;
  size_t errlen;
  gs_scene *s;
  int have_domain, have_dxdydz, have_tw;
  double domain[3], tw;
  int tw_is_iterations;
  char base_dir[1024];
  int has_pml_cfs;
} parser;

typedef struct scene_command scene_command;

/* One "#name: parameters" line, its parameters split at blanks. */
typedef struct command_call {
  const scene_command *def;
  const char *name; /* without the '#' */
  char **arg;
  int nargs;
  const char *text; /* the parameters as written, for #title */
} command_call;

/* Whether a command places something on the grid, so that #domain and
 * #dx_dy_dz must come first, and which error a missing grid gives when the
 * argument count is wrong too. */
typedef enum grid_need {
  GRID_NOT_NEEDED,
  GRID_BEFORE_COUNT, /* the missing grid is reported first */
  GRID_AFTER_COUNT,  /* a wrong count is reported first */
  GRID_AS_SYNTAX,    /* a missing grid is reported as "expected SYNTAX" (what #rx and #material_map always did) */
} grid_need;

struct scene_command {
  const char *name;
  /* Accepted argument counts: min_args, min_args + arg_step, ... up to
   * max_args (a step of 0 means 1). Other counts give "#name: expected SYNTAX". */
  int min_args, max_args, arg_step;
  const char *syntax;
  grid_need grid;
  int (*handle)(parser *p, const command_call *c);
};

static int perr(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *p, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(p->err, p->errlen, "%s:%d: %s", p->file, p->line, msg);
  return -1;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const uint8_t *b = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001B3ull;
  }
  return h;
}

/* A number as gprMax files write them: decimal digits with an optional sign,
 * point and exponent. strtod alone would also take hexadecimal ("0xE"),
 * "inf" and "nan". */
static int is_plain_number(const char *tok) {
  if (!*tok) return 0;
  for (const char *c = tok; *c; ++c)
    if (!strchr("0123456789+-.eE", *c)) return 0;
  return 1;
}

/* The largest magnitude any scene number may have: far above any physical
 * value (frequencies, conductivities), low enough that products of a few of
 * them stay finite. */
#define GS_SCENE_MAX_NUMBER 1e30

static int parse_double(parser *p, const char *tok, double *out, const char *what) {
  char *end;
  errno = 0;
  double v = is_plain_number(tok) ? strtod(tok, &end) : NAN;
  if (!is_plain_number(tok) || end == tok || *end || errno == ERANGE || !isfinite(v))
    return perr(p, "#%s: '%s' is not a number", what, tok);
  if (fabs(v) > GS_SCENE_MAX_NUMBER) return perr(p, "#%s: %s is out of range (at most 1e30 in magnitude)", what, tok);
  *out = v;
  return 0;
}

/* A whole number in [min, max] written in decimal digits. */
static int parse_count(parser *p, const char *tok, int64_t min, int64_t max, int64_t *out, const char *what) {
  char *end;
  errno = 0;
  long long v = strtoll(tok, &end, 10);
  int digits = *tok >= '0' && *tok <= '9';
  if (!digits || end == tok || *end || errno == ERANGE || v < min || v > max)
    return perr(p, "#%s: '%s' is not a whole number in %lld..%lld", what, tok, (long long)min, (long long)max);
  *out = v;
  return 0;
}

/* Copies a name given in the scene, refusing one too long for the field
 * rather than cutting it (a cut name would then not match its uses). */
static int copy_name(parser *p, char *dst, size_t size, const char *name, const char *what) {
  if (strlen(name) >= size)
    return perr(p, "#%s: name '%.40s...' is longer than %d characters", what, name, (int)size - 1);
  memcpy(dst, name, strlen(name) + 1);
  return 0;
}

/* Parses count consecutive arguments from first on, stopping at the first bad one. */
static int parse_args(parser *p, const command_call *c, int first, int count, double *out) {
  for (int k = 0; k < count; ++k)
    if (parse_double(p, c->arg[first + k], &out[k], c->name)) return -1;
  return 0;
}

/* gprMax rounds metres to cells half up. */
static int64_t to_cells(double metres, double d) {
  return (int64_t)floor(metres / d + 0.5 + 1e-9);
}

/* Positions and lengths further than this many cells from the origin are
 * refused before they are converted to integers (no model has 2^40 cells on
 * a side; the conversion of larger values would overflow). */
#define GS_SCENE_MAX_CELLS 1099511627776.0

static int cells_in_range(parser *p, double metres, double d, const char *what) {
  if (fabs(metres / d) > GS_SCENE_MAX_CELLS)
    return perr(p, "#%s: %g m is more than 2^40 cells of %g m from the origin", what, metres, d);
  return 0;
}

static int find_material(const gs_scene *s, const char *name) {
  for (int i = 0; i < s->nmaterials; ++i)
    if (strcmp(s->materials[i].name, name) == 0) return i;
  return -1;
}

static int find_waveform(const gs_scene *s, const char *name) {
  for (int i = 0; i < s->nwaveforms; ++i)
    if (strcmp(s->waveforms[i].name, name) == 0) return i;
  return -1;
}

#define GROW(arr, n) ((arr) = gs_xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1)))

static int have_geometry(const parser *p) {
  return p->have_domain && p->have_dxdydz;
}

static int need_geometry(parser *p, const char *cmd) {
  if (!have_geometry(p))
    return perr(p, "#%s: #domain and #dx_dy_dz must come before objects, sources and receivers", cmd);
  return 0;
}

static int node_of(parser *p, double x, double y, int64_t *i, int64_t *j, const char *cmd) {
  if (cells_in_range(p, x, p->s->dx, cmd) || cells_in_range(p, y, p->s->dy, cmd)) return -1;
  *i = to_cells(x, p->s->dx);
  *j = to_cells(y, p->s->dy);
  if (*i < 1 || *i >= p->s->nx || *j < 1 || *j >= p->s->ny)
    return perr(p, "#%s: (%g, %g) m is outside the domain's interior", cmd, x, y);
  return 0;
}

static int load_map(parser *p, gs_object *o, const char *file) {
  char path[2200];
  if (file[0] == '/')
    snprintf(path, sizeof path, "%s", file);
  else
    snprintf(path, sizeof path, "%s%s", p->base_dir, file);
  gs_png_reader *r = NULL;
  char why[512];
  if (gs_png_reader_open(path, &r, why, sizeof why) != GS_OK) return perr(p, "#material_map: %s: %s", path, why);
  const gs_png_format *f = gs_png_reader_format(r);
  if ((uint64_t)f->width * f->height > (1ull << 30)) {
    gs_png_reader_close(r);
    return perr(p, "#material_map: %s: larger than 2^30 pixels", path);
  }
  size_t row = gs_png_row_bytes(f);
  uint8_t *buf = gs_xmalloc(row * f->height);
  gs_status st = gs_png_reader_rows(r, buf, f->height, why, sizeof why);
  if (st == GS_OK) st = gs_png_reader_finish(r, why, sizeof why);
  if (st != GS_OK) {
    free(buf);
    gs_png_reader_close(r);
    return perr(p, "#material_map: %s: %s", path, why);
  }
  o->mw = f->width;
  o->mh = f->height;
  o->grey = gs_xmalloc((size_t)f->width * f->height);
  size_t step = (size_t)f->channels * (size_t)(f->depth / 8);
  for (size_t k = 0; k < (size_t)f->width * f->height; ++k)
    o->grey[k] = f->depth == 16 ? (uint8_t)(((const uint16_t *)buf)[k * f->channels] >> 8) : buf[k * step];
  p->s->hash = fnv1a(p->s->hash, o->grey, (size_t)f->width * f->height);
  free(buf);
  gs_png_reader_close(r);
  return 0;
}

static int parse_profile(parser *p, char **t, gs_cfs_param *out, int allow_none) {
  static const char *const orders[] = {"constant", "linear", "quadratic", "cubic", "quartic", "quintic", "sextic"};
  out->order = -1;
  for (int k = 0; k < 7; ++k)
    if (strcmp(t[0], orders[k]) == 0) out->order = k;
  if (out->order < 0) return perr(p, "#pml_cfs: unknown scaling '%s'", t[0]);
  if (strcmp(t[1], "forward") && strcmp(t[1], "reverse")) return perr(p, "#pml_cfs: '%s' is not forward|reverse", t[1]);
  out->reverse = strcmp(t[1], "reverse") == 0;
  if (parse_double(p, t[2], &out->min, "pml_cfs")) return -1;
  if (allow_none && strcmp(t[3], "None") == 0)
    out->max = -1;
  else if (parse_double(p, t[3], &out->max, "pml_cfs"))
    return -1;
  return 0;
}

/* ---- command handlers: the argument count and the grid are already checked ---- */

static int cmd_title(parser *p, const command_call *c) {
  snprintf(p->s->title, sizeof p->s->title, "%.255s", c->text);
  return 0;
}

static int cmd_messages(parser *p, const command_call *c) {
  if (strcmp(c->arg[0], "y") && strcmp(c->arg[0], "n")) return perr(p, "#messages: '%s' is not y or n", c->arg[0]);
  p->s->messages = c->arg[0][0] == 'y';
  return 0;
}

static int parse_lengths(parser *p, const command_call *c, double v[3]) {
  for (int k = 0; k < 3; ++k) {
    if (parse_double(p, c->arg[k], &v[k], c->name)) return -1;
    if (!(v[k] > 0)) return perr(p, "#%s: lengths must be > 0", c->name);
  }
  return 0;
}

/* Sizes the grid once both #domain and #dx_dy_dz are known (either order). */
static int size_grid(parser *p) {
  gs_scene *s = p->s;
  if (!have_geometry(p)) return 0;
  for (int k = 0; k < 3; ++k)
    if (cells_in_range(p, p->domain[k], k == 0 ? s->dx : k == 1 ? s->dy : s->dz, "domain")) return -1;
  s->nx = to_cells(p->domain[0], s->dx);
  s->ny = to_cells(p->domain[1], s->dy);
  int64_t nz = to_cells(p->domain[2], s->dz);
  if (nz != 1)
    return perr(p, "3D models are not supported: the domain is %lld cells in z (a 2D TMz model has 1)", (long long)nz);
  if (s->nx < 3 || s->ny < 3) return perr(p, "the domain must be at least 3 x 3 cells");
  if (s->nx > 2000000 || s->ny > 2000000) return perr(p, "the domain exceeds 2,000,000 cells on a side");
  return 0;
}

static int cmd_domain(parser *p, const command_call *c) {
  if (parse_lengths(p, c, p->domain)) return -1;
  p->have_domain = 1;
  return size_grid(p);
}

static int cmd_dx_dy_dz(parser *p, const command_call *c) {
  double d[3];
  if (parse_lengths(p, c, d)) return -1;
  p->s->dx = d[0];
  p->s->dy = d[1];
  p->s->dz = d[2];
  p->have_dxdydz = 1;
  return size_grid(p);
}

static int cmd_time_window(parser *p, const command_call *c) {
  /* gprMax: a number written as an integer counts iterations, any other is seconds. */
  p->tw_is_iterations = !strpbrk(c->arg[0], ".eE");
  if (parse_double(p, c->arg[0], &p->tw, c->name)) return -1;
  if (!(p->tw > 0)) return perr(p, "#time_window must be > 0");
  if (p->tw_is_iterations && p->tw > GS_SCENE_MAX_ITERATIONS)
    return perr(p, "#time_window: %s iterations is more than 2^40", c->arg[0]);
  p->have_tw = 1;
  return 0;
}

static int cmd_time_step_stability_factor(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (parse_double(p, c->arg[0], &s->stability, c->name)) return -1;
  if (!(s->stability > 0) || s->stability > 1)
    return perr(p, "#time_step_stability_factor: %g is outside (0, 1]: above 1 the scheme is unstable", s->stability);
  return 0;
}

static int cmd_material(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  const char *name = c->arg[4];
  double v[4]; /* er, sigma, mu_r, magnetic loss */
  if (parse_args(p, c, 0, 4, v)) return -1;
  gs_material m = {.er = v[0], .sigma = v[1]};
  if (m.er < 1) return perr(p, "#material %s: relative permittivity %g is below 1", name, m.er);
  if (m.sigma < 0) return perr(p, "#material %s: negative conductivity", name);
  if (v[2] != 1 || v[3] != 0)
    return perr(p,
                "#material %s: magnetic materials (mu_r %g, magnetic loss %g) are not supported: TMz here has "
                "mu_r = 1 and no magnetic loss",
                name, v[2], v[3]);
  if (find_material(s, name) >= 0) return perr(p, "#material: '%s' is already defined", name);
  if (s->nmaterials >= 256) return perr(p, "#material: more than 256 materials");
  if (copy_name(p, m.name, sizeof m.name, name, c->name)) return -1;
  GROW(s->materials, s->nmaterials);
  s->materials[s->nmaterials++] = m;
  return 0;
}

static int cmd_waveform(parser *p, const command_call *c) {
  /* In the order of the GS_WAVE_ constants. */
  static const char *const types[] = {
      "gaussian", "gaussiandot", "gaussiandotnorm", "gaussiandotdot", "gaussiandotdotnorm",
      "ricker",   "sine",        "contsine"};
  gs_scene *s = p->s;
  const char *name = c->arg[3];
  gs_waveform w = {.type = -1};
  for (int k = 0; k < 8; ++k)
    if (!strcmp(c->arg[0], types[k])) w.type = k;
  if (w.type < 0) return perr(p, "#waveform: unknown type '%s'", c->arg[0]);
  double v[2]; /* amplitude, frequency */
  if (parse_args(p, c, 1, 2, v)) return -1;
  w.amp = v[0];
  w.freq = v[1];
  if (!(w.freq > 0)) return perr(p, "#waveform %s: frequency must be > 0", name);
  if (find_waveform(s, name) >= 0) return perr(p, "#waveform: '%s' is already defined", name);
  if (copy_name(p, w.name, sizeof w.name, name, c->name)) return -1;
  GROW(s->waveforms, s->nwaveforms);
  s->waveforms[s->nwaveforms++] = w;
  return 0;
}

static int cmd_hertzian_dipole(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (strcmp(c->arg[0], "z"))
    return perr(p, "#hertzian_dipole: polarisation '%s': a 2D TMz model has only z", c->arg[0]);
  gs_source src = {.start = 0, .stop = INFINITY};
  double xyz[3];
  if (parse_args(p, c, 1, 3, xyz) || node_of(p, xyz[0], xyz[1], &src.i, &src.j, c->name)) return -1;
  src.waveform = find_waveform(s, c->arg[4]);
  if (src.waveform < 0) return perr(p, "#hertzian_dipole: waveform '%s' is not defined (yet)", c->arg[4]);
  if (c->nargs >= 6 && parse_double(p, c->arg[5], &src.start, c->name)) return -1;
  if (c->nargs == 7 && parse_double(p, c->arg[6], &src.stop, c->name)) return -1;
  if (c->nargs == 6) return perr(p, "#hertzian_dipole: give both the delay and the removal time, or neither");
  for (int k = 0; k < s->nsources; ++k)
    if (s->sources[k].i == src.i && s->sources[k].j == src.j)
      return perr(p, "#hertzian_dipole: two sources on the same cell");
  GROW(s->sources, s->nsources);
  s->sources[s->nsources++] = src;
  return 0;
}

static int cmd_rx(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  gs_rx rx = {0};
  double xyz[3];
  if (parse_args(p, c, 0, 3, xyz) || node_of(p, xyz[0], xyz[1], &rx.i, &rx.j, c->name)) return -1;
  if (c->nargs == 5) {
    const char *outputs = c->arg[4];
    if (strcmp(outputs, "Ez") && strcmp(outputs, "Ez,Hx,Hy") && strcmp(outputs, "Ex,Ey,Ez,Hx,Hy,Hz"))
      return perr(p, "#rx: outputs '%s': receivers here record Ez, Hx and Hy", outputs);
    if (copy_name(p, rx.name, sizeof rx.name, c->arg[3], c->name)) return -1;
  } else {
    snprintf(rx.name, sizeof rx.name, "rx%d", s->nrx + 1);
  }
  GROW(s->rxs, s->nrx);
  s->rxs[s->nrx++] = rx;
  return 0;
}

static int object_material(parser *p, const command_call *c, const char *name, int *material) {
  *material = find_material(p->s, name);
  if (*material < 0) return perr(p, "#%s: material '%s' is not defined (yet)", c->name, name);
  return 0;
}

static void add_object(gs_scene *s, const gs_object *o) {
  GROW(s->objects, s->nobjects);
  s->objects[s->nobjects++] = *o;
}

static int cmd_box(parser *p, const command_call *c) {
  double v[6]; /* x0 y0 z0 x1 y1 z1 */
  int material;
  if (parse_args(p, c, 0, 6, v) || object_material(p, c, c->arg[6], &material)) return -1;
  if (v[3] < v[0] || v[4] < v[1]) return perr(p, "#box: the upper corner is below the lower one");
  gs_object box = {.type = GS_OBJ_BOX, .material = material, .x0 = v[0], .y0 = v[1], .x1 = v[3], .y1 = v[4]};
  add_object(p->s, &box);
  return 0;
}

static int cmd_cylinder(parser *p, const command_call *c) {
  double v[7]; /* x0 y0 z0 x1 y1 z1 r */
  gs_object o = {.type = GS_OBJ_CYLINDER};
  if (parse_args(p, c, 0, 7, v) || object_material(p, c, c->arg[7], &o.material)) return -1;
  if (fabs(v[0] - v[3]) > 1e-12 || fabs(v[1] - v[4]) > 1e-12)
    return perr(p, "#cylinder: only cylinders along z are supported in a 2D TMz model");
  if (!(v[6] > 0)) return perr(p, "#cylinder: radius must be > 0");
  o.x0 = v[0];
  o.y0 = v[1];
  o.r = v[6];
  add_object(p->s, &o);
  return 0;
}

static int cmd_material_map(parser *p, const command_call *c) {
  gs_object o = {.type = GS_OBJ_MAP};
  double corner[2];
  if (parse_args(p, c, 1, 2, corner) || cells_in_range(p, corner[0], p->s->dx, c->name) ||
      cells_in_range(p, corner[1], p->s->dy, c->name))
    return -1;
  o.mi0 = to_cells(corner[0], p->s->dx);
  o.mj0 = to_cells(corner[1], p->s->dy);
  for (int k = 0; k < 256; ++k)
    o.lut[k] = -1;
  for (int k = 3; k + 1 < c->nargs; k += 2) {
    char *end;
    errno = 0;
    long grey = strtol(c->arg[k], &end, 10);
    if (*end || end == c->arg[k] || errno || grey < 0 || grey > 255)
      return perr(p, "#material_map: grey level '%s' is not 0..255", c->arg[k]);
    int m = find_material(p->s, c->arg[k + 1]);
    if (m < 0) return perr(p, "#material_map: material '%s' is not defined (yet)", c->arg[k + 1]);
    o.lut[grey] = (int16_t)m;
  }
  if (load_map(p, &o, c->arg[0])) return -1;
  add_object(p->s, &o);
  return 0;
}

static int cmd_pml_cells(parser *p, const command_call *c) {
  int64_t v[6] = {0, 0, 0, 0, 0, 0}; /* x- y- z- x+ y+ z+ */
  for (int k = 0; k < c->nargs; ++k) {
    char *end;
    errno = 0;
    v[k] = strtoll(c->arg[k], &end, 10);
    if (*end || end == c->arg[k] || errno || v[k] < 0 || v[k] > 1000)
      return perr(p, "#pml_cells: '%s' is not a count 0..1000", c->arg[k]);
  }
  if (c->nargs == 1) v[1] = v[3] = v[4] = v[0];
  p->s->pml[0] = (int)v[0];
  p->s->pml[1] = (int)v[1];
  p->s->pml[2] = (int)v[3];
  p->s->pml[3] = (int)v[4];
  return 0;
}

static int cmd_pml_cfs(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (p->has_pml_cfs++) return perr(p, "#pml_cfs: only a first-order CFS PML (one #pml_cfs) is supported");
  if (parse_profile(p, c->arg, &s->cfs_alpha, 0) || parse_profile(p, c->arg + 4, &s->cfs_kappa, 0) ||
      parse_profile(p, c->arg + 8, &s->cfs_sigma, 1))
    return -1;
  if (s->cfs_kappa.min < 1) return perr(p, "#pml_cfs: kappa must be >= 1");
  return 0;
}

/* Metres to whole cells, rounded half away from zero, so that a step and
 * its negative move the same number of cells. */
static int64_t to_step_cells(double metres, double d) {
  double q = fabs(metres / d);
  int64_t n = (int64_t)floor(q + 0.5 + 1e-9);
  return metres < 0 ? -n : n;
}

/* Cells moved per run: x and y in metres rounded to cells (z is ignored). */
static int parse_steps(parser *p, const command_call *c, int64_t *di, int64_t *dj) {
  double v[3];
  if (parse_args(p, c, 0, 3, v) || cells_in_range(p, v[0], p->s->dx, c->name) ||
      cells_in_range(p, v[1], p->s->dy, c->name))
    return -1;
  *di = to_step_cells(v[0], p->s->dx);
  *dj = to_step_cells(v[1], p->s->dy);
  return 0;
}

static int cmd_src_steps(parser *p, const command_call *c) {
  return parse_steps(p, c, &p->s->src_di, &p->s->src_dj);
}

static int cmd_rx_steps(parser *p, const command_call *c) {
  return parse_steps(p, c, &p->s->rx_di, &p->s->rx_dj);
}

static int cmd_snapshot_png(parser *p, const command_call *c) {
  return parse_count(p, c->arg[0], 1, (int64_t)GS_SCENE_MAX_ITERATIONS, &p->s->snapshot_every, c->name);
}

/* gprMax expands these (Python blocks, included files) before parsing; here
 * the scene must spell its commands out. */
static int cmd_refuse_scripting(parser *p, const command_call *c) {
  return perr(p, "#%s: not supported (write the commands out)", c->name);
}

/* The commands gpustencil understands (docs/fdtd.md, "Scenes"); any other is
 * refused as outside the 2D TMz subset. */
static const scene_command commands[] = {
    {"title", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_title},
    {"messages", 1, 1, 0, "y or n", GRID_NOT_NEEDED, cmd_messages},
    {"domain", 3, 3, 0, "three lengths in metres", GRID_NOT_NEEDED, cmd_domain},
    {"dx_dy_dz", 3, 3, 0, "three lengths in metres", GRID_NOT_NEEDED, cmd_dx_dy_dz},
    {"time_window", 1, 1, 0, "seconds (f) or iterations (i)", GRID_NOT_NEEDED, cmd_time_window},
    {"time_step_stability_factor", 1, 1, 0, "a factor in (0, 1]", GRID_NOT_NEEDED, cmd_time_step_stability_factor},
    {"material", 5, 5, 0, "er sigma mu_r sigma_m name", GRID_NOT_NEEDED, cmd_material},
    {"waveform", 4, 4, 0, "type amplitude frequency name", GRID_NOT_NEEDED, cmd_waveform},
    {"hertzian_dipole", 5, 7, 0, "z x y z waveform [delay remove]", GRID_AFTER_COUNT, cmd_hertzian_dipole},
    {"rx", 3, 5, 2, "x y z [name outputs]", GRID_AS_SYNTAX, cmd_rx},
    {"box", 7, 8, 0, "x0 y0 z0 x1 y1 z1 material [c1]", GRID_BEFORE_COUNT, cmd_box},
    {"cylinder", 8, 9, 0, "x0 y0 z0 x1 y1 z1 r material [c1]", GRID_BEFORE_COUNT, cmd_cylinder},
    {"material_map", 5, MAX_ARGS, 2, "file.png x0 y0 grey material [grey material ...]", GRID_AS_SYNTAX,
     cmd_material_map},
    {"pml_cells", 1, 6, 5, "one count or six (x- y- z- x+ y+ z+)", GRID_NOT_NEEDED, cmd_pml_cells},
    {"pml_cfs", 12, 12, 0, "12 parameters (alpha, kappa, sigma: scaling direction min max)", GRID_NOT_NEEDED,
     cmd_pml_cfs},
    {"src_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, cmd_src_steps},
    {"rx_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, cmd_rx_steps},
    {"snapshot_png", 1, 1, 0, "every_n_steps", GRID_NOT_NEEDED, cmd_snapshot_png},
    {"python", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_refuse_scripting},
    {"include_file", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_refuse_scripting},
};

static const scene_command *find_command(const char *name) {
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k)
    if (!strcmp(commands[k].name, name)) return &commands[k];
  return NULL;
}

static int args_fit(const scene_command *d, int nargs) {
  int step = d->arg_step ? d->arg_step : 1;
  return nargs >= d->min_args && nargs <= d->max_args && (nargs - d->min_args) % step == 0;
}

/* The checks every entry declares: argument count and the grid, in the entry's order. */
static int check_call(parser *p, const command_call *c) {
  const scene_command *d = c->def;
  if (d->grid == GRID_BEFORE_COUNT && need_geometry(p, c->name)) return -1;
  if (!args_fit(d, c->nargs) || (d->grid == GRID_AS_SYNTAX && !have_geometry(p)))
    return perr(p, "#%s: expected %s", c->name, d->syntax);
  if (d->grid == GRID_AFTER_COUNT && need_geometry(p, c->name)) return -1;
  return 0;
}

/* One line, trailing blanks removed: a command if it starts with '#'
 * (anything else is a comment, as in gprMax). */
static int parse_line(parser *p, char *line) {
  if (line[0] != '#') return 0;
  char *colon = strchr(line, ':');
  if (!colon) return perr(p, "'%s': a command is '#name: parameters'", line);
  *colon = '\0';
  char *rest = colon + 1;
  while (isspace((unsigned char)*rest))
    ++rest;
  char text[4096];
  snprintf(text, sizeof text, "%s", rest);
  char *args[MAX_ARGS];
  int nargs = 0;
  for (char *tok = strtok(rest, " \t"); tok && nargs < MAX_ARGS; tok = strtok(NULL, " \t"))
    args[nargs++] = tok;
  command_call c = {.def = find_command(line + 1), .name = line + 1, .arg = args, .nargs = nargs, .text = text};
  if (!c.def) return perr(p, "#%s: not supported (2D TMz subset: see docs/fdtd.md)", c.name);
  if (check_call(p, &c)) return -1;
  return c.def->handle(p, &c);
}

static int parse_file(parser *p, FILE *fp) {
  char line[4096];
  while (fgets(line, sizeof line, fp)) {
    p->line++;
    size_t len = strlen(line);
    p->s->hash = fnv1a(p->s->hash, line, len);
    if (len == sizeof line - 1 && line[len - 1] != '\n')
      return perr(p, "line longer than %zu characters", sizeof line - 2);
    while (len && isspace((unsigned char)line[len - 1]))
      line[--len] = '\0';
    if (parse_line(p, line)) return -1;
  }
  return 0;
}

static void set_defaults(gs_scene *s, const char *path) {
  memset(s, 0, sizeof *s);
  snprintf(s->path, sizeof s->path, "%s", path);
  s->stability = 1.0;
  s->messages = 1;
  s->pml[0] = s->pml[1] = s->pml[2] = s->pml[3] = 10;
  s->cfs_alpha = (gs_cfs_param){0, 0, 0, 0};
  s->cfs_kappa = (gs_cfs_param){0, 0, 1, 1};
  s->cfs_sigma = (gs_cfs_param){4, 0, 0, -1};
  s->hash = 0xCBF29CE484222325ull;
  s->materials = gs_xcalloc(2, sizeof *s->materials);
  s->materials[0] = (gs_material){"free_space", 1.0, 0.0, 0};
  s->materials[1] = (gs_material){"pec", 1.0, 0.0, 1};
  s->nmaterials = 2;
}

/* What needs the whole file: required commands, the time step, the PML's fit. */
static gs_status finish_scene(const parser *p, const char *path, char *err, size_t errlen) {
  gs_scene *s = p->s;
  const char *missing = !p->have_domain   ? "#domain"
                        : !p->have_dxdydz ? "#dx_dy_dz"
                        : !p->have_tw     ? "#time_window"
                                          : NULL;
  if (missing) {
    snprintf(err, errlen, "%s: %s is missing", path, missing);
    return GS_ERR_FORMAT;
  }
  /* 2D CFL limit, as gprMax uses for 2D models. */
  s->dt = s->stability / (GS_C0 * sqrt(1.0 / (s->dx * s->dx) + 1.0 / (s->dy * s->dy)));
  double steps = p->tw_is_iterations ? p->tw : ceil(p->tw / s->dt) + 1;
  if (!(steps <= GS_SCENE_MAX_ITERATIONS)) {
    snprintf(err, errlen, "%s: #time_window: %.3g iterations of %g s is more than 2^40", path, steps, s->dt);
    return GS_ERR_FORMAT;
  }
  s->iterations = (int64_t)steps;
  if (s->iterations < 1) {
    snprintf(err, errlen, "%s: #time_window gives no iterations", path);
    return GS_ERR_FORMAT;
  }
  for (int k = 0; k < 4; ++k)
    if (2 * (int64_t)s->pml[k] >= (k % 2 ? s->ny : s->nx)) {
      snprintf(err, errlen, "%s: #pml_cells: %d cells leave no interior in a %lld x %lld domain", path, s->pml[k],
               (long long)s->nx, (long long)s->ny);
      return GS_ERR_FORMAT;
    }
  return GS_OK;
}

gs_status gs_scene_load(const char *path, gs_scene *s, char *err, size_t errlen) {
  set_defaults(s, path);
  parser p = {.file = path, .err = err, .errlen = errlen, .s = s};
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(p.base_dir, sizeof p.base_dir, "%.*s", (int)(slash - path + 1), path);
  gs_status st = GS_OK;
  FILE *fp = gs_fopen_regular(path, &st, err, errlen);
  if (fp) {
    int rc = parse_file(&p, fp);
    int read_error = ferror(fp);
    fclose(fp);
    if (rc) {
      st = GS_ERR_FORMAT;
    } else if (read_error) {
      snprintf(err, errlen, "%s: read error", path);
      st = GS_ERR_IO;
    } else {
      st = finish_scene(&p, path, err, errlen);
    }
  }
  if (st != GS_OK) gs_scene_free(s); /* nothing parsed outlives a refusal */
  return st;
}

void gs_scene_free(gs_scene *s) {
  for (int k = 0; k < s->nobjects; ++k)
    free(s->objects[k].grey);
  free(s->materials);
  free(s->waveforms);
  free(s->sources);
  free(s->rxs);
  free(s->objects);
  memset(s, 0, sizeof *s);
}

int gs_scene_material_at(const gs_scene *s, int64_t i, int64_t j) {
  int m = 0;
  double x = (double)i * s->dx, y = (double)j * s->dy;
  for (int k = 0; k < s->nobjects; ++k) {
    const gs_object *o = &s->objects[k];
    if (o->type == GS_OBJ_BOX) {
      if (i >= to_cells(o->x0, s->dx) && i <= to_cells(o->x1, s->dx) && j >= to_cells(o->y0, s->dy) &&
          j <= to_cells(o->y1, s->dy))
        m = o->material;
    } else if (o->type == GS_OBJ_CYLINDER) {
      double ddx = x - o->x0, ddy = y - o->y0;
      if (ddx * ddx + ddy * ddy <= o->r * o->r * (1 + 1e-12)) m = o->material;
    } else {
      int64_t px = i - o->mi0, py = (int64_t)o->mh - 1 - (j - o->mj0);
      if (px >= 0 && px < (int64_t)o->mw && py >= 0 && py < (int64_t)o->mh) {
        int v = o->lut[o->grey[(size_t)py * o->mw + (size_t)px]];
        if (v >= 0) m = v;
      }
    }
  }
  return m;
}

double gs_waveform_value(const gs_waveform *w, double t) {
  const double pi = 3.14159265358979323846;
  double f = w->freq, v = 0;
  switch (w->type) {
  case GS_WAVE_GAUSSIAN:
  case GS_WAVE_GAUSSIANDOT:
  case GS_WAVE_GAUSSIANDOTNORM: {
    double chi = 1 / f, zeta = 2 * pi * pi * f * f, d = t - chi;
    if (w->type == GS_WAVE_GAUSSIAN)
      v = exp(-zeta * d * d);
    else
      v = -2 * zeta * d * exp(-zeta * d * d) * (w->type == GS_WAVE_GAUSSIANDOTNORM ? sqrt(exp(1) / (2 * zeta)) : 1);
    break;
  }
  case GS_WAVE_GAUSSIANDOTDOT:
  case GS_WAVE_GAUSSIANDOTDOTNORM:
  case GS_WAVE_RICKER: {
    double chi = sqrt(2.0) / f, zeta = pi * pi * f * f, d = t - chi;
    v = 2 * zeta * (2 * zeta * d * d - 1) * exp(-zeta * d * d);
    if (w->type != GS_WAVE_GAUSSIANDOTDOT) v *= 1 / (2 * zeta);
    if (w->type == GS_WAVE_RICKER) v = -v;
    break;
  }
  case GS_WAVE_SINE:
    v = t * f > 1 ? 0 : sin(2 * pi * f * t);
    break;
  case GS_WAVE_CONTSINE: {
    double ramp = 0.25 * t * f;
    v = (ramp > 1 ? 1 : ramp) * sin(2 * pi * f * t);
    break;
  }
  }
  return v * w->amp;
}

void gs_scene_synthetic(gs_scene *s, int64_t nx, int64_t ny, int64_t iterations) {
  memset(s, 0, sizeof *s);
  snprintf(s->title, sizeof s->title, "synthetic %lldx%lld", (long long)nx, (long long)ny);
  s->dx = s->dy = s->dz = 0.001;
  s->stability = 1.0;
  s->nx = nx;
  s->ny = ny;
  s->dt = 1.0 / (GS_C0 * sqrt(2.0 / (s->dx * s->dx)));
  s->iterations = iterations;
  s->pml[0] = s->pml[1] = s->pml[2] = s->pml[3] = 10;
  s->cfs_alpha = (gs_cfs_param){0, 0, 0, 0};
  s->cfs_kappa = (gs_cfs_param){0, 0, 1, 1};
  s->cfs_sigma = (gs_cfs_param){4, 0, 0, -1};
  s->materials = gs_xcalloc(3, sizeof *s->materials);
  s->materials[0] = (gs_material){"free_space", 1.0, 0.0, 0};
  s->materials[1] = (gs_material){"pec", 1.0, 0.0, 1};
  s->materials[2] = (gs_material){"soil", 6.0, 0.005, 0};
  s->nmaterials = 3;
  s->objects = gs_xcalloc(1, sizeof *s->objects);
  s->objects[0] = (gs_object){
      .type = GS_OBJ_BOX, .material = 2, .x0 = 0, .y0 = 0, .x1 = (double)nx * s->dx, .y1 = 0.5 * (double)ny * s->dy};
  s->nobjects = 1;
  s->waveforms = gs_xcalloc(1, sizeof *s->waveforms);
  s->waveforms[0] = (gs_waveform){"pulse", GS_WAVE_RICKER, 1.0, 10e9};
  s->nwaveforms = 1;
  s->sources = gs_xcalloc(1, sizeof *s->sources);
  s->sources[0] = (gs_source){.i = nx / 2, .j = ny / 2 + 5, .waveform = 0, .start = 0, .stop = INFINITY};
  s->nsources = 1;
  s->rxs = gs_xcalloc(1, sizeof *s->rxs);
  s->rxs[0] = (gs_rx){.i = nx / 2 + 10, .j = ny / 2 + 5, .name = "rx1"};
  s->nrx = 1;
  s->hash = 1;
}

/* The parser of gprMax input files, 2D (TMz, TMx, TMy) and 3D models.
 *
 * Every command is one entry of commands[] (below the handlers): its name, the
 * argument counts it takes, whether the grid must be known first, and a handler
 * that sees only well-shaped arguments. Supporting another gprMax command is one
 * handler and one entry. */
#include "scene.h"
#include "scene_internal.h"
#include "scene_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fsutil.h"
#include "png_io.h"

#define GS_C0 299792458.0
#define MAX_ARGS GS_SCENE_MAX_ARGS
typedef gs_parser parser;
typedef gs_command_call command_call;
typedef gs_scene_command scene_command;

/* Whether a command places something on the grid, so that #domain and
 * #dx_dy_dz must come first, and which error a missing grid gives when the
 * argument count is wrong too. */
typedef enum grid_need {
  GRID_NOT_NEEDED,
  GRID_BEFORE_COUNT, /* the missing grid is reported first */
  GRID_AFTER_COUNT,  /* a wrong count is reported first */
  GRID_AS_SYNTAX,    /* a missing grid is reported as "expected SYNTAX" (what #rx and #material_map always did) */
} grid_need;

struct gs_scene_command {
  const char *name;
  /* Accepted argument counts: min_args, min_args + arg_step, ... up to
   * max_args (a step of 0 means 1). Other counts give "#name: expected SYNTAX". */
  int min_args, max_args, arg_step;
  const char *syntax;
  grid_need grid;
  int (*handle)(parser *p, const command_call *c);
};

int gs_perr(parser *p, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->out) /* a line a #python block printed */
    snprintf(p->err, p->errlen, "%s:%d: #python output line %d: %s", p->file, p->line, p->out, msg);
  else
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

void gs_scene_hash_add(gs_scene *s, const void *data, size_t n) {
  s->hash = fnv1a(s->hash, data, n);
}

void gs_scene_add_input(gs_scene *s, const char *path, int line, const char *what) {
  s->inputs = gs_xrealloc(s->inputs, sizeof *s->inputs * (size_t)(s->ninputs + 1));
  gs_scene_input *in = &s->inputs[s->ninputs++];
  snprintf(in->path, sizeof in->path, "%s", path);
  snprintf(in->what, sizeof in->what, "%s", what);
  in->line = line;
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

int gs_scene_number(const char *tok, double *out) {
  char *end;
  errno = 0;
  double v = is_plain_number(tok) ? strtod(tok, &end) : NAN;
  if (!is_plain_number(tok) || end == tok || *end || errno == ERANGE || !isfinite(v)) return -1;
  if (fabs(v) > GS_SCENE_MAX_NUMBER) return -2;
  *out = v;
  return 0;
}

int gs_parse_double(parser *p, const char *tok, double *out, const char *what) {
  int st = gs_scene_number(tok, out);
  if (st == -1) return gs_perr(p, "#%s: '%s' is not a number", what, tok);
  if (st == -2) return gs_perr(p, "#%s: %s is out of range (at most 1e30 in magnitude)", what, tok);
  return 0;
}

int gs_check_source_times(parser *p, const char *cmd, double start, double stop) {
  if (start < 0 || stop < 0 || !(stop - start > 0))
    return gs_perr(p, "#%s: the delay and removal time must be >= 0, the removal after the delay", cmd);
  return 0;
}

/* A whole number in [min, max] written in decimal digits. */
static int parse_count(parser *p, const char *tok, int64_t min, int64_t max, int64_t *out, const char *what) {
  char *end;
  errno = 0;
  long long v = strtoll(tok, &end, 10);
  int digits = *tok >= '0' && *tok <= '9';
  if (!digits || end == tok || *end || errno == ERANGE || v < min || v > max)
    return gs_perr(p, "#%s: '%s' is not a whole number in %lld..%lld", what, tok, (long long)min, (long long)max);
  *out = v;
  return 0;
}

/* Copies a name given in the scene, refusing one too long for the field
 * rather than cutting it (a cut name would then not match its uses). */
int gs_copy_name(parser *p, char *dst, size_t size, const char *name, const char *what) {
  if (strlen(name) >= size)
    return gs_perr(p, "#%s: name '%.40s...' is longer than %d characters", what, name, (int)size - 1);
  memcpy(dst, name, strlen(name) + 1);
  return 0;
}

/* Parses count consecutive arguments from first on, stopping at the first bad one. */
int gs_parse_args(parser *p, const command_call *c, int first, int count, double *out) {
  for (int k = 0; k < count; ++k)
    if (gs_parse_double(p, c->arg[first + k], &out[k], c->name)) return -1;
  return 0;
}

int64_t gs_round_cells(double v) {
  /* Saturates far outside any model (and on NaN) so that the caller's range
   * test refuses the value instead of the conversion overflowing. */
  const double limit = 4611686018427387904.0; /* 2^62 */
  if (!(fabs(v) < limit)) return v < 0 ? -(int64_t)limit : (int64_t)limit;
  double t = trunc(v);
  return (int64_t)(fabs(v - t) > 0.5 ? t + (v < 0 ? -1 : 1) : t);
}

/* gprMax's conversion of metres to cells: the float64 quotient, rounded to
 * the nearest whole number with exact halves toward zero. */
static int64_t to_cells(double metres, double d) {
  return gs_round_cells(metres / d);
}

/* Positions and lengths further than this many cells from the origin are
 * refused before they are converted to integers (no model has 2^40 cells on
 * a side; the conversion of larger values would overflow). */

static int cells_in_range(parser *p, double metres, double d, const char *what) {
  if (fabs(metres / d) > GS_SCENE_MAX_CELLS)
    return gs_perr(p, "#%s: %g m is more than 2^40 cells of %g m from the origin", what, metres, d);
  return 0;
}

int gs_check_lengths(gs_parser *p, const char *what, const double *v, int n) {
  const double d = fmin(fmin(p->d[0], p->d[1]), p->d[2]);
  for (int k = 0; k < n; ++k)
    if (!(fabs(v[k]) / d <= GS_SCENE_MAX_CELLS))
      return gs_perr(p, "#%s: %g is more than 2^40 cells of %g m", what, v[k], d);
  return 0;
}

int gs_find_material(const gs_scene *s, const char *name) {
  for (int i = 0; i < s->nmaterials; ++i)
    if (strcmp(s->materials[i].name, name) == 0) return i;
  return -1;
}

static int find_waveform(const gs_scene *s, const char *name) {
  for (int i = 0; i < s->nwaveforms; ++i)
    if (strcmp(s->waveforms[i].name, name) == 0) return i;
  return -1;
}

int gs_find_waveform(const gs_scene *s, const char *name) {
  return find_waveform(s, name);
}

#define GROW(arr, n) ((arr) = gs_xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1)))

static int have_geometry(const parser *p) {
  return p->have_domain && p->have_dxdydz;
}

static int need_geometry(parser *p, const char *cmd) {
  if (!have_geometry(p))
    return gs_perr(p, "#%s: #domain and #dx_dy_dz must come before objects, sources and receivers", cmd);
  return 0;
}

int gs_point_cells(parser *p, const double xyz[3], int64_t cell[3], int inside, const char *what) {
  static const char axes[] = "xyz";
  for (int k = 0; k < 3; ++k) {
    if (cells_in_range(p, xyz[k], p->d[k], what)) return -1;
    cell[k] = to_cells(xyz[k], p->d[k]);
    if (inside && (cell[k] < 0 || cell[k] > p->n[k]))
      return gs_perr(p, "#%s: %c = %g m is outside the domain (0 to %g m)", what, axes[k], xyz[k],
                     (double)p->n[k] * p->d[k]);
  }
  return 0;
}

void gs_frame_of(const gs_scene *s, const int64_t cell[3], int64_t *a, int64_t *b, int64_t *c) {
  *a = cell[s->axis[0]];
  *b = cell[s->axis[1]];
  *c = cell[s->axis[2]];
}

/* The frame node of a source or receiver at xyz (metres): anywhere in the
 * domain (interior: not on its outer boundary, where the field is held at 0),
 * in the model's plane. */
static int node_of(parser *p, const double xyz[3], int64_t *i, int64_t *j, int interior, const char *cmd) {
  int64_t cell[3], c;
  if (gs_point_cells(p, xyz, cell, 1, cmd)) return -1;
  gs_frame_of(p->s, cell, i, j, &c);
  static const char axes[] = "xyz";
  if (c != 0)
    return gs_perr(p, "#%s: %c = %g m is not in the plane of this 2D model (%c = 0)", cmd, axes[p->s->axis[2]],
                   xyz[p->s->axis[2]], axes[p->s->axis[2]]);
  if (interior && (*i < 1 || *i >= p->s->nx || *j < 1 || *j >= p->s->ny))
    return gs_perr(p, "#%s: (%g, %g, %g) m is on the domain's outer boundary, where the field is held at 0", cmd,
                   xyz[0], xyz[1], xyz[2]);
  return 0;
}

/* A 3D model's source node: inside the range gprMax updates for the
 * component pol drives (along pol [0, n), across it [1, n)). */
static int node3_of(parser *p, const double xyz[3], int pol, gs_source *src, const char *cmd) {
  int64_t cell[3];
  if (gs_point_cells(p, xyz, cell, 1, cmd)) return -1;
  for (int a = 0; a < 3; ++a)
    if (cell[a] < (a == pol ? 0 : 1) || cell[a] >= p->n[a])
      return gs_perr(p, "#%s: (%g, %g, %g) m is on the domain's outer boundary, where the field is held at 0", cmd,
                     xyz[0], xyz[1], xyz[2]);
  src->i = cell[0];
  src->j = cell[1];
  src->k = cell[2];
  src->pol = pol;
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
  if (gs_png_reader_open(path, &r, why, sizeof why) != GS_OK) return gs_perr(p, "#material_map: %s: %s", path, why);
  gs_scene_add_input(p->s, path, p->line, "material_map");
  const gs_png_format *f = gs_png_reader_format(r);
  if ((uint64_t)f->width * f->height > (1ull << 30)) {
    gs_png_reader_close(r);
    return gs_perr(p, "#material_map: %s: larger than 2^30 pixels", path);
  }
  size_t row = gs_png_row_bytes(f);
  uint8_t *buf = gs_xmalloc(row * f->height);
  gs_status st = gs_png_reader_rows(r, buf, f->height, why, sizeof why);
  if (st == GS_OK) st = gs_png_reader_finish(r, why, sizeof why);
  if (st != GS_OK) {
    free(buf);
    gs_png_reader_close(r);
    return gs_perr(p, "#material_map: %s: %s", path, why);
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
  if (out->order < 0) return gs_perr(p, "#pml_cfs: unknown scaling '%s'", t[0]);
  if (strcmp(t[1], "forward") && strcmp(t[1], "reverse"))
    return gs_perr(p, "#pml_cfs: '%s' is not forward|reverse", t[1]);
  out->reverse = strcmp(t[1], "reverse") == 0;
  if (gs_parse_double(p, t[2], &out->min, "pml_cfs")) return -1;
  if (allow_none && strcmp(t[3], "None") == 0)
    out->max = -1;
  else if (gs_parse_double(p, t[3], &out->max, "pml_cfs"))
    return -1;
  /* gprMax refuses negative alpha, kappa and sigma minimums and maximums but sigma max; a negative
   * sigma max (gprMax would take it) is refused here too: it would read as None (-1) */
  if (out->min < 0 || (out->max < 0 && !(allow_none && strcmp(t[3], "None") == 0)))
    return gs_perr(p, "#pml_cfs: the minimum and maximum scaling values must be >= 0 ('%s %s')", t[2], t[3]);
  return 0;
}

/* ---- command handlers: the argument count and the grid are already checked ---- */

static int cmd_title(parser *p, const command_call *c) {
  snprintf(p->s->title, sizeof p->s->title, "%.255s", c->text);
  return 0;
}

static int cmd_messages(parser *p, const command_call *c) {
  if (strcmp(c->arg[0], "y") && strcmp(c->arg[0], "n")) return gs_perr(p, "#messages: '%s' is not y or n", c->arg[0]);
  p->s->messages = c->arg[0][0] == 'y';
  return 0;
}

static int parse_lengths(parser *p, const command_call *c, double v[3]) {
  for (int k = 0; k < 3; ++k) {
    if (gs_parse_double(p, c->arg[k], &v[k], c->name)) return -1;
    if (!(v[k] > 0)) return gs_perr(p, "#%s: lengths must be > 0", c->name);
  }
  return 0;
}

/* Sizes the grid once both #domain and #dx_dy_dz are known (either order). */
static int size_grid(parser *p) {
  gs_scene *s = p->s;
  if (!have_geometry(p)) return 0;
  for (int k = 0; k < 3; ++k) {
    if (cells_in_range(p, p->domain[k], p->d[k], "domain")) return -1;
    p->n[k] = to_cells(p->domain[k], p->d[k]);
  }
  /* gprMax's order of the tests: one cell in x, else in y, else in z. */
  static const int frames[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
  s->mode = p->n[0] == 1 ? GS_MODE_TMX : p->n[1] == 1 ? GS_MODE_TMY : p->n[2] == 1 ? GS_MODE_TMZ : GS_MODE_3D;
  memcpy(s->axis, frames[s->mode == GS_MODE_TMX ? 1 : s->mode == GS_MODE_TMY ? 2 : 0], sizeof s->axis);
  s->nz = s->mode == GS_MODE_3D ? p->n[2] : 1;
  if (s->mode == GS_MODE_3D && (p->n[0] < 3 || p->n[1] < 3 || p->n[2] < 3))
    return gs_perr(p, "the domain must be at least 3 x 3 x 3 cells (or one cell thick: a 2D model)");
  if (s->mode == GS_MODE_3D && (double)p->n[0] * (double)p->n[1] * (double)p->n[2] > 1099511627776.0)
    return gs_perr(p, "the domain has more than 2^40 cells");
  s->nx = p->n[s->axis[0]];
  s->ny = p->n[s->axis[1]];
  s->dx = p->d[s->axis[0]];
  s->dy = p->d[s->axis[1]];
  s->dz = p->d[s->axis[2]];
  if (s->nx < 3 || s->ny < 3) return gs_perr(p, "the domain must be at least 3 x 3 cells across the model");
  if (s->nx > 2000000 || s->ny > 2000000) return gs_perr(p, "the domain exceeds 2,000,000 cells on a side");
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
  memcpy(p->d, d, sizeof d);
  p->have_dxdydz = 1;
  return size_grid(p);
}

static int cmd_time_window(parser *p, const command_call *c) {
  /* gprMax: a number written as an integer counts iterations, any other is seconds. */
  p->tw_is_iterations = !strpbrk(c->arg[0], ".eE");
  if (gs_parse_double(p, c->arg[0], &p->tw, c->name)) return -1;
  if (!(p->tw > 0)) return gs_perr(p, "#time_window must be > 0");
  if (p->tw_is_iterations && p->tw > GS_SCENE_MAX_ITERATIONS)
    return gs_perr(p, "#time_window: %s iterations is more than 2^40", c->arg[0]);
  p->have_tw = 1;
  return 0;
}

static int cmd_time_step_stability_factor(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (gs_parse_double(p, c->arg[0], &s->stability, c->name)) return -1;
  if (!(s->stability > 0) || s->stability > 1)
    return gs_perr(p, "#time_step_stability_factor: %g is outside (0, 1]: above 1 the scheme is unstable",
                   s->stability);
  return 0;
}

static int cmd_material(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  const char *name = c->arg[4];
  double v[4]; /* er, sigma, mu_r, magnetic loss */
  /* gprMax takes "inf" for a perfect conductor (never averaged, like pec). */
  int inf = !strcmp(c->arg[1], "inf");
  if (inf) c->arg[1] = "0";
  if (gs_parse_args(p, c, 0, 4, v)) return -1;
  gs_material m = {.er = v[0], .sigma = v[1], .mr = v[2], .sm = v[3], .pec = inf};
  if (m.er < 1) return gs_perr(p, "#material %s: relative permittivity %g is below 1", name, m.er);
  if (m.sigma < 0) return gs_perr(p, "#material %s: negative conductivity", name);
  if (m.mr < 1) return gs_perr(p, "#material %s: relative permeability %g is below 1", name, m.mr);
  if (m.sm < 0) return gs_perr(p, "#material %s: negative magnetic loss", name);
  if (gs_find_material(s, name) >= 0) return gs_perr(p, "#material: '%s' is already defined", name);
  if (s->nmaterials >= 200) return gs_perr(p, "#material: more than 200 materials");
  if (strchr(name, '+')) return gs_perr(p, "#material: '%s': '+' is kept for averaged materials' names", name);
  if (gs_copy_name(p, m.name, 64, name, c->name)) return -1; /* 63 characters, like every name */
  GROW(s->materials, s->nmaterials);
  s->materials[s->nmaterials++] = m;
  return 0;
}

static int cmd_waveform(parser *p, const command_call *c) {
  /* In the order of the GS_WAVE_ constants. */
  static const char *const types[] = {
      "gaussian", "gaussiandot",   "gaussiandotnorm",     "gaussiandotdot", "gaussiandotdotnorm", "ricker", "sine",
      "contsine", "gaussianprime", "gaussiandoubleprime", "impulse"};
  gs_scene *s = p->s;
  const char *name = c->arg[3];
  gs_waveform w = {.type = -1};
  for (int k = 0; k < (int)(sizeof types / sizeof types[0]); ++k)
    if (!strcmp(c->arg[0], types[k])) w.type = k;
  if (w.type < 0) return gs_perr(p, "#waveform: unknown type '%s'", c->arg[0]);
  double v[2]; /* amplitude, frequency */
  if (gs_parse_args(p, c, 1, 2, v)) return -1;
  w.amp = v[0];
  w.freq = v[1];
  if (!(w.freq > 0)) return gs_perr(p, "#waveform %s: frequency must be > 0", name);
  /* (the duplicate search is linear: a cap keeps a hostile file from taking minutes) */
  if (s->nwaveforms >= GS_SCENE_MAX_WAVEFORMS)
    return gs_perr(p, "#waveform: more than %d waveforms", GS_SCENE_MAX_WAVEFORMS);
  if (find_waveform(s, name) >= 0) return gs_perr(p, "#waveform: '%s' is already defined", name);
  if (gs_copy_name(p, w.name, sizeof w.name, name, c->name)) return -1;
  GROW(s->waveforms, s->nwaveforms);
  s->waveforms[s->nwaveforms++] = w;
  return 0;
}

static int cmd_hertzian_dipole(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  static const char *const pol[] = {"x", "y", "z"}, *const modes[] = {"TMz", "TMx", "TMy"};
  int is3d = s->mode == GS_MODE_3D, axis = c->arg[0][0] - 'x';
  if (is3d && (axis < 0 || axis > 2 || c->arg[0][1]))
    return gs_perr(p, "#hertzian_dipole: polarisation '%s' is not x, y or z", c->arg[0]);
  if (!is3d && strcmp(c->arg[0], pol[s->axis[2]]))
    return gs_perr(p, "#hertzian_dipole: polarisation '%s': this 2D %s model has only %s", c->arg[0], modes[s->mode],
                   pol[s->axis[2]]);
  gs_source src = {.start = 0, .stop = INFINITY};
  double xyz[3];
  if (gs_parse_args(p, c, 1, 3, xyz)) return -1;
  if (is3d ? node3_of(p, xyz, axis, &src, c->name) : node_of(p, xyz, &src.i, &src.j, 1, c->name)) return -1;
  src.waveform = find_waveform(s, c->arg[4]);
  if (src.waveform < 0) return gs_perr(p, "#hertzian_dipole: waveform '%s' is not defined (yet)", c->arg[4]);
  if (c->nargs >= 6 && gs_parse_double(p, c->arg[5], &src.start, c->name)) return -1;
  if (c->nargs == 7 && gs_parse_double(p, c->arg[6], &src.stop, c->name)) return -1;
  if (c->nargs == 6) return gs_perr(p, "#hertzian_dipole: give both the delay and the removal time, or neither");
  if (gs_check_source_times(p, c->name, src.start, src.stop)) return -1;
  for (int k = 0; k < s->nsources; ++k)
    if (s->sources[k].i == src.i && s->sources[k].j == src.j && s->sources[k].k == src.k &&
        s->sources[k].pol == src.pol)
      return gs_perr(p, "#hertzian_dipole: two sources on the same cell");
  GROW(s->sources, s->nsources);
  s->sources[s->nsources++] = src;
  return 0;
}

/* Adds one receiver output named tok (gprMax's names; commas also
 * separate names, as earlier versions of gpustencil wrote them). */
static int parse_outputs(parser *p, const char *tok, unsigned *outputs) {
  static const char *const names[GS_OUT_N] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "Ix", "Iy", "Iz"};
  char buf[256];
  snprintf(buf, sizeof buf, "%s", tok);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = 0;
    while (k < GS_OUT_N && strcmp(t, names[k]))
      ++k;
    if (k == GS_OUT_N) return gs_perr(p, "#rx: unknown output '%s' (Ex Ey Ez Hx Hy Hz Ix Iy Iz)", t);
    *outputs |= 1u << k;
  }
  return 0;
}

/* Room for count receivers in s->rxs. The array doubles: a #rx_array adds
 * up to 100000 receivers one at a time, and growing it by one each time
 * copied it each time (minutes under ASan; the fuzzer's timeout). */
static void rx_room(parser *p, int64_t count) {
  if (count <= p->rx_cap) return;
  int64_t cap = p->rx_cap ? p->rx_cap : 16;
  while (cap < count)
    cap *= 2;
  p->s->rxs = gs_xrealloc(p->s->rxs, sizeof *p->s->rxs * (size_t)cap);
  p->rx_cap = cap;
}

/* One receiver at xyz (metres), anywhere in the domain including its outer
 * boundary (as gprMax); name NULL: gprMax's default name Rx(i,j,k). */
static int add_rx(parser *p, const double xyz[3], const char *name, unsigned outputs, const char *cmd) {
  gs_scene *s = p->s;
  gs_rx rx = {.outputs = outputs, .line = s->nrx};
  int64_t cell[3], c;
  if (gs_point_cells(p, xyz, cell, 1, cmd)) return -1;
  /* gprMax also takes the far face of the thin axis, where every field
   * component it records stays 0. */
  gs_frame_of(s, cell, &rx.i, &rx.j, &c);
  rx.offplane = c != 0 && s->mode != GS_MODE_3D;
  if (s->mode == GS_MODE_3D) rx.k = c;
  if (s->mode == GS_MODE_3D && (outputs & (7u << GS_OUT_IX)))
    return gs_perr(p, "#%s: currents (Ix Iy Iz) are not recorded in 3D models yet", cmd);
  if (name && gs_copy_name(p, rx.name, sizeof rx.name, name, cmd)) return -1;
  if (!name)
    snprintf(rx.name, sizeof rx.name, "Rx(%lld,%lld,%lld)", (long long)cell[0], (long long)cell[1], (long long)cell[2]);
  if (s->nrx >= 100000) return gs_perr(p, "#%s: more than 100000 receivers", cmd);
  rx.below = rx.left = -1;
  rx_room(p, s->nrx + 1);
  s->rxs[s->nrx++] = rx;
  /* The current along the thin axis is H's circulation around the node
   * (gprMax's Ix/Iy/Iz; 0 on the first row and column): it needs Hx one node
   * below and Hy one node left, sampled by two hidden receivers. */
  if ((outputs >> (GS_OUT_IX + s->axis[2]) & 1) && rx.i > 0 && rx.j > 0 && !rx.offplane) {
    int me = s->nrx - 1;
    rx_room(p, s->nrx + 2);
    s->rxs[s->nrx] = (gs_rx){.i = rx.i, .j = rx.j - 1, .hidden = 1, .below = -1, .left = -1, .line = rx.line};
    s->rxs[s->nrx + 1] = (gs_rx){.i = rx.i - 1, .j = rx.j, .hidden = 1, .below = -1, .left = -1, .line = rx.line};
    snprintf(s->rxs[s->nrx].name, sizeof rx.name, "(helper)");
    snprintf(s->rxs[s->nrx + 1].name, sizeof rx.name, "(helper)");
    s->rxs[me].below = s->nrx;
    s->rxs[me].left = s->nrx + 1;
    s->nrx += 2;
  }
  return 0;
}

/* #rx: x y z [name output ...] (gprMax 4: outputs separated by blanks, any
 * number of them, repeats allowed). gprMax 3 and 4 refuse 0, 1, 2 or 4
 * parameters ("has an incorrect number of parameters"): a name needs outputs. */
static int cmd_rx(parser *p, const command_call *c) {
  double xyz[3];
  if (c->nargs == 4) return gs_perr(p, "#rx: expected x y z [name output ...]: a name needs at least one output");
  unsigned outputs = c->nargs > 3 ? 0 : GS_OUT_DEFAULT;
  if (gs_parse_args(p, c, 0, 3, xyz)) return -1;
  for (int k = 4; k < c->nargs; ++k)
    if (parse_outputs(p, c->arg[k], &outputs)) return -1;
  return add_rx(p, xyz, c->nargs > 3 ? c->arg[3] : NULL, outputs, c->name);
}

/* #rx_array: x1 y1 z1 x2 y2 z2 dx dy dz: receivers from the first corner to
 * the second in steps (gprMax: all three steps non-zero; each receiver
 * takes the default outputs and name). The points are gprMax's: the steps
 * rounded to cells, then metres x1, x1 + dx, ... while below x2 + dl. */
static int cmd_rx_array(parser *p, const command_call *c) {
  double v[9];
  int64_t lo[3], hi[3], st[3];
  if (gs_parse_args(p, c, 0, 9, v) || gs_point_cells(p, v, lo, 1, c->name) ||
      gs_point_cells(p, v + 3, hi, 1, c->name) || gs_point_cells(p, v + 6, st, 0, c->name))
    return -1;
  double from[3], count[3];
  for (int k = 0; k < 3; ++k) {
    if (st[k] <= 0) return gs_perr(p, "#rx_array: the steps must be at least one cell and positive");
    if (hi[k] < lo[k]) return gs_perr(p, "#rx_array: the second corner is below the first");
    from[k] = (double)lo[k] * p->d[k];
    double step = (double)st[k] * p->d[k], to = (double)hi[k] * p->d[k] + p->d[k];
    count[k] = ceil((to - from[k]) / step); /* numpy.arange's length */
  }
  if (count[0] * count[1] * count[2] > 100000) return gs_perr(p, "#rx_array: more than 100000 receivers");
  for (double a = 0; a < count[0]; ++a)
    for (double b = 0; b < count[1]; ++b)
      for (double e = 0; e < count[2]; ++e) {
        double xyz[3] = {from[0] + a * (double)st[0] * p->d[0], from[1] + b * (double)st[1] * p->d[1],
                         from[2] + e * (double)st[2] * p->d[2]};
        if (add_rx(p, xyz, NULL, GS_OUT_DEFAULT, c->name)) return -1;
      }
  return 0;
}

void gs_scene_add_object(gs_scene *s, const gs_object *o) {
  GROW(s->objects, s->nobjects);
  s->objects[s->nobjects++] = *o;
}

static int cmd_material_map(parser *p, const command_call *c) {
  if (p->s->mode == GS_MODE_3D) return gs_perr(p, "#material_map: not supported in 3D models");
  gs_object o = {.type = GS_OBJ_MAP};
  double corner[2];
  if (gs_parse_args(p, c, 1, 2, corner) || cells_in_range(p, corner[0], p->s->dx, c->name) ||
      cells_in_range(p, corner[1], p->s->dy, c->name))
    return -1;
  o.mi0 = to_cells(corner[0], p->s->dx);
  o.mj0 = to_cells(corner[1], p->s->dy);
  o.averaging = 1;
  for (int k = 0; k < 256; ++k)
    o.lut[k] = -1;
  for (int k = 3; k + 1 < c->nargs; k += 2) {
    char *end;
    errno = 0;
    long grey = strtol(c->arg[k], &end, 10);
    if (*end || end == c->arg[k] || errno || grey < 0 || grey > 255)
      return gs_perr(p, "#material_map: grey level '%s' is not 0..255", c->arg[k]);
    int m = gs_find_material(p->s, c->arg[k + 1]);
    if (m < 0) return gs_perr(p, "#material_map: material '%s' is not defined (yet)", c->arg[k + 1]);
    o.lut[grey] = (int16_t)m;
  }
  if (load_map(p, &o, c->arg[0])) return -1;
  gs_scene_add_object(p->s, &o);
  return 0;
}

static int cmd_pml_cells(parser *p, const command_call *c) {
  int64_t v[6] = {0, 0, 0, 0, 0, 0}; /* x- y- z- x+ y+ z+ */
  for (int k = 0; k < c->nargs; ++k) {
    char *end;
    errno = 0;
    v[k] = strtoll(c->arg[k], &end, 10);
    if (*end || end == c->arg[k] || errno || v[k] < 0 || v[k] > 1000)
      return gs_perr(p, "#pml_cells: '%s' is not a count 0..1000", c->arg[k]);
  }
  if (c->nargs == 1) v[1] = v[2] = v[3] = v[4] = v[5] = v[0];
  for (int k = 0; k < 6; ++k)
    p->pml6[k] = (int)v[k];
  return 0;
}

static int cmd_pml_cfs(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (p->has_pml_cfs++) return gs_perr(p, "#pml_cfs: only a first-order CFS PML (one #pml_cfs) is supported");
  if (parse_profile(p, c->arg, &s->cfs_alpha, 0) || parse_profile(p, c->arg + 4, &s->cfs_kappa, 0) ||
      parse_profile(p, c->arg + 8, &s->cfs_sigma, 1))
    return -1;
  if (s->cfs_kappa.min < 1) return gs_perr(p, "#pml_cfs: kappa must be >= 1");
  return 0;
}

/* Cells moved per run along the frame's a and b axes: the file's steps
 * rounded as gprMax rounds them (an exact half toward zero, so a step and
 * its negative move equally far); a step along the thin axis is refused. */
static int parse_steps(parser *p, const command_call *c, int64_t *di, int64_t *dj) {
  double v[3];
  int64_t cell[3], thin;
  if (gs_parse_args(p, c, 0, 3, v) || gs_point_cells(p, v, cell, 0, c->name)) return -1;
  gs_frame_of(p->s, cell, di, dj, &thin);
  if (p->s->mode == GS_MODE_3D) { /* the frame is the file's axes */
    int64_t *dk = c->name[0] == 's' ? &p->s->src_dk : &p->s->rx_dk;
    *dk = thin;
    return 0;
  }
  if (thin) return gs_perr(p, "#%s: a step along the thin axis leaves the plane of this 2D model", c->name);
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

/* Blocks and include files are expanded before the parser sees the text
 * (scene_text.c): what is left of them here is out of place. */
static int cmd_refuse_python(parser *p, const command_call *c) {
  if (!strcmp(c->name, "end_python")) return gs_perr(p, "#end_python: no #python: block is open");
  return gs_perr(p, "#python: a block's output is not run as a block (blocks run from the input file only)");
}

static int cmd_refuse_include(parser *p, const command_call *c) {
  return gs_perr(p, "#%s: an include file is read where the command stands, not here", c->name);
}

/* gprMax's PML formulations: HORIPML (its default) is the one here. */
static int cmd_pml_formulation(parser *p, const command_call *c) {
  if (strcmp(c->arg[0], "HORIPML"))
    return gs_perr(p, "#pml_formulation: '%s': only HORIPML (gprMax's default) is implemented", c->arg[0]);
  return 0;
}

/* gprMax's OpenMP thread count: ours comes from the rank's cores (no effect). */
static int cmd_num_threads(parser *p, const command_call *c) {
  int64_t n;
  return parse_count(p, c->arg[0], 1, 1 << 20, &n, c->name);
}

/* gprMax's output folder, relative to the input file's; -o overrides it. */
static int cmd_output_dir(parser *p, const command_call *c) {
  char dir[2200];
  if (c->arg[0][0] == '/')
    snprintf(dir, sizeof dir, "%s", c->arg[0]);
  else
    snprintf(dir, sizeof dir, "%s%s", p->base_dir, c->arg[0]);
  if (strlen(dir) >= sizeof p->s->output_dir) return gs_perr(p, "#output_dir: '%.40s...' is too long", c->arg[0]);
  snprintf(p->s->output_dir, sizeof p->s->output_dir, "%s", dir);
  return 0;
}

/* gpustencil addition: when the source current is evaluated. gprMax 4
 * evaluates it half a step after the E update's time ((n + 1/2) dt), gprMax
 * 3 at n dt; docs/fdtd.md says what the difference does. */
static int cmd_source_timing(parser *p, const command_call *c) {
  if (strcmp(c->arg[0], "gprmax3") && strcmp(c->arg[0], "gprmax4"))
    return gs_perr(p, "#source_timing: '%s' is not gprmax3 or gprmax4", c->arg[0]);
  p->s->gprmax3_timing = !strcmp(c->arg[0], "gprmax3");
  return 0;
}

/* The commands gpustencil understands (docs/fdtd.md, "Input commands"); any other is
 * refused as not supported. */
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
    {"rx", 3, MAX_ARGS, 0, "x y z [name output ...]", GRID_AS_SYNTAX, cmd_rx},
    {"rx_array", 9, 9, 0, "x1 y1 z1 x2 y2 z2 dx dy dz", GRID_BEFORE_COUNT, cmd_rx_array},
    {"box", 7, 10, 0, "x1 y1 z1 x2 y2 z2 material [y|n]", GRID_BEFORE_COUNT, gs_cmd_box},
    {"cylinder", 8, 11, 0, "x1 y1 z1 x2 y2 z2 r material [y|n]", GRID_BEFORE_COUNT, gs_cmd_cylinder},
    {"edge", 7, 7, 0, "x1 y1 z1 x2 y2 z2 material", GRID_BEFORE_COUNT, gs_cmd_edge},
    {"sphere", 5, 6, 0, "x y z r material [y|n]", GRID_BEFORE_COUNT, gs_cmd_sphere},
    {"cone", 9, 10, 0, "x1 y1 z1 x2 y2 z2 r1 r2 material [y|n]", GRID_BEFORE_COUNT, gs_cmd_cone},
    {"ellipsoid", 7, 8, 0, "x y z xr yr zr material [y|n]", GRID_BEFORE_COUNT, gs_cmd_ellipsoid},
    {"plate", 7, 8, 0, "x1 y1 z1 x2 y2 z2 material", GRID_BEFORE_COUNT, gs_cmd_plate},
    {"triangle", 11, 14, 0, "x1 y1 z1 x2 y2 z2 x3 y3 z3 thickness material [y|n]", GRID_BEFORE_COUNT, gs_cmd_triangle},
    {"cylindrical_sector", 9, 12, 0, "normal ctr1 ctr2 extent1 extent2 r start angle material [y|n]", GRID_BEFORE_COUNT,
     gs_cmd_cylindrical_sector},
    {"material_map", 5, MAX_ARGS, 2, "file.png x0 y0 grey material [grey material ...]", GRID_AS_SYNTAX,
     cmd_material_map},
    {"pml_cells", 1, 6, 5, "one count or six (x- y- z- x+ y+ z+)", GRID_NOT_NEEDED, cmd_pml_cells},
    {"pml_cfs", 12, 12, 0, "12 parameters (alpha, kappa, sigma: scaling direction min max)", GRID_NOT_NEEDED,
     cmd_pml_cfs},
    {"src_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, cmd_src_steps},
    {"rx_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, cmd_rx_steps},
    {"snapshot_png", 1, 1, 0, "every_n_steps", GRID_NOT_NEEDED, cmd_snapshot_png},
    {"python", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_refuse_python},
    {"end_python", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_refuse_python},
    {"include_file", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, cmd_refuse_include},
    {"source_timing", 1, 1, 0, "gprmax3 or gprmax4", GRID_NOT_NEEDED, cmd_source_timing},
    {"pml_formulation", 1, 1, 0, "HORIPML", GRID_NOT_NEEDED, cmd_pml_formulation},
    {"num_threads", 1, 1, 0, "a thread count", GRID_NOT_NEEDED, cmd_num_threads},
    {"omp_threads", 1, 1, 0, "a thread count", GRID_NOT_NEEDED, cmd_num_threads}, /* gprMax 4's name */
    {"output_dir", 1, 1, 0, "a folder", GRID_NOT_NEEDED, cmd_output_dir},
    {"snapshot", 11, 11, 0, "x1 y1 z1 x2 y2 z2 dx dy dz time file", GRID_BEFORE_COUNT, gs_cmd_snapshot},
    {"add_dispersion_debye", 4, MAX_ARGS, 0, "poles de1 tau1 [de2 tau2 ...] material [material ...]", GRID_NOT_NEEDED,
     gs_cmd_add_dispersion},
    {"add_dispersion_lorentz", 5, MAX_ARGS, 0, "poles de1 omega1 delta1 [...] material [material ...]", GRID_NOT_NEEDED,
     gs_cmd_add_dispersion},
    {"add_dispersion_drude", 4, MAX_ARGS, 0, "poles omega1 alpha1 [...] material [material ...]", GRID_NOT_NEEDED,
     gs_cmd_add_dispersion},
    {"soil_peplinski", 7, 7, 0, "sand clay bulk_density sand_density water_lo water_hi ID", GRID_NOT_NEEDED,
     gs_cmd_soil_peplinski},
    {"material_range", 9, 9, 0, "er_lo er_hi sigma_lo sigma_hi mr_lo mr_hi sm_lo sm_hi ID", GRID_NOT_NEEDED,
     gs_cmd_material_range},
    {"material_list", 2, MAX_ARGS, 0, "material [material ...] ID", GRID_NOT_NEEDED, gs_cmd_material_list},
    {"fractal_box", 13, 15, 0, "x1 y1 z1 x2 y2 z2 D wx wy wz n_materials mixing_model ID [seed [y|n]]",
     GRID_BEFORE_COUNT, gs_cmd_fractal_box},
    {"add_surface_roughness", 12, 13, 0, "x1 y1 z1 x2 y2 z2 D w1 w2 lower upper fractal_box_ID [seed]",
     GRID_BEFORE_COUNT, gs_cmd_add_surface_roughness},
    {"add_surface_water", 8, 8, 0, "x1 y1 z1 x2 y2 z2 depth fractal_box_ID", GRID_BEFORE_COUNT,
     gs_cmd_add_surface_water},
    {"add_grass", 11, 12, 0, "x1 y1 z1 x2 y2 z2 D lower upper n_blades fractal_box_ID [seed]", GRID_BEFORE_COUNT,
     gs_cmd_add_grass},
    {"geometry_view", 11, 11, 0, "x1 y1 z1 x2 y2 z2 dx dy dz file n|f", GRID_BEFORE_COUNT, gs_cmd_geometry_view},
    {"geometry_objects_write", 7, 7, 0, "x1 y1 z1 x2 y2 z2 basename", GRID_BEFORE_COUNT, gs_cmd_geometry_objects_write},
    {"geometry_objects_read", 5, 5, 0, "x y z geometry.h5 materials.txt", GRID_BEFORE_COUNT,
     gs_cmd_geometry_objects_read},
    {"magnetic_dipole", 5, 7, 0, "x|y|z x y z waveform [delay remove]", GRID_AFTER_COUNT, gs_cmd_magnetic_dipole},
    {"voltage_source", 6, 8, 2, "x|y|z x y z resistance waveform [delay remove]", GRID_AFTER_COUNT,
     gs_cmd_voltage_source},
    {"transmission_line", 6, 8, 2, "x|y|z x y z resistance waveform [delay remove]", GRID_AFTER_COUNT,
     gs_cmd_transmission_line},
    {"excitation_file", 1, 3, 2, "file [kind fill_value]", GRID_NOT_NEEDED, gs_cmd_excitation_file},
    {"plane_wave_angles", 10, 13, 0, "x1 y1 z1 x2 y2 z2 theta phi psi waveform [material [delay remove]]",
     GRID_AFTER_COUNT, gs_cmd_plane_wave_angles},
    /* The name gprMax's own test input (discrete_plane_wave_fs.in) still uses; gprMax 4 devel
     * calls it #plane_wave_angles now (docs/fdtd.md). */
    {"discrete_plane_wave", 10, 13, 0, "x1 y1 z1 x2 y2 z2 theta phi psi waveform [material [delay remove]]",
     GRID_AFTER_COUNT, gs_cmd_plane_wave_angles},
    {"plane_wave_vector", 11, 14, 0, "x1 y1 z1 x2 y2 z2 mx my mz psi waveform [material]", GRID_AFTER_COUNT,
     gs_cmd_plane_wave_vector},
    {"plane_wave_axial", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, gs_cmd_plane_wave_axial},
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
    return gs_perr(p, "#%s: expected %s", c->name, d->syntax);
  if (d->grid == GRID_AFTER_COUNT && need_geometry(p, c->name)) return -1;
  return 0;
}

/* The bit of a command a model may give once (gprMax's single-use
 * commands, which it refuses twice, and gpustencil's own #source_timing and
 * #snapshot_png), 0 for the others. A second #domain or #dx_dy_dz would also
 * resize the grid under the outputs sized from the first. */
static unsigned single_use(const char *name) {
  static const char *const once[] = {
      "domain",          "dx_dy_dz",  "time_window", "title",    "omp_threads", "time_step_stability_factor",
      "pml_formulation", "pml_cells", "src_steps",   "rx_steps", "output_dir",  "source_timing",
      "snapshot_png"};
  if (!strcmp(name, "num_threads")) name = "omp_threads"; /* one command, two names */
  for (unsigned k = 0; k < sizeof once / sizeof once[0]; ++k)
    if (!strcmp(name, once[k])) return 1u << k;
  return 0;
}

/* One line, trailing blanks removed: a command if it starts with '#' but not
 * '##' (anything else is a comment, as in gprMax). */
static int parse_line(parser *p, char *line) {
  if (line[0] != '#' || line[1] == '#') return 0;
  char *colon = strchr(line, ':');
  if (!colon) return gs_perr(p, "'%s': a command is '#name: parameters'", line);
  *colon = '\0';
  char *rest = colon + 1;
  /* gprMax keeps only the text up to a second colon (it splits the line at colons). */
  char *colon2 = strchr(rest, ':');
  if (colon2) *colon2 = '\0';
  while (isspace((unsigned char)*rest))
    ++rest;
  char text[4096];
  snprintf(text, sizeof text, "%s", rest);
  char *args[MAX_ARGS];
  int nargs = 0;
  for (char *tok = strtok(rest, " \t"); tok && nargs < MAX_ARGS; tok = strtok(NULL, " \t"))
    args[nargs++] = tok;
  command_call c = {.def = find_command(line + 1), .name = line + 1, .arg = args, .nargs = nargs, .text = text};
  if (!c.def) return gs_perr(p, "#%s: not supported (the gprMax commands gpustencil runs: docs/fdtd.md)", c.name);
  const unsigned once = single_use(c.name);
  if (p->once & once) return gs_perr(p, "#%s: given twice (a model takes one)", c.name);
  p->once |= once;
  if (check_call(p, &c)) return -1;
  return c.def->handle(p, &c);
}

/* When a command is parsed, as gprMax builds them: its single-use commands
 * before any other (#domain and #dx_dy_dz first), then the rest in file order,
 * so that a #python block may print #domain after the objects it computed. */
static int parse_group(const char *line, size_t len) {
  char name[64];
  size_t n = 0;
  while (n + 1 < len && n < sizeof name - 1 && line[n + 1] != ':') {
    name[n] = line[n + 1];
    ++n;
  }
  name[n] = '\0';
  if (!strcmp(name, "domain") || !strcmp(name, "dx_dy_dz")) return 0;
  return single_use(name) ? 1 : 2;
}

/* Whether the line is a command of gprMax 2 that gprMax 3 and 4 dropped (the
 * names gprMax 3's tools/inputfile_old2new.py converts; gprMax 3 and 4 refuse
 * them as invalid commands): its name in name, else 0. gprMax 2 reused some
 * names (#hertzian_dipole, #box, #snapshot) with other parameters, so a file
 * is recognised by these before any line is read. */
static int gprmax2_command(const char *line, size_t len, char name[64]) {
  static const char *const old[] = {"abc_mixing_parameters",
                                    "abc_order",
                                    "abc_stability_factors",
                                    "abc_type",
                                    "analysis",
                                    "bowtie",
                                    "cylinder_new",
                                    "cylindrical_segment",
                                    "dx_dy",
                                    "end_analysis",
                                    "geometry_file",
                                    "geometry_vtk",
                                    "huygens_surface",
                                    "line_source",
                                    "media_file",
                                    "medium",
                                    "nips_number",
                                    "num_of_procs",
                                    "number_of_media",
                                    "plane_wave",
                                    "pml_layers",
                                    "rx_box",
                                    "thin_wire",
                                    "tx",
                                    "tx_steps",
                                    "wedge",
                                    "x_segment",
                                    "y_segment"};
  if (len < 2 || line[0] != '#' || line[1] == '#') return 0;
  size_t n = 0;
  while (n + 1 < len && n < 63 && line[n + 1] != ':') {
    name[n] = line[n + 1];
    ++n;
  }
  name[n] = '\0';
  if (n + 1 >= len || line[n + 1] != ':') return 0;
  for (size_t k = 0; k < sizeof old / sizeof old[0]; ++k)
    if (!strcmp(name, old[k])) return 1;
  return 0;
}

/* The expanded input's commands in parse_group's order; each error names the
 * file and line the command came from (scene_text.c). */
static int parse_text(parser *p, const gs_scene_text *t) {
  char line[4096], name[64];
  for (size_t k = 0; k < t->n; ++k) /* the scene's hash: its commands in file order */
    p->s->hash = fnv1a(p->s->hash, t->text + t->lines[k].at, (size_t)t->lines[k].len + 1);
  for (size_t k = 0; k < t->n; ++k) /* a gprMax 2 file: refused by name at its first such line */
    if (gprmax2_command(t->text + t->lines[k].at, t->lines[k].len, name)) {
      p->file = t->files[t->lines[k].file].path;
      p->line = t->lines[k].line;
      p->out = t->lines[k].out;
      return gs_perr(p,
                     "#%s: gprMax 2's syntax, which gprMax 3 and 4 do not read either (gprMax 3's "
                     "tools/inputfile_old2new.py converts such a file)",
                     name);
    }
  for (int group = 0; group < 3; ++group)
    for (size_t k = 0; k < t->n; ++k) {
      const gs_text_line *l = &t->lines[k];
      size_t len = l->len;
      if (parse_group(t->text + l->at, len) != group) continue;
      p->file = t->files[l->file].path;
      p->line = l->line;
      p->out = l->out;
      if (len > sizeof line - 2) return gs_perr(p, "line longer than %zu characters", sizeof line - 2);
      if (memchr(t->text + l->at, 0, len)) return gs_perr(p, "a NUL byte: not a text line");
      memcpy(line, t->text + l->at, len);
      line[len] = '\0';
      while (len && isspace((unsigned char)line[len - 1]))
        line[--len] = '\0';
      if (parse_line(p, line)) return -1;
    }
  return 0;
}

static void set_defaults(gs_scene *s, const char *path) {
  memset(s, 0, sizeof *s);
  snprintf(s->path, sizeof s->path, "%.1023s", path); /* (an include file's path may be longer) */
  s->stability = 1.0;
  s->messages = 1;
  s->pml[0] = s->pml[1] = s->pml[2] = s->pml[3] = 10;
  s->cfs_alpha = (gs_cfs_param){0, 0, 0, 0};
  s->cfs_kappa = (gs_cfs_param){0, 0, 1, 1};
  s->cfs_sigma = (gs_cfs_param){4, 0, 0, -1};
  s->hash = 0xCBF29CE484222325ull;
  s->materials = gs_xcalloc(2, sizeof *s->materials);
  s->materials[0] = (gs_material){.name = "free_space", .er = 1, .mr = 1};
  s->materials[1] = (gs_material){.name = "pec", .er = 1, .mr = 1, .pec = 1};
  s->nmaterials = 2;
}

/* gprMax's time step: the 2D Courant limit, its exact binary value cut
 * (not rounded) to 27 decimals and read back (Decimal.quantize with
 * ROUND_FLOOR), then the stability factor. */
static double courant_dt(const gs_scene *s) {
  double dt = s->mode == GS_MODE_3D
                  ? 1 / (GS_C0 * sqrt(1 / (s->dx * s->dx) + 1 / (s->dy * s->dy) + 1 / (s->dz * s->dz)))
                  : 1 / (GS_C0 * sqrt(1 / (s->dx * s->dx) + 1 / (s->dy * s->dy)));
  char digits[128];
  snprintf(digits, sizeof digits, "%.40f", dt); /* glibc prints the exact value */
  char *point = strchr(digits, '.');
  if (point && strlen(point) > 28) point[28] = '\0';
  return strtod(digits, NULL) * s->stability;
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
  s->dt = courant_dt(s);
  for (int k = 0; k < s->nwaveforms; ++k)
    s->waveforms[k].dt = s->dt;
  /* #pml_cells counts in the file's axes (x- y- z- x+ y+ z+), kept in the frame's. */
  const int *ax = s->axis;
  int frame[4] = {p->pml6[ax[0]], p->pml6[ax[1]], p->pml6[ax[0] + 3], p->pml6[ax[1] + 3]};
  memcpy(s->pml, frame, sizeof frame);
  memcpy(s->pml6, p->pml6, sizeof s->pml6);
  if (s->mode == GS_MODE_3D)
    for (int k = 0; k < 6; ++k)
      if (2 * (int64_t)s->pml6[k] >= p->n[k % 3]) {
        snprintf(err, errlen, "%s: #pml_cells: %d cells leave no interior along %c", path, s->pml6[k], "xyz"[k % 3]);
        return GS_ERR_FORMAT;
      }
  double steps = p->tw_is_iterations ? p->tw : ceil(p->tw / s->dt) + 1;
  if (!(steps <= GS_SCENE_MAX_ITERATIONS)) {
    snprintf(err, errlen, "%s: #time_window: %.3g iterations of %g s is more than 2^40", path, steps, s->dt);
    return GS_ERR_FORMAT;
  }
  s->iterations = (int64_t)steps;
  s->timewindow = p->tw_is_iterations ? (double)(s->iterations - 1) * s->dt : p->tw;
  if (gs_scene_sources3_finish(s, err, errlen)) return GS_ERR_FORMAT;
  if (s->iterations < 1) {
    snprintf(err, errlen, "%s: #time_window gives no iterations", path);
    return GS_ERR_FORMAT;
  }
  /* gprMax's order of materials: #material (with #add_dispersion_*), then the fractal boxes' (first geometry
   * pass), then those of #geometry_objects_read (second pass) */
  if (gs_scene_resolve_snapshots(s, err, errlen) || gs_scene_resolve_dispersion(s, err, errlen) ||
      gs_scene_resolve_fractals(s, p->host_bytes, err, errlen) ||
      gs_scene_resolve_geometry_reads(s, p->host_bytes, err, errlen))
    return GS_ERR_FORMAT;
  for (int k = 0; k < 4; ++k)
    if (2 * (int64_t)s->pml[k] >= (k % 2 ? s->ny : s->nx)) {
      snprintf(err, errlen, "%s: #pml_cells: %d cells leave no interior in a %lld x %lld domain", path, s->pml[k],
               (long long)s->nx, (long long)s->ny);
      return GS_ERR_FORMAT;
    }
  return GS_OK;
}

gs_status gs_scene_load(const char *path, gs_scene *s, char *err, size_t errlen) {
  return gs_scene_load_within(path, 0, s, err, errlen);
}

gs_status gs_scene_load_within(const char *path, double host_bytes, gs_scene *s, char *err, size_t errlen) {
  gs_scene_text *t = NULL;
  gs_status st = gs_scene_text_expand(path, NULL, &t, err, errlen);
  if (st == GS_OK)
    st = gs_scene_load_text(t, host_bytes, s, err, errlen);
  else
    memset(s, 0, sizeof *s); /* nothing parsed outlives a refusal */
  gs_scene_text_free(t);
  return st;
}

gs_status gs_scene_load_text(const gs_scene_text *t, double host_bytes, gs_scene *s, char *err, size_t errlen) {
  const char *path = t->files[0].path;
  set_defaults(s, path);
  parser p = {.file = path, .err = err, .errlen = errlen, .s = s, .pml6 = {10, 10, 10, 10, 10, 10}};
  p.host_bytes = host_bytes > 0 ? host_bytes : (double)gs_host_mem_available();
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(p.base_dir, sizeof p.base_dir, "%.*s", (int)(slash - path + 1), path);
  for (int k = 0; k < t->nfiles; ++k) /* the input and its include files */
    gs_scene_add_input(s, t->files[k].path, t->files[k].line, t->files[k].what);
  gs_status st = parse_text(&p, t) ? GS_ERR_FORMAT : finish_scene(&p, path, err, errlen);
  if (st != GS_OK) gs_scene_free(s); /* nothing parsed outlives a refusal */
  return st;
}

void gs_scene_free(gs_scene *s) {
  gs_scene_sources3_free(s);
  for (int k = 0; k < s->nobjects; ++k)
    free(s->objects[k].grey);
  free(s->materials);
  free(s->disps);
  free(s->waveforms);
  free(s->sources);
  free(s->rxs);
  free(s->objects);
  free(s->snaps);
  free(s->views);
  gs_scene_free_geometry_reads(s);
  gs_scene_free_fractals(s);
  free(s->objs3);
  free(s->geo_writes);
  free(s->geo_reads);
  free(s->inputs);
  memset(s, 0, sizeof *s);
}

void gs_scene_components(const gs_scene *s, int out[3]) {
  /* Ez, Hx, Hy of the frame are the file's E along the thin axis and H along
   * the frame's a and b axes. */
  out[0] = GS_OUT_EX + s->axis[2];
  out[1] = GS_OUT_HX + s->axis[0];
  out[2] = GS_OUT_HX + s->axis[1];
}

double gs_waveform_value(const gs_waveform *w, double t) {
  const double pi = 3.14159265358979323846;
  double f = w->freq, v = 0;
  switch (w->type) {
  case GS_WAVE_GAUSSIAN:
  case GS_WAVE_GAUSSIANDOT:
  case GS_WAVE_GAUSSIANPRIME:
  case GS_WAVE_GAUSSIANDOTNORM: {
    double chi = 1 / f, zeta = 2 * pi * pi * f * f, d = t - chi;
    if (w->type == GS_WAVE_GAUSSIAN)
      v = exp(-zeta * d * d);
    else
      v = -2 * zeta * d * exp(-zeta * d * d) * (w->type == GS_WAVE_GAUSSIANDOTNORM ? sqrt(exp(1) / (2 * zeta)) : 1);
    break;
  }
  case GS_WAVE_GAUSSIANDOUBLEPRIME: {
    double chi = 1 / f, zeta = 2 * pi * pi * f * f, d = t - chi;
    v = 2 * zeta * (2 * zeta * d * d - 1) * exp(-zeta * d * d);
    break;
  }
  case GS_WAVE_IMPULSE:
    v = t == 0 || t < w->dt ? 1 : 0;
    break;
  case GS_WAVE_USER:
    v = gs_user_wave_value(w->user, t);
    break;
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

void gs_scene_synthetic3(gs_scene *s, int64_t nx, int64_t ny, int64_t nz, int64_t iterations) {
  gs_scene_synthetic(s, nx, ny, iterations);
  snprintf(s->title, sizeof s->title, "synthetic %lldx%lldx%lld", (long long)nx, (long long)ny, (long long)nz);
  s->mode = GS_MODE_3D;
  s->nz = nz;
  for (int k = 0; k < 6; ++k)
    s->pml6[k] = 10;
  s->dt = courant_dt(s);
  s->waveforms[0].dt = s->dt;
  /* The soil box as a 3D object (gprMax's numbering: soil is material 2). */
  s->objs3 = gs_xcalloc(1, sizeof *s->objs3);
  s->objs3[0] = (gs_obj3){.type = GS_O3_BOX,
                          .material = 2,
                          .averaging = 1,
                          .nv = 6,
                          .v = {0, 0, 0, (double)nx * s->dx, (double)ny * s->dy, 0.5 * (double)nz * s->dz}};
  s->nobjs3 = 1;
  /* Source and receiver 5 cells above the soil, within the grid for any nz >= 3. */
  const int64_t above = nz / 2 + 5 < nz - 1 ? nz / 2 + 5 : nz - 2;
  s->sources[0] = (gs_source){.i = nx / 2, .j = ny / 2, .k = above, .pol = 2, .stop = INFINITY};
  s->rxs[0].k = above;
}

void gs_scene_synthetic(gs_scene *s, int64_t nx, int64_t ny, int64_t iterations) {
  memset(s, 0, sizeof *s);
  snprintf(s->title, sizeof s->title, "synthetic %lldx%lld", (long long)nx, (long long)ny);
  s->dx = s->dy = s->dz = 0.001;
  s->stability = 1.0;
  s->nz = 1;
  s->nx = nx;
  s->ny = ny;
  s->axis[0] = 0;
  s->axis[1] = 1;
  s->axis[2] = 2;
  s->dt = courant_dt(s);
  s->iterations = iterations;
  s->pml[0] = s->pml[1] = s->pml[2] = s->pml[3] = 10;
  s->cfs_alpha = (gs_cfs_param){0, 0, 0, 0};
  s->cfs_kappa = (gs_cfs_param){0, 0, 1, 1};
  s->cfs_sigma = (gs_cfs_param){4, 0, 0, -1};
  s->materials = gs_xcalloc(3, sizeof *s->materials);
  s->materials[0] = (gs_material){.name = "free_space", .er = 1, .mr = 1};
  s->materials[1] = (gs_material){.name = "pec", .er = 1, .mr = 1, .pec = 1};
  s->materials[2] = (gs_material){.name = "soil", .er = 6, .sigma = 0.005, .mr = 1};
  s->nmaterials = 3;
  s->objects = gs_xcalloc(1, sizeof *s->objects);
  s->objects[0] =
      (gs_object){.type = GS_OBJ_BOX, .material = 2, .averaging = 1, .ci0 = 0, .ci1 = nx, .cj0 = 0, .cj1 = ny / 2};
  s->nobjects = 1;
  s->waveforms = gs_xcalloc(1, sizeof *s->waveforms);
  s->waveforms[0] = (gs_waveform){.name = "pulse", .type = GS_WAVE_RICKER, .amp = 1.0, .freq = 10e9, .dt = s->dt};
  s->nwaveforms = 1;
  s->sources = gs_xcalloc(1, sizeof *s->sources);
  s->sources[0] = (gs_source){.i = nx / 2, .j = ny / 2 + 5, .waveform = 0, .start = 0, .stop = INFINITY};
  s->nsources = 1;
  s->rxs = gs_xcalloc(1, sizeof *s->rxs);
  s->rxs[0] =
      (gs_rx){.i = nx / 2 + 10, .j = ny / 2 + 5, .name = "rx1", .outputs = GS_OUT_DEFAULT, .below = -1, .left = -1};
  s->nrx = 1;
  s->hash = 1;
}

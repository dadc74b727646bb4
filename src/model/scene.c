/* The parser of gprMax input files, 2D (TMz, TMx, TMy) and 3D models: the
 * checks and conversions every command's handler uses, the command table,
 * each line parsed in gprMax's order, the finished scene (time step, PML,
 * what needs the whole file), and the scene's waveforms' values.
 *
 * Every command is one entry of commands[]: its name, the argument counts it
 * takes, whether the grid must be known first, and a handler that sees only
 * well-shaped arguments (scene_general.c and the other scene_*.c files).
 * Supporting another gprMax command is one handler and one entry. */
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

void gs_scene_hash_add(gs_scene *s, const void *data, size_t n) {
  s->hash = gs_fnv1a(s->hash, data, n);
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
int64_t gs_metres_to_cells(double metres, double d) {
  return gs_round_cells(metres / d);
}

/* Positions and lengths further than this many cells from the origin are
 * refused before they are converted to integers (no model has 2^40 cells on
 * a side; the conversion of larger values would overflow). */
int gs_check_cells_in_range(parser *p, double metres, double d, const char *what) {
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

int gs_have_geometry(const parser *p) {
  return p->have_domain && p->have_dxdydz;
}

static int need_geometry(parser *p, const char *cmd) {
  if (!gs_have_geometry(p))
    return gs_perr(p, "#%s: #domain and #dx_dy_dz must come before objects, sources and receivers", cmd);
  return 0;
}

int gs_point_cells(parser *p, const double xyz[3], int64_t cell[3], int inside, const char *what) {
  static const char axes[] = "xyz";
  for (int k = 0; k < 3; ++k) {
    if (gs_check_cells_in_range(p, xyz[k], p->d[k], what)) return -1;
    cell[k] = gs_metres_to_cells(xyz[k], p->d[k]);
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

void gs_scene_add_object(gs_scene *s, const gs_object *o) {
  GS_SCENE_GROW(s->objects, s->nobjects);
  s->objects[s->nobjects++] = *o;
}

/* The commands gpustencil understands (docs/fdtd.md, "Input commands"); any other is
 * refused as not supported. */
static const scene_command commands[] = {
    {"title", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, gs_cmd_title},
    {"messages", 1, 1, 0, "y or n", GRID_NOT_NEEDED, gs_cmd_messages},
    {"domain", 3, 3, 0, "three lengths in metres", GRID_NOT_NEEDED, gs_cmd_domain},
    {"dx_dy_dz", 3, 3, 0, "three lengths in metres", GRID_NOT_NEEDED, gs_cmd_dx_dy_dz},
    {"time_window", 1, 1, 0, "seconds (f) or iterations (i)", GRID_NOT_NEEDED, gs_cmd_time_window},
    {"time_step_stability_factor", 1, 1, 0, "a factor in (0, 1]", GRID_NOT_NEEDED, gs_cmd_time_step_stability_factor},
    {"material", 5, 5, 0, "er sigma mu_r sigma_m name", GRID_NOT_NEEDED, gs_cmd_material},
    {"waveform", 4, 4, 0, "type amplitude frequency name", GRID_NOT_NEEDED, gs_cmd_waveform},
    {"hertzian_dipole", 5, 7, 0, "z x y z waveform [delay remove]", GRID_AFTER_COUNT, gs_cmd_hertzian_dipole},
    {"rx", 3, MAX_ARGS, 0, "x y z [name output ...]", GRID_AS_SYNTAX, gs_cmd_rx},
    {"rx_array", 9, 9, 0, "x1 y1 z1 x2 y2 z2 dx dy dz", GRID_BEFORE_COUNT, gs_cmd_rx_array},
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
     gs_cmd_material_map},
    {"pml_cells", 1, 6, 5, "one count or six (x- y- z- x+ y+ z+)", GRID_NOT_NEEDED, gs_cmd_pml_cells},
    {"pml_cfs", 12, 12, 0, "12 parameters (alpha, kappa, sigma: scaling direction min max)", GRID_NOT_NEEDED,
     gs_cmd_pml_cfs},
    {"src_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, gs_cmd_src_steps},
    {"rx_steps", 3, 3, 0, "dx dy dz in metres", GRID_AFTER_COUNT, gs_cmd_rx_steps},
    {"snapshot_png", 1, 1, 0, "every_n_steps", GRID_NOT_NEEDED, gs_cmd_snapshot_png},
    {"python", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, gs_cmd_refuse_python},
    {"end_python", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, gs_cmd_refuse_python},
    {"include_file", 0, MAX_ARGS, 0, NULL, GRID_NOT_NEEDED, gs_cmd_refuse_include},
    {"source_timing", 1, 1, 0, "gprmax3 or gprmax4", GRID_NOT_NEEDED, gs_cmd_source_timing},
    {"pml_formulation", 1, 1, 0, "HORIPML or MRIPML", GRID_NOT_NEEDED, gs_cmd_pml_formulation},
    {"num_threads", 1, 1, 0, "a thread count", GRID_NOT_NEEDED, gs_cmd_num_threads},
    {"omp_threads", 1, 1, 0, "a thread count", GRID_NOT_NEEDED, gs_cmd_num_threads}, /* gprMax 4's name */
    {"output_dir", 1, 1, 0, "a folder", GRID_NOT_NEEDED, gs_cmd_output_dir},
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
  if (!args_fit(d, c->nargs) || (d->grid == GRID_AS_SYNTAX && !gs_have_geometry(p)))
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

/* The length of the character at s if it is one that Python's str.split() (gprMax's, on the
 * UTF-8 text of the file) splits at besides space and tab, else 0: \v \f \r, \x1c-\x1f and
 * Unicode's other spaces (NEL, no-break space, the U+2000 block's, line and paragraph
 * separators, U+1680, U+205F, U+3000). */
static int python_blank(const unsigned char *s) {
  if (*s == '\v' || *s == '\f' || *s == '\r' || (*s >= 0x1c && *s <= 0x1f)) return 1;
  if (s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0)) return 2;
  if (s[0] == 0xE1 && s[1] == 0x9A && s[2] == 0x80) return 3;
  if (s[0] == 0xE2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF))
    return 3;
  if ((s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F) || (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)) return 3;
  return 0;
}

/* Every such character in s made spaces, so that parameters split where gprMax's do. */
static void python_blanks_to_spaces(char *s) {
  for (unsigned char *c = (unsigned char *)s; *c;) {
    const int n = python_blank(c);
    for (int k = 0; k < n; ++k)
      *c++ = ' ';
    c += !n;
  }
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
  /* gprMax refuses parameters that do not start with a space (a tab, or none, is a SyntaxError) */
  if (rest[0] != ' ' && rest[0] != '\0')
    return gs_perr(p, "#%s: a space must follow the colon (gprMax refuses '#%s:%.20s')", line + 1, line + 1, rest);
  python_blanks_to_spaces(rest);
  while (isspace((unsigned char)*rest))
    ++rest;
  char text[4096];
  snprintf(text, sizeof text, "%s", rest);
  char *args[MAX_ARGS];
  int nargs = 0, ntok = 0;
  for (char *tok = strtok(rest, " \t"); tok; tok = strtok(NULL, " \t"), ++ntok)
    if (nargs < MAX_ARGS) args[nargs++] = tok;
  command_call c = {.def = find_command(line + 1), .name = line + 1, .arg = args, .nargs = nargs, .text = text};
  if (!c.def) return gs_perr(p, "#%s: not supported (the gprMax commands gpustencil runs: docs/fdtd.md)", c.name);
  const unsigned once = single_use(c.name);
  if (p->once & once) return gs_perr(p, "#%s: given twice (a model takes one)", c.name);
  p->once |= once;
  /* Parameters past MAX_ARGS are refused, not dropped; the entries without a
   * syntax (#title's text, and the commands refused whatever they hold) take any. */
  if (ntok > MAX_ARGS && c.def->syntax)
    return gs_perr(p, "#%s: %d parameters: a command takes at most %d", c.name, ntok, MAX_ARGS);
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
    p->s->hash = gs_fnv1a(p->s->hash, t->text + t->lines[k].at, (size_t)t->lines[k].len + 1);
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

void gs_scene_default_cfs(gs_scene *s) {
  /* gprMax's CFS: alpha constant 0, kappa constant 1, sigma quartic from 0 to a computed maximum; HORIPML */
  s->cfs[0] = (gs_cfs){{0, 0, 0, 0}, {0, 0, 1, 1}, {4, 0, 0, -1}};
  s->ncfs = 1;
  s->pml_formulation = GS_PML_HORIPML;
}

static void set_defaults(gs_scene *s, const char *path) {
  memset(s, 0, sizeof *s);
  snprintf(s->path, sizeof s->path, "%.1023s", path); /* (an include file's path may be longer) */
  s->stability = 1.0;
  s->messages = 1;
  s->pml[0] = s->pml[1] = s->pml[2] = s->pml[3] = 10;
  gs_scene_default_cfs(s);
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

/* gprMax's test when it builds a PML slab: the kappa minimums of the CFS
 * terms must add up to at least 1 (one term: its own at least 1). */
static gs_status check_kappa(const parser *p, char *err, size_t errlen) {
  const gs_scene *s = p->s;
  int slabs = 0;
  for (int k = 0; k < 6; ++k)
    slabs |= p->pml6[k] > 0;
  double sum = 0;
  for (int k = 0; k < s->ncfs; ++k)
    sum += s->cfs[k].kappa.min;
  if (!slabs || !p->npml_cfs || sum >= 1) return GS_OK;
  snprintf(err, errlen, "%s:%d: #pml_cfs: the kappa minimum%s %g; it must be at least 1", p->cfs_file, p->cfs_line,
           s->ncfs > 1 ? "s (the #pml_cfs terms') add up to" : " is", sum);
  return GS_ERR_FORMAT;
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
        snprintf(
            err, errlen,
            "%s: #pml_cells: %d cells on a face normal to %c: twice that must be less than the %lld cells along %c",
            path, s->pml6[k], "xyz"[k % 3], (long long)p -> n[k % 3], "xyz"[k % 3]);
        return GS_ERR_FORMAT;
      }
  if (check_kappa(p, err, errlen) != GS_OK) return GS_ERR_FORMAT;
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
      snprintf(err, errlen,
               "%s: #pml_cells: %d cells on a face: twice that must be less than the %lld cells across it (a %lld x "
               "%lld domain)",
               path, s->pml[k], (long long)(k % 2 ? s->ny : s->nx), (long long)s->nx, (long long)s->ny);
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
  gs_scene_default_cfs(s);
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

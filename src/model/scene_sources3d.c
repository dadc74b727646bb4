/* gprMax's 3D sources other than Hertzian dipoles (#magnetic_dipole,
 * #voltage_source, #transmission_line) and #excitation_file's waveforms
 * (docs/fdtd.md, "3D models"; docs/gprmax-rules.md, "3D sources"). */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#ifndef M_PI /* C11 leaves it out */
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fsutil.h"
#include "scene_internal.h"

/* Impedance of free space (gprMax's z0 = sqrt(mu0 / eps0)). */
#define GS_Z0 376.730313412

/* An excitation file holds at most this many values (all columns). */
#define GS_USER_MAX_VALUES (1 << 24)

struct gs_user_wave {
  int64_t n;
  double *t; /* sample times (float64 simulation times, or the file's float32 times) */
  float *v;  /* float32 values, as gprMax reads them */
  int extrapolate;
  int f32_times; /* the file's time column: float32, so is the slope */
  int line;      /* the #excitation_file command's line, for messages */
};

int gs_user_wave_line(const gs_user_wave *u) {
  return u ? u->line : 0;
}

/* scipy's interp1d, linear (its _call_linear: the segment whose right end
 * is the first time >= t, clipped to [1, n - 1]; float32 values, the slope
 * and the result in float64). */
double gs_user_wave_value(const gs_user_wave *u, double t) {
  if (!u || u->n < 2) return NAN;
  if (!u->extrapolate && (t < u->t[0] || t > u->t[u->n - 1])) return NAN;
  int64_t lo = 0, hi = u->n; /* first index with time >= t */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (u->t[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t r = lo < 1 ? 1 : lo > u->n - 1 ? u->n - 1 : lo;
  const float dv = u->v[r] - u->v[r - 1];
  const double slope =
      u->f32_times ? (double)(dv / (float)(u->t[r] - u->t[r - 1])) : (double)dv / (u->t[r] - u->t[r - 1]);
  return slope * (t - u->t[r - 1]) + (double)u->v[r - 1];
}

void gs_scene_sources3_free(gs_scene *s) {
  for (int k = 0; k < s->nwaveforms; ++k)
    if (s->waveforms[k].user) {
      free(s->waveforms[k].user->t);
      free(s->waveforms[k].user->v);
      free(s->waveforms[k].user);
      s->waveforms[k].user = NULL;
    }
  free(s->src3);
  s->src3 = NULL;
  s->nsrc3 = 0;
  free(s->pws);
  s->pws = NULL;
  s->npws = 0;
}

/* The polarisation, node, waveform and optional delay/removal time shared by
 * the three commands; first: the index of the waveform argument. Checks
 * gprMax's: delay >= 0, removal >= 0, removal > delay. */
static int parse_source(gs_parser *p, const gs_command_call *c, int first, int on_boundary, gs_source *src) {
  gs_scene *s = p->s;
  if (s->mode != GS_MODE_3D) return gs_perr(p, "#%s: not supported in 2D models yet (3D only)", c->name);
  int axis = tolower((unsigned char)c->arg[0][0]) - 'x';
  if (axis < 0 || axis > 2 || c->arg[0][1])
    return gs_perr(p, "#%s: polarisation '%s' is not x, y or z", c->name, c->arg[0]);
  double xyz[3];
  int64_t cell[3];
  if (gs_parse_args(p, c, 1, 3, xyz) || gs_point_cells(p, xyz, cell, 1, c->name)) return -1;
  for (int a = 0; a < 3 && !on_boundary; ++a)
    if (cell[a] < (a == axis ? 0 : 1) || cell[a] >= p->n[a])
      return gs_perr(p, "#%s: (%g, %g, %g) m is on the domain's outer boundary, where the field is held at 0", c->name,
                     xyz[0], xyz[1], xyz[2]);
  *src = (gs_source){.i = cell[0], .j = cell[1], .k = cell[2], .pol = axis, .start = 0, .stop = INFINITY};
  src->waveform = gs_find_waveform(s, c->arg[first]);
  if (src->waveform < 0) return gs_perr(p, "#%s: waveform '%s' is not defined (yet)", c->name, c->arg[first]);
  if (c->nargs == first + 3) {
    if (gs_parse_double(p, c->arg[first + 1], &src->start, c->name) ||
        gs_parse_double(p, c->arg[first + 2], &src->stop, c->name))
      return -1;
    if (gs_check_source_times(p, c->name, src->start, src->stop)) return -1;
  } else if (c->nargs != first + 1) {
    return gs_perr(p, "#%s: give both the delay and the removal time, or neither", c->name);
  }
  return 0;
}

static int add_source3(gs_parser *p, const gs_source3 *x) {
  gs_scene *s = p->s;
  if (s->nsrc3 >= 10000) return gs_perr(p, "more than 10000 magnetic dipoles, voltage sources and lines");
  s->src3 = gs_xrealloc(s->src3, sizeof *s->src3 * (size_t)(s->nsrc3 + 1));
  s->src3[s->nsrc3++] = *x;
  return 0;
}

/* #magnetic_dipole: pol x y z waveform [delay remove]: anywhere in the domain,
 * as in gprMax (an H node it never updates still takes the current). */
int gs_cmd_magnetic_dipole(gs_parser *p, const gs_command_call *c) {
  gs_source3 x = {.kind = GS_SRC3_MAGNETIC};
  if (parse_source(p, c, 4, 1, &x.at)) return -1;
  return add_source3(p, &x);
}

/* A resistance too small for float32, the fields' type (gprMax's): a
 * source's node takes the conductance d_pol / (R d_a d_b), and past FLT_MAX
 * its share of the source, 1 / (e0 er / dt + se / 2), vanishes (1e-44 Ohms
 * at 1 mm gave all-zero fields); a line's current factor 1 / (sqrt(3) R)
 * overflows (1e-40 Ohms gave NaN fields). Refused where they are read. */
static int check_resistance(gs_parser *p, const char *cmd, const gs_source3 *x) {
  const gs_scene *s = p->s;
  const double d[3] = {s->dx, s->dy, s->dz};
  const int c = x->at.pol, a = c == 0 ? 1 : 0, b = c == 2 ? 1 : 2;
  const int line = x->kind == GS_SRC3_TLINE;
  const double per_ohm = line ? 1 / sqrt(3.0) : d[c] / (d[a] * d[b]);
  if (x->resistance > 0 && !(per_ohm / x->resistance <= FLT_MAX))
    return gs_perr(p, "#%s: resistance %g Ohms is too small: %s %g is beyond float32's range", cmd, x->resistance,
                   line ? "its current factor 1 / (sqrt(3) R)" : "the conductance it adds, d / (R d d),",
                   per_ohm / x->resistance);
  return 0;
}

/* #voltage_source: pol x y z resistance waveform [delay remove]. */
int gs_cmd_voltage_source(gs_parser *p, const gs_command_call *c) {
  gs_source3 x = {.kind = GS_SRC3_VOLTAGE};
  if (parse_source(p, c, 5, 0, &x.at) || gs_parse_double(p, c->arg[4], &x.resistance, c->name)) return -1;
  if (x.resistance < 0) return gs_perr(p, "#voltage_source: resistance %g is below 0", x.resistance);
  if (check_resistance(p, c->name, &x)) return -1;
  for (int k = 0; k < p->s->nsrc3; ++k) {
    const gs_source3 *o = &p->s->src3[k];
    if (o->kind == GS_SRC3_VOLTAGE && o->at.i == x.at.i && o->at.j == x.at.j && o->at.k == x.at.k &&
        o->at.pol == x.at.pol)
      return gs_perr(p, "#voltage_source: two voltage sources on the same node");
  }
  return add_source3(p, &x);
}

/* #transmission_line: pol x y z resistance waveform (gprMax 4 fails on the
 * delay and removal time of this command: it keeps them as text). */
int gs_cmd_transmission_line(gs_parser *p, const gs_command_call *c) {
  gs_source3 x = {.kind = GS_SRC3_TLINE};
  if (c->nargs == 8)
    return gs_perr(p, "#transmission_line: a delay and removal time are not taken (gprMax 4 fails on them)");
  if (parse_source(p, c, 5, 0, &x.at) || gs_parse_double(p, c->arg[4], &x.resistance, c->name)) return -1;
  if (!(x.resistance > 0) || x.resistance >= GS_Z0)
    return gs_perr(p, "#transmission_line: resistance %g is not in (0, 376.73) Ohms", x.resistance);
  if (check_resistance(p, c->name, &x)) return -1;
  return add_source3(p, &x);
}

/* The plane wave's box (both corners inside the domain, as gprMax checks;
 * here also at least one cell from the outer faces, where gprMax's
 * scattered-field nodes would fall outside its arrays, and not flat). */
static int parse_pw_box(gs_parser *p, const gs_command_call *c, gs_plane_wave *w) {
  double xyz[6];
  if (gs_parse_args(p, c, 0, 6, xyz) || gs_point_cells(p, xyz, w->lo, 1, c->name) ||
      gs_point_cells(p, xyz + 3, w->hi, 1, c->name))
    return -1;
  for (int a = 0; a < 3; ++a) {
    if (!(w->hi[a] > w->lo[a]))
      return gs_perr(p, "#%s: the box's upper corner must lie above its lower corner along %c", c->name, "xyz"[a]);
    if (w->lo[a] < 1 || w->hi[a] > p->n[a] - 1)
      return gs_perr(p, "#%s: the box must keep at least one cell from the domain's outer faces", c->name);
  }
  return 0;
}

/* The waveform (one of the shapes gprMax's plane wave evaluates), the
 * background material (default free_space; not PEC; a dispersive one is
 * refused once the file is read: fdtd3d_planewave.c) and
 * the optional delay and removal time (args from `first`). */
static int parse_pw_rest(gs_parser *p, const gs_command_call *c, int first, gs_plane_wave *w) {
  gs_scene *s = p->s;
  w->waveform = gs_find_waveform(s, c->arg[first]);
  if (w->waveform < 0) return gs_perr(p, "#%s: waveform '%s' is not defined (yet)", c->name, c->arg[first]);
  if (s->waveforms[w->waveform].type == GS_WAVE_USER)
    return gs_perr(p,
                   "#%s: waveform '%s' comes from an excitation file (gprMax's plane wave takes only built-in shapes)",
                   c->name, c->arg[first]);
  const char *mat = c->nargs > first + 1 ? c->arg[first + 1] : "free_space";
  w->material = gs_find_material(s, mat);
  if (w->material < 0) return gs_perr(p, "#%s: material '%s' is not defined (yet)", c->name, mat);
  if (s->materials[w->material].pec) return gs_perr(p, "#%s: the background material cannot be pec", c->name);
  w->start = 0;
  w->stop = INFINITY;
  if (c->nargs == first + 4) {
    if (gs_parse_double(p, c->arg[first + 2], &w->start, c->name) ||
        gs_parse_double(p, c->arg[first + 3], &w->stop, c->name))
      return -1;
    if (w->start < 0 || w->stop < 0 || !(w->stop - w->start > 0))
      return gs_perr(p, "#%s: the delay and removal time must be >= 0, the removal after the delay", c->name);
  }
  w->line = p->line;
  return 0;
}

static int add_plane_wave(gs_parser *p, const gs_plane_wave *w) {
  gs_scene *s = p->s;
  if (s->npws >= 64) return gs_perr(p, "more than 64 plane waves");
  s->pws = gs_xrealloc(s->pws, sizeof *s->pws * (size_t)(s->npws + 1));
  s->pws[s->npws++] = *w;
  return 0;
}

/* #plane_wave_angles: x1 y1 z1 x2 y2 z2 theta phi psi waveform [material [delay remove]]. */
int gs_cmd_plane_wave_angles(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#%s: not supported in 2D models (3D only)", c->name);
  if (c->nargs == 12) return gs_perr(p, "#%s: give both the delay and the removal time, or neither", c->name);
  gs_plane_wave w = {.max_angle_diff = 0.017}; /* gprMax's default: about one minute of arc */
  double ang[3];
  if (parse_pw_box(p, c, &w) || gs_parse_args(p, c, 6, 3, ang)) return -1;
  w.theta = ang[0], w.phi = ang[1], w.psi = ang[2];
  if (!(w.theta >= 0 && w.theta <= 180))
    return gs_perr(p, "#%s: theta %g is not in [0, 180] degrees", c->name, w.theta);
  if (!(w.phi >= 0 && w.phi <= 360)) return gs_perr(p, "#%s: phi %g is not in [0, 360] degrees", c->name, w.phi);
  if (!(w.psi >= 0 && w.psi <= 360)) return gs_perr(p, "#%s: psi %g is not in [0, 360] degrees", c->name, w.psi);
  if (parse_pw_rest(p, c, 9, &w)) return -1;
  return add_plane_wave(p, &w);
}

/* #plane_wave_vector: x1 y1 z1 x2 y2 z2 mx my mz psi waveform [material]:
 * gprMax turns m into angles (its formulas, kept) and then looks for the
 * rational direction again with tolerance 0 (4.0.0b0 fails on the delay and
 * removal time of this command: it reads one argument too many). */
int gs_cmd_plane_wave_vector(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#%s: not supported in 2D models (3D only)", c->name);
  if (c->nargs > 12) return gs_perr(p, "#%s: a delay and removal time are not taken (gprMax 4 fails on them)", c->name);
  gs_plane_wave w = {.max_angle_diff = 0};
  long mv[3];
  if (parse_pw_box(p, c, &w)) return -1;
  for (int a = 0; a < 3; ++a) {
    char *end;
    errno = 0;
    mv[a] = strtol(c->arg[6 + a], &end, 10);
    if (end == c->arg[6 + a] || *end || errno || labs(mv[a]) > 100000)
      return gs_perr(p, "#%s: '%s' is not an integer of at most 100000", c->name, c->arg[6 + a]);
  }
  if (!mv[0] && !mv[1] && !mv[2]) return gs_perr(p, "#%s: the direction (0, 0, 0) has no angle", c->name);
  if (gs_parse_double(p, c->arg[9], &w.psi, c->name)) return -1;
  if (!(w.psi >= 0 && w.psi <= 360)) return gs_perr(p, "#%s: psi %g is not in [0, 360] degrees", c->name, w.psi);
  const gs_scene *s = p->s;
  const double ax = (double)mv[0] * s->dy, ay = (double)mv[1] * s->dx, az = (double)mv[2] * s->dz;
  w.phi = atan2(ay, ax) * (180.0 / M_PI);
  w.theta = acos(az / sqrt(ax * ax + ay * ay + az * az)) * (180.0 / M_PI);
  if (parse_pw_rest(p, c, 10, &w)) return -1;
  return add_plane_wave(p, &w);
}

/* #plane_wave_axial: gprMax's layered-background form, not built. */
int gs_cmd_plane_wave_axial(gs_parser *p, const gs_command_call *c) {
  return gs_perr(p, "#%s: not supported yet (use #plane_wave_angles or #plane_wave_vector)", c->name);
}

/* The excitation file's lines after the names: numbers, in rows of ncol. */
typedef struct user_table {
  int ncol;
  int64_t rows, cap;
  float *v; /* [rows][ncol] */
} user_table;

static int read_row(gs_parser *p, const char *path, int64_t line, char *text, user_table *t) {
  char *hash = strchr(text, '#'); /* numpy.loadtxt's comments */
  if (hash) *hash = '\0';
  int col = 0;
  for (char *save = NULL, *tok = strtok_r(text, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
    char *end;
    errno = 0;
    double d = strtod(tok, &end);
    if (end == tok || *end || !isfinite(d) || fabs(d) > 3.4e38)
      return gs_perr(p, "#excitation_file: %s:%lld: '%.40s' is not a finite float32 number", path, (long long)line,
                     tok);
    if (col >= t->ncol)
      return gs_perr(p, "#excitation_file: %s:%lld: more than the %d columns the names give", path, (long long)line,
                     t->ncol);
    if ((t->rows + 1) * t->ncol > GS_USER_MAX_VALUES)
      return gs_perr(p, "#excitation_file: %s: more than %d values", path, GS_USER_MAX_VALUES);
    if (t->rows == t->cap) {
      t->cap = t->cap ? 2 * t->cap : 256;
      t->v = gs_xrealloc(t->v, sizeof(float) * (size_t)t->cap * (size_t)t->ncol);
    }
    t->v[t->rows * t->ncol + col++] = (float)d;
  }
  if (col == 0) return 0; /* blank or comment */
  if (col != t->ncol)
    return gs_perr(p, "#excitation_file: %s:%lld: %d values where the names give %d columns", path, (long long)line,
                   col, t->ncol);
  t->rows++;
  return 0;
}

/* One waveform per named column; the time column, if any, first. */
static int add_user_waves(gs_parser *p, const char *path, char names[][64], int nnames, user_table *t,
                          int extrapolate) {
  gs_scene *s = p->s;
  int timed = !strcasecmp(names[0], "time"); /* gprMax: names[0].lower() == "time" */
  if (timed)
    for (int64_t r = 1; r < t->rows; ++r)
      if (!(t->v[r * t->ncol] > t->v[(r - 1) * t->ncol]))
        return gs_perr(p, "#excitation_file: %s: the time column does not increase", path);
  for (int c = timed; c < nnames; ++c) {
    if (gs_find_waveform(s, names[c]) >= 0) return gs_perr(p, "#excitation_file: '%s' is already defined", names[c]);
    gs_user_wave *u = gs_xcalloc(1, sizeof *u);
    u->extrapolate = extrapolate;
    u->line = p->line;
    u->n = t->rows;
    u->v = gs_xmalloc(sizeof(float) * (size_t)t->rows);
    for (int64_t r = 0; r < t->rows; ++r)
      u->v[r] = t->v[r * t->ncol + c];
    if (timed) {
      u->f32_times = 1;
      u->t = gs_xmalloc(sizeof(double) * (size_t)t->rows);
      for (int64_t r = 0; r < t->rows; ++r)
        u->t[r] = t->v[r * t->ncol];
    }
    s->waveforms = gs_xrealloc(s->waveforms, sizeof *s->waveforms * (size_t)(s->nwaveforms + 1));
    s->waveforms[s->nwaveforms] = (gs_waveform){.type = GS_WAVE_USER, .amp = 1, .freq = 1, .user = u};
    snprintf(s->waveforms[s->nwaveforms++].name, 64, "%s", names[c]);
  }
  return 0;
}

static FILE *open_excitation(gs_parser *p, const char *file, char *path, size_t size) {
  /* gprMax: the path as given, else in the input file's folder. */
  snprintf(path, size, "%s", file);
  gs_status st = GS_OK;
  char why[512];
  FILE *fp = gs_fopen_regular(path, &st, why, sizeof why);
  if (!fp && file[0] != '/') {
    snprintf(path, size, "%s%s", p->base_dir, file);
    fp = gs_fopen_regular(path, &st, why, sizeof why);
  }
  if (!fp) gs_perr(p, "#excitation_file: %s", why);
  if (fp) gs_scene_add_input(p->s, path, p->line, "excitation_file");
  if (fp) gs_skip_utf8_bom(fp); /* read past, as in the input file */
  return fp;
}

static int read_names(gs_parser *p, const char *path, char *line, char names[][64], int *n) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
    if (*n == 64) return gs_perr(p, "#excitation_file: %s: more than 64 columns", path);
    if (strlen(tok) >= 64) return gs_perr(p, "#excitation_file: %s: name '%.40s...' is too long", path, tok);
    snprintf(names[(*n)++], 64, "%s", tok);
  }
  if (*n == 0) return gs_perr(p, "#excitation_file: %s: the first line holds no waveform names", path);
  return 0;
}

/* #excitation_file: file [kind fill_value]: the first line names the
 * columns (a first column "time" gives the sample times, else they are the
 * simulation's: 0, dt, 2 dt, ...); the other lines hold float32 values. */
int gs_cmd_excitation_file(gs_parser *p, const gs_command_call *c) {
  int extrapolate = 0;
  if (c->nargs == 3) {
    if (strcmp(c->arg[1], "linear"))
      return gs_perr(p, "#excitation_file: interpolation '%s' is not supported (linear only)", c->arg[1]);
    extrapolate = !strcmp(c->arg[2], "extrapolate");
    double fill;
    if (!extrapolate && gs_parse_double(p, c->arg[2], &fill, c->name)) return -1;
  }
  char path[2200], line[65536], names[64][64];
  FILE *fp = open_excitation(p, c->arg[0], path, sizeof path);
  if (!fp) return -1;
  int nnames = 0, rc = 0;
  int64_t lineno = 1;
  user_table t = {0};
  if (!fgets(line, sizeof line, fp))
    rc = gs_perr(p, "#excitation_file: %s: the file is empty", path);
  else
    rc = read_names(p, path, line, names, &nnames);
  t.ncol = nnames;
  while (!rc && fgets(line, sizeof line, fp)) {
    ++lineno;
    if (lineno > GS_USER_MAX_VALUES) /* blank or comment lines bound the reading time too */
      rc = gs_perr(p, "#excitation_file: %s: more than %d lines", path, GS_USER_MAX_VALUES);
    else if (strlen(line) == sizeof line - 1 && line[sizeof line - 2] != '\n')
      rc = gs_perr(p, "#excitation_file: %s:%lld: line longer than %zu characters", path, (long long)lineno,
                   sizeof line - 2);
    else
      rc = read_row(p, path, lineno, line, &t);
  }
  if (!rc && ferror(fp)) rc = gs_perr(p, "#excitation_file: %s: read error", path);
  fclose(fp);
  if (!rc && t.rows < 2) rc = gs_perr(p, "#excitation_file: %s: fewer than two rows of values", path);
  if (!rc) { /* the file's contents are part of the scene: a restart with an edited file is refused */
    for (int k = 0; k < nnames; ++k)
      gs_scene_hash_add(p->s, names[k], strlen(names[k]) + 1);
    gs_scene_hash_add(p->s, t.v, sizeof *t.v * (size_t)(t.rows * t.ncol));
    rc = add_user_waves(p, path, names, nnames, &t, extrapolate);
  }
  free(t.v);
  return rc;
}

/* Once dt is known: the simulation's times for the waveforms without a time
 * column (numpy.arange(0, timewindow + dt, dt)), their values cut or padded
 * with zeros to as many (gprMax's rule). */
int gs_scene_sources3_finish(gs_scene *s, char *err, size_t errlen) {
  for (int k = 0; k < s->nwaveforms; ++k) {
    gs_user_wave *u = s->waveforms[k].user;
    if (u && s->mode != GS_MODE_3D) {
      snprintf(err, errlen, "%s:%d: #excitation_file: not supported in 2D models yet (3D only)", s->path, u->line);
      return -1;
    }
    if (!u || u->t) continue;
    double count = ceil((s->timewindow + s->dt) / s->dt);
    if (!(count >= 2 && count <= GS_USER_MAX_VALUES)) {
      snprintf(err, errlen, "%s:%d: #excitation_file: %s: %.0f simulation times (2 to %d)", s->path, u->line,
               s->waveforms[k].name, count, GS_USER_MAX_VALUES);
      return -1;
    }
    int64_t n = (int64_t)count;
    u->t = gs_xmalloc(sizeof(double) * (size_t)n);
    for (int64_t q = 0; q < n; ++q)
      u->t[q] = (double)q * s->dt;
    float *v = gs_xcalloc((size_t)n, sizeof *v);
    memcpy(v, u->v, sizeof(float) * (size_t)(u->n < n ? u->n : n));
    free(u->v);
    u->v = v;
    u->n = n;
  }
  return 0;
}

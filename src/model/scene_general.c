/* gprMax's general commands (the handlers of scene.c's command table that
 * are neither objects, outputs, 3D sources, dispersion nor fractals): the
 * grid (#domain, #dx_dy_dz), time (#time_window,
 * #time_step_stability_factor), #material, #waveform, #hertzian_dipole,
 * receivers (#rx, #rx_array), #material_map, the PML (#pml_cells, #pml_cfs,
 * #pml_formulation), the steps between runs (#src_steps, #rx_steps), the
 * settings (#title, #messages, #num_threads, #output_dir, #source_timing,
 * #snapshot_png), and the refusal of blocks and includes out of place. */
#include "scene.h"
#include "scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_io.h"

typedef gs_parser parser;
typedef gs_command_call command_call;

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

static int find_waveform(const gs_scene *s, const char *name) {
  for (int i = 0; i < s->nwaveforms; ++i)
    if (strcmp(s->waveforms[i].name, name) == 0) return i;
  return -1;
}

int gs_find_waveform(const gs_scene *s, const char *name) {
  return find_waveform(s, name);
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

/* Pixels the scene's maps hold so far. */
static uint64_t map_pixels(const gs_scene *s) {
  uint64_t n = 0;
  for (int k = 0; k < s->nobjects; ++k)
    if (s->objects[k].grey) n += (uint64_t)s->objects[k].mw * s->objects[k].mh;
  return n;
}

/* Rows of format f in buf (n of them, packed) as grey levels: the first
 * channel's high byte. */
static void grey_rows(const gs_png_format *f, const uint8_t *buf, uint32_t n, uint8_t *grey) {
  const size_t step = (size_t)f->channels * (size_t)(f->depth / 8), count = (size_t)f->width * n;
  for (size_t k = 0; k < count; ++k)
    grey[k] = f->depth == 16 ? (uint8_t)(((const uint16_t *)buf)[k * f->channels] >> 8) : buf[k * step];
}

/* The picture of a #material_map, decoded a few MiB of rows at a time into
 * its grey levels (a byte a pixel: the decoded rows of a large 16-bit RGBA
 * picture would take eight); at most 2^30 pixels over all the scene's maps. */
static int load_map(parser *p, gs_object *o, const char *file) {
  char path[2200], why[512];
  if (file[0] == '/')
    snprintf(path, sizeof path, "%s", file);
  else
    snprintf(path, sizeof path, "%s%s", p->base_dir, file);
  gs_png_reader *r = NULL;
  if (gs_png_reader_open(path, &r, why, sizeof why) != GS_OK) return gs_perr(p, "#material_map: %s: %s", path, why);
  gs_scene_add_input(p->s, path, p->line, "material_map");
  const gs_png_format *f = gs_png_reader_format(r); /* lives in r */
  const uint32_t width = f->width, height = f->height;
  const uint64_t pixels = (uint64_t)width * height, before = map_pixels(p->s);
  if (pixels + before > (1ull << 30)) {
    gs_png_reader_close(r);
    return gs_perr(p, "#material_map: %s: %llu pixels, more than 2^30 with the model's other maps (%llu)", path,
                   (unsigned long long)pixels, (unsigned long long)before);
  }
  const size_t row = gs_png_row_bytes(f), chunk = row >= (4u << 20) ? 1 : (4u << 20) / row;
  uint8_t *buf = gs_xmalloc(row * chunk), *grey = gs_xmalloc((size_t)pixels);
  gs_status st = GS_OK;
  for (uint32_t y = 0, n; st == GS_OK && y < height; y += n) {
    n = height - y < chunk ? height - y : (uint32_t)chunk;
    st = gs_png_reader_rows(r, buf, n, why, sizeof why);
    if (st == GS_OK) grey_rows(f, buf, n, grey + (size_t)y * width);
  }
  if (st == GS_OK) st = gs_png_reader_finish(r, why, sizeof why);
  free(buf);
  gs_png_reader_close(r);
  if (st != GS_OK) {
    free(grey);
    return gs_perr(p, "#material_map: %s: %s", path, why);
  }
  o->mw = width;
  o->mh = height;
  o->grey = grey;
  gs_scene_hash_add(p->s, o->grey, (size_t)pixels);
  return 0;
}

static int parse_profile(parser *p, char **t, gs_cfs_param *out, int allow_none) {
  /* gprMax 4's scaling names (its code takes septic and octic too, beyond those its manual lists) */
  static const char *const orders[] = {"constant", "linear", "quadratic", "cubic", "quartic",
                                       "quintic",  "sextic", "septic",    "octic"};
  out->order = -1;
  for (int k = 0; k < (int)(sizeof orders / sizeof *orders); ++k)
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

int gs_cmd_title(parser *p, const command_call *c) {
  snprintf(p->s->title, sizeof p->s->title, "%.255s", c->text);
  return 0;
}

int gs_cmd_messages(parser *p, const command_call *c) {
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
  if (!gs_have_geometry(p)) return 0;
  for (int k = 0; k < 3; ++k) {
    if (gs_check_cells_in_range(p, p->domain[k], p->d[k], "domain")) return -1;
    p->n[k] = gs_metres_to_cells(p->domain[k], p->d[k]);
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

int gs_cmd_domain(parser *p, const command_call *c) {
  if (parse_lengths(p, c, p->domain)) return -1;
  p->have_domain = 1;
  return size_grid(p);
}

int gs_cmd_dx_dy_dz(parser *p, const command_call *c) {
  double d[3];
  if (parse_lengths(p, c, d)) return -1;
  memcpy(p->d, d, sizeof d);
  p->have_dxdydz = 1;
  return size_grid(p);
}

int gs_cmd_time_window(parser *p, const command_call *c) {
  /* gprMax: a number written as an integer counts iterations, any other is seconds. */
  p->tw_is_iterations = !strpbrk(c->arg[0], ".eE");
  if (gs_parse_double(p, c->arg[0], &p->tw, c->name)) return -1;
  if (!(p->tw > 0)) return gs_perr(p, "#time_window must be > 0");
  if (p->tw_is_iterations && p->tw > GS_SCENE_MAX_ITERATIONS)
    return gs_perr(p, "#time_window: %s iterations is more than 2^40", c->arg[0]);
  p->have_tw = 1;
  return 0;
}

int gs_cmd_time_step_stability_factor(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (gs_parse_double(p, c->arg[0], &s->stability, c->name)) return -1;
  if (!(s->stability > 0) || s->stability > 1)
    return gs_perr(p, "#time_step_stability_factor: %g is outside (0, 1]: %s", s->stability,
                   s->stability > 1 ? "above 1 the scheme is unstable" : "the time step must be positive");
  return 0;
}

int gs_cmd_material(parser *p, const command_call *c) {
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
  GS_SCENE_GROW(s->materials, s->nmaterials);
  s->materials[s->nmaterials++] = m;
  return 0;
}

int gs_cmd_waveform(parser *p, const command_call *c) {
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
  GS_SCENE_GROW(s->waveforms, s->nwaveforms);
  s->waveforms[s->nwaveforms++] = w;
  return 0;
}

int gs_cmd_hertzian_dipole(parser *p, const command_call *c) {
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
  GS_SCENE_GROW(s->sources, s->nsources);
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
int gs_cmd_rx(parser *p, const command_call *c) {
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
int gs_cmd_rx_array(parser *p, const command_call *c) {
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

int gs_cmd_material_map(parser *p, const command_call *c) {
  if (p->s->mode == GS_MODE_3D) return gs_perr(p, "#material_map: not supported in 3D models");
  gs_object o = {.type = GS_OBJ_MAP};
  double corner[2];
  if (gs_parse_args(p, c, 1, 2, corner) || gs_check_cells_in_range(p, corner[0], p->s->dx, c->name) ||
      gs_check_cells_in_range(p, corner[1], p->s->dy, c->name))
    return -1;
  o.mi0 = gs_metres_to_cells(corner[0], p->s->dx);
  o.mj0 = gs_metres_to_cells(corner[1], p->s->dy);
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

int gs_cmd_pml_cells(parser *p, const command_call *c) {
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

/* Each #pml_cfs is one CFS term (gprMax's first replaces its default one);
 * two make a second-order PML, in 3D models only here; gprMax refuses a
 * third. The kappa minimums are checked once all are read (finish_scene). */
int gs_cmd_pml_cfs(parser *p, const command_call *c) {
  gs_scene *s = p->s;
  if (p->npml_cfs == GS_SCENE_MAX_CFS)
    return gs_perr(p, "#pml_cfs: given %d times; gprMax takes at most %d (a second-order PML)", p->npml_cfs + 1,
                   GS_SCENE_MAX_CFS);
  if (p->npml_cfs && p->have_domain && s->mode != GS_MODE_3D)
    return gs_perr(p, "#pml_cfs: a second #pml_cfs (a second-order PML) is supported in 3D models only");
  gs_cfs *cfs = &s->cfs[p->npml_cfs];
  if (parse_profile(p, c->arg, &cfs->alpha, 0) || parse_profile(p, c->arg + 4, &cfs->kappa, 0) ||
      parse_profile(p, c->arg + 8, &cfs->sigma, 1))
    return -1;
  p->cfs_file = p->file;
  p->cfs_line = p->line;
  s->ncfs = ++p->npml_cfs;
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

int gs_cmd_src_steps(parser *p, const command_call *c) {
  return parse_steps(p, c, &p->s->src_di, &p->s->src_dj);
}

int gs_cmd_rx_steps(parser *p, const command_call *c) {
  return parse_steps(p, c, &p->s->rx_di, &p->s->rx_dj);
}

int gs_cmd_snapshot_png(parser *p, const command_call *c) {
  return parse_count(p, c->arg[0], 1, (int64_t)GS_SCENE_MAX_ITERATIONS, &p->s->snapshot_every, c->name);
}

/* Blocks and include files are expanded before the parser sees the text
 * (scene_text.c): what is left of them here is out of place. */
int gs_cmd_refuse_python(parser *p, const command_call *c) {
  if (!strcmp(c->name, "end_python")) return gs_perr(p, "#end_python: no #python: block is open");
  return gs_perr(p, "#python: a block's output is not run as a block (blocks run from the input file only)");
}

int gs_cmd_refuse_include(parser *p, const command_call *c) {
  return gs_perr(p, "#%s: an include file is read where the command stands, not here", c->name);
}

/* gprMax's PML formulations: HORIPML (its default) is the one here. */
int gs_cmd_pml_formulation(parser *p, const command_call *c) {
  const int mr = !strcmp(c->arg[0], "MRIPML");
  if (!mr && strcmp(c->arg[0], "HORIPML"))
    return gs_perr(p, "#pml_formulation: '%s' is not HORIPML or MRIPML", c->arg[0]);
  if (mr && p->have_domain && p->s->mode != GS_MODE_3D)
    return gs_perr(p, "#pml_formulation: MRIPML is supported in 3D models only");
  p->s->pml_formulation = mr ? GS_PML_MRIPML : GS_PML_HORIPML;
  return 0;
}

/* gprMax's OpenMP thread count: ours comes from the rank's cores (no effect). */
int gs_cmd_num_threads(parser *p, const command_call *c) {
  int64_t n;
  return parse_count(p, c->arg[0], 1, 1 << 20, &n, c->name);
}

/* gprMax's output folder, relative to the input file's; -o overrides it. */
int gs_cmd_output_dir(parser *p, const command_call *c) {
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
int gs_cmd_source_timing(parser *p, const command_call *c) {
  if (strcmp(c->arg[0], "gprmax3") && strcmp(c->arg[0], "gprmax4"))
    return gs_perr(p, "#source_timing: '%s' is not gprmax3 or gprmax4", c->arg[0]);
  p->s->gprmax3_timing = !strcmp(c->arg[0], "gprmax3");
  return 0;
}

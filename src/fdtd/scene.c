/* Parser for gprMax input files describing 2D TMz models. */
#include "scene.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_io.h"

#define GS_C0 299792458.0

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

static int parse_double(parser *p, const char *tok, double *out, const char *what) {
  char *end;
  errno = 0;
  double v = strtod(tok, &end);
  if (end == tok || *end || errno == ERANGE || !isfinite(v)) return perr(p, "#%s: '%s' is not a number", what, tok);
  *out = v;
  return 0;
}

/* gprMax rounds metres to cells half up. */
static int64_t to_cells(double metres, double d) {
  return (int64_t)floor(metres / d + 0.5 + 1e-9);
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

static int need(parser *p, int n, int min, int max, const char *cmd, const char *syntax) {
  if (n < min || n > max) return perr(p, "#%s: expected %s", cmd, syntax);
  return 0;
}

static int need_geometry(parser *p, const char *cmd) {
  if (!p->have_domain || !p->have_dxdydz)
    return perr(p, "#%s: #domain and #dx_dy_dz must come before objects, sources and receivers", cmd);
  return 0;
}

static int node_of(parser *p, double x, double y, int64_t *i, int64_t *j, const char *cmd) {
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

static int command(parser *p, char *cmd, char **t, int n, char *rest) {
  gs_scene *s = p->s;
  if (!strcmp(cmd, "title")) {
    snprintf(s->title, sizeof s->title, "%.255s", rest);
  } else if (!strcmp(cmd, "messages")) {
    if (need(p, n, 1, 1, cmd, "y or n")) return -1;
    if (strcmp(t[0], "y") && strcmp(t[0], "n")) return perr(p, "#messages: '%s' is not y or n", t[0]);
    s->messages = t[0][0] == 'y';
  } else if (!strcmp(cmd, "domain") || !strcmp(cmd, "dx_dy_dz")) {
    if (need(p, n, 3, 3, cmd, "three lengths in metres")) return -1;
    double v[3];
    for (int k = 0; k < 3; ++k) {
      if (parse_double(p, t[k], &v[k], cmd)) return -1;
      if (!(v[k] > 0)) return perr(p, "#%s: lengths must be > 0", cmd);
    }
    if (!strcmp(cmd, "domain")) {
      memcpy(p->domain, v, sizeof v);
      p->have_domain = 1;
    } else {
      s->dx = v[0];
      s->dy = v[1];
      s->dz = v[2];
      p->have_dxdydz = 1;
    }
    if (p->have_domain && p->have_dxdydz) {
      s->nx = to_cells(p->domain[0], s->dx);
      s->ny = to_cells(p->domain[1], s->dy);
      int64_t nz = to_cells(p->domain[2], s->dz);
      if (nz != 1)
        return perr(p, "3D models are not supported: the domain is %lld cells in z (a 2D TMz model has 1)",
                    (long long)nz);
      if (s->nx < 3 || s->ny < 3) return perr(p, "the domain must be at least 3 x 3 cells");
      if (s->nx > 2000000 || s->ny > 2000000) return perr(p, "the domain exceeds 2,000,000 cells on a side");
    }
  } else if (!strcmp(cmd, "time_window")) {
    if (need(p, n, 1, 1, cmd, "seconds (f) or iterations (i)")) return -1;
    p->tw_is_iterations = !strpbrk(t[0], ".eE");
    if (parse_double(p, t[0], &p->tw, cmd)) return -1;
    if (!(p->tw > 0)) return perr(p, "#time_window must be > 0");
    p->have_tw = 1;
  } else if (!strcmp(cmd, "time_step_stability_factor")) {
    if (need(p, n, 1, 1, cmd, "a factor in (0, 1]")) return -1;
    if (parse_double(p, t[0], &s->stability, cmd)) return -1;
    if (!(s->stability > 0) || s->stability > 1)
      return perr(p, "#time_step_stability_factor: %g is outside (0, 1]: above 1 the scheme is unstable", s->stability);
  } else if (!strcmp(cmd, "material")) {
    if (need(p, n, 5, 5, cmd, "er sigma mu_r sigma_m name")) return -1;
    gs_material m = {0};
    double mur, sm;
    if (parse_double(p, t[0], &m.er, cmd) || parse_double(p, t[1], &m.sigma, cmd) || parse_double(p, t[2], &mur, cmd) ||
        parse_double(p, t[3], &sm, cmd))
      return -1;
    if (m.er < 1) return perr(p, "#material %s: relative permittivity %g is below 1", t[4], m.er);
    if (m.sigma < 0) return perr(p, "#material %s: negative conductivity", t[4]);
    if (mur != 1 || sm != 0)
      return perr(p,
                  "#material %s: magnetic materials (mu_r %g, magnetic loss %g) are not supported: TMz here has "
                  "mu_r = 1 and no magnetic loss",
                  t[4], mur, sm);
    if (find_material(s, t[4]) >= 0) return perr(p, "#material: '%s' is already defined", t[4]);
    if (s->nmaterials >= 256) return perr(p, "#material: more than 256 materials");
    snprintf(m.name, sizeof m.name, "%s", t[4]);
    GROW(s->materials, s->nmaterials);
    s->materials[s->nmaterials++] = m;
  } else if (!strcmp(cmd, "waveform")) {
    static const char *const names[] = {
        "gaussian", "gaussiandot", "gaussiandotnorm", "gaussiandotdot", "gaussiandotdotnorm",
        "ricker",   "sine",        "contsine"};
    if (need(p, n, 4, 4, cmd, "type amplitude frequency name")) return -1;
    gs_waveform w = {.type = -1};
    for (int k = 0; k < 8; ++k)
      if (!strcmp(t[0], names[k])) w.type = k;
    if (w.type < 0) return perr(p, "#waveform: unknown type '%s'", t[0]);
    if (parse_double(p, t[1], &w.amp, cmd) || parse_double(p, t[2], &w.freq, cmd)) return -1;
    if (!(w.freq > 0)) return perr(p, "#waveform %s: frequency must be > 0", t[3]);
    if (find_waveform(s, t[3]) >= 0) return perr(p, "#waveform: '%s' is already defined", t[3]);
    snprintf(w.name, sizeof w.name, "%s", t[3]);
    GROW(s->waveforms, s->nwaveforms);
    s->waveforms[s->nwaveforms++] = w;
  } else if (!strcmp(cmd, "hertzian_dipole")) {
    if (need(p, n, 5, 7, cmd, "z x y z waveform [delay remove]") || need_geometry(p, cmd)) return -1;
    if (strcmp(t[0], "z")) return perr(p, "#hertzian_dipole: polarisation '%s': a 2D TMz model has only z", t[0]);
    gs_source src = {.start = 0, .stop = INFINITY};
    double x, y, z;
    if (parse_double(p, t[1], &x, cmd) || parse_double(p, t[2], &y, cmd) || parse_double(p, t[3], &z, cmd)) return -1;
    if (node_of(p, x, y, &src.i, &src.j, cmd)) return -1;
    src.waveform = find_waveform(s, t[4]);
    if (src.waveform < 0) return perr(p, "#hertzian_dipole: waveform '%s' is not defined (yet)", t[4]);
    if (n >= 6 && parse_double(p, t[5], &src.start, cmd)) return -1;
    if (n == 7 && parse_double(p, t[6], &src.stop, cmd)) return -1;
    if (n == 6) return perr(p, "#hertzian_dipole: give both the delay and the removal time, or neither");
    for (int k = 0; k < s->nsources; ++k)
      if (s->sources[k].i == src.i && s->sources[k].j == src.j)
        return perr(p, "#hertzian_dipole: two sources on the same cell");
    GROW(s->sources, s->nsources);
    s->sources[s->nsources++] = src;
  } else if (!strcmp(cmd, "rx")) {
    if ((n != 3 && n != 5) || need_geometry(p, cmd)) return perr(p, "#rx: expected x y z [name outputs]");
    gs_rx rx = {0};
    double x, y, z;
    if (parse_double(p, t[0], &x, cmd) || parse_double(p, t[1], &y, cmd) || parse_double(p, t[2], &z, cmd)) return -1;
    if (node_of(p, x, y, &rx.i, &rx.j, cmd)) return -1;
    if (n == 5) {
      if (strcmp(t[4], "Ez") && strcmp(t[4], "Ez,Hx,Hy") && strcmp(t[4], "Ex,Ey,Ez,Hx,Hy,Hz"))
        return perr(p, "#rx: outputs '%s': receivers here record Ez, Hx and Hy", t[4]);
      snprintf(rx.name, sizeof rx.name, "%s", t[3]);
    } else {
      snprintf(rx.name, sizeof rx.name, "rx%d", s->nrx + 1);
    }
    GROW(s->rxs, s->nrx);
    s->rxs[s->nrx++] = rx;
  } else if (!strcmp(cmd, "box") || !strcmp(cmd, "cylinder")) {
    int box = !strcmp(cmd, "box");
    if (need_geometry(p, cmd)) return -1;
    if (box ? (n < 7 || n > 8) : (n < 8 || n > 9))
      return perr(p, box ? "#box: expected x0 y0 z0 x1 y1 z1 material [c1]"
                         : "#cylinder: expected x0 y0 z0 x1 y1 z1 r material [c1]");
    double v[7];
    for (int k = 0; k < (box ? 6 : 7); ++k)
      if (parse_double(p, t[k], &v[k], cmd)) return -1;
    const char *mname = t[box ? 6 : 7];
    gs_object o = {.type = box ? GS_OBJ_BOX : GS_OBJ_CYLINDER, .material = find_material(s, mname)};
    if (o.material < 0) return perr(p, "#%s: material '%s' is not defined (yet)", cmd, mname);
    if (box) {
      if (v[3] < v[0] || v[4] < v[1]) return perr(p, "#box: the upper corner is below the lower one");
      o.x0 = v[0];
      o.y0 = v[1];
      o.x1 = v[3];
      o.y1 = v[4];
    } else {
      if (fabs(v[0] - v[3]) > 1e-12 || fabs(v[1] - v[4]) > 1e-12)
        return perr(p, "#cylinder: only cylinders along z are supported in a 2D TMz model");
      if (!(v[6] > 0)) return perr(p, "#cylinder: radius must be > 0");
      o.x0 = v[0];
      o.y0 = v[1];
      o.r = v[6];
    }
    GROW(s->objects, s->nobjects);
    s->objects[s->nobjects++] = o;
  } else if (!strcmp(cmd, "material_map")) {
    if (n < 5 || (n - 3) % 2 || need_geometry(p, cmd))
      return perr(p, "#material_map: expected file.png x0 y0 grey material [grey material ...]");
    gs_object o = {.type = GS_OBJ_MAP};
    double x0, y0;
    if (parse_double(p, t[1], &x0, cmd) || parse_double(p, t[2], &y0, cmd)) return -1;
    o.mi0 = to_cells(x0, s->dx);
    o.mj0 = to_cells(y0, s->dy);
    for (int k = 0; k < 256; ++k)
      o.lut[k] = -1;
    for (int k = 3; k + 1 < n; k += 2) {
      char *end;
      long g = strtol(t[k], &end, 10);
      if (*end || g < 0 || g > 255) return perr(p, "#material_map: grey level '%s' is not 0..255", t[k]);
      int m = find_material(s, t[k + 1]);
      if (m < 0) return perr(p, "#material_map: material '%s' is not defined (yet)", t[k + 1]);
      o.lut[g] = (int16_t)m;
    }
    if (load_map(p, &o, t[0])) return -1;
    GROW(s->objects, s->nobjects);
    s->objects[s->nobjects++] = o;
  } else if (!strcmp(cmd, "pml_cells")) {
    if (n != 1 && n != 6) return perr(p, "#pml_cells: expected one count or six (x- y- z- x+ y+ z+)");
    int64_t v[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < n; ++k) {
      char *end;
      v[k] = strtoll(t[k], &end, 10);
      if (*end || v[k] < 0 || v[k] > 1000) return perr(p, "#pml_cells: '%s' is not a count 0..1000", t[k]);
    }
    if (n == 1) v[1] = v[3] = v[4] = v[0];
    s->pml[0] = (int)v[0];
    s->pml[1] = (int)v[1];
    s->pml[2] = (int)v[3];
    s->pml[3] = (int)v[4];
  } else if (!strcmp(cmd, "pml_cfs")) {
    if (n != 12) return perr(p, "#pml_cfs: expected 12 parameters (alpha, kappa, sigma: scaling direction min max)");
    if (p->has_pml_cfs++) return perr(p, "#pml_cfs: only a first-order CFS PML (one #pml_cfs) is supported");
    if (parse_profile(p, t, &s->cfs_alpha, 0) || parse_profile(p, t + 4, &s->cfs_kappa, 0) ||
        parse_profile(p, t + 8, &s->cfs_sigma, 1))
      return -1;
    if (s->cfs_kappa.min < 1) return perr(p, "#pml_cfs: kappa must be >= 1");
  } else if (!strcmp(cmd, "src_steps") || !strcmp(cmd, "rx_steps")) {
    if (need(p, n, 3, 3, cmd, "dx dy dz in metres") || need_geometry(p, cmd)) return -1;
    double x, y, z;
    if (parse_double(p, t[0], &x, cmd) || parse_double(p, t[1], &y, cmd) || parse_double(p, t[2], &z, cmd)) return -1;
    int64_t *di = cmd[0] == 's' ? &s->src_di : &s->rx_di, *dj = cmd[0] == 's' ? &s->src_dj : &s->rx_dj;
    *di = (int64_t)floor(x / s->dx + (x >= 0 ? 0.5 : -0.5));
    *dj = (int64_t)floor(y / s->dy + (y >= 0 ? 0.5 : -0.5));
  } else if (!strcmp(cmd, "snapshot_png")) {
    if (need(p, n, 1, 1, cmd, "every_n_steps")) return -1;
    char *end;
    s->snapshot_every = strtoll(t[0], &end, 10);
    if (*end || s->snapshot_every < 1) return perr(p, "#snapshot_png: '%s' is not a step count >= 1", t[0]);
  } else {
    return perr(p, "#%s: not supported (2D TMz subset: see docs/fdtd.md)", cmd);
  }
  return 0;
}

gs_status gs_scene_load(const char *path, gs_scene *s, char *err, size_t errlen) {
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
  parser p = {.file = path, .err = err, .errlen = errlen, .s = s};
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(p.base_dir, sizeof p.base_dir, "%.*s", (int)(slash - path + 1), path);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return GS_ERR_IO;
  }
  char line[4096];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, fp)) {
    p.line++;
    size_t len = strlen(line);
    s->hash = fnv1a(s->hash, line, len);
    if (len == sizeof line - 1 && line[len - 1] != '\n') {
      rc = perr(&p, "line longer than %zu characters", sizeof line - 2);
      break;
    }
    while (len && isspace((unsigned char)line[len - 1]))
      line[--len] = '\0';
    if (line[0] != '#') continue; /* gprMax: anything else is a comment */
    char *colon = strchr(line, ':');
    if (!colon) {
      rc = perr(&p, "'%s': a command is '#name: parameters'", line);
      break;
    }
    *colon = '\0';
    char *cmd = line + 1, *rest = colon + 1;
    while (isspace((unsigned char)*rest))
      ++rest;
    char restcopy[4096];
    snprintf(restcopy, sizeof restcopy, "%s", rest);
    char *t[32];
    int n = 0;
    for (char *tok = strtok(rest, " \t"); tok && n < 32; tok = strtok(NULL, " \t"))
      t[n++] = tok;
    if (!strcmp(cmd, "python") || !strcmp(cmd, "include_file"))
      rc = perr(&p, "#%s: not supported (write the commands out)", cmd);
    else
      rc = command(&p, cmd, t, n, restcopy);
  }
  int read_error = ferror(fp);
  fclose(fp);
  if (rc) return GS_ERR_FORMAT;
  if (read_error) {
    snprintf(err, errlen, "%s: read error", path);
    return GS_ERR_IO;
  }
  p.line = 0;
  const char *missing = !p.have_domain ? "#domain" : !p.have_dxdydz ? "#dx_dy_dz" : !p.have_tw ? "#time_window" : NULL;
  if (missing) {
    snprintf(err, errlen, "%s: %s is missing", path, missing);
    return GS_ERR_FORMAT;
  }
  /* 2D CFL limit, as gprMax uses for 2D models. */
  s->dt = s->stability / (GS_C0 * sqrt(1.0 / (s->dx * s->dx) + 1.0 / (s->dy * s->dy)));
  if (p.tw_is_iterations) {
    s->iterations = (int64_t)p.tw;
  } else {
    s->iterations = (int64_t)ceil(p.tw / s->dt) + 1;
  }
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

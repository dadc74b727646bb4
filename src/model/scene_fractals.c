/* gprMax 4's heterogeneous soils (3D models): the mixing models
 * #soil_peplinski, #material_range and #material_list, #fractal_box and its
 * modifiers #add_surface_roughness, #add_surface_water and #add_grass
 * (docs/gprmax-rules.md, "Fractal boxes").
 *
 * The commands are read in file order; a #fractal_box takes its place among
 * the geometry commands (objs3). Once the file is read
 * (gs_scene_resolve_fractals) they are built as gprMax builds them: first,
 * for each fractal box in file order, its mixing model's materials (gprMax's
 * FractalBox.pre_build), then the modifiers naming it in file order (rough
 * surfaces drawn, water and grass materials made); then each box's cells
 * (fractals.h), which src/model/geometry3d.c paints at the box's place. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fractals.h"
#include "log.h"
#include "scene_internal.h"

enum { MIX_PEPLINSKI, MIX_RANGE, MIX_LIST };
enum { MOD_ROUGH, MOD_WATER, MOD_GRASS };

typedef struct mix_model {
  int kind, line;
  char id[64];
  double v[8];       /* Peplinski: S C rho_b rho_s mu_lo mu_hi; range: er se mr sm (lower, upper) */
  char (*names)[64]; /* list */
  int nnames;
  int *matid; /* gprMax's matID: grows with each box that uses the model */
  int nmatid;
} mix_model;

typedef struct fr_box {
  int line, obj; /* the command's line; its index in objs3 */
  int64_t lo[3], hi[3];
  double dim, w[3];
  int nbins, averaging;
  int single; /* a material (not a mixing model): its number */
  char mix[64], id[64];
  uint64_t seed;
  /* made by the first pass */
  gs_fbox fb;
  gs_fsurface *surf;
  int nsurf;
} fr_box;

typedef struct fr_mod {
  int kind, line;
  int64_t lo[3], hi[3]; /* the face's cells */
  int axis;             /* the face's normal */
  double dim, w[2], lim[2], depth;
  int64_t limc[2], fill; /* the limits and the water's depth in cells along the normal */
  int64_t nblades;
  char box[64];
  uint64_t seed;
} fr_mod;

struct gs_fractal_set {
  mix_model *models;
  int nmodels;
  fr_box *boxes;
  int nboxes;
  fr_mod *mods;
  int nmods;
  gs_obj3_fractal *built; /* one per box, what objs3 points to */
};

static gs_fractal_set *set_of(gs_scene *s) {
  if (!s->fractals) s->fractals = gs_xcalloc(1, sizeof *s->fractals);
  return s->fractals;
}

static int only_3d(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D)
    return gs_perr(p, "#%s: heterogeneous soils are implemented for 3D models only (gprMax's soils are dispersive)",
                   c->name);
  return 0;
}

static int new_model(gs_parser *p, const gs_command_call *c, int kind, mix_model *m) {
  gs_fractal_set *f = set_of(p->s);
  memset(m, 0, sizeof *m);
  m->kind = kind;
  m->line = p->line;
  if (gs_copy_name(p, m->id, sizeof m->id, c->arg[c->nargs - 1], c->name)) return -1;
  for (int k = 0; k < f->nmodels; ++k)
    if (!strcmp(f->models[k].id, m->id)) return gs_perr(p, "#%s: with ID %s already exists", c->name, m->id);
  return 0;
}

static void add_model(gs_parser *p, const mix_model *m) {
  gs_fractal_set *f = set_of(p->s);
  GS_SCENE_GROW(f->models, f->nmodels);
  f->models[f->nmodels++] = *m;
}

/* #soil_peplinski: S C bulk_density sand_density water_lower water_upper ID */
int gs_cmd_soil_peplinski(gs_parser *p, const gs_command_call *c) {
  static const char *const what[] = {"sand fraction",         "clay fraction",        "bulk density",
                                     "sand particle density", "lower water fraction", "upper water fraction"};
  mix_model m;
  if (new_model(p, c, MIX_PEPLINSKI, &m) || gs_parse_args(p, c, 0, 6, m.v)) return -1;
  for (int k = 0; k < 6; ++k)
    if (m.v[k] < 0) return gs_perr(p, "#soil_peplinski: requires a positive value for the %s", what[k]);
  if (!(m.v[3] > 0)) return gs_perr(p, "#soil_peplinski: the sand particle density must be > 0");
  add_model(p, &m);
  return 0;
}

/* #material_range: er_lo er_hi se_lo se_hi mr_lo mr_hi sm_lo sm_hi ID */
int gs_cmd_material_range(gs_parser *p, const gs_command_call *c) {
  mix_model m;
  double v[8];
  if (new_model(p, c, MIX_RANGE, &m) || gs_parse_args(p, c, 0, 8, v)) return -1;
  for (int k = 0; k < 4; ++k) { /* kept as (lower, upper) of er, se, mr, sm */
    m.v[2 * k] = v[2 * k];
    m.v[2 * k + 1] = v[2 * k + 1];
  }
  if (v[0] < 1 || v[1] < 1 || v[4] < 1 || v[5] < 1)
    return gs_perr(p, "#material_range: relative permittivity and permeability must be >= 1");
  if (v[2] < 0 || v[3] < 0 || v[6] < 0 || v[7] < 0)
    return gs_perr(p, "#material_range: conductivity and magnetic loss must be >= 0");
  add_model(p, &m);
  return 0;
}

/* #material_list: material [material ...] ID */
int gs_cmd_material_list(gs_parser *p, const gs_command_call *c) {
  mix_model m;
  if (new_model(p, c, MIX_LIST, &m)) return -1;
  m.nnames = c->nargs - 1;
  m.names = gs_xcalloc((size_t)m.nnames, sizeof *m.names);
  for (int k = 0; k < m.nnames; ++k)
    if (gs_copy_name(p, m.names[k], sizeof m.names[k], c->arg[k], c->name)) {
      free(m.names);
      return -1;
    }
  add_model(p, &m);
  return 0;
}

/* Two corners as gprMax checks an object's bounds (gs_corner_cells; gprMax
 * words the same point as reversed corners here). */
static int corners(gs_parser *p, const gs_command_call *c, const double v[6], int64_t lo[3], int64_t hi[3]) {
  return gs_corner_cells(p, c, v, lo, hi, "the lower coordinates should be less than the upper coordinates");
}

/* A seed as Python's int() reads it (digits, an optional +), for numpy: 0 .. 2^64 - 1. */
static int parse_seed(gs_parser *p, const gs_command_call *c, const char *tok, uint64_t *seed) {
  const char *q = tok + (*tok == '+');
  uint64_t v = 0;
  if (!*q) return gs_perr(p, "#%s: seed '%s' is not a whole number >= 0", c->name, tok);
  for (; *q; ++q) {
    if (*q < '0' || *q > '9' || v > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
      return gs_perr(p, "#%s: seed '%s' is not a whole number in 0 .. 2^64 - 1", c->name, tok);
    v = v * 10 + (uint64_t)(*q - '0');
  }
  *seed = v;
  return 0;
}

/* No seed: gprMax draws one from the system (a new realisation every run);
 * here one from the scene's text and the line, the same on every rank and run. */
static uint64_t default_seed(gs_parser *p, const gs_command_call *c) {
  if (gs_error_rank() == 0)
    gs_log_warn("%s:%d: #%s: no seed: gprMax draws a new realisation every run; gpustencil draws one from the input "
                "file's text (the same every run)",
                p->file, p->line, c->name);
  return (uint32_t)((p->s->hash ^ (uint64_t)p->line * 0x9E3779B97F4A7C15ull) >> 32); /* RandomState's range too */
}

/* #fractal_box: x1 y1 z1 x2 y2 z2 D wx wy wz n_materials mixing_model ID [seed [y|n]] */
int gs_cmd_fractal_box(gs_parser *p, const gs_command_call *c) {
  fr_box b = {.line = p->line};
  double v[11];
  if (only_3d(p, c) || gs_parse_args(p, c, 0, 11, v) || corners(p, c, v, b.lo, b.hi)) return -1;
  b.dim = v[6];
  memcpy(b.w, v + 7, sizeof b.w);
  if (b.dim < 0) return gs_perr(p, "#fractal_box: requires a positive value for the fractal dimension");
  for (int k = 0; k < 3; ++k)
    if (b.w[k] < 0)
      return gs_perr(p, "#fractal_box: requires a positive value for the fractal weighting in the %c direction",
                     "xyz"[k]);
  const int64_t nbins = gs_round_cells(v[10]); /* gprMax's round_value: half toward zero */
  if (nbins < 1 || nbins > 65535) return gs_perr(p, "#fractal_box: the number of materials must be 1 to 65535");
  b.nbins = (int)nbins;
  if (gs_copy_name(p, b.mix, sizeof b.mix, c->arg[11], c->name) ||
      gs_copy_name(p, b.id, sizeof b.id, c->arg[12], c->name))
    return -1;
  if (c->nargs > 13) {
    if (parse_seed(p, c, c->arg[13], &b.seed)) return -1;
  } else {
    b.seed = default_seed(p, c);
  }
  b.averaging = 0; /* gprMax's default for a fractal box: no dielectric smoothing */
  if (c->nargs > 14 && gs_parse_averaging(p, c, 14, &b.averaging)) return -1;
  gs_scene *s = p->s;
  if (s->nobjs3 >= 1000000) return gs_perr(p, "#fractal_box: more than 10^6 objects");
  gs_obj3 o = {.type = GS_O3_FRACTAL, .material = 1, .averaging = b.averaging, .line = p->line};
  s->objs3 = gs_xrealloc(s->objs3, sizeof *s->objs3 * (size_t)(s->nobjs3 + 1));
  b.obj = s->nobjs3;
  s->objs3[s->nobjs3++] = o;
  gs_fractal_set *f = set_of(s);
  GS_SCENE_GROW(f->boxes, f->nboxes);
  f->boxes[f->nboxes++] = b;
  return 0;
}

/* The face two corners describe: exactly one axis with equal cells. */
static int face_axis(gs_parser *p, const gs_command_call *c, const fr_mod *m) {
  const int axis = gs_corners_single_axis(m->lo, m->hi, 0);
  if (axis < 0) return gs_perr(p, "#%s: dimensions are not specified correctly", c->name);
  return axis;
}

static int new_mod(gs_parser *p, const gs_command_call *c, int kind, fr_mod *m) {
  memset(m, 0, sizeof *m);
  m->kind = kind;
  m->line = p->line;
  double v[6];
  if (only_3d(p, c) || gs_parse_args(p, c, 0, 6, v) || corners(p, c, v, m->lo, m->hi)) return -1;
  if ((m->axis = face_axis(p, c, m)) < 0) return -1;
  return 0;
}

static void add_mod(gs_parser *p, const fr_mod *m) {
  gs_fractal_set *f = set_of(p->s);
  GS_SCENE_GROW(f->mods, f->nmods);
  f->mods[f->nmods++] = *m;
}

/* #add_surface_roughness: x1 y1 z1 x2 y2 z2 D w1 w2 limit_lo limit_hi fractal_box_ID [seed] */
int gs_cmd_add_surface_roughness(gs_parser *p, const gs_command_call *c) {
  fr_mod m;
  double v[5];
  if (new_mod(p, c, MOD_ROUGH, &m) || gs_parse_args(p, c, 6, 5, v)) return -1;
  m.dim = v[0];
  m.w[0] = v[1], m.w[1] = v[2], m.lim[0] = v[3], m.lim[1] = v[4];
  if (m.dim < 0) return gs_perr(p, "#%s: requires a positive value for the fractal dimension", c->name);
  if (m.w[0] < 0 || m.w[1] < 0) return gs_perr(p, "#%s: requires positive values for the fractal weightings", c->name);
  for (int k = 0; k < 2; ++k)
    m.limc[k] = gs_round_cells(m.lim[k] / p->d[m.axis]);
  if (gs_copy_name(p, m.box, sizeof m.box, c->arg[11], c->name)) return -1;
  if (c->nargs > 12 ? parse_seed(p, c, c->arg[12], &m.seed) : (m.seed = default_seed(p, c), 0)) return -1;
  add_mod(p, &m);
  return 0;
}

/* #add_surface_water: x1 y1 z1 x2 y2 z2 depth fractal_box_ID */
int gs_cmd_add_surface_water(gs_parser *p, const gs_command_call *c) {
  fr_mod m;
  if (new_mod(p, c, MOD_WATER, &m) || gs_parse_args(p, c, 6, 1, &m.depth)) return -1;
  if (!(m.depth > 0)) return gs_perr(p, "#%s: requires a positive value for the depth of water", c->name);
  m.fill = gs_round_cells(m.depth / p->d[m.axis]);
  if (gs_copy_name(p, m.box, sizeof m.box, c->arg[7], c->name)) return -1;
  add_mod(p, &m);
  return 0;
}

/* #add_grass: x1 y1 z1 x2 y2 z2 D limit_lo limit_hi n_blades fractal_box_ID [seed] */
int gs_cmd_add_grass(gs_parser *p, const gs_command_call *c) {
  fr_mod m;
  double v[3];
  if (new_mod(p, c, MOD_GRASS, &m) || gs_parse_args(p, c, 6, 3, v)) return -1;
  m.dim = v[0];
  m.lim[0] = v[1], m.lim[1] = v[2];
  m.w[0] = m.w[1] = 1; /* gprMax's FractalSurface default weighting */
  if (m.dim < 0) return gs_perr(p, "#%s: requires a positive value for the fractal dimension", c->name);
  if (m.lim[0] < 0 || m.lim[1] < 0)
    return gs_perr(p, "#%s: requires a positive value for the minimum and maximum heights for grass blades", c->name);
  for (int k = 0; k < 2; ++k)
    m.limc[k] = gs_round_cells(m.lim[k] / p->d[m.axis]);
  char *end;
  long long nb = strtoll(c->arg[9], &end, 10);
  if (*end || end == c->arg[9] || nb < 0 || nb > 100000000)
    return gs_perr(p, "#%s: '%s' is not a number of blades (0 to 10^8)", c->name, c->arg[9]);
  m.nblades = nb;
  if (gs_copy_name(p, m.box, sizeof m.box, c->arg[10], c->name)) return -1;
  if (c->nargs > 11 ? parse_seed(p, c, c->arg[11], &m.seed) : (m.seed = default_seed(p, c), 0)) return -1;
  if (m.seed > UINT32_MAX)
    return gs_perr(p, "#%s: seed must be between 0 and 2**32 - 1 (numpy's RandomState)", c->name);
  add_mod(p, &m);
  return 0;
}

/* ---- materials (gprMax's materials.py) ---- */

/* pow() as Python and numpy call it: a volatile exponent keeps the compiler
 * from rewriting x**2 as x * x (glibc's pow need not round it the same). */
static double py_pow(double x, double y) {
  volatile double e = y;
  return pow(x, e);
}

/* calculate_water_properties(T = 25, S = 0): eri, er (static), tau, sigma. */
static void water_properties(double *eri, double *er, double *tau, double *sig) {
  const double T = 25;
  *eri = 4.9;
  *er = 88.045 - 0.4147 * T + 6.295e-4 * py_pow(T, 2) + 1.075e-5 * py_pow(T, 3);
  *tau = (1 / (2 * GS_PI)) * (1.1109e-10 - 3.824e-12 * T + 6.938e-14 * py_pow(T, 2) - 5.096e-16 * py_pow(T, 3));
  *sig = 0; /* S = 0: 0 * exp(0) */
}

/* np.linspace(a, b, n + 1), midpoints of its bins (numpy's float64 formula). */
static void bin_midpoints(double a, double b, int n, double *mid) {
  double *edge = gs_xmalloc(sizeof *edge * (size_t)(n + 1));
  const double delta = b - a, step = delta / n;
  for (int k = 0; k <= n; ++k)
    edge[k] = (step == 0 ? (double)k / n * delta : (double)k * step) + a;
  edge[n] = b;
  for (int k = 0; k < n; ++k)
    mid[k] = 0.5 * (edge[k + 1] + edge[k]);
  free(edge);
}

static int add_material(gs_scene *s, const char *name, double er, double se, double mr, double sm) {
  s->materials = gs_xrealloc(s->materials, sizeof *s->materials * (size_t)(s->nmaterials + 1));
  gs_material *m = &s->materials[s->nmaterials];
  *m = (gs_material){.er = er, .sigma = se, .mr = mr, .sm = sm, .pec = isinf(se)};
  snprintf(m->name, sizeof m->name, "%s", name);
  return s->nmaterials++;
}

/* A one-pole Debye material (gprMax's DispersiveMaterial). */
static int add_debye(gs_scene *s, const char *name, double eri, double se, double deltaer, double tau, int line) {
  int k = add_material(s, name, eri, se, 1, 0);
  gs_dispersion d = {.material = k, .line = line, .npoles = 1, .kind = GS_DISP_DEBYE};
  snprintf(d.name, sizeof d.name, "%s", name);
  d.deltaer[0] = deltaer;
  d.tau[0] = tau;
  s->disps = gs_xrealloc(s->disps, sizeof *s->disps * (size_t)(s->ndisps + 1));
  s->disps[s->ndisps++] = d;
  return k;
}

/* gprMax's name of a mixing model's material: |er+se+mr+sm| with 4 decimals. */
static void mix_name(char *out, size_t len, double er, double se, double mr, double sm) {
  snprintf(out, len, "|%.4f+%.4f+%.4f+%.4f|", er, se, mr, sm);
}

/* scene index -> gprMax's number (pec 0, free_space 1: the scene has them the other way) */
static int gprmax_number(int k) {
  return k == 0 ? 1 : k == 1 ? 0 : k;
}

static void push_matid(mix_model *m, int k) {
  m->matid = gs_xrealloc(m->matid, sizeof *m->matid * (size_t)(m->nmatid + 1));
  m->matid[m->nmatid++] = gprmax_number(k);
}

/* PeplinskiSoil.calculate_properties: nbins Debye materials from the water fractions' bin midpoints. */
static int peplinski(gs_scene *s, mix_model *m, int nbins, int line, char *err, size_t errlen) {
  const double S = m->v[0], C = m->v[1], rb = m->v[2], rs = m->v[3];
  double weri, wer, wtau, wsig;
  water_properties(&weri, &wer, &wtau, &wsig);
  const double w = 2 * GS_PI * 1.3e9, wdelta = wer - weri;
  const double erealw = weri + (wdelta / (1 + py_pow(w * wtau, 2)));
  const double a = 0.65, es = py_pow(1.01 + 0.44 * rs, 2) - 0.062;
  const double b1 = 1.2748 - 0.519 * S - 0.152 * C, b2 = 1.33797 - 0.603 * S - 0.166 * C;
  const double sigf = 0.0467 + 0.2204 * rb - 0.411 * S + 0.6614 * C;
  double *mu = gs_xmalloc(sizeof *mu * (size_t)nbins);
  bin_midpoints(m->v[4], m->v[5], nbins, mu);
  int bad = 0;
  for (int k = 0; k < nbins && !bad; ++k) {
    double er = py_pow(1 + (rb / rs) * (py_pow(es, a) - 1) + (py_pow(mu[k], b1) * py_pow(erealw, a)) - mu[k], 1 / a);
    er = 1.15 * er - 0.68;
    const double eri = er - (py_pow(mu[k], b2 / a) * wdelta);
    const double sig = py_pow(mu[k], b2 / a) * ((sigf * (rs - rb)) / (rs * mu[k]));
    if (!isfinite(er) || !isfinite(eri) || !isfinite(sig)) {
      bad = snprintf(err, errlen, "%s:%d: #soil_peplinski %s: water fraction %g gives no material (er %g, sigma %g)",
                     s->path, m->line, m->id, mu[k], eri, sig);
      break;
    }
    char name[160];
    mix_name(name, sizeof name, eri, sig, 1, 0);
    push_matid(m, add_debye(s, name, eri, sig, er - eri, wtau, line));
  }
  free(mu);
  return bad ? -1 : 0;
}

/* RangeMaterial.calculate_properties, with its quirk: an existing material of
 * the same name is reused only for the first bin (later ones add no entry). */
static void material_range(gs_scene *s, mix_model *m, int nbins) {
  double *mid = gs_xmalloc(sizeof *mid * 4 * (size_t)nbins);
  for (int q = 0; q < 4; ++q)
    bin_midpoints(m->v[2 * q], m->v[2 * q + 1], nbins, mid + (size_t)q * (size_t)nbins);
  for (int k = 0; k < nbins; ++k) {
    const double er = mid[k], se = mid[nbins + k], mr = mid[2 * nbins + k], sm = mid[3 * nbins + k];
    char name[160];
    mix_name(name, sizeof name, er, se, mr, sm);
    int have = gs_find_material(s, name);
    if (k == 0 && have >= 0) push_matid(m, have);
    if (have < 0) push_matid(m, add_material(s, name, er, se, mr, sm));
  }
  free(mid);
}

/* ---- building (gprMax's two passes over the geometry) ---- */

/* One line into err; -1. */
__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static mix_model *find_model(gs_fractal_set *f, const char *id) {
  for (int k = 0; k < f->nmodels; ++k)
    if (!strcmp(f->models[k].id, id)) return &f->models[k];
  return NULL;
}

/* FractalBox.pre_build: the mixing model's materials for this box's bins. */
static int prebuild_box(gs_scene *s, gs_fractal_set *f, fr_box *b, char *err, size_t errlen) {
  mix_model *m = find_model(f, b->mix);
  const char *P = s->path;
  b->fb = (gs_fbox){.dimension = b->dim, .seed = b->seed, .nbins = b->nbins};
  memcpy(b->fb.ostart, b->lo, sizeof b->lo);
  memcpy(b->fb.ostop, b->hi, sizeof b->hi);
  memcpy(b->fb.weighting, b->w, sizeof b->w);
  if (!m) {
    const int k = gs_find_material(s, b->mix);
    if (k < 0)
      return fail(err, errlen, "%s:%d: #fractal_box: mixing model or material with ID %s does not exist", P, b->line,
                  b->mix);
    if (b->nbins != 1)
      return fail(err, errlen,
                  "%s:%d: #fractal_box: '%s' is a material, not a mixing model: it takes 1 material (gprMax fails "
                  "with %d)",
                  P, b->line, b->mix, b->nbins);
    b->single = gprmax_number(k);
    return 0;
  }
  if (b->nbins == 1)
    return fail(err, errlen, "%s:%d: #fractal_box: must be used with more than one material from the mixing model", P,
                b->line);
  if (m->kind == MIX_LIST && b->nbins > m->nnames)
    return fail(err, errlen,
                "%s:%d: #fractal_box: too many materials/bins requested compared to materials in mixing model", P,
                b->line);
  if (m->kind == MIX_PEPLINSKI) return peplinski(s, m, b->nbins, b->line, err, errlen);
  if (m->kind == MIX_RANGE) {
    material_range(s, m, b->nbins);
    return 0;
  }
  for (int q = 0; q < b->nbins; ++q) {
    const int k = gs_find_material(s, m->names[q]);
    if (k < 0)
      return fail(err, errlen, "%s:%d: #material_list %s: material %s does not exist", P, m->line, m->id, m->names[q]);
    push_matid(m, k);
  }
  return 0;
}

static gs_fsurface *new_surface(fr_box *t) {
  t->surf = gs_xrealloc(t->surf, sizeof *t->surf * (size_t)(t->nsurf + 1));
  gs_fsurface *x = &t->surf[t->nsurf++];
  memset(x, 0, sizeof *x);
  return x;
}

static int axis_name(int a) {
  return 'x' + a;
}

static const char *side_name(int axis, int plus) {
  static const char *const names[] = {"xminus", "yminus", "zminus", "xplus", "yplus", "zplus"};
  return names[axis + 3 * (plus != 0)];
}

/* Which face of box t the modifier's corners lie on: 0 the lower, 1 the upper, -1 neither. */
static int face_of(const fr_box *t, const fr_mod *m) {
  const int a = m->axis;
  return m->lo[a] == t->lo[a] ? 0 : m->hi[a] == t->hi[a] ? 1 : -1;
}

static void face_dims(const fr_mod *m, int64_t d[2]) {
  const int u = m->axis == 0 ? 1 : 0, w = m->axis == 2 ? 1 : 2;
  d[0] = m->hi[u] - m->lo[u];
  d[1] = m->hi[w] - m->lo[w];
}

/* AddSurfaceRoughness.build: the surface's range, its checks, the surface drawn now. */
static int add_roughness(const gs_scene *s, fr_box *t, const fr_mod *m, char *err, size_t errlen) {
  const int a = m->axis, plus = face_of(t, m);
  const int64_t n[3] = {s->nx, s->ny, s->nz};
  if (plus < 0)
    return fail(err, errlen,
                "%s:%d: #add_surface_roughness: can only be used on the external surfaces of a fractal box", s->path,
                m->line);
  int64_t lower[3], upper[3], range[2], bound = m->limc[plus ? 1 : 0];
  memcpy(lower, m->lo, sizeof lower);
  memcpy(upper, m->hi, sizeof upper);
  if (plus)
    lower[a] = m->limc[0], range[0] = lower[a], range[1] = bound;
  else
    upper[a] = m->limc[1], range[0] = bound, range[1] = upper[a];
  for (int k = 0; k < 3; ++k)
    if (lower[k] < t->lo[k])
      return fail(err, errlen, "%s:%d: #add_surface_roughness: would exceed the lower coordinates of the fractal box",
                  s->path, m->line);
  for (int k = 0; k < 3; ++k)
    if (upper[k] > t->hi[k])
      return fail(err, errlen, "%s:%d: #add_surface_roughness: would exceed the upper coordinates of the fractal box",
                  s->path, m->line);
  if (bound < 0 || bound > n[a])
    return fail(err, errlen, "%s:%d: #add_surface_roughness: %c-coordinate %g is not within the model domain", s->path,
                m->line, axis_name(a), m->lim[plus ? 1 : 0]);
  for (int q = 0; q < t->nsurf; ++q)
    if (t->surf[q].axis == a && t->surf[q].plus == plus)
      return fail(err, errlen, "%s:%d: #add_surface_roughness: has already been used on the %s surface", s->path,
                  m->line, side_name(a, plus));
  int64_t d[2];
  face_dims(m, d);
  float *h = malloc(sizeof *h * (size_t)(d[0] * d[1]));
  gs_status st = h ? gs_fractal_surface(d, m->dim, m->w, m->seed, range[0], range[1], h) : GS_ERR_NOMEM;
  if (st != GS_OK) {
    free(h);
    return fail(err, errlen, "%s:%d: #add_surface_roughness: %s", s->path, m->line,
                st == GS_ERR_NOMEM ? "out of memory" : "the surface is flat (gprMax divides by its zero range)");
  }
  gs_fsurface *x = new_surface(t);
  *x = (gs_fsurface){.axis = a, .plus = plus, .range = {range[0], range[1]}, .height = h};
  memcpy(x->lo, m->lo, sizeof x->lo);
  memcpy(x->hi, m->hi, sizeof x->hi);
  return 0;
}

/* The material named `name` (gprMax looks water and grass up by name) or a
 * new Debye one; refused when its relaxation time is below dt, as gprMax does. */
static int debye_material(gs_scene *s, const char *cmd, int line, const char *name, double eri, double deltaer,
                          double tau, char *err, size_t errlen) {
  int k = gs_find_material(s, name);
  if (k < 0) k = add_debye(s, name, eri, 0, deltaer, tau, line);
  const int e = gs_scene_dispersion_of(s, k);
  if (e < 0 || s->disps[e].kind != GS_DISP_DEBYE)
    return fail(err, errlen, "%s:%d: #%s: material '%s' is not a Debye material (gprMax fails on it)", s->path, line,
                cmd, name);
  for (int q = 0; q < s->disps[e].npoles; ++q)
    if (s->disps[e].tau[q] < s->dt)
      return fail(err, errlen,
                  "%s:%d: #%s: requires the time step for the model to be less than the relaxation time required "
                  "to model %s",
                  s->path, line, cmd, name);
  return 0;
}

/* AddSurfaceWater.build: the depth on the face's rough surface, the water material. */
static int add_water(gs_scene *s, fr_box *t, const fr_mod *m, char *err, size_t errlen) {
  const int plus = face_of(t, m);
  if (plus < 0)
    return fail(err, errlen, "%s:%d: #add_surface_water: can only be used on the external surfaces of a fractal box",
                s->path, m->line);
  gs_fsurface *x = NULL;
  for (int q = 0; q < t->nsurf && !x; ++q)
    if (t->surf[q].axis == m->axis && t->surf[q].plus == plus) x = &t->surf[q];
  if (!x)
    return fail(err, errlen, "%s:%d: #add_surface_water: specified surface %s does not have a rough surface applied",
                s->path, m->line, side_name(m->axis, plus));
  x->filldepth = m->fill;
  if (x->filldepth < x->range[0] || x->filldepth > x->range[1])
    return fail(err, errlen,
                "%s:%d: #add_surface_water: requires a value for the depth of water that lies with the range of the "
                "requested surface roughness",
                s->path, m->line);
  double eri, er, tau, sig;
  water_properties(&eri, &er, &tau, &sig);
  return debye_material(s, "add_surface_water", m->line, "water", eri, er - eri, tau, err, errlen);
}

/* AddGrass.build: blades on an upper face, their heights from a fractal distribution. */
static int add_grass(gs_scene *s, fr_box *t, const fr_mod *m, char *err, size_t errlen) {
  const int a = m->axis, plus = face_of(t, m);
  const int64_t n[3] = {s->nx, s->ny, s->nz};
  if (plus == 0)
    return fail(err, errlen,
                "%s:%d: #add_grass: grass can only be specified on surfaces in the positive axis direction", s->path,
                m->line);
  if (plus < 0)
    return fail(err, errlen, "%s:%d: #add_grass: must specify external surfaces on a fractal box", s->path, m->line);
  if (m->limc[1] < 0 || m->limc[1] > n[a])
    return fail(err, errlen, "%s:%d: #add_grass: %c-coordinate %g is not within the model domain", s->path, m->line,
                axis_name(a), m->lim[1]);
  for (int k = 0; k < 3; ++k) /* gprMax does not check this, and then reads its mask outside the box */
    if (k != a && (m->lo[k] < t->lo[k] || m->hi[k] > t->hi[k]))
      return fail(err, errlen,
                  "%s:%d: #add_grass: the face reaches past the fractal box (gprMax then indexes outside its mask)",
                  s->path, m->line);
  int64_t d[2];
  face_dims(m, d);
  gs_grass *g = gs_xcalloc(1, sizeof *g);
  double *h = malloc(sizeof *h * (size_t)(d[0] * d[1]));
  char why[200] = "out of memory";
  int rc = h && !gs_grass_init(g, m->nblades, m->seed) ? 0 : -1;
  if (!rc) rc = gs_grass_heights(d, m->dim, m->w, m->seed, m->nblades, m->limc[0], m->limc[1], h, why, sizeof why);
  gs_fsurface *x = NULL;
  if (!rc) {
    x = new_surface(t);
    *x = (gs_fsurface){.axis = a, .plus = 1, .range = {m->limc[0], m->limc[1]}, .blades = h, .grass = g};
    memcpy(x->lo, m->lo, sizeof x->lo);
    memcpy(x->hi, m->hi, sizeof x->hi);
  } else {
    free(h);
    gs_grass_free(g);
    free(g);
    return fail(err, errlen, "%s:%d: #add_grass: %s", s->path, m->line, why);
  }
  /* Properties of grass from gprMax (http://dx.doi.org/10.1007/BF00902994) */
  return debye_material(s, "add_grass", m->line, "grass", 12.7174, 18.5087 - 12.7174, 1.0793e-11, err, errlen);
}

/* The first box with that ID among the first `upto` + 1 (gprMax's list of
 * fractal volumes so far), or NULL. */
static fr_box *target_box(gs_fractal_set *f, int upto, const char *id) {
  for (int k = 0; k <= upto; ++k)
    if (!strcmp(f->boxes[k].id, id)) return &f->boxes[k];
  return NULL;
}

/* gprMax's first pass: each box's materials, then the modifiers naming its
 * ID (in file order), applied to the first box of that ID. */
static int first_pass(gs_scene *s, gs_fractal_set *f, char *err, size_t errlen) {
  for (int k = 0; k < f->nboxes; ++k) {
    if (prebuild_box(s, f, &f->boxes[k], err, errlen)) return -1;
    for (int q = 0; q < f->nmods; ++q) {
      const fr_mod *m = &f->mods[q];
      if (strcmp(m->box, f->boxes[k].id)) continue;
      fr_box *t = target_box(f, k, m->box);
      int rc = m->kind == MOD_ROUGH   ? add_roughness(s, t, m, err, errlen)
               : m->kind == MOD_WATER ? add_water(s, t, m, err, errlen)
                                      : add_grass(s, t, m, err, errlen);
      if (rc) return -1;
    }
  }
  return 0;
}

/* The cells of a box extended to its surfaces' ranges. */
static double volume_cells(const fr_box *b) {
  double cells = 1;
  for (int a = 0; a < 3; ++a) {
    int64_t lo = b->lo[a], hi = b->hi[a];
    for (int q = 0; q < b->nsurf; ++q)
      if (b->surf[q].axis == a) {
        lo = b->surf[q].range[0] < lo ? b->surf[q].range[0] : lo;
        hi = b->surf[q].range[1] > hi ? b->surf[q].range[1] : hi;
      }
    cells *= (double)(hi - lo);
  }
  return cells;
}

/* The second pass: each box's cells, for geometry3d.c to paint at the box's place. */
static int second_pass(gs_scene *s, gs_fractal_set *f, double host_bytes, char *err, size_t errlen) {
  const int64_t n[3] = {s->nx, s->ny, s->nz};
  const int water = gs_find_material(s, "water"), grass = gs_find_material(s, "grass");
  f->built = gs_xcalloc((size_t)f->nboxes, sizeof *f->built);
  for (int k = 0; k < f->nboxes; ++k) {
    fr_box *b = &f->boxes[k];
    const mix_model *m = find_model(f, b->mix);
    if (b->nsurf == 0 && b->nbins == 1)
      return fail(err, errlen,
                  "%s:%d: #fractal_box: is being used with a single material and no modifications, therefore please "
                  "use a #box command instead",
                  s->path, b->line);
    b->fb.material = m ? m->matid : &b->single;
    b->fb.nmaterial = m ? m->nmatid : 1;
    if (volume_cells(b) * 27 > host_bytes && host_bytes > 0) /* FFT, field, bins, materials, mask */
      return fail(err, errlen,
                  "%s:%d: #fractal_box: its fractal (%.3g cells) needs more host memory than this rank has", s->path,
                  b->line, volume_cells(b));
    gs_fbox_cells c;
    char why[200] = "";
    gs_status st = gs_fbox_build(&b->fb, b->surf, b->nsurf, n, &c, why, sizeof why);
    if (st != GS_OK) return fail(err, errlen, "%s:%d: #fractal_box: %s", s->path, b->line, why);
    gs_obj3_fractal *o = &f->built[k];
    memcpy(o->start, c.start, sizeof o->start);
    memcpy(o->size, c.size, sizeof o->size);
    o->data = c.data;
    o->mask = c.mask;
    o->water = water >= 0 ? gprmax_number(water) : 0; /* gprMax: numID 0 when there is none */
    o->grass = grass >= 0 ? gprmax_number(grass) : 0;
    s->objs3[b->obj].fractal = o;
  }
  return 0;
}

int gs_scene_resolve_fractals(gs_scene *s, double host_bytes, char *err, size_t errlen) {
  gs_fractal_set *f = s->fractals;
  if (!f || f->nboxes == 0) return 0;
  if (first_pass(s, f, err, errlen) || second_pass(s, f, host_bytes, err, errlen)) return -1;
  return 0;
}

void gs_scene_free_fractals(gs_scene *s) {
  gs_fractal_set *f = s->fractals;
  if (!f) return;
  for (int k = 0; k < f->nmodels; ++k) {
    free(f->models[k].names);
    free(f->models[k].matid);
  }
  for (int k = 0; k < f->nboxes; ++k) {
    for (int q = 0; q < f->boxes[k].nsurf; ++q) {
      gs_fsurface *x = &f->boxes[k].surf[q];
      free(x->height);
      free(x->blades);
      if (x->grass) gs_grass_free(x->grass);
      free(x->grass);
    }
    free(f->boxes[k].surf);
    if (f->built) {
      free(f->built[k].data);
      free(f->built[k].mask);
    }
  }
  for (int k = 0; k < s->nobjs3; ++k)
    if (s->objs3[k].type == GS_O3_FRACTAL) s->objs3[k].fractal = NULL;
  free(f->models);
  free(f->boxes);
  free(f->mods);
  free(f->built);
  free(f);
  s->fractals = NULL;
}

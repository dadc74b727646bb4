/* #add_dispersion_debye, #add_dispersion_lorentz, #add_dispersion_drude:
 * gprMax's multi-pole dispersion added to materials already defined (gprMax
 * 4's Add*Dispersion; the update is kernels/fdtd3d_disp.h's,
 * docs/gprmax-rules.md section j).
 *
 *   #add_dispersion_debye:   poles de_1 tau_1 ... material [material ...]
 *   #add_dispersion_lorentz: poles de_1 omega_1 delta_1 ... material [material ...]
 *   #add_dispersion_drude:   poles omega_1 alpha_1 ... material [material ...]
 *
 * gprMax processes every #material before any #add_dispersion_*, whatever
 * their order in the file, so the names are resolved once the file is read
 * (gs_scene_resolve_dispersion), with the checks that need dt. Peplinski
 * soils (Debye materials gprMax makes for fractal boxes) are made by
 * src/model/scene_fractals.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scene.h"
#include "scene_internal.h"

static const char *const kind_names[] = {"add_dispersion_debye", "add_dispersion_lorentz", "add_dispersion_drude"};

/* The pole's w and q, which gprMax keeps as float32 (complex64), and their
 * float32 quotient w / q: past FLT_MAX the update gives NaN (a Debye tau of
 * 1e-38 s did; a Drude alpha of 1e-11 with omega 1e9: w / q overflowed).
 * Magnitudes: Debye de / tau, 1 / tau; Drude (2 pi omega)^2 / alpha, alpha;
 * Lorentz (2 pi omega)^2 de / root, |q| = 2 pi omega, where root =
 * sqrt((2 pi omega)^2 - delta^2). */
static int check_pole_range(gs_parser *p, const char *cmd, const gs_dispersion *d, int q) {
  const double de = d->deltaer[q], tau = d->tau[q], a = d->alpha[q];
  const double wp = 2 * GS_PI * tau, wp2 = wp * wp, root = sqrt(wp2 - a * a);
  double w = 0, rate = 0;
  if (d->kind == GS_DISP_DEBYE) w = fabs(de) / tau, rate = 1 / tau;
  if (d->kind == GS_DISP_DRUDE) w = wp2 / a, rate = a;
  if (d->kind == GS_DISP_LORENTZ) w = wp2 * de / root, rate = wp;
  if (!(w <= FLT_MAX && rate <= FLT_MAX && w / rate <= FLT_MAX))
    return gs_perr(p, "#%s: pole %d: its update factors (%g, %g) are beyond float32's range", cmd, q + 1, w,
                   w / rate > w ? w / rate : rate);
  return 0;
}

/* The checks that need no dt: gprMax's tau > 0 for Debye; for Lorentz and
 * Drude, what keeps its coefficients finite (positive frequencies, an
 * underdamped Lorentz pole: gprMax takes sqrt((2 pi omega)^2 - delta^2)). */
static int check_pole(gs_parser *p, const char *cmd, const gs_dispersion *d, int q) {
  if (d->kind == GS_DISP_DEBYE && !(d->tau[q] > 0))
    return gs_perr(p, "#%s: pole %d: relaxation time %g s is not positive", cmd, q + 1, d->tau[q]);
  if (d->kind == GS_DISP_LORENTZ && !(d->deltaer[q] > 0 && d->tau[q] > 0 && d->alpha[q] >= 0))
    return gs_perr(p, "#%s: pole %d: delta_er and omega must be positive, delta not negative", cmd, q + 1);
  if (d->kind == GS_DISP_LORENTZ && !(2 * GS_PI * d->tau[q] > d->alpha[q]))
    return gs_perr(p, "#%s: pole %d: 2 pi omega must exceed delta (an underdamped pole)", cmd, q + 1);
  if (d->kind == GS_DISP_DRUDE && !(d->tau[q] > 0 && d->alpha[q] > 0))
    return gs_perr(p, "#%s: pole %d: omega and alpha must be positive", cmd, q + 1);
  return check_pole_range(p, cmd, d, q);
}

int gs_cmd_add_dispersion(gs_parser *p, const gs_command_call *c) {
  gs_scene *s = p->s;
  gs_dispersion d = {.material = -1, .line = p->line};
  while (d.kind < 2 && strcmp(c->name, kind_names[d.kind]))
    ++d.kind;
  const int per = d.kind == GS_DISP_LORENTZ ? 3 : 2; /* numbers per pole */
  char *end;
  long poles = strtol(c->arg[0], &end, 10);
  if (*end || end == c->arg[0] || poles < 1 || poles > GS_DISP_MAX_POLES)
    return gs_perr(p, "#%s: '%s' is not a number of poles in 1..%d", c->name, c->arg[0], GS_DISP_MAX_POLES);
  d.npoles = (int)poles;
  int first_name = 1 + per * d.npoles;
  if (c->nargs < first_name + 1)
    return gs_perr(p, "#%s: %ld poles need %d numbers (%d per pole) and at least one material", c->name, poles,
                   per * d.npoles, per);
  for (int q = 0; q < d.npoles; ++q) {
    double v[3] = {0, 0, 0};
    if (gs_parse_args(p, c, 1 + per * q, per, v)) return -1;
    if (d.kind == GS_DISP_DRUDE) {
      d.tau[q] = v[0];
      d.alpha[q] = v[1];
    } else {
      d.deltaer[q] = v[0];
      d.tau[q] = v[1];
      d.alpha[q] = v[2];
    }
    if (check_pole(p, c->name, &d, q)) return -1;
  }
  for (int k = first_name; k < c->nargs; ++k) {
    if (gs_copy_name(p, d.name, sizeof d.name, c->arg[k], c->name)) return -1;
    s->disps = gs_xrealloc(s->disps, sizeof *s->disps * (size_t)(s->ndisps + 1));
    s->disps[s->ndisps++] = d;
  }
  return 0;
}

/* gprMax's checks against the time step (Lorentz: omega < 2 pi / dt, delta <
 * 1 / dt, omega != delta; Drude: omega < 2 pi / dt, alpha < 1 / dt). */
static int check_dt(const gs_scene *s, const gs_dispersion *d, char *err, size_t errlen) {
  for (int q = 0; q < d->npoles && d->kind != GS_DISP_DEBYE; ++q) {
    int ok = d->tau[q] < 2.0 * GS_PI / s->dt && d->alpha[q] < 1.0 / s->dt;
    if (d->kind == GS_DISP_LORENTZ) ok = ok && d->tau[q] != d->alpha[q];
    if (!ok) {
      snprintf(err, errlen, "%s:%d: #%s: pole %d: its frequencies must be below 2 pi / dt and 1 / dt (dt %g s)",
               s->path, d->line, kind_names[d->kind], q + 1, s->dt);
      return -1;
    }
  }
  return 0;
}

int gs_scene_resolve_dispersion(gs_scene *s, char *err, size_t errlen) {
  for (int k = 0; k < s->ndisps; ++k) {
    gs_dispersion *d = &s->disps[k];
    const char *cmd = kind_names[d->kind];
    if (s->mode != GS_MODE_3D) {
      snprintf(err, errlen, "%s:%d: #%s: dispersive materials are implemented for 3D models only", s->path, d->line,
               cmd);
      return -1;
    }
    int m = gs_find_material(s, d->name);
    if (m < 0 || s->materials[m].pec || !strcmp(d->name, "free_space")) {
      snprintf(err, errlen, "%s:%d: #%s: '%s' is not a material defined by #material", s->path, d->line, cmd, d->name);
      return -1;
    }
    if (check_dt(s, d, err, errlen)) return -1;
    /* gprMax replaces the material by a dispersive one; a later command replaces it again. */
    for (int q = 0; q < k; ++q)
      if (s->disps[q].material == m) s->disps[q].material = -1;
    d->material = m;
  }
  return 0;
}

int gs_scene_dispersion_of(const gs_scene *s, int material) {
  for (int k = 0; k < s->ndisps; ++k)
    if (s->disps[k].material == material) return k;
  return -1;
}

/* #add_dispersion_debye: gprMax's multi-pole Debye dispersion added to
 * materials already defined (gprMax 4's AddDebyeDispersion; the update is
 * kernels/fdtd3d_disp.h's, docs/gprmax-rules.md "Dispersive materials").
 *
 *   #add_dispersion_debye: poles de_1 tau_1 ... de_poles tau_poles material [material ...]
 *
 * gprMax processes every #material before any #add_dispersion_*, whatever
 * their order in the file, so the names are resolved once the file is read
 * (gs_scene_resolve_dispersion). Lorentz, Drude and Peplinski soils are
 * refused (one line) until they are implemented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scene.h"
#include "scene_internal.h"

int gs_cmd_add_dispersion_debye(gs_parser *p, const gs_command_call *c) {
  gs_scene *s = p->s;
  char *end;
  long poles = strtol(c->arg[0], &end, 10);
  if (*end || end == c->arg[0] || poles < 1 || poles > GS_DISP_MAX_POLES)
    return gs_perr(p, "#%s: '%s' is not a number of poles in 1..%d", c->name, c->arg[0], GS_DISP_MAX_POLES);
  int first_name = 1 + 2 * (int)poles;
  if (c->nargs < first_name + 1)
    return gs_perr(p, "#%s: %ld poles need %d numbers (delta_er tau per pole) and at least one material", c->name,
                   poles, 2 * (int)poles);
  gs_dispersion d = {.material = -1, .line = p->line, .npoles = (int)poles};
  for (int q = 0; q < d.npoles; ++q) {
    if (gs_parse_double(p, c->arg[1 + 2 * q], &d.deltaer[q], c->name) ||
        gs_parse_double(p, c->arg[2 + 2 * q], &d.tau[q], c->name))
      return -1;
    /* gprMax's check (its message speaks of the permittivity difference). */
    if (!(d.tau[q] > 0))
      return gs_perr(p, "#%s: pole %d: relaxation time %g s is not positive", c->name, q + 1, d.tau[q]);
  }
  for (int k = first_name; k < c->nargs; ++k) {
    if (gs_copy_name(p, d.name, sizeof d.name, c->arg[k], c->name)) return -1;
    s->disps = gs_xrealloc(s->disps, sizeof *s->disps * (size_t)(s->ndisps + 1));
    s->disps[s->ndisps++] = d;
  }
  return 0;
}

int gs_cmd_refuse_dispersion(gs_parser *p, const gs_command_call *c) {
  return gs_perr(p, "#%s: not implemented yet (of gprMax's dispersive materials only #add_dispersion_debye is)",
                 c->name);
}

int gs_scene_resolve_dispersion(gs_scene *s, char *err, size_t errlen) {
  for (int k = 0; k < s->ndisps; ++k) {
    gs_dispersion *d = &s->disps[k];
    if (s->mode != GS_MODE_3D) {
      snprintf(err, errlen, "%s:%d: #add_dispersion_debye: dispersive materials are implemented for 3D models only",
               s->path, d->line);
      return -1;
    }
    int m = gs_find_material(s, d->name);
    if (m < 0 || s->materials[m].pec || !strcmp(d->name, "free_space")) {
      snprintf(err, errlen, "%s:%d: #add_dispersion_debye: '%s' is not a material defined by #material", s->path,
               d->line, d->name);
      return -1;
    }
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

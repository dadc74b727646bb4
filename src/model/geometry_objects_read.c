/* gprMax's #geometry_objects_read (scene_internal.h): the command's arguments, then, once the
 * scene is parsed, the geometry objects file and its materials list read into the scene as one
 * array object and its materials (docs/gprmax-rules.md). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "gprmax_out.h"
#include "scene_internal.h"

/* A file named in the input: as given when it exists there, else in the
 * input file's folder (gprMax's rule). */
static void input_path(const gs_parser *p, const char *name, char *out, size_t n) {
  if (name[0] == '/' || access(name, F_OK) == 0)
    snprintf(out, n, "%s", name);
  else
    snprintf(out, n, "%s%s", p->base_dir, name);
}

/* #geometry_objects_read: x y z geometry.h5 materials.txt (3D models). */
int gs_cmd_geometry_objects_read(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#geometry_objects_read: only in 3D models here");
  double v[3];
  gs_geo_read r;
  memset(&r, 0, sizeof r);
  if (gs_parse_args(p, c, 0, 3, v) || gs_point_cells(p, v, r.lo, 1, c->name)) return -1;
  if (strlen(c->arg[3]) > 1000 || strlen(c->arg[4]) > 1000)
    return gs_perr(p, "#geometry_objects_read: a file name of more than 1000 characters");
  input_path(p, c->arg[3], r.geo, sizeof r.geo);
  input_path(p, c->arg[4], r.mat, sizeof r.mat);
  gs_scene_add_input(p->s, r.geo, p->line, c->name);
  gs_scene_add_input(p->s, r.mat, p->line, c->name);
  if (p->s->ngeo_reads >= 100) return gs_perr(p, "#geometry_objects_read: more than 100 files");
  if (p->s->nobjs3 >= 1000000) return gs_perr(p, "#geometry_objects_read: more than 10^6 objects");
  r.obj = p->s->nobjs3;
  r.line = p->line;
  GS_SCENE_GROW(p->s->objs3, p->s->nobjs3);
  p->s->objs3[p->s->nobjs3++] =
      (gs_obj3){.type = GS_O3_ARRAY, .v = {(double)r.lo[0], (double)r.lo[1], (double)r.lo[2]}, .line = p->line};
  GS_SCENE_GROW(p->s->geo_reads, p->s->ngeo_reads);
  p->s->geo_reads[p->s->ngeo_reads++] = r;
  return 0;
}

/* One material line of a materials list: `#material: er se mr sm name`;
 * 0, or -1 with the reason in why. */
static int material_line(char *line, gs_material *m, char *name, size_t nlen, char *why, size_t wlen) {
  char cmd[64], tok[4][64], extra[8];
  int n = sscanf(line, "%63s %63s %63s %63s %63s %159s %7s", cmd, tok[0], tok[1], tok[2], tok[3], name, extra);
  if (strcmp(cmd, "#material:") != 0) {
    snprintf(why, wlen, "'%.40s': only #material lines are read here (dispersive materials are not supported)", cmd);
    return -1;
  }
  /* the numbers as the scene takes them (plain decimals, finite, at most 1e30); sigma may be inf (pec) */
  double er = 0, sigma = 0, mr = 0, sm = -1;
  int inf = n >= 3 && !strcmp(tok[1], "inf");
  int numbers = n >= 5 && !gs_scene_number(tok[0], &er) && (inf || !gs_scene_number(tok[1], &sigma)) &&
                !gs_scene_number(tok[2], &mr) && !gs_scene_number(tok[3], &sm);
  if (n != 6 || !numbers || !(sigma >= 0) || !(er >= 1) || !(mr >= 1) || !(sm >= 0) || strlen(name) >= nlen) {
    snprintf(why, wlen,
             "not '#material: er sigma mu_r sigma_m name' with er, mu_r >= 1, the losses >= 0 (plain decimals up to "
             "1e30; sigma may be inf)");
    return -1;
  }
  *m = (gs_material){.er = er, .sigma = inf ? 0 : sigma, .mr = mr, .sm = sm, .pec = inf};
  return 0;
}

/* The materials list of read r appended to the scene as gprMax imports it:
 * `#` lines (not `##`), each name suffixed with {LIST} (the list's file name
 * without its extension); a leading pec line (and free_space after it), or a
 * leading free_space line, written as gprMax writes them is dropped. *offset:
 * gprMax's numexistmaterials, what the file's numbers are shifted by. */
static int import_materials(gs_scene *s, const gs_geo_read *r, int *offset, char *err, size_t errlen) {
  gs_status st;
  char why[512], line[4096], list[256], prev[4096] = "";
  FILE *f = gs_fopen_regular(r->mat, &st, why, sizeof why);
  if (!f) return snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why), -1;
  gs_skip_utf8_bom(f);
  const char *base = strrchr(r->mat, '/') ? strrchr(r->mat, '/') + 1 : r->mat, *dot = strrchr(base, '.');
  snprintf(list, sizeof list, "%.*s", (int)(dot && dot != base ? dot - base : (ptrdiff_t)strlen(base)), base);
  int existing = s->nmaterials, seen = 0, popped = 0, lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof line, f)) {
    ++lineno;
    size_t n = strlen(line);
    if (n == sizeof line - 1 && line[n - 1] != '\n') {
      bad = snprintf(err, errlen, "%s:%d: a line of more than %zu characters", r->mat, lineno, sizeof line - 2);
      break;
    }
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
      line[--n] = 0;
    if (line[0] != '#' || line[1] == '#' || !n) continue;
    ++seen;
    int is_pec = !strcmp(line, "#material: 1 inf 1 0 pec"), is_free = !strcmp(line, "#material: 1 0 1 0 free_space");
    if ((seen == 1 && (is_pec || is_free)) || (seen == 2 && popped == 1 && is_free && !strcmp(prev, "pec"))) {
      ++popped;
      snprintf(prev, sizeof prev, "%s", is_pec ? "pec" : "free_space");
      continue;
    }
    prev[0] = 0;
    gs_material m;
    char name[160];
    if (material_line(line, &m, name, sizeof name, why, sizeof why)) {
      bad = snprintf(err, errlen, "%s:%d: %s", r->mat, lineno, why);
      break;
    }
    char full[512];
    snprintf(full, sizeof full, "%s{%s}", name, list);
    if (strlen(full) >= sizeof m.name) {
      bad = snprintf(err, errlen, "%s:%d: the name '%s' is longer than %zu characters", r->mat, lineno, full,
                     sizeof m.name - 1);
      break;
    }
    memcpy(m.name, full, strlen(full) + 1);
    if (gs_find_material(s, m.name) >= 0)
      bad = snprintf(err, errlen, "%s:%d: material '%s' is already defined", r->mat, lineno, m.name);
    else if (s->nmaterials >= 200)
      bad = snprintf(err, errlen, "%s:%d: more than 200 materials", r->mat, lineno);
    else {
      GS_SCENE_GROW(s->materials, s->nmaterials);
      s->materials[s->nmaterials++] = m;
    }
  }
  if (!bad && ferror(f)) bad = snprintf(err, errlen, "%s: read error", r->mat);
  if (!bad && !seen) bad = snprintf(err, errlen, "%s: no #material lines", r->mat);
  fclose(f);
  *offset = existing - popped;
  return bad ? -1 : 0;
}

/* The file's arrays as the geometry build takes them. */
static gs_obj3_array *to_array(gs_gpr_geomobj_in *in, int offset) {
  gs_obj3_array *a = gs_xcalloc(1, sizeof *a);
  memcpy(a->size, in->size, sizeof a->size);
  a->data = in->data;
  a->id = in->id;
  a->offset = offset;
  if (in->rigid) {
    size_t n = (size_t)(in->size[0] * in->size[1] * in->size[2]);
    a->rigid = gs_xcalloc(n + 1, sizeof *a->rigid);
    for (int b = 0; b < 18; ++b)
      for (size_t q = 0; q < n; ++q)
        a->rigid[q] |= (uint32_t)(in->rigid[(size_t)b * n + q] != 0) << b;
    free(in->rigid);
  }
  memset(in, 0, sizeof *in);
  return a;
}

static void hash_array(gs_scene *s, const gs_obj3_array *a, int first_material) {
  size_t cells = (size_t)(a->size[0] * a->size[1] * a->size[2]);
  s->hash = gs_fnv1a(s->hash, a->size, sizeof a->size);
  s->hash = gs_fnv1a(s->hash, a->data, cells * sizeof *a->data);
  if (a->rigid) s->hash = gs_fnv1a(s->hash, a->rigid, cells * sizeof *a->rigid);
  if (a->id)
    s->hash =
        gs_fnv1a(s->hash, a->id, 6 * (size_t)((a->size[0] + 1) * (a->size[1] + 1) * (a->size[2] + 1)) * sizeof *a->id);
  for (int k = first_material; k < s->nmaterials; ++k) {
    const gs_material *m = &s->materials[k];
    const double v[4] = {m->er, m->sigma, m->mr, m->sm};
    s->hash = gs_fnv1a(gs_fnv1a(s->hash, m->name, strlen(m->name)), v, sizeof v);
  }
}

/* Bytes array a holds. */
static double array_bytes(const gs_obj3_array *a) {
  const double cells = (double)a->size[0] * (double)a->size[1] * (double)a->size[2];
  const double nodes = (double)(a->size[0] + 1) * (double)(a->size[1] + 1) * (double)(a->size[2] + 1);
  return cells * (double)sizeof *a->data + (a->rigid ? cells * (double)sizeof *a->rigid : 0) +
         (a->id ? 6 * nodes * (double)sizeof *a->id : 0);
}

int gs_scene_resolve_geometry_reads(gs_scene *s, double host_bytes, char *err, size_t errlen) {
  double held = 0; /* bytes the reads before hold */
  for (int k = 0; k < s->ngeo_reads; ++k) {
    const gs_geo_read *r = &s->geo_reads[k];
    int offset, first = s->nmaterials;
    if (import_materials(s, r, &offset, err, errlen)) return -1;
    gs_status st;
    char why[1024];
    FILE *probe = gs_fopen_regular(r->geo, &st, why, sizeof why); /* a FIFO or folder is refused, not opened */
    if (!probe) return snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why), -1;
    fclose(probe);
    gs_gpr_geomobj_in in;
    double cells = (double)s->nx * (double)s->ny * (double)s->nz;
    int64_t most = cells * 8 < 4294967296.0 ? (int64_t)(cells * 8) : (int64_t)4294967296LL;
    /* The file is read before the model's memory check: its own size is weighed against the rank's
     * host memory less what the reads before hold (a few bytes of HDF5 may declare a dataset of
     * 10^9 cells never written; many reads of one small compressed file add up; every rank of the
     * node reads them). */
    if (host_bytes > 0 && held >= host_bytes) {
      snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s: the reads before it hold %.0f MiB, the rank's memory",
               s->path, r->line, r->geo, held / 1048576.0);
      return -1;
    }
    const double room = (host_bytes - held) / GS_GEOMOBJ_READ_BYTES_PER_CELL;
    if (host_bytes > 0 && room < (double)most) most = room >= 1 ? (int64_t)room : 1;
    if (gs_gpr_read_geometry_object(r->geo, most, &in, why, sizeof why) != GS_OK) {
      snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s", s->path, r->line, why);
      return -1;
    }
    if (in.dxdydz[0] != s->dx || in.dxdydz[1] != s->dy || in.dxdydz[2] != s->dz) {
      snprintf(err, errlen, "%s:%d: #geometry_objects_read: %s: its cells (%g x %g x %g m) are not the model's",
               s->path, r->line, r->geo, in.dxdydz[0], in.dxdydz[1], in.dxdydz[2]);
      gs_gpr_geomobj_in_free(&in);
      return -1;
    }
    s->objs3[r->obj].array = to_array(&in, offset);
    hash_array(s, s->objs3[r->obj].array, first);
    held += array_bytes(s->objs3[r->obj].array);
  }
  return 0;
}

void gs_scene_free_geometry_reads(gs_scene *s) {
  for (int k = 0; k < s->ngeo_reads; ++k) {
    int o = s->geo_reads[k].obj;
    if (o >= s->nobjs3 || !s->objs3[o].array) continue;
    gs_obj3_array *a = (gs_obj3_array *)s->objs3[o].array;
    free(a->data);
    free(a->rigid);
    free(a->id);
    free(a);
    s->objs3[o].array = NULL;
  }
}

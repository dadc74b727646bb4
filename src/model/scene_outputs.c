/* #snapshot and #geometry_view (gprMax's output commands): boxes in the
 * file's axes, gprMax's rounding; the files are written by
 * src/outputs/gpr_views.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "scene_internal.h"

/* gprMax's correction of a 3D snapshot's box (Snapshot.build): while the
 * last sampled node lo + step ceil((hi - lo) / step) passes hi, hi moves up
 * to it when it is in the grid; else the step of any axis longer than the
 * box shrinks to the box; else hi drops one step below it. */
static void snapshot_bounds3(const int64_t n[3], const int64_t lo[3], int64_t hi[3], int64_t step[3]) {
  for (int round = 0; round < 8; ++round) {
    int64_t ub[3];
    int past = 0, inside = 1, longer = 0;
    for (int k = 0; k < 3; ++k) {
      int64_t size = hi[k] - lo[k];
      ub[k] = lo[k] + step[k] * ((size + step[k] - 1) / step[k]);
      past |= hi[k] < ub[k];
      inside &= ub[k] <= n[k];
      longer |= step[k] > size;
    }
    if (!past) return;
    for (int k = 0; k < 3; ++k) {
      int64_t size = hi[k] - lo[k];
      if (inside)
        hi[k] = ub[k];
      else if (longer && step[k] > size && size > 0)
        step[k] = size;
      else if (!longer && hi[k] < ub[k])
        hi[k] = ub[k] - step[k];
    }
  }
}

/* The box and sampling of an output command: corners and steps (metres) to
 * cells, as gprMax checks them; cells along each axis = ceil(extent / step),
 * fewer where the last sample would leave the grid. */
static int output_box(gs_parser *p, const gs_command_call *c, const double v[9], int64_t lo[3], int64_t step[3],
                      int64_t size[3], int64_t hi[3]) {
  const int is3d = p->s->mode == GS_MODE_3D, view = !strcmp(c->name, "geometry_view");
  if (gs_point_cells(p, v, lo, 1, c->name) || gs_point_cells(p, v + 3, hi, 1, c->name) ||
      gs_point_cells(p, v + 6, step, 0, c->name))
    return -1;
  for (int k = 0; k < 3; ++k) {
    if (lo[k] > hi[k])
      return gs_perr(p, "#%s: the lower coordinates should be less than the upper coordinates", c->name);
    /* gprMax refuses a step that rounds to less than one cell (it was taken as one here) */
    if (step[k] < 0) return gs_perr(p, "#%s: the step size should not be less than zero", c->name);
    if (step[k] < 1)
      return gs_perr(p, "#%s: the step size should not be less than the spatial discretisation", c->name);
  }
  if (is3d && !view) snapshot_bounds3(p->n, lo, hi, step);
  for (int k = 0; k < 3; ++k) {
    int64_t extent = hi[k] - lo[k];
    size[k] = extent == 0 && !is3d ? 1 : (extent + step[k] - 1) / step[k];
    /* A 2D snapshot samples nodes up to lo + size * step (3D: snapshot_bounds3; a view's cells end before hi). */
    int thin = !is3d && k == p->s->axis[2];
    if (!thin && !is3d && lo[k] + size[k] * step[k] > p->n[k]) size[k] = (p->n[k] - lo[k]) / step[k];
    if (thin) size[k] = step[k] = 1; /* a 2D model has one layer (gprMax clips the step to it) */
    if (size[k] < 1) return gs_perr(p, "#%s: the box holds no whole step on the %c axis", c->name, "xyz"[k]);
    if (is3d && !view && lo[k] + size[k] * step[k] > p->n[k]) /* a safeguard: snapshot_bounds3 keeps it inside */
      return gs_perr(p, "#%s: the samples leave the domain on the %c axis", c->name, "xyz"[k]);
  }
  return 0;
}

/* A file name with no folder in it; without an extension `dflt` is added. */
static int output_file(gs_parser *p, const gs_command_call *c, const char *name, const char *dflt, char *out,
                       size_t n) {
  if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
    return gs_perr(p, "#%s: '%s': give a file name, not a path", c->name, name);
  const char *dot = strrchr(name, '.');
  if (dot == name) /* '.h5' alone would be a hidden file with no name */
    return gs_perr(p, "#%s: '%s': give a name before the extension", c->name, name);
  if (dot && strcmp(dot, ".h5") && strcmp(dot, ".vtkhdf") && strcmp(dot, ".vti"))
    return gs_perr(p, "#%s: '%s': the formats are .h5, .vtkhdf and .vti", c->name, name);
  if (strlen(name) + strlen(dflt) >= n - 8) return gs_perr(p, "#%s: '%.40s...': name too long", c->name, name);
  snprintf(out, n, "%s%s", name, dot ? "" : dflt);
  return 0;
}

/* #snapshot: x1 y1 z1 x2 y2 z2 dx dy dz t file (t: seconds, or an
 * iteration count written as an integer; resolved once dt is known). */
int gs_cmd_snapshot(gs_parser *p, const gs_command_call *c) {
  double v[10];
  gs_snapshot_req q = {.seconds = -1};
  int64_t hi[3];
  if (gs_parse_args(p, c, 0, 10, v) || output_box(p, c, v, q.lo, q.step, q.size, hi)) return -1;
  if (!strpbrk(c->arg[9], ".eE")) {
    if (!(v[9] >= 1) || v[9] > GS_SCENE_MAX_ITERATIONS)
      return gs_perr(p, "#snapshot: iteration %s is not a count from 1", c->arg[9]);
    q.iteration = (int64_t)v[9];
  } else {
    if (!(v[9] >= 0)) return gs_perr(p, "#snapshot: time %s is negative", c->arg[9]);
    q.seconds = v[9];
  }
  if (output_file(p, c, c->arg[10], ".vtkhdf", q.file, sizeof q.file)) return -1;
  q.line = p->line;
  if (p->s->nsnaps >= 1000) return gs_perr(p, "#snapshot: more than 1000 snapshots");
  GS_SCENE_GROW(p->s->snaps, p->s->nsnaps);
  p->s->snaps[p->s->nsnaps++] = q;
  return 0;
}

/* #geometry_view: x1 y1 z1 x2 y2 z2 dx dy dz file n|f. */
int gs_cmd_geometry_view(gs_parser *p, const gs_command_call *c) {
  double v[9];
  gs_geometry_view g;
  memset(&g, 0, sizeof g);
  if (gs_parse_args(p, c, 0, 9, v) || output_box(p, c, v, g.lo, g.step, g.size, g.hi)) return -1;
  if (strcmp(c->arg[10], "n") && strcmp(c->arg[10], "f"))
    return gs_perr(p, "#geometry_view: '%s': the type is n (cells) or f (edges)", c->arg[10]);
  g.fine = c->arg[10][0] == 'f';
  if (g.fine && p->s->mode == GS_MODE_3D && (g.step[0] != 1 || g.step[1] != 1 || g.step[2] != 1))
    return gs_perr(p, "#geometry_view: type f needs the model's own discretisation (steps of one cell), as gprMax");
  if (output_file(p, c, c->arg[9], ".vtkhdf", g.file, sizeof g.file)) return -1;
  /* what the writers take, refused here, before anything is made (gprmax_out.h) */
  const char *ext = strrchr(g.file, '.');
  if (!strcmp(ext, ".h5")) return gs_perr(p, "#geometry_view: '%s': a geometry view is .vtkhdf or .vti", g.file);
  const int fine3 = g.fine && p->s->mode == GS_MODE_3D; /* 2D writes the cells of either type */
  if (fine3 && strcmp(ext, ".vtkhdf"))
    return gs_perr(p, "#geometry_view: '%s': a fine (f) geometry view is .vtkhdf", g.file);
  const double cells = (double)g.size[0] * (double)g.size[1] * (double)g.size[2];
  if (fine3 && ((double)(g.size[0] + 1) * (double)(g.size[1] + 1) * (double)(g.size[2] + 1) >= 2147483647.0 ||
                6.0 * cells >= 2147483647.0))
    return gs_perr(p, "#geometry_view: a fine view of 2^31 points or more (gprMax's int32 connectivity)");
  g.line = p->line;
  if (p->s->nviews >= 100) return gs_perr(p, "#geometry_view: more than 100 views");
  GS_SCENE_GROW(p->s->views, p->s->nviews);
  p->s->views[p->s->nviews++] = g;
  return 0;
}

/* #geometry_objects_write: x1 y1 z1 x2 y2 z2 basename (3D models). */
int gs_cmd_geometry_objects_write(gs_parser *p, const gs_command_call *c) {
  if (p->s->mode != GS_MODE_3D) return gs_perr(p, "#geometry_objects_write: only in 3D models here");
  double v[6];
  gs_geo_write w;
  memset(&w, 0, sizeof w);
  if (gs_parse_args(p, c, 0, 6, v) || gs_point_cells(p, v, w.lo, 1, c->name) ||
      gs_point_cells(p, v + 3, w.hi, 1, c->name))
    return -1;
  for (int k = 0; k < 3; ++k)
    if (w.lo[k] >= w.hi[k])
      return gs_perr(p, "#geometry_objects_write: the lower coordinates should be less than the upper coordinates");
  const char *name = c->arg[6];
  if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
    return gs_perr(p, "#geometry_objects_write: '%s': give a file name, not a path", name);
  if (strlen(name) > 200) return gs_perr(p, "#geometry_objects_write: '%.40s...': name too long", name);
  snprintf(w.base, sizeof w.base, "%s", name);
  w.line = p->line;
  if (p->s->ngeo_writes >= 100) return gs_perr(p, "#geometry_objects_write: more than 100 files");
  GS_SCENE_GROW(p->s->geo_writes, p->s->ngeo_writes);
  p->s->geo_writes[p->s->ngeo_writes++] = w;
  return 0;
}

int gs_scene_resolve_snapshots(gs_scene *s, char *err, size_t errlen) {
  for (int k = 0; k < s->nsnaps; ++k) {
    gs_snapshot_req *q = &s->snaps[k];
    if (q->seconds >= 0) q->iteration = gs_round_cells(q->seconds / s->dt) + 1;
    if (q->iteration < 1 || q->iteration > s->iterations) {
      char at[32] = "";
      if (q->line > 0) snprintf(at, sizeof at, ":%d", q->line);
      snprintf(err, errlen, "%s%s: #snapshot %s: its time is outside the time window (iteration %lld of %lld)", s->path,
               at, q->file, (long long)q->iteration, (long long)s->iterations);
      return -1;
    }
  }
  return 0;
}

/* One file an output command writes into the output folder: `name` as
 * written with one run; with several runs, an `indexed` one gets the run's
 * number (1, 2, ...) inserted at `stem` (before its extension). */
typedef struct out_name {
  char name[600];
  size_t stem;
  int indexed;
  int line;         /* the command's line; 0: the receivers' outputs */
  const char *what; /* the command */
} out_name;

/* Whether d[0, len) is the decimal number of one of runs 1..runs, written
 * as the runs' files write it (no leading zero). */
static int run_number(const char *d, size_t len, int64_t runs) {
  if (len < 1 || len > 12 || d[0] == '0') return 0;
  int64_t v = 0;
  for (size_t k = 0; k < len; ++k) {
    if (d[k] < '0' || d[k] > '9') return 0;
    v = v * 10 + (d[k] - '0');
  }
  return v <= runs;
}

/* Whether fixed name x is one of run-indexed f's files. */
static int fixed_in_indexed(const out_name *f, const char *x, int64_t runs) {
  const char *ext = f->name + f->stem;
  size_t lx = strlen(x), le = strlen(ext);
  return lx >= f->stem + le && !strncmp(x, f->name, f->stem) && !strcmp(x + lx - le, ext) &&
         run_number(x + f->stem, lx - le - f->stem, runs);
}

/* Whether a and b write one file over the runs; if so, its name in path.
 * Two indexed names meet when their extensions agree and the longer stem is
 * the shorter plus digits D: the shorter's run "D1" is the longer's run 1. */
static int names_meet(const out_name *a, const out_name *b, int64_t runs, char *path, size_t n) {
  if (!a->indexed && !b->indexed) {
    snprintf(path, n, "%s", a->name);
    return !strcmp(a->name, b->name);
  }
  if (!a->indexed || !b->indexed) {
    const out_name *f = a->indexed ? a : b, *x = a->indexed ? b : a;
    snprintf(path, n, "%s", x->name);
    return fixed_in_indexed(f, x->name, runs);
  }
  const out_name *s = a->stem <= b->stem ? a : b, *l = a->stem <= b->stem ? b : a;
  if (strcmp(a->name + a->stem, b->name + b->stem) || strncmp(s->name, l->name, s->stem)) return 0;
  char digits[32];
  size_t nd = l->stem - s->stem;
  if (nd > 20) return 0;
  snprintf(digits, sizeof digits, "%.*s1", (int)nd, l->name + s->stem);
  snprintf(path, n, "%.*s1%s", (int)l->stem, l->name, l->name + l->stem);
  return run_number(digits, nd + 1, runs);
}

/* The first pair of names[0, n) that meet: one line in err naming the later
 * command's line (the receivers' outputs have none), or 0. */
static int first_clash(const gs_scene *s, const out_name *names, int n, const char *folder, int64_t runs, char *err,
                       size_t errlen) {
  char path[1300];
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < i; ++k) {
      if (!names_meet(&names[i], &names[k], runs, path, sizeof path)) continue;
      const out_name *late = names[i].line >= names[k].line ? &names[i] : &names[k];
      const out_name *early = late == &names[i] ? &names[k] : &names[i];
      char as[64] = "as the receivers' output does";
      if (early->line) snprintf(as, sizeof as, "as line %d does", early->line);
      snprintf(err, errlen, "%s:%d: #%s: writes %s%s, %s", s->path, late->line, late->what, folder, path, as);
      return -1;
    }
  return 0;
}

static void add_name(out_name *o, const char *name, const char *suffix, int indexed, int line, const char *what) {
  snprintf(o->name, sizeof o->name, "%.400s%s", name, suffix); /* (names are at most 256 bytes, suffixes short) */
  const char *dot = strrchr(o->name, '.');
  o->stem = dot ? (size_t)(dot - o->name) : strlen(o->name);
  o->indexed = indexed;
  o->line = line;
  o->what = what;
}

/* The model's name, as the runs name MODEL.h5 and MODEL_snaps: the scene's
 * file name without its folder and extension. */
/* The files the scene's commands write into the output folder itself (not
 * its snapshots' folder) into o (room for 2 + views + 2 geometry writes);
 * their count. The paths are built where the files are written (fdtd_cmd.c,
 * fdtd3d_cmd.c, gpr_views.c, geometry_objects.c); this mirrors them.
 * Checkpoints (checkpoint.*), bscan.png and snapshots/ are names no command
 * can give (program_output keeps inputs off them). */
static int folder_outputs(const gs_scene *s, int64_t runs, out_name *o) {
  char model[512];
  gs_model_name(s->path, model, sizeof model);
  int many = runs > 1, lines = 0, n = 0;
  for (int k = 0; k < s->nsrc3; ++k)
    lines |= s->src3[k].kind == GS_SRC3_TLINE;
  if (s->nrx || lines) add_name(&o[n++], model, ".h5", many, 0, "rx");
  /* with several runs receivers_runNNN.csv: no command writes a .csv */
  if (s->nrx && !many) add_name(&o[n++], "receivers.csv", "", 0, 0, "rx");
  for (int k = 0; k < s->nviews; ++k)
    add_name(&o[n++], s->views[k].file, "", many, s->views[k].line, "geometry_view");
  for (int k = 0; k < s->ngeo_writes; ++k) {
    const gs_geo_write *w = &s->geo_writes[k];
    add_name(&o[n++], w->base, ".h5", 0, w->line, "geometry_objects_write");
    add_name(&o[n++], w->base, "_materials.txt", 0, w->line, "geometry_objects_write");
  }
  return n;
}

int gs_scene_check_outputs(const gs_scene *s, int64_t runs, char *err, size_t errlen) {
  char model[512], folder[560];
  gs_model_name(s->path, model, sizeof model);
  out_name *o = gs_xmalloc(sizeof *o * (size_t)(2 + s->nviews + 2 * s->ngeo_writes + s->nsnaps + 1));
  int bad = first_clash(s, o, folder_outputs(s, runs, o), "", runs, err, errlen);
  /* Snapshots go into MODEL_snaps/ (MODELr_snaps/ with several runs): among themselves only. */
  snprintf(folder, sizeof folder, runs > 1 ? "%s1_snaps/" : "%s_snaps/", model);
  for (int k = 0; k < s->nsnaps; ++k)
    add_name(&o[k], s->snaps[k].file, "", 0, s->snaps[k].line, "snapshot");
  if (!bad) bad = first_clash(s, o, s->nsnaps, folder, runs, err, errlen);
  free(o);
  return bad;
}

/* Whether folder path is the folder dir (the same device and inode). */
static int is_folder(const char *path, const struct stat *dir) {
  struct stat st;
  return stat(path, &st) == 0 && st.st_dev == dir->st_dev && st.st_ino == dir->st_ino;
}

/* Splits resolved path into its folder (in parent) and its name (returned). */
static const char *split_path(const char *path, char *parent, size_t n) {
  const char *slash = strrchr(path, '/');
  snprintf(parent, n, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1, slash ? path : ".");
  return slash ? slash + 1 : path;
}

/* Whether name is one the program itself writes in the output folder
 * (receivers_runNNN.csv, bscan.png, checkpoints), or, in sub (a folder of
 * the output folder), in its snapshots' folders (snapshots/, MODEL*_snaps/). */
static int program_output(const char *name, const char *sub) {
  if (sub) {
    size_t n = strlen(sub);
    return !strcmp(sub, "snapshots") || (n > 6 && !strcmp(sub + n - 6, "_snaps"));
  }
  int len = 0;
  unsigned run;
  return !strncmp(name, "checkpoint.", 11) || !strcmp(name, "bscan.png") ||
         (sscanf(name, "receivers_run%u.csv%n", &run, &len) == 1 && len > 0 && !name[len]);
}

/* Where the scene's input in (resolved to real) would be written over in
 * the output folder (dir): 1 with the output's line, command and name in
 * *hit and path, else 0. Writers rename a temporary file onto the name, so
 * the input's own folder entry is what gets replaced (a symbolic link's
 * target, a hard link's other names survive). */
static int overwritten(const char *real, const out_name *o, int n, int64_t runs, const struct stat *dir,
                       const out_name **hit, char *path, size_t pn) {
  static const out_name program = {.what = "", .line = 0};
  char parent[PATH_MAX], grand[PATH_MAX];
  const char *base = split_path(real, parent, sizeof parent);
  *hit = &program;
  snprintf(path, pn, "%s", base);
  if (!is_folder(parent, dir)) { /* a file in snapshots/ or MODEL_snaps/ of the output folder */
    const char *sub = split_path(parent, grand, sizeof grand);
    if (!is_folder(grand, dir) || !program_output(base, sub)) return 0;
    snprintf(path, pn, "%.255s/%.1024s", sub, base); /* (names of at most 255 bytes on Linux) */
    return 1;
  }
  if (program_output(base, NULL)) return 1;
  out_name x = {.line = 0};
  add_name(&x, base, "", 0, 0, "");
  for (int k = 0; k < n; ++k)
    if (names_meet(&o[k], &x, runs, path, pn)) return *hit = &o[k], 1;
  return 0;
}

int gs_scene_check_inputs(const gs_scene *s, int64_t runs, const char *outdir, char *err, size_t errlen) {
  struct stat dir;
  if (stat(outdir, &dir) != 0 || !S_ISDIR(dir.st_mode)) return 0; /* not there yet: it holds no input */
  out_name *o = gs_xmalloc(sizeof *o * (size_t)(2 + s->nviews + 2 * s->ngeo_writes));
  int n = folder_outputs(s, runs, o), bad = 0;
  char path[PATH_MAX + 16], real[PATH_MAX];
  for (int i = 0; i < s->ninputs && !bad; ++i) {
    const gs_scene_input *in = &s->inputs[i];
    const out_name *hit;
    if (!realpath(in->path, real) || !overwritten(real, o, n, runs, &dir, &hit, path, sizeof path)) continue;
    char whose[96] = "the scene file itself";
    if (in->line) snprintf(whose, sizeof whose, "the file line %d reads (#%s)", in->line, in->what);
    if (hit->line)
      snprintf(err, errlen, "%s:%d: #%s: writes %s/%s, %s", s->path, hit->line, hit->what, outdir, path, whose);
    else if (!strcmp(hit->what, "rx"))
      snprintf(err, errlen, "%s: the receivers' output %s/%s is %s", s->path, outdir, path, whose);
    else
      snprintf(err, errlen, "%s: %s/%s, a name gpustencil writes in its output folder, is %s", s->path, outdir, path,
               whose);
    bad = -1;
  }
  free(o);
  return bad;
}

/* The gprMax scene parser: what good scenes give, and the one-line message
 * ("FILE:LINE: reason") and status every refused scene gets.
 * usage: test_scene INPUTS_DIR  (for inputs/material_map.png) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "scene.h"

/* A valid grid (50 x 40 cells of 2 mm) and time window: three lines, so the
 * line under test after it is line 4. */
#define HEAD "#domain: 0.1 0.08 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 100\n"

static char dir[] = "/tmp/test_scene.XXXXXX";
static const char *inputs_dir;

static const char *write_scene(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s.in", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    perror(path);
    exit(1);
  }
  return path;
}

/* Loads a scene that must be accepted; the caller frees it when this returns 1. */
static int accepted(const char *name, const char *text, gs_scene *s) {
  const char *path = write_scene(name, text);
  char err[1024] = "";
  gs_status st = gs_scene_load(path, s, err, sizeof err);
  CHECKF(st == GS_OK, "%s: refused: %s", name, err);
  unlink(path);
  if (st != GS_OK) gs_scene_free(s);
  return st == GS_OK;
}

/* A scene that must be refused with status want and exactly the message
 * "PATH" + tail, tail usually ":LINE: reason". */
static void refused(const char *name, const char *text, gs_status want, const char *tail) {
  const char *path = write_scene(name, text);
  char err[1024] = "", expected[1024];
  snprintf(expected, sizeof expected, "%s%s", path, tail);
  gs_scene s;
  gs_status st = gs_scene_load(path, &s, err, sizeof err);
  CHECKF(st == want && strcmp(err, expected) == 0, "%s: status %d, message\n  '%s', expected\n  '%s'", name, (int)st,
         err, expected);
  gs_scene_free(&s);
  unlink(path);
}

/* Runs every case of tests/data/scene_refusals.tsv (one per line: name,
 * status, message after the scene's path, scene text with \\n for line ends). */
static void refused_table(void) {
  char path[1200], line[8192];
  snprintf(path, sizeof path, "%s/../tests/data/scene_refusals.tsv", inputs_dir);
  FILE *f = fopen(path, "r");
  CHECKF(f != NULL, "%s: cannot open", path);
  int cases = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\n")] = '\0';
    char *field[4] = {line, NULL, NULL, NULL};
    for (int k = 1; k < 4 && field[k - 1]; ++k) {
      field[k] = strchr(field[k - 1], '\t');
      if (field[k]) *field[k]++ = '\0';
    }
    CHECKF(field[3] != NULL, "%s: '%s' has fewer than 4 fields", path, line);
    if (!field[3]) continue;
    char *w = field[3]; /* \n to a line end, in place */
    for (const char *r = field[3]; *r; ++r)
      *w++ = r[0] == '\\' && r[1] == 'n' ? (++r, '\n') : *r;
    *w = '\0';
    refused(field[0], field[3], strcmp(field[1], "GS_ERR_IO") == 0 ? GS_ERR_IO : GS_ERR_FORMAT, field[2]);
    ++cases;
  }
  if (f) fclose(f);
  CHECKF(cases >= 60, "%d cases read from %s", cases, path);
}

static void good_full_scene(void) {
  gs_scene s;
  if (!accepted("full",
                "A comment line, then a survey.\n"
                "#title: a small survey: two objects\n"
                "#messages: n\n" HEAD "\n"
                "#material: 6 0.005 1 0 soil\n"
                "#material: 81 0.05 1 0 water\n"
                "#box: 0 0 0 0.1 0.04 0.002 soil\n"
                "#cylinder: 0.05 0.02 0 0.05 0.02 0.002 0.01 water\n"
                "#waveform: ricker 1 1.5e9 pulse\n"
                "#waveform: gaussiandotnorm 2 1e9 other\n"
                "#hertzian_dipole: z 0.02 0.06 0 pulse\n"
                "#hertzian_dipole: z 0.03 0.06 0 other 1e-9 2e-9\n"
                "#rx: 0.04 0.06 0\n"
                "#rx: 0.06 0.06 0 probe Ez,Hx,Hy\n"
                "#pml_cells: 5\n"
                "#src_steps: 0.004 0 0\n"
                "#rx_steps: 0.002 0.002 0\n"
                "#snapshot_png: 25\n",
                &s))
    return;
  CHECK(strcmp(s.title, "a small survey") == 0 && s.messages == 0); /* gprMax drops text after a second colon */
  CHECK(s.nx == 50 && s.ny == 40 && s.dx == 0.002 && s.dy == 0.002 && s.dz == 0.002 && s.iterations == 100);
  CHECK(fabs(s.dt - 0.002 / (299792458.0 * sqrt(2.0))) < 1e-24);
  CHECK(s.nmaterials == 4 && strcmp(s.materials[0].name, "free_space") == 0 && s.materials[1].pec == 1);
  CHECK(strcmp(s.materials[2].name, "soil") == 0 && s.materials[2].er == 6 && s.materials[2].sigma == 0.005);
  CHECK(strcmp(s.materials[3].name, "water") == 0 && s.materials[3].pec == 0);
  /* gprMax's cells: the box covers cells [0, 50) x [0, 20), the cylinder is held in float. */
  CHECK(s.nobjects == 2 && s.objects[0].type == GS_OBJ_BOX && s.objects[0].material == 2 && s.objects[0].ci1 == 50 &&
        s.objects[0].cj1 == 20 && s.objects[0].averaging == 1);
  CHECK(s.objects[1].type == GS_OBJ_CYLINDER && s.objects[1].material == 3 && s.objects[1].fr == 0.01f);
  CHECK(gs_scene_material_at(&s, 5, 5) == 2 && gs_scene_material_at(&s, 25, 10) == 3 &&
        gs_scene_material_at(&s, 25, 30) == 0);
  CHECK(s.nwaveforms == 2 && s.waveforms[0].type == GS_WAVE_RICKER && s.waveforms[0].freq == 1.5e9);
  CHECK(s.waveforms[1].type == GS_WAVE_GAUSSIANDOTNORM && s.waveforms[1].amp == 2);
  CHECK(s.nsources == 2 && s.sources[0].i == 10 && s.sources[0].j == 30 && s.sources[0].waveform == 0 &&
        s.sources[0].start == 0 && isinf(s.sources[0].stop));
  CHECK(s.sources[1].i == 15 && s.sources[1].waveform == 1 && s.sources[1].start == 1e-9 && s.sources[1].stop == 2e-9);
  CHECK(s.nrx == 2 && strcmp(s.rxs[0].name, "Rx(20,30,0)") == 0 && s.rxs[0].i == 20 && s.rxs[0].j == 30);
  CHECK(s.rxs[0].outputs == GS_OUT_DEFAULT &&
        s.rxs[1].outputs == (1u << GS_OUT_EZ | 1u << GS_OUT_HX | 1u << GS_OUT_HY));
  CHECK(strcmp(s.rxs[1].name, "probe") == 0 && s.rxs[1].i == 30);
  CHECK(s.pml[0] == 5 && s.pml[1] == 5 && s.pml[2] == 5 && s.pml[3] == 5);
  CHECK(s.src_di == 2 && s.src_dj == 0 && s.rx_di == 1 && s.rx_dj == 1 && s.snapshot_every == 25);
  gs_scene_free(&s);
}

/* Defaults, seconds in #time_window, any command order, CRLF line ends. */
static void good_defaults_and_seconds(void) {
  gs_scene s;
  if (!accepted("seconds",
                "#time_window: 3e-9\r\n#dx_dy_dz: 0.002 0.002 0.002\r\n#domain: 0.1 0.08 0.002  \r\n"
                "#time_step_stability_factor: 0.5\r\n",
                &s))
    return;
  CHECK(s.nx == 50 && s.ny == 40 && s.stability == 0.5 && s.messages == 1 && s.title[0] == '\0');
  CHECK(fabs(s.dt - 0.5 * 0.002 / (299792458.0 * sqrt(2.0))) < 1e-24);
  gs_scene_free(&s);
  /* CR alone ends a line too (old Mac editors; gprMax's Python reads it so) */
  if (!accepted("cr", "#time_window: 3e-9\r#dx_dy_dz: 0.002 0.002 0.002\r#domain: 0.1 0.08 0.002\r", &s)) return;
  CHECK(s.nx == 50 && s.ny == 40 && s.iterations > 1);
  CHECK(s.iterations == (int64_t)ceil(3e-9 / s.dt) + 1);
  CHECK(s.pml[0] == 10 && s.pml[3] == 10 && s.ncfs == 1 && s.cfs[0].sigma.order == 4 && s.cfs[0].sigma.max == -1);
  CHECK(s.pml_formulation == GS_PML_HORIPML);
  CHECK(s.nmaterials == 2 && s.nsources == 0 && s.nrx == 0 && s.nobjects == 0 && s.snapshot_every == 0);
  gs_scene_free(&s);
}

/* Parameters split where gprMax's str.split() splits them: a no-break space, an ideographic
 * space, a vertical tab, a figure space (U+2007) between and after them. */
static void good_python_blanks(void) {
  gs_scene s;
  if (!accepted("blanks",
                "#time_window: \xC2\xA0"
                "3e-9\n#dx_dy_dz: 0.002\xE3\x80\x80"
                "0.002\v0.002\n"
                "#domain: 0.1\xE2\x80\x87"
                "0.08 0.002\xC2\xA0\n#material: 6 0.005 1 0\xC2\xA0soil\xC2\xA0\n",
                &s))
    return;
  CHECK(s.nx == 50 && s.ny == 40 && s.dz == 0.002 && s.iterations > 1);
  CHECK(s.nmaterials == 3 && strcmp(s.materials[2].name, "soil") == 0);
  gs_scene_free(
      &s); /* gprMax's one rule on the first character: a space after the colon (a tab is a SyntaxError too) */
  refused("tab_after_colon", "#domain:\t0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n", GS_ERR_FORMAT,
          ":1: #domain: a space must follow the colon (gprMax refuses '#domain:\t0.1 0.1 0.002')");
}

static void good_pml(void) {
  gs_scene s;
  if (!accepted("pml",
                HEAD "#pml_cells: 1 2 3 4 5 6\n"
                     "#pml_cfs: constant forward 0 0 linear reverse 1 2 quartic forward 0 None\n",
                &s))
    return;
  CHECK(s.pml[0] == 1 && s.pml[1] == 2 && s.pml[2] == 4 && s.pml[3] == 5);
  const gs_cfs *c = &s.cfs[0];
  CHECK(s.ncfs == 1 && c->alpha.order == 0 && c->alpha.reverse == 0 && c->alpha.max == 0);
  CHECK(c->kappa.order == 1 && c->kappa.reverse == 1 && c->kappa.min == 1 && c->kappa.max == 2);
  CHECK(c->sigma.order == 4 && c->sigma.max == -1);
  gs_scene_free(&s);
}

/* MRIPML and two #pml_cfs (a second-order PML) in a 3D model; the kappa
 * minimums may be below 1 each when their sum is not. */
static void good_pml_mripml2(void) {
  gs_scene s;
  if (!accepted("mripml2",
                "#domain: 0.06 0.06 0.06\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n"
                "#pml_formulation: MRIPML\n"
                "#pml_cfs: quadratic reverse 0 0.15 quartic forward 0.5 12 septic forward 0 None\n"
                "#pml_cfs: linear reverse 0.07 0.8 constant forward 0.5 0 octic forward 0 30\n",
                &s))
    return;
  CHECK(s.mode == GS_MODE_3D && s.pml_formulation == GS_PML_MRIPML && s.ncfs == 2);
  CHECK(s.cfs[0].alpha.order == 2 && s.cfs[0].alpha.reverse == 1 && s.cfs[0].sigma.order == 7);
  CHECK(s.cfs[1].alpha.order == 1 && s.cfs[1].kappa.min == 0.5 && s.cfs[1].sigma.order == 8);
  CHECK(s.cfs[1].sigma.max == 30 && s.cfs[0].sigma.max == -1);
  gs_scene_free(&s);
}

/* A picture named relative to the scene's folder (a link to inputs/'s). */
static void good_material_map(void) {
  char png[1200], link[600], cwd[512] = ".";
  if (inputs_dir[0] != '/' && !getcwd(cwd, sizeof cwd)) perror("getcwd");
  if (inputs_dir[0] == '/')
    snprintf(png, sizeof png, "%s/material_map.png", inputs_dir);
  else
    snprintf(png, sizeof png, "%s/%s/material_map.png", cwd, inputs_dir);
  snprintf(link, sizeof link, "%s/map.png", dir);
  CHECK(symlink(png, link) == 0);
  gs_scene s;
  if (accepted("map",
               "#domain: 0.75 0.375 0.0025\n#dx_dy_dz: 0.0025 0.0025 0.0025\n#time_window: 10\n"
               "#material: 15 0.05 1 0 clay\n"
               "#material_map: map.png 0.01 0 96 clay 255 pec\n",
               &s)) {
    const gs_object *o = &s.objects[0];
    CHECK(s.nobjects == 1 && o->type == GS_OBJ_MAP && o->mw == 300 && o->mh == 150 && o->mi0 == 4 && o->mj0 == 0);
    CHECK(o->lut[96] == 2 && o->lut[255] == 1 && o->lut[0] == -1 && o->lut[40] == -1);
    gs_scene_free(&s);
  }
  unlink(link);
}

static void refused_lines_and_files(void) {
  char *longline = malloc(5000);
  memset(longline, 'x', 4999);
  longline[0] = '#';
  longline[4999] = '\0';
  char *text = malloc(6000);
  snprintf(text, 6000, "#title: fine\n%s\n", longline);
  refused("longline", text, GS_ERR_FORMAT, ":2: line longer than 4094 characters");
  free(text);
  free(longline);

  char path[600], err[1024];
  gs_scene s;
  snprintf(path, sizeof path, "%s/absent.in", dir);
  CHECK(gs_scene_load(path, &s, err, sizeof err) == GS_ERR_IO && strstr(err, "absent.in: No such file or directory"));
  gs_scene_free(&s);
}

static void refused_materials_and_waveforms(void) {
  refused("magnetic", "#material: 4 0 0.5 0 ferrite\n", GS_ERR_FORMAT,
          ":1: #material ferrite: relative permeability 0.5 is below 1");
  refused("plus", "#material: 4 0 1 0 a+b\n", GS_ERR_FORMAT,
          ":1: #material: 'a+b': '+' is kept for averaged materials' names");
  char *many = malloc(255 * 40), *end = many;
  for (int k = 0; k < 255; ++k)
    end += sprintf(end, "#material: 2 0 1 0 m%d\n", k);
  refused("many", many, GS_ERR_FORMAT, ":199: #material: more than 200 materials");
  free(many);
}

static void refused_sources_and_receivers(void) {
  const char *w = "#waveform: ricker 1 1e9 w\n";
  char text[1024];
  snprintf(text, sizeof text, HEAD "%s#hertzian_dipole: x 0.05 0.05 0 w\n", w);
  refused("polar", text, GS_ERR_FORMAT, ":5: #hertzian_dipole: polarisation 'x': this 2D TMz model has only z");
  snprintf(text, sizeof text, HEAD "%s#hertzian_dipole: z 0.05 0.05 0 w 1e-9\n", w);
  refused("delay", text, GS_ERR_FORMAT, ":5: #hertzian_dipole: give both the delay and the removal time, or neither");
  snprintf(text, sizeof text, HEAD "%s#hertzian_dipole: z 0.05 0.05 0 w\n#hertzian_dipole: z 0.0505 0.05 0 w\n", w);
  refused("samecell", text, GS_ERR_FORMAT, ":6: #hertzian_dipole: two sources on the same cell");
}

static void refused_objects(void) {
  char tail[700];
  snprintf(tail, sizeof tail, ":4: #material_map: %s/absent.png: No such file or directory", dir);
  refused("mapabsent", HEAD "#material_map: absent.png 0 0 96 pec\n", GS_ERR_FORMAT, tail);
  /* A scene file is not a PNG file. */
  snprintf(tail, sizeof tail, ":4: #material_map: %s/notpng.in: not a PNG file", dir);
  refused("notpng", HEAD "#material_map: notpng.in 0 0 96 pec\n", GS_ERR_FORMAT, tail);
}

/* Hostile inputs: numbers that are not plain decimals, values
 * whose conversion to cells or steps would overflow, names too long to keep,
 * files that are not regular files. */
static void refused_bad_numbers_and_limits(void) {
  char line[256];
  snprintf(line, sizeof line, "#material: 4 0 1 0 %s\n",
           "m234567890123456789012345678901234567890123456789012345678901234");
  refused("longname", line, GS_ERR_FORMAT,
          ":1: #material: name 'm234567890123456789012345678901234567890...' is longer than 63 characters");
  char fifo[600];
  snprintf(fifo, sizeof fifo, "%s/fifo.in", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  char err[1024] = "", expected[1024];
  gs_scene sc;
  snprintf(expected, sizeof expected, "%s: a FIFO, not a regular file", fifo);
  CHECKF(gs_scene_load(fifo, &sc, err, sizeof err) == GS_ERR_IO && strcmp(err, expected) == 0, "fifo: '%s'", err);
  unlink(fifo);
  CHECKF(gs_scene_load(dir, &sc, err, sizeof err) == GS_ERR_IO && strstr(err, "a folder, not a regular file"),
         "folder: '%s'", err);
}

/* #source_timing (ours) picks gprMax 3's source timing; gprMax 4's is the default. */
static void good_source_timing(void) {
  gs_scene s;
  if (!accepted("timing3", HEAD "#source_timing: gprmax3\n", &s)) return;
  CHECK(s.gprmax3_timing == 1);
  gs_scene_free(&s);
  if (!accepted("timing4", HEAD, &s)) return;
  CHECK(s.gprmax3_timing == 0 && s.mode == GS_MODE_TMZ);
  gs_scene_free(&s);
  refused("timing", HEAD "#source_timing: gprmax2\n", GS_ERR_FORMAT,
          ":4: #source_timing: 'gprmax2' is not gprmax3 or gprmax4");
}

/* Steps round as gprMax rounds (an exact half toward zero): a step and its
 * negative move as far. */
static void good_negative_steps(void) {
  gs_scene s;
  if (!accepted("negsteps", HEAD "#src_steps: -0.004 0.002 0\n#rx_steps: -0.003 -0.005 0\n", &s)) return;
  CHECKF(s.src_di == -2 && s.src_dj == 1, "src steps %lld %lld", (long long)s.src_di, (long long)s.src_dj);
  CHECKF(s.rx_di == -1 && s.rx_dj == -2, "rx steps %lld %lld", (long long)s.rx_di, (long long)s.rx_dj);
  gs_scene_free(&s);
}

/* gprMax takes any number of receiver outputs, all nine and repeats too
 * (a 2D model: currents allowed). */
static void good_rx_outputs(void) {
  gs_scene s;
  if (!accepted("rxall", HEAD "#rx: 0.04 0.06 0 all Ex Ey Ez Hx Hy Hz Ix Iy Iz\n#rx: 0.06 0.06 0 twice Ez Ez Hx\n", &s))
    return;
  /* the first one's Iz adds two hidden helpers (H below and left of it) */
  CHECK(s.nrx == 4 && s.rxs[0].outputs == (1u << GS_OUT_N) - 1 && strcmp(s.rxs[0].name, "all") == 0);
  CHECK(s.rxs[1].hidden && s.rxs[2].hidden && !s.rxs[3].hidden);
  CHECK(s.rxs[3].outputs == (1u << GS_OUT_EZ | 1u << GS_OUT_HX) && strcmp(s.rxs[3].name, "twice") == 0);
  gs_scene_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_scene INPUTS_DIR\n");
    return 2;
  }
  inputs_dir = argv[1];
  if (!mkdtemp(dir)) {
    perror(dir);
    return 1;
  }
  good_full_scene();
  good_defaults_and_seconds();
  good_python_blanks();
  good_pml();
  good_pml_mripml2();
  good_material_map();
  refused_lines_and_files();
  refused_materials_and_waveforms();
  refused_sources_and_receivers();
  refused_objects();
  refused_table();
  refused_bad_numbers_and_limits();
  good_negative_steps();
  good_source_timing();
  good_rx_outputs();
  rmdir(dir);
  return gs_test_done("test_scene");
}

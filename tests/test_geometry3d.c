/* gs_geometry3_build against gprMax 4's own built grids: each MODEL.in under
 * tests/data/geometry3d (read here with a minimal reader of #domain,
 * #dx_dy_dz, #material and the geometry commands) has MODEL.g3, the solid and
 * ID arrays and materials gprMax built for it (scripts/gprmax/dump_ids.py).
 * Cells and IDs of given materials must be equal; compound materials are
 * compared by name and properties. Usage: test_geometry3d DIR | MODEL.in MODEL.g3 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decomp3d.h"
#include "geometry3d.h"

typedef struct model {
  int64_t n[3];
  double d[3];
  gs_mat3 mat[64];
  int nmat;
  gs_obj3 obj[256];
  int nobj;
} model;

static int find_mat(const model *m, const char *name) {
  for (int k = 0; k < m->nmat; ++k)
    if (!strcmp(m->mat[k].name, name)) return k;
  return -1;
}

static const struct {
  const char *cmd;
  int type, nnum;
} kinds[] = {{"#box:", GS_O3_BOX, 6},
             {"#sphere:", GS_O3_SPHERE, 4},
             {"#cylinder:", GS_O3_CYLINDER, 7},
             {"#cone:", GS_O3_CONE, 8},
             {"#ellipsoid:", GS_O3_ELLIPSOID, 6},
             {"#edge:", GS_O3_EDGE, 6},
             {"#plate:", GS_O3_PLATE, 6},
             {"#triangle:", GS_O3_TRIANGLE, 10},
             {"#cylindrical_sector:", GS_O3_CYLINDRICAL_SECTOR, 7}};

/* One geometry line: numbers, material, optional y/n. */
static int parse_object(model *m, char **tok, int nt) {
  for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; ++q) {
    if (strcmp(tok[0], kinds[q].cmd)) continue;
    gs_obj3 *o = &m->obj[m->nobj++];
    memset(o, 0, sizeof *o);
    o->type = kinds[q].type;
    o->averaging = 1;
    int at = 1;
    if (o->type == GS_O3_CYLINDRICAL_SECTOR) o->normal = tok[at++][0];
    for (int k = 0; k < kinds[q].nnum; ++k)
      o->v[k] = atof(tok[at++]);
    o->nv = kinds[q].nnum;
    o->material = find_mat(m, tok[at++]);
    if (at < nt) o->averaging = tok[at][0] != 'n';
    return o->material >= 0 ? 0 : -1;
  }
  return 0; /* not geometry */
}

static int read_model(const char *path, model *m) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  memset(m, 0, sizeof *m);
  m->mat[0] = (gs_mat3){"pec", 1, INFINITY, 1, 0, 0};
  m->mat[1] = (gs_mat3){"free_space", 1, 0, 1, 0, 1};
  m->nmat = 2;
  char line[4096];
  int rc = 0;
  double size[3] = {0};
  while (fgets(line, sizeof line, f) && rc == 0) {
    char *tok[64];
    int nt = 0;
    for (char *p = strtok(line, " \t\r\n"); p && nt < 64; p = strtok(NULL, " \t\r\n"))
      tok[nt++] = p;
    if (nt == 0 || tok[0][0] != '#') continue;
    if (!strcmp(tok[0], "#domain:"))
      for (int a = 0; a < 3; ++a)
        size[a] = atof(tok[1 + a]);
    else if (!strcmp(tok[0], "#dx_dy_dz:"))
      for (int a = 0; a < 3; ++a)
        m->d[a] = atof(tok[1 + a]);
    else if (!strcmp(tok[0], "#material:")) {
      gs_mat3 *x = &m->mat[m->nmat++];
      x->er = atof(tok[1]);
      x->se = !strcmp(tok[2], "inf") ? INFINITY : atof(tok[2]);
      x->mr = atof(tok[3]);
      x->sm = atof(tok[4]);
      x->averagable = !isinf(x->se);
      snprintf(x->name, sizeof x->name, "%s", tok[5]);
    } else
      rc = parse_object(m, tok, nt);
  }
  fclose(f);
  for (int a = 0; a < 3; ++a) { /* gprMax: round_int(size / d) */
    double v = size[a] / m->d[a], t = trunc(v);
    m->n[a] = fabs(v - t) == 0.5 ? (int64_t)t : (int64_t)nearbyint(v);
  }
  return rc;
}

typedef struct ref {
  int32_t n[3], nmat;
  gs_mat3 *mat;
  uint16_t *arr[7]; /* solid, Ex..Hz */
} ref;

static int read_rle(FILE *f, uint16_t *out, size_t count) {
  size_t at = 0;
  for (;;) {
    uint16_t vr[2];
    if (fread(vr, 2, 2, f) != 2) return -1;
    if (vr[1] == 0) return at == count ? 0 : -1;
    if (at + vr[1] > count) return -1;
    for (int k = 0; k < vr[1]; ++k)
      out[at++] = vr[0];
  }
}

static int read_ref(const char *path, ref *r) {
  FILE *f = fopen(path, "rb");
  char magic[4];
  if (!f) return -1;
  int ok = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "GSG3", 4) && fread(r->n, 4, 3, f) == 3 &&
           fread(&r->nmat, 4, 1, f) == 1;
  r->mat = ok ? calloc((size_t)r->nmat, sizeof *r->mat) : NULL;
  for (int k = 0; ok && k < r->nmat; ++k) {
    uint16_t len;
    double p[4];
    ok = fread(&len, 2, 1, f) == 1 && len < sizeof r->mat[k].name && fread(r->mat[k].name, 1, len, f) == len &&
         fread(p, 8, 4, f) == 4;
    r->mat[k].er = p[0], r->mat[k].se = p[1], r->mat[k].mr = p[2], r->mat[k].sm = p[3];
  }
  size_t cells = (size_t)r->n[0] * (size_t)r->n[1] * (size_t)r->n[2];
  size_t nodes = (size_t)(r->n[0] + 1) * (size_t)(r->n[1] + 1) * (size_t)(r->n[2] + 1);
  for (int a = 0; ok && a < 7; ++a) {
    r->arr[a] = malloc((a ? nodes : cells) * sizeof *r->arr[a]);
    ok = r->arr[a] && read_rle(f, r->arr[a], a ? nodes : cells) == 0;
  }
  fclose(f);
  return ok ? 0 : -1;
}

static void free_ref(ref *r) {
  free(r->mat);
  for (int a = 0; a < 7; ++a)
    free(r->arr[a]);
}

static int same_material(const gs_mat3 *a, const gs_mat3 *b) {
  return !strcmp(a->name, b->name) && a->er == b->er && a->mr == b->mr && a->sm == b->sm &&
         (a->se == b->se || (isinf(a->se) && isinf(b->se)));
}

/* Element-by-element comparison; prints the first few differences. */
static long compare(const gs_geometry3 *g, const ref *r, int nbase, const char *name) {
  static const char *comp[7] = {"solid", "Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  long bad = 0, total = 0;
  for (int a = 0; a < 7; ++a) {
    int64_t ni = g->nx + (a > 0), nj = g->ny + (a > 0), nk = g->nz + (a > 0);
    for (int64_t k = 0; k < nk; ++k)
      for (int64_t j = 0; j < nj; ++j)
        for (int64_t i = 0; i < ni; ++i) {
          int64_t q = i + ni * (j + nj * k);
          int ours = a ? g->id[a - 1][q] : (int)g->solid[q], theirs = r->arr[a][q];
          int ok =
              ours < g->nmat && theirs < r->nmat &&
              (ours == theirs || (ours >= nbase && theirs >= nbase && same_material(&g->mat[ours], &r->mat[theirs])));
          ++total;
          if (!ok && bad++ < 8)
            fprintf(stderr, "%s: %s[%lld,%lld,%lld]: ours %s, gprMax %s\n", name, comp[a], (long long)i, (long long)j,
                    (long long)k, ours < g->nmat ? g->mat[ours].name : "?",
                    theirs < r->nmat ? r->mat[theirs].name : "?");
        }
  }
  printf("%s: %ld of %ld values differ; materials ours %d, gprMax %d\n", name, bad, total, g->nmat, r->nmat);
  return bad;
}

/* Part p's held values equal the whole build's: every node's six IDs and
 * every cell's material, and the same materials table. */
static long compare_part(const gs_geometry3 *whole, const gs_geometry3 *p) {
  long bad = 0;
  for (int64_t k = p->lo[2]; k < p->hi[2]; ++k)
    for (int64_t j = p->lo[1]; j < p->hi[1]; ++j)
      for (int64_t i = p->lo[0]; i < p->hi[0]; ++i)
        for (int c = 0; c < 6; ++c)
          bad += p->id[c][gs_geometry3_node(p, i, j, k)] != whole->id[c][gs_geometry3_node(whole, i, j, k)];
  for (int64_t k = p->clo[2]; k < p->chi[2]; ++k)
    for (int64_t j = p->clo[1]; j < p->chi[1]; ++j)
      for (int64_t i = p->clo[0]; i < p->chi[0]; ++i)
        bad += p->solid[gs_geometry3_cell(p, i, j, k)] != whole->solid[gs_geometry3_cell(whole, i, j, k)];
  bad += p->nmat != whole->nmat;
  for (int q = 0; q < p->nmat && q < whole->nmat; ++q)
    bad += !same_material(&p->mat[q], &whole->mat[q]) || p->mat[q].se != whole->mat[q].se;
  return bad;
}

/* The model split over dims parts (each with one ghost node per side, as a
 * rank holds it): every part painted, the parts' compound visits merged, each
 * part smoothed with the merged list, gives the whole build's values. (With
 * each part's own visits only, the compounds' numbering differs: checked to
 * fail.) */
static void split_case(const model *m, const gs_geometry3 *whole, const int dims[3], const char *name) {
  const int64_t nodes[3] = {m->n[0] + 1, m->n[1] + 1, m->n[2] + 1};
  const int nparts = dims[0] * dims[1] * dims[2];
  gs_geometry3 *part = calloc((size_t)nparts, sizeof *part);
  gs_compound_visit *all = NULL;
  int64_t nall = 0;
  char err[256];
  for (int p = 0; p < nparts; ++p) {
    const int coords[3] = {p % dims[0], p / dims[0] % dims[1], p / dims[0] / dims[1]};
    gs_part3 own = gs_decomp3_part(nodes, dims, coords);
    int64_t lo[3], hi[3];
    for (int a = 0; a < 3; ++a)
      lo[a] = own.lo[a] - 1, hi[a] = own.hi[a] + 1;
    CHECK(gs_geometry3_paint(&part[p], m->n[0], m->n[1], m->n[2], m->d[0], m->d[1], m->d[2], lo, hi, m->mat, m->nmat,
                             m->obj, m->nobj, err, sizeof err) == GS_OK);
    all = realloc(all, sizeof *all * (size_t)(nall + part[p].nvisits + 1));
    memcpy(all + nall, part[p].visits, sizeof *all * (size_t)part[p].nvisits);
    nall += part[p].nvisits;
  }
  long bad = 0;
  for (int p = 0; p < nparts; ++p) {
    CHECK(gs_geometry3_smooth(&part[p], all, nall, err, sizeof err) == GS_OK);
    bad += compare_part(whole, &part[p]);
    gs_geometry3_free(&part[p]);
  }
  CHECKF(bad == 0, "%s split %dx%dx%d: %ld values differ from the whole build", name, dims[0], dims[1], dims[2], bad);
  free(all);
  free(part);
}

static void run_case(const char *in, const char *g3) {
  model *m = calloc(1, sizeof *m);
  ref r = {0};
  CHECKF(read_model(in, m) == 0, "%s: read", in);
  CHECKF(read_ref(g3, &r) == 0, "%s: read", g3);
  if (gs_test_failures) {
    free(m);
    free_ref(&r);
    return;
  }
  CHECK(r.n[0] == m->n[0] && r.n[1] == m->n[1] && r.n[2] == m->n[2]);
  gs_geometry3 g;
  char err[256];
  gs_status st = gs_geometry3_build(&g, m->n[0], m->n[1], m->n[2], m->d[0], m->d[1], m->d[2], m->mat, m->nmat, m->obj,
                                    m->nobj, err, sizeof err);
  CHECKF(st == GS_OK, "%s: %s", in, err);
  if (st == GS_OK) {
    CHECK(compare(&g, &r, m->nmat, in) == 0);
    static const int splits[][3] = {{2, 2, 2}, {3, 1, 2}, {1, 4, 1}, {1, 1, 5}};
    for (size_t q = 0; q < sizeof splits / sizeof splits[0]; ++q)
      split_case(m, &g, splits[q], in);
    CHECKF(g.nmat == r.nmat, "%s: %d materials, gprMax %d", in, g.nmat, r.nmat);
    for (int k = 0; k < g.nmat && k < r.nmat; ++k)
      CHECKF(same_material(&g.mat[k], &r.mat[k]), "%s: material %d %s vs %s", in, k, g.mat[k].name, r.mat[k].name);
    gs_geometry3_free(&g);
  }
  free(m);
  free_ref(&r);
}

/* Errors gprMax reports (a box corner outside the domain, a degenerate edge). */
static void errors(void) {
  gs_mat3 mats[2] = {{"pec", 1, INFINITY, 1, 0, 0}, {"free_space", 1, 0, 1, 0, 1}};
  gs_obj3 box = {.type = GS_O3_BOX, .material = 0, .averaging = 1, .v = {0, 0, 0, 0.011, 0.005, 0.005}, .nv = 6};
  gs_geometry3 g;
  char err[256];
  CHECK(gs_geometry3_build(&g, 10, 10, 10, 1e-3, 1e-3, 1e-3, mats, 2, &box, 1, err, sizeof err) == GS_ERR_FORMAT);
  CHECK(strstr(err, "not within") != NULL);
  gs_obj3 edge = {.type = GS_O3_EDGE, .material = 0, .v = {0, 0, 0, 0.005, 0.005, 0}, .nv = 6};
  CHECK(gs_geometry3_build(&g, 10, 10, 10, 1e-3, 1e-3, 1e-3, mats, 2, &edge, 1, err, sizeof err) == GS_ERR_FORMAT);
  box.v[3] = 0.01;
  CHECK(gs_geometry3_build(&g, 10, 10, 10, 1e-3, 1e-3, 1e-3, mats, 2, &box, 1, err, sizeof err) == GS_OK);
  CHECK(g.solid[0] == 0 && g.id[2][0] == 0 && g.id[2][gs_geometry3_node(&g, 10, 5, 0)] == 0);
  gs_geometry3_free(&g);
}

int main(int argc, char **argv) {
  errors();
  if (argc == 3) {
    run_case(argv[1], argv[2]);
  } else if (argc == 2) {
    DIR *d = opendir(argv[1]);
    CHECKF(d != NULL, "%s", argv[1]);
    int cases = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      if (len < 4 || strcmp(e->d_name + len - 3, ".in")) continue;
      char in[1024], g3[1024];
      snprintf(in, sizeof in, "%s/%s", argv[1], e->d_name);
      snprintf(g3, sizeof g3, "%s/%.*s.g3", argv[1], (int)(len - 3), e->d_name);
      run_case(in, g3);
      ++cases;
    }
    if (d) closedir(d);
    CHECK(cases > 0);
  }
  return gs_test_done("test_geometry3d");
}

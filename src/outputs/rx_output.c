/* Receiver outputs (rx_output.h). */
#include "rx_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "gprmax_out.h"

static const char *const out_names[GS_OUT_N] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "Ix", "Iy", "Iz"};

/* Which of the frame's Ez, Hx, Hy (0-2) output o is, 3 for the current
 * along the thin axis, or -1 (not computed in this 2D model: always 0). */
static int frame_component(const gs_scene *sc, int o) {
  int comp[3];
  gs_scene_components(sc, comp);
  for (int k = 0; k < 3; ++k)
    if (comp[k] == o) return k;
  return o == GS_OUT_IX + sc->axis[2] ? 3 : -1;
}

/* Receiver k's value of frame component f (0-2 fields, 3 the current) at
 * step s: gprMax's Iz = dx (Hx(i, j-1) - Hx(i, j)) + dy (Hy(i, j) - Hy(i-1, j)),
 * float differences, double sum, stored as float; 0 on the first row and
 * column and off the plane. */
static float value(const gs_scene *sc, const float *rx, int64_t steps, int k, int f, int64_t s) {
  const gs_rx *r = &sc->rxs[k];
  if (r->offplane) return 0;
#define AT(q, c) rx[((size_t)(q) * (size_t)steps + (size_t)s) * 3 + (c)]
  if (f < 3) return AT(k, (size_t)f);
  if (r->below < 0) return 0;
  float dhx = AT(r->below, 1) - AT(k, 1), dhy = AT(k, 2) - AT(r->left, 2);
#undef AT
  return (float)(sc->dx * (double)dhx + sc->dy * (double)dhy);
}

/* A CSV field: quoted when the name holds a separator or a quote. */
static void put_field(FILE *fp, const char *name, const char *comp) {
  if (!strpbrk(name, ",\"\n\r")) {
    fprintf(fp, ",%s_%s", name, comp);
    return;
  }
  fputs(",\"", fp);
  for (const char *c = name; *c; ++c)
    fputs(*c == '"' ? "\"\"" : (char[]){*c, 0}, fp);
  fprintf(fp, "_%s\"", comp);
}

/* How a model's receivers give their columns: whether receiver k has a
 * column for output o, and its value at step s. */
typedef struct csv_source {
  int (*has)(const gs_scene *sc, int k, int o);
  float (*get)(const gs_scene *sc, const float *rx, int64_t steps, int k, int o, int64_t s);
} csv_source;

/* receivers.csv of either engine (rx_output.h); hidden helper receivers
 * have no outputs, so no columns. */
static gs_status write_csv(const gs_scene *sc, const csv_source *src, const float *rx, int64_t steps, const char *path,
                           char *err, size_t errlen) {
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  FILE *fp = t.fp;
  fprintf(fp, "time_s");
  for (int k = 0; k < sc->nrx; ++k)
    for (int o = 0; o < GS_OUT_N; ++o)
      if (src->has(sc, k, o)) put_field(fp, sc->rxs[k].name, out_names[o]);
  fputc('\n', fp);
  for (int64_t s = 0; s < steps; ++s) {
    fprintf(fp, "%.10e", (double)s * sc->dt);
    for (int k = 0; k < sc->nrx; ++k)
      for (int o = 0; o < GS_OUT_N; ++o)
        if (src->has(sc, k, o)) fprintf(fp, ",%.9g", src->get(sc, rx, steps, k, o, s));
    fputc('\n', fp);
  }
  return gs_tmpfile_commit(&t, 0, 0, err, errlen);
}

static int has2(const gs_scene *sc, int k, int o) {
  return (sc->rxs[k].outputs >> o & 1) && frame_component(sc, o) >= 0;
}

static float get2(const gs_scene *sc, const float *rx, int64_t steps, int k, int o, int64_t s) {
  return value(sc, rx, steps, k, frame_component(sc, o), s);
}

gs_status gs_rx_write_csv(const gs_scene *sc, const float *rx, int64_t steps, const char *path, char *err,
                          size_t errlen) {
  static const csv_source two = {has2, get2};
  return write_csv(sc, &two, rx, steps, path, err, errlen);
}

static const gs_scene *sort_scene;
static int by_name(const void *a, const void *b) {
  return strcmp(sort_scene->rxs[*(const int *)a].name, sort_scene->rxs[*(const int *)b].name);
}

/* Metres of frame node (i, j) in the file's axes (the thin axis at 0, or at
 * its far face for a receiver there). */
static void position(const gs_scene *sc, int64_t i, int64_t j, int far, double pos[3]) {
  pos[sc->axis[0]] = (double)i * sc->dx;
  pos[sc->axis[1]] = (double)j * sc->dy;
  pos[sc->axis[2]] = far ? sc->dz : 0;
}

/* The columns of one receiver: its requested outputs, sorted (gprMax's
 * order), zeros where the model computes none. */
static void rx_columns(const gs_scene *sc, const float *rx, int64_t steps, int k, float *zeros, float **cols,
                       gs_gpr_rx *out) {
  out->ncomp = 0;
  for (int o = 0; o < GS_OUT_N; ++o) {
    if (!(sc->rxs[k].outputs >> o & 1)) continue;
    int f = frame_component(sc, o);
    float *col = zeros;
    if (f >= 0 && !sc->rxs[k].offplane) {
      col = cols[4 * k + f] = gs_xmalloc(sizeof(float) * (size_t)steps + 1);
      for (int64_t s = 0; s < steps; ++s)
        col[s] = value(sc, rx, steps, k, f, s);
    }
    out->comp[out->ncomp] = out_names[o];
    out->data[out->ncomp++] = col;
  }
}

gs_status gs_rx_write_h5(const gs_scene *sc, const float *rx, int64_t steps, int run, const char *path, char *err,
                         size_t errlen) {
  int *order = gs_xmalloc(sizeof(int) * (size_t)sc->nrx + 1), nrx = 0;
  for (int k = 0; k < sc->nrx; ++k)
    if (!sc->rxs[k].hidden) order[nrx++] = k;
  sort_scene = sc;
  qsort(order, (size_t)nrx, sizeof(int), by_name);
  float *zeros = gs_xcalloc((size_t)steps + 1, sizeof(float));
  float **cols = gs_xcalloc(4 * (size_t)sc->nrx + 1, sizeof(float *));
  gs_gpr_rx *rxs = gs_xcalloc((size_t)sc->nrx + 1, sizeof *rxs);
  gs_gpr_src *srcs = gs_xcalloc((size_t)sc->nsources + 1, sizeof *srcs);
  for (int n = 0; n < nrx; ++n) {
    const gs_rx *r = &sc->rxs[order[n]];
    rxs[n].name = r->name;
    position(sc, r->i + (int64_t)run * sc->rx_di, r->j + (int64_t)run * sc->rx_dj, r->offplane, rxs[n].pos);
    rx_columns(sc, rx, steps, order[n], zeros, cols, &rxs[n]);
  }
  for (int n = 0; n < sc->nsources; ++n) {
    srcs[n].type = "HertzianDipole";
    position(sc, sc->sources[n].i + (int64_t)run * sc->src_di, sc->sources[n].j + (int64_t)run * sc->src_dj, 0,
             srcs[n].pos);
  }
  gs_gpr_model m = {
      .title = sc->title, .iterations = steps, .dt = sc->dt, .nsrc = sc->nsources, .nrx = nrx, .src = srcs, .rx = rxs};
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  const int64_t n[3] = {sc->nx, sc->ny, 1}, step_src[3] = {sc->src_di, sc->src_dj, 0},
                step_rx[3] = {sc->rx_di, sc->rx_dj, 0};
  for (int k = 0; k < 3; ++k) {
    m.dxdydz[sc->axis[k]] = d[k];
    m.nxnynz[sc->axis[k]] = n[k];
    m.srcsteps[sc->axis[k]] = (int32_t)step_src[k];
    m.rxsteps[sc->axis[k]] = (int32_t)step_rx[k];
  }
  gs_status st = gs_gpr_write_receivers(path, &m, err, errlen);
  for (size_t k = 0; k < 4 * (size_t)sc->nrx; ++k)
    free(cols[k]);
  free(cols);
  free(zeros);
  free(rxs);
  free(srcs);
  free(order);
  return st;
}

/* ---- 3D models: six components per receiver, [step][receiver][6] ---- */

static int has3(const gs_scene *sc, int k, int o) {
  return o < 6 && (sc->rxs[k].outputs >> o & 1);
}

static float get3(const gs_scene *sc, const float *rx, int64_t steps, int k, int o, int64_t s) {
  (void)steps;
  return rx[((size_t)s * (size_t)sc->nrx + (size_t)k) * 6 + (size_t)o];
}

gs_status gs_rx3_write_csv(const gs_scene *sc, const float *rx, int64_t steps, const char *path, char *err,
                           size_t errlen) {
  static const csv_source three = {has3, get3};
  return write_csv(sc, &three, rx, steps, path, err, errlen);
}

/* The srcs groups in gprMax's order: voltage sources, Hertzian dipoles,
 * magnetic dipoles (transmission lines have their own group). */
static int sources3(const gs_scene *sc, int run, gs_gpr_src *srcs) {
  static const int kinds[3] = {GS_SRC3_VOLTAGE, -1, GS_SRC3_MAGNETIC};
  static const char *const types[3] = {"VoltageSource", "HertzianDipole", "MagneticDipole"};
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  int n = 0;
  for (int pass = 0; pass < 3; ++pass) {
    int count = pass == 1 ? sc->nsources : sc->nsrc3;
    for (int q = 0; q < count; ++q) {
      if (pass != 1 && sc->src3[q].kind != kinds[pass]) continue;
      const gs_source *s = pass == 1 ? &sc->sources[q] : &sc->src3[q].at;
      const int64_t r = pass == 0 ? 0 : run; /* gprMax 4 does not move voltage sources */
      const int64_t p[3] = {s->i + r * sc->src_di, s->j + r * sc->src_dj, s->k + r * sc->src_dk};
      srcs[n].type = types[pass];
      for (int a = 0; a < 3; ++a)
        srcs[n].pos[a] = (double)p[a] * d[a];
      ++n;
    }
  }
  return n;
}

gs_status gs_rx3_write_h5(const gs_scene *sc, const float *rx, int64_t steps, int run,
                          const gs_fdtd3_line_record *lines, int ntl, const char *path, char *err, size_t errlen) {
  int *order = gs_xmalloc(sizeof(int) * (size_t)sc->nrx + 1);
  for (int k = 0; k < sc->nrx; ++k)
    order[k] = k;
  sort_scene = sc;
  qsort(order, (size_t)sc->nrx, sizeof(int), by_name);
  float *cols = gs_xmalloc(sizeof(float) * 6 * (size_t)sc->nrx * (size_t)steps + 1);
  gs_gpr_rx *rxs = gs_xcalloc((size_t)sc->nrx + 1, sizeof *rxs);
  gs_gpr_src *srcs = gs_xcalloc((size_t)sc->nsources + (size_t)sc->nsrc3 + 1, sizeof *srcs);
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  for (int n = 0; n < sc->nrx; ++n) {
    const gs_rx *r = &sc->rxs[order[n]];
    const int64_t p[3] = {r->i + run * sc->rx_di, r->j + run * sc->rx_dj, r->k + run * sc->rx_dk};
    rxs[n].name = r->name;
    for (int a = 0; a < 3; ++a)
      rxs[n].pos[a] = (double)p[a] * d[a];
    for (int o = 0; o < 6; ++o) {
      if (!(r->outputs >> o & 1)) continue;
      float *col = cols + ((size_t)order[n] * 6 + (size_t)o) * (size_t)steps;
      for (int64_t s = 0; s < steps; ++s)
        col[s] = rx[((size_t)s * (size_t)sc->nrx + (size_t)order[n]) * 6 + (size_t)o];
      rxs[n].comp[rxs[n].ncomp] = out_names[o];
      rxs[n].data[rxs[n].ncomp++] = col;
    }
  }
  const int nsrc = sources3(sc, run, srcs);
  gs_gpr_tl *tl = gs_xcalloc((size_t)ntl + 1, sizeof *tl);
  for (int q = 0; q < ntl; ++q)
    tl[q] = (gs_gpr_tl){{lines[q].pos[0], lines[q].pos[1], lines[q].pos[2]},
                        lines[q].resistance,
                        lines[q].dl,
                        lines[q].n,
                        lines[q].vinc,
                        lines[q].iinc,
                        lines[q].vtotal,
                        lines[q].itotal};
  gs_gpr_model m = {.title = sc->title,
                    .iterations = steps,
                    .dt = sc->dt,
                    .ntl = ntl,
                    .tl = tl,
                    .nsrc = nsrc,
                    .nrx = sc->nrx,
                    .src = srcs,
                    .rx = rxs,
                    .dxdydz = {sc->dx, sc->dy, sc->dz},
                    .nxnynz = {sc->nx, sc->ny, sc->nz},
                    .srcsteps = {(int32_t)sc->src_di, (int32_t)sc->src_dj, (int32_t)sc->src_dk},
                    .rxsteps = {(int32_t)sc->rx_di, (int32_t)sc->rx_dj, (int32_t)sc->rx_dk}};
  gs_status st = gs_gpr_write_receivers(path, &m, err, errlen);
  free(tl);
  free(cols);
  free(rxs);
  free(srcs);
  free(order);
  return st;
}

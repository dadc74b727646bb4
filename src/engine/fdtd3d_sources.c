/* The 3D model's magnetic dipoles, voltage sources and transmission lines
 * (fdtd3d_sources.h; the kernels: kernels/fdtd3d_src.h). Compiled with
 * -ffp-contract=off: the values are gprMax's float64/float32 arithmetic. */
#include "fdtd3d_sources.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fdtd3d_src_node.h"

#define C0 299792458.0

/* A node whose E material a resistive voltage source changed: before and after. */
typedef struct node_change {
  int c;
  int64_t off;
  uint8_t was, now;
} node_change;

struct gs_fdtd3_xsrc {
  gs_fdtd3_srcs dev; /* what the kernel reads (device pointers) */
  void **alloc;      /* device memory to free */
  int nalloc;
  int ntl;
  gs_fdtd3_tline *tl_host; /* the lines' structs (device pointers inside) */
  float *tl_inc;           /* host: [line][Vinc, Iinc][iterations + 1] */
  const gs_source3 **tl_src;
  node_change *changed; /* the resistive voltage sources' nodes, in the order they were changed */
  int nchanged;
};

static void *upload(gs_fdtd3_sim *m, const void *host, size_t bytes) {
  struct gs_fdtd3_xsrc *x = m->xsrc;
  return gs_fdtd3_upload(m, host, bytes, &x->alloc, &x->nalloc);
}

/* The source's last time: gprMax's min(removal time, time window). */
static double stop_of(const gs_scene *sc, const gs_source *s) {
  return sc->timewindow > 0 && s->stop > sc->timewindow ? sc->timewindow : s->stop;
}

/* gprMax's waveformvalues_wholedt (half = 0) or _halfdt (half = 1): float32
 * of the waveform at n dt - delay (+ dt / 2) while n dt is in [delay, stop],
 * n in [0, iterations]. -1 with err where a user waveform is undefined. */
static int wave_values(const gs_scene *sc, const gs_source *s, int half, float *out, char *err, size_t errlen) {
  const gs_waveform *w = &sc->waveforms[s->waveform];
  const double stop = stop_of(sc, s);
  for (int64_t n = 0; n <= sc->iterations; ++n) {
    double time = sc->dt * (double)n;
    out[n] = 0;
    if (!(time >= s->start && time <= stop)) continue;
    time -= s->start;
    double v = gs_waveform_value(w, half ? time + 0.5 * sc->dt : time);
    if (isnan(v)) {
      snprintf(err, errlen, "%s:%d: #excitation_file: waveform %s is not defined at %g s (outside the file's times)",
               sc->path, gs_user_wave_line(w->user), w->name, half ? time + 0.5 * sc->dt : time);
      return -1;
    }
    out[n] = (float)v;
  }
  return 0;
}

/* The source's node in this run: #src_steps moves magnetic dipoles (as
 * Hertzian dipoles); gprMax 4 leaves voltage sources and lines in place. */
static int64_t node_of(const gs_fdtd3_sim *m, const gs_source3 *v, int64_t p[3]) {
  const gs_scene *sc = m->sc;
  const gs_source *s = &v->at;
  const int64_t run = v->kind == GS_SRC3_MAGNETIC ? m->run : 0;
  p[0] = s->i + run * sc->src_di;
  p[1] = s->j + run * sc->src_dj;
  p[2] = s->k + run * sc->src_dk;
  return p[2] * m->plane + p[1] * m->pitch + p[0];
}

/* The sources of kind at nodes m owns (all of them on one rank; on a part
 * of a split model each source is its owner's). */
static int count_owned(const gs_fdtd3_sim *m, int kind) {
  int n = 0;
  int64_t p[3];
  for (int q = 0; q < m->sc->nsrc3; ++q)
    if (m->sc->src3[q].kind == kind) {
      node_of(m, &m->sc->src3[q], p);
      n += gs_fdtd3_sim_owns(m, p[0], p[1], p[2]);
    }
  return n;
}

/* Magnetic dipoles: H -= float32(srcm * I) / (dx dy dz), srcm of the H
 * node's material (gprMax's updatecoeffsH[., 4] = 1 / HA). */
static int init_magnetic(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const int n = count_owned(m, GS_SRC3_MAGNETIC);
  if (!n) return 0;
  int64_t *off = gs_xmalloc(sizeof *off * (size_t)n), *ijk = gs_xmalloc(sizeof *ijk * 3 * (size_t)n);
  int *comp = gs_xmalloc(sizeof *comp * (size_t)n);
  double *val = gs_xcalloc((size_t)(sc->iterations + 1) * (size_t)n, sizeof *val);
  float *wave = gs_xmalloc(sizeof *wave * (size_t)(sc->iterations + 1));
  int rc = 0;
  for (int q = 0, k = 0; q < sc->nsrc3 && !rc; ++q) {
    const gs_source *s = &sc->src3[q].at;
    if (sc->src3[q].kind != GS_SRC3_MAGNETIC) continue;
    int64_t p[3];
    const int64_t o = node_of(m, &sc->src3[q], p);
    if (!gs_fdtd3_sim_owns(m, p[0], p[1], p[2])) continue; /* another rank's */
    off[k] = o;
    memcpy(&ijk[3 * k], p, sizeof p);
    comp[k] = s->pol;
    const gs_mat3 *mt = &g->mat[g->id[3 + s->pol][gs_geometry3_node(g, ijk[3 * k], ijk[3 * k + 1], ijk[3 * k + 2])]];
    const float srcm = (float)(1 / (GS_MU0 * mt->mr / sc->dt + 0.5 * mt->sm));
    rc = wave_values(sc, s, 0, wave, err, errlen);
    for (int64_t t = 0; t <= sc->iterations && !rc; ++t)
      val[t * n + k] = (double)(srcm * wave[t]) * (1 / (sc->dx * sc->dy * sc->dz));
    ++k;
  }
  if (!rc) {
    m->xsrc->dev.nmag = n;
    m->xsrc->dev.mag_off = upload(m, off, sizeof *off * (size_t)n);
    m->xsrc->dev.mag_ijk = upload(m, ijk, sizeof *ijk * 3 * (size_t)n);
    m->xsrc->dev.mag_comp = upload(m, comp, sizeof *comp * (size_t)n);
    m->xsrc->dev.mag_val = upload(m, val, sizeof *val * (size_t)(sc->iterations + 1) * (size_t)n);
  }
  free(off), free(ijk), free(comp), free(val), free(wave);
  return rc;
}

/* The material of E component c at owned node p (offset off) as the
 * sources set up so far leave it: a resistive voltage source's own where
 * one changed it, else the geometry's (the device's array before the run's
 * sources; the geometry, not the array, is read, so a survey's later run on
 * the same arrays, gs_fdtd3_sim_keep, finds the same). */
static int node_material(const gs_fdtd3_sim *m, const gs_geometry3 *g, int c, const int64_t p[3], int64_t off) {
  const struct gs_fdtd3_xsrc *x = m->xsrc;
  for (int q = x->nchanged - 1; q >= 0; --q)
    if (x->changed[q].c == c && x->changed[q].off == off) return x->changed[q].now;
  return (uint8_t)g->id[c][gs_geometry3_node(g, p[0], p[1], p[2])];
}

/* A resistive source's material (gprMax's create_material): the node's
 * material with sigma += d_pol / (R d_a d_b), never averaged, appended to
 * the table; the node takes it (recorded for gs_fdtd3_src_restore). Returns
 * its srce, or -1 when the table is full. */
static int voltage_material(gs_fdtd3_sim *m, const gs_geometry3 *g, const gs_source3 *v, const int64_t p[3],
                            int64_t off, int *nmat, float *srce) {
  const gs_scene *sc = m->sc;
  struct gs_fdtd3_xsrc *x = m->xsrc;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  const int c = v->at.pol;
  if (*nmat >= GS_FDTD3_MAX_MATERIALS) return -1;
  const int was = node_material(m, g, c, p, off);
  const gs_mat3 *base = &g->mat[was];
  const int a = c == 0 ? 1 : 0, b = c == 2 ? 1 : 2; /* the other two axes, in x, y, z order */
  const double se = base->se + d[c] / (v->resistance * d[a] * d[b]);
  gs_fdtd3_coef k = {0, 0, 0, 0, 0};
  if (isfinite(se)) {
    double ea = GS_EPS0 * base->er / sc->dt + 0.5 * se, eb = GS_EPS0 * base->er / sc->dt - 0.5 * se;
    k = (gs_fdtd3_coef){(float)(eb / ea), (float)(1 / sc->dx * 1 / ea), (float)(1 / sc->dy * 1 / ea),
                        (float)(1 / sc->dz * 1 / ea), (float)(1 / ea)};
  }
  const uint8_t id = (uint8_t)*nmat;
  m->coef_host[*nmat] = k;
  x->changed = gs_xrealloc(x->changed, sizeof *x->changed * (size_t)(x->nchanged + 1));
  x->changed[x->nchanged++] = (node_change){c, off, (uint8_t)was, id};
  m->b->copy_h2d(m->mat[c] + (off - m->bias), &id, 1, m->s);
  m->b->stream_sync(m->s);
  ++*nmat;
  *srce = k.src;
  return 0;
}

static int too_many(const gs_scene *sc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: more than %d materials with the resistive voltage sources' own", sc->path,
           GS_FDTD3_MAX_MATERIALS);
  return -1;
}

/* Voltage sources: resistive: E -= float32(srce * V(t + dt/2)) / (R d_a d_b);
 * hard (R = 0): E = -V(t) / d_pol. */
static int init_voltage(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const int n = count_owned(m, GS_SRC3_VOLTAGE);
  if (!n) return 0;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  int64_t *off = gs_xmalloc(sizeof *off * (size_t)n), p[3];
  int *comp = gs_xmalloc(sizeof *comp * (size_t)n), *hard = gs_xmalloc(sizeof *hard * (size_t)n), nmat = g->nmat;
  double *val = gs_xcalloc((size_t)(sc->iterations + 1) * (size_t)n, sizeof *val);
  float *wave = gs_xmalloc(sizeof *wave * (size_t)(sc->iterations + 1)), srce = 0;
  int rc = 0;
  for (int q = 0, k = 0; q < sc->nsrc3 && !rc; ++q) {
    const gs_source3 *v = &sc->src3[q];
    if (v->kind != GS_SRC3_VOLTAGE) continue;
    const int c = v->at.pol, a = c == 0 ? 1 : 0, b = c == 2 ? 1 : 2;
    const int64_t o = node_of(m, v, p);
    if (!gs_fdtd3_sim_owns(m, p[0], p[1], p[2])) { /* another rank's: its material counts all the same */
      if (v->resistance != 0 && nmat++ >= GS_FDTD3_MAX_MATERIALS) rc = too_many(sc, err, errlen);
      continue;
    }
    off[k] = o;
    comp[k] = c;
    hard[k] = v->resistance == 0;
    if (!hard[k] && voltage_material(m, g, v, p, off[k], &nmat, &srce)) {
      rc = too_many(sc, err, errlen);
      break;
    }
    rc = wave_values(sc, &v->at, !hard[k], wave, err, errlen);
    const double stop = stop_of(sc, &v->at);
    for (int64_t t = 0; t <= sc->iterations && !rc; ++t) {
      const double time = (double)t * sc->dt;
      if (hard[k])
        val[t * n + k] = time >= v->at.start && time <= stop ? (double)(-wave[t]) / d[c] : NAN;
      else
        val[t * n + k] = (double)(srce * wave[t]) * (1 / (v->resistance * d[a] * d[b]));
    }
    ++k;
  }
  if (!rc) {
    m->b->copy_h2d(m->coef, m->coef_host, sizeof m->coef_host, m->s);
    m->xsrc->dev.nvolt = n;
    m->xsrc->dev.volt_off = upload(m, off, sizeof *off * (size_t)n);
    m->xsrc->dev.volt_comp = upload(m, comp, sizeof *comp * (size_t)n);
    m->xsrc->dev.volt_hard = upload(m, hard, sizeof *hard * (size_t)n);
    m->xsrc->dev.volt_val = upload(m, val, sizeof *val * (size_t)(sc->iterations + 1) * (size_t)n);
  }
  free(off), free(comp), free(hard), free(val), free(wave);
  return rc;
}

/* gprMax's round_value: to the nearest whole number, halves down. */
static int64_t round_half_down(double v) {
  double f = floor(v);
  return (int64_t)(v - f > 0.5 ? f + 1 : f);
}

/* The line's constants, gprMax's TransmissionLine (float64 scalars; the
 * array updates' factors rounded to float32, as numpy does). */
static void tl_constants(const gs_scene *sc, const gs_source3 *v, gs_fdtd3_tline *l) {
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  const double dl = sqrt(3.0) * C0 * sc->dt, cdl = C0 * sc->dt / dl;
  const int c = v->at.pol;
  l->comp = c;
  l->cdl = cdl;
  l->kinj = 1 / v->resistance * cdl;
  l->kv = (float)(v->resistance * cdl);
  l->ki = (float)(1 / v->resistance * cdl);
  l->h_abc = (C0 * sc->dt - dl) / (C0 * sc->dt + dl);
  l->d_comp = d[c];
  l->d_a = d[c == 0 ? 1 : 0];
  l->d_b = d[c == 2 ? 1 : 2];
  l->start = v->at.start;
  l->stop = stop_of(sc, &v->at);
  l->dt = sc->dt;
}

/* gprMax's calculate_incident_V_I: the long line alone for `iterations`
 * steps (V and I at the antenna cell recorded before each), whose first
 * cells and ABC state the coupled line then starts from. buf: the line's
 * device-layout block (volt, curr, abc, vtotal, itotal, whole, half). */
static int tl_incident(const gs_scene *sc, gs_fdtd3_tline *l, float *buf, float *inc, char *err, size_t errlen) {
  const int64_t nl = round_half_down(0.667 * (double)sc->iterations), N = sc->iterations + 1;
  if (nl < GS_FDTD3_TL_CELLS) {
    int64_t least = sc->iterations + 1; /* the fewest iterations whose line is long enough */
    while (round_half_down(0.667 * (double)least) < GS_FDTD3_TL_CELLS)
      ++least;
    snprintf(err, errlen, "%s: #transmission_line: %lld iterations are too few for gprMax's line (at least %lld)",
             sc->path, (long long)sc->iterations, (long long)least);
    return -1;
  }
  float *volt = gs_xcalloc((size_t)nl, sizeof *volt), *curr = gs_xcalloc((size_t)nl, sizeof *curr);
  float abc[2] = {0, 0};
  for (int64_t t = 0; t < sc->iterations; ++t) {
    inc[N + t] = curr[GS_FDTD3_TL_ANT];
    inc[t] = volt[GS_FDTD3_TL_ANT];
    /* Only the cells that matter (the same bits, a quarter of the work): a
     * step moves a value one cell; the line is 0 beyond the injector plus t
     * cells, and cells more than N - t beyond the antenna can no longer
     * reach what is kept (Vinc, Iinc, the first cells). */
    int64_t n = nl, front = GS_FDTD3_TL_SRC + t + 3, reach = GS_FDTD3_TL_ANT + (N - t) + 3;
    if (front < n) n = front;
    if (reach < n) n = reach;
    gs_fdtd3_tl_update_current(l, volt, curr, n, t);
    gs_fdtd3_tl_update_voltage(l, volt, curr, abc, n, t);
  }
  memcpy(buf, volt, sizeof(float) * GS_FDTD3_TL_CELLS);
  memcpy(buf + GS_FDTD3_TL_CELLS, curr, sizeof(float) * GS_FDTD3_TL_CELLS);
  memcpy(buf + 2 * GS_FDTD3_TL_CELLS, abc, sizeof abc);
  free(volt);
  free(curr);
  return 0;
}

static int init_tlines(gs_fdtd3_sim *m, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  struct gs_fdtd3_xsrc *x = m->xsrc;
  const int n = count_owned(m, GS_SRC3_TLINE);
  if (!n) return 0;
  const int64_t N = sc->iterations + 1, head = 2 * GS_FDTD3_TL_CELLS + 2;
  const size_t floats = (size_t)(head + 4 * N);
  x->ntl = n;
  x->tl_host = gs_xcalloc((size_t)n, sizeof *x->tl_host);
  x->tl_inc = gs_xcalloc((size_t)n * 2 * (size_t)N, sizeof *x->tl_inc);
  x->tl_src = gs_xcalloc((size_t)n, sizeof *x->tl_src);
  float *buf = gs_xmalloc(sizeof(float) * floats);
  int rc = 0;
  for (int q = 0, k = 0; q < sc->nsrc3 && !rc; ++q) {
    const gs_source3 *v = &sc->src3[q];
    if (v->kind != GS_SRC3_TLINE) continue;
    gs_fdtd3_tline *l = &x->tl_host[k];
    int64_t p[3];
    node_of(m, v, p);
    if (!gs_fdtd3_sim_owns(m, p[0], p[1], p[2])) continue; /* another rank's */
    x->tl_src[k] = v;
    l->i = p[0], l->j = p[1], l->k = p[2];
    tl_constants(sc, v, l);
    memset(buf, 0, sizeof(float) * floats);
    float *whole = buf + head + 2 * N, *half = whole + N;
    rc = wave_values(sc, &v->at, 0, whole, err, errlen) || wave_values(sc, &v->at, 1, half, err, errlen);
    l->wave_whole = whole, l->wave_half = half; /* host, for the incident run */
    if (!rc) rc = tl_incident(sc, l, buf, x->tl_inc + (size_t)k * 2 * (size_t)N, err, errlen);
    if (rc) break;
    float *dev = upload(m, buf, sizeof(float) * floats);
    l->volt = dev;
    l->curr = dev + GS_FDTD3_TL_CELLS;
    l->abc = dev + 2 * GS_FDTD3_TL_CELLS;
    l->vtotal = dev + head;
    l->itotal = dev + head + N;
    l->wave_whole = dev + head + 2 * N;
    l->wave_half = dev + head + 3 * N;
    ++k;
  }
  free(buf);
  if (!rc) {
    x->dev.ntl = n;
    x->dev.tl = upload(m, x->tl_host, sizeof *x->tl_host * (size_t)n);
  }
  return rc;
}

/* Hertzian dipoles (moved by #src_steps): E -= float64(float32(srce * I)) * dl * (1 / (dx dy
 * dz)), rounded once, as gprMax's numpy scalars do; srce of the node's material after the
 * voltage sources'. */
static int init_hertzian(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  int n = 0;
  for (int q = 0; q < sc->nsources; ++q) {
    const gs_source *s = &sc->sources[q];
    n += gs_fdtd3_sim_owns(m, s->i + m->run * sc->src_di, s->j + m->run * sc->src_dj, s->k + m->run * sc->src_dk);
  }
  if (!n) return 0;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  int64_t *off = gs_xmalloc(sizeof *off * (size_t)n);
  int *comp = gs_xmalloc(sizeof *comp * (size_t)n), rc = 0;
  double *val = gs_xcalloc((size_t)(sc->iterations + 1) * (size_t)n, sizeof *val);
  float *wave = gs_xmalloc(sizeof *wave * (size_t)(sc->iterations + 1));
  for (int q = 0, k = 0; q < sc->nsources && !rc; ++q) {
    const gs_source *s = &sc->sources[q];
    const int64_t i = s->i + m->run * sc->src_di, j = s->j + m->run * sc->src_dj, kk = s->k + m->run * sc->src_dk;
    if (!gs_fdtd3_sim_owns(m, i, j, kk)) continue; /* another rank's */
    const int c = s->pol;
    comp[k] = c;
    off[k] = kk * m->plane + j * m->pitch + i;
    const int64_t p[3] = {i, j, kk};
    const float srce = m->coef_host[node_material(m, g, c, p, off[k])].src;
    rc = wave_values(sc, s, !sc->gprmax3_timing, wave, err, errlen);
    for (int64_t t = 0; t <= sc->iterations && !rc; ++t)
      val[t * n + k] = (double)(srce * wave[t]) * d[c] * (1 / (sc->dx * sc->dy * sc->dz));
    ++k;
  }
  if (!rc) {
    m->xsrc->dev.nhd = n;
    m->xsrc->dev.hd_off = upload(m, off, sizeof *off * (size_t)n);
    m->xsrc->dev.hd_comp = upload(m, comp, sizeof *comp * (size_t)n);
    m->xsrc->dev.hd_val = upload(m, val, sizeof *val * (size_t)(sc->iterations + 1) * (size_t)n);
  }
  free(off), free(comp), free(val), free(wave);
  return rc;
}

gs_status gs_fdtd3_src_init(gs_fdtd3_sim *m, const gs_geometry3 *g, char *err, size_t errlen) {
  if (!m->sc->nsrc3 && !m->sc->nsources) return GS_OK;
  m->xsrc = gs_xcalloc(1, sizeof *m->xsrc);
  if (init_magnetic(m, g, err, errlen) || init_voltage(m, g, err, errlen) || init_tlines(m, err, errlen) ||
      init_hertzian(m, g, err, errlen))
    return GS_ERR_USAGE;
  return GS_OK;
}

void gs_fdtd3_src_restore(gs_fdtd3_sim *m) {
  const struct gs_fdtd3_xsrc *x = m->xsrc;
  if (!x || !x->nchanged) return;
  for (int q = x->nchanged - 1; q >= 0; --q) /* the last first: a node changed twice ends with its geometry's */
    m->b->copy_h2d(m->mat[x->changed[q].c] + (x->changed[q].off - m->bias), &x->changed[q].was, 1, m->s);
  m->b->stream_sync(m->s); /* before the list goes */
}

void gs_fdtd3_src_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t, int part) {
  m->xsrc->dev.part = part;
  m->b->fdtd3_sources(a, &m->xsrc->dev, t, m->s);
}

void gs_fdtd3_src_e_nodes(const gs_fdtd3_sim *m, gs_fdtd3_node_fn fn, void *ctx) {
  const gs_scene *sc = m->sc;
  for (int q = 0; q < sc->nsrc3; ++q) {
    const gs_source3 *v = &sc->src3[q];
    int64_t p[3];
    node_of(m, v, p);
    if (v->kind != GS_SRC3_MAGNETIC) { /* a voltage source's or a line's E node */
      fn(ctx, v->at.pol, p[0], p[1], p[2]);
      continue;
    }
    for (int w = 0; w < 4; ++w) { /* gs_fdtd3_src_mag_e's nodes */
      const int c = v->at.pol, ce = w < 2 ? (c + 1) % 3 : (c + 2) % 3, up = 3 - c - ce;
      int64_t s[3] = {p[0], p[1], p[2]};
      s[up] += w % 2;
      fn(ctx, ce, s[0], s[1], s[2]);
    }
  }
  for (int q = 0; q < sc->nsources; ++q) { /* Hertzian dipoles */
    const gs_source *s = &sc->sources[q];
    fn(ctx, s->pol, s->i + m->run * sc->src_di, s->j + m->run * sc->src_dj, s->k + m->run * sc->src_dk);
  }
}

int gs_fdtd3_src_state(gs_fdtd3_sim *m, gs_fdtd3_state *out) {
  const struct gs_fdtd3_xsrc *x = m->xsrc;
  int n = 0;
  const size_t series = sizeof(float) * (size_t)(m->sc->iterations + 1);
  for (int q = 0; x && q < x->ntl && q < GS_FDTD3_CKPT_LINES; ++q) {
    const gs_fdtd3_tline *l = &x->tl_host[q];
    void *dev[5] = {l->volt, l->curr, l->abc, l->vtotal, l->itotal};
    const size_t bytes[5] = {sizeof(float) * GS_FDTD3_TL_CELLS, sizeof(float) * GS_FDTD3_TL_CELLS, sizeof(float) * 2,
                             series, series};
    static const char *what[5] = {"volt", "curr", "abc", "vtotal", "itotal"};
    for (int k = 0; k < 5; ++k) {
      out[n] = (gs_fdtd3_state){.dev = dev[k], .bytes = bytes[k]};
      snprintf(out[n++].name, sizeof out[0].name, "tl%d.%s", q + 1, what[k]);
    }
  }
  return n;
}

const gs_source3 *gs_fdtd3_src_line_of(const gs_fdtd3_sim *m, int q) {
  return m->xsrc->tl_src[q];
}

int gs_fdtd3_src_lines(const gs_fdtd3_sim *m) {
  return m->xsrc ? m->xsrc->ntl : 0;
}

void gs_fdtd3_src_line(const gs_fdtd3_sim *m, int q, gs_fdtd3_line_record *out, float *vtotal, float *itotal) {
  const struct gs_fdtd3_xsrc *x = m->xsrc;
  const gs_scene *sc = m->sc;
  const int64_t N = sc->iterations + 1;
  const gs_fdtd3_tline *l = &x->tl_host[q];
  m->b->copy_d2h(vtotal, l->vtotal, sizeof(float) * (size_t)N, m->s);
  m->b->copy_d2h(itotal, l->itotal, sizeof(float) * (size_t)N, m->s);
  m->b->stream_sync(m->s);
  *out = (gs_fdtd3_line_record){.pos = {(double)l->i * sc->dx, (double)l->j * sc->dy, (double)l->k * sc->dz},
                                .resistance = x->tl_src[q]->resistance,
                                .dl = sqrt(3.0) * C0 * sc->dt,
                                .n = N,
                                .vinc = x->tl_inc + (size_t)q * 2 * (size_t)N,
                                .iinc = x->tl_inc + ((size_t)q * 2 + 1) * (size_t)N,
                                .vtotal = vtotal,
                                .itotal = itotal};
}

void gs_fdtd3_src_free(gs_fdtd3_sim *m) {
  struct gs_fdtd3_xsrc *x = m->xsrc;
  if (!x) return;
  gs_fdtd3_upload_free(m, &x->alloc, &x->nalloc);
  free(x->tl_host);
  free(x->tl_inc);
  free(x->tl_src);
  free(x->changed);
  free(x);
  m->xsrc = NULL;
}

/* The 3D model's discrete plane waves (fdtd3d_planewave.h; the kernels:
 * kernels/fdtd3d_pw.h). The set-up repeats gprMax 4's DiscretePlaneWave
 * (sources.py) and calculate1DWaveformValues/getSource (cython/
 * plane_wave.pyx) in float64, rounded to float32 where gprMax stores
 * float32 (docs/gprmax-rules.md, "Discrete plane waves"). Compiled with
 * -ffp-contract=off; the fused multiply-adds gprMax's compiled code has are
 * explicit fma() calls. */
#include "fdtd3d_planewave.h"

#include <math.h>
#ifndef M_PI /* C11 leaves it out */
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fdtd3d_pw_node.h"

#define C0 299792458.0
#define PW_PML_CELLS 20 /* gprMax's 1D PML: 20 cells per unit of |m| */
#define DEG (180.0 / M_PI)
#define RAD (M_PI / 180.0)

struct gs_fdtd3_pws {
  int n;
  gs_fdtd3_pw *w; /* [n]: device pointers inside */
  void **alloc;
  int nalloc;
};

static void *upload(gs_fdtd3_sim *m, const void *host, size_t bytes) {
  struct gs_fdtd3_pws *x = m->pw;
  return gs_fdtd3_upload(m, host, bytes, &x->alloc, &x->nalloc);
}

/* Python's continued-fraction convergents (gprMax's continued_fractions,
 * 15 terms, stopping once the remainder is below 1e-12); -1 once a term or
 * a convergent leaves int64: gprMax then fails (every pair of convergents
 * becomes a numpy int64 candidate, and its lcm is at least the larger q).
 * The bounds keep every product below 2^127. */
static int convergents(double x, __int128 out[15][2]) {
  const __int128 lim = INT64_MAX;
  __int128 pp = 0, qp = 1, pc = 1, qc = 0;
  double xi = x;
  for (int t = 0; t < 15; ++t) {
    const double a = floor(xi);
    if (!(fabs(a) < 9.2e18)) return -1;
    const __int128 A = (__int128)a;
    const __int128 pn = A * pc + pp, qn = A * qc + qp;
    if (pn > lim || pn < -lim || qn > lim || qn < -lim) return -1;
    out[t][0] = pn, out[t][1] = qn;
    if (fabs(xi - a) < 1e-12) return t + 1;
    xi = 1 / (xi - a);
    pp = pc, qp = qc, pc = pn, qc = qn;
  }
  return 15;
}

static __int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    __int128 r = a % b;
    a = b, b = r;
  }
  return a;
}

/* m / d normalised (numpy's m_vec / delta / norm), and its angle to u in degrees. */
static double candidate_error(const int64_t m[3], const double d[3], const double u[3], double unit[3]) {
  double v[3], norm = 0, dot = 0;
  for (int a = 0; a < 3; ++a)
    v[a] = (double)m[a] / d[a];
  for (int a = 0; a < 3; ++a)
    norm += v[a] * v[a];
  norm = sqrt(norm);
  for (int a = 0; a < 3; ++a)
    unit[a] = v[a] / (norm != 0 ? norm : 1);
  for (int a = 0; a < 3; ++a)
    dot += unit[a] * u[a];
  return acos(fmax(-1.0, fmin(1.0, dot))) * DEG;
}

/* One candidate from convergents (p1/q1, p2/q2): 0, or -1 when numpy's int64 would overflow. */
static int candidate(const __int128 c1[2], const __int128 c2[2], const int perm[3], double sign, int64_t m[3]) {
  const __int128 g = gcd128(c1[1], c2[1]);
  if (g == 0) return -1;
  const __int128 l = c1[1] / g * c2[1];
  const __int128 mp[3] = {c1[0] * (l / c1[1]), c2[0] * (l / c2[1]), l};
  for (int a = 0; a < 3; ++a) {
    const __int128 v = sign < 0 ? -mp[a] : mp[a];
    if (v > INT64_MAX || v < -INT64_MAX) return -1;
    m[perm[a]] = (int64_t)v;
  }
  return 0;
}

int gs_fdtd3_pw_direction(double theta, double phi, const double d[3], double tol, int64_t m[3], double angles[2]) {
  const double t = theta * RAD, f = phi * RAD;
  const double u[3] = {sin(t) * cos(f), sin(t) * sin(f), cos(t)};
  int ref = 0; /* numpy's argmax: the first largest */
  for (int a = 1; a < 3; ++a)
    if (fabs(u[a]) > fabs(u[ref])) ref = a;
  int perm[3] = {0, 1, 2};
  perm[2] = ref, perm[ref] = 2;
  const double up[3] = {u[perm[0]], u[perm[1]], u[perm[2]]}, dp[3] = {d[perm[0]], d[perm[1]], d[perm[2]]};
  __int128 c1[15][2], c2[15][2];
  const int n1 = convergents((up[0] / up[2]) * (dp[0] / dp[2]), c1);
  const int n2 = convergents((up[1] / up[2]) * (dp[1] / dp[2]), c2);
  if (n1 < 0 || n2 < 0) return -1;
  int64_t best_size = -1;
  for (int a = 0; a < n1; ++a)
    for (int b = 0; b < n2; ++b) {
      int64_t mc[3];
      double unit[3];
      if (candidate(c1[a], c2[b], perm, up[2], mc)) return -1; /* gprMax's numpy raises */
      const double err = candidate_error(mc, d, u, unit);
      int64_t size = 0;
      for (int k = 0; k < 3; ++k)
        size = llabs(mc[k]) > size ? llabs(mc[k]) : size;
      if (err <= tol && (best_size < 0 || size < best_size)) { /* a stable sort by size: the first smallest */
        best_size = size;
        memcpy(m, mc, sizeof mc);
      }
    }
  if (best_size < 0) return -1;
  double unit[3];
  candidate_error(m, d, u, unit);
  angles[0] = acos(fmax(-1.0, fmin(1.0, unit[2]))) * DEG;
  angles[1] = atan2(unit[1], unit[0]) * DEG;
  return 0;
}

/* gprMax's plane-wave getSource (its own waveform formulas: the amplitude
 * is not used; fma where its compiled code fuses). */
static double pw_source(int type, double time, double freq, double dt) {
  double chi, zeta, delay;
  switch (type) {
  case GS_WAVE_GAUSSIAN:
  case GS_WAVE_GAUSSIANDOT:
  case GS_WAVE_GAUSSIANPRIME:
  case GS_WAVE_GAUSSIANDOTNORM:
    chi = 1 / freq;
    zeta = 2 * (M_PI * M_PI) * (freq * freq);
    delay = time - chi;
    if (type == GS_WAVE_GAUSSIAN) return exp(-zeta * (delay * delay));
    if (type == GS_WAVE_GAUSSIANDOTNORM)
      return -(2.0 * zeta * delay * exp(-zeta * (delay * delay)) * sqrt(exp(1.0) / (2.0 * zeta)));
    return -2.0 * zeta * delay * exp(-zeta * (delay * delay));
  case GS_WAVE_GAUSSIANDOTDOT:
  case GS_WAVE_GAUSSIANDOUBLEPRIME:
  case GS_WAVE_GAUSSIANDOTDOTNORM:
  case GS_WAVE_RICKER: {
    chi = sqrt(2.0) / freq;
    zeta = (M_PI * M_PI) * (freq * freq);
    delay = time - chi;
    const double shape = 2 * zeta * fma(2 * zeta, delay * delay, -1.0) * exp(-zeta * (delay * delay));
    if (type == GS_WAVE_GAUSSIANDOTDOT || type == GS_WAVE_GAUSSIANDOUBLEPRIME) return shape;
    const double norm = 1.0 / (2.0 * zeta);
    return type == GS_WAVE_RICKER ? -(shape * norm) : shape * norm;
  }
  case GS_WAVE_SINE:
    return time * freq <= 1 ? sin(2.0 * M_PI * freq * time) : 0.0;
  case GS_WAVE_CONTSINE:
    return fmin(0.25 * time * freq, 1) * sin(2 * M_PI * time * freq);
  case GS_WAVE_IMPULSE:
    return time < dt ? 1.0 : 0.0;
  default:
    return 0.0;
  }
}

/* The incident wave's six projections (gprMax's, zero below 1e-15); z: the background's impedance. */
static void projections(double theta, double phi, double psi, double z, double out[6]) {
  const double ct = cos(theta), st = sin(theta), cf = cos(phi), sf = sin(phi), cp = cos(psi), sp = sin(psi);
  out[0] = cp * sf - sp * ct * cf;
  out[1] = -cp * cf - sp * ct * sf;
  out[2] = sp * st;
  out[3] = (sp * sf + cp * ct * cf) / z;
  out[4] = (-sp * cf + cp * ct * sf) / z;
  out[5] = (-cp * st) / z;
  for (int c = 0; c < 6; ++c)
    if (fabs(out[c]) <= 1e-15) out[c] = 0;
}

/* gprMax's _get_pml_parameters for one component: RA RB RC RD over the p
 * cells (sigma graded with order 4 from offset half / p; kappa 1, alpha 0). */
static void pml_rows(int64_t p, double half, double sigma_max, double dt, float *out) {
  for (int64_t q = 0; q < p; ++q) {
    const double base = ((double)q + half) / (double)p;
    const double s = sigma_max * pow(fmax(0, base), 4); /* numpy's power: an ulp apart at most */
    const double den = 2 * GS_EPS0 + dt * s;
    out[q] = (float)((0.0 - dt * s) / den);
    out[p + q] = (float)(2 / den);
    out[2 * p + q] = (float)(dt * s);
    out[3 * p + q] = (float)(dt * (0.0 - s));
  }
}

/* gprMax's calculate1DWaveformValues: [iterations + 1][3][M] of whole (E,
 * t = (n + 1) dt) and half (H, t = (n + 1/2) dt) steps, float32. */
static void wave_tables(const gs_scene *sc, const gs_plane_wave *pw, const int m[4], double ds, double speed,
                        float *whole, float *half) {
  const gs_waveform *wf = &sc->waveforms[pw->waveform];
  const double stop = pw->stop > sc->timewindow ? sc->timewindow : pw->stop;
  const int64_t M = m[3];
  for (int64_t n = 0; n < sc->iterations; ++n) {
    const double tw = sc->dt * (double)(n + 1), th = sc->dt * ((double)n + 0.5);
    for (int d = 0; d < 3; ++d)
      for (int64_t r = 0; r < M; ++r) {
        const int side = abs(m[(d + 1) % 3]) + abs(m[(d + 2) % 3]);
        const double t1 = tw - ((double)r + side * 0.5) * ds / speed;
        const double t2 = th - ((double)r + abs(m[d]) * 0.5) * ds / speed;
        if (tw >= pw->start && tw <= stop)
          whole[(n * 3 + d) * M + r] = (float)pw_source(wf->type, t1 - pw->start, wf->freq, sc->dt);
        if (th >= pw->start && th <= stop)
          half[(n * 3 + d) * M + r] = (float)pw_source(wf->type, t2 - pw->start, wf->freq, sc->dt);
      }
  }
}

/* The 1D grid's geometry: direction, origin, step ds, lengths. */
static int geometry(const gs_fdtd3_sim *m, const gs_plane_wave *pw, gs_fdtd3_pw *w, double *ds, double angles[2]) {
  const gs_scene *sc = m->sc;
  const double d[3] = {sc->dx, sc->dy, sc->dz};
  int64_t mv[3];
  if (gs_fdtd3_pw_direction(pw->theta, pw->phi, d, pw->max_angle_diff, mv, angles)) return -1;
  const int64_t cells[3] = {sc->nx, sc->ny, sc->nz};
  int64_t sum = 0, len = 0, M = 0;
  for (int a = 0; a < 3; ++a) {
    if (llabs(mv[a]) > 100000) return -1;
    w->m[a] = (int)mv[a];
    M = llabs(mv[a]) > M ? llabs(mv[a]) : M;
    sum += llabs(mv[a]);
    len += llabs(mv[a]) * (cells[a] + 1);
    w->origin[a] = mv[a] < 0 ? cells[a] + 1 : 0;
    w->lo[a] = pw->lo[a];
    w->hi[a] = pw->hi[a];
  }
  w->m[3] = (int)M;
  const double th = angles[0] * RAD, ph = angles[1] * RAD;
  const double px = sin(th) * cos(ph), py = sin(th) * sin(ph), pz = cos(th);
  *ds = mv[0] ? px * sc->dx / (double)mv[0] : mv[1] ? py * sc->dy / (double)mv[1] : pz * sc->dz / (double)mv[2];
  w->p = sum * PW_PML_CELLS;
  w->n = len + w->p + sum * M;
  return w->n > ((int64_t)1 << 31) ? -1 : 0; /* larger ones are refused by the memory estimate first */
}

/* The background's coefficients (gprMax's updatecoeffsE/H row of the material). */
static void background(const gs_fdtd3_sim *m, const gs_plane_wave *pw, gs_fdtd3_pw *w) {
  const gs_scene *sc = m->sc;
  const int g = pw->material == 0 ? 1 : pw->material == 1 ? 0 : pw->material; /* gprMax's numbering */
  const gs_fdtd3_coef *c = &m->coef_host[g];
  const gs_fdtd3_hcoef *h = &m->hcoef_host[g];
  const gs_material *mt = &sc->materials[pw->material];
  const float srcm = (float)(1 / (GS_MU0 * mt->mr / sc->dt + 0.5 * mt->sm));
  const float ce[5] = {c->ca, c->cbx, c->cby, c->cbz, c->src}, ch[5] = {h->da, h->dbx, h->dby, h->dbz, srcm};
  memcpy(w->ce, ce, sizeof ce);
  memcpy(w->ch, ch, sizeof ch);
  w->dx = (float)sc->dx, w->dy = (float)sc->dy, w->dz = (float)sc->dz;
}

/* Plane wave q: its 1D grid, coefficients and waveform tables on the device. */
static int init_one(gs_fdtd3_sim *m, int q, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  const gs_plane_wave *pw = &sc->pws[q];
  gs_fdtd3_pw *w = &m->pw->w[q];
  double ds, angles[2];
  if (geometry(m, pw, w, &ds, angles)) {
    snprintf(err, errlen,
             "%s:%d: #plane_wave: gprMax finds no rational direction within %g degrees (or fails on its integers; or "
             "the 1D grid is too long)",
             sc->path, pw->line, pw->max_angle_diff);
    return -1;
  }
  const gs_material *mt = &sc->materials[pw->material];
  const double z = sqrt(GS_MU0 * mt->mr / (GS_EPS0 * mt->er)), speed = C0 / sqrt(mt->er * mt->mr);
  projections(angles[0] * RAD, angles[1] * RAD, pw->psi * RAD, z, w->proj);
  background(m, pw, w);
  w->iterations = sc->iterations;
  for (int a = 0; a < 3; ++a) { /* the corrections at the owned nodes (every node on one rank) */
    w->own_lo[a] = m->lo[a];
    w->own_hi[a] = m->hi[a];
  }
  w->again = !m->split; /* a part's E pass comes after the H corrections (fdtd3d_dist.c) */
  const int64_t p = w->p, M = w->m[3], nv = (sc->iterations + 1) * 3 * M;
  const int *mm = w->m;
  const double sigma_max = 0.8 * (4 + 1) / (z * sqrt((double)(mm[0] * mm[0] + mm[1] * mm[1] + mm[2] * mm[2])) * ds);
  float *rows = gs_xmalloc(sizeof(float) * 24 * (size_t)p);
  for (int c = 0; c < 3; ++c) {
    pml_rows(p, mm[c] * 0.5, sigma_max, sc->dt, rows + c * 4 * p);
    pml_rows(p, (mm[(c + 1) % 3] + mm[(c + 2) % 3]) * 0.5, sigma_max, sc->dt, rows + (12 + c * 4) * p);
  }
  w->rce = upload(m, rows, sizeof(float) * 12 * (size_t)p);
  w->rch = upload(m, rows + 12 * p, sizeof(float) * 12 * (size_t)p);
  free(rows);
  float *tab = gs_xcalloc(2 * (size_t)nv, sizeof *tab);
  wave_tables(sc, pw, mm, ds, speed, tab, tab + nv);
  w->whole = upload(m, tab, sizeof(float) * (size_t)nv);
  w->half = upload(m, tab + nv, sizeof(float) * (size_t)nv);
  free(tab);
  float *zeros = gs_xcalloc(6 * (size_t)w->n + 12 * (size_t)p, sizeof *zeros);
  w->e1 = upload(m, zeros, sizeof(float) * 3 * (size_t)w->n);
  w->h1 = upload(m, zeros, sizeof(float) * 3 * (size_t)w->n);
  w->aux = upload(m, zeros, sizeof(float) * 12 * (size_t)p);
  free(zeros);
  if (sc->messages && gs_fdtd3_sim_owns(m, 0, 0, 0)) /* once: rank 0 holds node 0 of a split model */
    printf("fdtd: plane wave %d: m = (%d, %d, %d), theta %.3f phi %.3f degrees, 1D grid of %lld cells\n", q + 1, mm[0],
           mm[1], mm[2], angles[0], angles[1], (long long)w->n);
  return 0;
}

gs_status gs_fdtd3_pw_init(gs_fdtd3_sim *m, char *err, size_t errlen) {
  const gs_scene *sc = m->sc;
  if (!sc->npws) return GS_OK;
  for (int q = 0; q < sc->npws; ++q) /* the command may come before the #add_dispersion_* of its material */
    if (gs_scene_dispersion_of(sc, sc->pws[q].material) >= 0) {
      snprintf(err, errlen, "%s:%d: #plane_wave: a dispersive background material is not supported yet", sc->path,
               sc->pws[q].line);
      return GS_ERR_USAGE;
    }
  m->pw = gs_xcalloc(1, sizeof *m->pw);
  m->pw->n = sc->npws;
  m->pw->w = gs_xcalloc((size_t)sc->npws, sizeof *m->pw->w);
  for (int q = 0; q < sc->npws; ++q)
    if (init_one(m, q, err, errlen)) return GS_ERR_USAGE;
  return GS_OK;
}

void gs_fdtd3_pw_step(gs_fdtd3_sim *m, const gs_fdtd3_step_args *a, gs_tick t, int part) {
  for (int q = 0; q < m->pw->n; ++q)
    m->b->fdtd3_pw(a, &m->pw->w[q], part, t, m->s);
}

void gs_fdtd3_pw_e_nodes(const gs_fdtd3_sim *m, gs_fdtd3_node_fn fn, void *ctx) {
  for (int q = 0; m->pw && q < m->pw->n; ++q)
    for (int e = 0; e < 2; ++e)
      for (int f = 0; f < 12; ++f) {
        gs_pw_face fc;
        const int64_t n = gs_pw_face_init(&m->pw->w[q], e, f, &fc);
        for (int64_t t = 0; t < n; ++t) {
          int64_t p[3];
          gs_pw_face_node(&fc, t, p);
          if (e) {
            fn(ctx, fc.q, p[0], p[1], p[2]);
            continue;
          }
          for (int r = 0; r < 4; ++r) { /* gs_pw_e_again's nodes */
            const int ce = r < 2 ? (fc.q + 1) % 3 : (fc.q + 2) % 3, up = 3 - fc.q - ce;
            int64_t s[3] = {p[0], p[1], p[2]};
            s[up] += r % 2;
            fn(ctx, ce, s[0], s[1], s[2]);
          }
        }
      }
}

int gs_fdtd3_pw_state(gs_fdtd3_sim *m, gs_fdtd3_state *out) {
  int n = 0;
  for (int q = 0; m->pw && q < m->pw->n; ++q) {
    const gs_fdtd3_pw *w = &m->pw->w[q];
    void *dev[3] = {w->e1, w->h1, w->aux};
    const size_t bytes[3] = {sizeof(float) * 3 * (size_t)w->n, sizeof(float) * 3 * (size_t)w->n,
                             sizeof(float) * 12 * (size_t)w->p};
    static const char *what[3] = {"e1", "h1", "pml"};
    for (int k = 0; k < 3; ++k) {
      out[n] = (gs_fdtd3_state){.dev = dev[k], .bytes = bytes[k]};
      snprintf(out[n++].name, sizeof out[0].name, "pw%d.%s", q + 1, what[k]);
    }
  }
  return n;
}

void gs_fdtd3_pw_free(gs_fdtd3_sim *m) {
  struct gs_fdtd3_pws *x = m->pw;
  if (!x) return;
  gs_fdtd3_upload_free(m, &x->alloc, &x->nalloc);
  free(x->w);
  free(x);
  m->pw = NULL;
}

double gs_fdtd3_pw_memory(const gs_scene *sc) {
  const double d[3] = {sc->dx, sc->dy, sc->dz}, cells[3] = {(double)sc->nx, (double)sc->ny, (double)sc->nz};
  double bytes = 0;
  for (int q = 0; q < sc->npws; ++q) {
    int64_t mv[3];
    double angles[2], sum = 0, len = 0, M = 0;
    if (gs_fdtd3_pw_direction(sc->pws[q].theta, sc->pws[q].phi, d, sc->pws[q].max_angle_diff, mv, angles)) continue;
    for (int a = 0; a < 3; ++a) {
      const double v = fabs((double)mv[a]);
      sum += v, len += v * (cells[a] + 1), M = v > M ? v : M;
    }
    const double p = sum * PW_PML_CELLS, n = len + p + sum * M;
    /* 1D E and H, PML integrals and coefficients, the two waveform tables */
    bytes += 4.0 * (6 * n + 36 * p + 6 * ((double)sc->iterations + 1) * M);
  }
  return bytes;
}

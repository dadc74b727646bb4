/* The 3D FDTD kernels (kernels/fdtd3d_kernels.h).
 * usage: test_fdtd3d cpu   CPU physics: energy of a lossless PEC cavity
 *                          (inhomogeneous eps and mu) drifts < 1e-4 over 10000
 *                          steps; TM110 and TE101 cavity modes oscillate at
 *                          the 3D Yee dispersion relation's frequency (<= 1e-4);
 *                          a step over gs_fdtd3_split's boxes gives the bits
 *                          of one box; the CPML slabs' geometry
 *                          (gs_fdtd3_geo_of) gives their own masks, depths
 *                          and Phi elements at every node.
 *        test_fdtd3d gpu   CPU and GPU bit-identical after 200 steps: random
 *                          materials, CPML on all faces (different
 *                          thicknesses, one face 0 in a variant), a source,
 *                          receivers, magnetic materials in a variant, and
 *                          a grid without CPML (the fused kernel's); the
 *                          CPML in each of its forms (HORIPML of first and
 *                          second order, MRIPML of first and second).
 *                          Skips (77) without a GPU. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "fdtd3d_kernels.h"
#include "fdtd3d_node.h"
#ifdef GS_HAVE_CUDA
#include <cuda_runtime.h>

#include "backend.h"
#endif

enum { NBUF = 128 }; /* 20 + 14 per slab + 4 at most */

/* A model: host or device buffers (the same layout), enumerated by buffers(). */
typedef struct model {
  int64_t nx, ny, nz, pitch, plane, count;
  float *f[2][6];
  uint8_t *m[3], *hm[3];
  gs_fdtd3_coef *coef;
  gs_fdtd3_hcoef *hcoef;
  float dbx, dby, dbz, srcm;
  int magnetic, nslab, dir[6], side[6];
  int form; /* the CPML's (GS_FDTD3_HORIPML1 ..) */
  int64_t t[6], psin[6];
  float *prof[6][8], *psi[2][6][4];
  int nsrc, nrx;
  int64_t steps, slots, *soff, *roff;
  float *sval, *ring;
} model;

/* Whether CPML form f has two CFS terms (two Phi a place). */
static int two_terms(int f) {
  return f == GS_FDTD3_HORIPML2 || f == GS_FDTD3_MRIPML2;
}

/* Every buffer of m with its size in bytes; returns how many. */
static int buffers(model *m, void **p[NBUF], size_t sz[NBUF]) {
  int n = 0;
  size_t fb = (size_t)m->count * sizeof(float);
  for (int s = 0; s < 2; ++s)
    for (int c = 0; c < 6; ++c)
      p[n] = (void **)&m->f[s][c], sz[n++] = fb;
  for (int c = 0; c < 3; ++c) {
    p[n] = (void **)&m->m[c], sz[n++] = (size_t)m->count;
    if (m->magnetic) p[n] = (void **)&m->hm[c], sz[n++] = (size_t)m->count;
  }
  p[n] = (void **)&m->coef, sz[n++] = GS_FDTD3_MAX_MATERIALS * sizeof(gs_fdtd3_coef);
  p[n] = (void **)&m->hcoef, sz[n++] = GS_FDTD3_MAX_MATERIALS * sizeof(gs_fdtd3_hcoef);
  for (int q = 0; q < m->nslab; ++q) {
    for (int w = 0; w < (m->form ? 2 : 8); ++w) /* the other forms: K coefficients a depth, E then H */
      p[n] = (void **)&m->prof[q][w], sz[n++] = (size_t)m->t[q] * (m->form ? GS_FDTD3_PML_K : 1) * sizeof(float);
    for (int s = 0; s < 2; ++s)
      for (int w = 0; w < 4; ++w)
        p[n] = (void **)&m->psi[s][q][w], sz[n++] = (size_t)m->psin[q] * sizeof(float);
  }
  if (m->nsrc) {
    p[n] = (void **)&m->soff, sz[n++] = (size_t)m->nsrc * sizeof(int64_t);
    p[n] = (void **)&m->sval, sz[n++] = (size_t)(m->nsrc * m->steps) * sizeof(float);
  }
  if (m->nrx) {
    p[n] = (void **)&m->roff, sz[n++] = (size_t)m->nrx * sizeof(int64_t);
    p[n] = (void **)&m->ring, sz[n++] = (size_t)(6 * m->nrx * m->slots) * sizeof(float);
  }
  return n;
}

static void model_alloc(model *m) {
  void **p[NBUF];
  size_t sz[NBUF];
  gs_fdtd3_layout(m->nx, m->ny, m->nz, &m->pitch, &m->plane, &m->count);
  for (int q = 0; q < m->nslab; ++q) {
    int64_t N[3] = {m->nx, m->ny, m->nz}, d = m->dir[q];
    m->psin[q] = m->t[q] * N[d == 0 ? 1 : 0] * N[d == 2 ? 1 : 2] * (two_terms(m->form) ? 2 : 1);
  }
  int n = buffers(m, p, sz);
  for (int k = 0; k < n; ++k)
    *p[k] = calloc(sz[k], 1);
}

static void model_free(model *m) {
  void **p[NBUF];
  size_t sz[NBUF];
  int n = buffers(m, p, sz);
  for (int k = 0; k < n; ++k)
    free(*p[k]);
}

/* The step arguments reading set s and writing set 1 - s. */
static gs_fdtd3_step_args args_of(const model *m, int s) {
  gs_fdtd3_step_args a;
  memset(&a, 0, sizeof a);
  a.ex = m->f[s][0], a.ey = m->f[s][1], a.ez = m->f[s][2];
  a.hx = m->f[s][3], a.hy = m->f[s][4], a.hz = m->f[s][5];
  a.ex_out = m->f[!s][0], a.ey_out = m->f[!s][1], a.ez_out = m->f[!s][2];
  a.hx_out = m->f[!s][3], a.hy_out = m->f[!s][4], a.hz_out = m->f[!s][5];
  a.mex = m->m[0], a.mey = m->m[1], a.mez = m->m[2];
  a.hmx = m->hm[0], a.hmy = m->hm[1], a.hmz = m->hm[2];
  a.coef = m->coef, a.hcoef = m->hcoef;
  a.pitch = m->pitch, a.plane = m->plane, a.nx = m->nx, a.ny = m->ny, a.nz = m->nz;
  a.dbx = m->dbx, a.dby = m->dby, a.dbz = m->dbz, a.srcm = m->srcm;
  a.nslab = m->nslab;
  a.pml_form = m->form;
  for (int q = 0; q < m->nslab; ++q) {
    gs_fdtd3_slab *p = &a.slab[q];
    p->dir = m->dir[q], p->side = m->side[q], p->t = m->t[q];
    p->sa = p->dir == 0 ? m->ny : m->nx, p->sb = p->dir == 2 ? m->ny : m->nz; /* the whole face */
    p->d = m->dir[q] == 0 ? 1.0f : m->dir[q] == 1 ? 1 / 1.1f : 1 / 0.9f;      /* cb = src / d (random_materials) */
    p->ra1e = m->prof[q][0], p->rbe = m->prof[q][1], p->ree = m->prof[q][2], p->rfe = m->prof[q][3];
    p->ra1h = m->prof[q][4], p->rbh = m->prof[q][5], p->reh = m->prof[q][6], p->rfh = m->prof[q][7];
    if (m->form) p->ke = m->prof[q][0], p->kh = m->prof[q][1], p->ra1e = p->ra1h = NULL;
    p->psi2 = two_terms(m->form) ? m->psin[q] / 2 : 0;
    for (int w = 0; w < 2; ++w) {
      p->psi_e_in[w] = m->psi[s][q][w], p->psi_e_out[w] = m->psi[!s][q][w];
      p->psi_h_in[w] = m->psi[s][q][2 + w], p->psi_h_out[w] = m->psi[!s][q][2 + w];
    }
  }
  return a;
}

static gs_fdtd3_fields fields_of(const model *m, int s) {
  gs_fdtd3_fields v;
  for (int c = 0; c < 6; ++c)
    v.f[c] = m->f[s][c];
  return v;
}

static gs_fdtd3_region whole(const model *m) {
  gs_fdtd3_region r = {0, m->nx + 1, 0, m->ny + 1, 0, m->nz + 1};
  return r;
}

static uint64_t rng_state = 88172645463325252ull;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int64_t at(const model *m, int64_t i, int64_t j, int64_t k) {
  return k * m->plane + j * m->pitch + i;
}

/* The electric table of a few lossy dielectrics (normalised units, dt/dx = 0.5). */
static void random_materials(model *m, int nmat, int magnetic) {
  for (int q = 0; q < nmat; ++q) {
    double er = 1 + 8 * urand(), sig = q == 0 ? 0 : 0.2 * urand(), ea = er / 0.5 + sig / 2, eb = er / 0.5 - sig / 2;
    gs_fdtd3_coef c = {(float)(eb / ea), (float)(1 / ea), (float)(1.1 / ea), (float)(0.9 / ea), (float)(1 / ea)};
    m->coef[q] = c;
    double mr = 1 + 2 * urand(), sm = 0.1 * urand(), ha = mr / 0.5 + sm / 2, hb = mr / 0.5 - sm / 2;
    gs_fdtd3_hcoef h = {(float)(hb / ha), (float)(1 / ha), (float)(1.1 / ha), (float)(0.9 / ha), (float)(1 / ha)};
    m->hcoef[q] = h;
  }
  m->dbx = 0.5f, m->dby = 0.55f, m->dbz = 0.45f, m->srcm = 0.5f;
  for (int64_t o = 0; o < m->count; ++o)
    for (int c = 0; c < 3; ++c) {
      m->m[c][o] = (uint8_t)(urand() * nmat);
      if (magnetic) m->hm[c][o] = (uint8_t)(urand() * nmat);
    }
}

/* Slabs in gprMax's order x0 y0 z0 xmax ymax zmax (thickness 0: none). */
static void set_slabs(model *m, const int th[6]) {
  m->nslab = 0;
  for (int f = 0; f < 6; ++f)
    if (th[f] > 0) {
      m->dir[m->nslab] = f % 3, m->side[m->nslab] = f / 3, m->t[m->nslab] = th[f];
      ++m->nslab;
    }
}

/* Plausible RA, RB, RE, RF of the CFS terms of one depth in form f (RA
 * below 1 in HORIPML, from 1 in MRIPML), as the K coefficients. */
static void random_coefs(int f, float out[GS_FDTD3_PML_K]) {
  float r[2][4];
  for (int c = 0; c < 2; ++c) {
    const float re = (float)(0.6 + 0.4 * urand());
    r[c][0] = f >= GS_FDTD3_MRIPML1 ? (float)(1 + 0.5 * urand()) : (float)(1 - 0.2 * urand());
    r[c][1] = (float)(0.8 + 0.2 * urand());
    r[c][2] = re;
    r[c][3] = (1 - re) * (float)(0.5 + urand());
  }
  gs_fdtd3_pml_coefs(f, (const float(*)[4])r, out);
}

static void random_profiles(model *m) {
  for (int q = 0; q < m->nslab && m->form; ++q)
    for (int64_t d = 0; d < m->t[q]; ++d)
      for (int h = 0; h < 2; ++h)
        random_coefs(m->form, m->prof[q][h] + d * GS_FDTD3_PML_K);
  for (int q = 0; q < m->nslab && !m->form; ++q)
    for (int64_t d = 0; d < m->t[q]; ++d)
      for (int h = 0; h < 2; ++h) {
        float re = (float)(0.6 + 0.4 * urand()); /* RA - 1, RB, RE, RF of a plausible profile */
        m->prof[q][4 * h][d] = -(float)(0.2 * urand());
        m->prof[q][4 * h + 1][d] = (float)(0.8 + 0.2 * urand());
        m->prof[q][4 * h + 2][d] = re;
        m->prof[q][4 * h + 3][d] = (1 - re) * (float)(0.5 + urand());
      }
}

typedef int (*inject_fn)(float *, const int64_t *, const float *, int64_t, gs_tick, int, void *);
typedef int (*sample_fn)(gs_fdtd3_fields, const int64_t *, int, float *, int64_t, gs_tick, void *);

/* steps steps of m from set 0: receivers, update, source (gprMax's order). */
static int run(model *m, int64_t steps, gs_fdtd3_step_fn step, inject_fn inject, sample_fn sample, void *stream) {
  int s = 0, e = 0;
  gs_fdtd3_region r = whole(m);
  for (int64_t n = 0; n < steps && !e; ++n, s ^= 1) {
    gs_fdtd3_step_args a = args_of(m, s);
    e = sample(fields_of(m, s), m->roff, m->nrx, m->ring, m->slots, gs_tick_at(n), stream);
    if (!e) e = step(&a, &r, 1, stream);
    if (!e) e = inject(m->f[!s][2], m->soff, m->sval, m->nsrc, gs_tick_at(n), m->nsrc, stream);
  }
  return e;
}

/* The discrete energy 1/2 sum eps E^n E^n + 1/2 sum mu H^{n-1/2} H^{n+1/2}
 * (conserved by the Yee scheme without loss) of set s and the H of 1 - s. */
static double energy(const model *m, int s, const double *eps, const double *mu) {
  double w = 0;
  for (int64_t o = 0; o < m->count; ++o)
    for (int c = 0; c < 3; ++c) {
      double e = m->f[s][c][o], h0 = m->f[s][3 + c][o], h1 = m->f[!s][3 + c][o];
      w += 0.5 * eps[m->m[c][o]] * e * e + 0.5 * mu[m->hm[c][o]] * h0 * h1;
    }
  return w;
}

static void cavity_coefs(model *m, const double *eps, const double *mu, int n, double dt, const double *d) {
  for (int q = 0; q < n; ++q) {
    gs_fdtd3_coef c = {1, (float)(dt / (eps[q] * d[0])), (float)(dt / (eps[q] * d[1])), (float)(dt / (eps[q] * d[2])),
                       0};
    gs_fdtd3_hcoef h = {1, (float)(dt / (mu[q] * d[0])), (float)(dt / (mu[q] * d[1])), (float)(dt / (mu[q] * d[2])),
                        (float)(dt / mu[q])};
    m->coef[q] = c, m->hcoef[q] = h;
  }
  m->dbx = m->hcoef[0].dbx, m->dby = m->hcoef[0].dby, m->dbz = m->hcoef[0].dbz, m->srcm = m->hcoef[0].src;
}

/* Lossless PEC box, eps in {1, 4} and mu in {1, 2} at random per component
 * node, random initial E: the discrete energy stays within 1e-4. */
static void test_energy(void) {
  const double d[3] = {1, 1.2, 0.9}, eps[2] = {1, 4}, mu[2] = {1, 2};
  const double dt = 0.99 / sqrt(1 / (d[0] * d[0]) + 1 / (d[1] * d[1]) + 1 / (d[2] * d[2]));
  model m = {0};
  m.nx = 16, m.ny = 14, m.nz = 12, m.magnetic = 1;
  model_alloc(&m);
  cavity_coefs(&m, eps, mu, 2, dt, d);
  gs_fdtd3_step_args a = args_of(&m, 0);
  for (int64_t k = 0; k <= m.nz; ++k)
    for (int64_t j = 0; j <= m.ny; ++j)
      for (int64_t i = 0; i <= m.nx; ++i) {
        int64_t o = at(&m, i, j, k);
        for (int c = 0; c < 3; ++c)
          m.m[c][o] = (uint8_t)(urand() * 2), m.hm[c][o] = (uint8_t)(urand() * 2);
        if (gs_fdtd3_ex_ok(&a, i, j, k)) m.f[0][0][o] = (float)(urand() - 0.5);
        if (gs_fdtd3_ey_ok(&a, i, j, k)) m.f[0][1][o] = (float)(urand() - 0.5);
        if (gs_fdtd3_ez_ok(&a, i, j, k)) m.f[0][2][o] = (float)(urand() - 0.5);
      }
  gs_fdtd3_region r = whole(&m);
  double w0 = 0, worst = 0;
  for (int n = 0, s = 0; n < 10000; ++n, s ^= 1) {
    a = args_of(&m, s);
    gs_fdtd3_step_ref(&a, &r, 1, NULL);
    double w = energy(&m, s, eps, mu);
    if (n == 0) w0 = w;
    if (fabs(w - w0) / w0 > worst) worst = fabs(w - w0) / w0;
  }
  printf("PEC cavity, 10000 steps: energy %.9g, largest relative drift %.3e\n", w0, worst);
  CHECKF(worst < 1e-4, "energy drift %.3e", worst);
  model_free(&m);
}

/* A PEC cavity's mode (TM110: Ez ~ sin(pi x/a) sin(pi y/b); TE101: Ey ~
 * sin(pi x/a) sin(pi z/c)) set exactly as the discrete eigenvector: its
 * amplitude x_n obeys x_{n+1} + x_{n-1} = 2 cos(w dt) x_n, w from the 3D
 * Yee dispersion relation sin(w dt/2) = dt sqrt(sum sin^2(k_a d_a/2)/d_a^2). */
static void test_mode(int te) {
  const double d[3] = {1, 1.2, 0.9}, one[1] = {1};
  const double dt = 0.99 / sqrt(1 / (d[0] * d[0]) + 1 / (d[1] * d[1]) + 1 / (d[2] * d[2]));
  const double pi = 3.14159265358979323846;
  model m = {0};
  m.nx = 12, m.ny = 10, m.nz = 8;
  model_alloc(&m);
  cavity_coefs(&m, one, one, 1, dt, d);
  const int comp = te ? 1 : 2;
  const int64_t nb = te ? m.nz : m.ny;
  const double db = te ? d[2] : d[1];
  gs_fdtd3_step_args a = args_of(&m, 0);
  double *shape = calloc((size_t)m.count, sizeof *shape);
  for (int64_t k = 0; k <= m.nz; ++k)
    for (int64_t j = 0; j <= m.ny; ++j)
      for (int64_t i = 0; i <= m.nx; ++i) {
        int ok = te ? gs_fdtd3_ey_ok(&a, i, j, k) : gs_fdtd3_ez_ok(&a, i, j, k);
        int64_t o = at(&m, i, j, k);
        if (ok) shape[o] = sin(pi * (double)i / (double)m.nx) * sin(pi * (double)(te ? k : j) / (double)nb);
        m.f[0][comp][o] = (float)shape[o];
      }
  enum { N = 600 };
  double *x = malloc(N * sizeof *x);
  gs_fdtd3_region r = whole(&m);
  for (int n = 0, s = 0; n < N; ++n, s ^= 1) {
    x[n] = 0;
    for (int64_t o = 0; o < m.count; ++o)
      x[n] += shape[o] * m.f[s][comp][o];
    a = args_of(&m, s);
    gs_fdtd3_step_ref(&a, &r, 1, NULL);
  }
  double num = 0, den = 0;
  for (int n = 1; n + 1 < N; ++n)
    num += x[n] * (x[n + 1] + x[n - 1]), den += 2 * x[n] * x[n];
  const double theta = acos(num / den);
  const double sa = sin(pi / (2.0 * (double)m.nx)) / d[0], sb = sin(pi / (2.0 * (double)nb)) / db;
  const double expect = 2 * asin(dt * sqrt(sa * sa + sb * sb));
  const double rel = fabs(theta - expect) / expect;
  printf("%s mode: w dt = %.9f, Yee dispersion %.9f, relative error %.2e\n", te ? "TE101" : "TM110", theta, expect,
         rel);
  CHECKF(rel <= 1e-4, "%s: relative frequency error %.2e", te ? "TE101" : "TM110", rel);
  free(x);
  free(shape);
  model_free(&m);
}

/* A model with random materials, CPML slabs th (x0 y0 z0 xmax ymax zmax),
 * a source and three receivers (host memory, fields 0). */
static void make_model(model *m, int64_t nx, int64_t ny, int64_t nz, const int th[6], int magnetic, int form,
                       int64_t steps) {
  memset(m, 0, sizeof *m);
  rng_state = 88172645463325252ull ^ (uint64_t)(nx * 1000003 + 7 * magnetic + th[1] + 11 * form);
  m->nx = nx, m->ny = ny, m->nz = nz, m->magnetic = magnetic, m->form = form;
  set_slabs(m, th);
  m->nsrc = 1, m->nrx = 3, m->steps = steps, m->slots = steps;
  model_alloc(m);
  random_materials(m, 5, magnetic);
  random_profiles(m);
  m->soff[0] = at(m, nx / 2, ny / 2, nz / 2);
  for (int64_t n = 0; n < steps; ++n)
    m->sval[n] = (float)(0.5 * exp(-((double)n - 30) * ((double)n - 30) / 100.0));
  m->roff[0] = at(m, nx / 3, ny / 2, nz / 2), m->roff[1] = at(m, 2, 2, 2), m->roff[2] = at(m, nx - 1, ny - 1, nz - 1);
}

/* Which buffer of a and b first differs (-1: none). */
static int first_difference(model *a, model *b) {
  void **pa[NBUF], **pb[NBUF];
  size_t sa[NBUF], sb[NBUF];
  int n = buffers(a, pa, sa);
  buffers(b, pb, sb);
  for (int k = 0; k < n; ++k)
    if (memcmp(*pa[k], *pb[k], sa[k]) != 0) return k;
  return -1;
}

static int step_split(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  gs_fdtd3_region half[2] = {r[0], r[0]}, part[14];
  half[0].k1 = half[1].k0 = (r[0].k0 + r[0].k1) / 2;
  int np = gs_fdtd3_split(a, half[0], part);
  np += gs_fdtd3_split(a, half[1], part + np);
  return gs_fdtd3_step_ref(a, part, np, stream);
}

/* The CPU step over the boxes gs_fdtd3_split gives (two halves in k, each
 * split) has the bits of one step over the whole grid, in each CPML form. */
static void test_split(void) {
  const int th[6] = {4, 3, 5, 6, 2, 3};
  for (int f = 0; f < GS_FDTD3_PML_FORMS; ++f) {
    model a, b;
    make_model(&a, 40, 36, 30, th, 0, f, 60);
    make_model(&b, 40, 36, 30, th, 0, f, 60);
    run(&a, 60, gs_fdtd3_step_ref, gs_fdtd3_inject_ref, gs_fdtd3_sample_ref, NULL);
    run(&b, 60, step_split, gs_fdtd3_inject_ref, gs_fdtd3_sample_ref, NULL);
    int k = first_difference(&a, &b);
    double peak = 0;
    int finite = 1;
    for (int c = 0; c < 6; ++c)
      for (int64_t o = 0; o < a.count; ++o) {
        finite = finite && isfinite(a.f[0][c][o]);
        if (fabs(a.f[0][c][o]) > peak) peak = fabs(a.f[0][c][o]);
      }
    CHECKF(k < 0, "split regions, CPML form %d: buffer %d differs", f, k);
    CHECKF(finite && peak > 0, "split regions, CPML form %d: fields not finite or all 0", f);
    printf("split regions, CPML form %d: %s (peak field %.3g)\n", f, k < 0 ? "same bits" : "DIFFER", peak);
    model_free(&a);
    model_free(&b);
  }
}

/* The CPU step with the boxes around the fused box stepped as the GPU steps
 * them (gs_fdtd3_step_boxes_ref: by axes) has the bits of the reference
 * step, in each CPML form, with and without magnetic H (no fused box then),
 * on one region and on the two halves in k (the upper half stepped whole),
 * and with x slabs that meet or share a node (the slab loop takes those)
 * and that are one cell apart. */
static int step_boxes_halves(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  gs_fdtd3_region half[2] = {r[0], r[0]};
  (void)n;
  half[0].k1 = half[1].k0 = (r[0].k0 + r[0].k1) / 2;
  return gs_fdtd3_step_boxes_ref(a, half, 2, stream);
}

static void boxes_case(int64_t nx, const int th[6], int mag, int f, int way) {
  const gs_fdtd3_step_fn ways[2] = {gs_fdtd3_step_boxes_ref, step_boxes_halves};
  model a, b;
  make_model(&a, nx, 30, 26, th, mag, f, 50);
  make_model(&b, nx, 30, 26, th, mag, f, 50);
  run(&a, 50, gs_fdtd3_step_ref, gs_fdtd3_inject_ref, gs_fdtd3_sample_ref, NULL);
  run(&b, 50, ways[way], gs_fdtd3_inject_ref, gs_fdtd3_sample_ref, NULL);
  const int k = first_difference(&a, &b);
  CHECKF(k < 0, "boxes, %lld wide, CPML form %d, %s H, %s: buffer %d differs", (long long)nx, f,
         mag ? "magnetic" : "free-space", way ? "two regions" : "one region", k);
  printf("boxes, %lld wide, CPML form %d, %s H, %s: %s\n", (long long)nx, f, mag ? "magnetic" : "free-space",
         way ? "two regions" : "one region", k < 0 ? "same bits" : "DIFFER");
  model_free(&a);
  model_free(&b);
}

static void test_boxes(void) {
  const int th[6] = {4, 3, 5, 6, 2, 3}, open_y0[6] = {4, 0, 5, 6, 2, 3};
  gs_fdtd3_step_args probe = {.nx = 9, .ny = 30, .nz = 26, .nslab = 2};
  probe.slab[0].dir = probe.slab[1].dir = 0, probe.slab[1].side = 1, probe.slab[0].t = 4, probe.slab[1].t = 6;
  gs_fdtd3_axes ax;
  CHECKF(!gs_fdtd3_axes_of(&probe, &ax), "x slabs of 4 and 6 cells on 9: taken as apart");
  for (int f = 0; f < GS_FDTD3_PML_FORMS; ++f)
    for (int mag = 0; mag < 2; ++mag)
      for (int way = 0; way < 2; ++way)
        boxes_case(34, mag ? open_y0 : th, mag, f, way);
  /* x slabs of 4 and 6 cells: they meet on 9 cells, share E node 4 on 10 (the slab loop takes those), and are
   * apart on 11 */
  for (int f = 0; f < GS_FDTD3_PML_FORMS; ++f)
    for (int64_t nx = 9; nx <= 11; ++nx)
      boxes_case(nx, th, 0, f, 0);
  probe.nx = 10;
  CHECKF(!gs_fdtd3_axes_of(&probe, &ax), "x slabs of 4 and 6 cells on 10: taken as apart");
  probe.nx = 11;
  CHECKF(gs_fdtd3_axes_of(&probe, &ax), "x slabs of 4 and 6 cells on 11: not taken as apart");
}

#ifdef GS_HAVE_CUDA
#define CU(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                           \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* d: a device copy of host model h; back: h's twin filled from d. */
static void to_device(model *h, model *d) {
  void **ph[NBUF], **pd[NBUF];
  size_t sz[NBUF];
  *d = *h;
  int n = buffers(h, ph, sz);
  buffers(d, pd, sz);
  for (int k = 0; k < n; ++k) {
    CU(cudaMalloc(pd[k], sz[k]));
    CU(cudaMemcpy(*pd[k], *ph[k], sz[k], cudaMemcpyHostToDevice));
  }
}

static void from_device(model *d, model *back) {
  void **pd[NBUF], **pb[NBUF];
  size_t sz[NBUF];
  int n = buffers(d, pd, sz);
  buffers(back, pb, sz);
  for (int k = 0; k < n; ++k) {
    CU(cudaMemcpy(*pb[k], *pd[k], sz[k], cudaMemcpyDeviceToHost));
    CU(cudaFree(*pd[k]));
  }
}

/* CPU and GPU after steps steps of one model: every buffer bit-identical. */
static void cpu_vs_gpu(const char *name, int64_t nx, int64_t ny, int64_t nz, const int th[6], int magnetic, int form,
                       int64_t steps) {
  model h, g, d;
  make_model(&h, nx, ny, nz, th, magnetic, form, steps);
  make_model(&g, nx, ny, nz, th, magnetic, form, steps);
  to_device(&g, &d);
  run(&h, steps, gs_fdtd3_step_ref, gs_fdtd3_inject_ref, gs_fdtd3_sample_ref, NULL);
  cudaStream_t s;
  CU(cudaStreamCreate(&s));
  CU((cudaError_t)run(&d, steps, gs_fdtd3_step_cuda, gs_fdtd3_inject_cuda, gs_fdtd3_sample_cuda, s));
  CU(cudaStreamSynchronize(s));
  CU(cudaStreamDestroy(s));
  from_device(&d, &g);
  int k = first_difference(&h, &g);
  double peak = 0;
  int finite = 1;
  for (int c = 0; c < 6; ++c)
    for (int64_t o = 0; o < h.count; ++o) {
      float v = h.f[steps % 2][c][o];
      finite = finite && isfinite(v);
      if (fabs(v) > peak) peak = fabs(v);
    }
  printf("%s: %lldx%lldx%lld, %d slabs, %s H, %lld steps: %s (peak field %.3g)\n", name, (long long)nx, (long long)ny,
         (long long)nz, h.nslab, magnetic ? "magnetic" : "free-space", (long long)steps,
         k < 0 ? "CPU and GPU bit-identical" : "DIFFER", peak);
  CHECKF(k < 0, "%s: buffer %d differs", name, k);
  CHECKF(finite && peak > 0, "%s: fields not finite or all 0", name);
  model_free(&h);
  model_free(&g);
}

static int gpu_tests(void) {
  if (gs_cuda_probe() == 0) {
    printf("no CUDA GPU visible: skipped\n");
    return GS_TEST_SKIP;
  }
  const int all[6] = {4, 3, 5, 6, 2, 3}, open_y0[6] = {4, 0, 5, 6, 2, 3}, none[6] = {0};
  cpu_vs_gpu("cpml", 40, 36, 30, all, 0, 0, 200);
  cpu_vs_gpu("cpml+magnetic", 40, 36, 30, open_y0, 1, 0, 200);
  cpu_vs_gpu("no cpml", 70, 20, 40, none, 0, 0, 200);
  cpu_vs_gpu("cpml, wide", 100, 23, 21, all, 0, 0, 120);
  /* Rows exactly one pitch long (the staged kernel's last column past the row) and deep in k. */
  cpu_vs_gpu("no cpml, 63 wide", 63, 17, 70, none, 0, 0, 80);
  cpu_vs_gpu("cpml, 31 wide", 31, 40, 19, all, 0, 0, 80);
  /* x slabs of 4 and 6 cells on 9: they meet, so the boxes take the slab loop, not the axes */
  cpu_vs_gpu("cpml, x slabs meet", 9, 36, 30, all, 0, 0, 80);
  cpu_vs_gpu("cpml, x slabs one cell apart", 11, 36, 30, all, 0, 0, 80);
  /* gprMax's other CPML forms (#pml_formulation, two #pml_cfs) */
  cpu_vs_gpu("cpml HORIPML2", 40, 36, 30, all, 0, GS_FDTD3_HORIPML2, 200);
  cpu_vs_gpu("cpml MRIPML1", 40, 36, 30, all, 0, GS_FDTD3_MRIPML1, 200);
  cpu_vs_gpu("cpml MRIPML2", 40, 36, 30, all, 0, GS_FDTD3_MRIPML2, 200);
  cpu_vs_gpu("cpml MRIPML2+magnetic", 40, 36, 30, open_y0, 1, GS_FDTD3_MRIPML2, 200);
  return gs_test_done("test_fdtd3d gpu");
}
#endif

/* A slab set for test_slab_geo: six slabs of thicknesses 1-3 on an nx x ny x
 * nz grid, Phi strides sa, sb wider than the faces (so that a mix-up of a
 * stride and a cell count shows), one buffer of n floats holding every
 * slab's Phi in (distinct values) and one for the out arrays. */
static void geo_slabs(gs_fdtd3_step_args *a, int form, float *in, float *out, int64_t n) {
  static const int thick[6] = {2, 3, 1, 3, 2, 1};
  static float prof[GS_FDTD3_PML_K * 3];
  for (int q = 0; q < GS_FDTD3_PML_K * 3; ++q)
    prof[q] = (float)(0.3 + 0.6 * urand());
  for (int64_t x = 0; x < n; ++x)
    in[x] = (float)(urand() - 0.5), out[x] = 0.0f;
  a->nslab = 6, a->pml_form = form;
  int64_t used = 0;
  for (int s = 0; s < 6; ++s) {
    gs_fdtd3_slab *p = &a->slab[s];
    memset(p, 0, sizeof *p);
    p->dir = s % 3, p->side = s / 3, p->t = thick[s], p->d = 1.0f + 0.25f * (float)s;
    p->sa = (p->dir == 0 ? a->ny : a->nx) + 3, p->sb = (p->dir == 2 ? a->ny : a->nz) + 2;
    p->ra1e = p->rbe = p->ree = p->rfe = p->ra1h = p->rbh = p->reh = p->rfh = prof;
    p->ke = p->kh = prof;
    const int64_t each = p->t * p->sa * p->sb;
    p->psi2 = form == GS_FDTD3_HORIPML1 ? 0 : each;
    for (int w = 0; w < 2; ++w) {
      const int64_t e = used + (int64_t)w * 2 * each, h = e + 4 * each;
      p->psi_e_in[w] = in + e, p->psi_e_out[w] = out + e, p->psi_h_in[w] = in + h, p->psi_h_out[w] = out + h;
    }
    used += 8 * each;
  }
  CHECKF(used <= n, "slab geometry test: %lld floats of Phi, %lld held", (long long)used, (long long)n);
}

/* The slabs' geometry (gs_fdtd3_geo_of) against the slabs themselves: at
 * every node of a small grid, for E and H and every component, the mask of
 * gs_fdtd3_geo_mask equals gs_fdtd3_slab_mask's and gs_fdtd3_cpml_g returns
 * the bits of gs_fdtd3_cpml_f and writes the same Phi elements, in the
 * first-order form and a two-term one. */
static void test_slab_geo(void) {
  enum { N = 1 << 16 };
  static float in[N], out_f[N], out_g[N];
  const int forms[2] = {GS_FDTD3_HORIPML1, GS_FDTD3_HORIPML2};
  for (int fi = 0; fi < 2; ++fi) {
    gs_fdtd3_step_args a, b;
    memset(&a, 0, sizeof a);
    a.nx = 9, a.ny = 8, a.nz = 7;
    geo_slabs(&a, forms[fi], in, out_f, N);
    b = a;
    for (int s = 0; s < 6; ++s)
      for (int w = 0; w < 2; ++w) {
        b.slab[s].psi_e_out[w] = out_g + (a.slab[s].psi_e_out[w] - out_f);
        b.slab[s].psi_h_out[w] = out_g + (a.slab[s].psi_h_out[w] - out_f);
      }
    memset(out_g, 0, sizeof out_g);
    gs_fdtd3_geo g;
    gs_fdtd3_geo_of(&b, &g);
    int bad = 0;
    for (int64_t k = 0; k <= a.nz; ++k)
      for (int64_t j = 0; j <= a.ny; ++j)
        for (int64_t i = 0; i <= a.nx; ++i)
          for (int e = 0; e < 2; ++e) {
            const unsigned m = gs_fdtd3_slab_mask(&a, e, i, j, k), mg = gs_fdtd3_geo_mask(&g, 6, e, i, j, k, ~0u);
            if (m != mg && bad++ < 3)
              CHECKF(0, "form %d, node (%lld %lld %lld), %s: mask %x, geometry's %x", forms[fi], (long long)i,
                     (long long)j, (long long)k, e ? "E" : "H", m, mg);
            for (int c = 0; c < 3; ++c) {
              const float f0 = (float)urand(), s0 = 0.7f, s1 = -1.3f, s2 = 0.9f, r0 = 0.11f, r1 = -0.23f, r2 = 0.37f;
              const float ff = gs_fdtd3_cpml_f(&a, forms[fi], e, c, i, j, k, f0, s0, s1, s2, r0, r1, r2, 1, m);
              const float fg = gs_fdtd3_cpml_g(&b, g.s[e], forms[fi], e, c, i, j, k, f0, s0, s1, s2, r0, r1, r2, 1, m);
              if (memcmp(&ff, &fg, sizeof ff) && bad++ < 3)
                CHECKF(0, "form %d, node (%lld %lld %lld), %s%c: %a, geometry's %a", forms[fi], (long long)i,
                       (long long)j, (long long)k, e ? "E" : "H", 'x' + c, ff, fg);
            }
          }
    CHECKF(!memcmp(out_f, out_g, sizeof out_f), "form %d: the Phi written differ", forms[fi]);
    CHECKF(!bad, "form %d: %d differences", forms[fi], bad);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
#ifdef GS_HAVE_CUDA
    return gpu_tests();
#else
    printf("built without CUDA: skipped\n");
    return GS_TEST_SKIP;
#endif
  }
  test_slab_geo();
  test_energy();
  test_mode(0);
  test_mode(1);
  test_split();
  test_boxes();
  return gs_test_done("test_fdtd3d cpu");
}

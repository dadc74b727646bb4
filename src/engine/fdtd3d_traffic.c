/* The bytes a 3D step must move (fdtd3d_traffic.h). */
#include "fdtd3d_traffic.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

gs_fdtd3_traffic gs_fdtd3_traffic_model(const gs_fdtd3_traffic_in *in) {
  gs_fdtd3_traffic t = {0};
  const double n[3] = {(double)in->nx, (double)in->ny, (double)in->nz};
  t.cells = n[0] * n[1] * n[2];
  t.fields = GS_FDTD3_TRAFFIC_FIELDS * t.cells;
  t.materials = (double)(in->e_mat_bytes + in->h_mat_bytes) * t.cells;
  const double terms = in->pml_terms > 1 ? in->pml_terms : 1;
  for (int s = 0; s < 6; ++s) /* a slab normal to axis s % 3: t x n_a x n_b cells */
    t.cpml += GS_FDTD3_TRAFFIC_PSI * terms * in->pml6[s] * n[(s % 3 + 1) % 3] * n[(s % 3 + 2) % 3];
  t.poles = in->disp_nodes * (GS_FDTD3_TRAFFIC_POLE_FLOAT * in->disp_floats + in->disp_index_bytes) +
            (in->disp_nodes > 0 ? in->disp_map_bytes * t.cells : 0);
  t.sources = GS_FDTD3_TRAFFIC_DIPOLE * in->ndipoles + GS_FDTD3_TRAFFIC_SOURCE3 * in->nsources3;
  t.receivers = GS_FDTD3_TRAFFIC_RX * in->nrx;
  t.planewaves = GS_FDTD3_TRAFFIC_TFSF * in->tfsf_nodes;
  t.total = t.fields + t.materials + t.cpml + t.poles + t.sources + t.receivers + t.planewaves;
  t.per_cell = t.cells > 0 ? t.total / t.cells : 0;
  return t;
}

/* Today's pole state (fdtd3d_dispersion.c, kernels/fdtd3d_disp.h): per
 * dispersive E node, gprMax's maxpoles floats, two each (complex64) when a
 * Lorentz or Drude material is present, read and written once by the E
 * update; a map of two 32-bit words per 32 nodes and component (0.75 bytes
 * a cell) locates it, no per-node index. (The few deferred nodes, those of
 * the sources, read an 8-byte offset and their state twice more: not
 * counted.) */
static void pole_layout(const gs_scene *sc, gs_fdtd3_traffic_in *in) {
  int npoles = 0, cplx = 0;
  for (int k = 0; k < sc->ndisps; ++k) {
    if (sc->disps[k].material < 0) continue; /* replaced by a later command */
    if (sc->disps[k].npoles > npoles) npoles = sc->disps[k].npoles;
    cplx |= sc->disps[k].kind != GS_DISP_DEBYE;
  }
  in->disp_floats = (double)npoles * (cplx ? 2 : 1);
  in->disp_index_bytes = 0;
  in->disp_map_bytes = npoles ? 3 * 8.0 / 32 : 0.0;
}

gs_fdtd3_traffic_in gs_fdtd3_traffic_scene(const gs_scene *sc) {
  gs_fdtd3_traffic_in in = {.nx = sc->nx, .ny = sc->ny, .nz = sc->nz, .e_mat_bytes = 3};
  memcpy(in.pml6, sc->pml6, sizeof in.pml6);
  in.pml_terms = sc->ncfs;
  for (int k = 0; k < sc->nmaterials; ++k)
    if (sc->materials[k].mr != 1 || sc->materials[k].sm != 0) in.h_mat_bytes = 3;
  pole_layout(sc, &in);
  in.ndipoles = sc->nsources;
  in.nsources3 = sc->nsrc3;
  in.nrx = sc->nrx;
  for (int q = 0; q < sc->npws; ++q) {
    const int64_t *lo = sc->pws[q].lo, *hi = sc->pws[q].hi;
    const double a = (double)(hi[0] - lo[0]), b = (double)(hi[1] - lo[1]), c = (double)(hi[2] - lo[2]);
    in.tfsf_nodes += 2 * (a * b + b * c + c * a);
  }
  return in;
}

/* Counts, in plane k of m's owned nodes, the dispersive E nodes (each
 * component in gprMax's update range) and the nodes with any. */
static void count_plane(const gs_fdtd3_sim *m, uint8_t *const row[3], const uint8_t disp[256], int64_t k, double *nodes,
                        double *any) {
  const int64_t n[3] = {m->sc->nx, m->sc->ny, m->sc->nz};
  int64_t lo[3][3], hi[3][3]; /* [component][axis] */
  for (int c = 0; c < 3; ++c)
    for (int a = 0; a < 3; ++a) {
      lo[c][a] = m->lo[a] > (c != a) ? m->lo[a] : (c != a);
      hi[c][a] = m->hi[a] < n[a] ? m->hi[a] : n[a];
    }
  for (int64_t j = m->lo[1]; j < m->hi[1]; ++j)
    for (int64_t i = m->lo[0]; i < m->hi[0]; ++i) {
      const int64_t at = (j - m->org[1]) * m->pitch + (i - m->org[0]);
      int hit = 0;
      for (int c = 0; c < 3; ++c) {
        const int in = i >= lo[c][0] && i < hi[c][0] && j >= lo[c][1] && j < hi[c][1] && k >= lo[c][2] && k < hi[c][2];
        if (in && disp[row[c][at]]) ++hit;
      }
      *nodes += hit;
      *any += hit > 0;
    }
}

gs_fdtd3_traffic_in gs_fdtd3_traffic_of(const gs_fdtd3_sim *m) {
  const gs_scene *sc = m->sc;
  gs_fdtd3_traffic_in in = gs_fdtd3_traffic_scene(sc);
  in.h_mat_bytes = m->hmat[0] ? 3 : 0;
  if (in.disp_floats == 0) return in;
  uint8_t disp[256] = {0}; /* gprMax's material index k (>= 2; compounds never) is dispersive */
  for (int k = 2; k < sc->nmaterials && k < 256; ++k)
    disp[k] = gs_scene_dispersion_of(sc, k) >= 0;
  uint8_t *row[3];
  for (int c = 0; c < 3; ++c)
    row[c] = gs_xmalloc((size_t)m->plane);
  for (int64_t k = m->lo[2]; k < m->hi[2]; ++k) {
    for (int c = 0; c < 3; ++c)
      m->b->copy_d2h(row[c], m->mat[c] + (k - m->org[2]) * m->plane, (size_t)m->plane, m->s);
    m->b->stream_sync(m->s);
    count_plane(m, row, disp, k, &in.disp_nodes, &in.disp_any_nodes);
  }
  for (int c = 0; c < 3; ++c)
    free(row[c]);
  return in;
}

/* The traffic model of a 3D step (src/engine/fdtd3d_traffic.h) against
 * hand-computed figures: the model's arithmetic on given counts (a free-space
 * cube, issue #36's 300 x 180 x 150 trace), and the counts taken from models
 * built on the CPU backend: a soil box of Debye or Lorentz poles over the
 * lower cells of a synthetic grid (its dispersive E nodes counted by hand
 * from gprMax's box rule), a magnetic soil (H materials). The pole state the
 * model counts must be the state the engine keeps (its checkpoint sections):
 * where the dispersion layout changes, gs_fdtd3_traffic_of must follow. */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "fdtd3d.h"
#include "fdtd3d_traffic.h"
#include "scene.h"

static int near(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* The model alone: 40 x 30 x 20 cells, 10 CPML cells a face, one dipole, one receiver. */
static void model_by_hand(void) {
  gs_fdtd3_traffic_in in = {.nx = 40, .ny = 30, .nz = 20, .e_mat_bytes = 3, .ndipoles = 1, .nrx = 1};
  for (int s = 0; s < 6; ++s)
    in.pml6[s] = 10;
  gs_fdtd3_traffic t = gs_fdtd3_traffic_model(&in);
  /* fields 48 x 24000, materials 3 x 24000, CPML 32 x 2 x 10 x (30 x 20 + 40 x 20 + 40 x 30), dipole 20, receiver 56 */
  CHECK(near(t.cells, 24000));
  CHECK(near(t.fields, 1152000));
  CHECK(near(t.materials, 72000));
  CHECK(near(t.cpml, 1664000));
  CHECK(near(t.sources + t.receivers, 76));
  CHECKF(near(t.total, 2888076), "total %.0f", t.total);
  CHECKF(near(t.per_cell, 2888076.0 / 24000), "per cell %.6f", t.per_cell);
  /* 300 x 180 x 150 free space: 48 + 3 + 32 x 2 x 10 x (180 x 150 + 300 x 150 + 300 x 180) / 8.1e6 per cell */
  in = (gs_fdtd3_traffic_in){.nx = 300, .ny = 180, .nz = 150, .e_mat_bytes = 3, .ndipoles = 1, .nrx = 1};
  for (int s = 0; s < 6; ++s)
    in.pml6[s] = 10;
  t = gs_fdtd3_traffic_model(&in);
  CHECKF(near(t.total, 388800000.0 + 24300000 + 80640000 + 76), "300x180x150: %.0f", t.total);
  CHECKF(near(t.per_cell, 493740076.0 / 8.1e6), "300x180x150: %.4f bytes per cell", t.per_cell);
  /* poles: 1000 dispersive nodes of 2 real poles (8 bytes a float) and an 8-byte offset; a map of 4 bytes a cell */
  in.disp_nodes = 1000, in.disp_floats = 2, in.disp_index_bytes = 8;
  CHECK(near(gs_fdtd3_traffic_model(&in).poles, 24000));
  in.disp_map_bytes = 4;
  CHECK(near(gs_fdtd3_traffic_model(&in).poles, 24000 + 4 * 8.1e6));
  /* magnetic H materials, a second kind of source, plane waves' TFSF surface */
  in = (gs_fdtd3_traffic_in){
      .nx = 10, .ny = 10, .nz = 10, .e_mat_bytes = 3, .h_mat_bytes = 3, .nsources3 = 2, .tfsf_nodes = 100};
  t = gs_fdtd3_traffic_model(&in);
  CHECK(near(t.total, 48000 + 6000 + 64 + 3200));
}

/* The synthetic grid with soil (material 2) over the lower `top` cells of
 * z, PML `pml` cells, soil poles of kind (0 poles: none), soil mr. */
static void soil_scene(gs_scene *sc, int64_t nx, int64_t ny, int64_t nz, int64_t top, int pml, int kind, int poles,
                       double mr) {
  gs_scene_synthetic3(sc, nx, ny, nz, 4);
  for (int s = 0; s < 6; ++s)
    sc->pml6[s] = pml;
  sc->objs3[0].v[5] = (double)top * sc->dz;
  sc->materials[2].mr = mr;
  if (!poles) return;
  sc->disps = gs_xcalloc(1, sizeof *sc->disps);
  sc->disps[0] = (gs_dispersion){.name = "soil", .material = 2, .npoles = poles, .kind = kind};
  for (int q = 0; q < poles; ++q) {
    sc->disps[0].deltaer[q] = 2.0 / (q + 1);
    sc->disps[0].tau[q] = kind == GS_DISP_DEBYE ? 1e-9 / (q + 1) : 3e9 * (q + 1);
    sc->disps[0].alpha[q] = 1e9;
  }
  sc->ndisps = 1;
}

/* Builds sc on the CPU and checks the model's inputs against the hand
 * counts: gprMax's box rule gives each cell's lower-corner nodes (and one far
 * line per component, outside the update range here) the soil, so with the
 * soil over cells [0, top) of z: Ex nx (ny - 1)(top - 1), Ey (nx - 1) ny (top
 * - 1), Ez (nx - 1)(ny - 1) top; nodes with any: nx ny top less those with
 * none (k = 0 and i or j = 0; k > 0 and i = j = 0). */
static void built(const gs_scene *sc, int64_t top, double floats, int h_bytes) {
  gs_fdtd3_sim m;
  char err[512];
  if (gs_fdtd3_sim_init(&m, sc, &gs_backend_cpu, 0, err, sizeof err) != GS_OK) {
    CHECKF(0, "%s", err);
    return;
  }
  const double nx = (double)sc->nx, ny = (double)sc->ny, t = (double)top;
  const double want = floats > 0 ? nx * (ny - 1) * (t - 1) + (nx - 1) * ny * (t - 1) + (nx - 1) * (ny - 1) * t : 0;
  const double any = floats > 0 ? nx * ny * t - (nx + ny - 1) - (t - 1) : 0;
  const gs_fdtd3_traffic_in in = gs_fdtd3_traffic_of(&m);
  CHECKF(near(in.disp_nodes, want), "dispersive E nodes %.0f, by hand %.0f", in.disp_nodes, want);
  CHECKF(near(in.disp_any_nodes, any), "nodes with any %.0f, by hand %.0f", in.disp_any_nodes, any);
  CHECKF(near(in.disp_floats, floats), "pole floats %.0f, want %.0f", in.disp_floats, floats);
  CHECKF(in.h_mat_bytes == h_bytes, "H material bytes %d, want %d", in.h_mat_bytes, h_bytes);
  CHECK(in.e_mat_bytes == 3 && in.ndipoles == 1 && in.nrx == 1);
  gs_fdtd3_state st[GS_FDTD3_MAX_STATE];
  const int n = gs_fdtd3_sim_state(&m, st);
  double pole_bytes = 0;
  for (int q = 0; q < n; ++q)
    if (!strncmp(st[q].name, "disp.", 5)) pole_bytes += (double)st[q].bytes;
  CHECKF(near(pole_bytes, 4 * in.disp_floats * in.disp_nodes),
         "the engine keeps %.0f bytes of pole state, the model counts %.0f (update gs_fdtd3_traffic_of)", pole_bytes,
         4 * in.disp_floats * in.disp_nodes);
  const gs_fdtd3_traffic tr = gs_fdtd3_traffic_model(&in);
  const double cells = nx * ny * (double)sc->nz, pml = (double)sc->pml6[0];
  const double cpml = 64 * pml * (ny * (double)sc->nz + nx * (double)sc->nz + nx * ny);
  const double total = (48.0 + 3 + h_bytes + (floats > 0 ? 0.75 : 0)) * cells + cpml + want * 8 * floats + 20 + 56;
  CHECKF(near(tr.total, total), "total %.0f, by hand %.0f", tr.total, total);
  gs_fdtd3_sim_free(&m);
}

int main(void) {
  model_by_hand();
  gs_scene sc;
  soil_scene(&sc, 40, 36, 32, 23, 6, GS_DISP_DEBYE, 2, 1); /* real poles: 2 floats a node */
  built(&sc, 23, 2, 0);
  gs_scene_free(&sc);
  soil_scene(&sc, 33, 34, 35, 10, 4, GS_DISP_LORENTZ, 3, 1); /* complex poles: 6 floats a node */
  built(&sc, 10, 6, 0);
  gs_scene_free(&sc);
  soil_scene(&sc, 32, 32, 32, 16, 10, GS_DISP_DEBYE, 0, 2.5); /* magnetic soil, no poles */
  built(&sc, 16, 0, 3);
  gs_scene_free(&sc);
  return gs_test_done("test_fdtd3d_traffic");
}

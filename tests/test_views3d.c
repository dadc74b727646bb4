/* 3D outputs (src/outputs/gpr_views3d.c, geometry_objects.c, src/formats/gprmax_out.c): a
 * geometry objects file written and read back, the reader's refusals, gprMax's
 * material order of a view, the snapshot's box correction, and the outputs
 * counted in the memory check. Usage: test_views3d WORKDIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fdtd3d.h"
#include "fsutil.h"
#include "geometry_objects.h"
#include "gpr_views3d.h"
#include "gprmax_out.h"
#include "scene.h"

static char dir[1024];

static void test_round_trip(void) {
  enum { SX = 3, SY = 2, SZ = 4, CELLS = SX * SY * SZ, NODES = (SX + 1) * (SY + 1) * (SZ + 1) };
  int16_t data[CELLS];
  int8_t rigid[18 * CELLS];
  uint32_t id[6 * NODES];
  for (int k = 0; k < CELLS; ++k)
    data[k] = (int16_t)(k % 5 - 1);
  for (int k = 0; k < 18 * CELLS; ++k)
    rigid[k] = (int8_t)(k % 3 == 0);
  for (int k = 0; k < 6 * NODES; ++k)
    id[k] = (uint32_t)(k % 7);
  gs_gpr_geomobj g = {.title = "t",
                      .dxdydz = {0.001, 0.002, 0.003},
                      .size = {SX, SY, SZ},
                      .data = data,
                      .rigidE = rigid,
                      .rigidH = rigid + 12 * CELLS,
                      .id = id};
  char path[1200], err[1024];
  snprintf(path, sizeof path, "%s/obj.h5", dir);
  CHECK(gs_gpr_write_geometry_object(path, &g, err, sizeof err) == GS_OK);
  gs_gpr_geomobj_in in;
  CHECKF(gs_gpr_read_geometry_object(path, 1000, &in, err, sizeof err) == GS_OK, "%s", err);
  CHECK(in.size[0] == SX && in.size[1] == SY && in.size[2] == SZ && in.dxdydz[2] == 0.003);
  CHECK(in.data && !memcmp(in.data, data, sizeof data));
  CHECK(in.rigid && !memcmp(in.rigid, rigid, sizeof rigid));
  CHECK(in.id && !memcmp(in.id, id, sizeof id));
  gs_gpr_geomobj_in_free(&in);
  /* too many cells for the caller's limit, a missing file, a file that is not HDF5 */
  CHECK(gs_gpr_read_geometry_object(path, CELLS - 1, &in, err, sizeof err) == GS_ERR_FORMAT);
  CHECKF(strstr(err, "cells") != NULL, "%s", err);
  snprintf(path, sizeof path, "%s/none.h5", dir);
  CHECK(gs_gpr_read_geometry_object(path, 1000, &in, err, sizeof err) == GS_ERR_FORMAT);
  CHECKF(strstr(err, "No such file") != NULL, "%s", err);
  snprintf(path, sizeof path, "%s/text.h5", dir);
  FILE *f = fopen(path, "w");
  fputs("not HDF5\n", f);
  fclose(f);
  CHECK(gs_gpr_read_geometry_object(path, 1000, &in, err, sizeof err) == GS_ERR_FORMAT);
  CHECKF(strstr(err, "not an HDF5 file") != NULL, "%s", err);
  CHECK(in.data == NULL && in.rigid == NULL && in.id == NULL);
}

/* Names without '+' by index first, then the compounds by name. */
static void test_material_order(void) {
  gs_mat3 mats[5];
  memset(mats, 0, sizeof mats);
  const char *names[5] = {"pec", "free_space", "zz+a", "b", "a+zz"};
  for (int k = 0; k < 5; ++k)
    snprintf(mats[k].name, sizeof mats[k].name, "%s", names[k]);
  gs_geometry3 g = {.mat = mats, .nmat = 5};
  int order[5];
  uint32_t map[5];
  CHECK(gs_view_materials(&g, NULL, order, map) == 5);
  CHECK(order[0] == 0 && order[1] == 1 && order[2] == 3 && order[3] == 4 && order[4] == 2);
  CHECK(map[3] == 2 && map[2] == 4);
  uint8_t used[5] = {0, 1, 1, 0, 1};
  CHECK(gs_view_materials(&g, used, order, map) == 3);
  CHECK(order[0] == 1 && order[1] == 4 && order[2] == 2 && map[1] == 0 && map[4] == 1 && map[2] == 2);
}

static int load(const char *text, gs_scene *sc) {
  char path[1200], err[1024];
  snprintf(path, sizeof path, "%s/m.in", dir);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  gs_status st = gs_scene_load(path, sc, err, sizeof err);
  if (st != GS_OK) fprintf(stderr, "%s\n", err);
  return st == GS_OK;
}

#define HEAD "#domain: 0.1 0.1 0.1\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 10\n"

/* gprMax's Snapshot.build: a thin slice with a long step keeps the slice at step 1 there. */
static void test_snapshot_box(void) {
  gs_scene sc;
  if (!load(HEAD "#snapshot: 0.095 0 0 0.096 0.1 0.1 0.01 0.01 0.01 2 a.h5\n"
                 "#snapshot: 0 0 0.055 0.1 0.1 0.086 0.01 0.01 0.01 2 b.h5\n",
            &sc)) {
    CHECK(0);
    return;
  }
  const gs_snapshot_req *a = &sc.snaps[0], *b = &sc.snaps[1];
  CHECK(a->lo[0] == 95 && a->step[0] == 1 && a->size[0] == 1 && a->step[1] == 10 && a->size[1] == 10);
  CHECK(b->lo[2] == 55 && b->step[2] == 10 && b->size[2] == 4);
  gs_scene_free(&sc);
}

/* A whole-domain snapshot adds its 24 bytes a cell to the host figure. */
static void test_memory(void) {
  gs_scene plain, snap;
  if (!load(HEAD, &plain) || !load(HEAD "#snapshot: 0 0 0 0.1 0.1 0.1 0.001 0.001 0.001 2 s.h5\n", &snap)) {
    CHECK(0);
    return;
  }
  double d0, h0, d1, h1;
  gs_fdtd3_memory_need(&plain, &d0, &h0);
  gs_fdtd3_memory_need(&snap, &d1, &h1);
  CHECK(d1 == d0 && h1 == h0); /* the engine's own figures; the outputs' come on top */
  h0 += gs_gpr3_outputs_host_bytes(&plain);
  h1 += gs_gpr3_outputs_host_bytes(&snap);
  CHECKF(h1 - h0 >= 24.0 * 1e6, "%g more bytes", h1 - h0);
  gs_scene_free(&plain);
  gs_scene_free(&snap);
}

int main(int argc, char **argv) {
  snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "test_views3d_work");
  if (gs_mkdirs(dir, 1) != 0) {
    perror(dir);
    return 1;
  }
  test_round_trip();
  test_material_order();
  test_snapshot_box();
  test_memory();
  return gs_test_done("test_views3d");
}

/* Core splitting on a synthetic two-socket node (8 cores x 2 PUs per socket)
 * with 8 GPUs, 4 on each socket's PCI root (tests/data/two-socket-8gpu.xml):
 * every rank's cores lie in its GPU's socket, no two ranks share a core with
 * one or two ranks per GPU, and all cores near a GPU are used. */
#include <string.h>

#include "check.h"
#include "placement.h"

static const char *const busids[8] = {"0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0", "0000:5d:00.0",
                                      "0000:9b:00.0", "0000:bb:00.0", "0000:cb:00.0", "0000:db:00.0"};

static void run_case(hwloc_topology_t topo, int nranks, int per_gpu) {
  hwloc_bitmap_t loc[32], set[32];
  hwloc_obj_t sock[2] = {hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0),
                         hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 1)};
  for (int r = 0; r < nranks; ++r) {
    int gpu = r % 8; /* local rank modulo the visible GPUs, as gs_place does */
    loc[r] = hwloc_bitmap_alloc();
    set[r] = hwloc_bitmap_alloc();
    CHECKF(gs_placement_pci_locality(topo, busids[gpu], loc[r]) == 1, "GPU %s not found", busids[gpu]);
    CHECKF(hwloc_bitmap_isequal(loc[r], sock[gpu / 4]->cpuset), "GPU %d locality is not socket %d", gpu, gpu / 4);
  }
  hwloc_bitmap_t used = hwloc_bitmap_alloc();
  for (int r = 0; r < nranks; ++r) {
    int sharing = gs_placement_split(topo, (const hwloc_const_cpuset_t *)loc, nranks, r, set[r]);
    CHECKF(sharing == 1, "ranks=%d: rank %d shares cores (%d)", nranks, r, sharing);
    CHECKF(!hwloc_bitmap_iszero(set[r]), "rank %d got no cores", r);
    CHECKF(hwloc_bitmap_isincluded(set[r], sock[(r % 8) / 4]->cpuset), "rank %d outside its GPU's socket", r);
    int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set[r], HWLOC_OBJ_CORE);
    CHECKF(ncores == 2 / per_gpu, "rank %d: %d whole cores, expected %d", r, ncores, 2 / per_gpu);
    CHECKF(!hwloc_bitmap_intersects(used, set[r]), "rank %d overlaps another rank", r);
    hwloc_bitmap_or(used, used, set[r]);
  }
  CHECK(hwloc_bitmap_isequal(used, hwloc_topology_get_topology_cpuset(topo)));
  hwloc_bitmap_free(used);
  for (int r = 0; r < nranks; ++r) {
    hwloc_bitmap_free(loc[r]);
    hwloc_bitmap_free(set[r]);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_placement TOPOLOGY.xml\n");
    return 2;
  }
  hwloc_topology_t topo;
  CHECK(hwloc_topology_init(&topo) == 0);
  CHECK(hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) == 0);
  CHECK(hwloc_topology_set_xml(topo, argv[1]) == 0);
  CHECK(hwloc_topology_load(topo) == 0);
  CHECK(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PCI_DEVICE) == 8);

  run_case(topo, 8, 1);  /* one rank per GPU: 2 cores each */
  run_case(topo, 16, 2); /* two ranks per GPU: 1 core each */

  /* No GPU: 3 ranks split all 16 cores of the node, 5/5/6, disjoint. */
  hwloc_bitmap_t all[3], set = hwloc_bitmap_alloc(), used = hwloc_bitmap_alloc();
  int total = 0;
  for (int r = 0; r < 3; ++r) {
    all[r] = hwloc_bitmap_alloc();
    CHECK(gs_placement_pci_locality(topo, NULL, all[r]) == 0);
  }
  for (int r = 0; r < 3; ++r) {
    CHECK(gs_placement_split(topo, (const hwloc_const_cpuset_t *)all, 3, r, set) == 1);
    CHECK(!hwloc_bitmap_intersects(used, set));
    hwloc_bitmap_or(used, used, set);
    total += hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
  }
  CHECK(total == 16);

  /* More ranks than cores: 40 ranks on 16 cores share round-robin. */
  hwloc_bitmap_t many[40];
  for (int r = 0; r < 40; ++r)
    many[r] = all[0];
  CHECK(gs_placement_split(topo, (const hwloc_const_cpuset_t *)many, 40, 39, set) == 3);
  CHECK(hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE) == 1);

  /* An unknown bus id falls back to the whole allowed set. */
  CHECK(gs_placement_pci_locality(topo, "0000:ff:00.0", set) == 0);
  CHECK(hwloc_bitmap_isequal(set, hwloc_topology_get_allowed_cpuset(topo)));

  for (int r = 0; r < 3; ++r)
    hwloc_bitmap_free(all[r]);
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(used);
  hwloc_topology_destroy(topo);
  return gs_test_done("test_placement");
}

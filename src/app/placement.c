#include "placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

#define GS_HWLOC_PTR_CHECK(expr)                                                                                       \
  do {                                                                                                                 \
    if ((expr) == NULL) gs_fatal(#expr, "returned NULL", __FILE__, __LINE__);                                          \
  } while (0)

hwloc_topology_t gs_topology_load(void) {
  hwloc_topology_t topo;
  GS_HWLOC_CHECK(hwloc_topology_init(&topo));
  GS_HWLOC_CHECK(hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT));
  GS_HWLOC_CHECK(hwloc_topology_load(topo));
  return topo;
}

int gs_placement_pci_locality(hwloc_topology_t topo, const char *busid, hwloc_cpuset_t out) {
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
  unsigned dom = 0, bus = 0, dev = 0, func = 0;
  hwloc_obj_t pci = NULL;
  if (busid && sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &func) == 4)
    pci = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, func);
  hwloc_obj_t anc = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
  if (anc && anc->cpuset) {
    GS_HWLOC_CHECK(hwloc_bitmap_and(out, anc->cpuset, allowed));
    if (!hwloc_bitmap_iszero(out)) return 1;
  }
  GS_HWLOC_CHECK(hwloc_bitmap_copy(out, allowed));
  return 0;
}

int gs_placement_split(hwloc_topology_t topo, const hwloc_const_cpuset_t *locality, int nlocal, int me,
                       hwloc_cpuset_t out) {
  int group = 0, k = 0;
  for (int i = 0; i < nlocal; ++i) {
    if (!hwloc_bitmap_isequal(locality[i], locality[me])) continue;
    if (i < me) ++k;
    ++group;
  }
  hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
  int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, locality[me], unit);
  if (ncores <= 0) {
    unit = HWLOC_OBJ_PU;
    ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, locality[me], unit);
  }
  if (ncores <= 0) return -1;
  hwloc_bitmap_zero(out);
  int first, last, sharing = 1;
  if (group <= ncores) {
    first = (int)((long)k * ncores / group);
    last = (int)((long)(k + 1) * ncores / group);
  } else {
    first = k % ncores;
    last = first + 1;
    sharing = (group + ncores - 1) / ncores;
  }
  for (int c = first; c < last; ++c) {
    hwloc_obj_t o = hwloc_get_obj_inside_cpuset_by_type(topo, locality[me], unit, (unsigned)c);
    if (!o) return -1;
    hwloc_bitmap_t part = hwloc_bitmap_alloc();
    GS_HWLOC_PTR_CHECK(part);
    GS_HWLOC_CHECK(hwloc_bitmap_and(part, o->cpuset, locality[me]));
    GS_HWLOC_CHECK(hwloc_bitmap_or(out, out, part));
    hwloc_bitmap_free(part);
  }
  return sharing;
}

/* Binds the process's threads and memory to set (NUMA nodes `nodes`) when
 * asked and possible; otherwise, or when a bind call fails, says why in
 * out->note. A failed memory bind only matters with several NUMA nodes. */
static void bind_process(const gs_comm *c, hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_const_nodeset_t nodes,
                         int bind, gs_placement *out) {
  if (!bind) {
    snprintf(out->note, sizeof out->note, "--bind none");
    /* The launcher may have bound the rank already (Open MPI binds 1-2 ranks to a core each):
     * then the cores it may use are those, and the thread default follows them. */
    hwloc_bitmap_t cur = hwloc_bitmap_alloc();
    GS_HWLOC_PTR_CHECK(cur);
    if (hwloc_topology_is_thissystem(topo) && hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) == 0 &&
        hwloc_bitmap_weight(cur) < hwloc_bitmap_weight(set)) {
      hwloc_bitmap_list_snprintf(out->cpuset, sizeof out->cpuset, cur);
      snprintf(out->note, sizeof out->note, "--bind none: the launcher bound this rank to %d CPU(s)",
               hwloc_bitmap_weight(cur));
    }
    hwloc_bitmap_free(cur);
    return;
  }
  if (!hwloc_topology_is_thissystem(topo)) {
    snprintf(out->note, sizeof out->note, "topology is not this system's (HWLOC_XMLFILE): binding not applied");
    return;
  }
  if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0)
    out->bound = 1;
  else
    snprintf(out->note, sizeof out->note, "hwloc_set_cpubind: %s", strerror(errno));
  if (hwloc_set_membind(topo, set, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS) == 0)
    out->membound = 1;
  else if (hwloc_bitmap_weight(nodes) > 1 || hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) > 1)
    snprintf(out->note + strlen(out->note), sizeof out->note - strlen(out->note), "%shwloc_set_membind: %s",
             out->note[0] ? "; " : "", strerror(errno));
  if (out->note[0]) gs_log_warn("binding incomplete on host %s: %s", c->host, out->note);
}

/* Under GPUSTENCIL_DEBUG, one line per rank for whoever checks a cluster's
 * affinity: the GPU, the cores near it (or why the node's cores were used
 * instead), this rank's share of them, its NUMA nodes, and what was bound. */
static void log_placement(const gs_comm *c, const gs_placement *p, hwloc_const_cpuset_t locality, int gpu_found,
                          int sharing) {
  if (!gs_config_get()->debug) return; /* spares the formatting */
  char near[256], gpu[640];
  hwloc_bitmap_list_snprintf(near, sizeof near, locality);
  if (p->gpu < 0)
    snprintf(gpu, sizeof gpu, "no GPU, node's allowed cores %s", near);
  else if (gpu_found)
    snprintf(gpu, sizeof gpu, "GPU %d of %d (%s %s), its local cores %s", p->gpu, p->gpus_visible, p->dev.pci_bus_id,
             p->dev.name, near);
  else
    snprintf(gpu, sizeof gpu, "GPU %d of %d (%s %s) not in the hwloc topology, node's allowed cores %s", p->gpu,
             p->gpus_visible, p->dev.pci_bus_id, p->dev.name, near);
  gs_log_debug("placement: host %s local rank %d/%d: %s; its share: cores %s (%d rank(s) per core), NUMA %s; "
               "threads %s, memory %s%s%s%s",
               c->host, c->local_rank, c->local_size, gpu, p->cpuset, sharing, p->numa[0] ? p->numa : "-",
               p->bound ? "bound" : "not bound", p->membound ? "bound" : "not bound", p->note[0] ? " (" : "", p->note,
               p->note[0] ? ")" : "");
}

void gs_place(const gs_comm *c, const gs_backend *b, int bind, gs_placement *out) {
  memset(out, 0, sizeof *out);
  out->gpu = -1;
  out->gpus_visible = b->device_count();
  if (out->gpus_visible > 0) {
    out->gpu = c->local_rank % out->gpus_visible;
    b->device_select(out->gpu);
    b->device_describe(out->gpu, &out->dev);
    gs_log_debug("placement: GPU %d selected (its context made) and described", out->gpu);
  }
  int oversubscribed = out->gpus_visible > 0 && c->local_size > out->gpus_visible;
  if (oversubscribed && c->local_rank == 0)
    gs_log_warn("host %s: %d ranks share %d GPU(s); ranks %d apart use the same GPU", c->host, c->local_size,
                out->gpus_visible, out->gpus_visible);

  hwloc_topology_t topo = gs_topology_load();
  gs_log_debug("placement: hwloc topology loaded");
  hwloc_bitmap_t mine = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
  GS_HWLOC_PTR_CHECK(mine);
  GS_HWLOC_PTR_CHECK(set);
  GS_HWLOC_PTR_CHECK(nodes);
  int gpu_found = gs_placement_pci_locality(topo, out->gpu >= 0 ? out->dev.pci_bus_id : NULL, mine);

  /* Every rank of the node learns every rank's locality. */
  char *text = NULL;
  GS_HWLOC_CHECK(hwloc_bitmap_list_asprintf(&text, mine));
  char **all = gs_comm_allgather_text(text, c->node);
  free(text);
  hwloc_bitmap_t *loc = gs_xcalloc((size_t)c->local_size, sizeof *loc);
  for (int i = 0; i < c->local_size; ++i) {
    loc[i] = hwloc_bitmap_alloc();
    GS_HWLOC_PTR_CHECK(loc[i]);
    GS_HWLOC_CHECK(hwloc_bitmap_list_sscanf(loc[i], all[i]));
  }
  gs_comm_free_texts(all, c->local_size);

  int sharing = gs_placement_split(topo, (const hwloc_const_cpuset_t *)loc, c->local_size, c->local_rank, set);
  if (sharing < 0) gs_fatal("gs_placement_split", "the GPU's locality holds no processing unit", __FILE__, __LINE__);
  if (sharing > 1 && c->local_rank == 0)
    gs_log_warn("host %s: more ranks than cores (near their GPU, or on the node); %d ranks share each core", c->host,
                sharing);
  hwloc_bitmap_list_snprintf(out->cpuset, sizeof out->cpuset, set);
  GS_HWLOC_CHECK(hwloc_cpuset_to_nodeset(topo, set, nodes));
  hwloc_bitmap_list_snprintf(out->numa, sizeof out->numa, nodes);

  bind_process(c, topo, set, nodes, bind, out);
  log_placement(c, out, mine, gpu_found, sharing);
  for (int i = 0; i < c->local_size; ++i)
    hwloc_bitmap_free(loc[i]);
  free(loc);
  hwloc_bitmap_free(mine);
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(nodes);
  hwloc_topology_destroy(topo);
}

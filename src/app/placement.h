/* Where a rank runs: which GPU, which cores, which NUMA node.
 *
 * GPU = node-local rank modulo the GPUs this process sees (so that
 * CUDA_VISIBLE_DEVICES and Slurm's per-task GPU binding work). The cores
 * local to the GPU (hwloc: the non-I/O ancestor of its PCI device) are split
 * fairly and disjointly among the node's ranks that share that locality; the
 * rank's threads and memory are bound there. Without a GPU the node's ranks
 * split the node's allowed cores. */
#ifndef GS_PLACEMENT_H
#define GS_PLACEMENT_H

#include <hwloc.h>

#include "backend.h"
#include "comm.h"

typedef struct gs_placement {
  int gpu;            /* visible device index, -1 for none */
  int gpus_visible;   /* devices this process sees */
  gs_device_desc dev; /* valid when gpu >= 0 */
  char cpuset[256];   /* bound (or intended) cpuset as a list, "0-7,16-23" */
  char numa[64];      /* NUMA nodes of that cpuset as a list */
  int bound;          /* 1 when threads were bound */
  int membound;       /* 1 when memory was bound */
  char note[160];     /* why binding was not done, "" otherwise */
} gs_placement;

/* Pure core splitting, testable on any topology: locality[i] is the cpuset
 * local to the GPU of node-local rank i (all nlocal of them). Writes into out
 * rank me's share: the cores of its locality split evenly and disjointly among
 * the ranks whose locality is equal to it, in rank order; when they
 * outnumber the cores, ranks share cores round-robin. Returns the number of
 * ranks sharing each core (1 when disjoint), or -1 when the locality holds no
 * processing unit. */
int gs_placement_split(hwloc_topology_t topo, const hwloc_const_cpuset_t *locality, int nlocal, int me,
                       hwloc_cpuset_t out);

/* The cpuset local to the PCI device with bus id "dddd:bb:dd.f" (cpuset of
 * its first non-I/O ancestor), restricted to the allowed cpuset. Falls back to
 * the allowed cpuset when the topology has no such device. Returns 1 when the
 * device was found, 0 for the fallback. */
int gs_placement_pci_locality(hwloc_topology_t topo, const char *busid, hwloc_cpuset_t out);

/* Loads this machine's topology (or $HWLOC_XMLFILE's) with PCI devices.
 * Fatal on failure. */
hwloc_topology_t gs_topology_load(void);

/* Collective over c->node: chooses the GPU, selects it on backend b, computes
 * the cpuset and, when bind is set and the topology is this system's, binds
 * threads and memory. Prints a warning when the node has more ranks than
 * GPUs. With GPUSTENCIL_DEBUG set, every rank logs one line saying what was
 * decided: GPU, the cores near it, its share, NUMA nodes, what was bound. */
void gs_place(const gs_comm *c, const gs_backend *b, int bind, gs_placement *out);

#endif

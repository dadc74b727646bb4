/* What a model needs in memory, computed from the scene before anything is
 * allocated, and the collective refusal of a model that does not fit
 * (docs/fdtd.md, "Memory"). */
#include <stdio.h>

#include "fdtd.h"
#include "log.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Sources and receivers of sc that fall in part in run 0 (an upper bound
 * for later runs, which move them by whole cells but keep their count). */
static void count_points(const gs_scene *sc, const gs_fdtd_part *part, double *nsrc, double *nrx) {
  *nsrc = *nrx = 0;
  for (int k = 0; k < sc->nsources; ++k)
    *nsrc += sc->sources[k].i >= part->i0 && sc->sources[k].i < part->i1 && sc->sources[k].j >= part->j0 &&
             sc->sources[k].j < part->j1;
  for (int k = 0; k < sc->nrx; ++k)
    *nrx += sc->rxs[k].i >= part->i0 && sc->rxs[k].i < part->i1 && sc->rxs[k].j >= part->j0 && sc->rxs[k].j < part->j1;
  if (sc->src_di || sc->src_dj) *nsrc = sc->nsources; /* moving sources may enter the part */
  if (sc->rx_di || sc->rx_dj) *nrx = sc->nrx;
}

gs_fdtd_memory gs_fdtd_memory_need(const gs_scene *sc, const gs_fdtd_part *part, int depth, int64_t root_runs) {
  double w = (double)(part->i1 - part->i0) + 2.0 * depth, h = (double)(part->j1 - part->j0) + 2.0 * depth;
  double nelem = (double)((int64_t)(w + 31) / 32 * 32) * h, steps = (double)sc->iterations;
  double pml = 0;
  for (int k = 0; k < 4; ++k) /* CPML auxiliaries: E and H, two buffers, a slab's thickness along the side */
    pml += 16.0 * sc->pml[k] * (k % 2 ? w : h);
  double nsrc, nrx;
  count_points(sc, part, &nsrc, &nrx);
  int magnetic = 0; /* some material may give H nodes their own coefficients */
  for (int k = 0; k < sc->nmaterials; ++k)
    magnetic |= sc->materials[k].mr != 1 || sc->materials[k].sm != 0;
  gs_fdtd_memory need;
  /* fields (two sets of Ez, Hx, Hy), material bytes (and H's), CPML, source values per step, receivers' ring */
  need.device = 24.0 * nelem + (magnetic ? 3.0 : 1.0) * nelem + pml + 4.0 * steps * nsrc + 12.0 * 256 * nrx;
  /* set-up copies of one field and the materials, the geometry build (cells: material and rigid
   * flags; nodes: Ez, Hx, Hy materials: 9 bytes a node), source values, receiver histories */
  need.host = 4.0 * nelem + nelem + 9.0 * nelem + 4.0 * steps * nsrc + 12.0 * steps * nrx;
  if (root_runs > 0) { /* rank 0 gathers every receiver's history and keeps the B-scan */
    need.host += 12.0 * steps * sc->nrx + (root_runs > 1 ? 4.0 * steps * (double)root_runs : 0);
    /* geometry views build the whole grid's geometry on rank 0 */
    if (sc->nviews) need.host += 13.0 * (double)(sc->nx + 1) * (double)(sc->ny + 1);
    for (int k = 0; k < sc->nsnaps; ++k) { /* a snapshot's samples and cells, gathered on rank 0 */
      const gs_snapshot_req *q = &sc->snaps[k];
      need.host += 48.0 * (double)(q->size[0] + 1) * (double)(q->size[1] + 1) * (double)(q->size[2] + 1);
    }
  }
  return need;
}

double gs_fdtd_rank_host_memory(const gs_comm *c) {
  int ranks = c->local_size > 0 ? c->local_size : 1;
  return (double)gs_host_mem_share(ranks, c->node_cgroups, c->node_cgroups ? c->local_size : 0);
}

void gs_fdtd_rank_memory(const gs_comm *c, const gs_backend *b, double *device, double *host) {
  double ranks = c->local_size > 0 ? c->local_size : 1;
  *host = gs_fdtd_rank_host_memory(c);
  if (!b->is_gpu) {
    *device = *host;
    return;
  }
  int gpus = b->device_count() > 0 ? b->device_count() : 1;
  double per_gpu = ranks > gpus ? (ranks + gpus - 1) / gpus : 1; /* gs_place: GPU = local rank mod GPUs */
  *device = (double)b->mem_available() / per_gpu;
}

gs_status gs_fdtd_memory_check(const gs_comm *c, const gs_backend *b, gs_fdtd_memory need, char *err, size_t errlen) {
  double dev, host;
  gs_fdtd_rank_memory(c, b, &dev, &host);
  /* On the CPU backend the "device" is host memory too. */
  double want_host = b->is_gpu ? need.host : need.host + need.device, have_host = host;
  int short_dev = b->is_gpu && dev > 0 && need.device > dev, short_host = have_host > 0 && want_host > have_host;
  int me = short_dev || short_host ? c->rank : c->size, first = c->size;
  GS_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, c->world));
  gs_log_debug("memory: rank needs %.3f GiB on the %s and %.3f GiB of host memory; it has %.3f and %.3f GiB",
               need.device / GIB, b->is_gpu ? "GPU" : "host", need.host / GIB, dev / GIB, host / GIB);
  if (first == c->size) return GS_OK;
  if (c->rank == first)
    snprintf(err, errlen, "the model needs %.1f GiB of %s memory on rank %d, the rank has %.1f GiB",
             short_dev ? need.device / GIB : want_host / GIB, short_dev ? "GPU" : "host", c->rank,
             short_dev ? dev / GIB : have_host / GIB);
  else
    err[0] = '\0';
  return GS_ERR_LIMIT;
}

#include "comm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "backend.h"
#include "error.h"

/* The rest of c from c->world: rank, size, the node's ranks, the node index, the cgroups. */
static void fill_from_world(gs_comm *c) {
  GS_MPI_CHECK(MPI_Comm_rank(c->world, &c->rank));
  GS_MPI_CHECK(MPI_Comm_size(c->world, &c->size));
  GS_MPI_CHECK(MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &c->node));
  GS_MPI_CHECK(MPI_Comm_rank(c->node, &c->local_rank));
  GS_MPI_CHECK(MPI_Comm_size(c->node, &c->local_size));
  if (gethostname(c->host, sizeof c->host - 1) != 0) strcpy(c->host, "unknown");
  /* Node index: rank among node leaders, broadcast within the node. */
  MPI_Comm leaders;
  GS_MPI_CHECK(MPI_Comm_split(c->world, c->local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank, &leaders));
  int idx[2] = {0, 0};
  if (leaders != MPI_COMM_NULL) {
    GS_MPI_CHECK(MPI_Comm_rank(leaders, &idx[0]));
    GS_MPI_CHECK(MPI_Comm_size(leaders, &idx[1]));
    GS_MPI_CHECK(MPI_Comm_free(&leaders));
  }
  GS_MPI_CHECK(MPI_Bcast(idx, 2, MPI_INT, 0, c->node));
  c->node_index = idx[0];
  c->node_count = idx[1];
  /* Memory limits bind the ranks of their cgroup (gs_host_mem_share), which need not be all the node's. */
  char cgroup[1024];
  gs_host_cgroup_self(cgroup, sizeof cgroup);
  c->node_cgroups = gs_comm_allgather_text(cgroup, c->node);
}

void gs_comm_init(gs_comm *c) {
  memset(c, 0, sizeof *c);
  GS_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c->world));
  fill_from_world(c);
  gs_error_set_rank(c->rank, c->size);
}

void gs_comm_split(const gs_comm *parent, int color, gs_comm *c) {
  memset(c, 0, sizeof *c);
  GS_MPI_CHECK(MPI_Comm_split(parent->world, color, parent->rank, &c->world));
  fill_from_world(c);
}

void gs_comm_free(gs_comm *c) {
  if (c->node_cgroups) gs_comm_free_texts(c->node_cgroups, c->local_size);
  c->node_cgroups = NULL;
  if (c->node != MPI_COMM_NULL && c->node) GS_MPI_CHECK(MPI_Comm_free(&c->node));
  if (c->world != MPI_COMM_NULL && c->world) GS_MPI_CHECK(MPI_Comm_free(&c->world));
}

int gs_comm_agree(int status, MPI_Comm comm) {
  int all = 0;
  GS_MPI_CHECK(MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, comm));
  return all;
}

static char **gather_common(const char *text, int root, MPI_Comm comm, int all) {
  int rank, size;
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GS_MPI_CHECK(MPI_Comm_size(comm, &size));
  int len = (int)strlen(text) + 1;
  int *lens = gs_xcalloc((size_t)size, sizeof *lens), *displs = gs_xcalloc((size_t)size, sizeof *displs);
  if (all)
    GS_MPI_CHECK(MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, comm));
  else
    GS_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, root, comm));
  char **out = NULL;
  char *buf = NULL;
  if (all || rank == root) {
    size_t total = 0;
    for (int i = 0; i < size; ++i) {
      displs[i] = (int)total;
      total += (size_t)lens[i];
    }
    buf = gs_xmalloc(total);
  }
  if (all)
    GS_MPI_CHECK(MPI_Allgatherv(text, len, MPI_CHAR, buf, lens, displs, MPI_CHAR, comm));
  else
    GS_MPI_CHECK(MPI_Gatherv(text, len, MPI_CHAR, buf, lens, displs, MPI_CHAR, root, comm));
  if (buf) {
    out = gs_xcalloc((size_t)size, sizeof *out);
    for (int i = 0; i < size; ++i) {
      out[i] = gs_xstrdup(buf + displs[i]);
    }
    free(buf);
  }
  free(lens);
  free(displs);
  return out;
}

char **gs_comm_gather_text(const char *text, int root, MPI_Comm comm) {
  return gather_common(text, root, comm, 0);
}

char **gs_comm_allgather_text(const char *text, MPI_Comm comm) {
  return gather_common(text, 0, comm, 1);
}

void gs_comm_free_texts(char **texts, int n) {
  if (!texts) return;
  for (int i = 0; i < n; ++i)
    free(texts[i]);
  free(texts);
}

int gs_comm_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() ? 1 : 0;
#else
  return 0;
#endif
}

void *gs_comm_bcast_bytes(const void *data, size_t *n, int root, MPI_Comm comm) {
  int rank;
  GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  uint64_t len = rank == root ? (uint64_t)*n : 0;
  GS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_UINT64_T, root, comm));
  char *buf = gs_xmalloc((size_t)len + 1);
  if (rank == root && len) memcpy(buf, data, (size_t)len);
  const uint64_t piece = (uint64_t)1 << 30; /* MPI counts are ints */
  for (uint64_t at = 0; at < len; at += piece)
    GS_MPI_CHECK(MPI_Bcast(buf + at, (int)(len - at < piece ? len - at : piece), MPI_BYTE, root, comm));
  *n = (size_t)len;
  return buf;
}

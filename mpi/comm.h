/* Communicators and small collectives used by every driver. Knows nothing of
 * physics or pixels. */
#ifndef GS_COMM_H
#define GS_COMM_H

#include <mpi.h>
#include <stddef.h>

typedef struct gs_comm {
  MPI_Comm world;             /* duplicate of MPI_COMM_WORLD */
  MPI_Comm node;              /* ranks sharing memory with this one (MPI_COMM_TYPE_SHARED) */
  int rank, size;             /* in world */
  int local_rank, local_size; /* in node */
  int node_index, node_count; /* nodes numbered by their lowest world rank */
  char host[256];
  char **node_cgroups; /* the node ranks' memory cgroup folders, by local rank */
} gs_comm;

/* Fills c from MPI_COMM_WORLD (MPI must be initialised). Fatal on failure. */
void gs_comm_init(gs_comm *c);
/* Collective over parent->world: c describes the ranks of parent that pass the
 * same color, in parent's order (a survey's group of ranks); its world is their
 * communicator, its node their ranks on this one's node. Fatal on failure;
 * free with gs_comm_free. Fatal errors still name the rank in MPI_COMM_WORLD. */
void gs_comm_split(const gs_comm *parent, int color, gs_comm *c);
/* Frees the communicators made by gs_comm_init or gs_comm_split. */
void gs_comm_free(gs_comm *c);

/* Collective over comm: returns the largest status any rank passed, so every
 * rank takes the same decision after one rank found a problem. */
int gs_comm_agree(int status, MPI_Comm comm);

/* Collective over comm: gathers one NUL-terminated string from every rank.
 * On root returns a malloc'd array of size(comm) malloc'd strings (free with
 * gs_comm_free_texts); NULL elsewhere. */
char **gs_comm_gather_text(const char *text, int root, MPI_Comm comm);
/* Like gs_comm_gather_text but every rank receives the array. */
char **gs_comm_allgather_text(const char *text, MPI_Comm comm);
void gs_comm_free_texts(char **texts, int n);

/* Collective over comm: root's *n bytes at data to every rank. Returns a
 * malloc'd copy of them on every rank (root included) with *n set; data is
 * read on root only. Fatal on failure. */
void *gs_comm_bcast_bytes(const void *data, size_t *n, int root, MPI_Comm comm);

/* 1 when this MPI library says it handles device pointers (CUDA-aware), from
 * MPIX_Query_cuda_support() at run time where Open MPI provides it. */
int gs_comm_cuda_aware(void);

#endif

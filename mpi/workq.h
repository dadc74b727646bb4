/* Dynamic work distribution: a shared counter on rank 0 (MPI-3 one-sided
 * fetch-and-add) hands out item indices 0..n-1 to whichever rank asks first,
 * so no rank idles while another holds queued work. A second counter adds up
 * completed items for progress reports. */
#ifndef GS_WORKQ_H
#define GS_WORKQ_H

#include <mpi.h>
#include <stdint.h>

typedef struct gs_workq gs_workq;

/* Collective over comm. n: number of items. */
gs_workq *gs_workq_create(MPI_Comm comm, int64_t n);
/* The next unclaimed item index, or -1 when all are claimed. */
int64_t gs_workq_next(gs_workq *q);
/* Adds k to the global count of completed items. */
void gs_workq_add_done(gs_workq *q, int64_t k);
/* The global count of completed items (as far as reported). */
int64_t gs_workq_done(gs_workq *q);
/* Lets MPI progress one-sided requests aimed at this rank; call it regularly
 * from the thread that owns MPI while waiting on other work. */
void gs_workq_poll(gs_workq *q);
/* Collective: frees the window. */
void gs_workq_destroy(gs_workq *q);

#endif

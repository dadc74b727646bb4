/* Status codes, the one fatal path, and fault injection.
 *
 * Recoverable problems (bad options, a broken input file) are returned as a
 * gs_status and reported by the caller. Failures of CUDA, MPI, hwloc and
 * libpng calls that leave the program in an unknown state go through
 * gs_fatal(), which prints the call, file:line, rank, host and GPU and then
 * ends every rank with MPI_Abort. */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <stddef.h>
#include <stdnoreturn.h>

typedef enum gs_status {
  GS_OK = 0,
  GS_ERR_USAGE,       /* bad command line option or value */
  GS_ERR_IO,          /* a file could not be opened, read or written */
  GS_ERR_FORMAT,      /* an input file is malformed */
  GS_ERR_UNSUPPORTED, /* valid input we do not handle */
  GS_ERR_LIMIT,       /* input over a documented size limit */
  GS_ERR_EXISTS,      /* output exists and may not be replaced */
  GS_ERR_NOMEM,       /* out of host or device memory */
  GS_ERR_BACKEND,     /* the requested backend is unavailable */
  GS_ERR_CUDA,        /* a CUDA call failed */
  GS_ERR_MPI,         /* an MPI call failed */
  GS_ERR_HWLOC,       /* an hwloc call failed */
  GS_ERR_PNG,         /* libpng reported an error */
  GS_ERR_COUNT_
} gs_status;

/* A short, constant English description of a status code; never NULL. */
const char *gs_strerror(gs_status status);

/* Exit statuses of gpustencil. */
enum {
  GS_EXIT_OK = 0,      /* everything done */
  GS_EXIT_PARTIAL = 1, /* ran, but some inputs failed (reported one per line) */
  GS_EXIT_USAGE = 2,   /* bad option, value or input before any work */
  GS_EXIT_FATAL = 3,   /* a CUDA/MPI/hwloc/libpng call failed; all ranks aborted */
};

/* Records where this process runs so that gs_fatal() can say it.
 * rank/size are MPI_COMM_WORLD's; gpu is -1 when no GPU is used. */
void gs_error_set_rank(int rank, int size);
void gs_error_set_gpu(int gpu);

/* This process's rank in MPI_COMM_WORLD (0 before MPI is set up). */
int gs_error_rank(void);

/* Prints "gpustencil: fatal: CALL failed: DETAIL [file:line, rank R/N, host H,
 * GPU G]" on stderr and ends all ranks (MPI_Abort when MPI is initialised,
 * exit(EXIT_FAILURE) otherwise). Never returns. */
noreturn void gs_fatal(const char *call, const char *detail, const char *file, int line);

/* Fatal unless the MPI call returned MPI_SUCCESS. */
#define GS_MPI_CHECK(call)                                                                                             \
  do {                                                                                                                 \
    int gs_rc_ = (call);                                                                                               \
    if (gs_rc_ != 0) gs_fatal(#call, gs_mpi_errstr(gs_rc_), __FILE__, __LINE__);                                       \
  } while (0)

/* Fatal when an hwloc call returned a negative value (or NULL for objects). */
#define GS_HWLOC_CHECK(call)                                                                                           \
  do {                                                                                                                 \
    if ((call) < 0) gs_fatal(#call, gs_errno_str(), __FILE__, __LINE__);                                               \
  } while (0)

/* Fatal when a C library call failed (non-zero result); reports errno. */
#define GS_SYS_CHECK(call)                                                                                             \
  do {                                                                                                                 \
    if ((call) != 0) gs_fatal(#call, gs_errno_str(), __FILE__, __LINE__);                                              \
  } while (0)

/* Allocation that cannot fail: gs_fatal() when out of memory. */
void *gs_xmalloc(size_t bytes);
void *gs_xcalloc(size_t n, size_t size);
void *gs_xrealloc(void *p, size_t bytes);
char *gs_xstrdup(const char *s);

/* MPI's own error text for a return code (thread-unsafe static buffer). */
const char *gs_mpi_errstr(int rc);
/* strerror(errno), thread-safely copied into a thread-local buffer. */
const char *gs_errno_str(void);

/* Fault injection for tests: when GPUSTENCIL_FAULT is "NAME@RANK" (or "NAME"
 * for every rank) and this is rank RANK, gs_fault_point(NAME) calls
 * gs_fatal() as if a call had failed there. */
void gs_fault_point_at(const char *name, const char *file, int line);
extern int gs_fault_armed; /* set by gs_config_set() when GPUSTENCIL_FAULT names a point */
#define gs_fault_point(name)                                                                                           \
  do {                                                                                                                 \
    if (gs_fault_armed) gs_fault_point_at((name), __FILE__, __LINE__);                                                 \
  } while (0)

#endif

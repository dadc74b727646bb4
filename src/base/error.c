#include "error.h"

#include "config.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_rank = 0, g_size = 1, g_gpu = -1;

static const char *const g_messages[GS_ERR_COUNT_] = {
    [GS_OK] = "success",
    [GS_ERR_USAGE] = "invalid usage",
    [GS_ERR_IO] = "input/output error",
    [GS_ERR_FORMAT] = "malformed input",
    [GS_ERR_UNSUPPORTED] = "unsupported input",
    [GS_ERR_LIMIT] = "input exceeds a size limit",
    [GS_ERR_EXISTS] = "output exists",
    [GS_ERR_NOMEM] = "out of memory",
    [GS_ERR_BACKEND] = "backend unavailable",
    [GS_ERR_CUDA] = "CUDA error",
    [GS_ERR_MPI] = "MPI error",
    [GS_ERR_HWLOC] = "hwloc error",
    [GS_ERR_PNG] = "PNG error",
};

const char *gs_strerror(gs_status status) {
  if ((int)status < 0 || status >= GS_ERR_COUNT_ || !g_messages[status]) return "unknown status";
  return g_messages[status];
}

void gs_error_set_rank(int rank, int size) {
  g_rank = rank;
  g_size = size;
}
void gs_error_set_gpu(int gpu) {
  g_gpu = gpu;
}
int gs_error_rank(void) {
  return g_rank;
}

const char *gs_mpi_errstr(int rc) {
  static char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) snprintf(buf, sizeof buf, "MPI error %d", rc);
  return buf;
}

const char *gs_errno_str(void) {
  static _Thread_local char buf[256];
  int e = errno;
  if (e == 0) return "unknown error";
  snprintf(buf, sizeof buf, "%s", strerror(e));
  return buf;
}

noreturn void gs_fatal(const char *call, const char *detail, const char *file, int line) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  char gpu[32] = "none";
  if (g_gpu >= 0) snprintf(gpu, sizeof gpu, "%d", g_gpu);
  fprintf(stderr, "gpustencil: fatal: %s failed: %s [%s:%d, rank %d/%d, host %s, GPU %s]\n", call, detail ? detail : "",
          file, line, g_rank, g_size, host, gpu);
  fflush(stderr);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

int gs_fault_armed = 0;

void gs_fault_point_at(const char *name, const char *file, int line) {
  const gs_config *cfg = gs_config_get();
  if (strcmp(cfg->fault, name) != 0) return;
  if (cfg->fault_rank >= 0 && cfg->fault_rank != g_rank) return;
  gs_fatal(name, "fault injected by GPUSTENCIL_FAULT", file, line);
}

void *gs_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) gs_fatal("malloc", "out of memory", __FILE__, __LINE__);
  return p;
}

void *gs_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) gs_fatal("calloc", "out of memory", __FILE__, __LINE__);
  return p;
}

void *gs_xrealloc(void *p, size_t bytes) {
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) gs_fatal("realloc", "out of memory", __FILE__, __LINE__);
  return q;
}

char *gs_xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d) gs_fatal("strdup", "out of memory", __FILE__, __LINE__);
  return d;
}

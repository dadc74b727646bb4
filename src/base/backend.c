#include "backend.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "log.h"

static const gs_backend *cpu_stand_in; /* gs_backend_stand_in_cpu's */

void gs_backend_stand_in_cpu(const gs_backend *b) {
  cpu_stand_in = b;
}

const gs_backend *gs_backend_choose(const char *which, char *why, size_t whylen) {
  if (strcmp(which, "cpu") == 0) return cpu_stand_in ? cpu_stand_in : &gs_backend_cpu;
#ifdef GS_HAVE_CUDA
  int n = gs_cuda_probe();
  if (strcmp(which, "cuda") == 0) {
    if (n > 0) return &gs_backend_cuda;
    snprintf(why, whylen, "--backend cuda: no CUDA GPU is visible to this process");
    return NULL;
  }
  if (n > 0) return &gs_backend_cuda;
  gs_log_notice("no CUDA GPU visible: using the CPU backend");
  return &gs_backend_cpu;
#else
  if (strcmp(which, "cuda") == 0) {
    snprintf(why, whylen, "--backend cuda: this gpustencil was built without CUDA");
    return NULL;
  }
  gs_log_notice("built without CUDA: using the CPU backend");
  return &gs_backend_cpu;
#endif
}

/* The first number after key in file, times scale; 0 when absent. */
static uint64_t read_number(const char *path, const char *key, uint64_t scale) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  uint64_t v = 0;
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, klen) == 0) {
      unsigned long long x = 0;
      if (sscanf(line + klen, "%llu", &x) == 1) v = (uint64_t)x * scale;
      break;
    }
  fclose(f);
  return v;
}

size_t gs_host_mem_share_from(const char *meminfo, const char *cgroup_dir, int local_ranks) {
  char max_path[512], cur_path[512];
  snprintf(max_path, sizeof max_path, "%s/memory.max", cgroup_dir);
  snprintf(cur_path, sizeof cur_path, "%s/memory.current", cgroup_dir);
  uint64_t avail = read_number(meminfo, "MemAvailable:", 1024);
  /* Containers and batch jobs limit memory by cgroup (v2, then v1); "max" reads as 0. */
  uint64_t limit = read_number(max_path, "", 1), used = read_number(cur_path, "", 1);
  if (!limit) {
    snprintf(max_path, sizeof max_path, "%s/memory/memory.limit_in_bytes", cgroup_dir);
    snprintf(cur_path, sizeof cur_path, "%s/memory/memory.usage_in_bytes", cgroup_dir);
    limit = read_number(max_path, "", 1);
    used = read_number(cur_path, "", 1);
  }
  if (limit && limit < ((uint64_t)1 << 60)) {
    uint64_t room = limit > used ? limit - used : 1; /* (1 byte, not 0: 0 reads as unknown) */
    if (!avail || room < avail) avail = room;
  }
  /* The node's memory and its cgroup are shared by every rank placed there. */
  if (avail && local_ranks > 1) {
    avail /= (uint64_t)local_ranks;
    if (!avail) avail = 1; /* (0 reads as unknown) */
  }
  /* A ulimit -v (RLIMIT_AS) caps this process's own address space: each rank has it whole. */
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    uint64_t mapped = read_number("/proc/self/status", "VmSize:", 1024);
    uint64_t room = (uint64_t)as.rlim_cur > mapped ? (uint64_t)as.rlim_cur - mapped : 1;
    if (!avail || room < avail) avail = room;
  }
  return (size_t)avail;
}

size_t gs_host_mem_share(int local_ranks) {
  return gs_host_mem_share_from("/proc/meminfo", "/sys/fs/cgroup", local_ranks);
}

size_t gs_host_mem_available(void) {
  return gs_host_mem_share(1);
}

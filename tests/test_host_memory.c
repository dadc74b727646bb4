/* gs_host_mem_share_from: the node's available memory (MemAvailable within a
 * cgroup v2 or v1 room) is shared by the node's ranks, while a ulimit -v
 * (RLIMIT_AS) is each process's own and is not divided. Before this, a 3D
 * model split over 4 ranks of one node let each rank take the whole node's
 * memory. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "backend.h"
#include "check.h"

#define GIB ((size_t)1 << 30)

static void put(const char *dir, const char *name, const char *text) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* A fresh cgroup folder under root (empty: no limit). */
static void cgroup_dir(const char *root, const char *name, char *out, size_t n) {
  snprintf(out, n, "%s/%s", root, name);
  CHECK(mkdir(out, 0700) == 0);
}

int main(void) {
  struct rlimit as;
  CHECK(getrlimit(RLIMIT_AS, &as) == 0);
  if (as.rlim_cur != RLIM_INFINITY) {
    printf("test_host_memory: a ulimit -v is set here; the exact figures below assume none: skipped\n");
    return GS_TEST_SKIP;
  }
  char root[] = "/tmp/gs-hostmem-XXXXXX", meminfo[600], none[600], v2[600], v2max[600], v1[600], over[600];
  CHECK(mkdtemp(root) != NULL);
  snprintf(meminfo, sizeof meminfo, "%s/meminfo", root);
  put(root, "meminfo", "MemTotal:       16777216 kB\nMemFree:         1048576 kB\nMemAvailable:    8388608 kB\n");
  cgroup_dir(root, "none", none, sizeof none);

  /* No cgroup limit: the 8 GiB available, shared evenly */
  CHECK(gs_host_mem_share_from(meminfo, none, 1) == 8 * GIB);
  CHECK(gs_host_mem_share_from(meminfo, none, 4) == 2 * GIB);
  CHECK(gs_host_mem_share_from(meminfo, none, 0) == 8 * GIB);
  /* Nothing readable: unknown (0), whatever the ranks */
  CHECK(gs_host_mem_share_from("/nonexistent/meminfo", none, 4) == 0);

  /* cgroup v2: 4 GiB limit, 1 GiB used: 3 GiB for the node, 1 GiB for each of 3 ranks */
  cgroup_dir(root, "v2", v2, sizeof v2);
  put(v2, "memory.max", "4294967296\n");
  put(v2, "memory.current", "1073741824\n");
  CHECK(gs_host_mem_share_from(meminfo, v2, 1) == 3 * GIB);
  CHECK(gs_host_mem_share_from(meminfo, v2, 3) == GIB);
  /* "max" is no limit */
  cgroup_dir(root, "v2max", v2max, sizeof v2max);
  put(v2max, "memory.max", "max\n");
  put(v2max, "memory.current", "1073741824\n");
  CHECK(gs_host_mem_share_from(meminfo, v2max, 2) == 4 * GIB);

  /* cgroup v1 (memory/ below the folder): 2 GiB limit, nothing used */
  cgroup_dir(root, "v1", v1, sizeof v1);
  char v1mem[700];
  snprintf(v1mem, sizeof v1mem, "%s/memory", v1);
  CHECK(mkdir(v1mem, 0700) == 0);
  put(v1mem, "memory.limit_in_bytes", "2147483648\n");
  put(v1mem, "memory.usage_in_bytes", "0\n");
  CHECK(gs_host_mem_share_from(meminfo, v1, 2) == GIB);

  /* A cgroup over its limit has 1 byte, not 0 (unknown), for every rank */
  cgroup_dir(root, "over", over, sizeof over);
  put(over, "memory.max", "1000\n");
  put(over, "memory.current", "5000\n");
  CHECK(gs_host_mem_share_from(meminfo, over, 4) == 1);

  /* A ulimit -v caps each process whole: 2 ranks with 64 GiB available get
   * about the 1 GiB of address space left to this process, not half of it */
  put(root, "meminfo", "MemAvailable:   67108864 kB\n");
  unsigned long long vm_kb = 0;
  FILE *st = fopen("/proc/self/status", "r");
  char line[256];
  while (st && fgets(line, sizeof line, st))
    if (sscanf(line, "VmSize: %llu", &vm_kb) == 1) break;
  if (st) fclose(st);
  CHECK(vm_kb > 0);
  struct rlimit cap = {(rlim_t)vm_kb * 1024 + GIB, as.rlim_max};
  if (setrlimit(RLIMIT_AS, &cap) == 0) {
    size_t got = gs_host_mem_share_from(meminfo, none, 2);
    CHECK(setrlimit(RLIMIT_AS, &as) == 0);
    CHECKF(got > GIB / 2 + GIB / 4 && got <= GIB, "%zu bytes with a 1 GiB address-space room", got);
  }
  char rm[100];
  snprintf(rm, sizeof rm, "rm -rf '%s'", root);
  CHECK(system(rm) == 0);
  return gs_test_done("test_host_memory");
}

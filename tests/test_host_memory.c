/* gs_host_mem_share_from: the node's available memory (MemAvailable) is
 * shared by the node's ranks, each cgroup v2 or v1 limit by the ranks under it, while a ulimit -v
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

/* gs_host_mem_share_from with meminfo and a cgroup root, this process in the
 * cgroup folder rel ("/" for the root; v1: "N:memory:/rel" lines). */
static size_t share(const char *meminfo, const char *root, const char *self_line, int node_ranks, char *const *peers,
                    int npeers) {
  char self[700];
  snprintf(self, sizeof self, "%s/self_cgroup", root);
  put(root, "self_cgroup", self_line);
  const gs_host_files f = {meminfo, root, self};
  return gs_host_mem_share_from(&f, node_ranks, peers, npeers);
}

/* Which folder /proc/self/cgroup's lines name: v2's, v1's memory controller
 * on a hybrid host, the root when the file is missing. */
static void check_cgroup_folders(const char *root) {
  char self[700], dir[1024];
  snprintf(self, sizeof self, "%s/self_cgroup", root);
  put(root, "self_cgroup", "0::/system.slice/job_7/step_0\n");
  gs_host_cgroup_of(self, "/cg", dir, sizeof dir);
  CHECKF(strcmp(dir, "/cg/system.slice/job_7/step_0") == 0, "v2: %s", dir);
  put(root, "self_cgroup", "12:cpuset:/slurm/a\n7:cpu,memory:/slurm/uid_0/job_7\n0::/user.slice\n");
  gs_host_cgroup_of(self, "/cg", dir, sizeof dir);
  CHECKF(strcmp(dir, "/cg/memory/slurm/uid_0/job_7") == 0, "hybrid: %s", dir);
  put(root, "self_cgroup", "0::/\n");
  gs_host_cgroup_of(self, "/cg", dir, sizeof dir);
  CHECKF(strcmp(dir, "/cg") == 0, "namespaced: %s", dir);
  /* a line longer than the reader's buffer is skipped whole: its tail is not read as a line */
  static char filler[4501];
  memset(filler, 'a', sizeof filler - 1);
  FILE *f = fopen(self, "w");
  CHECK(f && fprintf(f, "1:name=systemd:/%s:memory:/oops\n0::/ok\n", filler) > 0 && fclose(f) == 0);
  gs_host_cgroup_of(self, "/cg", dir, sizeof dir);
  CHECKF(strcmp(dir, "/cg/ok") == 0, "long line: %s", dir);
  gs_host_cgroup_of("/nonexistent/cgroup", "/cg", dir, sizeof dir);
  CHECKF(strcmp(dir, "/cg") == 0, "unknown: %s", dir);
}

/* A Slurm-like v2 tree: a job's folder limits its tasks' folders below it;
 * the node's other ranks belong to another job. Each limit is shared only
 * by the ranks under it (not by all of the node's ranks; and limits below
 * the cgroup root count, not only the root's). */
static void check_job_tree(const char *root, const char *meminfo) {
  char job[600], t0[600], t1[600], other[600];
  cgroup_dir(root, "job", job, sizeof job);
  cgroup_dir(job, "task_0", t0, sizeof t0);
  cgroup_dir(job, "task_1", t1, sizeof t1);
  cgroup_dir(root, "other", other, sizeof other);
  put(job, "memory.max", "6442450944\n"); /* 6 GiB, nothing used */
  put(job, "memory.current", "0\n");
  char *peers[4] = {t0, t1, other, other};
  /* 64 GiB available: 16 GiB a rank of 4, the job's 6 GiB shared by its 2 ranks */
  CHECK(share(meminfo, root, "0::/job/task_0\n", 4, peers, 4) == 3 * GIB);
  /* without the peers' folders every limit is taken as all 4 ranks' */
  CHECK(share(meminfo, root, "0::/job/task_0\n", 4, NULL, 0) == 3 * GIB / 2);
  /* a task's own limit binds that task alone */
  put(t0, "memory.max", "1073741824\n");
  put(t0, "memory.current", "0\n");
  CHECK(share(meminfo, root, "0::/job/task_0\n", 4, peers, 4) == GIB);
  CHECK(share(meminfo, root, "0::/job/task_1\n", 4, peers, 4) == 3 * GIB);
  /* the other job's ranks have no limit: the node's 64 GiB over 4 */
  CHECK(share(meminfo, root, "0::/other\n", 4, peers, 4) == 16 * GIB);
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
  const char *v2self = "0::/\n";

  /* No cgroup limit: the 8 GiB available, shared evenly */
  CHECK(share(meminfo, none, v2self, 1, NULL, 0) == 8 * GIB);
  CHECK(share(meminfo, none, v2self, 4, NULL, 0) == 2 * GIB);
  CHECK(share(meminfo, none, v2self, 0, NULL, 0) == 8 * GIB);
  /* Nothing readable: unknown (0), whatever the ranks */
  CHECK(share("/nonexistent/meminfo", none, v2self, 4, NULL, 0) == 0);

  /* cgroup v2: 4 GiB limit, 1 GiB used: 3 GiB for the node, 1 GiB for each of 3 ranks */
  cgroup_dir(root, "v2", v2, sizeof v2);
  put(v2, "memory.max", "4294967296\n");
  put(v2, "memory.current", "1073741824\n");
  CHECK(share(meminfo, v2, v2self, 1, NULL, 0) == 3 * GIB);
  CHECK(share(meminfo, v2, v2self, 3, NULL, 0) == GIB);
  /* "max" is no limit */
  cgroup_dir(root, "v2max", v2max, sizeof v2max);
  put(v2max, "memory.max", "max\n");
  put(v2max, "memory.current", "1073741824\n");
  CHECK(share(meminfo, v2max, v2self, 2, NULL, 0) == 4 * GIB);

  /* cgroup v1 (memory/ below the folder): 2 GiB limit, nothing used */
  cgroup_dir(root, "v1", v1, sizeof v1);
  char v1mem[700];
  snprintf(v1mem, sizeof v1mem, "%s/memory", v1);
  CHECK(mkdir(v1mem, 0700) == 0);
  put(v1mem, "memory.limit_in_bytes", "2147483648\n");
  put(v1mem, "memory.usage_in_bytes", "0\n");
  CHECK(share(meminfo, v1, "4:memory:/\n", 2, NULL, 0) == GIB);

  /* The page cache counts in the usage, but its inactive part is room (v2 memory.stat): 4 GiB
   * used of 4, 2 GiB of it inactive file pages: 2 GiB, not 1 byte */
  char cache[600];
  cgroup_dir(root, "cache", cache, sizeof cache);
  put(cache, "memory.max", "4294967296\n");
  put(cache, "memory.current", "4294967296\n");
  put(cache, "memory.stat", "anon 1073741824\nfile 3221225472\nactive_file 1073741824\ninactive_file 2147483648\n");
  CHECK(share(meminfo, cache, v2self, 1, NULL, 0) == 2 * GIB);

  /* A cgroup over its limit has 1 byte, not 0 (unknown), for every rank */
  cgroup_dir(root, "over", over, sizeof over);
  put(over, "memory.max", "1000\n");
  put(over, "memory.current", "5000\n");
  CHECK(share(meminfo, over, v2self, 4, NULL, 0) == 1);

  check_cgroup_folders(root);
  char tree[600];
  cgroup_dir(root, "tree", tree, sizeof tree);
  put(root, "meminfo", "MemAvailable:   67108864 kB\n");
  check_job_tree(tree, meminfo);

  /* A ulimit -v caps each process whole: 2 ranks with 64 GiB available get
   * about the 1 GiB of address space left to this process, not half of it */
  unsigned long long vm_kb = 0;
  FILE *st = fopen("/proc/self/status", "r");
  char line[256];
  while (st && fgets(line, sizeof line, st))
    if (sscanf(line, "VmSize: %llu", &vm_kb) == 1) break;
  if (st) fclose(st);
  CHECK(vm_kb > 0);
  struct rlimit cap = {(rlim_t)vm_kb * 1024 + GIB, as.rlim_max};
  if (setrlimit(RLIMIT_AS, &cap) == 0) {
    size_t got = share(meminfo, none, v2self, 2, NULL, 0);
    CHECK(setrlimit(RLIMIT_AS, &as) == 0);
    CHECKF(got > GIB / 2 + GIB / 4 && got <= GIB, "%zu bytes with a 1 GiB address-space room", got);
  }
  char rm[100];
  snprintf(rm, sizeof rm, "rm -rf '%s'", root);
  CHECK(system(rm) == 0);
  return gs_test_done("test_host_memory");
}

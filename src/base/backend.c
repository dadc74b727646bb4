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

/* This process's memory cgroup folder into dir: v1's memory controller line
 * "N:...memory...:/p" gives root/memory/p (hybrid hosts keep memory on v1),
 * else v2's "0::/p" gives root/p; a namespaced container reads "/" there. */
void gs_host_cgroup_of(const char *self_cgroup, const char *root, char *dir, size_t n) {
  snprintf(dir, n, "%s", root);
  FILE *f = fopen(self_cgroup, "r");
  if (!f) return;
  char line[4200]; /* (a path of PATH_MAX and its prefix; a longer line is skipped whole) */
  int v1 = 0;
  while (!v1 && fgets(line, sizeof line, f)) {
    if (!strchr(line, '\n') && !feof(f)) {
      for (int ch = 0; ch != '\n' && ch != EOF;)
        ch = getc(f);
      continue;
    }
    line[strcspn(line, "\n")] = '\0';
    char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
    if (!rel || rel[1] != '/') continue;
    *rel = '\0';
    const char *name = ctl + 1, *sub = strcmp(rel + 1, "/") ? rel + 1 : ""; /* (the root: no "/" added) */
    v1 = strstr(name, "memory") != NULL;
    if (v1 || *name == '\0') snprintf(dir, n, "%s%s%s", root, v1 ? "/memory" : "", sub);
  }
  fclose(f);
}

/* The room left under one cgroup folder's memory limit (v2 files, then v1's
 * in the folder or under memory/), or 0 when it sets none. The usage counts
 * the page cache, which the kernel reclaims under the limit: its inactive
 * part (memory.stat) is taken as room, as container tools do, so a job that
 * has read large files is not refused for them. */
static uint64_t cgroup_room(const char *dir) {
  static const char *const files[3][4] = {
      {"memory.max", "memory.current", "memory.stat", "inactive_file "},
      {"memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat", "total_inactive_file "},
      {"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file "}};
  for (int k = 0; k < 3; ++k) {
    char max_path[1100], cur_path[1100], stat_path[1100];
    snprintf(max_path, sizeof max_path, "%s/%s", dir, files[k][0]);
    snprintf(cur_path, sizeof cur_path, "%s/%s", dir, files[k][1]);
    snprintf(stat_path, sizeof stat_path, "%s/%s", dir, files[k][2]);
    uint64_t limit = read_number(max_path, "", 1); /* "max" reads as 0 */
    if (limit && limit < ((uint64_t)1 << 60)) {
      uint64_t used = read_number(cur_path, "", 1), cache = read_number(stat_path, files[k][3], 1);
      used = used > cache ? used - cache : 0;
      return limit > used ? limit - used : 1; /* (1 byte, not 0: 0 reads as no limit) */
    }
  }
  return 0;
}

/* How many of the node's ranks (their cgroup folders: peers) live under dir;
 * without peers, all node_ranks are assumed to. */
static int ranks_under(const char *dir, char *const *peers, int npeers, int node_ranks) {
  if (npeers <= 0) return node_ranks > 1 ? node_ranks : 1;
  size_t len = strlen(dir);
  int n = 0;
  for (int k = 0; k < npeers; ++k)
    n += strncmp(peers[k], dir, len) == 0 && (peers[k][len] == '\0' || peers[k][len] == '/');
  return n > 1 ? n : 1;
}

/* The least room per rank over the cgroup folder and its ancestors up to
 * root: a limit binds every rank below it, and only those. 0: no limit. */
static uint64_t cgroup_share(const char *root, const char *leaf, char *const *peers, int npeers, int node_ranks) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", leaf);
  const size_t top = strlen(root);
  uint64_t share = 0;
  for (;;) {
    uint64_t room = cgroup_room(dir);
    if (room) {
      uint64_t each = room / (uint64_t)ranks_under(dir, peers, npeers, node_ranks);
      each = each ? each : 1;
      if (!share || each < share) share = each;
    }
    char *slash = strrchr(dir, '/'); /* (up to the root folder, inclusive) */
    if (!slash || slash < dir + top) break;
    *slash = '\0';
  }
  return share;
}

size_t gs_host_mem_share_from(const gs_host_files *f, int node_ranks, char *const *peers, int npeers) {
  char leaf[1024];
  gs_host_cgroup_of(f->self_cgroup, f->cgroup_root, leaf, sizeof leaf);
  uint64_t avail = read_number(f->meminfo, "MemAvailable:", 1024);
  /* The node's memory is shared by every rank placed there. */
  if (avail && node_ranks > 1) {
    avail /= (uint64_t)node_ranks;
    if (!avail) avail = 1; /* (0 reads as unknown) */
  }
  /* Containers and batch jobs limit memory by cgroup (v2, then v1): each limit
   * is shared by the ranks under it (Slurm: the job's or step's folder). */
  uint64_t cg = cgroup_share(f->cgroup_root, leaf, peers, npeers, node_ranks);
  if (cg && (!avail || cg < avail)) avail = cg;
  /* A ulimit -v (RLIMIT_AS) caps this process's own address space: each rank has it whole. */
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    uint64_t mapped = read_number("/proc/self/status", "VmSize:", 1024);
    uint64_t room = (uint64_t)as.rlim_cur > mapped ? (uint64_t)as.rlim_cur - mapped : 1;
    if (!avail || room < avail) avail = room;
  }
  return (size_t)avail;
}

static const gs_host_files host_files = {"/proc/meminfo", "/sys/fs/cgroup", "/proc/self/cgroup"};

void gs_host_cgroup_self(char *dir, size_t n) {
  gs_host_cgroup_of(host_files.self_cgroup, host_files.cgroup_root, dir, n);
}

size_t gs_host_mem_share(int node_ranks, char *const *peers, int npeers) {
  return gs_host_mem_share_from(&host_files, node_ranks, peers, npeers);
}

size_t gs_host_mem_available(void) {
  return gs_host_mem_share(1, NULL, 0);
}

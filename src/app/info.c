/* gpustencil info: where every rank landed, the GPUs' peer access, whether
 * MPI is CUDA-aware; as a table or as one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "halo.h"
#include "log.h"

/* One rank's row, tab-separated for the gather. */
enum { F_HOST, F_RANK, F_LOCAL, F_GPU, F_PCI, F_NAME, F_NUMA, F_CPUSET, F_BOUND, F_COUNT };

static int split_tabs(char *line, char **f, int n) {
  int i = 0;
  f[i++] = line;
  for (char *p = line; *p && i < n; ++p)
    if (*p == '\t') {
      *p = '\0';
      f[i++] = p + 1;
    }
  return i;
}

static void json_str(FILE *o, const char *s) {
  fputc('"', o);
  for (; *s; ++s) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(o, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(o, "\\u%04x", ch);
    else
      fputc(ch, o);
  }
  fputc('"', o);
}

/* Node leader's view: "host\tn\tname0|name1\t0110..." (row-major n x n). */
static char *peer_text(const gs_run *run) {
  const gs_backend *b = run->backend;
  int n = run->place.gpus_visible;
  size_t cap = 512 + (size_t)n * 160 + (size_t)n * n;
  char *t = gs_xmalloc(cap);
  int len = snprintf(t, cap, "%s\t%d\t", run->comm.host, n);
  for (int i = 0; i < n; ++i) {
    gs_device_desc d;
    b->device_describe(i, &d);
    len += snprintf(t + len, cap - (size_t)len, "%s%s %s", i ? "|" : "", d.pci_bus_id, d.name);
  }
  len += snprintf(t + len, cap - (size_t)len, "\t");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      t[len++] = b->can_access_peer(i, j) ? '1' : '0';
  t[len] = '\0';
  return t;
}

/* Whether ranks a and b (rows as gathered, split) could exchange halos by
 * CUDA IPC: one host, and the same GPU or peer access each way in the node's
 * matrix (mpi/halo.c decides the same at run time). */
static int pair_ipc(char *const *fa, char *const *fb, char **nodes, int nranks) {
  if (strcmp(fa[F_HOST], fb[F_HOST]) != 0) return 0;
  if (strcmp(fa[F_PCI], fb[F_PCI]) == 0) return 1;
  size_t hl = strlen(fa[F_HOST]);
  for (int r = 0; r < nranks; ++r) {
    if (!nodes[r][0] || strncmp(nodes[r], fa[F_HOST], hl) != 0 || nodes[r][hl] != '\t') continue;
    char *copy = gs_xstrdup(nodes[r]), *f[4];
    int ia = -1, ib = -1, n = 0;
    if (split_tabs(copy, f, 4) == 4) {
      n = atoi(f[1]);
      char *save = NULL;
      int i = 0;
      for (char *g = strtok_r(f[2], "|", &save); g; g = strtok_r(NULL, "|", &save), ++i) {
        if (strncmp(g, fa[F_PCI], strlen(fa[F_PCI])) == 0) ia = i;
        if (strncmp(g, fb[F_PCI], strlen(fb[F_PCI])) == 0) ib = i;
      }
    }
    int ok = ia >= 0 && ib >= 0 && ia < n && ib < n && f[3][ia * n + ib] == '1' && f[3][ib * n + ia] == '1';
    free(copy);
    return ok;
  }
  return 0;
}

int gs_info_run(gs_run *run, const gs_info_opts *io, int argc, char **argv) {
  (void)argc;
  (void)argv;
  const gs_comm *c = &run->comm;
  const gs_placement *p = &run->place;
  char row[1024];
  snprintf(row, sizeof row, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s", c->host, c->rank, c->local_rank, p->gpu,
           p->gpu >= 0 ? p->dev.pci_bus_id : "-", p->gpu >= 0 ? p->dev.name : "cpu", p->numa[0] ? p->numa : "-",
           p->cpuset, p->bound ? "yes" : "no");
  gs_fault_point("info.gather");
  char **rows = gs_comm_gather_text(row, 0, c->world);
  char *peers = c->local_rank == 0 ? peer_text(run) : NULL;
  char **nodes = gs_comm_gather_text(peers ? peers : "", 0, c->world);
  free(peers);
  int cuda_aware = gs_comm_cuda_aware();
  if (c->rank != 0) return 0;
  /* Transports between every pair, before the rows are split for printing. */
  const char **tp = gs_xcalloc((size_t)c->size * (size_t)c->size, sizeof *tp);
  for (int a = 0; a < c->size; ++a)
    for (int bb = 0; bb < c->size; ++bb) {
      char *fa[F_COUNT], *fb[F_COUNT], *ra = gs_xstrdup(rows[a]), *rb = gs_xstrdup(rows[bb]);
      if (split_tabs(ra, fa, F_COUNT) == F_COUNT && split_tabs(rb, fb, F_COUNT) == F_COUNT)
        tp[a * c->size + bb] =
            a == bb ? "-"
                    : gs_halo_transport_name(gs_halo_auto(run->backend->is_gpu && pair_ipc(fa, fb, nodes, c->size),
                                                          cuda_aware, run->backend->is_gpu));
      else
        tp[a * c->size + bb] = "?";
      free(ra);
      free(rb);
    }

  FILE *o = stdout;
  if (io->json) {
    fprintf(o, "{\"version\":\"%s\",\"backend\":\"%s\",\"mpi_cuda_aware\":%s,\"world_size\":%d,\"ranks\":[", GS_VERSION,
            run->backend->name, cuda_aware ? "true" : "false", c->size);
    for (int r = 0; r < c->size; ++r) {
      char *f[F_COUNT];
      split_tabs(rows[r], f, F_COUNT);
      fprintf(o, "%s{\"host\":", r ? "," : "");
      json_str(o, f[F_HOST]);
      fprintf(o, ",\"rank\":%s,\"local_rank\":%s,\"gpu\":%s,\"pci_bus_id\":", f[F_RANK], f[F_LOCAL], f[F_GPU]);
      if (strcmp(f[F_PCI], "-") == 0)
        fputs("null", o);
      else
        json_str(o, f[F_PCI]);
      fputs(",\"gpu_name\":", o);
      json_str(o, f[F_NAME]);
      fputs(",\"numa\":", o);
      json_str(o, f[F_NUMA]);
      fputs(",\"cpuset\":", o);
      json_str(o, f[F_CPUSET]);
      fprintf(o, ",\"bound\":%s}", strcmp(f[F_BOUND], "yes") == 0 ? "true" : "false");
    }
    fputs("],\"nodes\":[", o);
    int first = 1;
    for (int r = 0; r < c->size; ++r) {
      if (!nodes[r][0]) continue;
      char *f[4];
      if (split_tabs(nodes[r], f, 4) < 4) continue;
      int n = atoi(f[1]);
      fprintf(o, "%s{\"host\":", first ? "" : ",");
      first = 0;
      json_str(o, f[0]);
      fputs(",\"gpus\":[", o);
      char *save = NULL;
      int i = 0;
      for (char *g = strtok_r(f[2], "|", &save); g; g = strtok_r(NULL, "|", &save), ++i) {
        fputs(i ? "," : "", o);
        json_str(o, g);
      }
      fputs("],\"peer_access\":[", o);
      for (int a = 0; a < n; ++a) {
        fprintf(o, "%s[", a ? "," : "");
        for (int bb = 0; bb < n; ++bb)
          fprintf(o, "%s%c", bb ? "," : "", f[3][a * n + bb]);
        fputc(']', o);
      }
      fputs("]}", o);
    }
    fputs("],\"halo_transport\":[", o);
    for (int a = 0; a < c->size; ++a) {
      fprintf(o, "%s[", a ? "," : "");
      for (int bb = 0; bb < c->size; ++bb)
        fprintf(o, "%s\"%s\"", bb ? "," : "", tp[a * c->size + bb]);
      fputc(']', o);
    }
    fputs("]}\n", o);
  } else {
    fprintf(o, "gpustencil %s: %d rank(s), backend %s, MPI CUDA-aware: %s\n", GS_VERSION, c->size, run->backend->name,
            cuda_aware ? "yes" : "no");
    fprintf(o, "%-16s %5s %5s %4s %-13s %-22s %-5s %-16s %s\n", "host", "rank", "local", "gpu", "pci", "name", "numa",
            "cpuset", "bound");
    for (int r = 0; r < c->size; ++r) {
      char *f[F_COUNT];
      split_tabs(rows[r], f, F_COUNT);
      fprintf(o, "%-16s %5s %5s %4s %-13s %-22s %-5s %-16s %s\n", f[F_HOST], f[F_RANK], f[F_LOCAL],
              strcmp(f[F_GPU], "-1") == 0 ? "-" : f[F_GPU], f[F_PCI], f[F_NAME], f[F_NUMA], f[F_CPUSET], f[F_BOUND]);
    }
    for (int r = 0; r < c->size; ++r) {
      if (!nodes[r][0]) continue;
      char *f[4];
      if (split_tabs(nodes[r], f, 4) < 4) continue;
      int n = atoi(f[1]);
      if (n == 0) {
        fprintf(o, "\nhost %s: no GPU visible\n", f[0]);
        continue;
      }
      fprintf(o, "\nhost %s: peer access (row can access column)\n      ", f[0]);
      for (int j = 0; j < n; ++j)
        fprintf(o, " GPU%-2d", j);
      fputc('\n', o);
      for (int a = 0; a < n; ++a) {
        fprintf(o, "GPU%-2d ", a);
        for (int bb = 0; bb < n; ++bb)
          fprintf(o, " %-5s", a == bb ? "X" : (f[3][a * n + bb] == '1' ? "P2P" : "-"));
        fputc('\n', o);
      }
      char *save = NULL;
      int i = 0;
      for (char *g = strtok_r(f[2], "|", &save); g; g = strtok_r(NULL, "|", &save), ++i)
        fprintf(o, "  GPU%d: %s\n", i, g);
    }
  }
  if (!io->json && c->size > 1) {
    fprintf(o, "\nhalo transport between ranks with --halo-transport auto (fdtd neighbours)\n     ");
    for (int bb = 0; bb < c->size && bb < 16; ++bb)
      fprintf(o, " r%-8d", bb);
    fputc('\n', o);
    for (int a = 0; a < c->size && a < 16; ++a) {
      fprintf(o, "r%-4d", a);
      for (int bb = 0; bb < c->size && bb < 16; ++bb)
        fprintf(o, " %-9s", tp[a * c->size + bb]);
      fputc('\n', o);
    }
    if (c->size > 16) fprintf(o, "(first 16 ranks shown; --json has all)\n");
  }
  fflush(o);
  free(tp);
  gs_comm_free_texts(rows, c->size);
  gs_comm_free_texts(nodes, c->size);
  return 0;
}

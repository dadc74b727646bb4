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

/* The rank table prints at most this many ranks a side of the transport
 * matrix; --json has all of them. */
enum { TABLE_MAX_RANKS = 16 };

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

/* ------------------------------------------------------- gathering rows */

/* This rank's row: host, rank, local rank, GPU, PCI bus id, GPU name, NUMA
 * nodes, cpuset, bound (the F_* fields). */
static void rank_row(const gs_run *run, char *row, size_t len) {
  const gs_comm *c = &run->comm;
  const gs_placement *p = &run->place;
  snprintf(row, len, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s", c->host, c->rank, c->local_rank, p->gpu,
           p->gpu >= 0 ? p->dev.pci_bus_id : "-", p->gpu >= 0 ? p->dev.name : "cpu", p->numa[0] ? p->numa : "-",
           p->cpuset, p->bound ? "yes" : "no");
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

/* One node leader's peer text, split in place. */
typedef struct node_peers {
  char *host;
  int ngpus;
  char *gpus;         /* "pci name|pci name|...", cut up by strtok_r when listed */
  const char *access; /* ngpus x ngpus of '0'/'1', row can access column */
} node_peers;

/* Splits text (modified); 0 for a leader's entry, -1 for the empty text of
 * the other ranks or a malformed one. */
static int node_peers_split(char *text, node_peers *np) {
  char *f[4];
  if (!text[0] || split_tabs(text, f, 4) < 4) return -1;
  np->host = f[0];
  np->ngpus = atoi(f[1]);
  np->gpus = f[2];
  np->access = f[3];
  return 0;
}

/* ----------------------------------------------------- transport matrix */

/* What rank 0 holds once everything is gathered. */
typedef struct info_report {
  const gs_run *run;
  int nranks;
  char **rows;            /* per rank, the F_* fields tab-separated */
  char **nodes;           /* per rank, a node leader's peer text or "" */
  const char **transport; /* nranks x nranks halo transport names */
  int cuda_aware;
} info_report;

/* Whether ranks a and b (rows as gathered, split) could exchange halos by
 * CUDA IPC: one host, and the same GPU or peer access each way in the node's
 * matrix (mpi/halo.c decides the same at run time). */
static int pair_ipc(char *const *fa, char *const *fb, char **nodes, int nranks) {
  if (strcmp(fa[F_HOST], fb[F_HOST]) != 0) return 0;
  if (strcmp(fa[F_PCI], fb[F_PCI]) == 0) return 1;
  size_t hl = strlen(fa[F_HOST]);
  for (int r = 0; r < nranks; ++r) {
    if (!nodes[r][0] || strncmp(nodes[r], fa[F_HOST], hl) != 0 || nodes[r][hl] != '\t') continue;
    char *copy = gs_xstrdup(nodes[r]);
    node_peers np = {.ngpus = 0};
    int ia = -1, ib = -1;
    if (node_peers_split(copy, &np) == 0) {
      char *save = NULL;
      int i = 0;
      for (char *g = strtok_r(np.gpus, "|", &save); g; g = strtok_r(NULL, "|", &save), ++i) {
        if (strncmp(g, fa[F_PCI], strlen(fa[F_PCI])) == 0) ia = i;
        if (strncmp(g, fb[F_PCI], strlen(fb[F_PCI])) == 0) ib = i;
      }
    }
    int n = np.ngpus;
    int ok = ia >= 0 && ib >= 0 && ia < n && ib < n && np.access[ia * n + ib] == '1' && np.access[ib * n + ia] == '1';
    free(copy);
    return ok;
  }
  return 0;
}

/* The transport --halo-transport auto would pick between ranks a and b;
 * "-" for a rank and itself, "?" when a row is malformed. */
static const char *pair_transport(const info_report *rep, int a, int b) {
  char *fa[F_COUNT], *fb[F_COUNT];
  char *ra = gs_xstrdup(rep->rows[a]), *rb = gs_xstrdup(rep->rows[b]);
  const char *name = "?";
  int split = split_tabs(ra, fa, F_COUNT) == F_COUNT && split_tabs(rb, fb, F_COUNT) == F_COUNT;
  if (split && a == b) {
    name = "-";
  } else if (split) {
    int is_gpu = rep->run->backend->is_gpu;
    int ipc = is_gpu && pair_ipc(fa, fb, rep->nodes, rep->nranks);
    name = gs_halo_transport_name(gs_halo_auto(ipc, rep->cuda_aware, is_gpu));
  }
  free(ra);
  free(rb);
  return name;
}

/* Every pair's transport, computed on copies so that the printers may split
 * the rows in place afterwards. */
static const char **transport_matrix(const info_report *rep) {
  int n = rep->nranks;
  const char **tp = gs_xcalloc((size_t)n * (size_t)n, sizeof *tp);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      tp[a * n + b] = pair_transport(rep, a, b);
  return tp;
}

/* ------------------------------------------------------------- JSON */

static void json_ranks(FILE *o, const info_report *rep) {
  for (int r = 0; r < rep->nranks; ++r) {
    char *f[F_COUNT];
    split_tabs(rep->rows[r], f, F_COUNT);
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
}

static void json_node(FILE *o, node_peers *np) {
  int n = np->ngpus;
  fputs("{\"host\":", o);
  json_str(o, np->host);
  fputs(",\"gpus\":[", o);
  char *save = NULL;
  int i = 0;
  for (char *g = strtok_r(np->gpus, "|", &save); g; g = strtok_r(NULL, "|", &save), ++i) {
    fputs(i ? "," : "", o);
    json_str(o, g);
  }
  fputs("],\"peer_access\":[", o);
  for (int a = 0; a < n; ++a) {
    fprintf(o, "%s[", a ? "," : "");
    for (int b = 0; b < n; ++b)
      fprintf(o, "%s%c", b ? "," : "", np->access[a * n + b]);
    fputc(']', o);
  }
  fputs("]}", o);
}

static void json_transport(FILE *o, const info_report *rep) {
  int n = rep->nranks;
  for (int a = 0; a < n; ++a) {
    fprintf(o, "%s[", a ? "," : "");
    for (int b = 0; b < n; ++b)
      fprintf(o, "%s\"%s\"", b ? "," : "", rep->transport[a * n + b]);
    fputc(']', o);
  }
}

/* One JSON object (docs/usage.md, "info"); splits the rows and nodes. */
static void print_json(FILE *o, const info_report *rep) {
  fprintf(o, "{\"version\":\"%s\",\"backend\":\"%s\",\"mpi_cuda_aware\":%s,\"world_size\":%d,\"ranks\":[", GS_VERSION,
          rep->run->backend->name, rep->cuda_aware ? "true" : "false", rep->nranks);
  json_ranks(o, rep);
  fputs("],\"nodes\":[", o);
  int first = 1;
  for (int r = 0; r < rep->nranks; ++r) {
    node_peers np;
    if (node_peers_split(rep->nodes[r], &np) != 0) continue;
    fputs(first ? "" : ",", o);
    first = 0;
    json_node(o, &np);
  }
  fputs("],\"halo_transport\":[", o);
  json_transport(o, rep);
  fputs("]}\n", o);
}

/* ------------------------------------------------------------ table */

#define RANK_ROW_FORMAT "%-16s %5s %5s %4s %-13s %-22s %-5s %-16s %s\n"

static void table_ranks(FILE *o, const info_report *rep) {
  fprintf(o, RANK_ROW_FORMAT, "host", "rank", "local", "gpu", "pci", "name", "numa", "cpuset", "bound");
  for (int r = 0; r < rep->nranks; ++r) {
    char *f[F_COUNT];
    split_tabs(rep->rows[r], f, F_COUNT);
    fprintf(o, RANK_ROW_FORMAT, f[F_HOST], f[F_RANK], f[F_LOCAL], strcmp(f[F_GPU], "-1") == 0 ? "-" : f[F_GPU],
            f[F_PCI], f[F_NAME], f[F_NUMA], f[F_CPUSET], f[F_BOUND]);
  }
}

/* A square table of n labelled rows and columns ("GPU0", "r0", ...): the
 * labels take label_width characters, every cell cell_width. */
typedef const char *(*matrix_cell)(const void *ctx, int row, int col);
static void print_matrix(FILE *o, int n, const char *prefix, int label_width, int cell_width, matrix_cell cell,
                         const void *ctx) {
  int plen = (int)strlen(prefix);
  fprintf(o, "%*s", label_width, "");
  for (int col = 0; col < n; ++col)
    fprintf(o, " %s%-*d", prefix, cell_width - 1 - plen, col);
  fputc('\n', o);
  for (int row = 0; row < n; ++row) {
    fprintf(o, "%s%-*d", prefix, label_width - plen, row);
    for (int col = 0; col < n; ++col)
      fprintf(o, " %-*s", cell_width - 1, cell(ctx, row, col));
    fputc('\n', o);
  }
}

static const char *peer_cell(const void *ctx, int a, int b) {
  const node_peers *np = ctx;
  return a == b ? "X" : (np->access[a * np->ngpus + b] == '1' ? "P2P" : "-");
}

static void table_node(FILE *o, node_peers *np) {
  int n = np->ngpus;
  if (n == 0) {
    fprintf(o, "\nhost %s: no GPU visible\n", np->host);
    return;
  }
  fprintf(o, "\nhost %s: peer access (row can access column)\n", np->host);
  print_matrix(o, n, "GPU", 6, 6, peer_cell, np);
  char *save = NULL;
  int i = 0;
  for (char *g = strtok_r(np->gpus, "|", &save); g; g = strtok_r(NULL, "|", &save), ++i)
    fprintf(o, "  GPU%d: %s\n", i, g);
}

/* Only with several ranks: one rank has no neighbour. */
static const char *transport_cell(const void *ctx, int a, int b) {
  const info_report *rep = ctx;
  return rep->transport[a * rep->nranks + b];
}

static void table_transport(FILE *o, const info_report *rep) {
  int n = rep->nranks, shown = n < TABLE_MAX_RANKS ? n : TABLE_MAX_RANKS;
  fprintf(o, "\nhalo transport between ranks with --halo-transport auto (fdtd neighbours)\n");
  print_matrix(o, shown, "r", 5, 10, transport_cell, rep);
  if (n > TABLE_MAX_RANKS) fprintf(o, "(first %d ranks shown; --json has all)\n", TABLE_MAX_RANKS);
}

/* The human-readable report; splits the rows and nodes. */
static void print_table(FILE *o, const info_report *rep) {
  fprintf(o, "gpustencil %s: %d rank(s), backend %s, MPI CUDA-aware: %s\n", GS_VERSION, rep->nranks,
          rep->run->backend->name, rep->cuda_aware ? "yes" : "no");
  table_ranks(o, rep);
  for (int r = 0; r < rep->nranks; ++r) {
    node_peers np;
    if (node_peers_split(rep->nodes[r], &np) == 0) table_node(o, &np);
  }
  if (rep->nranks > 1) table_transport(o, rep);
}

int gs_info_run(gs_run *run, const void *opts, int argc, char **argv) {
  const gs_info_opts *io = opts;
  (void)argc;
  (void)argv;
  const gs_comm *c = &run->comm;
  char row[1024];
  rank_row(run, row, sizeof row);
  gs_fault_point("info.gather");
  char **rows = gs_comm_gather_text(row, 0, c->world);
  char *peers = c->local_rank == 0 ? peer_text(run) : NULL;
  char **nodes = gs_comm_gather_text(peers ? peers : "", 0, c->world);
  free(peers);
  int cuda_aware = gs_comm_cuda_aware();
  if (c->rank != 0) return 0;

  info_report rep = {.run = run, .nranks = c->size, .rows = rows, .nodes = nodes, .cuda_aware = cuda_aware};
  rep.transport = transport_matrix(&rep);
  if (io->json)
    print_json(stdout, &rep);
  else
    print_table(stdout, &rep);
  fflush(stdout);
  free(rep.transport);
  gs_comm_free_texts(rows, c->size);
  gs_comm_free_texts(nodes, c->size);
  return 0;
}

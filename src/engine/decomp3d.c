/* 3D domain decomposition (decomp3d.h). */
#include "decomp3d.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int gs_decomp3_parse(const char *spec, int size, int dims[3], char *why, size_t whylen) {
  const char *p = spec;
  long long v[3], product = 1;
  for (int a = 0; a < 3; ++a) {
    char *end = NULL;
    if (*p < '1' || *p > '9') {
      snprintf(why, whylen, "'%s' is not PXxPYxPZ (three counts >= 1, e.g. 2x2x1)", spec);
      return -1;
    }
    errno = 0;
    v[a] = strtoll(p, &end, 10);
    if (errno || v[a] > 1000000 || (a < 2 && *end != 'x') || (a == 2 && *end)) {
      snprintf(why, whylen, "'%s' is not PXxPYxPZ (three counts >= 1, e.g. 2x2x1)", spec);
      return -1;
    }
    product *= v[a];
    p = end + 1;
  }
  if (product != size) {
    snprintf(why, whylen, "'%s' makes %lld parts for %d rank(s)", spec, product, size);
    return -1;
  }
  for (int a = 0; a < 3; ++a)
    dims[a] = (int)v[a];
  return 0;
}

static int64_t ceil_div(int64_t n, int64_t d) {
  return (n + d - 1) / d;
}

double gs_decomp3_halo_bytes(const int64_t nodes[3], const int dims[3], double bytes_per_node) {
  double bytes = 0;
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 2) continue;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    double face = (double)ceil_div(nodes[b], dims[b]) * (double)ceil_div(nodes[c], dims[c]);
    bytes += (dims[a] > 2 ? 2.0 : 1.0) * face * bytes_per_node;
  }
  return bytes;
}

/* Lower is better: halo bytes, then (on a tie) fewer cuts across x, then y. */
static int cheaper(const int64_t nodes[3], const int d[3], const int best[3]) {
  double c = gs_decomp3_halo_bytes(nodes, d, 1), cb = gs_decomp3_halo_bytes(nodes, best, 1);
  if (c != cb) return c < cb;
  if (d[0] != best[0]) return d[0] < best[0];
  return d[1] < best[1];
}

int gs_decomp3_choose(int size, const int64_t nodes[3], int64_t min_part, int dims[3]) {
  int found = 0, any = 0, best[3] = {1, 1, size}, fallback[3] = {1, 1, size};
  for (int px = 1; px <= size; ++px) {
    if (size % px) continue;
    for (int py = 1; py <= size / px; ++py) {
      if ((size / px) % py) continue;
      int d[3] = {px, py, size / px / py}, thick = 1;
      for (int a = 0; a < 3; ++a)
        thick &= d[a] == 1 || nodes[a] / d[a] >= min_part;
      if (!any || cheaper(nodes, d, fallback)) fallback[0] = d[0], fallback[1] = d[1], fallback[2] = d[2];
      any = 1;
      if (thick && (!found || cheaper(nodes, d, best))) {
        best[0] = d[0], best[1] = d[1], best[2] = d[2];
        found = 1;
      }
    }
  }
  const int *pick = found ? best : fallback;
  for (int a = 0; a < 3; ++a)
    dims[a] = pick[a];
  return found ? 0 : -1;
}

/* floor(k n / parts) without forming k n (as the 2D split). */
static int64_t share_start(int64_t k, int64_t n, int64_t parts) {
  return k * (n / parts) + k * (n % parts) / parts;
}

gs_part3 gs_decomp3_part(const int64_t nodes[3], const int dims[3], const int coords[3]) {
  gs_part3 p;
  for (int a = 0; a < 3; ++a) {
    p.lo[a] = share_start(coords[a], nodes[a], dims[a]);
    p.hi[a] = share_start(coords[a] + 1, nodes[a], dims[a]);
  }
  return p;
}

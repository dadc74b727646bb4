/* VTK XML ImageData files (.vti) of gprMax's snapshots and geometry views, written as text
 * (gprmax_out_internal.h): the XML head with gprMax 3's metadata comment of a geometry view,
 * numbers and JSON strings as they read back, and a whole file of raw appended arrays. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "gprmax_out_internal.h"

static const char *byte_order(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first ? "LittleEndian" : "BigEndian";
}

/* The shortest of %.15g..%.17g that reads back as v (null when not finite). */
static void put_num(FILE *f, double v) {
  char s[40];
  if (!isfinite(v)) {
    fputs("null", f);
    return;
  }
  for (int p = 15; p <= 17; p++) {
    snprintf(s, sizeof s, "%.*g", p, v);
    if (strtod(s, NULL) == v) break;
  }
  fputs(s, f);
}

static void put_nums(FILE *f, const double *v, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) fputs(sep, f);
    put_num(f, v[i]);
  }
}

/* s as a JSON string inside an XML comment: quotes, backslashes and control
 * characters escaped, and a '-' after a '-' too (a comment may not hold "--"). */
static void put_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || (*p == '-' && p != (const unsigned char *)s && p[-1] == '-'))
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void put_json_list(FILE *f, const char *key, int n, const char *const *ids, const double *pos) {
  fprintf(f, ", \"%s\": [", key);
  for (int i = 0; i < n; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    put_json_str(f, ids[i]);
    fputs(", \"position\": [", f);
    put_nums(f, pos + 3 * i, 3, ", ");
    fputs("]}", f);
  }
  fputc(']', f);
}

/* gprMax 3's metadata comment of a geometry view. */
static void put_geometry_comment(FILE *f, const gs_gpr_geometry *g) {
  fputs("<!-- {\"gprMax_version\": \"" GS_GPR_VERSION "\", \"dx_dy_dz\": [", f);
  put_nums(f, g->dxdydz, 3, ", ");
  fprintf(f, "], \"nx_ny_nz\": [%" PRId64 ", %" PRId64 ", %" PRId64 "], \"Materials\": [", g->nxnynz[0], g->nxnynz[1],
          g->nxnynz[2]);
  for (int m = 0; m < g->nmaterials; m++) {
    if (m) fputs(", ", f);
    put_json_str(f, g->material_names[m]);
  }
  fputs("], \"PMLthickness\": [", f);
  for (int a = 0; a < 6; a++)
    fprintf(f, "%s%" PRId64, a ? ", " : "", g->pml[a]);
  fputc(']', f);
  put_json_list(f, "Sources", g->nsrc, g->src_ids, g->src_pos);
  put_json_list(f, "Receivers", g->nrx, g->rx_ids, g->rx_pos);
  fputs("} -->\n", f);
}

/* The XML before the CellData arrays. */
static void put_vti_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time) {
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n",
          byte_order());
  if (g) put_geometry_comment(f, g);
  char extent[80];
  snprintf(extent, sizeof extent, "0 %" PRId64 " 0 %" PRId64 " 0 %" PRId64, b->size[0], b->size[1], b->size[2]);
  fprintf(f, "<ImageData WholeExtent=\"%s\" Origin=\"", extent);
  put_nums(f, b->origin, 3, " ");
  fputs("\" Spacing=\"", f);
  put_nums(f, b->spacing, 3, " ");
  fputs("\">\n", f);
  if (time) {
    fputs("<FieldData>\n<DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">", f);
    put_num(f, *time);
    fputs("</DataArray>\n</FieldData>\n", f);
  }
  fprintf(f, "<Piece Extent=\"%s\">\n<CellData%s>\n", extent, g ? " Scalars=\"Material\"" : "");
}

/* The XML of a .vti file of n arrays (names, VTK type, bytes per value; a
 * NULL data[a] is left out) of cells values each, up to the appended data's '_'. */
void gs_gpr_vti_head(FILE *f, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                     const char *const *names, const char *type, size_t vsize, const void *const *data, int64_t cells) {
  put_vti_head(f, b, g, time);
  uint64_t bytes = (uint64_t)cells * vsize, offset = 0;
  for (int a = 0; a < n; a++) {
    if (!data[a]) continue;
    fprintf(
        f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"1\" format=\"appended\" offset=\"%" PRIu64 "\"/>\n",
        type, names[a], offset);
    offset += sizeof bytes + bytes;
  }
  fputs("</CellData>\n</Piece>\n</ImageData>\n<AppendedData encoding=\"raw\">\n_", f);
}

/* A .vti file of n arrays (names, VTK type, bytes per value, data) of cells
 * values each, through a temporary file. */
gs_status gs_gpr_write_vti(const char *path, const gs_gpr_box *b, const gs_gpr_geometry *g, const double *time, int n,
                           const char *const *names, const char *type, size_t vsize, const void *const *data,
                           int64_t cells, char *err, size_t errlen) {
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  gs_gpr_vti_head(t.fp, b, g, time, n, names, type, vsize, data, cells);
  uint64_t bytes = (uint64_t)cells * vsize;
  int failed = 0;
  for (int a = 0; a < n && !failed; a++)
    if (data[a])
      failed =
          fwrite(&bytes, sizeof bytes, 1, t.fp) != 1 || fwrite(data[a], vsize, (size_t)cells, t.fp) != (size_t)cells;
  failed |= fputs("\n</AppendedData>\n</VTKFile>\n", t.fp) < 0;
  return gs_tmpfile_commit(&t, failed, 0, err, errlen);
}

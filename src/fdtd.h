/* One rank's FDTD state and time stepping (used by the fdtd command, the
 * benchmark and the validation tests). */
#ifndef GS_FDTD_H
#define GS_FDTD_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "backend.h"
#include "scene.h"

/* The nodes one rank owns: global Ez nodes [i0, i1) x [j0, j1). */
typedef struct gs_fdtd_part {
  int64_t i0, i1, j0, j1;
} gs_fdtd_part;

typedef struct gs_fdtd_sim {
  const gs_backend *b;
  const gs_scene *sc;
  int run;
  int64_t nx, ny, pitch, rows; /* nx, ny: the global grid; pitch, rows: this rank's arrays */
  int64_t oi0, oi1, oj0, oj1;  /* owned global nodes [oi0, oi1) x [oj0, oj1) */
  int g;
  size_t nelem;
  gs_fdtd_view v;     /* the current fields (device pointers) */
  float *field[2][3]; /* two buffers of Ez, Hx, Hy: a step reads one, writes the other */
  int cur;            /* index of the current buffer */
  uint8_t *mat_host;
  gs_fdtd_coef coef_host[GS_FDTD_MAX_MATERIALS];
  gs_fdtd_coef *coef;
  float chx, chy;
  gs_fdtd_slab pml[4];
  float *pml_prof[4];
  float *psi[4][2][2]; /* [slab][buffer][E, H] */
  size_t pml_cells[4];
  int npml;
  gs_fdtd_region region[5]; /* region[0] touches no slab; 1..4 the strips around it */
  int nregion;
  int nsrc, nrx;
  int64_t *src_off, *rx_off;
  int *rx_global; /* scene index of each local receiver */
  float *src_val, *rx_buf, *rx_hist;
  int64_t step, rx_flushed;
  gs_stream s;
} gs_fdtd_sim;

/* Allocates and initialises the fields (zero), materials, CPML and the
 * sources' and receivers' data for run (0-based; positions moved by
 * #src_steps / #rx_steps). Fatal on backend failure. */
void gs_fdtd_sim_init(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run);
/* The same for a part of the grid (part NULL: all of it). Returns GS_OK, or
 * GS_ERR_USAGE with the reason in err when the part cannot work (a rank
 * boundary inside the CPML, fewer than 2 nodes a side). */
gs_status gs_fdtd_sim_init_part(gs_fdtd_sim *m, const gs_scene *sc, const gs_backend *b, int run,
                                const gs_fdtd_part *part, char *err, size_t errlen);
void gs_fdtd_sim_free(gs_fdtd_sim *m);
/* Advances one step: sample receivers, H, CPML H, E, CPML E, sources. */
void gs_fdtd_sim_step(gs_fdtd_sim *m);
/* Waits for the device and copies buffered receiver samples to rx_hist. */
void gs_fdtd_sim_sync(gs_fdtd_sim *m);
/* Copies rows [j0, j1) (global, owned) of field f (0 Ez, 1 Hx, 2 Hy) to host
 * (pitch floats per row, element (i, j) at [(j - j0) * pitch + i - oi0 + g]). */
void gs_fdtd_sim_read_rows(gs_fdtd_sim *m, int f, int64_t j0, int64_t j1, float *host);
/* This rank's terms of the split-independent checksums of Ez, Hx, Hy
 * (docs/fdtd.md): add them over all ranks (wrapping) for the checksum. */
void gs_fdtd_sim_checksum(gs_fdtd_sim *m, uint64_t sum[3]);
gs_status gs_fdtd_checkpoint_write(gs_fdtd_sim *m, const char *path, char *err, size_t errlen);
gs_status gs_fdtd_checkpoint_read(gs_fdtd_sim *m, const char *path, char *err, size_t errlen);

/* Ranks along x and y: spec "PXxPY" (-1 unless PX * PY == size), or, when
 * spec is NULL, MPI_Dims_create with more ranks along the longer side. */
int gs_fdtd_decomp(const char *spec, int size, int64_t nx, int64_t ny, int dims[2]);

/* The nodes rank (coords) owns in a dims[0] x dims[1] split of the grid. */
gs_fdtd_part gs_fdtd_part_of(const gs_scene *sc, const int dims[2], const int coords[2]);

typedef struct gs_fdtd_timing {
  double seconds;      /* the timed steps, slowest rank */
  double halo_bytes;   /* bytes one rank sent, the most of any */
  double halo_seconds; /* seconds one rank spent exchanging, the most of any */
} gs_fdtd_timing;

/* Collective over comm: runs warmup + steps steps of sc split dims[0] x
 * dims[1] over comm's ranks (mpi-host halo exchange after each step) and
 * times the last steps. GS_OK, or an error on every rank (reason in err on
 * the ranks that found it). */
gs_status gs_fdtd_timed_run(const gs_scene *sc, const gs_backend *b, MPI_Comm comm, const int dims[2], int64_t warmup,
                            int64_t steps, gs_fdtd_timing *t, char *err, size_t errlen);

#endif

/* One rank's 3D FDTD model (issue #18, first part): gprMax 4's geometry
 * (src/fdtd/geometry3d.c), update and HORIPML (kernels/fdtd3d_kernels.h),
 * Hertzian dipoles and receivers, on the CPU or one GPU. */
#ifndef GS_FDTD3D_H
#define GS_FDTD3D_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "scene.h"

#define GS_RX3_CHUNK 256 /* steps of receiver samples held on the device */

typedef struct gs_fdtd3_sim {
  const gs_backend *b;
  const gs_scene *sc;
  int run;
  int64_t step;
  gs_stream s;
  int64_t pitch, plane, count; /* kernels/fdtd3d_kernels.h's layout */
  float *f[2][6];              /* two sets of Ex Ey Ez Hx Hy Hz (device) */
  int cur;
  uint8_t *mat[3], *hmat[3]; /* device: E and (magnetic scenes only) H materials per node */
  gs_fdtd3_coef *coef;       /* device tables */
  gs_fdtd3_hcoef *hcoef;
  gs_fdtd3_coef coef_host[GS_FDTD3_MAX_MATERIALS];
  gs_fdtd3_hcoef hcoef_host[GS_FDTD3_MAX_MATERIALS];
  uint8_t *mat_host[3]; /* host copies while the sources are set up (srce), then NULL */
  int nslab;
  gs_fdtd3_slab slab[6];
  float *prof[6];      /* device: be ae ke bh ah kh of each slab */
  float *psi[6][2][4]; /* device: [slab][set][E slot 0, E slot 1, H slot 0, H slot 1] */
  int nsrc[3];         /* Hertzian dipoles driving Ex, Ey, Ez */
  int64_t *src_off[3]; /* device */
  float *src_val[3];   /* device: [step][source] */
  int nrx;
  int64_t *rx_off; /* device */
  float *rx_ring;  /* device: GS_RX3_CHUNK steps of [receiver][6] */
  float *rx_hist;  /* host: [step][receiver][6] */
  int64_t flushed;
  struct gs_fdtd3_xsrc *xsrc; /* magnetic dipoles, voltage sources, lines (fdtd3d_sources.c), or NULL */
} gs_fdtd3_sim;

/* Bytes the model needs (device: fields, materials, CPML, sources, ring;
 * host: the geometry build, receiver histories), before anything is made. */
void gs_fdtd3_memory_need(const gs_scene *sc, double *device, double *host);
/* Builds run (0-based) of 3D scene sc: GS_OK, or GS_ERR_USAGE with the
 * reason in err (e.g. more than 256 materials after smoothing). */
gs_status gs_fdtd3_sim_init(gs_fdtd3_sim *m, const gs_scene *sc, const gs_backend *b, int run, char *err,
                            size_t errlen);
/* Queues count steps: receivers sampled, H and E updated with the CPML,
 * the dipoles' currents added. */
void gs_fdtd3_sim_advance(gs_fdtd3_sim *m, int64_t count);
/* Waits for the queued work and copies receiver samples to rx_hist. */
void gs_fdtd3_sim_sync(gs_fdtd3_sim *m);
/* The split-independent checksums of E and H (the 2D engine's scheme over
 * every node of the six fields): sum[0] E, sum[1] H. */
void gs_fdtd3_sim_checksum(gs_fdtd3_sim *m, uint64_t sum[2]);
void gs_fdtd3_sim_free(gs_fdtd3_sim *m);

#endif

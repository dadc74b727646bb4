/* FDTD checkpoints of one run on one or several ranks (docs/fdtd.md). One
 * rank's file: gs_fdtd_checkpoint_write in fdtd.h; every restart reads through
 * gs_ckpt_load, whatever wrote the files. */
#ifndef GS_CHECKPOINT_H
#define GS_CHECKPOINT_H

#include "comm.h"
#include "fdtd.h"
#include "fdtd3d.h"

/* Bytes of one rank's file's header (little-endian, field by field,
 * ending with its own CRC-32; docs/fdtd.md, "Checkpoints"). */
#define GS_CKPT_HEADER_BYTES 280

/* A checkpoint a run restarted from, to remove once the run has written its
 * own (kind 0: none; 1: DIR/checkpoint.gsck; 2: a set of nranks files). */
typedef struct gs_ckpt_old {
  int kind, nranks;
  int64_t step;
} gs_ckpt_old;

/* Collective: writes this step's checkpoint into dir (DIR/checkpoint.gsck on
 * one rank; a file per rank and DIR/checkpoint.manifest on several), then
 * removes this run's previous set (step *prev), and sets *prev. Fatal on
 * failure. */
void gs_ckpt_save(gs_fdtd_sim *m, const gs_comm *c, const int dims[2], const char *dir, int64_t *prev);
/* Collective: removes the checkpoint of a completed run, every checkpoint
 * file in dir (its own set at step, an older set a kill left, the one a
 * restart read there, temporaries). */
void gs_ckpt_remove(const gs_comm *c, const char *dir, int64_t step);
/* Collective, before a run writes into dir: removes the temporaries killed
 * runs left there (*.gsck.tmp-*, checkpoint.manifest.tmp-*) and, unless
 * restart names the same folder (the checkpoint about to be read), every
 * checkpoint there (stale sets). restart: --restart's folder or NULL. */
void gs_ckpt_clean(const gs_comm *c, const char *dir, const char *restart);
/* Collective: removes an old checkpoint of another layout (no-op for kind 0). */
void gs_ckpt_drop(const gs_comm *c, const char *dir, gs_ckpt_old *old);
/* Collective: loads the checkpoint in dir, written by any number of ranks,
 * decomposition and halo depth. Every header field and the manifest are
 * checked against the scene and the set's decomposition before anything is
 * allocated or read from them. GS_OK on every rank or an error on every
 * rank (one line, naming the file and the reason, in err on the lowest rank
 * that found it). */
gs_status gs_ckpt_load(gs_fdtd_sim *m, const gs_comm *c, const char *dir, gs_ckpt_old *old, char *err, size_t errlen);

/* A 3D model's checkpoint (one rank; docs/fdtd.md "Checkpoints of 3D
 * models"): every piece of gs_fdtd3_sim_state as one section of path,
 * written as a temporary and renamed into place. */
gs_status gs_ckpt3_write(gs_fdtd3_sim *m, const char *path, char *err, size_t errlen);
/* gs_ckpt3_write to DIR/checkpoint.gsck; fatal on failure (as 2D). */
void gs_ckpt3_save(gs_fdtd3_sim *m, const char *dir);
/* Restores m (built, at step 0) from DIR/checkpoint.gsck: header, scene,
 * grid, run and every section's name and length checked before anything is
 * read into the model, then the data's CRC. GS_OK, or one line in err. */
gs_status gs_ckpt3_load(gs_fdtd3_sim *m, const char *dir, char *err, size_t errlen);

#endif

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
 * removes this run's previous set (step *prev), and sets *prev. GS_OK, or on
 * every rank GS_ERR_IO (a full disk, a folder in the file's place) with the
 * lowest failing rank's one line (naming the file, the system's reason) in
 * every rank's err; the previous checkpoint then stays whole. */
gs_status gs_ckpt_save(gs_fdtd_sim *m, const gs_comm *c, const int dims[2], const char *dir, int64_t *prev, char *err,
                       size_t errlen);
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

/* DIR/checkpoint.s<step>.r<rank>.gsck: one rank's file of a set (2D and 3D). */
void gs_ckpt_rank_path(char *buf, size_t n, const char *dir, int64_t step, int rank);

/* A 3D model's checkpoint (docs/fdtd.md "Checkpoints of 3D models"): every
 * piece of gs_fdtd3_sim_state as one section of path, written as a
 * temporary and renamed into place. The header names the writer's place:
 * its rank in a split PXxPYxPZ (0 of 1x1x1 on one rank) and its owned
 * nodes; a reader gives the place it expects and, for a set, the step its
 * manifest names (-1: any). */
typedef struct gs_ckpt3_place {
  int rank, dims[3];
  int64_t step;
} gs_ckpt3_place;
/* One rank's file (gs_ckpt3_write_part at rank 0 of 1x1x1). */
gs_status gs_ckpt3_write(gs_fdtd3_sim *m, const char *path, char *err, size_t errlen);
gs_status gs_ckpt3_write_part(gs_fdtd3_sim *m, const gs_ckpt3_place *at, const char *path, char *err, size_t errlen);
/* Restores m (built, at step 0) from the file at path, written at place at
 * (its owned nodes m's): header, scene, grid, run, place and every
 * section's name and length checked before anything is read into the
 * model, then the data's CRC. GS_OK, or one line naming path in err. */
gs_status gs_ckpt3_read(gs_fdtd3_sim *m, const gs_ckpt3_place *at, const char *path, char *err, size_t errlen);
/* gs_ckpt3_write to DIR/checkpoint.gsck; GS_OK or GS_ERR_IO with one line in err (the
 * previous checkpoint then stays). */
gs_status gs_ckpt3_save(gs_fdtd3_sim *m, const char *dir, char *err, size_t errlen);
/* Restores m (built, at step 0) from DIR/checkpoint.gsck: header, scene,
 * grid, run and every section's name and length checked before anything is
 * read into the model, then the data's CRC. GS_OK, or one line in err. */
gs_status gs_ckpt3_load(gs_fdtd3_sim *m, const char *dir, char *err, size_t errlen);

/* A 3D model over ranks (src/engine/checkpoint3d.c). The first
 * line of a 3D set's manifest (a 2D run refuses it by that). */
#define GS_CKPT3_MANIFEST_MAGIC "gpustencil checkpoint manifest 3d"
struct gs_fdtd3_ranks;
/* Collective: this step's checkpoint into dir: one rank (rk NULL)
 * DIR/checkpoint.gsck; several a file per rank, then DIR/checkpoint.manifest
 * (ranks, split, step, scene), then every other checkpoint in dir removed.
 * GS_OK, or on every rank GS_ERR_IO with the lowest failing rank's line in
 * every rank's err (as 2D); the previous checkpoint then stays whole. */
gs_status gs_ckpt3_save_set(gs_fdtd3_sim *m, const struct gs_fdtd3_ranks *rk, const char *dir, char *err,
                            size_t errlen);
/* Collective: restores m (built, at step 0) from the checkpoint in dir
 * written by the same rank count and split (rk NULL: one rank). GS_OK on
 * every rank, or an error on every rank with one line (naming the file and
 * the reason, the lowest failing rank's) in err everywhere. */
gs_status gs_ckpt3_restore(gs_fdtd3_sim *m, const struct gs_fdtd3_ranks *rk, const char *dir, char *err, size_t errlen);
/* The manifest DIR/checkpoint.manifest of a 3D set, refused unless it is
 * exactly what gs_ckpt3_save_set writes for scene sc, by ranks ranks split
 * dims, with every rank's file present: GS_OK with its step in *step, or one
 * line in err. No MPI; nothing allocated from what it claims. */
gs_status gs_ckpt3_probe_manifest(const gs_scene *sc, const char *dir, int ranks, const int dims[3], int64_t *step,
                                  char *err, size_t errlen);

#endif

/* Checkpoints of a 3D model split over ranks (docs/fdtd.md
 * "Checkpoints of 3D models"): the 2D sets' scheme for 3D parts. Each rank
 * writes its part's state (gs_fdtd3_sim_state of the part: its fields with
 * their ghost layers, its pieces of the CPML slabs, its receivers, poles and
 * lines) as DIR/checkpoint.s<step>.r<rank>.gsck (checkpoint3d_file.c's format,
 * the header naming the rank, the split and the owned nodes); then rank 0
 * commits the set with DIR/checkpoint.manifest (written last, as a temporary
 * renamed into place) and only then removes every older checkpoint there. A
 * restart takes a set of the same rank count and split only (the parts'
 * arrays are restored as they were, ghost layers included, so the bits go on
 * exactly); anything else is refused in one line on every rank. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "error.h"
#include "fdtd3d_dist.h"
#include "fsutil.h"
#include "log.h"

#define GS_CK3_MAX_RANKS (1 << 20) /* as the 2D manifest: more is refused before anything is done */

static void manifest_path(char *buf, size_t n, const char *dir) {
  snprintf(buf, n, "%.900s/checkpoint.manifest", dir);
}

/* Rank 0: DIR/checkpoint.manifest of the set at m's step; GS_OK or GS_ERR_IO with err. */
static gs_status write_manifest(const gs_fdtd3_sim *m, const gs_fdtd3_ranks *rk, const char *dir, char *err,
                                size_t errlen) {
  char path[1400];
  manifest_path(path, sizeof path, dir);
  gs_tmpfile t;
  gs_status st = gs_tmpfile_open(&t, path, err, errlen);
  if (st != GS_OK) return st;
  fprintf(t.fp, GS_CKPT3_MANIFEST_MAGIC " 1\nranks %d\ndecomp %dx%dx%d\nstep %lld\nscene %016" PRIx64 "\n", rk->size,
          rk->dims[0], rk->dims[1], rk->dims[2], (long long)m->step, m->sc->hash);
  return gs_tmpfile_commit(&t, 0, 1, err, errlen);
}

/* Rank 0, after the set at step is committed: removes every other
 * checkpoint in dir (the previous set, one a restart in place read, a
 * one-rank checkpoint.gsck). */
static void remove_others(const char *dir, int64_t step) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[1400];
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    long long s;
    int r, end = 0;
    const int set = sscanf(e->d_name, "checkpoint.s%lld.r%d.gsck%n", &s, &r, &end) == 2 && end > 0 &&
                    e->d_name[end] == '\0' && s != step;
    if (!set && strcmp(e->d_name, "checkpoint.gsck") != 0) continue;
    snprintf(path, sizeof path, "%.900s/%.255s", dir, e->d_name);
    if (unlink(path) == 0) gs_log_debug("checkpoint: removed %s", path);
  }
  closedir(d);
}

gs_status gs_ckpt3_save_set(gs_fdtd3_sim *m, const gs_fdtd3_ranks *rk, const char *dir, char *err, size_t errlen) {
  if (!rk) return gs_ckpt3_save(m, dir, err, errlen);
  char path[1400];
  const gs_ckpt3_place at = {rk->rank, {rk->dims[0], rk->dims[1], rk->dims[2]}, -1};
  gs_ckpt_rank_path(path, sizeof path, dir, m->step, rk->rank);
  /* every rank's file in place, then the manifest commits the set */
  gs_status st = gs_fdtd3_dist_agree(gs_ckpt3_write_part(m, &at, path, err, errlen), rk->comm, err, errlen);
  if (st == GS_OK && rk->rank == 0) st = write_manifest(m, rk, dir, err, errlen);
  st = gs_fdtd3_dist_agree(st, rk->comm, err, errlen);
  if (st != GS_OK) { /* the previous set stays committed; this step's files go */
    unlink(path);
    return st;
  }
  if (rk->rank == 0) remove_others(dir, m->step); /* only now: a kill before this leaves the previous set committed */
  GS_MPI_CHECK(MPI_Barrier(rk->comm));
  return GS_OK;
}

/* The manifest's text at path (at most 511 bytes, else *longer) into text. */
static gs_status read_text(const char *path, char text[512], int *longer, char *err, size_t errlen) {
  gs_status st;
  FILE *fp = gs_fopen_regular(path, &st, err, errlen);
  if (!fp) return st;
  size_t n = fread(text, 1, 511, fp);
  *longer = fgetc(fp) != EOF;
  text[n] = '\0';
  *longer |= strlen(text) != n; /* a NUL inside is no manifest either */
  fclose(fp);
  return GS_OK;
}

/* The numbers of a 3D manifest's text (ranks, PX, PY, PZ, step; scene
 * hash), accepted only when the text is exactly what write_manifest prints. */
static int parse_manifest(const char *text, long long q[5], unsigned long long *hash) {
  char canon[512];
  if (sscanf(text, GS_CKPT3_MANIFEST_MAGIC " 1 ranks %lld decomp %lldx%lldx%lld step %lld scene %llx", &q[0], &q[1],
             &q[2], &q[3], &q[4], hash) != 6)
    return 0;
  snprintf(canon, sizeof canon,
           GS_CKPT3_MANIFEST_MAGIC " 1\nranks %lld\ndecomp %lldx%lldx%lld\nstep %lld\nscene %016llx\n", q[0], q[1],
           q[2], q[3], q[4], *hash);
  return strcmp(canon, text) == 0;
}

/* The set's ranks and split against this run's (ranks, dims); GS_OK, or
 * the reason in err. */
static gs_status check_split(const char *path, const long long q[5], int ranks, const int dims[3], char *err,
                             size_t errlen) {
  const int sane = q[0] >= 1 && q[0] <= GS_CK3_MAX_RANKS && q[1] >= 1 && q[2] >= 1 && q[3] >= 1 && q[1] <= q[0] &&
                   q[2] <= q[0] && q[3] <= q[0] && q[1] * q[2] * q[3] == q[0];
  if (!sane) {
    snprintf(err, errlen, "%s: names %lld ranks split %lldx%lldx%lld (1..%d ranks, PX PY PZ = ranks)", path, q[0], q[1],
             q[2], q[3], GS_CK3_MAX_RANKS);
  } else if (q[0] != ranks || q[1] != dims[0] || q[2] != dims[1] || q[3] != dims[2]) {
    snprintf(err, errlen,
             "%s: written by %lld ranks split %lldx%lldx%lld; this run has %d rank(s) split %dx%dx%d (restart with "
             "the same rank count and --decomp)",
             path, q[0], q[1], q[2], q[3], ranks, dims[0], dims[1], dims[2]);
  } else {
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

gs_status gs_ckpt3_probe_manifest(const gs_scene *sc, const char *dir, int ranks, const int dims[3], int64_t *step,
                                  char *err, size_t errlen) {
  char path[1400], text[512] = "";
  manifest_path(path, sizeof path, dir);
  int longer = 0;
  gs_status st = read_text(path, text, &longer, err, errlen);
  if (st != GS_OK) return st;
  long long q[5] = {0, 0, 0, 0, 0};
  unsigned long long hash = 0;
  if (strncmp(text, "gpustencil checkpoint manifest 1", 32) == 0) {
    snprintf(err, errlen, "%s: a checkpoint of a 2D model; this scene is 3D", path);
  } else if (longer || !parse_manifest(text, q, &hash)) {
    snprintf(err, errlen, "%s: not a gpustencil 3D checkpoint manifest", path);
  } else if (hash != sc->hash) {
    snprintf(err, errlen, "%s: made from a different scene", path);
  } else if (check_split(path, q, ranks, dims, err, errlen) != GS_OK) {
    return GS_ERR_FORMAT;
  } else if (q[4] < 0 || q[4] > sc->iterations) {
    snprintf(err, errlen, "%s: step %lld, expected 0..%lld", path, q[4], (long long)sc->iterations);
  } else {
    char rp[1400];
    for (int r = 0; r < ranks; ++r) {
      gs_ckpt_rank_path(rp, sizeof rp, dir, q[4], r);
      if (access(rp, F_OK) != 0) {
        snprintf(err, errlen, "%s: %s (a file of the set %s commits)", rp, strerror(errno), path);
        return GS_ERR_FORMAT;
      }
    }
    *step = q[4];
    return GS_OK;
  }
  return GS_ERR_FORMAT;
}

/* Rank 0: what dir holds for a run of ranks split dims: a set (*step its
 * step) or, for one rank, DIR/checkpoint.gsck (*step -1); GS_OK, or the
 * reason in err. One rank prefers checkpoint.gsck, several the set. */
static gs_status find_checkpoint(const gs_scene *sc, const char *dir, int ranks, const int dims[3], int64_t *step,
                                 char *err, size_t errlen) {
  char single[1400], manifest[1400];
  snprintf(single, sizeof single, "%.900s/checkpoint.gsck", dir);
  manifest_path(manifest, sizeof manifest, dir);
  const int have_single = access(single, F_OK) == 0, have_set = access(manifest, F_OK) == 0;
  *step = -1;
  if (have_single && (ranks == 1 || !have_set)) {
    if (ranks == 1) return GS_OK;
    snprintf(err, errlen,
             "%s: written by one rank; this run has %d ranks (restart on one rank, or from a set of %d ranks "
             "split %dx%dx%d)",
             single, ranks, ranks, dims[0], dims[1], dims[2]);
    return GS_ERR_FORMAT;
  }
  if (have_set) return gs_ckpt3_probe_manifest(sc, dir, ranks, dims, step, err, errlen);
  snprintf(err, errlen, "%.900s: no checkpoint there (checkpoint.gsck or checkpoint.manifest)", dir);
  return GS_ERR_IO;
}

gs_status gs_ckpt3_restore(gs_fdtd3_sim *m, const gs_fdtd3_ranks *rk, const char *dir, char *err, size_t errlen) {
  gs_ckpt3_place at = {rk ? rk->rank : 0, {1, 1, 1}, -1};
  for (int a = 0; rk && a < 3; ++a)
    at.dims[a] = rk->dims[a];
  err[0] = '\0';
  gs_status st = GS_OK;
  if (at.rank == 0) st = find_checkpoint(m->sc, dir, rk ? rk->size : 1, at.dims, &at.step, err, errlen);
  if (rk) {
    st = gs_fdtd3_dist_agree(st, rk->comm, err, errlen); /* rank 0's reason everywhere */
    if (st == GS_OK) GS_MPI_CHECK(MPI_Bcast(&at.step, 1, MPI_INT64_T, 0, rk->comm));
  }
  if (st != GS_OK) return st;
  char path[1400];
  if (at.step < 0)
    snprintf(path, sizeof path, "%.900s/checkpoint.gsck", dir);
  else
    gs_ckpt_rank_path(path, sizeof path, dir, at.step, at.rank);
  st = gs_ckpt3_read(m, &at, path, err, errlen);
  return rk ? gs_fdtd3_dist_agree(st, rk->comm, err, errlen) : st; /* one rank's bad file fails all */
}

/* Small file-system helpers shared by the drivers. */
#ifndef GS_FSUTIL_H
#define GS_FSUTIL_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* Creates every missing folder of path: all of it when whole is set, else up
 * to its last '/'. 0 on success, -1 with errno set (ENOTDIR where one of
 * them exists but is not a folder). */
int gs_mkdirs(const char *path, int whole);

/* Opens an input file for reading ("rb") only if it is a regular file: a
 * FIFO, device, socket or folder given where a file is expected is refused
 * without blocking (the open is non-blocking and the type is checked on the
 * open descriptor, so a FIFO with no writer cannot hang the program). On
 * failure returns NULL with "PATH: reason" in err (GS_ERR_IO in *st when st
 * is not NULL; missing files say so as strerror does). */
FILE *gs_fopen_regular(const char *path, gs_status *st, char *err, size_t errlen);

/* FNV-1a 64 of n bytes, continuing from h (0xCBF29CE484222325 to start): the scene's hash
 * of itself and the files it reads, and a survey's markers' hash of the input file. */
uint64_t gs_fnv1a(uint64_t h, const void *data, size_t n);
/* The name of the file at path without its folders and its last extension (a name that is only
 * an extension keeps it): gprMax's model name, MODEL of MODEL.in, into out (n bytes). */
void gs_model_name(const char *path, char *out, size_t n);

/* Reads past a UTF-8 byte order mark at the start of f (a regular file, at its start), as the
 * input file's reader does; else leaves f at its start. */
void gs_skip_utf8_bom(FILE *f);
/* The same with only the reason in why, for callers that name the file themselves. */
FILE *gs_fopen_input(const char *path, char *why, size_t whylen);
/* The same as a file descriptor: >= 0, or -1 with only the reason in why
 * ("a FIFO, not a regular file", "No such file or directory"). */
int gs_open_regular(const char *path, char *why, size_t whylen);

/* The folder of the program's installed files named sub (share/gpustencil/SUB):
 * beside the executable (a build tree: DIR/share/gpustencil/SUB), above it (an
 * installation: DIR/../share/gpustencil/SUB), else where CMake installs it.
 * 0 with the folder in out, or -1 when none of them is a folder. */
int gs_program_share_dir(const char *sub, char *out, size_t n);

/* What kind of file system object mode is, for messages: "a FIFO",
 * "a folder", "a character device", ... */
const char *gs_file_kind(unsigned mode);

/* A file written under "PATH.tmp-PID" and renamed to PATH when complete. */
typedef struct gs_tmpfile {
  FILE *fp;
  char *tmp, *path;
} gs_tmpfile;

/* Opens the temporary file for writing ("wb"); GS_OK, or GS_ERR_IO with
 * "writing PATH: reason" (the final name, the system's reason) in err. */
gs_status gs_tmpfile_open(gs_tmpfile *t, const char *path, char *err, size_t errlen);
/* Flushes (fsync when sync is set), closes and renames into place; on any
 * failure, or when failed is set by the caller (after a failed write, errno
 * still its reason), removes the temporary file and returns GS_ERR_IO with
 * "writing PATH: reason" in err. Frees the names either way. */
gs_status gs_tmpfile_commit(gs_tmpfile *t, int failed, int sync, char *err, size_t errlen);

#endif

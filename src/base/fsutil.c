#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gs_mkdirs(const char *path, int whole) {
  char *d = gs_xstrdup(path);
  size_t n = strlen(d);
  int rc = 0;
  for (size_t i = 1; i <= n && rc == 0; ++i) {
    if (d[i] != '/' && !(whole && d[i] == '\0')) continue;
    char keep = d[i];
    d[i] = '\0';
    struct stat st;
    if (mkdir(d, 0755) != 0) {
      if (errno != EEXIST)
        rc = -1;
      else if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) { /* a file (or a dangling link) of that name */
        errno = ENOTDIR;
        rc = -1;
      }
    }
    d[i] = keep;
  }
  free(d);
  return rc;
}

gs_status gs_tmpfile_open(gs_tmpfile *t, const char *path, char *err, size_t errlen) {
  size_t len = strlen(path) + 32;
  t->path = gs_xstrdup(path);
  t->tmp = gs_xmalloc(len);
  snprintf(t->tmp, len, "%s.tmp-%ld", path, (long)getpid());
  t->fp = fopen(t->tmp, "wb");
  if (!t->fp) {
    snprintf(err, errlen, "writing %s: %s", path, strerror(errno));
    free(t->tmp);
    free(t->path);
    return GS_ERR_IO;
  }
  setvbuf(t->fp, NULL, _IOFBF, 1 << 20);
  return GS_OK;
}

gs_status gs_tmpfile_commit(gs_tmpfile *t, int failed, int sync, char *err, size_t errlen) {
  int e = errno; /* a caller's failed write said why there */
  int bad = fflush(t->fp) != 0;
  if (bad) e = errno; /* what is still buffered fails again, with the system's reason */
  bad |= failed || ferror(t->fp) != 0;
  if (!bad && sync && fsync(fileno(t->fp)) != 0) bad = 1, e = errno;
  if (fclose(t->fp) != 0 && !bad) bad = 1, e = errno;
  if (!bad && rename(t->tmp, t->path) != 0) bad = 1, e = errno;
  gs_status st = GS_OK;
  if (bad) {
    snprintf(err, errlen, "writing %s: %s", t->path, strerror(e ? e : EIO));
    unlink(t->tmp);
    st = GS_ERR_IO;
  }
  free(t->tmp);
  free(t->path);
  return st;
}

const char *gs_file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

int gs_open_regular(const char *path, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    return -1;
  }
  struct stat sb;
  const char *failed = fstat(fd, &sb) != 0 ? strerror(errno) : NULL;
  if (!failed && !S_ISREG(sb.st_mode)) {
    snprintf(why, whylen, "%s, not a regular file", gs_file_kind(sb.st_mode));
    close(fd);
    return -1;
  }
  /* Regular files ignore O_NONBLOCK, but clear it so that reads behave as after a plain open. */
  int flags = failed ? -1 : fcntl(fd, F_GETFL);
  if (failed || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    snprintf(why, whylen, "%s", failed ? failed : strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

FILE *gs_fopen_input(const char *path, char *why, size_t whylen) {
  int fd = gs_open_regular(path, why, whylen);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
  if (!f && fd >= 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    close(fd);
  }
  return f;
}

FILE *gs_fopen_regular(const char *path, gs_status *st, char *err, size_t errlen) {
  char why[256];
  FILE *f = gs_fopen_input(path, why, sizeof why);
  if (!f) snprintf(err, errlen, "%s: %s", path, why);
  if (st) *st = f ? GS_OK : GS_ERR_IO;
  return f;
}

#ifndef GS_DATADIR
#define GS_DATADIR "/usr/local/share"
#endif

int gs_program_share_dir(const char *sub, char *out, size_t n) {
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  const char *const forms[] = {"%s/share/gpustencil/%s", "%s/../share/gpustencil/%s"};
  struct stat st;
  for (int k = 0; k < 2 && slash; ++k) {
    snprintf(out, n, forms[k], exe, sub);
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  }
  snprintf(out, n, "%s/gpustencil/%s", GS_DATADIR, sub);
  return stat(out, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

uint64_t gs_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *b = data;
  for (size_t k = 0; k < n; ++k)
    h = (h ^ b[k]) * 0x100000001B3ull;
  return h;
}

void gs_model_name(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  snprintf(out, n, "%.*s", (int)(dot && dot != base ? dot - base : (ptrdiff_t)strlen(base)), base);
}

void gs_skip_utf8_bom(FILE *f) {
  unsigned char b[3];
  if (fread(b, 1, sizeof b, f) == sizeof b && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) return;
  rewind(f);
}

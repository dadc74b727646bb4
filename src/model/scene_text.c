/* An input file expanded as gprMax expands it (hash_cmds_file.py): its
 * #python blocks run (scene_python.c) and replaced by the commands they
 * print, then its #include_file commands replaced by the files' commands;
 * comments and blank lines dropped. Every line keeps where it came from, so
 * that the parser's messages name the file and line (scene.h,
 * gs_scene_text_expand; docs/gprmax-rules.md, "#python blocks and
 * #include_file"). */
#include "scene_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fsutil.h"

/* The longest line read (the parser's limit too). */
#define LINE_MAX_LEN 4094
/* Files an expansion may read (the input and its includes, each include counted). */
#define MAX_FILES 4096
/* Bytes an expansion may read over all its files, comments and blank lines
 * too (a large file of comments included many times would otherwise take
 * hours to read past). */
#define MAX_READ GS_SCENE_TEXT_MAX

typedef struct file_id {
  dev_t dev;
  ino_t ino;
} file_id;

typedef struct expander {
  gs_scene_text *t; /* what is built */
  const gs_scene_python *py;
  char *err;
  size_t errlen;
  char base_dir[1024];                          /* the input file's folder, with its '/' (or "") */
  file_id open[GS_SCENE_MAX_INCLUDE_DEPTH + 2]; /* the input file and the includes being read */
  int depth;
  size_t read; /* bytes read over all files (MAX_READ) */
  /* pass 1: the input file's own commands and blocks */
  gs_scene_text *first;
  gs_py_block *blocks;
  size_t *slot; /* where block k's commands go: before line slot[k] of first */
  int nblocks, in_block;
} expander;

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One line "FILE:LINE: message" (with the block's output line for a line a block printed). */
static int xerr(expander *x, int file, int line, int out, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (out)
    snprintf(x->err, x->errlen, "%s:%d: #python output line %d: %s", x->t->files[file].path, line, out, msg);
  else
    snprintf(x->err, x->errlen, "%s:%d: %s", x->t->files[file].path, line, msg);
  return -1;
}

static int text_add(expander *x, gs_scene_text *t, const char *s, size_t len, int file, int line, int out) {
  if (t->len + len + 1 > GS_SCENE_TEXT_MAX || len > UINT32_MAX)
    return xerr(x, file, line, out, "the expanded input holds more than %zu MiB of commands", GS_SCENE_TEXT_MAX >> 20);
  if (t->len + len + 1 > t->cap) t->text = gs_xrealloc(t->text, t->cap = (t->len + len + 1) * 2 + 4096);
  if (t->n == t->ncap) t->lines = gs_xrealloc(t->lines, sizeof *t->lines * (t->ncap = t->ncap * 2 + 256));
  t->lines[t->n++] = (gs_text_line){t->len, (uint32_t)len, file, line, out};
  memcpy(t->text + t->len, s, len);
  t->len += len;
  t->text[t->len++] = '\n';
  return 0;
}

static int add_file(expander *x, const char *path, int line, const char *what) {
  gs_scene_text *t = x->t;
  if (t->nfiles >= MAX_FILES) return -1;
  t->files = gs_xrealloc(t->files, sizeof *t->files * (size_t)(t->nfiles + 1));
  gs_scene_input *in = &t->files[t->nfiles++];
  snprintf(in->path, sizeof in->path, "%s", path);
  snprintf(in->what, sizeof in->what, "%s", what);
  in->line = line;
  return t->nfiles - 1;
}

typedef int (*line_fn)(expander *x, char *s, size_t len, int file, int line);

/* Reads fp line by line (a line ends at \n, \r\n or \r alone), each (trailing
 * blanks removed) to fn; a line longer than the parser takes or holding a NUL
 * byte is refused, as the parser refuses it; a UTF-8 byte order mark before
 * the first line is read past. */
static int read_lines(expander *x, FILE *fp, int file, line_fn fn) {
  char buf[LINE_MAX_LEN + 2];
  int line = 0;
  for (;;) {
    size_t len = 0;
    int ch = EOF, nul = 0;
    while (len < sizeof buf - 1 && (ch = getc(fp)) != EOF) {
      nul |= ch == 0;
      if (ch == '\r') { /* a line's end, as Python's universal newlines (gprMax's reader) take it: \r\n or \r */
        const int next = getc(fp);
        if (next != '\n' && next != EOF) ungetc(next, fp);
        ch = '\n';
      }
      buf[len++] = (char)ch;
      if (ch == '\n') break;
    }
    if (len == 0 && ch == EOF) break;
    buf[len] = '\0';
    ++line;
    if ((x->read += len) > MAX_READ)
      return xerr(x, file, line, 0, "the input and its include files hold more than %zu MiB (each include counted)",
                  MAX_READ >> 20);
    if (len == sizeof buf - 1 && buf[len - 1] != '\n')
      return xerr(x, file, line, 0, "line longer than %d characters", LINE_MAX_LEN);
    if (nul) return xerr(x, file, line, 0, "a NUL byte: not a text line");
    char *s = buf;
    if (line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3, len -= 3;
    while (len && isspace((unsigned char)s[len - 1]))
      s[--len] = '\0';
    if (fn(x, s, len, file, line)) return -1;
  }
  if (ferror(fp)) return xerr(x, file, line, 0, "read error");
  return 0;
}

/* ---- pass 1: the input file's commands and #python blocks ---- */

static void block_add(gs_py_block *b, const char *s, size_t len, int line) {
  b->code = gs_xrealloc(b->code, b->len + len + 2);
  memcpy(b->code + b->len, s, len);
  b->len += len;
  b->code[b->len++] = '\n';
  b->lines = gs_xrealloc(b->lines, sizeof *b->lines * (size_t)(b->nlines + 1));
  b->lines[b->nlines++] = line;
}

static int main_line(expander *x, char *s, size_t len, int file, int line) {
  if (x->in_block) {
    if (starts(s, "#end_python:"))
      x->in_block = 0;
    else if (len && !starts(s, "##")) /* gprMax drops blank lines and ## lines of a block too */
      block_add(&x->blocks[x->nblocks - 1], s, len, line);
    return 0;
  }
  if (starts(s, "#python:")) {
    x->blocks = gs_xrealloc(x->blocks, sizeof *x->blocks * (size_t)(x->nblocks + 1));
    x->slot = gs_xrealloc(x->slot, sizeof *x->slot * (size_t)(x->nblocks + 1));
    x->blocks[x->nblocks] = (gs_py_block){.line = line};
    x->slot[x->nblocks++] = x->first->n;
    x->in_block = 1;
    return 0;
  }
  if (s[0] != '#' || s[1] == '#') return 0; /* a comment */
  return text_add(x, x->first, s, len, file, line, 0);
}

/* ---- pass 2: #include_file commands replaced by the files' commands ---- */

static int emit(expander *x, const char *s, size_t len, int file, int line, int out);

static int include_line(expander *x, char *s, size_t len, int file, int line) {
  if (s[0] != '#' || s[1] == '#') return 0;
  if (starts(s, "#python:") || starts(s, "#end_python:"))
    return xerr(x, file, line, 0,
                "#python: a block in an included file is not run (gprMax runs only the input file's own blocks)");
  return emit(x, s, len, file, line, 0);
}

/* The file an #include_file names: as given when it exists (gprMax looks
 * there first), else in the input file's folder. */
static void include_path(const expander *x, const char *name, char *path, size_t n) {
  if (name[0] == '/' || access(name, F_OK) == 0)
    snprintf(path, n, "%s", name);
  else
    snprintf(path, n, "%s%s", x->base_dir, name);
}

static int include(expander *x, const char *s, size_t len, int file, int line, int out) {
  char words[LINE_MAX_LEN + 2], *word[3] = {NULL, NULL, NULL}, path[2200], why[256];
  snprintf(words, sizeof words, "%.*s", (int)(len < sizeof words ? len : sizeof words - 1), s);
  int nw = 0;
  for (char *save = NULL, *w = strtok_r(words, " \t\r\v\f", &save); w && nw < 3; w = strtok_r(NULL, " \t\r\v\f", &save))
    word[nw++] = w;
  if (nw != 2) return xerr(x, file, line, out, "#include_file: expected one file name (without blanks)");
  if (x->depth > GS_SCENE_MAX_INCLUDE_DEPTH)
    return xerr(x, file, line, out, "#include_file: more than %d include files nested", GS_SCENE_MAX_INCLUDE_DEPTH);
  include_path(x, word[1], path, sizeof path);
  FILE *fp = gs_fopen_input(path, why, sizeof why);
  if (!fp) return xerr(x, file, line, out, "#include_file: %s: %s", path, why);
  struct stat st;
  fstat(fileno(fp), &st);
  for (int k = 0; k < x->depth; ++k)
    if (x->open[k].dev == st.st_dev && x->open[k].ino == st.st_ino) {
      fclose(fp);
      return xerr(x, file, line, out, "#include_file: %s is being read already (a cycle of include files)", path);
    }
  const int me = add_file(x, path, line, "include_file");
  if (me < 0) {
    fclose(fp);
    return xerr(x, file, line, out, "#include_file: more than %d files", MAX_FILES);
  }
  x->open[x->depth++] = (file_id){st.st_dev, st.st_ino};
  const int rc = read_lines(x, fp, me, include_line);
  --x->depth;
  fclose(fp);
  return rc;
}

static int emit(expander *x, const char *s, size_t len, int file, int line, int out) {
  if (len >= 14 && !memcmp(s, "#include_file:", 14)) return include(x, s, len, file, line, out);
  return text_add(x, x->t, s, len, file, line, out);
}

/* Block k's output: lines starting with '#' are commands, other text is shown (as gprMax shows it). */
static int emit_block(expander *x, int k, const char *out, size_t len) {
  const int line = x->blocks[k].line;
  int n = 0;
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(out + at, '\n', len - at);
    const size_t end = nl ? (size_t)(nl - out) : len, ll = end - at;
    ++n;
    if (ll && out[at] == '#') {
      if (emit(x, out + at, ll, 0, line, n)) return -1;
    } else if (ll) {
      printf("%s:%d: #python printed: %.*s\n", x->t->files[0].path, line, (int)(ll > 1000 ? 1000 : ll), out + at);
    }
    at = end + 1;
  }
  fflush(stdout);
  return 0;
}

/* Runs the blocks (refused when Python is off), then pass 2 over the
 * input's commands with the blocks' commands at their places. */
static int expand_all(expander *x) {
  const gs_scene_python *py = x->py;
  if (x->nblocks && (!py || !py->enabled))
    return xerr(x, 0, x->blocks[0].line, 0, "#python: Python blocks are not run here (%s)",
                py && py->refusal ? py->refusal : "the fdtd command runs them");
  char **out = gs_xcalloc((size_t)x->nblocks + 1, sizeof *out);
  size_t *outlen = gs_xcalloc((size_t)x->nblocks + 1, sizeof *outlen);
  int rc =
      x->nblocks ? gs_python_run(py, x->t->files[0].path, x->blocks, x->nblocks, out, outlen, x->err, x->errlen) : 0;
  x->t->python = x->nblocks > 0;
  int b = 0;
  for (size_t i = 0; rc == 0 && i <= x->first->n; ++i) {
    for (; rc == 0 && b < x->nblocks && x->slot[b] == i; ++b)
      rc = emit_block(x, b, out[b], outlen[b]);
    if (rc == 0 && i < x->first->n) {
      const gs_text_line *l = &x->first->lines[i];
      rc = emit(x, x->first->text + l->at, l->len, l->file, l->line, 0);
    }
  }
  for (int k = 0; k < x->nblocks && out; ++k)
    free(out[k]);
  free(out);
  free(outlen);
  return rc;
}

static void expander_free(expander *x) {
  for (int k = 0; k < x->nblocks; ++k) {
    free(x->blocks[k].code);
    free(x->blocks[k].lines);
  }
  free(x->blocks);
  free(x->slot);
  gs_scene_text_free(x->first);
}

gs_status gs_scene_text_expand(const char *path, const gs_scene_python *py, gs_scene_text **out, char *err,
                               size_t errlen) {
  gs_status st = GS_OK;
  *out = NULL;
  FILE *fp = gs_fopen_regular(path, &st, err, errlen);
  if (!fp) return st;
  expander x = {.t = gs_xcalloc(1, sizeof(gs_scene_text)), .py = py, .err = err, .errlen = errlen};
  x.first = gs_xcalloc(1, sizeof(gs_scene_text));
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(x.base_dir, sizeof x.base_dir, "%.*s", (int)(slash - path + 1), path);
  add_file(&x, path, 0, "");
  struct stat sb;
  fstat(fileno(fp), &sb);
  x.open[x.depth++] = (file_id){sb.st_dev, sb.st_ino};
  int rc = read_lines(&x, fp, 0, main_line);
  if (rc == 0 && x.in_block)
    rc = xerr(&x, 0, x.blocks[x.nblocks - 1].line, 0, "#python: no #end_python: closes this block");
  fclose(fp);
  if (rc == 0) rc = expand_all(&x);
  expander_free(&x);
  if (rc != 0) {
    gs_scene_text_free(x.t);
    return GS_ERR_FORMAT;
  }
  *out = x.t;
  return GS_OK;
}

int gs_scene_text_has_python(const gs_scene_text *t) {
  return t->python;
}

void gs_scene_text_free(gs_scene_text *t) {
  if (!t) return;
  free(t->text);
  free(t->lines);
  free(t->files);
  free(t);
}

/* ---- between ranks, and to a file ---- */

static const char pack_magic[8] = "GSTEXT1";

void *gs_scene_text_pack(const gs_scene_text *t, size_t *n) {
  const uint64_t head[4] = {(uint64_t)t->nfiles, t->n, t->len, (uint64_t)t->python};
  const size_t files = sizeof *t->files * (size_t)t->nfiles, lines = sizeof *t->lines * t->n;
  *n = sizeof pack_magic + sizeof head + files + lines + t->len;
  char *buf = gs_xmalloc(*n), *at = buf;
  memcpy(at, pack_magic, sizeof pack_magic);
  memcpy(at += sizeof pack_magic, head, sizeof head);
  memcpy(at += sizeof head, t->files, files);
  at += files;
  if (lines) memcpy(at, t->lines, lines); /* a scene of no commands has no arrays (NULL) */
  if (t->len) memcpy(at + lines, t->text, t->len);
  return buf;
}

gs_scene_text *gs_scene_text_unpack(const void *buf, size_t n) {
  uint64_t head[4];
  const char *at = buf;
  if (n < sizeof pack_magic + sizeof head || memcmp(at, pack_magic, sizeof pack_magic) != 0) return NULL;
  memcpy(head, at += sizeof pack_magic, sizeof head);
  at += sizeof head;
  gs_scene_text *t = gs_xcalloc(1, sizeof *t);
  const size_t files = sizeof *t->files * head[0], lines = sizeof *t->lines * head[1];
  if (head[0] < 1 || head[0] > MAX_FILES || head[1] > GS_SCENE_TEXT_MAX || head[2] > GS_SCENE_TEXT_MAX ||
      n != sizeof pack_magic + sizeof head + files + lines + head[2]) {
    free(t);
    return NULL;
  }
  t->nfiles = (int)head[0];
  t->n = t->ncap = head[1];
  t->len = t->cap = head[2];
  t->python = (int)head[3];
  t->files = gs_xmalloc(files);
  t->lines = gs_xmalloc(lines + 1);
  t->text = gs_xmalloc(t->len + 1);
  memcpy(t->files, at, files);
  memcpy(t->lines, at + files, lines);
  memcpy(t->text, at + files + lines, t->len);
  for (int k = 0; k < t->nfiles; ++k) {
    t->files[k].path[sizeof t->files[k].path - 1] = '\0';
    t->files[k].what[sizeof t->files[k].what - 1] = '\0';
  }
  for (size_t k = 0; k < t->n; ++k) /* every line inside the text, every file known */
    if (t->lines[k].at > t->len || t->lines[k].len + (size_t)1 > t->len - t->lines[k].at || t->lines[k].file < 0 ||
        t->lines[k].file >= t->nfiles) {
      gs_scene_text_free(t);
      return NULL;
    }
  return t;
}

gs_status gs_scene_text_write(const gs_scene_text *t, const char *path, char *err, size_t errlen) {
  struct stat out, in;
  if (stat(path, &out) == 0)
    for (int k = 0; k < t->nfiles; ++k)
      if (stat(t->files[k].path, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
        snprintf(err, errlen, "%s is the input file %s: not overwritten", path, t->files[k].path);
        return GS_ERR_USAGE;
      }
  gs_tmpfile f;
  gs_status st = gs_tmpfile_open(&f, path, err, errlen);
  if (st != GS_OK) return st;
  const int bad = t->len && fwrite(t->text, 1, t->len, f.fp) != t->len;
  return gs_tmpfile_commit(&f, bad, 0, err, errlen);
}

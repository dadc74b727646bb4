/* What the expansion of an input file (scene_text.c), its #python blocks
 * (scene_python.c) and the parser (scene.c) share. Not for use outside the
 * parser's room. */
#ifndef GS_SCENE_TEXT_H
#define GS_SCENE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"

/* Where one line of the expanded input came from. */
typedef struct gs_text_line {
  size_t at;    /* its first byte in the text */
  uint32_t len; /* its length, without the '\n' that ends it */
  int32_t file; /* index into the text's files */
  int32_t line; /* line in that file (a block's output: the block's #python: line) */
  int32_t out;  /* a block's output: its line in what the block printed (1-based), else 0 */
} gs_text_line;

struct gs_scene_text {
  char *text; /* the commands, each line ending in '\n' */
  size_t len, cap;
  gs_text_line *lines;
  size_t n, ncap;
  gs_scene_input *files; /* [0] the input file, then each included file with the line that includes it */
  int nfiles;
  int python; /* #python blocks ran */
};

/* One #python block: its code and the file line of each code line. */
typedef struct gs_py_block {
  int line; /* the #python: line */
  char *code;
  size_t len;
  int *lines;
  int nlines;
} gs_py_block;

/* Runs blocks b[0..n) of file path in one python3 process (py->enabled);
 * out[k] (malloc'd, NUL-terminated, outlen[k] bytes): what block k printed.
 * 0, or -1 with one line "PATH:LINE: #python: reason" in err (a block's
 * error: Python's last line, at the line of the block it names). */
int gs_python_run(const gs_scene_python *py, const char *path, const gs_py_block *b, int n, char **out, size_t *outlen,
                  char *err, size_t errlen);

#endif

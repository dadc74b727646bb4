/* A small table-driven parser for long options ("--name value" or
 * "--name=value"), one-letter aliases and positional arguments. */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

typedef enum gs_opt_kind {
  GS_OPT_FLAG,   /* int, set to 1 */
  GS_OPT_STRING, /* const char * */
  GS_OPT_INT,    /* int64_t within [min, max] */
  GS_OPT_DOUBLE, /* double, finite, within [min, max] */
  GS_OPT_CHOICE, /* const char *, one of the '|'-separated choices */
} gs_opt_kind;

typedef struct gs_opt {
  const char *name;    /* long name without "--" */
  char shortname;      /* 0 for none */
  gs_opt_kind kind;
  void *dest;
  const char *metavar; /* for help; choices for GS_OPT_CHOICE */
  double min, max;     /* range for INT and DOUBLE (ignored when min == max) */
  const char *help;
} gs_opt;

/* Parses argv[0..argc) against opts (terminated by an entry with name NULL).
 * Arguments not starting with "-" are stored in order in positional (which
 * must have room for argc entries) and counted in *npositional. "--help"
 * sets *want_help. On a bad option or value returns GS_ERR_USAGE and writes
 * one line naming it into err. */
gs_status gs_opts_parse(const gs_opt *opts, int argc, char **argv, char **positional,
                        int *npositional, int *want_help, char *err, size_t errlen);

/* Prints "usage: gpustencil CMD SYNOPSIS", a description and the options. */
void gs_opts_help(FILE *out, const char *cmd, const char *synopsis, const char *description,
                  const gs_opt *opts);

/* Parses a "WxH" size such as "16384x8192"; 0 on success. */
int gs_parse_size2(const char *text, int64_t *w, int64_t *h);

#endif

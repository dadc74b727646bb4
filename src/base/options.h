/* A small table-driven parser for long options ("--name value" or
 * "--name=value"), one-letter aliases and positional arguments. Options are
 * stored into a struct of the caller's: each entry names the offset of its
 * field, so a command's options are one value built in main and passed down. */
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
  const char *name; /* long name without "--" */
  char shortname;   /* 0 for none */
  gs_opt_kind kind;
  size_t offset;       /* of the field in the options struct: offsetof(T, field) */
  const char *metavar; /* for help; choices for GS_OPT_CHOICE */
  double min, max;     /* range for INT and DOUBLE (ignored when min == max) */
  const char *help;
} gs_opt;

/* A table of options whose fields sit at offset within a larger struct: lets
 * two commands share one table for a struct they both embed. */
typedef struct gs_opt_group {
  const gs_opt *opts; /* terminated by an entry with name NULL */
  size_t offset;      /* of the embedded struct in the command's options */
} gs_opt_group;

/* One table of all groups' entries with their offsets made absolute;
 * terminated by a NULL name; the caller frees it. */
gs_opt *gs_opts_merge(const gs_opt_group *groups, int ngroups);

/* Parses argv[0..argc) against opts (terminated by an entry with name NULL)
 * into the struct at dest.
 * Arguments not starting with "-" are stored in order in positional (which
 * must have room for argc entries) and counted in *npositional. "--help"
 * sets *want_help. On a bad option or value returns GS_ERR_USAGE and writes
 * one line naming it into err. */
gs_status gs_opts_parse(const gs_opt *opts, void *dest, int argc, char **argv, char **positional, int *npositional,
                        int *want_help, char *err, size_t errlen);

/* Prints "usage: gpustencil CMD SYNOPSIS", a description and the options. */
void gs_opts_help(FILE *out, const char *cmd, const char *synopsis, const char *description, const gs_opt *opts);

/* Parses a "WxH" size such as "16384x8192": two decimal integers in
 * [1, 2^31 - 1] without sign, spaces or leading zeros; 0 on success, -1 otherwise. */
int gs_parse_size2(const char *text, int64_t *w, int64_t *h);

#endif

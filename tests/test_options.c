/* The option parser: values, ranges, choices, positional arguments, errors. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "options.h"

/* A command's options struct, and a group embedded in it as fdtd and bench
 * embed their shared spread options. */
typedef struct inner {
  int64_t num;
  double real;
} inner;
typedef struct outer {
  int flag;
  const char *str, *choice;
  inner in;
} outer;
static outer o;

// clang-format off
static const gs_opt outer_opts[] = {
    {"flag", 'f', GS_OPT_FLAG,   offsetof(outer, flag),   NULL,     0, 0, "a flag"},
    {"out",  'o', GS_OPT_STRING, offsetof(outer, str),    "DIR",    0, 0, "a string"},
    {"mode", 0,   GS_OPT_CHOICE, offsetof(outer, choice), "a|bb|c", 0, 0, "a choice"},
    {NULL,   0,   0,             0,                       NULL,     0, 0, NULL},
};
// clang-format on
// clang-format off
static const gs_opt inner_opts[] = {
    {"count",   0, GS_OPT_INT,    offsetof(inner, num),  "N",  1, 100, "an int"},
    {"divisor", 0, GS_OPT_DOUBLE, offsetof(inner, real), "D",  0, 0,   "a real"},
    {NULL,      0, 0,             0,                     NULL, 0, 0,   NULL},
};
// clang-format on

static gs_status parse(const char *line, int *npos, char **pos, char *err) {
  static char buf[512];
  static char *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
    argv[argc++] = t;
  int help = 0;
  memset(&o, 0, sizeof o);
  err[0] = '\0';
  const gs_opt_group groups[] = {{outer_opts, 0}, {inner_opts, offsetof(outer, in)}};
  gs_opt *opts = gs_opts_merge(groups, 2);
  gs_status st = gs_opts_parse(opts, &o, argc, argv, pos, npos, &help, err, 256);
  free(opts);
  return st;
}

int main(void) {
  char *pos[32], err[256];
  int n;
  CHECK(parse("-f --out=x --count 7 --divisor 2.5 --mode bb in1 in2", &n, pos, err) == GS_OK);
  CHECK(o.flag == 1 && o.str && strcmp(o.str, "x") == 0 && o.in.num == 7 && o.in.real == 2.5 &&
        strcmp(o.choice, "bb") == 0);
  CHECK(n == 2 && strcmp(pos[0], "in1") == 0 && strcmp(pos[1], "in2") == 0);
  CHECK(parse("-o y -- --flag", &n, pos, err) == GS_OK && n == 1 && strcmp(pos[0], "--flag") == 0);
  CHECK(strcmp(o.str, "y") == 0);

  CHECK(parse("--nope", &n, pos, err) == GS_ERR_USAGE && strstr(err, "--nope"));
  CHECK(parse("-x", &n, pos, err) == GS_ERR_USAGE && strstr(err, "-x"));
  CHECK(parse("--count 0", &n, pos, err) == GS_ERR_USAGE && strstr(err, "--count"));
  CHECK(parse("--count 101", &n, pos, err) == GS_ERR_USAGE);
  CHECK(parse("--count 3x", &n, pos, err) == GS_ERR_USAGE && strstr(err, "not an integer"));
  CHECK(parse("--divisor nan", &n, pos, err) == GS_ERR_USAGE && strstr(err, "finite"));
  CHECK(parse("--divisor inf", &n, pos, err) == GS_ERR_USAGE);
  CHECK(parse("--divisor 1e999", &n, pos, err) == GS_ERR_USAGE);
  CHECK(parse("--divisor", &n, pos, err) == GS_ERR_USAGE && strstr(err, "needs a value"));
  CHECK(parse("--mode d", &n, pos, err) == GS_ERR_USAGE && strstr(err, "a|bb|c"));
  CHECK(parse("--mode b", &n, pos, err) == GS_ERR_USAGE);
  CHECK(parse("--flag=1", &n, pos, err) == GS_ERR_USAGE);
  CHECK(parse("--out=", &n, pos, err) == GS_ERR_USAGE);

  int64_t w = 0, h = 0;
  CHECK(gs_parse_size2("16384x8192", &w, &h) == 0 && w == 16384 && h == 8192);
  CHECK(gs_parse_size2("16384", &w, &h) != 0);
  CHECK(gs_parse_size2("0x5", &w, &h) != 0);
  CHECK(gs_parse_size2("5x", &w, &h) != 0);
  CHECK(gs_parse_size2("2147483647x1", &w, &h) == 0 && w == 2147483647 && h == 1);
  CHECK(gs_parse_size2("2147483648x1", &w, &h) != 0);
  CHECK(gs_parse_size2("9223372036854775807x9223372036854775807", &w, &h) != 0);
  CHECK(gs_parse_size2("6148914691236517206x3", &w, &h) != 0);
  CHECK(gs_parse_size2("99999999999999999999x1", &w, &h) != 0);
  CHECK(gs_parse_size2(" 2x2", &w, &h) != 0);
  CHECK(gs_parse_size2("2x 2", &w, &h) != 0);
  CHECK(gs_parse_size2("+2x+2", &w, &h) != 0);
  CHECK(gs_parse_size2("-2x2", &w, &h) != 0);
  CHECK(gs_parse_size2("02x2", &w, &h) != 0);
  return gs_test_done("test_options");
}

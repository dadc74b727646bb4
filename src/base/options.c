#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gs_opt *find_long(const gs_opt *opts, const char *name, size_t len) {
  for (const gs_opt *o = opts; o->name; ++o)
    if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
  return NULL;
}

static const gs_opt *find_short(const gs_opt *opts, char c) {
  for (const gs_opt *o = opts; o->name; ++o)
    if (o->shortname && o->shortname == c) return o;
  return NULL;
}

static int choice_ok(const char *choices, const char *value) {
  size_t vlen = strlen(value);
  const char *p = choices;
  while (*p) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == vlen && strncmp(p, value, len) == 0) return 1;
    if (!bar) break;
    p = bar + 1;
  }
  return 0;
}

static gs_status store(const gs_opt *o, void *dest, const char *value, char *err, size_t errlen) {
  void *field = (char *)dest + o->offset;
  char *end = NULL;
  int ranged = o->min != o->max;
  switch (o->kind) {
  case GS_OPT_FLAG:
    *(int *)field = 1;
    return GS_OK;
  case GS_OPT_STRING:
    if (!*value) {
      snprintf(err, errlen, "--%s: empty value", o->name);
      return GS_ERR_USAGE;
    }
    *(const char **)field = value;
    return GS_OK;
  case GS_OPT_CHOICE:
    if (!choice_ok(o->metavar, value)) {
      snprintf(err, errlen, "--%s: '%s' is not one of %s", o->name, value, o->metavar);
      return GS_ERR_USAGE;
    }
    *(const char **)field = value;
    return GS_OK;
  case GS_OPT_INT: {
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno || end == value || *end) {
      snprintf(err, errlen, "--%s: '%s' is not an integer", o->name, value);
      return GS_ERR_USAGE;
    }
    if (ranged && (v < o->min || v > o->max)) {
      snprintf(err, errlen, "--%s: %lld is outside [%.0f, %.0f]", o->name, v, o->min, o->max);
      return GS_ERR_USAGE;
    }
    *(int64_t *)field = v;
    return GS_OK;
  }
  case GS_OPT_DOUBLE: {
    errno = 0;
    double v = strtod(value, &end);
    if (errno == ERANGE && fabs(v) > 1.0) {
      snprintf(err, errlen, "--%s: '%s' is out of range", o->name, value);
      return GS_ERR_USAGE;
    }
    /* plain decimals only, as in scenes: no leading blank, no hexadecimal (strtod takes both) */
    if (end == value || *end || !isfinite(v) || isspace((unsigned char)value[0]) || strpbrk(value, "xXpP")) {
      snprintf(err, errlen, "--%s: '%s' is not a finite decimal number", o->name, value);
      return GS_ERR_USAGE;
    }
    if (ranged && (v < o->min || v > o->max)) {
      snprintf(err, errlen, "--%s: %g is outside [%g, %g]", o->name, v, o->min, o->max);
      return GS_ERR_USAGE;
    }
    *(double *)field = v;
    return GS_OK;
  }
  }
  return GS_ERR_USAGE;
}

gs_status gs_opts_parse(const gs_opt *opts, void *dest, int argc, char **argv, char **positional, int *npositional,
                        int *want_help, char *err, size_t errlen) {
  *npositional = 0;
  *want_help = 0;
  int only_positional = 0;
  for (int i = 0; i < argc; ++i) {
    char *a = argv[i];
    if (only_positional || a[0] != '-' || a[1] == '\0') {
      positional[(*npositional)++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_positional = 1;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      *want_help = 1;
      continue;
    }
    const gs_opt *o;
    const char *value = NULL;
    if (a[1] == '-') {
      const char *name = a + 2;
      const char *eq = strchr(name, '=');
      size_t len = eq ? (size_t)(eq - name) : strlen(name);
      o = find_long(opts, name, len);
      if (!o) {
        snprintf(err, errlen, "unknown option '--%.*s'", (int)len, name);
        return GS_ERR_USAGE;
      }
      if (eq) {
        if (o->kind == GS_OPT_FLAG) {
          snprintf(err, errlen, "--%s takes no value", o->name);
          return GS_ERR_USAGE;
        }
        value = eq + 1;
      }
    } else {
      if (a[2] != '\0' || !(o = find_short(opts, a[1]))) {
        snprintf(err, errlen, "unknown option '%s'", a);
        return GS_ERR_USAGE;
      }
    }
    if (o->kind != GS_OPT_FLAG && !value) {
      if (i + 1 >= argc) {
        snprintf(err, errlen, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "value");
        return GS_ERR_USAGE;
      }
      value = argv[++i];
    }
    gs_status st = store(o, dest, value ? value : "", err, errlen);
    if (st != GS_OK) return st;
  }
  return GS_OK;
}

void gs_opts_help(FILE *out, const char *cmd, const char *synopsis, const char *description, const gs_opt *opts) {
  fprintf(out, "usage: gpustencil %s %s\n\n%s\n\noptions:\n", cmd, synopsis, description);
  for (const gs_opt *o = opts; o->name; ++o) {
    char left[96];
    const char *mv = o->kind == GS_OPT_FLAG ? "" : (o->metavar ? o->metavar : "VALUE");
    if (o->shortname)
      snprintf(left, sizeof left, "-%c, --%s%s%s", o->shortname, o->name, *mv ? " " : "", mv);
    else
      snprintf(left, sizeof left, "    --%s%s%s", o->name, *mv ? " " : "", mv);
    fprintf(out, "  %-34s %s\n", left, o->help);
  }
  fprintf(out, "  %-34s %s\n", "-h, --help", "show this help and exit");
}

gs_opt *gs_opts_merge(const gs_opt_group *groups, int ngroups) {
  size_t n = 0;
  for (int g = 0; g < ngroups; ++g)
    for (const gs_opt *o = groups[g].opts; o && o->name; ++o)
      ++n;
  gs_opt *all = gs_xcalloc(n + 1, sizeof *all);
  size_t k = 0;
  for (int g = 0; g < ngroups; ++g)
    for (const gs_opt *o = groups[g].opts; o && o->name; ++o) {
      all[k] = *o;
      all[k++].offset += groups[g].offset;
    }
  return all;
}

int gs_parse_size2(const char *text, int64_t *w, int64_t *h) {
  int64_t v[2];
  const char *p = text;
  for (int k = 0; k < 2; ++k) {
    char *end = NULL;
    if (*p < '1' || *p > '9') return -1; /* no sign, space or leading zero */
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (errno || x > INT32_MAX) return -1; /* each side fits an int: products of two stay in int64_t */
    if (k == 0 && *end != 'x' && *end != 'X') return -1;
    if (k == 1 && *end) return -1;
    v[k] = x;
    p = end + 1;
  }
  *w = v[0];
  *h = v[1];
  return 0;
}

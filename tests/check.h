/* Minimal test harness: CHECK counts failures and prints where. */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int gs_test_failures = 0;
static int gs_test_checks = 0;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    ++gs_test_checks;                                                                                                  \
    if (!(cond)) {                                                                                                     \
      ++gs_test_failures;                                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                         \
    }                                                                                                                  \
  } while (0)

#define CHECKF(cond, ...)                                                                                              \
  do {                                                                                                                 \
    ++gs_test_checks;                                                                                                  \
    if (!(cond)) {                                                                                                     \
      ++gs_test_failures;                                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
    }                                                                                                                  \
  } while (0)

/* Ends a test program: 0 when every check passed. */
static inline int gs_test_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, gs_test_checks, gs_test_failures);
  return gs_test_failures ? 1 : 0;
}

/* Exit code ctest treats as "skipped". */
#define GS_TEST_SKIP 77
#endif

/* Minimal test harness: CHECK counts failures and prints where. */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <math.h>
#include <stdint.h>
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
/* max|a - ref| / max|ref| over n samples in dB (what a reflection or a
 * comparison reads); *peak: max|ref|. */
static inline double gs_test_db(const double *a, const double *ref, int64_t n, double *peak) {
  double diff = 0;
  *peak = 0;
  for (int64_t k = 0; k < n; ++k) {
    diff = fmax(diff, fabs(a[k] - ref[k]));
    *peak = fmax(*peak, fabs(ref[k]));
  }
  return 20 * log10(diff / *peak);
}

static inline int gs_test_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, gs_test_checks, gs_test_failures);
  return gs_test_failures ? 1 : 0;
}

/* Exit code ctest treats as "skipped". */
#define GS_TEST_SKIP 77
#endif

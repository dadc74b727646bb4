/* gs_strerror covers every status with a distinct message. */
#include <string.h>

#include "check.h"
#include "error.h"

int main(void) {
  for (int a = 0; a < GS_ERR_COUNT_; ++a) {
    const char *m = gs_strerror((gs_status)a);
    CHECKF(m && *m && strcmp(m, "unknown status") != 0, "status %d has no message", a);
    for (int b = 0; b < a; ++b)
      CHECKF(strcmp(m, gs_strerror((gs_status)b)) != 0, "statuses %d and %d share '%s'", a, b, m);
  }
  CHECK(strcmp(gs_strerror(GS_ERR_COUNT_), "unknown status") == 0);
  CHECK(strcmp(gs_strerror((gs_status)-1), "unknown status") == 0);
  return gs_test_done("test_error");
}

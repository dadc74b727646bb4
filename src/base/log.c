#include "log.h"

#include <stdarg.h>
#include <stdlib.h>

#include "config.h"
#include "error.h"
#include "progress.h"

static void emit(const char *prefix, int show_rank, const char *fmt, va_list ap) {
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (show_rank)
    fprintf(stderr, "gpustencil: %s[rank %d] %s\n", prefix, gs_error_rank(), msg);
  else
    fprintf(stderr, "gpustencil: %s%s\n", prefix, msg);
  fflush(stderr);
}

void gs_log_notice(const char *fmt, ...) {
  if (gs_error_rank() != 0) return;
  va_list ap;
  va_start(ap, fmt);
  emit("", 0, fmt, ap);
  va_end(ap);
}

void gs_log_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("warning: ", 1, fmt, ap);
  va_end(ap);
}

void gs_log_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("", 0, fmt, ap);
  va_end(ap);
}

static double started_at = -1; /* gs_log_clock_start's time: debug lines say how far in they are */

void gs_log_clock_start(void) {
  started_at = gs_now_s();
}

void gs_log_debug(const char *fmt, ...) {
  if (!gs_config_get()->debug) return;
  char prefix[48] = "debug: ";
  if (started_at >= 0) snprintf(prefix, sizeof prefix, "debug: +%.3f s ", gs_now_s() - started_at);
  va_list ap;
  va_start(ap, fmt);
  emit(prefix, 1, fmt, ap);
  va_end(ap);
}

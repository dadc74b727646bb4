/* Messages to the user. Everything goes to stderr except results, which the
 * subcommands print to stdout on rank 0. */
#ifndef GS_LOG_H
#define GS_LOG_H

#include <stdio.h>

/* Printed by rank 0 only: "gpustencil: MESSAGE". */
void gs_log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed by any rank: "gpustencil: warning: [rank R] MESSAGE". */
void gs_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed by the calling rank as one line: "gpustencil: MESSAGE". */
void gs_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Verbose diagnostics, on when GPUSTENCIL_DEBUG is set; any rank. Each line
 * says how long after gs_log_clock_start() it came, for timing the phases of
 * a job's start and end. */
void gs_log_clock_start(void);
void gs_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* A progress line on rank 0: count done of total, a rate, and the ETA.
 * On a terminal it redraws one line; otherwise it prints a line every 10 s. */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

#include <stdint.h>

typedef struct gs_progress gs_progress;

/* Seconds on the monotonic clock: the time between two calls (phases, rates, time left). */
double gs_now_s(void);

/* label: "scale"; unit: "files", "steps". */
gs_progress *gs_progress_create(const char *label, int64_t total, const char *unit);
/* done: units finished so far; work: a second measure (megapixels, Mcells)
 * whose rate is shown per second. Rate-limited; cheap to call often. */
void gs_progress_update(gs_progress *p, int64_t done, double work);
/* Ends the line and frees p. */
void gs_progress_end(gs_progress *p);

#endif

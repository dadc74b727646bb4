/* A survey's bookkeeping in its output folder (docs/fdtd.md, "Surveys"): a finished run is
 * marked by DIR/.survey/runNNNNNN.done, written (through a temporary name) after the run's
 * files and the removal of its checkpoints, so that --restart DIR -n N keeps the run's files
 * untouched. A marker starts with a tag and a hash of the input file's bytes (a resume from the
 * folder of another input is refused); a 2D survey's marker then holds the run's B-scan column
 * (the first receiver's trace, float32), which the B-scan picture of the resumed survey needs. */
#ifndef GS_SURVEY_H
#define GS_SURVEY_H

#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "fdtd_opts.h"

/* Whether run r (0-based) of the survey in dir is marked finished by a run of the input file
 * input (the marker holds a hash of its bytes): 1 yes, 0 no marker, -1 a marker of another input
 * or not a marker (one line said by rank 0: a resume must stop); agreed over g (rank 0 looks). */
int gs_survey_finished(const gs_comm *g, const char *dir, int64_t r, const char *input);

/* Rank 0: marks run r of input finished, the marker holding the input's hash and n floats of col
 * (n 0: none). 0, or 1 after one line naming the marker and the system's reason. */
int gs_survey_mark(const char *dir, int64_t r, const char *input, const float *col, size_t n);

/* Rank 0: the n floats a finished run's marker holds, into col; 0, or 1 after one line (a marker
 * of another length: written by another model or by hand). */
int gs_survey_column(const char *dir, int64_t r, float *col, size_t n);

/* Whether a checkpoint (one rank's file or a set's manifest) is in dir; agreed over g. */
int gs_survey_checkpoint_in(const gs_comm *g, const char *dir);

/* The size of the groups a survey's runs are shared out over, as far as the options decide it:
 * --ranks-per-run's (-1 after one line on rank 0 naming scene_path when it does not divide the
 * ranks); all of them where something needs the runs one after the other or split (one run, one
 * rank, a restart from a checkpoint, --stop-after, --checkpoint-every, --decomp); 0 where it is
 * the model's memory that decides (one rank a run when it fits). Collective over c. */
int gs_survey_group_rule(const gs_comm *c, const gs_fdtd_opts *o, const char *scene_path, int64_t runs);

/* Where run r of runs writes its receivers: gprMax's MODEL.h5 (MODELn.h5 in a survey) into h5
 * (1700 bytes), receivers.csv (receivers_runNNN.csv) into csv (1300 bytes). */
void gs_survey_receiver_paths(const char *scene_path, const char *outdir, int64_t r, int64_t runs, char *h5, char *csv);

/* A group's progress over its share of a survey's runs (first, first + stride, ...). */
typedef struct gs_survey_clock {
  int64_t group;      /* 0-based */
  int64_t mine, done; /* the group's runs still to run (finished ones taken off), run since */
  int64_t ended;      /* runs known to have ended: done, and the rest of runs that ended together */
  double t0;          /* when the group started, seconds */
} gs_survey_clock;

gs_survey_clock gs_survey_clock_start(int64_t first, int64_t stride, int64_t runs);
/* A run that finished before (a resumed survey): one run fewer to do. */
void gs_survey_clock_skip(gs_survey_clock *k);
/* The line of run r's end: its solve and wall seconds, and the group's runs done with the time
 * its other runs will take at the pace so far. */
void gs_survey_clock_done(gs_survey_clock *k, int64_t r, int64_t runs, double solve, double wall);
/* n runs that ended together (side by side): their lines that follow all count every one of them
 * in the pace. */
void gs_survey_clock_together(gs_survey_clock *k, int64_t n);

#endif

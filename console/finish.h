/* finish — what a run does once its load is over: the totals and the
 * summary, the agents' table, every threshold judged, printed and recorded,
 * the verdict (console/verdict.h) with its exit status, the JUnit file, the
 * gathered JTL and Grinder logs, the summary JSON.
 *
 * What it is for: one place decides what the run's outputs say, so the
 * screen, the database, JUnit and --summary-json cannot disagree. A run
 * that could not start gets only finish_start_failed: one failed JUnit case
 * named "start" with the reason. */
#ifndef QUERN_FINISH_H
#define QUERN_FINISH_H

struct run;

/** Reports a run that went through Go; sets run->rc. */
void finish_run(struct run *r);
/** --junit for a run that could not start: one failed case with msg. */
void finish_start_failed(struct run *r, const char *msg);

#endif

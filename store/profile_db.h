/* profile_db — the profiled server in the results database: the
 * profile_targets, profile_stacks, profile_samples and profile_seconds
 * tables (store/schema.sql, migration 19), written and read.
 *
 * What it is for: the console (console/profile.c) writes each target's start
 * and each second as the agents send them, from its loop, one transaction a
 * second, each distinct stack stored once a run. The readers (the capacity
 * diagnosis, the report's flame graphs) sum a window of seconds into one
 * profile (profile_db_window).
 *
 * Usage:
 *     profile_db *p = profile_db_new(d, err, sizeof(err));   // d borrowed, outlives p
 *     profile_db_target(p, run, "comm:nginx", "local", 1, NULL, &found, err, sizeof(err));
 *     profile_db_second(p, run, "comm:nginx", &sec, err, sizeof(err));
 *     profile_db_free(p);
 *     profile_window w; profile_db_window(d, run, "comm:nginx", 10, 20, &w, err, sizeof(err));
 *     ... w.cpu, w.off ... profile_window_free(&w); */
#ifndef QUERN_PROFILE_DB_H
#define QUERN_PROFILE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "common/folded.h"
#include "common/profdiag.h"
#include "store/db.h"

/** Distinct stacks a run stores; past them a stack is stored as "[other]". */
#define PROFILE_DB_STACKS_MAX 200000
/** Targets a run's readers list. */
#define PROFILE_DB_TARGETS_MAX 16

/** One stack of a second, borrowed. */
typedef struct profile_db_stack {
    const char *frames; /**< borrowed */
    uint64_t value;
} profile_db_stack;

/** One second of a target, as an agent sent it. All borrowed. */
typedef struct profile_db_sec {
    int64_t second;
    const profile_db_stack *cpu; /**< borrowed: ncpu on-CPU stacks, in samples */
    size_t ncpu;
    const profile_db_stack *off; /**< borrowed: noff off-CPU stacks, in microseconds */
    size_t noff;
    uint64_t on_us, off_us, runnable_us, lost;
    uint32_t threads;
} profile_db_sec;

/** A target's row. */
typedef struct profile_target_row {
    char target[128], agent[128];
    int ok;
    char error[512];
    unsigned procs, threads, freq, cpus;
} profile_target_row;

/** A window of seconds of a target, summed. */
typedef struct profile_window {
    folded cpu; /**< owned: on-CPU samples by stack */
    folded off; /**< owned: microseconds blocked by stack */
    uint64_t on_us, off_us, runnable_us, lost;
    uint32_t seconds;     /**< seconds with a row */
    uint32_t threads_max; /**< most threads seen in one of them */
} profile_window;

typedef struct profile_db profile_db;

/** Prepares the statements on d (borrowed): NULL with err. */
profile_db *profile_db_new(db *d, char *err, size_t errlen);
/** Records a target's start: ok, or why not (error); found's procs,
 *  threads, freq and cpus (the rest of it unread). 0, or -1 with err. */
int profile_db_target(profile_db *p, int64_t run_id, const char *target, const char *agent, int ok,
                      const char *error, const profile_target_row *found, char *err, size_t errlen);
/** Records one second of a target (a second sent twice adds up), in one
 *  transaction. 0, or -1 with err. */
int profile_db_second(profile_db *p, int64_t run_id, const char *target, const profile_db_sec *s,
                      char *err, size_t errlen);
/** Finalises the statements; NULL is fine. */
void profile_db_free(profile_db *p);

/** The run's targets, in the order they were recorded, into rows (at most
 *  max): their number, or -1 with err. */
int profile_db_targets(db *d, int64_t run_id, profile_target_row *rows, size_t max, char *err,
                       size_t errlen);
/** Sums seconds [s0, s1) of a target into *w (initialised here: free it
 *  with profile_window_free, also after an error). 0, or -1 with err. */
int profile_db_window(db *d, int64_t run_id, const char *target, int64_t s0, int64_t s1,
                      profile_window *w, char *err, size_t errlen);
/** w as the diagnosis reads it (common/profdiag.h), borrowing its tables:
 *  its load's label, and the CPUs the target may use (no more than its
 *  threads: each runs on one CPU at a time). */
void profile_window_in(const profile_window *w, unsigned cpus, const char *label, profdiag_in *in);
/** Frees what w holds. */
void profile_window_free(profile_window *w);

#endif

/* profile_html — the report's section on the profiled server (quern run
 * --profile): for each target, where its CPU went and what its threads
 * waited on, as tables and flame graphs (reports/flame.h), and, when the run
 * searched its capacity, a graph of each judged step, the knee's
 * differential graphs and the diagnosis (common/profdiag.h).
 *
 * What it is for: the page shows what the console printed at the run's end
 * (console/profile.c), by the same rules: the functions with the most own
 * on-CPU samples; the off-CPU stacks that are not waits for work
 * (profdiag_idle_stack), each named by the caller of its lock, else by its
 * leaf, with its share of the threads' time (running, blocked, waiting for a
 * CPU) and the ms it blocked a second; the knee of a search (the last step
 * that passed and the first that failed, or the last two judged); a step's
 * judged seconds (from its from_us rounded up to the second to its t1_us);
 * the CPUs the target could use (at least those its busiest second ran); a
 * run without a search judged whole "at this load". Reading and drawing are
 * apart: profile_html_load reads the profile through store/profile_db.h
 * (report.c, before the page is written) and keeps what the section shows,
 * profile_html_section writes it and reads no database.
 *
 * Bounds: a target keeps the PROFILE_HTML_FUNCS and PROFILE_HTML_WAITS
 * rows, its run's graphs and the knee's off-CPU ones at most
 * PROFILE_HTML_STACKS stacks each, a step's (and the knee's on-CPU ones)
 * PROFILE_HTML_STEP_STACKS (the lightest summed into
 * "[other]", common/folded.h); the figures are computed on the whole
 * windows first. Each graph writes at most FLAME_RECTS_MAX rectangles;
 * a target has at most 4 graphs besides one a judged step
 * (CAPACITY_DB_STEPS_MAX), and a run PROFILE_DB_TARGETS_MAX targets.
 *
 * Usage:
 *     profile_html *p;
 *     if (profile_html_load(d, r, &p, err, sizeof(err)) != 0) ...;  // err set
 *     profile_html_section(out, p);    // inside the page; nothing for NULL
 *     profile_html_free(p);
 */
#ifndef QUERN_PROFILE_HTML_H
#define QUERN_PROFILE_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/folded.h"
#include "common/profdiag.h"
#include "store/capacity_db.h"
#include "store/db.h"
#include "store/profile_db.h"
#include "store/query.h"

/** Functions listed by their own on-CPU samples. */
#define PROFILE_HTML_FUNCS 10
/** Off-CPU stacks listed. */
#define PROFILE_HTML_WAITS 5
/** Stacks kept of a graph of the whole run or of the knee. */
#define PROFILE_HTML_STACKS 5000
/** Stacks kept of a step's graph. */
#define PROFILE_HTML_STEP_STACKS 1000

/** A function and its on-CPU samples. */
typedef struct profile_html_func {
    char name[256];
    uint64_t self, total;
} profile_html_func;

/** An off-CPU stack that is not a wait for work. */
typedef struct profile_html_wait {
    char name[600]; /**< the caller of its lock, "caller (pthread_mutex_lock)", else its leaf */
    char *frames;   /**< owned: the whole stack */
    uint64_t us;    /**< blocked in it */
} profile_html_wait;

/** A judged step of the run's capacity search. */
typedef struct profile_html_step {
    char label[64]; /**< its load: "200/s", "40 VUs" */
    int passed;
    uint32_t seconds; /**< judged seconds with a profile row */
    uint64_t on_us, off_us, runnable_us;
    folded cpu; /**< owned: on-CPU samples by stack, trimmed */
} profile_html_step;

/** One target of the run. */
typedef struct profile_html_target {
    profile_target_row row; /**< as recorded: ok, or its error */
    uint32_t seconds;       /**< seconds with a row */
    uint64_t samples, on_us, off_us, runnable_us, idle_us, lost;
    profile_html_func funcs[PROFILE_HTML_FUNCS]; /**< by own samples, most first */
    size_t nfuncs;
    profile_html_wait waits[PROFILE_HTML_WAITS]; /**< most blocked first */
    size_t nwaits;
    folded cpu; /**< owned: the run's on-CPU samples, trimmed */
    folded off; /**< owned: the run's blocked time, waits for work left out, trimmed */
    profile_html_step *steps; /**< owned: nsteps, one a judged step of the search */
    size_t nsteps;
    int before, after;  /**< the knee's steps in steps, -1 none */
    folded knee_off[2]; /**< owned: before's and after's blocked time, no waits for work */
    int diagnosed;      /**< 1: diag holds the diagnosis */
    profdiag diag;
} profile_html_target;

/** A run's profile, as the section shows it. */
typedef struct profile_html {
    profile_html_target *t; /**< owned: n */
    size_t n;
    int search; /**< 1: the run searched its capacity */
} profile_html;

/** The knee of search c: the last step that passed and the first that
 *  failed, or the last two when none failed (*before -1 when there is no
 *  step before *after). 1, or 0 without a step. */
int profile_html_knee(const capacity_db_run *c, int *before, int *after);

/** A step's judged seconds [*s0, *s1): from from_us rounded up to the
 *  second to t1_us, at least one. */
void profile_html_step_seconds(const capacity_db_step *s, int64_t *s0, int64_t *s1);

/** Reads run r's profile from d (borrowed) into *out: NULL when the run
 *  profiled nothing. 0, or -1 with err (*out NULL). */
int profile_html_load(db *d, const query_run *r, profile_html **out, char *err, size_t errlen);

/** Writes the section (id "profile"); nothing for NULL. */
void profile_html_section(FILE *out, const profile_html *p);

/** Releases p; NULL is fine. */
void profile_html_free(profile_html *p);

#endif

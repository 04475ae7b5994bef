/* jcases — a run's JUnit test cases, for --junit and Jenkins.
 *
 * What it is for: one case per step (its mean time, and its counts, rates
 * and percentiles in system-out) and one per threshold, so a CI server shows
 * which step failed and why; reports/junit.h writes them. A step's case
 * fails with the thresholds that cover it; a failed threshold about errors
 * fails the case of every step that had errors of that kind, with the
 * step's error counts and the first error of each kind as its message.
 *
 * Usage:
 *     jcases j;
 *     jcases_build(&j, "demo", &agg, ids, names, elapsed_s, ts, rs, nt);
 *     junit_write(path, "demo", j.cases, j.n, elapsed_s, err, sizeof(err));
 *     jcases_free(&j); */
#ifndef QUERN_JCASES_H
#define QUERN_JCASES_H

#include <stddef.h>

#include "console/agg.h"
#include "console/thresh.h"
#include "reports/junit.h"

/** The JUnit test cases of a run, built by jcases_build. */
typedef struct jcases {
    junit_case *cases; /**< owned: nsteps step cases, then one per threshold */
    size_t n;          /**< number of cases */
    char **strs;       /**< owned: the strings the cases point to */
    size_t nstrs;
} jcases;

/** Builds the JUnit test cases of a run into *out (release with
 *  jcases_free): one per step, classname "quern.<run_name>", name the
 *  step's display name (its id when step_names is NULL), time its mean
 *  response time, its counts, rates and percentiles in system-out. A step
 *  case fails when a failed threshold whose scope explicitly covers it does,
 *  and when a failed threshold about errors covers it (with or without a
 *  scope) and the step had errors of that kind: its message then gives the
 *  step's error counts and the first error of each kind. A threshold without
 *  a scope otherwise fails only its own case. Then one case per threshold (ts[i] with verdict
 *  rs[i], i < nt), named "threshold <expr>", failing with rs[i].desc as its
 *  message. */
void jcases_build(jcases *out, const char *run_name, const agg *a, const char *const *step_ids,
                  const char *const *step_names, double elapsed_s, const thresh *const *ts,
                  const thresh_result *rs, size_t nt);

/** Adds a case named "injector" after the others when a worker was
 *  saturated in some second: it fails (failure type "inconclusive", message why,
 *  borrowed and copied) when failed, and gives the saturated seconds in
 *  system-out either way. */
void jcases_add_injector(jcases *j, const agg *a, int failed, const char *why);

/** Adds a failed case named "stopped" (failure type "stopped", message why,
 *  borrowed and copied): the run was stopped before its planned end, so the
 *  build that ran it is not green whatever the other cases say. */
void jcases_add_stopped(jcases *j, const char *why);
/** Adds the case "capacity": the capacity search's verdict, with what the
 *  server's profile says of its knee (--profile), failed when it failed. */
void jcases_add_capacity(jcases *j, int passed, const char *why);

/** Releases what j owns; j may then be built again. */
void jcases_free(jcases *j);

#endif

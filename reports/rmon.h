/* rmon — the report's section on the system under test: each --monitor
 * host's figures under the load charts, on the same time axis, and the
 * bottleneck signature of each step window (reports/bneck.h).
 *
 * What it is for: rhtml.c calls rmon_section after its load charts. The
 * windows are the stages of the run's load as recorded (runs.req_stages),
 * or the whole run when it had none (or more than the windows asked for);
 * a stage of 0 s (a jump, as in a staircase) has no window of its own. A window's figures leave
 * out its first second when it lasts 3 s or more (that second mixes two loads). A run without
 * --monitor gets no section. No SQL: r is read whole.
 *
 * Usage:
 *     rmon_section(out, r);      // inside the page opened by html_head
 */
#ifndef QUERN_RMON_H
#define QUERN_RMON_H

#include <stddef.h>
#include <stdio.h>

#include "reports/bneck.h"
#include "reports/query.h"

/** Most windows judged (a longer stage list is judged as the whole run). */
#define RMON_WINDOWS_MAX 256

/** One window of a run, measured. */
typedef struct rmon_window {
    double start_s, end_s; /**< from the run's start */
    bneck_window w;        /**< its figures (w.cpu_host borrowed from r) */
    enum bneck_kind kind;
    char why[320];
} rmon_window;

/** Measures and judges r's windows into out (at most max); returns how many. */
size_t rmon_windows(const query_run *r, rmon_window *out, size_t max);

/** Writes the section (nothing when r has no monitored host). */
void rmon_section(FILE *out, const query_run *r);

#endif

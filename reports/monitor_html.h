/* monitor_html — the report's section on the system under test: each --monitor
 * host's figures under the load charts, on the same time axis, and the
 * bottleneck signature of each step window (reports/bottleneck.h).
 *
 * What it is for: report_html.c calls monitor_html_section after its load charts. The
 * windows are the stages of the run's load as recorded (runs.req_stages),
 * or the whole run when it had none (or more than the windows asked for);
 * a stage of 0 s (a jump, as in a staircase) has no window of its own. A window's figures leave
 * out its first second when it lasts 3 s or more (that second mixes two loads). A run without
 * --monitor gets no section. No SQL: r is read whole.
 *
 * Usage:
 *     monitor_html_section(out, r);      // inside the page opened by html_head
 */
#ifndef QUERN_MONITOR_HTML_H
#define QUERN_MONITOR_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "reports/bottleneck.h"
#include "store/query.h"

/** Most windows judged (a longer stage list is judged as the whole run). */
#define MONITOR_HTML_WINDOWS_MAX 256

/** One window of a run, measured. */
typedef struct monitor_html_window {
    double start_s, end_s; /**< from the run's start */
    bottleneck_window w;   /**< its figures (w.cpu_host borrowed from r) */
    enum bottleneck_kind kind;
    char why[320];
} monitor_html_window;

/** Measures and judges r's windows into out (at most max); returns how many. */
size_t monitor_html_windows(const query_run *r, monitor_html_window *out, size_t max);

/** Writes the section (nothing when r has no monitored host). */
void monitor_html_section(FILE *out, const query_run *r);

#endif

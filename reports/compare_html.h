/* compare_html — the HTML page of a comparison of two runs.
 *
 * What it is for: `quern compare` writes, beside its text output, one
 * self-contained page: both runs' summaries and verdicts, the step table of
 * reports/cmp.h with each figure's delta and verdict, and both runs overlaid
 * on the same charts (reports/chart.h: throughput and p95 over the elapsed
 * time, A solid, B dashed, each run's saturated seconds shaded in its
 * colour). It reads no database.
 *
 * Usage:
 *     compare_html_page pg = {a, b, rows, nrows, thr, npts, width_s, note};
 *     compare_html_write(out, &pg);   // the caller checks ferror(out)
 */
#ifndef QUERN_COMPARE_HTML_H
#define QUERN_COMPARE_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "reports/compare_steps.h"
#include "store/query.h"

/** What the page shows. All borrowed. */
typedef struct compare_html_page {
    const query_run *a, *b;        /**< borrowed: the new run and the baseline */
    const compare_steps_row *rows; /**< borrowed: nrows, from compare_steps_match */
    size_t nrows;
    double thr;       /**< the significance threshold used, percent */
    size_t npts;      /**< points of the longer run */
    unsigned width_s; /**< seconds per point, the same for both runs */
    const char *note; /**< borrowed: compare_steps_load_note's, "" when none */
} compare_html_page;

/** Writes the page of pg to out. */
void compare_html_write(FILE *out, const compare_html_page *pg);

#endif

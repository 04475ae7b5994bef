/* little_chart — the report's section on Little's law: N against X * (R + Z) over
 * the run, and where the law breaks.
 *
 * What it is for: the report of every run (reports/report_html.h) shows, per
 * second (or per bucket of seconds on a long run, the sums added), the VUs
 * in the system N and what the law predicts from the runs, X * (R + Z)
 * (store/little.h), on one time chart; below it a line says how often the
 * law held within its tolerance and lists the first stretches of seconds
 * where it broke, with what that usually means. It reads no database.
 *
 * Usage:
 *     little_chart_section(out, rows, n, &r->sat);    // rows from little_load */
#ifndef QUERN_LITTLE_CHART_H
#define QUERN_LITTLE_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "reports/chart.h"
#include "store/little.h"

/** Most stretches of broken seconds named in the text. */
#define LITTLE_CHART_BREAKS_MAX 5

/** Writes the section (id "little") for the n seconds rows (sorted), the
 *  injector's saturated seconds sat (borrowed, NULL: none) shaded. */
void little_chart_section(FILE *out, const little_row *rows, size_t n, const shade *sat);

#endif

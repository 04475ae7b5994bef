/* injector_chart — the report's section on the injector's own load per
 * second: the seconds a worker did not keep up, counted and listed, and two
 * charts of the busiest worker's CPU and the worst event-loop lag.
 *
 * What it is for: the report of every run (reports/report_html.h) shows
 * whether quern kept up, beside the load, so that figures measured while it
 * did not are not taken for the server's. It reads no database: its rows
 * come from injector_load (store/injector.h).
 *
 * Usage:
 *     injector_chart_section(out, r->inj, r->ninj, &r->sat); */
#ifndef QUERN_INJECTOR_CHART_H
#define QUERN_INJECTOR_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "common/shade.h"
#include "store/injector.h"

/** Writes the section (id "injector"): the saturated seconds counted and
 *  listed as ranges, a chart of the busiest worker's CPU (%) and one of the
 *  worst loop lag (ms), bucketed to at most QUERY_POINTS_MAX points, the
 *  bands of sat (borrowed, NULL: none) shaded on both. Nothing for n 0. */
void injector_chart_section(FILE *out, const injector_row *rows, size_t n, const shade *sat);

#endif

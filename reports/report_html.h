/* report_html — the HTML page of one run's report.
 *
 * What it is for: turns a query_run (store/query.h) into one
 * self-contained page: summary, charts (inline SVG, reports/chart.h) of
 * throughput, response-time percentiles, errors and active VUs for the run
 * and for each step (every time chart shading the seconds the injector was
 * saturated, query_run.sat), then the step, agent, error and scenario tables and the
 * run's settings. Its verdict (store/runverdict.h) heads the page, with a
 * section listing each threshold's verdict; an abandoned or still running
 * run is said to be incomplete. The profiled server's section
 * (reports/profile_html.h) comes read beside r. It reads no database.
 *
 * Usage:
 *     report_html_write(out, r);    // the caller checks ferror(out)
 *     report_html_write_profile(out, r, prof);   // with its server's profile
 */
#ifndef QUERN_REPORT_HTML_H
#define QUERN_REPORT_HTML_H

#include <stdio.h>

#include "reports/profile_html.h"
#include "store/query.h"

/** Writes the HTML report of r to out. */
void report_html_write(FILE *out, const query_run *r);
/** The same with the section of prof (borrowed; NULL: none), r's profile
 *  read by profile_html_load. */
void report_html_write_profile(FILE *out, const query_run *r, const profile_html *prof);

#endif

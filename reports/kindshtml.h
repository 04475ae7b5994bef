/* kindshtml — the report's section of each step's errors by kind.
 *
 * What it is for: a run with 500s, 503s and timeouts shows each cause with
 * its count, first and last time and one example (URL, status, the start of
 * the body, trace id), and a chart of each kind's errors per second, so the
 * tester sees which cause came when (common/errkinds.h; the kinds of
 * r->kinds, store/kindseries.h).
 *
 * Usage: kindshtml_section(out, r) after the errors table. */
#ifndef QUERN_KINDSHTML_H
#define QUERN_KINDSHTML_H

#include <stdio.h>

#include "store/query.h"

#define KINDSHTML_CHART_MAX 8 /**< kinds a step's chart draws (the others are in the table) */

/** Writes the "Errors by kind" section of r (a line saying so when the run
 *  has none). */
void kindshtml_section(FILE *out, const query_run *r);

#endif

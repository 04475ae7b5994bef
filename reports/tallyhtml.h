/* tallyhtml — the report's section of the script's soft checks and custom
 * metrics (store/dbtally.h): a table of the checks (passes, fails, rate)
 * and one of the metrics (a counter's total and rate, a gauge's value, min
 * and max, a trend's count, mean, percentiles and max).
 *
 * Usage: tallyhtml_section(out, r) after the steps' table (r from
 * query_run_load); nothing for a run without checks or metrics. */
#ifndef QUERN_TALLYHTML_H
#define QUERN_TALLYHTML_H

#include <stdio.h>

#include "store/query.h"

/** Writes the "Checks and metrics" section of r, when it has any. */
void tallyhtml_section(FILE *out, const query_run *r);

#endif

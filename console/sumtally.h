/* sumtally — the script's soft checks and custom metrics in the end-of-run
 * summary: two tables after the steps' (Check: passes, fails, rate; Metric:
 * a counter's total and rate, a gauge's value, min and max, a trend's count,
 * mean and percentiles) and the JSON's "checks" and "metrics" arrays. */
#ifndef QUERN_SUMTALLY_H
#define QUERN_SUMTALLY_H

#include <stdio.h>

#include "console/agg.h"

struct json_t;

/** Prints the checks' and the metrics' tables of a's totals; nothing for a
 *  run without either. */
void sumtally_print(FILE *out, const agg *a);
/** Sets root's "checks" ([{name, passes, fails, pass_pct}]) and "metrics"
 *  ([{name, kind, ...}]): empty arrays for a run without them. */
void sumtally_json(struct json_t *root, const agg *a);
/** One check as JSON: {name, passes, fails, pass_pct}. New reference. */
struct json_t *sumtally_check_json(const tally_check *c);
/** One metric as JSON over elapsed_s seconds (a counter's rate): {name,
 *  kind, total, rate} (counter), {name, kind, value, min, max} (gauge, null
 *  never set), {name, kind, count, mean, min, p50, p90, p95, p99, max}
 *  (trend). New reference. */
struct json_t *sumtally_metric_json(const tally_metric *m, double elapsed_s);
/** The share of passes of a check, in percent (100 when it never ran). */
double sumtally_pass_pct(uint64_t passes, uint64_t fails);

#endif

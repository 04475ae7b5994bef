/* threshtally — thresholds on the script's soft checks and custom metrics
 * (checks>=99%, checks{NAME}>=99%, metric{NAME}.FIELD<N: the grammar is in
 * console/thresh.h), judged on the run's tally (agg.tally).
 *
 * thresh.c parses the expression and calls threshtally_parse_limit for a
 * metric's limit, and thresh_eval calls threshtally_eval for both kinds. */
#ifndef QUERN_THRESHTALLY_H
#define QUERN_THRESHTALLY_H

#include <stddef.h>

#include "console/agg.h"

struct thresh;
struct thresh_result;

/** Parses v, a metric threshold's limit (a finite number, in the script's
 *  unit), into t->limit_val; 0, or -1 with err. */
int threshtally_parse_limit(struct thresh *t, const char *v, char *err, size_t errlen);
/** Checks a THRESH_METRIC threshold against the metrics the script declares
 *  (decl: names and kinds) before the run: 0, or -1 with err ("'metric{x}>1':
 *  the script declares no metric x"; a field the metric's kind has not).
 *  Other thresholds: 0. */
int threshtally_check(const struct thresh *t, const tally *decl, char *err, size_t errlen);
/** Judges a THRESH_CHECKS or THRESH_METRIC threshold on a's tally into *out
 *  (elapsed_s for a counter's rate). A check or metric never recorded, a
 *  field the metric's kind does not have: failed, with why in desc. */
void threshtally_eval(const struct thresh *t, const agg *a, double elapsed_s,
                      struct thresh_result *out);

#endif

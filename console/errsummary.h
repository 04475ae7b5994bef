/* errsummary — a run's errors by kind (common/errkinds.h) in the end summary
 * and in the --summary-json file.
 *
 * The summary lists, under the step table, each step's ERRSUMMARY_TOP kinds
 * with the most errors ("and N more" for the rest); the JSON lists them all
 * (tests[i].errors.kinds). */
#ifndef QUERN_ERRSUMMARY_H
#define QUERN_ERRSUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "common/errkinds.h"
#include "common/stats.h"

struct json_t;

#define ERRSUMMARY_TOP 5 /**< kinds of a step the end summary lists */

/** Prints the kinds of each of the nsteps steps that has errors: a header line, then per
 *  step its id and its top rows (count, class, code, message, an example's
 *  URL and trace id), times relative to started_us (epoch us, 0: unknown).
 *  Nothing when no step has a kind. */
void errsummary_print(FILE *out, const step_stats *steps, const char *const *step_ids,
                      size_t nsteps, int64_t started_us);

/** The kinds of t as a JSON array of {class, code, message, count, first,
 *  last, example{url, status, body, trace_id}} (first and last: epoch ms),
 *  by count; an empty array for NULL. Owned by the caller. */
struct json_t *errsummary_json(const errkinds *t);

#endif

/* verdict — a recorded run's verdict, as the results views show it.
 *
 * What it is for: `quern runs`, `quern report` and `quern compare` say
 * whether a run passed, and if not why, in the same words. The verdict of a
 * run is, in this order:
 *   - "running" while it runs, "failed: abandoned" when its console went
 *     away (reports/abandon.h): it has no verdict of its own;
 *   - "failed: EXPR, EXPR" when thresholds failed (table thresholds);
 *   - "failed: REASON" when the console recorded that the run failed
 *     (runs.verdict, db_run_verdict), "passed" when it recorded a pass;
 *   - else (a run from an older quern): "failed: aborted" / "failed:
 *     degraded" by its status; with no threshold, "failed: N errors" when
 *     it had errors and "failed: no sample" when nothing completed (the
 *     rule the console now applies); else "passed".
 * The text is shortened to a width: "failed: p95<500ms +2 more".
 *
 * Usage:
 *     verdict v;
 *     verdict_in in = {.status = status, ...};   // or verdict_load
 *     verdict_decide(&in, 40, &v);  printf("%s", v.text);
 */
#ifndef QUERN_VERDICT_H
#define QUERN_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "reports/db.h"

/** Longest verdict text kept (bytes, with its NUL). */
#define VERDICT_TEXT_MAX 512
/** Most failed thresholds named in a verdict. */
#define VERDICT_FAILED_MAX 16

/** What a verdict is. */
enum verdict_kind {
    VERDICT_PASSED = 0,
    VERDICT_FAILED, /**< a threshold or a rule failed, or the run is abandoned */
    VERDICT_PENDING /**< still running: no verdict yet */
};

/** What decides a run's verdict. All borrowed. */
typedef struct verdict_in {
    const char *status;         /**< status, "abandoned" when judged so */
    const char *verdict;        /**< runs.verdict: "passed", "failed" or NULL */
    const char *verdict_reason; /**< runs.verdict_reason; may be NULL */
    size_t nthresholds;         /**< thresholds recorded */
    const char *const *failed;  /**< expressions of the failed thresholds: the first
                                     min(nfailed, VERDICT_FAILED_MAX) of them */
    size_t nfailed;             /**< thresholds that failed */
    uint64_t count, errors;     /**< samples and errors of the run, all steps */
} verdict_in;

/** A run's verdict. */
typedef struct verdict {
    enum verdict_kind kind;
    char text[VERDICT_TEXT_MAX]; /**< "passed", "failed: ...", "running" */
} verdict;

/** Decides the verdict of in (rules above), its text cut to width bytes
 *  (0: VERDICT_TEXT_MAX - 1) by naming fewer thresholds ("+N more"). */
void verdict_decide(const verdict_in *in, size_t width, verdict *v);

/** Reads what decides the verdict of run id (its verdict columns and its
 *  thresholds) and decides it, with status (the row's, or "abandoned") and
 *  the run's count and errors. 0, or -1 with err set. */
int verdict_load(db *d, int64_t id, const char *status, uint64_t count, uint64_t errors,
                 size_t width, verdict *v, char *err, size_t errlen);

#endif

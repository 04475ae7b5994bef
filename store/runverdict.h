/* runverdict — a recorded run's verdict, as the results views show it.
 *
 * What it is for: `quern runs`, `quern report` and `quern compare` say
 * whether a run passed, and if not why, in the same words. The verdict of a
 * run is, in this order:
 *   - "running" while it runs, "failed: abandoned" when its console went
 *     away (store/abandon.h): it has no verdict of its own;
 *   - "failed: EXPR, EXPR" when thresholds failed (table thresholds);
 *   - "failed: REASON" when the console recorded that the run failed
 *     (runs.verdict, db_run_verdict; a REASON that is the console's own
 *     "failed: ..." or "inconclusive: ..." line is shown as it is), "passed"
 *     when it recorded a pass;
 *   - else (a run from an older quern): "failed: aborted" / "failed:
 *     degraded" by its status; with no threshold, "failed: N errors" when
 *     it had errors and "failed: no sample" when nothing completed (the
 *     rule the console now applies); else "passed".
 * The text is shortened to a width: "failed: p95<500ms +2 more".
 *
 * Usage:
 *     runverdict v;
 *     runverdict_in in = {.status = status, ...};   // or runverdict_load
 *     runverdict_decide(&in, 40, &v);  printf("%s", v.text);
 */
#ifndef QUERN_RUNVERDICT_H
#define QUERN_RUNVERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/** Longest verdict text kept (bytes, with its NUL). */
#define RUNVERDICT_TEXT_MAX 512
/** Most failed thresholds named in a verdict. */
#define RUNVERDICT_FAILED_MAX 16

/** What a verdict is. */
enum runverdict_kind {
    RUNVERDICT_PASSED = 0,
    RUNVERDICT_FAILED, /**< a threshold or a rule failed, or the run is abandoned */
    RUNVERDICT_PENDING /**< still running: no verdict yet */
};

/** What decides a run's verdict. All borrowed. */
typedef struct runverdict_in {
    const char *status;         /**< borrowed: status, "abandoned" when judged so */
    const char *verdict;        /**< borrowed: runs.verdict: "passed", "failed" or NULL */
    const char *verdict_reason; /**< borrowed: runs.verdict_reason; may be NULL */
    size_t nthresholds;         /**< thresholds recorded */
    const char *const *failed;  /**< borrowed: expressions of the failed thresholds, the
                                     first min(nfailed, RUNVERDICT_FAILED_MAX) of them */
    size_t nfailed;             /**< thresholds that failed */
    uint64_t count, errors;     /**< samples and errors of the run, all steps */
} runverdict_in;

/** A run's verdict. */
typedef struct runverdict {
    enum runverdict_kind kind;
    char text[RUNVERDICT_TEXT_MAX]; /**< "passed", "failed: ...", "running" */
} runverdict;

/** Decides the verdict of in (rules above), its text cut to width bytes
 *  (0: RUNVERDICT_TEXT_MAX - 1) by naming fewer thresholds ("+N more"). */
void runverdict_decide(const runverdict_in *in, size_t width, runverdict *v);

/** Reads what decides the verdict of run id (its verdict columns and its
 *  thresholds) and decides it, with status (the row's, or "abandoned") and
 *  the run's count and errors. 0, or -1 with err set. */
int runverdict_load(db *d, int64_t id, const char *status, uint64_t count, uint64_t errors,
                    size_t width, runverdict *v, char *err, size_t errlen);

#endif

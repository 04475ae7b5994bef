/* verdict — whether a run passes, and which rule decided.
 *
 * What it is for: a build step judges a load test by its exit status and its
 * JUnit file, so a run must never be green on failed requests, on a script
 * bug or on a run in which nothing completed. The rules, in this order (the
 * first that applies decides):
 *   1. the run was aborted (a second Ctrl-C, an agent aborted it): exit 3;
 *   2. --abort-on-fail stopped it: exit 1;
 *   3. a threshold failed: exit 1. Beside the thresholds of the command line
 *      and the script, two default ones are added (source VERDICT_DEFAULT):
 *      "errors<=0%" when no threshold is about errors and --allow-errors is
 *      not given (any error fails the run, as Locust's default does), and
 *      "count>=1" when the script has steps (a run with no sample is not a
 *      pass);
 *   4. the run is degraded (an agent or a worker lost, results not recorded):
 *      exit 1, 0 with --allow-agent-loss when only agents or workers were
 *      lost;
 *   5. no step and no run completed: exit 1;
 *   6. otherwise it passed: exit 0 (also for a run stopped with Ctrl-C).
 *
 * Usage: verdict_defaults() once the script's thresholds are known, to get
 * the default expressions to add; verdict_decide() at the end of the run. */
#ifndef QUERN_VERDICT_H
#define QUERN_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "console/thresh.h"

/** The source of the default thresholds (stored and shown as such). */
#define VERDICT_DEFAULT "default"
/** Length of verdict.why. */
#define VERDICT_WHY_MAX 768

/** The default threshold expressions a run gets besides ts (the nt
 *  thresholds of the command line and the script): at most two, written to
 *  exprs (static strings); returns how many. nsteps: steps the script
 *  declares. */
size_t verdict_defaults(const thresh *const *ts, size_t nt, int allow_errors, size_t nsteps,
                        const char *exprs[2]);

/** What the end of a run tells the verdict. */
typedef struct verdict_in {
    int aborted;                /**< a second Ctrl-C, or an agent aborted its run */
    int threshold_stop;         /**< --abort-on-fail stopped the run */
    int degraded;               /**< an agent or a worker lost, or results not recorded */
    int allow_loss;             /**< --allow-agent-loss */
    int loss_only;              /**< degraded only by lost agents or workers */
    const char *why_degraded;   /**< borrowed: what degraded the run, "" or NULL */
    const thresh *const *ts;    /**< borrowed: nt thresholds, defaults included */
    const thresh_result *rs;    /**< borrowed: their verdicts */
    const char *const *sources; /**< borrowed: "cli", "file:line", VERDICT_DEFAULT; may be NULL */
    size_t nt;
    uint64_t samples; /**< step samples completed */
    uint64_t runs;    /**< VU runs completed */
} verdict_in;

/** The verdict: the exit status and one line for people. */
typedef struct verdict {
    int passed;                /**< 1 when the run passed */
    int rc;                    /**< exit status (console/run.h's run_exit) */
    char why[VERDICT_WHY_MAX]; /**< "failed: threshold p95<500ms: p95 = ..." */
} verdict;

/** Applies the rules above to in. */
void verdict_decide(const verdict_in *in, verdict *out);

#endif

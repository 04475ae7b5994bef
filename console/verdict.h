/* verdict — whether a run passes, and which rule decided.
 *
 * What it is for: a build step judges a load test by its exit status and its
 * JUnit file, so a run must never be green on failed requests, on a script
 * bug or on a run in which nothing completed. The rules, in this order (the
 * first that applies decides):
 *   1. the run was aborted (a second Ctrl-C, an agent aborted it): exit 3;
 *   2. --abort-on-fail stopped it: exit 1;
 *   3. stopped: a signal (SIGTERM from a CI job's cancel or timeout, SIGINT
 *      from Ctrl-C) ended the load before its planned end: exit 1, whatever
 *      the figures so far say, so that a cancelled build is never green;
 *      with --stopped-ok the run is judged by the rules below on what it
 *      did;
 *   4. a threshold failed: exit 1. When the evidence says quern's own delay
 *      made it fail (console/blame.h: the same threshold on the service
 *      times passes, and quern's own start lag explains the gap), the run
 *      is inconclusive instead (exit 1), and with --allow-saturation it is
 *      failed as usual with that said. Beside the thresholds of the command line
 *      and the script, two default ones are added (source VERDICT_DEFAULT):
 *      "errors<=0%" when no threshold is about errors and --allow-errors is
 *      not given (any error fails the run, as Locust's default does), and
 *      "count>=1" when the script has steps (a run with no sample is not a
 *      pass);
 *   5. the run is degraded (an agent or a worker lost, results not recorded):
 *      exit 1, 0 with --allow-agent-loss when only agents or workers were
 *      lost;
 *   6. no step and no run completed: exit 1;
 *   7. inconclusive: the injector was saturated in more than
 *      VERDICT_SATURATED_MAX of the measured seconds, and in at least
 *      VERDICT_SATURATED_MIN_S of them or clearly in one (one marginal
 *      second never decides: verdict_saturated, common/saturation.h's
 *      saturation_clear), its figures then being quern's own limit, not
 *      the server's: exit 1; with --allow-saturation the run is judged as
 *      usual, the warning in its reason and verdict.allowed set;
 *   8. inconclusive: more than VERDICT_UNDELIVERED_MAX of the load asked was
 *      not sent (dropped arrivals, the slot time missed pacing lost, VUs
 *      that never started: console/delivery.h): exit 1;
 *   9. otherwise it passed: exit 0.
 * A failed threshold (4) while the injector was saturated says both.
 * The console's own saturated seconds (console/selfload.h) are not rule 7:
 * the console times no request, so past the same share it is a warning line
 * under the verdict; what it lost (an agent silent too long) is rule 5.
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
/** The share of the measured seconds in which the injector may be
 *  saturated before the run is inconclusive: one second in twenty, so that
 *  a start or an end spike of one second does not decide a short run. */
#define VERDICT_SATURATED_MAX 0.05
/** ... and the fewest saturated seconds that may decide it: one marginal
 *  second (a loop 51 ms late once) is no evidence. */
#define VERDICT_SATURATED_MIN_S 2
/** The share of the load asked that may go unsent before the run is
 *  inconclusive: a few arrivals lost at a stage's edge, not a pool too small. */
#define VERDICT_UNDELIVERED_MAX 0.02
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
    int stopped;                /**< a signal ended the load before its planned end */
    int stopped_ok;             /**< --stopped-ok: rule 3 does not apply */
    const char *why_stopped;    /**< borrowed: "SIGTERM at 3.0 s of 20 s", "" or NULL */
    int degraded;               /**< an agent or a worker lost, or results not recorded */
    int allow_loss;             /**< --allow-agent-loss */
    int loss_only;              /**< degraded only by lost agents or workers */
    const char *why_degraded;   /**< borrowed: what degraded the run, "" or NULL */
    const thresh *const *ts;    /**< borrowed: nt thresholds, defaults included */
    const thresh_result *rs;    /**< borrowed: their verdicts */
    const char *const *sources; /**< borrowed: "cli", "file:line", VERDICT_DEFAULT; may be NULL */
    size_t nt;
    uint64_t samples;            /**< step samples completed */
    uint64_t runs;               /**< VU runs completed */
    uint64_t saturated_s;        /**< measured seconds with the injector saturated */
    uint64_t clear_s;            /**< of them, those it was clearly saturated in */
    uint64_t measured_s;         /**< measured seconds */
    const char *why_saturated;   /**< borrowed: where and by what ("agent a, worker 0: CPU
                                      100 %, loop lag 280 ms"), "" or NULL */
    int allow_saturation;        /**< --allow-saturation: a warning, not the verdict */
    int blame_injector;          /**< the first failed threshold failed on quern's own delay
                                      (console/blame.h) */
    const char *why_blame;       /**< borrowed: the evidence of the first failed response-time
                                      threshold (blame.why), "" or NULL */
    double undelivered_share;    /**< the load asked that was not sent, 0..1 */
    const char *why_undelivered; /**< borrowed: how much and why ("96 of 120 arrivals
                                      dropped: the pool of 3 VUs was too small"), "" or NULL */
} verdict_in;

/** The verdict: the exit status and one line for people. */
typedef struct verdict {
    int passed;                /**< 1 when the run passed */
    int inconclusive;          /**< 1 when rule 4 (quern's delay), 7 or 8 decided (passed is
                                    then 0) */
    int allowed;               /**< 1 when --allow-saturation judged as usual a run that would
                                    have been inconclusive by rule 4 or 7 */
    int rc;                    /**< exit status (console/runcmd.h's run_exit) */
    char why[VERDICT_WHY_MAX]; /**< "failed: threshold p95<500ms: p95 = ..." */
} verdict;

/** 1 when saturated_s of measured_s seconds are past VERDICT_SATURATED_MAX
 *  of them, and they are at least VERDICT_SATURATED_MIN_S or clear_s of
 *  them (clearly saturated) at least one: rule 7's test, for the JUnit case,
 *  the reason of the load not sent and a capacity step's too. */
int verdict_saturated(uint64_t saturated_s, uint64_t clear_s, uint64_t measured_s);

/** Applies the rules above to in. */
void verdict_decide(const verdict_in *in, verdict *out);

#endif

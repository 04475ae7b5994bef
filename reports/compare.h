/* compare — `quern compare [A [B]] [--db F] [-o FILE] [--fail-on-regression P%]`.
 *
 * What it is for: telling whether a new run (A) is better or worse than a
 * baseline run (B), step by step, and failing a CI build on a regression.
 * A defaults to the latest run, B to the latest passed run before A with
 * A's name that no comparison found regressed (--baseline last-passed; or
 * a RUN_ID, or tag:KEY[=VALUE]); --baselines N takes the N latest such.
 * Steps are matched by their test id (SC-<scenario>-STEP-<n>).
 *
 * For each step it prints both runs' TPS, mean, p50, p95, p99 and error
 * rate with their deltas, and a verdict: worse, better, or no significant
 * change. A change is significant when:
 *   - TPS, mean, p50, p95, p99: the relative change is beyond the threshold
 *     (COMPARE_THRESHOLD_DEFAULT %, or --fail-on-regression's value) and,
 *     for latencies, the absolute change is also beyond
 *     COMPARE_LATENCY_FLOOR_US (timer noise of sub-millisecond responses);
 *   - error rate: it moved by more than COMPARE_ERROR_POINTS percentage
 *     points.
 * A step is worse when any of its figures is significantly worse (higher
 * latency or error rate, lower TPS), better when none is worse and one is
 * better. A change past those rules must also be beyond the noise
 * (reports/compare_steps.h's compare_steps_noise, reports/noise.h): the
 * 95 % interval of the shift of A's per-second figures over the
 * baselines' (their seconds pooled), relative to the baselines' median
 * second, must lie past the threshold on its side, and with
 * several baselines A's whole-run figure beyond all of theirs (the spread
 * of the unchanged system from run to run); otherwise it is "within
 * noise", no significant change. A step with fewer than
 * NOISE_SECONDS_MIN seconds a side has no interval and keeps the first
 * rules' verdict. With --fail-on-regression, a regressed A is marked so in
 * the database (store/catalog.h): no default baseline from then on.
 * A step with fewer than COMPARE_SAMPLES_MIN samples in either run,
 * or found in one run only, gets no verdict (its percentiles would be noise).
 *
 * Both runs' verdicts (store/runverdict.h) are shown, and when the runs were
 * asked for different loads (VUs, duration, ramp-up, runs per VU) a note
 * says so beside each step verdict: "worse (note: A ran 50 VUs, B 100)". A
 * run still running or abandoned (store/abandon.h) is not judged step by
 * step, and the default baseline skips such runs.
 *
 * It also writes an HTML page with the same table and both runs overlaid on
 * the same charts (throughput and p95 over the elapsed time, A solid, B
 * dashed). Both runs are bucketed with the same width so their points line
 * up.
 *
 * The comparison itself is reports/compare_steps.h, the page reports/compare_html.h; this
 * file is the command: its options beside their help, and the text output.
 *
 * Exit status (enum compare_exit): 0 no step worse (or no
 * --fail-on-regression); 1 with --fail-on-regression, a step is worse; 2
 * usage error (unknown run, no baseline); 3 the database cannot be read or
 * the page cannot be written. */
#ifndef QUERN_COMPARE_H
#define QUERN_COMPARE_H

#include <stdio.h>

/** Relative change (percent) beyond which TPS and latency changes are
 *  significant when no --fail-on-regression is given. */
#define COMPARE_THRESHOLD_DEFAULT 5.0
/** Latency changes of at most this much (microseconds) are never
 *  significant. */
#define COMPARE_LATENCY_FLOOR_US 500.0
/** Error-rate changes of at most this many percentage points are never
 *  significant. */
#define COMPARE_ERROR_POINTS 0.5

/** Most baselines of --baselines. */
#define COMPARE_BASELINES_MAX 20

/** Fewest samples of a step, in each run, for it to get a verdict. */
#define COMPARE_SAMPLES_MIN 20

/** Exit statuses of quern compare (its help says them too). */
enum compare_exit {
    COMPARE_EXIT_OK = 0,    /**< no step worse, or no --fail-on-regression */
    COMPARE_EXIT_WORSE = 1, /**< --fail-on-regression: a step is worse, or the capacity fell */
    COMPARE_EXIT_USAGE = 2, /**< a usage error, an unknown run, no baseline */
    COMPARE_EXIT_ERROR = 3, /**< the database cannot be read or the page cannot be written */
};

/** Runs the command; argv[0] is "compare". Returns an enum compare_exit. */
int compare_main(int argc, char **argv);
/** Prints the command's help. */
void compare_usage(FILE *out);

#endif

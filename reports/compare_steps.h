/* compare_steps — the comparison of two runs, step by step: the model `quern compare`
 * prints and draws.
 *
 * What it is for: matches the steps of a new run (A) with a baseline (B) by
 * test id, and judges each figure (TPS, mean, p50, p95, p99, error rate) and
 * each step: worse, better or no significant change, by the rules and
 * constants of reports/compare.h. A run still running or abandoned gives no
 * verdict. The text output (compare.c) and the HTML page (reports/compare_html.h)
 * show the same rows.
 *
 * Usage:
 *     size_t n;
 *     compare_steps_row *rows = compare_steps_match(a, b, threshold_pct,
 * compare_steps_incomplete_why(a, b, buf, len), &n);
 *     ... rows[i].overall == COMPARE_STEPS_WORSE,
 * compare_steps_verdict_text[rows[i].v[COMPARE_STEPS_P95]] ... xfree(rows);
 */
#ifndef QUERN_COMPARE_STEPS_H
#define QUERN_COMPARE_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "reports/noise.h"
#include "store/query.h"

/** The figures compared, in the table's order. */
enum compare_steps_metric {
    COMPARE_STEPS_TPS,
    COMPARE_STEPS_MEAN,
    COMPARE_STEPS_P50,
    COMPARE_STEPS_P95,
    COMPARE_STEPS_P99,
    COMPARE_STEPS_ERR,
    COMPARE_STEPS_COUNT
};
/** A figure's (or a step's) verdict. */
enum compare_steps_verdict {
    COMPARE_STEPS_NA,
    COMPARE_STEPS_SAME,
    COMPARE_STEPS_BETTER,
    COMPARE_STEPS_WORSE
};

/** One step of A matched with the same step of B (either may be NULL). */
typedef struct compare_steps_row {
    const query_step *a, *b; /* borrowed */
    double va[COMPARE_STEPS_COUNT], vb[COMPARE_STEPS_COUNT];
    enum compare_steps_verdict v[COMPARE_STEPS_COUNT];
    enum compare_steps_verdict overall;
    const char *na_why; /* borrowed (static or the caller's): why no verdict, over na_reason */
    /* compare_steps_noise: the shift of A's seconds over the baselines' */
    noise_ci ci[COMPARE_STEPS_COUNT];
    int ci_ok[COMPARE_STEPS_COUNT]; /* 1: ci holds an interval (enough seconds on each side) */
    int noisy[COMPARE_STEPS_COUNT]; /* 1: a change past the threshold, within the noise */
    double blo[COMPARE_STEPS_COUNT], bhi[COMPARE_STEPS_COUNT]; /* the baselines' whole-run
                                                                  figures, lowest and highest */
    size_t nbases; /* baselines the range spans (1: B alone) */
} compare_steps_row;

/** Column heading of each figure ("p95 ms"). */
extern const char *const compare_steps_metric_name[COMPARE_STEPS_COUNT];
/** Short name of each figure ("p95"). */
extern const char *const compare_steps_metric_short[COMPARE_STEPS_COUNT];
/** Words of each verdict ("no significant change"). */
extern const char *const compare_steps_verdict_text[4];
/** CSS class of each verdict ("worse"). */
extern const char *const compare_steps_verdict_class[4];

/** The rows: A's steps in order, then B's steps A does not have. A run that
 * is not complete (running, abandoned) gives no verdict: why says so. */
compare_steps_row *compare_steps_match(const query_run *a, const query_run *b, double thr,
                                       const char *why, size_t *n);

/** "A ran 50 VUs, B 100; ..." when the runs were asked for different loads
 * (VUs, duration, ramp-up, runs per VU; those an older quern did not
 * record are not compared), else "". */
const char *compare_steps_load_note(const query_run *a, const query_run *b, char *buf, size_t len);

/** Why the runs cannot be compared step by step (NULL: they can). */
const char *compare_steps_incomplete_why(const query_run *a, const query_run *b, char *buf,
                                         size_t len);

/** A metric's value for display: ms for latencies, else as it is. */
const char *compare_steps_fmt_metric(enum compare_steps_metric m, double v, char *buf, size_t len);

/** The delta of m: relative for TPS and latency, in points for errors. */
const char *compare_steps_fmt_delta(enum compare_steps_metric m, double a, double b, char *buf,
                                    size_t len);

/** Judges each change of rows (n, compare_steps_match's of a against
 *  bases[0] at the threshold thr, %) again against the noise, the rule of
 *  reports/compare.h: a worse or better TPS, mean or percentile stays so
 *  only when the 95 % interval of the shift of A's per-second figures over
 *  the baselines' (every one of the nbases, their seconds pooled;
 *  reports/noise.h), relative to the baselines' median second, lies past
 *  the threshold on its side (the change is beyond it with 95 %
 *  confidence), and, with several baselines, A's whole-run figure
 *  lies beyond theirs (the unchanged system's spread from run to run);
 *  otherwise it is no significant change, noted within the noise. A step
 *  with fewer than NOISE_SECONDS_MIN seconds on a side keeps its verdict,
 *  with no interval. */
void compare_steps_noise(compare_steps_row *rows, size_t n, const query_run *a,
                         const query_run *const *bases, size_t nbases, double thr);

/** What the noise says of figure m of row, into buf (len bytes): "" when it
 *  neither changed nor was within the noise, else "within noise" when it
 *  was, then "(95 % interval -0.6% to +36.4% over 5 and 10 s)" (or why
 *  there is none) and, with several baselines, "(the 3 baselines: 21.4 to
 *  22.3)". Returns buf. */
const char *compare_steps_fmt_noise(const compare_steps_row *row, int m, char *buf, size_t len);

/** The step id of a row (from A, else B). */
const char *compare_steps_row_id(const compare_steps_row *row);

/** The step label of a row (from A, else B). */
const char *compare_steps_row_label(const compare_steps_row *row);

/** The WebSocket messages (sent and received) per second of each run's
 *  duration of the row's step, into *ma (A, the new run) and *mb (B); 1 when
 *  either step has messages, else 0. Shown beside the figures, not judged:
 *  how many messages a step exchanges is the script's choice. */
int compare_steps_row_messages(const compare_steps_row *row, const query_run *a, const query_run *b,
                               double *ma, double *mb);

/** Why a row has no verdict. */
const char *compare_steps_na_reason(const compare_steps_row *row);

#endif

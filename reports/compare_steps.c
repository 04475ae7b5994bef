#include "reports/compare_steps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/dur.h"
#include "common/lbuf.h"
#include "common/mem.h"
#include "reports/compare.h"
#include "reports/html.h"

const char *const compare_steps_metric_name[COMPARE_STEPS_COUNT] = {
    "TPS", "mean ms", "p50 ms", "p95 ms", "p99 ms", "errors %"};
const char *const compare_steps_metric_short[COMPARE_STEPS_COUNT] = {"TPS", "mean", "p50",
                                                                     "p95", "p99",  "errors"};
const char *const compare_steps_verdict_text[] = {"not comparable", "no significant change",
                                                  "better", "worse"};
const char *const compare_steps_verdict_class[] = {"same", "same", "better", "worse"};

static double metric_value(const query_step *s, enum compare_steps_metric m)
{
    switch (m) {
    case COMPARE_STEPS_TPS:
        return s->tps;
    case COMPARE_STEPS_MEAN:
        return s->mean_us;
    case COMPARE_STEPS_P50:
        return (double)s->p50_us;
    case COMPARE_STEPS_P95:
        return (double)s->p95_us;
    case COMPARE_STEPS_P99:
        return (double)s->p99_us;
    case COMPARE_STEPS_ERR:
        return s->count > 0 ? 100.0 * (double)(s->err_tech + s->err_func) / (double)s->count : 0;
    default:
        return 0;
    }
}

/* Whether a (new) against b (baseline) is a significant change of m. */
static enum compare_steps_verdict judge(enum compare_steps_metric m, double a, double b, double thr)
{
    double rel;

    if (m == COMPARE_STEPS_ERR) {
        if (fabs(a - b) <= COMPARE_ERROR_POINTS)
            return COMPARE_STEPS_SAME;
        return a > b ? COMPARE_STEPS_WORSE : COMPARE_STEPS_BETTER;
    }
    if (!(b > 0))
        return a > 0 && m == COMPARE_STEPS_TPS ? COMPARE_STEPS_BETTER : COMPARE_STEPS_NA;
    rel = (a - b) / b * 100.0;
    if (fabs(rel) <= thr)
        return COMPARE_STEPS_SAME;
    if (m == COMPARE_STEPS_TPS)
        return rel > 0 ? COMPARE_STEPS_BETTER : COMPARE_STEPS_WORSE;
    if (fabs(a - b) <= COMPARE_LATENCY_FLOOR_US)
        return COMPARE_STEPS_SAME;
    return rel > 0 ? COMPARE_STEPS_WORSE : COMPARE_STEPS_BETTER;
}

static void judge_row(compare_steps_row *row, double thr)
{
    int worse = 0, better = 0;

    row->overall = COMPARE_STEPS_NA;
    if (row->a == NULL || row->b == NULL || row->a->count < COMPARE_SAMPLES_MIN ||
        row->b->count < COMPARE_SAMPLES_MIN)
        return;
    for (int m = 0; m < COMPARE_STEPS_COUNT; m++) {
        row->va[m] = metric_value(row->a, m);
        row->vb[m] = metric_value(row->b, m);
        row->v[m] = judge(m, row->va[m], row->vb[m], thr);
        worse |= row->v[m] == COMPARE_STEPS_WORSE;
        better |= row->v[m] == COMPARE_STEPS_BETTER;
    }
    row->overall = worse ? COMPARE_STEPS_WORSE : better ? COMPARE_STEPS_BETTER : COMPARE_STEPS_SAME;
}

compare_steps_row *compare_steps_match(const query_run *a, const query_run *b, double thr,
                                       const char *why, size_t *n)
{
    compare_steps_row *rows = xcalloc(a->nsteps + b->nsteps + 1, sizeof(*rows));
    size_t k = 0;

    for (size_t i = 0; i < a->nsteps; i++) {
        if (!query_step_shown(&a->steps[i]))
            continue;
        rows[k].a = &a->steps[i];
        for (size_t j = 0; j < b->nsteps; j++)
            if (query_step_shown(&b->steps[j]) &&
                strcmp(a->steps[i].test_id, b->steps[j].test_id) == 0) {
                rows[k].b = &b->steps[j];
                break;
            }
        judge_row(&rows[k++], thr);
    }
    for (size_t j = 0; j < b->nsteps; j++) {
        int found = !query_step_shown(&b->steps[j]);
        for (size_t i = 0; i < a->nsteps && !found; i++)
            found = query_step_shown(&a->steps[i]) &&
                    strcmp(a->steps[i].test_id, b->steps[j].test_id) == 0;
        if (found)
            continue;
        rows[k].b = &b->steps[j];
        judge_row(&rows[k++], thr);
    }
    *n = k;
    for (size_t i = 0; why != NULL && i < k; i++) {
        rows[i].overall = COMPARE_STEPS_NA;
        rows[i].na_why = why;
    }
    return rows;
}

/* Appends "; " (unless first) and the formatted text to buf. */
static void note_add(char *buf, size_t len, const char *fmt, const char *x, const char *y)
{
    size_t n = strlen(buf);

    if (n > 0 && n + 2 < len) {
        snprintf(buf + n, len - n, "; ");
        n += 2;
    }
    if (n < len)
        snprintf(buf + n, len - n, fmt, x, y);
}

/* A requested duration: "2 min 00 s", or "none" for 0. */
static const char *compare_steps_dur_or_none(int64_t us, char *buf, size_t len)
{
    if (us > 0)
        return dur_prose(us, buf, len);
    snprintf(buf, len, "none");
    return buf;
}

const char *compare_steps_load_note(const query_run *a, const query_run *b, char *buf, size_t len)
{
    char x[48], y[48];

    buf[0] = '\0';
    if (a->vus != b->vus) {
        snprintf(x, sizeof(x), "%lld", (long long)a->vus);
        snprintf(y, sizeof(y), "%lld", (long long)b->vus);
        note_add(buf, len, "A ran %s VUs, B %s", x, y);
    }
    if (a->req_duration_us >= 0 && b->req_duration_us >= 0 &&
        a->req_duration_us != b->req_duration_us)
        note_add(buf, len, "A's duration %s, B's %s",
                 compare_steps_dur_or_none(a->req_duration_us, x, sizeof(x)),
                 compare_steps_dur_or_none(b->req_duration_us, y, sizeof(y)));
    if (a->req_ramp_up_us >= 0 && b->req_ramp_up_us >= 0 && a->req_ramp_up_us != b->req_ramp_up_us)
        note_add(buf, len, "A's ramp-up %s, B's %s",
                 compare_steps_dur_or_none(a->req_ramp_up_us, x, sizeof(x)),
                 compare_steps_dur_or_none(b->req_ramp_up_us, y, sizeof(y)));
    if (a->req_runs >= 0 && b->req_runs >= 0 && a->req_runs != b->req_runs) {
        snprintf(x, sizeof(x), "%lld", (long long)a->req_runs);
        snprintf(y, sizeof(y), "%lld", (long long)b->req_runs);
        note_add(buf, len, "A's runs per VU %s, B's %s", x, y);
    }
    /* a NULL stages column is no stages for a run of this schema: compare
     * only when either run has them */
    if ((a->req_stages != NULL || b->req_stages != NULL) &&
        (a->req_stages == NULL || b->req_stages == NULL ||
         strcmp(a->req_stages, b->req_stages) != 0))
        note_add(buf, len, "A's stages %.60s, B's %.60s",
                 a->req_stages != NULL ? a->req_stages : "none",
                 b->req_stages != NULL ? b->req_stages : "none");
    return buf;
}

const char *compare_steps_incomplete_why(const query_run *a, const query_run *b, char *buf,
                                         size_t len)
{
    const query_run *r = query_run_incomplete(a) ? a : query_run_incomplete(b) ? b : NULL;

    if (r == NULL)
        return NULL;
    snprintf(buf, len, "not compared: run %lld (%s) is %s, not a complete run", (long long)r->id,
             r == a ? "A" : "B", r->abandoned ? "abandoned" : "still running");
    return buf;
}

const char *compare_steps_fmt_metric(enum compare_steps_metric m, double v, char *buf, size_t len)
{
    if (m >= COMPARE_STEPS_MEAN && m <= COMPARE_STEPS_P99)
        return html_ms(v, buf, len);
    if (m == COMPARE_STEPS_ERR) {
        snprintf(buf, len, "%.2f", v);
        return buf;
    }
    return html_num(v, buf, len);
}

const char *compare_steps_fmt_delta(enum compare_steps_metric m, double a, double b, char *buf,
                                    size_t len)
{
    if (m == COMPARE_STEPS_ERR)
        snprintf(buf, len, "%+.2f pt", a - b);
    else if (b > 0)
        snprintf(buf, len, "%+.1f%%", (a - b) / b * 100.0);
    else
        snprintf(buf, len, "-");
    return buf;
}

const char *compare_steps_row_id(const compare_steps_row *row)
{
    return row->a != NULL ? row->a->test_id : row->b->test_id;
}

const char *compare_steps_row_label(const compare_steps_row *row)
{
    return row->a != NULL ? row->a->label : row->b->label;
}

const char *compare_steps_na_reason(const compare_steps_row *row)
{
    if (row->na_why != NULL)
        return row->na_why;
    if (row->b == NULL)
        return "new step (not in the baseline)";
    if (row->a == NULL)
        return "not in the new run";
    return "too few samples to compare";
}

static double msg_rate(const query_run *r, const query_step *s)
{
    int64_t dur = r->duration_us > 0 ? r->duration_us : r->elapsed_us;

    if (s == NULL || dur <= 0)
        return 0;
    return (double)(s->ws_sent + s->ws_recv) * 1e6 / (double)dur;
}

int compare_steps_row_messages(const compare_steps_row *row, const query_run *a, const query_run *b,
                               double *ma, double *mb)
{
    *ma = msg_rate(a, row->a);
    *mb = msg_rate(b, row->b);
    return (row->a != NULL && row->a->ws_sent + row->a->ws_recv > 0) ||
           (row->b != NULL && row->b->ws_sent + row->b->ws_recv > 0);
}

/* The per-point series of figure m of step s (NULL: not a figure of the noise). */
static const double *per_second(const query_step *s, enum compare_steps_metric m)
{
    switch (m) {
    case COMPARE_STEPS_TPS:
        return s->ts.rps;
    case COMPARE_STEPS_MEAN:
        return s->ts.mean_ms;
    case COMPARE_STEPS_P50:
        return s->ts.p50_ms;
    case COMPARE_STEPS_P95:
        return s->ts.p95_ms;
    case COMPARE_STEPS_P99:
        return s->ts.p99_ms;
    default:
        return NULL;
    }
}

/* The step of r with test id id, or NULL. */
static const query_step *step_of(const query_run *r, const char *id)
{
    for (size_t i = 0; i < r->nsteps; i++)
        if (query_step_shown(&r->steps[i]) && strcmp(r->steps[i].test_id, id) == 0)
            return &r->steps[i];
    return NULL;
}

/* 1 when the change of m (v, worse or better) lies beyond the noise: its
 * interval, relative to the baselines' seconds, past the threshold thr (%)
 * on its side, and A beyond every baseline's whole-run figure. */
static int beyond_noise(const compare_steps_row *row, int m, double thr)
{
    int up = (m == COMPARE_STEPS_TPS) == (row->v[m] == COMPARE_STEPS_BETTER); /* A is higher */
    double est, lo, hi;

    if (row->ci_ok[m] && noise_relative(&row->ci[m], &est, &lo, &hi) == 0 &&
        (up ? !(lo > thr) : !(hi < -thr)))
        return 0;
    if (row->nbases > 1 && (up ? !(row->va[m] > row->bhi[m]) : !(row->va[m] < row->blo[m])))
        return 0;
    return 1;
}

/* The noise of row's figure m: its interval and the baselines' range. */
static void row_noise(compare_steps_row *row, int m, const query_run *a,
                      const query_run *const *bases, size_t nbases)
{
    const char *id = compare_steps_row_id(row);
    size_t nb = 0, cap = 0;
    double *pool = NULL; /* owned: every baseline's points */
    const double *sa = per_second(row->a, m);

    row->blo[m] = row->bhi[m] = row->vb[m];
    row->nbases = 0;
    for (size_t k = 0; k < nbases; k++) {
        const query_step *s = step_of(bases[k], id);
        const double *sb = s != NULL ? per_second(s, m) : NULL;
        double v;
        if (s == NULL || sb == NULL || s->count < COMPARE_SAMPLES_MIN)
            continue;
        v = metric_value(s, m);
        if (row->nbases == 0 || v < row->blo[m])
            row->blo[m] = v;
        if (row->nbases == 0 || v > row->bhi[m])
            row->bhi[m] = v;
        row->nbases++;
        if (nb + bases[k]->npts > cap) {
            cap = (nb + bases[k]->npts) * 2;
            pool = xreallocarray(pool, cap, sizeof(*pool));
        }
        for (size_t p = 0; p < bases[k]->npts; p++)
            pool[nb++] = sb[p];
    }
    row->ci_ok[m] =
        sa != NULL && pool != NULL && noise_shift(sa, a->npts, pool, nb, &row->ci[m]) == 0;
    xfree(pool);
}

void compare_steps_noise(compare_steps_row *rows, size_t n, const query_run *a,
                         const query_run *const *bases, size_t nbases, double thr)
{
    for (size_t i = 0; i < n; i++) {
        compare_steps_row *row = &rows[i];
        int worse = 0, better = 0;
        if (row->overall == COMPARE_STEPS_NA || row->a == NULL || row->b == NULL)
            continue;
        for (int m = 0; m < COMPARE_STEPS_COUNT; m++) {
            if (per_second(row->a, m) == NULL)
                continue;
            row_noise(row, m, a, bases, nbases);
            if ((row->v[m] == COMPARE_STEPS_WORSE || row->v[m] == COMPARE_STEPS_BETTER) &&
                !beyond_noise(row, m, thr)) {
                row->v[m] = COMPARE_STEPS_SAME;
                row->noisy[m] = 1;
            }
        }
        for (int m = 0; m < COMPARE_STEPS_COUNT; m++) {
            worse |= row->v[m] == COMPARE_STEPS_WORSE;
            better |= row->v[m] == COMPARE_STEPS_BETTER;
        }
        row->overall = worse    ? COMPARE_STEPS_WORSE
                       : better ? COMPARE_STEPS_BETTER
                                : COMPARE_STEPS_SAME;
    }
}

const char *compare_steps_fmt_noise(const compare_steps_row *row, int m, char *buf, size_t len)
{
    double est, lo, hi;
    int changed = row->v[m] == COMPARE_STEPS_WORSE || row->v[m] == COMPARE_STEPS_BETTER;
    lbuf b = {buf, 0, len - 1};

    if (changed || row->noisy[m]) {
        if (row->noisy[m])
            lbuf_fmt(&b, "within noise ");
        if (row->ci_ok[m] && noise_relative(&row->ci[m], &est, &lo, &hi) == 0)
            lbuf_fmt(&b, "(95 %% interval %+.1f%% to %+.1f%% over %zu and %zu s)", lo, hi,
                     row->ci[m].na, row->ci[m].nb);
        else if (!row->ci_ok[m])
            lbuf_fmt(&b, "(too few seconds for an interval: %zu and %zu)", row->ci[m].na,
                     row->ci[m].nb);
        if (row->nbases > 1) {
            char x[32], y[32];
            lbuf_fmt(&b, " (the %zu baselines: %s to %s)", row->nbases,
                     compare_steps_fmt_metric(m, row->blo[m], x, sizeof(x)),
                     compare_steps_fmt_metric(m, row->bhi[m], y, sizeof(y)));
        }
    }
    buf[b.len] = '\0';
    return buf;
}

/* thresh — threshold parsing and evaluation; see thresh.h. */
#include "console/thresh.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dur.h"
#include "common/dur.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/tally.h"
#include "console/threshtally.h"
#include "proto/interval_tally.h"

#define METRICS_HINT                                                                               \
    "(use p95, p99.9, mean, max, errors, errors.technical, errors.functional, tps, count, "        \
    "arrivals.scheduled, arrivals.started, arrivals.late, arrivals.dropped, service.p95, "         \
    "service.mean, service.max)"
#define OPS_HINT "(use <, <=, > or >=)"
#define PCT_SCALE 1000000000ULL /* limit_pct_e9: percent times 10^9 */
#define PCT_FRAC_DIGITS 9

/* ---- parsing */

/* s[*n] trimmed of white space at both ends: returns the new start and
 * updates *n. */
static const char *trim(const char *s, size_t *n)
{
    while (*n > 0 && isspace((unsigned char)s[0])) {
        s++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)s[*n - 1]))
        (*n)--;
    return s;
}

/* 1 when s[0..n) is digits with at most one '.', and at least one digit. */
static int is_decimal(const char *s, size_t n)
{
    int digits = 0, dots = 0;

    for (size_t i = 0; i < n; i++) {
        if (isdigit((unsigned char)s[i]))
            digits++;
        else if (s[i] == '.' && dots == 0)
            dots++;
        else
            return 0;
    }
    return digits > 0;
}

static int is_metric_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* The metric named s[0..n) into t; 0, or -1 with err. */
static int parse_metric(thresh *t, const char *s, size_t n, char *err, size_t errlen)
{
    static const struct {
        const char *name; /* borrowed: a literal */
        enum thresh_metric m;
    } names[] = {
        {"mean", THRESH_MEAN},
        {"avg", THRESH_MEAN},
        {"max", THRESH_MAX},
        {"errors", THRESH_ERRORS},
        {"errors.technical", THRESH_ERR_TECH},
        {"errors.functional", THRESH_ERR_FUNC},
        {"tps", THRESH_TPS},
        {"count", THRESH_COUNT},
        {"arrivals.scheduled", THRESH_ARR_SCHEDULED},
        {"arrivals.started", THRESH_ARR_STARTED},
        {"arrivals.late", THRESH_ARR_LATE},
        {"arrivals.dropped", THRESH_ARR_DROPPED},
    };
    char num[32];
    char *end;

    if (n == 0) {
        err_set(err, errlen, "'%s': no metric before the operator %s", t->expr, METRICS_HINT);
        return -1;
    }
    if (n > 8 && memcmp(s, "service.", 8) == 0 && !t->service) {
        /* The same latency metrics, over the service times. */
        t->service = 1;
        if (parse_metric(t, s + 8, n - 8, err, errlen) != 0)
            return -1;
        if (t->metric == THRESH_PERCENTILE || t->metric == THRESH_MEAN || t->metric == THRESH_MAX)
            return 0;
        err_set(err, errlen, "'%s': \"%.*s\": service. goes with pN, mean or max", t->expr, (int)n,
                s);
        return -1;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0) {
            t->metric = names[i].m;
            return 0;
        }
    }
    if (s[0] == 'p' && is_decimal(s + 1, n - 1)) {
        if (n - 1 >= sizeof(num)) {
            err_set(err, errlen, "'%s': \"%.*s\" is not a percentile", t->expr, (int)n, s);
            return -1;
        }
        memcpy(num, s + 1, n - 1);
        num[n - 1] = '\0';
        errno = 0;
        t->pct = strtod(num, &end);
        if (errno != 0 || *end != '\0' || !(t->pct >= 0.0 && t->pct <= 100.0)) {
            err_set(err, errlen, "'%s': \"%.*s\": a percentile is from p0 to p100", t->expr, (int)n,
                    s);
            return -1;
        }
        t->metric = THRESH_PERCENTILE;
        return 0;
    }
    err_set(err, errlen, "'%s': unknown metric \"%.*s\" %s", t->expr, (int)n, s, METRICS_HINT);
    return -1;
}

/* "[D]" at *p (before end): t->window_s, *p past the ']'; 0, or -1 with err. */
static int parse_window(thresh *t, const char **p, const char *end, char *err, size_t errlen)
{
    const char *close = memchr(*p, ']', (size_t)(end - *p));
    char d[32], derr[ERR_MAX];
    int64_t us;
    size_t n;

    if (t->metric != THRESH_PERCENTILE && t->metric != THRESH_MEAN && t->metric != THRESH_MAX &&
        t->metric != THRESH_ERRORS && t->metric != THRESH_ERR_TECH &&
        t->metric != THRESH_ERR_FUNC && t->metric != THRESH_TPS) {
        err_set(err, errlen,
                "'%s': a window [D] goes with a response time (pN, mean, max), errors or tps",
                t->expr);
        return -1;
    }
    n = close != NULL ? (size_t)(close - *p - 1) : 0;
    if (close == NULL || n == 0 || n >= sizeof(d)) {
        err_set(err, errlen, "'%s': a window is a duration in brackets, as p95[10s]<300ms",
                t->expr);
        return -1;
    }
    memcpy(d, *p + 1, n);
    d[n] = '\0';
    if (dur_parse(d, &us, derr, sizeof(derr)) != 0 || us < 1000000 || us % 1000000 != 0 ||
        us > (int64_t)THRESH_WINDOW_MAX_S * 1000000) {
        err_set(err, errlen, "'%s': window \"%s\": whole seconds from 1s to %ds", t->expr, d,
                THRESH_WINDOW_MAX_S);
        return -1;
    }
    t->window_s = (unsigned)(us / 1000000);
    *p = close + 1;
    return 0;
}

/* A response-time limit: a duration, or a bare number of milliseconds. */
static int parse_latency(thresh *t, const char *v, char *err, size_t errlen)
{
    char buf[THRESH_EXPR_MAX + 4];
    int rc;

    if (is_decimal(v, strlen(v))) {
        snprintf(buf, sizeof(buf), "%sms", v);
        rc = dur_parse(buf, &t->limit_us, NULL, 0);
    } else {
        rc = dur_parse(v, &t->limit_us, NULL, 0);
    }
    if (rc != 0) {
        err_set(err, errlen,
                "'%s': \"%s\" is not a duration (e.g. 500ms, 1.5s, or a number of milliseconds)",
                t->expr, v);
        return -1;
    }
    return 0;
}

/* An error-rate limit "N%" or "N.NNN%", kept exactly as percent * 10^9. */
static int parse_percent(thresh *t, const char *v, char *err, size_t errlen)
{
    size_t n = strlen(v), i = 0;
    uint64_t whole = 0, frac = 0, scale = PCT_SCALE;
    const char *num;

    if (n == 0 || v[n - 1] != '%') {
        err_set(err, errlen, "'%s': \"%s\" is not a percentage (e.g. errors<1%%, errors<0.5%%)",
                t->expr, v);
        return -1;
    }
    n--;
    num = trim(v, &n);
    if (!is_decimal(num, n)) {
        err_set(err, errlen, "'%s': \"%s\" is not a percentage (e.g. errors<1%%, errors<0.5%%)",
                t->expr, v);
        return -1;
    }
    for (; i < n && num[i] != '.'; i++) {
        whole = whole * 10 + (uint64_t)(num[i] - '0');
        if (whole > 100)
            break;
    }
    if (i < n && num[i] == '.') {
        for (size_t k = i + 1; k < n; k++) {
            if (k - i > PCT_FRAC_DIGITS) {
                err_set(err, errlen, "'%s': \"%s\" has more than %d decimals", t->expr, v,
                        PCT_FRAC_DIGITS);
                return -1;
            }
            scale /= 10;
            frac += (uint64_t)(num[k] - '0') * scale;
        }
    }
    if (whole > 100 || (whole == 100 && frac > 0)) {
        err_set(err, errlen, "'%s': \"%s\": an error rate is from 0%% to 100%%", t->expr, v);
        return -1;
    }
    t->limit_pct_e9 = whole * PCT_SCALE + frac;
    return 0;
}

/* A tps limit: a number, optionally followed by "/s". */
static int parse_tps(thresh *t, const char *v, char *err, size_t errlen)
{
    size_t n = strlen(v);
    char buf[THRESH_EXPR_MAX + 1];
    const char *num;

    if (n >= 2 && strcmp(v + n - 2, "/s") == 0)
        n -= 2;
    num = trim(v, &n);
    if (!is_decimal(num, n)) {
        err_set(err, errlen, "'%s': \"%s\" is not a rate (e.g. tps>100, tps>=12.5)", t->expr, v);
        return -1;
    }
    memcpy(buf, num, n);
    buf[n] = '\0';
    t->limit_tps = strtod(buf, NULL);
    if (!isfinite(t->limit_tps)) {
        err_set(err, errlen, "'%s': \"%s\" is too large", t->expr, v);
        return -1;
    }
    return 0;
}

static int parse_count(thresh *t, const char *v, char *err, size_t errlen)
{
    char *end;

    errno = 0;
    t->limit_count = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
    if (!isdigit((unsigned char)v[0]) || errno != 0 || *end != '\0') {
        err_set(err, errlen, "'%s': \"%s\" is not a whole number of samples", t->expr, v);
        return -1;
    }
    return 0;
}

/* 1 when e is about the script's checks or custom metrics. */
static int named_prefix(const char *e)
{
    if (strncmp(e, "metric{", 7) == 0)
        return 1;
    return strncmp(e, "checks", 6) == 0 && (e[6] == '{' || e[6] == '<' || e[6] == '>' ||
                                            e[6] == '\0' || isspace((unsigned char)e[6]));
}

/* A metric's field: total, rate, value, min, max, count, mean or pN. */
static int parse_field(thresh *t, const char *f, size_t n, char *err, size_t errlen)
{
    static const char *const names[] = {"total", "rate", "value", "min", "max", "count", "mean"};
    char *end;

    if (n == 0 || n >= sizeof(t->field))
        goto bad;
    memcpy(t->field, f, n);
    t->field[n] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(t->field, names[i]) == 0)
            return 0;
    if (t->field[0] == 'p' && is_decimal(t->field + 1, n - 1)) {
        t->pct = strtod(t->field + 1, &end);
        if (*end == '\0' && t->pct >= 0 && t->pct <= 100)
            return 0;
    }
bad:
    err_set(err, errlen,
            "'%s': \"%.*s\" is not a metric's field (use total or rate for a counter; value, min "
            "or max for a gauge; pN, mean, min, max or count for a trend)",
            t->expr, (int)n, f);
    return -1;
}

/* checks, checks{NAME}, metric{NAME}[.FIELD]: sets t's metric, name and
 * field, and *after to what follows them (the comparison). */
static int parse_named(thresh *t, const char **after, char *err, size_t errlen)
{
    const char *open = t->expr + 6, *close, *p, *f;
    int metric = t->expr[0] == 'm';

    t->metric = metric ? THRESH_METRIC : THRESH_CHECKS;
    *after = open;
    if (*open != '{')
        return 0;
    close = strrchr(open, '}');
    if (close == NULL) {
        err_set(err, errlen, "'%s': no '}' closes the name", t->expr);
        return -1;
    }
    t->name = xstrndup(open + 1, (size_t)(close - open - 1));
    if (metric ? !tally_name_ok(t->name) : !interval_tally_check_name_ok(t->name)) {
        err_set(err, errlen, "'%s': \"%s\" is not a %s name", t->expr, t->name,
                metric ? "metric" : "check");
        return -1;
    }
    p = close + 1;
    if (*p == '.' || *p == ':') {
        if (!metric) {
            err_set(err, errlen, "'%s': a check has no field (write checks{NAME}>=99%%)", t->expr);
            return -1;
        }
        p++;
        while (isspace((unsigned char)*p))
            p++;
        for (f = p; isalnum((unsigned char)*p) || *p == '.'; p++)
            ;
        if (parse_field(t, f, (size_t)(p - f), err, errlen) != 0)
            return -1;
    }
    *after = p;
    return 0;
}

/* The scope (before the last ':', the metric part never holds one), the
 * metric and its window of t->expr: *body and *bn are narrowed to the part
 * after the scope, *mn is the metric's length, *opstart where the
 * comparison begins. 0, or -1 with the reason in err. */
static int parse_scoped(thresh *t, const char **body, size_t *bn, size_t *mn, const char **opstart,
                        char *err, size_t errlen)
{
    size_t n = *bn;
    const char *colon = memrchr(t->expr, ':', n);

    if (colon != NULL) {
        size_t sn = (size_t)(colon - t->expr);
        const char *sc = trim(t->expr, &sn);
        if (sn == 0) {
            err_set(err, errlen, "'%s': nothing before ':' (write STEP-GLOB: p95<500ms)", t->expr);
            return -1;
        }
        t->scope = xstrndup(sc, sn);
        *body = colon + 1;
        *bn = n - (size_t)(*body - t->expr);
    }
    *body = trim(*body, bn);
    for (*mn = 0; *mn < *bn && is_metric_char((*body)[*mn]); (*mn)++)
        ;
    if (parse_metric(t, *body, *mn, err, errlen) != 0)
        return -1;
    *opstart = *body + *mn;
    if (*opstart < *body + *bn && **opstart == '[' &&
        parse_window(t, opstart, *body + *bn, err, errlen) != 0)
        return -1;
    return 0;
}

/* The comparison at *opstart, within body's bn bytes (the metric its first
 * mn): t->op set, *opstart past it. 0, or -1 with the reason in err. */
static int parse_op(thresh *t, const char **opstart, const char *body, size_t bn, size_t mn,
                    char *err, size_t errlen)
{
    const char *o = *opstart, *end = body + bn;

    while (o < end && isspace((unsigned char)*o))
        o++;
    if (o == end) {
        err_set(err, errlen, "'%s': no comparison after \"%.*s\" %s", t->expr, (int)mn, body,
                OPS_HINT);
        return -1;
    }
    if (o[0] == '<' || o[0] == '>') {
        int eq = o + 1 < end && o[1] == '=';
        t->op = o[0] == '<' ? (eq ? THRESH_LE : THRESH_LT) : (eq ? THRESH_GE : THRESH_GT);
        *opstart = o + (eq ? 2 : 1);
        return 0;
    }
    size_t on = 0;
    while (o + on < end && strchr("=!<>~", o[on]) != NULL)
        on++;
    if (on > 0)
        err_set(err, errlen, "'%s': \"%.*s\" is not a comparison %s", t->expr, (int)on, o,
                OPS_HINT);
    else
        err_set(err, errlen, "'%s': unexpected \"%.*s\" after \"%.*s\" %s", t->expr, (int)(end - o),
                o, (int)mn, body, OPS_HINT);
    return -1;
}

/* The limit, value, read as t's metric counts it. 0, or -1 with the reason
 * in err. */
static int parse_limit(thresh *t, const char *value, char *err, size_t errlen)
{
    switch (t->metric) {
    case THRESH_PERCENTILE:
    case THRESH_MEAN:
    case THRESH_MAX:
        return parse_latency(t, value, err, errlen);
    case THRESH_ERRORS:
    case THRESH_ERR_TECH:
    case THRESH_ERR_FUNC:
    case THRESH_CHECKS:
        return parse_percent(t, value, err, errlen);
    case THRESH_TPS:
        return parse_tps(t, value, err, errlen);
    case THRESH_COUNT:
        return parse_count(t, value, err, errlen);
    case THRESH_METRIC:
        return threshtally_parse_limit(t, value, err, errlen);
    case THRESH_ARR_SCHEDULED:
    case THRESH_ARR_STARTED:
    case THRESH_ARR_LATE:
    case THRESH_ARR_DROPPED:
        if (t->scope != NULL) {
            err_set(err, errlen, "'%s': arrivals are counted for the whole run, without a scope",
                    t->expr);
            return -1;
        }
        return parse_count(t, value, err, errlen);
    }
    return -1;
}

thresh *thresh_parse(const char *expr, char *err, size_t errlen)
{
    thresh *t = NULL;
    const char *s, *body, *opstart;
    size_t n, bn, mn;
    char *value = NULL;
    int rc = -1;

    if (expr == NULL)
        expr = "";
    n = strlen(expr);
    if (n > THRESH_EXPR_MAX) {
        err_set(err, errlen, "'%.40s...': longer than %d bytes", expr, THRESH_EXPR_MAX);
        return NULL;
    }
    s = trim(expr, &n);
    if (n == 0) {
        err_set(err, errlen, "'%s': empty threshold (e.g. p95<500ms, errors<1%%)", expr);
        return NULL;
    }
    t = xcalloc(1, sizeof(*t));
    t->expr = xstrndup(s, n);
    body = t->expr;
    bn = n;
    if (named_prefix(t->expr)) { /* checks, checks{NAME}, metric{NAME}: no scope */
        if (parse_named(t, &opstart, err, errlen) != 0)
            goto out;
        mn = (size_t)(opstart - body);
    } else if (parse_scoped(t, &body, &bn, &mn, &opstart, err, errlen) != 0) {
        goto out;
    }
    if (parse_op(t, &opstart, body, bn, mn, err, errlen) != 0)
        goto out;
    n = (size_t)(body + bn - opstart);
    s = trim(opstart, &n);
    if (n == 0) {
        err_set(err, errlen, "'%s': no limit after the comparison", t->expr);
        goto out;
    }
    value = xstrndup(s, n);
    rc = parse_limit(t, value, err, errlen);
out:
    xfree(value);
    if (rc != 0) {
        thresh_free(t);
        return NULL;
    }
    return t;
}

void thresh_free(thresh *t)
{
    if (t == NULL)
        return;
    xfree(t->expr);
    xfree(t->scope);
    xfree(t->name);
    xfree(t);
}

/* ---- evaluation */

int thresh_covers(const thresh *t, const char *step_id, const char *step_name)
{
    if (t->scope == NULL)
        return 1;
    if (step_id != NULL && fnmatch(t->scope, step_id, 0) == 0)
        return 1;
    return step_name != NULL && fnmatch(t->scope, step_name, 0) == 0;
}

int thresh_check_scope(const thresh *t, const char *const *step_ids, const char *const *step_names,
                       size_t nsteps, char *err, size_t errlen)
{
    if (t->scope == NULL)
        return 0;
    for (size_t i = 0; i < nsteps; i++)
        if (thresh_covers(t, step_ids[i], step_names != NULL ? step_names[i] : NULL))
            return 0;
    err_set(err, errlen, "'%s': no step matches \"%s\" (steps are named like %s)", t->expr,
            t->scope, nsteps > 0 ? step_ids[0] : "SC-<scenario>-STEP-<n>");
    return -1;
}

static const char *op_str(enum thresh_op op)
{
    switch (op) {
    case THRESH_LT:
        return "<";
    case THRESH_LE:
        return "<=";
    case THRESH_GT:
        return ">";
    case THRESH_GE:
        return ">=";
    }
    return "?";
}

/* Whether op holds between a value and a limit that compare as sign says
 * (-1: below, 0: equal, 1: above). */
static int op_holds(enum thresh_op op, int sign)
{
    switch (op) {
    case THRESH_LT:
        return sign < 0;
    case THRESH_LE:
        return sign <= 0;
    case THRESH_GT:
        return sign > 0;
    case THRESH_GE:
        return sign >= 0;
    }
    return 0;
}

/* Exact comparison of two integers (as unsigned 128-bit). */
static int holds_u128(enum thresh_op op, unsigned __int128 v, unsigned __int128 limit)
{
    return op_holds(op, (v > limit) - (v < limit));
}

/* A NaN passes no comparison. */
static int holds_double(enum thresh_op op, double v, double limit)
{
    if (isnan(v) || isnan(limit))
        return 0;
    return op_holds(op, (v > limit) - (v < limit));
}

const char *thresh_op_str(enum thresh_op op)
{
    return op_str(op);
}

int thresh_holds(enum thresh_op op, double v, double limit)
{
    return holds_double(op, v, limit);
}

int thresh_holds_exact(enum thresh_op op, unsigned __int128 v, unsigned __int128 limit)
{
    return holds_u128(op, v, limit);
}

/* v with up to 3 decimals, trailing zeros dropped: "612.3", "500", "0.25". */
const char *thresh_num(double v, char *buf, size_t len)
{
    char *dot;
    size_t n;

    snprintf(buf, len, "%.3f", v);
    dot = strchr(buf, '.');
    if (dot == NULL)
        return buf;
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, len, "0");
    return buf;
}

static const char *metric_base(const thresh *t, char *buf, size_t len);

static const char *metric_name(const thresh *t, char *buf, size_t len)
{
    char base[32], win[24] = "";

    if (t->window_s > 0)
        snprintf(win, sizeof(win), "[%us]", t->window_s);
    snprintf(buf, len, "%s%s%s", t->service ? "service." : "", metric_base(t, base, sizeof(base)),
             win);
    return buf;
}

static const char *metric_base(const thresh *t, char *buf, size_t len)
{
    switch (t->metric) {
    case THRESH_PERCENTILE:
        snprintf(buf, len, "p%g", t->pct);
        return buf;
    case THRESH_MEAN:
        return "mean";
    case THRESH_MAX:
        return "max";
    case THRESH_ERRORS:
        return "errors";
    case THRESH_ERR_TECH:
        return "errors.technical";
    case THRESH_ERR_FUNC:
        return "errors.functional";
    case THRESH_TPS:
        return "tps";
    case THRESH_COUNT:
        return "count";
    case THRESH_ARR_SCHEDULED:
        return "arrivals.scheduled";
    case THRESH_ARR_STARTED:
        return "arrivals.started";
    case THRESH_ARR_LATE:
        return "arrivals.late";
    case THRESH_ARR_DROPPED:
        return "arrivals.dropped";
    case THRESH_CHECKS:
        return "checks";
    case THRESH_METRIC:
        return "metric";
    }
    return "?";
}

/* The steps' totals summed: count and errors into *sum, latency into
 * *h (a's own histogram when one step matches, else *owned, merged). */
typedef struct selection {
    size_t nsteps; /**< steps matched */
    size_t first;  /**< index of the first match */
    uint64_t count, err_tech, err_func;
    const hist *h; /**< borrowed from a, or owned */
    hist *owned;   /**< owned: the merged histogram, NULL if not needed */
} selection;

static void select_steps(selection *sel, const thresh *t, const agg *a, const char *const *step_ids,
                         const char *const *step_names)
{
    memset(sel, 0, sizeof(*sel));
    for (size_t i = 0; i < a->nsteps; i++) {
        const step_stats *s = &a->total[i];
        const hist *h = t->service ? stats_service(s) : s->hist;
        if (!thresh_covers(t, step_ids[i], step_names != NULL ? step_names[i] : NULL))
            continue;
        if (sel->nsteps == 0) {
            sel->first = i;
            sel->h = h;
        } else {
            if (sel->owned == NULL) {
                sel->owned = hist_new();
                hist_merge(sel->owned, sel->h);
                sel->h = sel->owned;
            }
            hist_merge(sel->owned, h);
        }
        sel->nsteps++;
        sel->count += s->count;
        sel->err_tech += s->err_tech;
        sel->err_func += s->err_func;
    }
}

int thresh_eval(const thresh *t, const agg *a, const char *const *step_ids,
                const char *const *step_names, double elapsed_s, thresh_result *out)
{
    selection sel;
    char subject[160], mname[32], mv[32], lv[32], ev[32];
    const char *op = op_str(t->op), *metric = metric_name(t, mname, sizeof(mname));
    uint64_t errors;

    memset(out, 0, sizeof(*out));
    if (t->metric == THRESH_CHECKS || t->metric == THRESH_METRIC) {
        threshtally_eval(t, a, elapsed_s, out);
        return out->passed;
    }
    select_steps(&sel, t, a, step_ids, step_names);
    out->samples = sel.count;
    out->nsteps = sel.nsteps;
    if (t->scope == NULL)
        snprintf(subject, sizeof(subject), "all steps");
    else if (sel.nsteps == 1)
        snprintf(subject, sizeof(subject), "%s", step_ids[sel.first]);
    else
        snprintf(subject, sizeof(subject), "%s (%zu steps)", t->scope, sel.nsteps);

    switch (t->metric) {
    case THRESH_PERCENTILE:
    case THRESH_MEAN:
    case THRESH_MAX:
        out->limit = (double)t->limit_us / 1000.0;
        thresh_num(out->limit, lv, sizeof(lv));
        if (sel.h == NULL || hist_count(sel.h) == 0)
            break;
        if (t->metric == THRESH_MEAN) {
            double mean = hist_mean(sel.h);
            out->passed = holds_double(t->op, mean, (double)t->limit_us);
            out->measured = mean / 1000.0;
        } else {
            uint64_t v = t->metric == THRESH_MAX ? hist_max(sel.h) : hist_percentile(sel.h, t->pct);
            out->passed = holds_u128(t->op, v, (uint64_t)t->limit_us);
            out->measured = (double)v / 1000.0;
        }
        snprintf(out->desc, sizeof(out->desc), "%s of %s = %s ms, limit %s %s ms", metric, subject,
                 thresh_num(out->measured, mv, sizeof(mv)), op, lv);
        break;
    case THRESH_ERRORS:
    case THRESH_ERR_TECH:
    case THRESH_ERR_FUNC:
        out->limit = (double)t->limit_pct_e9 / (double)PCT_SCALE;
        thresh_num(out->limit, lv, sizeof(lv));
        if (sel.count == 0)
            break;
        errors = t->metric == THRESH_ERR_TECH   ? sel.err_tech
                 : t->metric == THRESH_ERR_FUNC ? sel.err_func
                                                : sel.err_tech + sel.err_func;
        /* errors / count * 100 OP limit, exactly: errors * 100 * 10^9 OP limit_e9 * count */
        out->passed = holds_u128(t->op, (unsigned __int128)errors * 100 * PCT_SCALE,
                                 (unsigned __int128)t->limit_pct_e9 * sel.count);
        out->measured = (double)errors * 100.0 / (double)sel.count;
        snprintf(out->desc, sizeof(out->desc), "%s of %s = %s %% (%llu of %llu), limit %s %s %%",
                 metric, subject, thresh_num(out->measured, mv, sizeof(mv)),
                 (unsigned long long)errors, (unsigned long long)sel.count, op, lv);
        break;
    case THRESH_TPS:
        out->limit = t->limit_tps;
        out->measured = elapsed_s > 0 ? (double)sel.count / elapsed_s : 0.0;
        out->passed = holds_double(t->op, out->measured, out->limit);
        snprintf(out->desc, sizeof(out->desc), "tps of %s = %s/s (%llu in %s s), limit %s %s/s",
                 subject, thresh_num(out->measured, mv, sizeof(mv)), (unsigned long long)sel.count,
                 thresh_num(elapsed_s > 0 ? elapsed_s : 0.0, ev, sizeof(ev)), op,
                 thresh_num(out->limit, lv, sizeof(lv)));
        break;
    case THRESH_COUNT:
        out->limit = (double)t->limit_count;
        out->measured = (double)sel.count;
        out->passed = holds_u128(t->op, sel.count, t->limit_count);
        snprintf(out->desc, sizeof(out->desc), "count of %s = %llu, limit %s %llu", subject,
                 (unsigned long long)sel.count, op, (unsigned long long)t->limit_count);
        break;
    case THRESH_ARR_SCHEDULED:
    case THRESH_ARR_STARTED:
    case THRESH_ARR_LATE:
    case THRESH_ARR_DROPPED: {
        rate_counts all;
        uint64_t v;
        agg_arrivals_all(a, &all);
        v = t->metric == THRESH_ARR_SCHEDULED ? all.scheduled
            : t->metric == THRESH_ARR_STARTED ? all.started
            : t->metric == THRESH_ARR_LATE    ? all.late
                                              : all.dropped;
        out->limit = (double)t->limit_count;
        out->measured = (double)v;
        out->passed = holds_u128(t->op, v, t->limit_count);
        snprintf(out->desc, sizeof(out->desc), "%s of every scenario = %llu, limit %s %llu", metric,
                 (unsigned long long)v, op, (unsigned long long)t->limit_count);
        break;
    }
    case THRESH_CHECKS:
    case THRESH_METRIC:
        break; /* threshtally_eval, above */
    }
    if (t->scope != NULL && sel.nsteps == 0) {
        out->passed = 0;
        snprintf(out->desc, sizeof(out->desc), "%s of %s: no step matches \"%s\"", metric, t->scope,
                 t->scope);
    } else if (out->desc[0] == '\0') {
        /* a response-time or error threshold over no sample at all */
        out->passed = 0;
        snprintf(out->desc, sizeof(out->desc), "%s of %s: no samples, limit %s %s%s", metric,
                 subject, op, lv,
                 t->metric == THRESH_PERCENTILE || t->metric == THRESH_MEAN ||
                         t->metric == THRESH_MAX
                     ? " ms"
                     : " %");
    }
    hist_free(sel.owned);
    return out->passed;
}

int thresh_can_still_pass(const thresh *t, const thresh_result *r, double elapsed_s)
{
    int up = t->op == THRESH_GT || t->op == THRESH_GE;

    if (r->passed)
        return 1;
    if (t->scope != NULL && r->nsteps == 0)
        return 0;
    switch (t->metric) {
    case THRESH_COUNT:
    case THRESH_MAX:
    case THRESH_ARR_SCHEDULED:
    case THRESH_ARR_STARTED:
    case THRESH_ARR_LATE:
    case THRESH_ARR_DROPPED:
        /* both only grow: a failed "<" is final, a failed ">" may still pass */
        return up;
    case THRESH_TPS:
        if (up)
            return 1;
        break;
    default:
        break;
    }
    return !(elapsed_s >= THRESH_ABORT_MIN_S && r->samples >= THRESH_ABORT_MIN_SAMPLES);
}

const char *thresh_unit(const thresh *t)
{
    switch (t->metric) {
    case THRESH_PERCENTILE:
    case THRESH_MEAN:
    case THRESH_MAX:
        return "ms";
    case THRESH_ERRORS:
    case THRESH_ERR_TECH:
    case THRESH_ERR_FUNC:
        return "%";
    case THRESH_TPS:
        return "/s";
    case THRESH_CHECKS:
        return "%";
    case THRESH_METRIC:
    case THRESH_COUNT:
    case THRESH_ARR_SCHEDULED:
    case THRESH_ARR_STARTED:
    case THRESH_ARR_LATE:
    case THRESH_ARR_DROPPED:
        break;
    }
    return "";
}

int thresh_measured(const thresh *t, const thresh_result *r)
{
    if (t->scope != NULL && r->nsteps == 0)
        return 0;
    if (t->metric == THRESH_CHECKS || t->metric == THRESH_METRIC)
        return r->samples > 0;
    return t->metric == THRESH_TPS || t->metric == THRESH_COUNT ||
           t->metric >= THRESH_ARR_SCHEDULED || r->samples > 0;
}

int thresh_about_errors(const thresh *t)
{
    return t->metric == THRESH_ERRORS || t->metric == THRESH_ERR_TECH ||
           t->metric == THRESH_ERR_FUNC;
}

#include "console/threshtally.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "console/sumtally.h"
#include "console/thresh.h"

#define PCT_SCALE 1000000000ULL /* thresh.limit_pct_e9: percent times 10^9 */

int threshtally_parse_limit(struct thresh *t, const char *v, char *err, size_t errlen)
{
    char *end;
    double d = strtod(v, &end);

    if (end == v || *end != '\0' || !isfinite(d)) {
        err_set(err, errlen, "'%s': \"%s\" is not a number (a metric's limit is in its own unit)",
                t->expr, v);
        return -1;
    }
    t->limit_val = d;
    return 0;
}

static void eval_checks(const thresh *t, const agg *a, thresh_result *out)
{
    uint64_t p, f, n;
    char mv[32], lv[32];
    const char *op = thresh_op_str(t->op);
    int i = -1;

    out->limit = (double)t->limit_pct_e9 / (double)PCT_SCALE;
    thresh_num(out->limit, lv, sizeof(lv));
    if (t->name == NULL) {
        tally_checks_all(&a->tally, &p, &f);
    } else {
        i = tally_check_find(&a->tally, t->name);
        p = i >= 0 ? a->tally.checks[i].passes : 0;
        f = i >= 0 ? a->tally.checks[i].fails : 0;
    }
    n = p + f;
    out->samples = n;
    if (n == 0) {
        snprintf(out->desc, sizeof(out->desc), "checks%s%s%s: %s, limit %s %s %%",
                 t->name ? "{" : "", t->name ? t->name : "", t->name ? "}" : "",
                 t->name ? "no such check ran" : "no check ran", op, lv);
        return;
    }
    /* passes / n * 100 OP limit, exactly: passes * 100 * 10^9 OP limit_e9 * n */
    out->passed = thresh_holds_exact(t->op, (unsigned __int128)p * 100 * PCT_SCALE,
                                     (unsigned __int128)t->limit_pct_e9 * n);
    out->measured = sumtally_pass_pct(p, f);
    snprintf(out->desc, sizeof(out->desc),
             "checks%s%s%s = %s %% (%llu of %llu passed), limit %s %s %%", t->name ? "{" : "",
             t->name ? t->name : "", t->name ? "}" : "", thresh_num(out->measured, mv, sizeof(mv)),
             (unsigned long long)p, (unsigned long long)n, op, lv);
}

/* The field of m a threshold asks for into *v; the field's name in *what.
 * 0, or -1 when m's kind has no such field. */
static int field_value(const thresh *t, const tally_metric *m, double elapsed_s, double *v,
                       const char **what)
{
    const char *f = t->field;

    *what = f;
    switch (m->kind) {
    case TALLY_COUNTER:
        if (f[0] == '\0' || strcmp(f, "total") == 0) {
            *what = "total";
            *v = m->sum;
            return 0;
        }
        if (strcmp(f, "rate") == 0) {
            *v = elapsed_s > 0 ? m->sum / elapsed_s : 0.0;
            return 0;
        }
        return -1;
    case TALLY_GAUGE:
        if (f[0] == '\0' || strcmp(f, "value") == 0) {
            *what = "value";
            *v = m->value;
            return 0;
        }
        if (strcmp(f, "min") == 0 || strcmp(f, "max") == 0) {
            *v = f[1] == 'i' ? m->min : m->max;
            return 0;
        }
        return -1;
    case TALLY_TREND:
        if (f[0] == 'p') {
            *v = tally_trend_stat(m, NULL, t->pct);
            return 0;
        }
        if (strcmp(f, "count") == 0 || strcmp(f, "mean") == 0 || strcmp(f, "min") == 0 ||
            strcmp(f, "max") == 0) {
            *v = tally_trend_stat(m, f, 0);
            return 0;
        }
        return -1;
    }
    return -1;
}

int threshtally_check(const struct thresh *t, const tally *decl, char *err, size_t errlen)
{
    int i;
    double v;
    const char *what;

    if (t->metric != THRESH_METRIC)
        return 0;
    i = tally_metric_find(decl, t->name);
    if (i < 0) {
        err_set(err, errlen,
                "'%s': the script declares no metric %s (quern.metric.counter, gauge or trend)",
                t->expr, t->name);
        return -1;
    }
    if (field_value(t, &decl->metrics[i], 1, &v, &what) != 0) {
        err_set(err, errlen, "'%s': %s is a %s, which has no %s", t->expr, t->name,
                tally_kind_name(decl->metrics[i].kind),
                t->field[0] ? t->field : "default field (say which: .p95, .mean, .max, .count)");
        return -1;
    }
    return 0;
}

static int metric_has_values(const tally_metric *m)
{
    switch (m->kind) {
    case TALLY_COUNTER:
        return m->n > 0;
    case TALLY_GAUGE:
        return m->has_value;
    case TALLY_TREND:
        return hist_count(m->h) > 0;
    }
    return 0;
}

static void eval_metric(const thresh *t, const agg *a, double elapsed_s, thresh_result *out)
{
    int i = tally_metric_find(&a->tally, t->name);
    const tally_metric *m = i >= 0 ? &a->tally.metrics[i] : NULL;
    const char *op = thresh_op_str(t->op), *what;
    char mv[32], lv[32];
    double v;

    out->limit = t->limit_val;
    thresh_num(out->limit, lv, sizeof(lv));
    if (m == NULL || !metric_has_values(m)) {
        snprintf(out->desc, sizeof(out->desc), "metric{%s}: no value recorded, limit %s %s",
                 t->name, op, lv);
        return;
    }
    if (field_value(t, m, elapsed_s, &v, &what) != 0) {
        snprintf(out->desc, sizeof(out->desc), "metric{%s} is a %s: it has no %s", t->name,
                 tally_kind_name(m->kind), t->field[0] ? t->field : "default field (say which)");
        return;
    }
    out->samples = m->kind == TALLY_TREND ? hist_count(m->h) : m->n > 0 ? m->n : 1;
    out->measured = v;
    out->passed = thresh_holds(t->op, v, t->limit_val);
    snprintf(out->desc, sizeof(out->desc), "metric{%s}.%s = %s, limit %s %s", t->name, what,
             thresh_num(v, mv, sizeof(mv)), op, lv);
}

void threshtally_eval(const struct thresh *t, const agg *a, double elapsed_s,
                      struct thresh_result *out)
{
    if (t->metric == THRESH_CHECKS)
        eval_checks(t, a, out);
    else
        eval_metric(t, a, elapsed_s, out);
}

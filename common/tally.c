#include "common/tally.h"

#include <math.h>
#include <string.h>

#include "common/err.h"

void tally_init(tally *t)
{
    memset(t, 0, sizeof(*t));
}

void tally_free(tally *t)
{
    for (size_t i = 0; i < t->nmetrics; i++)
        hist_free(t->metrics[i].h);
    memset(t, 0, sizeof(*t));
}

void tally_next(tally *t)
{
    for (size_t i = 0; i < t->nchecks; i++)
        t->checks[i].passes = t->checks[i].fails = 0;
    for (size_t i = 0; i < t->nmetrics; i++) {
        tally_metric *m = &t->metrics[i];
        m->n = 0;
        m->sum = 0;
        if (m->h != NULL)
            hist_reset(m->h);
        m->fraction = 0;
    }
}

void tally_reset(tally *t)
{
    tally_next(t);
    for (size_t i = 0; i < t->nmetrics; i++) {
        t->metrics[i].has_value = 0;
        t->metrics[i].value = t->metrics[i].min = t->metrics[i].max = 0;
        t->metrics[i].set_us = 0;
    }
}

int tally_check_find(const tally *t, const char *name)
{
    for (size_t i = 0; i < t->nchecks; i++)
        if (strcmp(t->checks[i].name, name) == 0)
            return (int)i;
    return -1;
}

int tally_check_id(tally *t, const char *name)
{
    int i = tally_check_find(t, name);
    size_t n = strlen(name);

    if (i >= 0)
        return i;
    if (n == 0 || n >= TALLY_NAME_MAX || t->nchecks == TALLY_CHECKS_MAX)
        return -1;
    memcpy(t->checks[t->nchecks].name, name, n + 1);
    t->checks[t->nchecks].passes = t->checks[t->nchecks].fails = 0;
    return (int)t->nchecks++;
}

int tally_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n >= TALLY_NAME_MAX || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

int tally_metric_find(const tally *t, const char *name)
{
    for (size_t i = 0; i < t->nmetrics; i++)
        if (strcmp(t->metrics[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *tally_kind_name(enum tally_kind kind)
{
    switch (kind) {
    case TALLY_COUNTER:
        return "counter";
    case TALLY_GAUGE:
        return "gauge";
    case TALLY_TREND:
        return "trend";
    }
    return "?";
}

int tally_metric_def(tally *t, const char *name, enum tally_kind kind, char *err, size_t errlen)
{
    int i = tally_metric_find(t, name);
    tally_metric *m;

    if (!tally_name_ok(name)) {
        err_set(err, errlen,
                "metric name \"%.*s\": letters, digits and '_', not starting with a digit, at most "
                "%d bytes",
                TALLY_NAME_MAX, name, TALLY_NAME_MAX - 1);
        return -1;
    }
    if (kind != TALLY_COUNTER && kind != TALLY_GAUGE && kind != TALLY_TREND) {
        err_set(err, errlen, "metric %s: unknown kind %d", name, (int)kind);
        return -1;
    }
    if (i >= 0) {
        if (t->metrics[i].kind == kind)
            return i;
        err_set(err, errlen, "metric %s is a %s already, not a %s", name,
                tally_kind_name(t->metrics[i].kind), tally_kind_name(kind));
        return -1;
    }
    if (t->nmetrics == TALLY_METRICS_MAX) {
        err_set(err, errlen, "metric %s: more than %d metrics", name, TALLY_METRICS_MAX);
        return -1;
    }
    m = &t->metrics[t->nmetrics];
    memset(m, 0, sizeof(*m));
    memcpy(m->name, name, strlen(name) + 1);
    m->kind = kind;
    if (kind == TALLY_TREND)
        m->h = hist_new();
    return (int)t->nmetrics++;
}

void tally_counter_add(tally_metric *m, double n)
{
    m->n++;
    m->sum += n;
}

void tally_gauge_set(tally_metric *m, double v, int64_t now_wall_us)
{
    m->set_us = now_wall_us;
    m->n++;
    if (!m->has_value || v < m->min)
        m->min = v;
    if (!m->has_value || v > m->max)
        m->max = v;
    m->has_value = 1;
    m->value = v;
}

void tally_trend_add(tally_metric *m, double v)
{
    double k = v * TALLY_TREND_SCALE + 0.5;

    m->n++;
    if (v != floor(v))
        m->fraction = 1;
    hist_record(m->h, !(k > 0) ? 0 : k >= 1.8e19 ? UINT64_MAX : (uint64_t)k);
}

void tally_checks_all(const tally *t, uint64_t *passes, uint64_t *fails)
{
    *passes = *fails = 0;
    for (size_t i = 0; i < t->nchecks; i++) {
        *passes += t->checks[i].passes;
        *fails += t->checks[i].fails;
    }
}

/* A figure of m's histogram, a whole number when every value was. */
static double whole(const tally_metric *m, double v)
{
    return m->fraction ? v : round(v);
}

double tally_trend_stat(const tally_metric *m, const char *what, double pct)
{
    if (m->h == NULL || hist_count(m->h) == 0)
        return 0;
    if (what == NULL)
        return whole(m, (double)hist_percentile(m->h, pct) / TALLY_TREND_SCALE);
    if (strcmp(what, "count") == 0)
        return (double)hist_count(m->h);
    if (strcmp(what, "mean") == 0)
        return hist_mean(m->h) / TALLY_TREND_SCALE;
    if (strcmp(what, "min") == 0)
        return whole(m, (double)hist_min(m->h) / TALLY_TREND_SCALE);
    if (strcmp(what, "max") == 0)
        return whole(m, (double)hist_max(m->h) / TALLY_TREND_SCALE);
    return 0;
}

/* The metric of dst named as src's, added when new; NULL with err set. */
static tally_metric *metric_of(tally *dst, const tally_metric *src, char *err, size_t errlen)
{
    int i = tally_metric_def(dst, src->name, src->kind, err, errlen);

    return i < 0 ? NULL : &dst->metrics[i];
}

void tally_gauge_merge(tally_metric *d, double value, int64_t set_us, double min, double max)
{
    if (!d->has_value || set_us >= d->set_us) {
        d->value = value;
        d->set_us = set_us;
    }
    if (!d->has_value || min < d->min)
        d->min = min;
    if (!d->has_value || max > d->max)
        d->max = max;
    d->has_value = 1;
}

int tally_merge(tally *dst, const tally *src, char *err, size_t errlen)
{
    for (size_t i = 0; i < src->nchecks; i++) {
        int j = tally_check_id(dst, src->checks[i].name);
        if (j < 0) {
            err_set(err, errlen, "check \"%s\": more than %d check names", src->checks[i].name,
                    TALLY_CHECKS_MAX);
            return -1;
        }
        dst->checks[j].passes += src->checks[i].passes;
        dst->checks[j].fails += src->checks[i].fails;
    }
    for (size_t i = 0; i < src->nmetrics; i++) {
        const tally_metric *s = &src->metrics[i];
        tally_metric *d = metric_of(dst, s, err, errlen);
        if (d == NULL)
            return -1;
        d->n += s->n;
        d->sum += s->sum;
        if (s->h != NULL)
            hist_merge(d->h, s->h);
        d->fraction |= s->fraction;
        if (s->kind == TALLY_GAUGE && s->has_value)
            tally_gauge_merge(d, s->value, s->set_us, s->min, s->max);
    }
    return 0;
}

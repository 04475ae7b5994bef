#include "proto/interval_tally.h"

#include <math.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/utf8.h"

int interval_tally_check_name_ok(const char *name)
{
    size_t n = strlen(name), len;
    uint32_t c = 0;

    if (n == 0 || n >= TALLY_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i += len) {
        len = utf8_decode((const unsigned char *)name + i, n - i, &c);
        if (len == 0 || c < 0x20 || (c >= 0x7f && c < 0xa0))
            return 0; /* JSON, XML and terminals take it as it is */
    }
    return 1;
}

/* 1 when m has something to say this second. */
static int metric_says(const tally_metric *m)
{
    return m->n > 0 || (m->kind == TALLY_GAUGE && m->has_value);
}

static Quern__MetricSample *metric_msg(const tally_metric *t, uint8_t **buf)
{
    Quern__MetricSample *o = xmalloc(sizeof(*o));
    size_t cap = hist_encoded_size_max(), len;

    quern__metric_sample__init(o);
    o->name = xstrdup(t->name);
    o->kind = (uint32_t)t->kind;
    o->n = t->n;
    o->sum = t->sum;
    o->has_value = t->has_value ? 1 : 0;
    o->value = t->value;
    o->set_us = t->set_us;
    o->min = t->min;
    o->max = t->max;
    o->fraction = t->fraction ? 1 : 0;
    if (t->h != NULL && hist_count(t->h) > 0) {
        if (*buf == NULL)
            *buf = xmalloc(cap);
        len = hist_encode(t->h, *buf, cap);
        if (len > 0) {
            o->histogram.data = xmalloc(len);
            memcpy(o->histogram.data, *buf, len);
            o->histogram.len = len;
        }
    }
    return o;
}

void interval_tally_msg_set(Quern__Interval *m, const tally *t)
{
    uint8_t *buf = NULL;
    size_t n = 0;

    for (size_t i = 0; i < t->nchecks; i++)
        n += t->checks[i].passes + t->checks[i].fails > 0;
    if (n > 0) {
        m->checks = xcalloc(n, sizeof(*m->checks));
        for (size_t i = 0; i < t->nchecks; i++) {
            Quern__CheckCount *c;
            if (t->checks[i].passes + t->checks[i].fails == 0)
                continue;
            c = xmalloc(sizeof(*c));
            quern__check_count__init(c);
            c->name = xstrdup(t->checks[i].name);
            c->passes = t->checks[i].passes;
            c->fails = t->checks[i].fails;
            m->checks[m->n_checks++] = c;
        }
    }
    n = 0;
    for (size_t i = 0; i < t->nmetrics; i++)
        n += metric_says(&t->metrics[i]);
    if (n > 0) {
        m->metrics = xcalloc(n, sizeof(*m->metrics));
        for (size_t i = 0; i < t->nmetrics; i++)
            if (metric_says(&t->metrics[i]))
                m->metrics[m->n_metrics++] = metric_msg(&t->metrics[i], &buf);
    }
    xfree(buf);
}

void interval_tally_msg_clear(Quern__Interval *m)
{
    for (size_t i = 0; i < m->n_checks; i++) {
        xfree(m->checks[i]->name);
        xfree(m->checks[i]);
    }
    xfree(m->checks);
    m->checks = NULL;
    m->n_checks = 0;
    for (size_t i = 0; i < m->n_metrics; i++) {
        xfree(m->metrics[i]->name);
        xfree(m->metrics[i]->histogram.data);
        xfree(m->metrics[i]);
    }
    xfree(m->metrics);
    m->metrics = NULL;
    m->n_metrics = 0;
}

static int add_metric(tally *t, const Quern__MetricSample *s, char *err, size_t errlen)
{
    tally_metric *d;
    int i;

    if (s->name == NULL || !tally_name_ok(s->name)) {
        err_set(err, errlen, "malformed metric name");
        return -1;
    }
    if (!isfinite(s->sum) || !isfinite(s->value) || !isfinite(s->min) || !isfinite(s->max)) {
        err_set(err, errlen, "metric %s: a number that is not finite", s->name);
        return -1;
    }
    if (t->nmetrics == TALLY_METRICS_MAX && tally_metric_find(t, s->name) < 0)
        return 0; /* beyond the bound: a sender keeps the same one */
    i = tally_metric_def(t, s->name, (enum tally_kind)s->kind, err, errlen);
    if (i < 0)
        return -1;
    d = &t->metrics[i];
    d->n += s->n;
    d->sum += s->sum;
    d->fraction |= s->fraction;
    if (d->kind == TALLY_GAUGE && s->has_value)
        tally_gauge_merge(d, s->value, s->set_us, s->min, s->max);
    if (s->histogram.len > 0 &&
        (d->h == NULL || hist_merge_encoded(d->h, s->histogram.data, s->histogram.len) != 0)) {
        err_set(err, errlen, "metric %s: malformed histogram", s->name);
        return -1;
    }
    return 0;
}

int interval_tally_add_msg(tally *t, const Quern__Interval *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < m->n_checks; i++) {
        const Quern__CheckCount *c = m->checks[i];
        int j;
        if (c->name == NULL || !interval_tally_check_name_ok(c->name)) {
            err_set(err, errlen, "malformed check name");
            return -1;
        }
        j = tally_check_id(t, c->name);
        if (j < 0)
            continue; /* beyond the bound */
        t->checks[j].passes += c->passes;
        t->checks[j].fails += c->fails;
    }
    for (size_t i = 0; i < m->n_metrics; i++)
        if (add_metric(t, m->metrics[i], err, errlen) != 0)
            return -1;
    return 0;
}

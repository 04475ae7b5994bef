/* rate — the arrival schedule of the open model; see rate.h. */
#include "common/rate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"
#include "common/stages.h"

#define QUOTE_MAX 64   /* characters of the text an error quotes */
#define PART_MAX 64    /* longest duration part read */
#define COUNT_EPS 1e-9 /* L(end) = 4000.0000000001 still has 4000 arrivals */

void rate_counts_add(rate_counts *a, const rate_counts *b)
{
    a->scheduled += b->scheduled;
    a->started += b->started;
    a->late += b->late;
    a->init_waits += b->init_waits;
    a->inits += b->inits;
    a->dropped += b->dropped;
}

char *rate_counts_text(const rate_counts *c, char *buf, size_t len)
{
    unsigned long long ended = c->started + c->dropped;
    int n = snprintf(buf, len,
                     "%llu arrivals due: %llu started (%llu late, %llu after a new VU's init), "
                     "%llu dropped",
                     (unsigned long long)c->scheduled, (unsigned long long)c->started,
                     (unsigned long long)c->late, (unsigned long long)c->init_waits,
                     (unsigned long long)c->dropped);

    /* A window's arrivals may still wait at its end, or have been due
     * before it: said, so that the figures add up. */
    if (n >= 0 && (size_t)n < len && ended < c->scheduled)
        n += snprintf(buf + n, len - (size_t)n, ", %llu still waiting",
                      (unsigned long long)c->scheduled - ended);
    else if (n >= 0 && (size_t)n < len && ended > c->scheduled)
        n += snprintf(buf + n, len - (size_t)n, ", %llu of them due before",
                      ended - (unsigned long long)c->scheduled);
    if (n >= 0 && (size_t)n < len && c->inits > 0)
        snprintf(buf + n, len - (size_t)n, "; %llu VU(s) made, their init run then",
                 (unsigned long long)c->inits);
    return buf;
}

int rate_parse(const char *s, int zero_ok, double *per_s, char *err, size_t errlen)
{
    const char *slash = strchr(s, '/');
    char *end;
    double v, unit;

    if (slash == NULL || s[0] < '0' || s[0] > '9') {
        err_set(err, errlen,
                "\"%.*s\" is not a rate (a number, '/', a unit s, m or h; e.g. 200/s, 30/m)",
                QUOTE_MAX, s);
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end != slash || !isfinite(v)) {
        err_set(err, errlen, "\"%.*s\": \"%.*s\" is not a number", QUOTE_MAX, s,
                (int)(slash - s) < QUOTE_MAX ? (int)(slash - s) : QUOTE_MAX, s);
        return -1;
    }
    if (strcmp(slash + 1, "s") == 0)
        unit = 1;
    else if (strcmp(slash + 1, "m") == 0)
        unit = 60;
    else if (strcmp(slash + 1, "h") == 0)
        unit = 3600;
    else {
        err_set(err, errlen, "\"%.*s\": the unit after '/' is s, m or h (e.g. 200/s, 30/m)",
                QUOTE_MAX, s);
        return -1;
    }
    v /= unit;
    if (v > RATE_MAX_PER_S || (!zero_ok && v <= 0)) {
        err_set(err, errlen, "\"%.*s\": a rate is %s %g/s at most", QUOTE_MAX, s,
                zero_ok ? "from 0/s to" : "above 0/s and", RATE_MAX_PER_S);
        return -1;
    }
    *per_s = v;
    return 0;
}

char *rate_format(double per_s, char *buf, size_t len)
{
    snprintf(buf, len, "%.10g/s", per_s);
    return buf;
}

int rate_stage_parse_one(const char *s, rate_stage *out, char *err, size_t errlen)
{
    const char *rest;
    char rerr[ERR_MAX];
    rate_stage st;

    if (stages_split(s, "D:R (a duration, ':', a rate; e.g. 30s:100/s)", &st.dur_us, &rest, err,
                     errlen) != 0)
        return -1;
    if (rate_parse(rest, 1, &st.per_s, rerr, sizeof(rerr)) != 0) {
        err_set(err, errlen, "%s", rerr);
        return -1;
    }
    *out = st;
    return 0;
}

int rate_stages_check(const rate_stage *st, size_t n, char *err, size_t errlen)
{
    int64_t total = 0;
    int some = 0;

    if (n == 0) {
        err_set(err, errlen, "no stage: give one or more as D:R (e.g. 30s:100/s)");
        return -1;
    }
    if (n > RATE_STAGES_MAX) {
        err_set(err, errlen, "%zu stages, more than %u", n, RATE_STAGES_MAX);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (st[i].dur_us < 0 || st[i].dur_us > RATE_TIME_MAX_US - total) {
            err_set(err, errlen, "the stages last 31 days at most");
            return -1;
        }
        if (!isfinite(st[i].per_s) || st[i].per_s < 0 || st[i].per_s > RATE_MAX_PER_S) {
            err_set(err, errlen, "a rate is from 0/s to %g/s", RATE_MAX_PER_S);
            return -1;
        }
        total += st[i].dur_us;
        some |= st[i].per_s > 0;
    }
    if (total == 0 || !some || rate_total(st, n) == 0) {
        err_set(err, errlen, "the stages %s", total == 0 ? "last no time" : "start no run");
        return -1;
    }
    return 0;
}

static int rate_one(const char *item, size_t k, void *ud, char *err, size_t errlen)
{
    return rate_stage_parse_one(item, (rate_stage *)ud + k, err, errlen);
}

int rate_stages_parse(const char *s, rate_stage *out, size_t max, size_t *n, char *err,
                      size_t errlen)
{
    size_t k;

    if (stages_each(s, max, "D:R[,D:R...] (e.g. 1m:100/s,5m:100/s)", rate_one, out, &k, err,
                    errlen) != 0 ||
        rate_stages_check(out, k, err, errlen) != 0) {
        *n = 0;
        return -1;
    }
    *n = k;
    return 0;
}

char *rate_stages_format(const rate_stage *st, size_t n, char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        char d[64], r[64];
        int w = snprintf(buf + used, len - used, "%s%s:%s", i ? "," : "",
                         dur_format(st[i].dur_us, d, sizeof(d)),
                         rate_format(st[i].per_s, r, sizeof(r)));
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
    return buf;
}

int64_t rate_total_us(const rate_stage *st, size_t n)
{
    int64_t t = 0;

    for (size_t i = 0; i < n; i++)
        t += st[i].dur_us;
    return t;
}

/* Arrivals expected over a whole stage from rate a. */
static double stage_count(const rate_stage *s, double a)
{
    return (a + s->per_s) / 2 * ((double)s->dur_us / 1e6);
}

double rate_at(const rate_stage *st, size_t n, int64_t t_us)
{
    double a = 0;
    int64_t t0 = 0;

    if (t_us < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (t_us < t0 + st[i].dur_us)
            return a + (st[i].per_s - a) * (double)(t_us - t0) / (double)st[i].dur_us;
        t0 += st[i].dur_us;
        a = st[i].per_s;
    }
    return 0;
}

double rate_expected(const rate_stage *st, size_t n, int64_t t_us)
{
    double a = 0, sum = 0;
    int64_t t0 = 0;

    if (t_us <= 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (t_us < t0 + st[i].dur_us) {
            double tau = (double)(t_us - t0) / 1e6, d = (double)st[i].dur_us / 1e6;
            return sum + a * tau + (st[i].per_s - a) * tau * tau / (2 * d);
        }
        sum += stage_count(&st[i], a);
        t0 += st[i].dur_us;
        a = st[i].per_s;
    }
    return sum;
}

uint64_t rate_total(const rate_stage *st, size_t n)
{
    double all = rate_expected(st, n, rate_total_us(st, n)) - COUNT_EPS;

    return all > 0 ? (uint64_t)ceil(all) : 0;
}

void rate_cursor_init(rate_cursor *c, const rate_stage *st, size_t n, uint32_t stripe,
                      uint32_t stripes)
{
    memset(c, 0, sizeof(*c));
    c->st = st;
    c->n = n;
    c->k = stripe;
    c->step = stripes > 0 ? stripes : 1;
    c->total = rate_total(st, n);
}

int rate_cursor_next(rate_cursor *c, int64_t *at_us)
{
    double left, a, b, d, tau;

    if (c->k >= c->total)
        return -1;
    /* The stage in which L reaches k: each stage is passed once in a walk. */
    while (c->i < c->n && c->before + stage_count(&c->st[c->i], c->from) < (double)c->k) {
        c->before += stage_count(&c->st[c->i], c->from);
        c->t0_us += c->st[c->i].dur_us;
        c->from = c->st[c->i].per_s;
        c->i++;
    }
    if (c->i == c->n) {
        /* Rounding at the very end: due at the end, still before it. */
        *at_us = c->t0_us > 0 ? c->t0_us - 1 : 0;
        c->k += c->step;
        return 0;
    }
    left = (double)c->k - c->before;
    a = c->from;
    b = c->st[c->i].per_s;
    d = (double)c->st[c->i].dur_us / 1e6;
    if (left <= 0 || d == 0) {
        tau = 0;
    } else if (fabs(b - a) < 1e-12 * (a + b)) {
        tau = left / a;
    } else {
        /* a tau + (b - a) tau^2 / 2d = left, in the form without
         * cancellation (a may be 0, b may be below a). */
        double disc = a * a + 2 * (b - a) * left / d;
        tau = 2 * left / (a + sqrt(disc > 0 ? disc : 0));
    }
    *at_us = c->t0_us + (int64_t)llround(tau * 1e6);
    if (*at_us >= c->t0_us + c->st[c->i].dur_us && c->st[c->i].dur_us > 0)
        *at_us = c->t0_us + c->st[c->i].dur_us - 1;
    c->k += c->step;
    return 0;
}

int64_t rate_due(const rate_stage *st, size_t n, uint64_t k)
{
    rate_cursor c;
    int64_t at;

    rate_cursor_init(&c, st, n, 0, 1);
    c.k = k;
    return rate_cursor_next(&c, &at) == 0 ? at : -1;
}

uint64_t rate_stripe_total(const rate_stage *st, size_t n, uint32_t stripe, uint32_t stripes)
{
    uint64_t all = rate_total(st, n);

    if (stripes == 0)
        stripes = 1;
    return all > stripe ? (all - stripe + stripes - 1) / stripes : 0;
}

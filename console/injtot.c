/* injtot — the injector's own load over a run; see injtot.h. */
#include "console/injtot.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "common/saturation.h"

void injtot_init(injtot *t)
{
    memset(t, 0, sizeof(*t));
}

void injtot_free(injtot *t)
{
    for (size_t i = 0; i < t->n; i++)
        hist_free(t->w[i].lag);
    xfree(t->w);
    xfree(t->seen);
    xfree(t->sat);
    xfree(t->clr);
    memset(t, 0, sizeof(*t));
}

/* The entry of (agent, worker), added when new; NULL past the bound. */
static injtot_worker *find_worker(injtot *t, const char *agent, uint32_t worker)
{
    injtot_worker *w;

    for (size_t i = 0; i < t->n; i++)
        if (t->w[i].worker == worker && strcmp(t->w[i].agent, agent) == 0)
            return &t->w[i];
    if (t->n >= INJTOT_WORKERS_MAX)
        return NULL;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4;
        t->w = xreallocarray(t->w, t->cap, sizeof(*t->w));
    }
    w = &t->w[t->n++];
    memset(w, 0, sizeof(*w));
    snprintf(w->agent, sizeof(w->agent), "%s", agent);
    w->worker = worker;
    w->lag = hist_new();
    return w;
}

/* Makes room for the flags of second (below INJTOT_SECONDS_MAX). */
static void grow_bits(injtot *t, uint64_t second)
{
    size_t need = (size_t)(second / 8) + 1, n;

    if (need <= t->nbytes)
        return;
    n = t->nbytes ? t->nbytes : 64;
    while (n < need)
        n *= 2;
    t->seen = xrealloc(t->seen, n);
    t->sat = xrealloc(t->sat, n);
    t->clr = xrealloc(t->clr, n);
    memset(t->seen + t->nbytes, 0, n - t->nbytes);
    memset(t->sat + t->nbytes, 0, n - t->nbytes);
    memset(t->clr + t->nbytes, 0, n - t->nbytes);
    t->nbytes = n;
}

/* Counts second as measured, saturated when sat and clearly so when clr,
 * once each. */
static void count_second(injtot *t, uint64_t second, int sat, int clr)
{
    uint8_t bit;
    size_t i;

    if (second >= INJTOT_SECONDS_MAX) {
        t->measured_s++;
        t->saturated_s += sat != 0;
        t->clear_s += clr != 0;
        return;
    }
    grow_bits(t, second);
    i = (size_t)(second / 8);
    bit = (uint8_t)(1u << (second % 8));
    if (!(t->seen[i] & bit)) {
        t->seen[i] |= bit;
        t->measured_s++;
    }
    if (sat && !(t->sat[i] & bit)) {
        t->sat[i] |= bit;
        t->saturated_s++;
    }
    if (clr && !(t->clr[i] & bit)) {
        t->clr[i] |= bit;
        t->clear_s++;
    }
}

void injtot_add(injtot *t, uint64_t second, const interval_sum_load *l, size_t n, int late)
{
    int any = 0, clr = 0;

    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        injtot_worker *w = find_worker(t, l[i].agent, l[i].worker);
        any |= l[i].saturated;
        clr |= injtot_load_clear(&l[i]);
        if (w == NULL)
            continue;
        w->seconds++;
        w->saturated_s += l[i].saturated != 0;
        if (l[i].saturated)
            w->why |= l[i].why;
        if (l[i].cpu_permille > w->cpu_max_permille)
            w->cpu_max_permille = l[i].cpu_permille;
        if (l[i].loop_lag_max_us > w->lag_max_us)
            w->lag_max_us = l[i].loop_lag_max_us;
        if (l[i].lag_len > 0 && hist_merge_encoded(w->lag, l[i].lag, l[i].lag_len) != 0)
            t->bad++;
        if (second >= w->last_second) {
            w->last_second = second;
            w->last_cpu_permille = l[i].cpu_permille;
            w->last_lag_us = l[i].loop_lag_max_us;
            w->last_saturated = l[i].saturated != 0;
        }
    }
    count_second(t, second, any, clr);
    if (!late) {
        t->last_second = second;
        t->last_saturated = injtot_second_saturated(t, second);
    }
}

int injtot_load_clear(const interval_sum_load *l)
{
    return l->saturated && saturation_clear(l->why, l->loop_lag_max_us, l->start_lag_p99_us);
}

int injtot_second_saturated(const injtot *t, uint64_t second)
{
    if (second >= INJTOT_SECONDS_MAX || (size_t)(second / 8) >= t->nbytes)
        return 0;
    return (t->sat[second / 8] >> (second % 8)) & 1;
}

double injtot_share(const injtot *t)
{
    return t->measured_s > 0 ? (double)t->saturated_s / (double)t->measured_s : 0.;
}

const injtot_worker *injtot_worst(const injtot *t)
{
    const injtot_worker *best = NULL;

    for (size_t i = 0; i < t->n; i++) {
        const injtot_worker *w = &t->w[i];
        if (best == NULL || w->saturated_s > best->saturated_s ||
            (w->saturated_s == best->saturated_s && w->cpu_max_permille > best->cpu_max_permille))
            best = w;
    }
    return best;
}

uint32_t injtot_cpu_max(const injtot *t)
{
    uint32_t m = 0;

    for (size_t i = 0; i < t->n; i++)
        if (t->w[i].cpu_max_permille > m)
            m = t->w[i].cpu_max_permille;
    return m;
}

uint64_t injtot_worker_lag_p99_us(const injtot_worker *w)
{
    return w->lag != NULL && hist_count(w->lag) > 0 ? hist_percentile(w->lag, 99.0) : 0;
}

uint64_t injtot_lag_p99_us(const injtot *t)
{
    hist *all;
    uint64_t p;

    /* Merged when asked (the summary, the metrics), not each second. */
    all = hist_new();
    for (size_t i = 0; i < t->n; i++)
        hist_merge(all, t->w[i].lag);
    p = hist_count(all) > 0 ? hist_percentile(all, 99.0) : 0;
    hist_free(all);
    return p;
}

const injtot_worker *injtot_last_worst(const injtot *t, uint32_t *nsat, uint32_t *n)
{
    const injtot_worker *worst = NULL;
    uint32_t k = 0, s = 0;

    for (size_t i = 0; i < t->n; i++) {
        const injtot_worker *w = &t->w[i];
        if (w->seconds == 0 || w->last_second != t->last_second)
            continue;
        k++;
        s += w->last_saturated != 0;
        if (worst == NULL || w->last_saturated > worst->last_saturated ||
            (w->last_saturated == worst->last_saturated && w->last_lag_us > worst->last_lag_us))
            worst = w;
    }
    if (nsat != NULL)
        *nsat = s;
    if (n != NULL)
        *n = k;
    return worst;
}

void injtot_name(const injtot *t, const injtot_worker *w, char *buf, size_t len)
{
    int agents = 0;

    for (size_t i = 0; i < t->n && !agents; i++)
        agents = strcmp(t->w[i].agent, t->w[0].agent) != 0;
    snprintf(buf, len, "worker %s%s%u", agents ? w->agent : "", agents ? "/" : "", w->worker);
}

void injtot_describe(const injtot_worker *w, char *buf, size_t len)
{
    snprintf(buf, len, "agent %s, worker %u: CPU %.0f %%, loop lag p99 %.0f ms", w->agent,
             w->worker, (double)w->cpu_max_permille / 10.,
             (double)injtot_worker_lag_p99_us(w) / 1e3);
}

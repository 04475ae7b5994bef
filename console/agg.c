#include "console/agg.h"

#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"

void agg_init(agg *a, size_t nsteps, size_t nscens)
{
    memset(a, 0, sizeof(*a));
    a->nsteps = nsteps;
    a->nscens = nscens;
    a->total = stats_array_new(nsteps);
    stats_init(&a->last);
    a->runs = xcalloc(nscens ? nscens : 1, sizeof(*a->runs));
    a->missed_pacing = xcalloc(nscens ? nscens : 1, sizeof(*a->missed_pacing));
    a->arrivals = xcalloc(nscens ? nscens : 1, sizeof(*a->arrivals));
    a->start_lag = xcalloc(nscens ? nscens : 1, sizeof(*a->start_lag));
    injtot_init(&a->inj);
    injtot_init(&a->console);
    tally_init(&a->tally);
}

void agg_free(agg *a)
{
    stats_array_free(a->total, a->nsteps);
    stats_free(&a->last);
    xfree(a->runs);
    xfree(a->missed_pacing);
    xfree(a->arrivals);
    for (size_t i = 0; a->start_lag != NULL && i < a->nscens; i++)
        hist_free(a->start_lag[i]);
    xfree(a->start_lag);
    injtot_free(&a->inj);
    injtot_free(&a->console);
    tally_free(&a->tally);
    memset(a, 0, sizeof(*a));
}

void agg_add(agg *a, const step_stats *steps, const uint64_t *runs, const uint64_t *missed,
             int64_t length_us, uint32_t active_vus)
{
    stats_reset(&a->last);
    for (size_t i = 0; i < a->nsteps; i++) {
        stats_merge(&a->total[i], &steps[i]);
        stats_merge(&a->last, &steps[i]);
    }
    for (size_t i = 0; i < a->nscens; i++) {
        a->runs[i] += runs[i];
        a->missed_pacing[i] += missed[i];
    }
    a->intervals++;
    a->elapsed_us += length_us;
    a->last_length_us = length_us;
    a->active_vus = active_vus;
    if (active_vus > a->vus_peak)
        a->vus_peak = active_vus;
}

void agg_add_arrivals(agg *a, const rate_counts *arr)
{
    for (size_t i = 0; arr != NULL && i < a->nscens; i++)
        rate_counts_add(&a->arrivals[i], &arr[i]);
}

void agg_add_held(agg *a, uint64_t n, uint64_t us, uint64_t max_us)
{
    a->held += n;
    a->held_us += us;
    if (max_us > a->held_max_us)
        a->held_max_us = max_us;
}

void agg_add_delivery(agg *a, uint32_t planned, uint32_t started, uint64_t asked_us,
                      uint64_t lost_us)
{
    a->vus_planned += planned;
    a->vus_started += started;
    a->pace_asked_us += asked_us;
    a->pace_lost_us += lost_us;
}

double agg_held_mean_ms(const agg *a)
{
    return a->held > 0 ? (double)a->held_us / 1e3 / (double)a->held : 0.;
}

void agg_add_lag(agg *a, hist *const *lag)
{
    for (size_t i = 0; lag != NULL && i < a->nscens; i++) {
        if (lag[i] == NULL || hist_count(lag[i]) == 0)
            continue;
        if (a->start_lag[i] == NULL)
            a->start_lag[i] = hist_new();
        hist_merge(a->start_lag[i], lag[i]);
    }
}

int agg_arrivals_all(const agg *a, rate_counts *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < a->nscens; i++)
        rate_counts_add(out, &a->arrivals[i]);
    return out->scheduled > 0 || out->dropped > 0;
}

void agg_add_tally(agg *a, const tally *sec)
{
    char err[ERR_MAX];

    if (tally_merge(&a->tally, sec, err, sizeof(err)) != 0 && !a->tally_warned) {
        a->tally_warned = 1;
        log_msg(LOG_WARN, "checks and metrics: %s (dropped)", err);
    }
}

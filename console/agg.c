#include "console/agg.h"

#include <string.h>

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
}

void agg_free(agg *a)
{
    stats_array_free(a->total, a->nsteps);
    stats_free(&a->last);
    xfree(a->runs);
    xfree(a->missed_pacing);
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
}

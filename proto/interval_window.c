#include "proto/interval_window.h"

#include <string.h>

#include "common/clock.h"

void interval_window_init(interval_window *w, size_t nsteps, size_t nscens, int64_t grace_us,
                          interval_window_emit_fn emit, void *ud)
{
    memset(w, 0, sizeof(*w));
    w->nsteps = nsteps;
    w->nscens = nscens;
    w->grace_us = grace_us;
    w->emit = emit;
    w->ud = ud;
}

void interval_window_free(interval_window *w)
{
    for (int i = 0; i < INTERVAL_WINDOW_SLOTS; i++) {
        if (w->slot[i].made)
            interval_sum_free(&w->slot[i].sum);
        w->slot[i].used = 0;
        w->slot[i].made = 0;
    }
}

static void hand_on(interval_window *w, int i, int late)
{
    w->emit(w->ud, w->slot[i].second, &w->slot[i].sum, late);
    if (!late && w->slot[i].second >= w->flushed)
        w->flushed = w->slot[i].second + 1;
    w->slot[i].used = 0; /* its sum is emptied when the slot is used again */
}

void interval_window_flush(interval_window *w, unsigned alive, int force)
{
    int64_t now = clock_mono_us();

    for (;;) {
        int oldest = -1, due = -1;
        for (int i = 0; i < INTERVAL_WINDOW_SLOTS; i++) {
            if (!w->slot[i].used)
                continue;
            if (oldest < 0 || w->slot[i].second < w->slot[oldest].second)
                oldest = i;
            if ((force || w->slot[i].sum.senders >= alive ||
                 now - w->slot[i].first_us >= w->grace_us) &&
                (due < 0 || w->slot[i].second > w->slot[due].second))
                due = i;
        }
        if (oldest < 0 || due < 0)
            return;
        hand_on(w, oldest, 0);
    }
}

int interval_window_add(interval_window *w, const Quern__Interval *m, const char *const *scen_names,
                        unsigned alive, char *err, size_t errlen)
{
    int found = -1, free_slot = -1;
    int late = m->second < w->flushed;

    for (int i = 0; i < INTERVAL_WINDOW_SLOTS; i++) {
        if (w->slot[i].used && w->slot[i].second == m->second && !late)
            found = i;
        else if (!w->slot[i].used && free_slot < 0)
            free_slot = i;
    }
    if (found < 0) {
        if (free_slot < 0) {
            interval_window_flush(w, alive, 1); /* too many seconds open: the oldest go */
            free_slot = 0;
        }
        found = free_slot;
        w->slot[found].used = 1;
        w->slot[found].second = m->second;
        w->slot[found].first_us = clock_mono_us();
        /* a second's 50 steps' histograms are not allocated anew each second */
        if (w->slot[found].made) {
            interval_sum_reset(&w->slot[found].sum);
        } else {
            interval_sum_init(&w->slot[found].sum, w->nsteps, w->nscens);
            w->slot[found].made = 1;
        }
    }
    /* A malformed message may have added part of itself; the second keeps
     * the other senders' data and is handed on as usual. */
    if (interval_sum_add_msg(&w->slot[found].sum, m, scen_names, err, errlen) != 0)
        return -1;
    if (late)
        hand_on(w, found, 1);
    else
        interval_window_flush(w, alive, 0);
    return 0;
}

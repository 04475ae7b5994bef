/* rollwin — thresholds judged in every window of D seconds ("p95[10s]<300ms").
 *
 * What it is for: a threshold over the whole run averages a bad stretch
 * away: a 2 s freeze in a 20 s run passes p95<300ms, and a user who waited
 * 2 s does not care. A windowed threshold (console/thresh.h, "[D]") holds in
 * every window of D consecutive seconds of the run, and its verdict is the
 * worst window's, named with when it was. Exact: each window is judged on
 * the per-second merged statistics of its seconds (the histograms merged,
 * the counts summed), the same as the whole-run figure of those seconds.
 *
 * For each windowed threshold, rollwin keeps its scope's steps merged into
 * one step_stats per second, in a ring of 2 x D seconds (memory: 2 x D
 * histograms a threshold, never a run's length of them). Each merged second
 * judges the window that ends with it, once D seconds have come; a part of
 * a second that comes late (an agent behind the merge) is added to its
 * second and the windows that hold it judged again, within the ring. A
 * window with no sample is not judged (nothing was measured: the count>=1
 * default judges an empty run). A run shorter than D is judged at the end
 * as one window of what it had.
 *
 * Usage:
 *     rollwin *w = rollwin_new(ths, nth, ids, names, nsteps);  // NULL: none windowed
 *     each merged second: rollwin_second(w, second, sum, late);
 *     rollwin_end(w);
 *     rollwin_eval(w, i, ths[i], &agg, ids, names, secs, &res);  // worst window, or the run's
 *     rollwin_free(w);
 * Cost per second: a merge of the scope's steps into one slot per windowed
 * threshold, and a merge of its D slots to judge the window. */
#ifndef QUERN_ROLLWIN_H
#define QUERN_ROLLWIN_H

#include <stddef.h>
#include <stdint.h>

#include "console/agg.h"
#include "console/thresh.h"
#include "proto/interval_sum.h"

typedef struct rollwin rollwin;

/** The windows of the windowed thresholds among ths (nth, borrowed: they
 *  outlive w), for a script of nsteps steps whose ids and display names
 *  are ids and names (read here: each threshold's steps are found once).
 *  NULL when none is windowed. */
rollwin *rollwin_new(thresh *const *ths, size_t nth, const char *const *ids,
                     const char *const *names, size_t nsteps);

/** Takes one merged second (late: a part that came after it was merged). */
void rollwin_second(rollwin *w, uint64_t second, const interval_sum *sum, int late);

/** At the run's end: a threshold with no window judged yet (a run shorter
 *  than its window) is judged on what its seconds hold. */
void rollwin_end(rollwin *w);

/** Threshold i's verdict into *out and out->passed returned: for a windowed
 *  one, its worst window so far ("p95[5s] of all steps = 812 ms, limit <
 *  300 ms, in its worst 5 s window, 11-16 s of the run (16 windows)"), and a
 *  pass while no window was judged; for another, thresh_eval on a (ids,
 *  names, elapsed_s as there). w may be NULL. */
int rollwin_eval(const rollwin *w, size_t i, const thresh *t, const agg *a, const char *const *ids,
                 const char *const *names, double elapsed_s, thresh_result *out);

/** Windows judged so far for threshold i (0: not windowed, or none yet). */
uint64_t rollwin_judged(const rollwin *w, size_t i);

/** Releases w; NULL is fine. */
void rollwin_free(rollwin *w);

#endif

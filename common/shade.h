/* shade — the stretches of seconds shaded on every time chart of a run: the
 * seconds the injector did not keep up in, the seconds it was paused.
 *
 * What it is for: the results store reads a run's saturated and paused
 * seconds into two shades (store/query.h), the console's live page keeps its
 * own as the run goes (console/web_state.h), and reports/chart.h draws them
 * behind the curves. A shade is only the bands and how to name them: it knows
 * nothing of SVG nor of the database.
 *
 * Seconds the injector did not keep up in (common/saturation.h) are added one
 * at a time, in order; touching or overlapping stretches merge:
 *     shade sh; shade_init(&sh, "injector saturated", SHADE_SAT_COLOR);
 *     shade_add(&sh, 12, 13, &fig);   // each saturated second, in order
 *     c.shades = &sh; c.nshades = 1;  chart_svg(out, &c);
 *     shade_free(&sh);
 */
#ifndef QUERN_SHADE_H
#define QUERN_SHADE_H

#include <stddef.h>
#include <stdint.h>

/** The colour of the injector's saturated seconds on a run's report. */
#define SHADE_SAT_COLOR "#f59e0b"
/** The shade of the seconds a run was paused (quern ctl pause). */
#define SHADE_PAUSE_COLOR "#64748b"
/** Most bands a shade keeps: later stretches widen the last band (it then
 *  says "and later stretches"), so that a run saturated every other second
 *  for a week does not draw a million rectangles per chart. */
#define SHADE_BANDS_MAX 1000
/** Bytes of a band's worker name, NUL included ("worker AGENT/N"). */
#define SHADE_WHO_MAX 96

/** The injector's figures of a saturated second, or the worst of a band's. */
typedef struct shade_sat {
    uint32_t saturated;      /**< workers saturated in it */
    uint32_t workers;        /**< workers that reported it */
    double cpu_pct;          /**< the busiest worker's CPU, 100 = one core */
    double lag_ms;           /**< the worst lateness of a worker's event loop */
    char who[SHADE_WHO_MAX]; /**< "worker 0" when known, "" otherwise */
} shade_sat;

/** Saturated seconds [from_s, to_s) of a run, contiguous, and their worst
 *  figures (the largest of each). */
typedef struct shade_band {
    uint64_t from_s, to_s;
    shade_sat worst; /**< who: of the second with the worst lag */
    int merged;      /**< 1: later stretches folded in (SHADE_BANDS_MAX) */
} shade_band;

/** One run's saturated seconds as bands, in order of time. A copy given
 *  another label or colour (quern compare's) is a view of the same bands:
 *  only the original is freed. */
typedef struct shade {
    const char *label; /**< borrowed: its legend text */
    const char *color; /**< borrowed: "#rrggbb" */
    shade_band *bands; /**< owned: n of cap, sorted, not overlapping */
    size_t n, cap;
    int plain; /**< 1: its bands carry no figures (a run's pauses): a title names the seconds */
} shade;

/** An empty shade drawn in color, named label in the legends. */
void shade_init(shade *sh, const char *label, const char *color);
/** Releases what sh owns; it is then empty. */
void shade_free(shade *sh);
/** Adds the saturated seconds [from_s, to_s) with figures f: merged into the
 *  last band when they touch or overlap it, else a new band (past
 *  SHADE_BANDS_MAX, the last band widened). Seconds are added in order; a
 *  stretch starting before the last band's end joins it. Empty ranges are
 *  ignored. */
void shade_add(shade *sh, uint64_t from_s, uint64_t to_s, const shade_sat *f);

#endif

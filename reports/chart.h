/* chart — time-series charts drawn as inline SVG, for the HTML pages.
 *
 * What it is for: every chart of `quern report` and `quern compare` is an
 * <svg> element written here, with labelled axes, a legend, and one hover
 * zone per point whose <title> shows the values (the browser's own tooltip:
 * no script needed), so that the page opens offline.
 *
 * Usage:
 *     chart_series s[] = {{"total", CHART_COLOR(0), rps, n, 0}};
 *     chart c = {.title = "Throughput", .unit = "req/s", .npts = n,
 *                .width_s = 1, .series = s, .nseries = 1};
 *     chart_svg(out, &c);     // inside a page opened by html_head
 *
 * Seconds the injector did not keep up in (common/saturation.h) are shaded
 * on every time chart as bands behind the curves, one legend entry per run:
 *     chart_shade sh; chart_shade_init(&sh, "injector saturated", CHART_SAT_COLOR);
 *     chart_shade_add(&sh, 12, 13, &fig);   // each saturated second, in order
 *     c.shades = &sh; c.nshades = 1;  chart_svg(out, &c);
 *     chart_shade_free(&sh);
 *
 * Output goes through stdio: the caller checks ferror() once at the end. */
#ifndef QUERN_CHART_H
#define QUERN_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Most points a chart is given (longer runs are bucketed by the caller). */
#define CHART_POINTS_MAX 600

/** Number of colours in the palette (CHART_COLOR wraps around). */
#define CHART_PALETTE_SIZE 10
/** The i-th colour of the palette, as "#rrggbb". */
#define CHART_COLOR(i) (chart_palette[(size_t)(i) % CHART_PALETTE_SIZE])
/** The palette: distinct, readable on white. */
extern const char *const chart_palette[CHART_PALETTE_SIZE];

/** The colour of the injector's saturated seconds on a run's report. */
#define CHART_SAT_COLOR "#f59e0b"
/** The shade of the seconds a run was paused (quern ctl pause). */
#define CHART_PAUSE_COLOR "#64748b"
/** Most bands a shade keeps: later stretches widen the last band (it then
 *  says "and later stretches"), so that a run saturated every other second
 *  for a week does not draw a million rectangles per chart. */
#define CHART_BANDS_MAX 1000
/** Bytes of a band's worker name, NUL included ("worker AGENT/N"). */
#define CHART_WHO_MAX 96

/** The injector's figures of a saturated second, or the worst of a band's. */
typedef struct chart_sat {
    uint32_t saturated;      /**< workers saturated in it */
    uint32_t workers;        /**< workers that reported it */
    double cpu_pct;          /**< the busiest worker's CPU, 100 = one core */
    double lag_ms;           /**< the worst lateness of a worker's event loop */
    char who[CHART_WHO_MAX]; /**< "worker 0" when known, "" otherwise */
} chart_sat;

/** Saturated seconds [from_s, to_s) of a run, contiguous, and their worst
 *  figures (the largest of each). */
typedef struct chart_band {
    uint64_t from_s, to_s;
    chart_sat worst; /**< who: of the second with the worst lag */
    int merged;      /**< 1: later stretches folded in (CHART_BANDS_MAX) */
} chart_band;

/** One run's saturated seconds as bands, in order of time. A copy given
 *  another label or colour (quern compare's) is a view of the same bands:
 *  only the original is freed. */
typedef struct chart_shade {
    const char *label; /**< borrowed: its legend text */
    const char *color; /**< borrowed: "#rrggbb" */
    chart_band *bands; /**< owned: n of cap, sorted, not overlapping */
    size_t n, cap;
    int plain; /**< 1: its bands carry no figures (a run's pauses): a title names the seconds */
} chart_shade;

/** An empty shade drawn in color, named label in the legends. */
void chart_shade_init(chart_shade *sh, const char *label, const char *color);
/** Releases what sh owns; it is then empty. */
void chart_shade_free(chart_shade *sh);
/** Adds the saturated seconds [from_s, to_s) with figures f: merged into the
 *  last band when they touch or overlap it, else a new band (past
 *  CHART_BANDS_MAX, the last band widened). Seconds are added in order; a
 *  stretch starting before the last band's end joins it. Empty ranges are
 *  ignored. */
void chart_shade_add(chart_shade *sh, uint64_t from_s, uint64_t to_s, const chart_sat *f);

/** One line (or one bar stack layer) of a chart. All borrowed. */
typedef struct chart_series {
    const char *name;  /**< legend text (escaped when written) */
    const char *color; /**< "#rrggbb" */
    const double *y;   /**< n values; NAN (or any value not finite) leaves a gap */
    size_t n;          /**< may be less than the chart's npts */
    int dashed;        /**< 1: a dashed line (the baseline of a comparison) */
} chart_series;

/** How a chart draws its series. */
enum chart_kind {
    CHART_LINES = 0, /**< one line per series */
    CHART_AREA,      /**< lines, the first series filled down to zero */
    CHART_STACKED    /**< stacked bars, first series at the bottom */
};

/** A time-series chart; x is the elapsed time of the run. All borrowed. */
typedef struct chart {
    const char *title; /**< above the chart (escaped) */
    const char *unit;  /**< of the y axis, e.g. "req/s", "ms" */
    size_t npts;       /**< points on the x axis (>= every series' n) */
    unsigned width_s;  /**< seconds per point (>= 1) */
    int small;         /**< 1: half-width chart (laid out two by row) */
    enum chart_kind kind;
    const chart_series *series;
    size_t nseries;
    const chart_shade *shades; /**< nshades runs' saturated seconds, shaded (may be NULL) */
    size_t nshades;
} chart;

/** Writes c as a <figure> holding its title and an inline <svg>: y axis
 *  from 0 to a round value above the largest point, labelled ticks on both
 *  axes, grid lines, a legend, and a hover zone per point. Each shade's
 *  bands are clipped to the x axis and drawn behind the curves as
 *  <rect class="sat" data-from="S" data-to="E"> (seconds, E excluded) whose
 *  <title> gives their figures, which the hover zones they cover repeat; a
 *  shade with a band on the axis has one legend entry, one without none. A
 *  chart without any value says so instead of drawing empty axes. */
void chart_svg(FILE *out, const chart *c);

#endif

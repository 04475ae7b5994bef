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
 * Seconds the injector did not keep up in (common/saturation.h) and seconds
 * paused are shaded on every time chart as bands behind the curves, one
 * legend entry per run: a chart is given shades (common/shade.h).
 *
 * Output goes through stdio: the caller checks ferror() once at the end. */
#ifndef QUERN_CHART_H
#define QUERN_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/shade.h"

/** Number of colours in the palette (CHART_COLOR wraps around). */
#define CHART_PALETTE_SIZE 10
/** The i-th colour of the palette, as "#rrggbb". */
#define CHART_COLOR(i) (chart_palette[(size_t)(i) % CHART_PALETTE_SIZE])
/** The palette: distinct, readable on white. */
extern const char *const chart_palette[CHART_PALETTE_SIZE];

/** One line (or one bar stack layer) of a chart. All borrowed. */
typedef struct chart_series {
    const char *name;  /**< borrowed: legend text (escaped when written) */
    const char *color; /**< borrowed: "#rrggbb" */
    const double *y;   /**< borrowed: n values; NAN (or any value not finite) leaves a gap */
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
    const char *title; /**< borrowed: above the chart (escaped) */
    const char *unit;  /**< borrowed: of the y axis, e.g. "req/s", "ms" */
    size_t npts;       /**< points on the x axis (>= every series' n) */
    unsigned width_s;  /**< seconds per point (>= 1) */
    int small;         /**< 1: half-width chart (laid out two by row) */
    enum chart_kind kind;
    const chart_series *series; /**< borrowed: nseries lines */
    size_t nseries;
    const shade *shades; /**< borrowed: nshades runs' saturated seconds, shaded (may be NULL) */
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

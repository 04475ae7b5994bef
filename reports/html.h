/* html — what the HTML reports share: escaping, the stylesheet, number
 * formats and time-series charts drawn as inline SVG.
 *
 * What it is for: `quern report` and `quern compare` each write one
 * self-contained HTML file that opens offline: no script, no external style,
 * font or image. Every chart is an <svg> element written here, with labelled
 * axes, a legend, and one hover zone per point whose <title> shows the values
 * (the browser's own tooltip: no script needed).
 *
 * Usage:
 *     html_head(out, "quern report: run 12");        // <!DOCTYPE>, <style>, <body>
 *     html_esc(out, text_from_the_database);          // always escape DB text
 *     html_series s[] = {{"total", HTML_COLOR(0), rps, n, 0}};
 *     html_chart c = {.title = "Throughput", .unit = "req/s", .npts = n,
 *                     .width_s = 1, .series = s, .nseries = 1};
 *     html_chart_svg(out, &c);
 *     html_foot(out);
 *
 * Output goes through stdio: the caller checks ferror() once at the end. */
#ifndef QUERN_HTML_H
#define QUERN_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Most points a chart is given (longer runs are bucketed by the caller). */
#define HTML_CHART_POINTS_MAX 600

/** Number of colours in the palette (HTML_COLOR wraps around). */
#define HTML_PALETTE_SIZE 10
/** The i-th colour of the palette, as "#rrggbb". */
#define HTML_COLOR(i) (html_palette[(size_t)(i) % HTML_PALETTE_SIZE])
/** The palette: distinct, readable on white. */
extern const char *const html_palette[HTML_PALETTE_SIZE];

/** Writes s with &, <, >, " and ' escaped and control characters replaced
 *  by spaces, so it is safe as element text and inside quoted attributes.
 *  NULL writes nothing. */
void html_esc(FILE *out, const char *s);

/** Writes the document start: doctype, <head> with the title (escaped) and
 *  the stylesheet, and opens <body>. */
void html_head(FILE *out, const char *title);
/** Closes the document opened by html_head. */
void html_foot(FILE *out);

/** Formats a latency given in microseconds as milliseconds with a precision
 *  that suits its size ("0.42", "12.3", "1250"). Returns buf. */
const char *html_ms(double us, char *buf, size_t len);
/** Formats a count with thin spaces between thousands ("1 234 567").
 *  Returns buf. */
const char *html_count(uint64_t n, char *buf, size_t len);
/** Formats a rate or other real with about three significant digits.
 *  Returns buf. */
const char *html_num(double v, char *buf, size_t len);
/** Formats a duration in microseconds ("3.0 s", "2 min 05 s", "1 h 02 min").
 *  Negative: "-". Returns buf. */
const char *html_duration(int64_t us, char *buf, size_t len);
/** Formats an epoch time in microseconds as local "YYYY-MM-DD HH:MM:SS".
 *  Returns buf. */
const char *html_time(int64_t us, char *buf, size_t len);

/** One line (or one bar stack layer) of a chart. All borrowed. */
typedef struct html_series {
    const char *name;  /**< legend text (escaped when written) */
    const char *color; /**< "#rrggbb" */
    const double *y;   /**< n values; NAN leaves a gap */
    size_t n;          /**< may be less than the chart's npts */
    int dashed;        /**< 1: a dashed line (the baseline of a comparison) */
} html_series;

/** How a chart draws its series. */
enum html_chart_kind {
    HTML_LINES = 0, /**< one line per series */
    HTML_AREA,      /**< lines, the first series filled down to zero */
    HTML_STACKED    /**< stacked bars, first series at the bottom */
};

/** A time-series chart; x is the elapsed time of the run. All borrowed. */
typedef struct html_chart {
    const char *title; /**< above the chart (escaped) */
    const char *unit;  /**< of the y axis, e.g. "req/s", "ms" */
    size_t npts;       /**< points on the x axis (>= every series' n) */
    unsigned width_s;  /**< seconds per point (>= 1) */
    int small;         /**< 1: half-width chart (laid out two by row) */
    enum html_chart_kind kind;
    const html_series *series;
    size_t nseries;
} html_chart;

/** Writes c as a <figure> holding its title and an inline <svg>: y axis
 *  from 0 to a round value above the largest point, labelled ticks on both
 *  axes, grid lines, a legend, and a hover zone per point. A chart without
 *  any value says so instead of drawing empty axes. */
void html_chart_svg(FILE *out, const html_chart *c);

#endif

/* tplot — a load over time as a small text chart, for a terminal.
 *
 * What it is for: `quern check` shows what a run would play (VUs, or
 * arrivals a second) before it plays it. The chart is plain ASCII, a column
 * per slice of time, so that it reads the same in a CI log.
 *
 *     20 VUs |      ##########
 *            |   #############
 *            |################
 *          0 +----------------
 *             0s           20s
 *
 * Usage:
 *     double y[TPLOT_COLS];   // y[i]: the load over slice i of total_us
 *     tplot_draw(stdout, y, TPLOT_COLS, TPLOT_ROWS, total_us, "VUs");
 *
 * Output goes through stdio: the caller checks ferror() when it matters. */
#ifndef QUERN_TPLOT_H
#define QUERN_TPLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Columns and rows a chart usually has. */
#define TPLOT_COLS 60
#define TPLOT_ROWS 6

/** Draws the n values y (each the load over one n-th of total_us) rows
 *  lines high, the largest value and its unit labelling the top line and
 *  the time axis labelled from 0 to total_us. A column is as high as its
 *  value, rounded up, so a small load still shows. */
void tplot_draw(FILE *out, const double *y, size_t n, unsigned rows, int64_t total_us,
                const char *unit);

#endif

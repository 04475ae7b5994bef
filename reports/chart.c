#include "reports/chart.h"

#include <math.h>
#include <string.h>

#include "common/mem.h"
#include "common/utf8.h"
#include "reports/html.h"

#define CHART_W 1040
#define CHART_H 250
#define SMALL_W 520
#define SMALL_H 230
#define PAD_LEFT 58
#define PAD_RIGHT 18
#define PAD_BOTTOM 30
#define LEGEND_ROW 17
#define LEGEND_NAME_MAX 48 /* bytes of a series name shown in the legend */
#define CHAR_W 6.0         /* approximate width of an 11px character */
#define Y_TICKS 5
#define X_TICKS_MAX 10
#define SAT_OPACITY "0.22" /* a band's fill: the curves stay readable over it */

const char *const chart_palette[CHART_PALETTE_SIZE] = {
    "#2563eb", "#e5533d", "#16a34a", "#9333ea", "#d97706",
    "#0891b2", "#db2777", "#4b5563", "#65a30d", "#7c3aed",
};

/* A round step so that about n steps cover [0, max]. */
static double nice_step(double max, int n)
{
    double raw = max / n, mag, f;

    if (!(raw > 0) || !isfinite(raw))
        return 1.0;
    mag = pow(10.0, floor(log10(raw)));
    f = raw / mag;
    if (f <= 1.0)
        f = 1.0;
    else if (f <= 2.0)
        f = 2.0;
    else if (f <= 2.5)
        f = 2.5;
    else if (f <= 5.0)
        f = 5.0;
    else
        f = 10.0;
    return f * mag;
}

/* A y-axis label: at most about four characters of digits, in the same
 * unit (k, M) for every tick of an axis whose top is ymax. */
static void fmt_tick(double v, double ymax, char *buf, size_t len)
{
    if (v == 0)
        snprintf(buf, len, "0");
    else if (ymax >= 1e6)
        snprintf(buf, len, "%gM", round(v / 1e4) / 100.0);
    else if (ymax >= 1e4)
        snprintf(buf, len, "%gk", round(v / 10) / 100.0);
    else
        snprintf(buf, len, "%.4g", v);
}

/* An elapsed time on the x axis; span is the axis length in seconds. */
static void fmt_elapsed(uint64_t s, uint64_t span, char *buf, size_t len)
{
    if (span <= 120)
        snprintf(buf, len, "%llus", (unsigned long long)s);
    else if (span <= 3600)
        snprintf(buf, len, "%llu:%02llu", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, len, "%lluh%02llu", (unsigned long long)(s / 3600),
                 (unsigned long long)(s % 3600 / 60));
}

/* Seconds between x ticks: a round number giving at most X_TICKS_MAX ticks. */
static uint64_t x_tick_step(uint64_t span)
{
    static const uint64_t steps[] = {1,     2,     5,     10,    15,     20,    30,   60,
                                     120,   300,   600,   900,   1200,   1800,  3600, 7200,
                                     10800, 21600, 43200, 86400, 172800, 604800};

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (span / steps[i] <= X_TICKS_MAX)
            return steps[i];
    return span / X_TICKS_MAX + 1;
}

/* The legend text of a series: its name cut at LEGEND_NAME_MAX bytes, on a
 * UTF-8 character boundary. */
static size_t legend_len(const char *name)
{
    return name != NULL ? utf8_cut(name, strlen(name), LEGEND_NAME_MAX) : 0;
}

/* Writes name[0..n) escaped, with an ellipsis when it was cut. */
static void esc_n(FILE *out, const char *name, size_t n)
{
    char buf[LEGEND_NAME_MAX + 1];

    memcpy(buf, name, n);
    buf[n] = '\0';
    html_esc(out, buf);
    if (name[n] != '\0')
        fputs("\xe2\x80\xa6", out);
}

typedef struct chart_geo {
    double w, h, left, top, pw, ph; /* svg size; plot area origin and size */
    double ymax;
    size_t npts;
    unsigned width_s;
} chart_geo;

static double px_x(const chart_geo *g, double t_s)
{
    return g->left + t_s / ((double)g->npts * g->width_s) * g->pw;
}

static double px_y(const chart_geo *g, double v)
{
    return g->top + g->ph - v / g->ymax * g->ph;
}

/* 1 where a series has no point: NAN, and any other value that is not a
 * finite number (an infinity would write "-inf" into the path, which no
 * browser draws). */
static int no_point(double v)
{
    return !isfinite(v);
}

/* One series as a path; values that are no point cut it. A lone point
 * becomes a dot. */
static void draw_line(FILE *out, const chart_geo *g, const chart_series *s, int fill)
{
    size_t n = s->n < g->npts ? s->n : g->npts;
    size_t i = 0;

    while (i < n) {
        size_t start, end;
        while (i < n && no_point(s->y[i]))
            i++;
        if (i >= n)
            break;
        start = i;
        while (i < n && !no_point(s->y[i]))
            i++;
        end = i; /* [start, end) */
        if (end - start == 1) {
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                    px_x(g, (start + 0.5) * g->width_s), px_y(g, s->y[start]), s->color);
            continue;
        }
        if (fill) {
            fprintf(out, "<path fill=\"%s\" fill-opacity=\"0.13\" stroke=\"none\" d=\"M%.1f %.1f",
                    s->color, px_x(g, (start + 0.5) * g->width_s), px_y(g, 0));
            for (size_t k = start; k < end; k++)
                fprintf(out, "L%.1f %.1f", px_x(g, (k + 0.5) * g->width_s), px_y(g, s->y[k]));
            fprintf(out, "L%.1f %.1fZ\"/>\n", px_x(g, (end - 0.5) * g->width_s), px_y(g, 0));
        }
        fprintf(
            out,
            "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" stroke-linejoin=\"round\"%s "
            "d=\"",
            s->color, s->dashed ? " stroke-dasharray=\"6 4\"" : "");
        for (size_t k = start; k < end; k++)
            fprintf(out, "%c%.1f %.1f", k == start ? 'M' : 'L', px_x(g, (k + 0.5) * g->width_s),
                    px_y(g, s->y[k]));
        fputs("\"/>\n", out);
    }
}

static void draw_bars(FILE *out, const chart_geo *g, const chart *c)
{
    double bw = g->pw / (double)g->npts;
    double gap = bw > 4 ? bw * 0.15 : 0;

    for (size_t i = 0; i < g->npts; i++) {
        double base = 0;
        for (size_t k = 0; k < c->nseries; k++) {
            const chart_series *s = &c->series[k];
            double v = i < s->n ? s->y[i] : NAN;
            double y0, y1;
            if (no_point(v) || v <= 0)
                continue;
            y0 = px_y(g, base);
            y1 = px_y(g, base + v);
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    g->left + i * bw + gap / 2, y1, bw - gap, y0 - y1, s->color);
            base += v;
        }
    }
}

/* The largest value drawn (stacked: the tallest stack). */
static double chart_max(const chart *c, size_t npts)
{
    double max = 0;

    for (size_t i = 0; i < npts; i++) {
        double stack = 0;
        for (size_t k = 0; k < c->nseries; k++) {
            const chart_series *s = &c->series[k];
            double v = i < s->n ? s->y[i] : NAN;
            if (no_point(v))
                continue;
            if (c->kind == CHART_STACKED)
                stack += v > 0 ? v : 0;
            else if (v > max)
                max = v;
        }
        if (stack > max)
            max = stack;
    }
    return max;
}

/* The first band of sh that ends after t (sh->n when none). */
static size_t band_after(const shade *sh, uint64_t t)
{
    size_t lo = 0, hi = sh->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sh->bands[mid].to_s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 when sh has a band on an axis of span seconds. */
static int on_axis(const shade *sh, uint64_t span)
{
    return sh->n > 0 && sh->bands[0].from_s < span;
}

/* "injector saturated 12–17 s: worker 0 CPU 100 %, lag 280 ms", escaped. */
static void band_title(FILE *out, const shade *sh, const shade_band *b)
{
    const shade_sat *w = &b->worst;

    html_esc(out, sh->label);
    if (b->to_s - b->from_s > 1)
        fprintf(out, " %llu\xe2\x80\x93%llu s", (unsigned long long)b->from_s,
                (unsigned long long)(b->to_s - 1));
    else
        fprintf(out, " %llu s", (unsigned long long)b->from_s);
    if (sh->plain)
        return;
    fputs(": ", out);
    if (w->who[0] != '\0') {
        html_esc(out, w->who);
        fprintf(out, " CPU %.0f %%, lag %.0f ms", w->cpu_pct, w->lag_ms);
    } else {
        fprintf(out, "busiest worker CPU %.0f %%, worst lag %.0f ms", w->cpu_pct, w->lag_ms);
    }
    if (w->workers > 1)
        fprintf(out, " (%u of %u workers)", w->saturated, w->workers);
    if (b->merged)
        fputs(", and later stretches", out);
}

/* The shades' bands, clipped to the x axis, behind the curves. */
static void draw_bands(FILE *out, const chart_geo *g, const chart *c)
{
    uint64_t span = (uint64_t)g->npts * g->width_s;

    for (size_t k = 0; k < c->nshades; k++) {
        const shade *sh = &c->shades[k];
        for (size_t i = 0; i < sh->n && sh->bands[i].from_s < span; i++) {
            const shade_band *b = &sh->bands[i];
            uint64_t to = b->to_s < span ? b->to_s : span;
            double x0 = px_x(g, (double)b->from_s), x1 = px_x(g, (double)to);
            fprintf(out,
                    "<rect class=\"sat\" data-from=\"%llu\" data-to=\"%llu\" x=\"%.1f\" "
                    "y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                    "fill-opacity=\"" SAT_OPACITY "\"><title>",
                    (unsigned long long)b->from_s, (unsigned long long)to, x0, g->top, x1 - x0,
                    g->ph, sh->color);
            band_title(out, sh, b);
            fputs("</title></rect>\n", out);
        }
    }
}

/* One legend item iw wide at *x, *y, wrapped to a new row when it would
 * pass w; returns 1 when it opened a row. */
static int legend_place(double iw, double w, double *x, double *y)
{
    int wrap = *x + iw > w - PAD_RIGHT && *x > PAD_LEFT;

    if (wrap) {
        *x = PAD_LEFT;
        *y += LEGEND_ROW;
    }
    return wrap;
}

/* Legend items flow left to right and wrap, the series then each shown
 * shade; returns the rows used. */
static int legend(FILE *out, const chart *c, double w, int draw)
{
    double x = PAD_LEFT, y = 14;
    uint64_t span = (uint64_t)c->npts * (c->width_s > 0 ? c->width_s : 1);
    int rows = c->nseries > 0 ? 1 : 0;

    for (size_t k = 0; k < c->nseries; k++) {
        const chart_series *s = &c->series[k];
        size_t n = legend_len(s->name);
        double iw = 24 + (n + (s->name != NULL && s->name[n] != '\0')) * CHAR_W + 16;
        rows += legend_place(iw, w, &x, &y);
        if (draw) {
            if (c->kind == CHART_STACKED)
                fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"9\" fill=\"%s\"/>",
                        x, y - 8, s->color);
            else
                fprintf(out,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2.5\"%s/>",
                        x, y - 4, x + 18, y - 4, s->color,
                        s->dashed ? " stroke-dasharray=\"5 3\"" : "");
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 24, y);
            if (s->name != NULL)
                esc_n(out, s->name, n);
            fputs("</text>\n", out);
        }
        x += iw;
    }
    for (size_t k = 0; k < c->nshades; k++) {
        const shade *sh = &c->shades[k];
        size_t n = legend_len(sh->label);
        double iw = 24 + (n + (sh->label != NULL && sh->label[n] != '\0')) * CHAR_W + 16;
        if (!on_axis(sh, span))
            continue;
        rows += legend_place(iw, w, &x, &y);
        if (draw) {
            fprintf(out,
                    "<rect class=\"sat-key\" x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"11\" "
                    "fill=\"%s\" fill-opacity=\"" SAT_OPACITY "\"/><text x=\"%.1f\" y=\"%.1f\">",
                    x, y - 9, sh->color, x + 24, y);
            if (sh->label != NULL)
                esc_n(out, sh->label, n);
            fputs("</text>\n", out);
        }
        x += iw;
    }
    return rows;
}

/* Hover zones: one transparent column per point with the values in its
 * <title>, which the browser shows as a tooltip. */
static void hover_zones(FILE *out, const chart_geo *g, const chart *c)
{
    double bw = g->pw / (double)g->npts;
    uint64_t span = (uint64_t)g->npts * g->width_s;
    char t0[32], t1[32], v[32];

    for (size_t i = 0; i < g->npts; i++) {
        fprintf(out, "<rect class=\"hz\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">",
                g->left + i * bw, g->top, bw, g->ph);
        fmt_elapsed(i * g->width_s, span, t0, sizeof(t0));
        if (g->width_s > 1) {
            fmt_elapsed((i + 1) * g->width_s, span, t1, sizeof(t1));
            fprintf(out, "<title>%s to %s", t0, t1);
        } else {
            fprintf(out, "<title>at %s", t0);
        }
        for (size_t k = 0; k < c->nseries; k++) {
            const chart_series *s = &c->series[k];
            double y = i < s->n ? s->y[i] : NAN;
            fputs("\n", out);
            html_esc(out, s->name);
            if (no_point(y)) {
                fputs(": -", out);
            } else {
                fprintf(out, ": %s ", html_num(y, v, sizeof(v)));
                html_esc(out, c->unit);
            }
        }
        for (size_t k = 0; k < c->nshades; k++) {
            const shade *sh = &c->shades[k];
            size_t j = band_after(sh, i * g->width_s);
            if (j < sh->n && sh->bands[j].from_s < (i + 1) * g->width_s) {
                fputs("\n", out);
                band_title(out, sh, &sh->bands[j]);
            }
        }
        fputs("</title></rect>\n", out);
    }
}

void chart_svg(FILE *out, const chart *c)
{
    chart_geo g;
    int rows;
    double step;
    uint64_t span, xstep;
    char buf[32];

    fputs("<figure>\n<figcaption>", out);
    html_esc(out, c->title);
    fputs("</figcaption>\n", out);
    g.w = c->small ? SMALL_W : CHART_W;
    g.h = c->small ? SMALL_H : CHART_H;
    g.npts = c->npts;
    g.width_s = c->width_s > 0 ? c->width_s : 1;
    g.ymax = chart_max(c, c->npts);
    if (c->npts == 0 || c->nseries == 0 || !(g.ymax >= 0)) {
        fputs("<div class=\"empty\">no data</div>\n</figure>\n", out);
        return;
    }
    step = nice_step(g.ymax > 0 ? g.ymax : 1.0, Y_TICKS);
    g.ymax = ceil((g.ymax > 0 ? g.ymax : 1.0) / step - 1e-9) * step;
    if (g.ymax < step)
        g.ymax = step;
    rows = legend(out, c, g.w, 0);
    g.left = PAD_LEFT;
    g.top = 12 + rows * LEGEND_ROW;
    g.h += rows * LEGEND_ROW;
    g.pw = g.w - PAD_LEFT - PAD_RIGHT;
    g.ph = g.h - g.top - PAD_BOTTOM;

    fprintf(out,
            "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
            "role=\"img\" aria-label=\"",
            g.w, g.h);
    html_esc(out, c->title);
    fputs("\">\n", out);
    legend(out, c, g.w, 1);

    /* y grid, ticks and unit */
    for (int i = 0; i * step <= g.ymax + step * 1e-9; i++) {
        double v = i * step, y = px_y(&g, v);
        fmt_tick(v, g.ymax, buf, sizeof(buf));
        fprintf(out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                g.left, y, g.left + g.pw, y, g.left - 6, y + 4, buf);
    }
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f "
            "%.1f)\">",
            14.0, g.top + g.ph / 2, 14.0, g.top + g.ph / 2);
    html_esc(out, c->unit);
    fputs("</text>\n", out);

    /* x ticks: elapsed time */
    span = (uint64_t)g.npts * g.width_s;
    xstep = x_tick_step(span);
    for (uint64_t t = 0; t <= span; t += xstep) {
        double x = px_x(&g, (double)t);
        fmt_elapsed(t, span, buf, sizeof(buf));
        fprintf(out,
                "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, g.top + g.ph, x, g.top + g.ph + 4, x, g.top + g.ph + 16, buf);
    }
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">elapsed</text>\n"
            "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
            "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
            g.left + g.pw, g.h - 2, g.left, g.top, g.left, g.top + g.ph, g.left, g.top + g.ph,
            g.left + g.pw, g.top + g.ph);

    draw_bands(out, &g, c);
    if (c->kind == CHART_STACKED) {
        draw_bars(out, &g, c);
    } else {
        /* the first solid series last, so that "total" stays on top; dashed
         * ones (a baseline) above all, so that equal values show both */
        for (size_t k = c->nseries; k-- > 0;)
            if (!c->series[k].dashed)
                draw_line(out, &g, &c->series[k], c->kind == CHART_AREA && k == 0);
        for (size_t k = 0; k < c->nseries; k++)
            if (c->series[k].dashed)
                draw_line(out, &g, &c->series[k], 0);
    }
    hover_zones(out, &g, c);
    fputs("</svg>\n</figure>\n", out);
}

/* live — the live display of a run; see live.h. */
#include "console/live.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/dur.h"
#include "common/lbuf.h"
#include "common/mem.h"
#include "common/utf8.h"

#define DEFAULT_COLS 100 /* when the terminal does not say */
#define DEFAULT_ROWS 40
#define COLS_MIN 20
#define COLS_MAX 500
#define ROWS_MIN 6 /* header, column titles, one step, "more", totals, cursor */
#define ROWS_MAX 200
#define LINE_BYTES (4 * COLS_MAX) /* one line's text: COLS_MAX characters of 4 bytes */
#define LINE_ESC 8                /* "\r\033[2K" before a line, "\n" after */
#define BAR_MIN 10
#define BAR_MAX 20
#define NAME_MIN 8 /* the name column is never narrower */
/* The columns after the name: " %10s %9s %9s %8s %10s". */
#define NUMS_WIDTH (1 + 10 + 1 + 9 + 1 + 9 + 1 + 8 + 1 + 10)

struct live {
    FILE *out; /* borrowed */
    int mode;  /* LIVE_TABLE, LIVE_PLAIN or LIVE_QUIET */
    size_t nsteps;
    char **names;      /* owned: nsteps sanitised copies */
    size_t *name_cols; /* owned: display width of each name */
    size_t name_cols_max;
    int64_t planned_us;
    int cols, rows; /* set by live_set_size; 0: ask the terminal */

    /* Table: a frame is built here, then written at once. */
    char *frame; /* owned */
    lbuf screen; /* the frame being built, in frame */
    int drawn;   /* lines of the last frame on the screen, 0 if none */

    /* Plain: the updates since the last line. */
    hist *win; /* owned; plain mode only */
    uint64_t win_count, win_tech, win_func;
    int64_t win_us;
    unsigned win_n;
    int64_t elapsed_us; /* as of the latest update */
    uint32_t vus, alive, agents;
    rate_counts arr;     /**< plain: the open model's arrivals so far */
    int open;            /**< plain: the run has arrivals */
    char sat[128];       /**< plain: the window's worst saturated worker-second, "" if none */
    uint32_t sat_lag_us; /**< plain: its loop lag, to keep the worst */
};

/* ---- text: UTF-8 widths, one line at a time */

/* Appends cols spaces, or what fits of them. */
static void lb_pad(lbuf *lb, size_t cols)
{
    for (size_t i = 0; i < cols && lb->len < lb->cap; i++)
        lb->p[lb->len++] = ' ';
}

/* Length of the well-formed UTF-8 character (2 to 4 bytes) at s[0..n), or
 * 0 if there is none; C1 controls count as invalid too, since a terminal
 * may act on them. */
static size_t term_utf8_len(const unsigned char *s, size_t n)
{
    uint32_t c;
    size_t len = utf8_decode(s, n, &c);

    return len >= 2 && c >= 0xa0 ? len : 0;
}

/* The character at s[0..n) of sanitised text: returns its length in bytes
 * and sets *w to its width. Without a locale the width of a character is
 * not known: from U+1100 (where wide scripts begin) it counts as 2, which
 * at worst leaves a row a little short but never wraps it. */
static size_t char_at(const char *s, size_t n, size_t *w)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] < 0x80 ? 1 : u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 1;

    if (len > n)
        len = n;
    *w = 1;
    if (len == 4)
        *w = 2;
    else if (len == 3 && ((unsigned)(u[0] & 0x0f) << 12 | (unsigned)(u[1] & 0x3f) << 6) >= 0x1100)
        *w = 2;
    return len;
}

/* Display width of s[0..n). */
static size_t text_cols(const char *s, size_t n)
{
    size_t cols = 0, w;

    for (size_t i = 0; i < n;) {
        i += char_at(s + i, n - i, &w);
        cols += w;
    }
    return cols;
}

/* Bytes of the longest prefix of s[0..n) at most max columns wide; *cols
 * gets its width. */
static size_t prefix_fit(const char *s, size_t n, size_t max, size_t *cols)
{
    size_t i = 0, c = 0, w, len;

    while (i < n) {
        len = char_at(s + i, n - i, &w);
        if (c + w > max)
            break;
        c += w;
        i += len;
    }
    *cols = c;
    return i;
}

/* A copy of name with control characters and malformed UTF-8 as '?'. */
static char *sanitise(const char *name)
{
    const unsigned char *s = (const unsigned char *)(name != NULL ? name : "");
    size_t n = strlen((const char *)s), i = 0, j = 0, len;
    char *d = xmalloc(n + 1);

    while (i < n) {
        if (s[i] >= 0x20 && s[i] < 0x7f) {
            d[j++] = (char)s[i++];
        } else if (s[i] >= 0x80 && (len = term_utf8_len(s + i, n - i)) != 0) {
            memcpy(d + j, s + i, len);
            j += len;
            i += len;
        } else {
            d[j++] = '?';
            i++;
        }
    }
    d[j] = '\0';
    return d;
}

/* Puts name (cols wide) into a column width wide: whole and padded, or
 * cut in the middle with "..." so that both its id and the end of its
 * label stay visible. */
static void lb_name(lbuf *lb, const char *name, size_t cols, size_t width)
{
    size_t n = strlen(name), hc, tc, head, tail, c = 0, w;

    if (cols <= width) {
        lbuf_put(lb, name, n);
        lb_pad(lb, width - cols);
        return;
    }
    if (width < 4) {
        head = prefix_fit(name, n, width, &hc);
        lbuf_put(lb, name, head);
        lb_pad(lb, width - hc);
        return;
    }
    head = prefix_fit(name, n, (width - 2) / 2, &hc);
    /* The tail: the shortest suffix that leaves at most width-3-hc columns. */
    tail = 0;
    tc = cols;
    while (tail < n && tc > width - 3 - hc) {
        tail += char_at(name + tail, n - tail, &w);
        c += w;
        tc = cols - c;
    }
    lbuf_put(lb, name, head);
    lbuf_put(lb, "...", 3);
    lbuf_put(lb, name + tail, n - tail);
    lb_pad(lb, width - 3 - hc - tc);
}

static double per_s(uint64_t n, int64_t us)
{
    return us > 0 ? (double)n * 1e6 / (double)us : 0.0;
}

static double mean_ms(const hist *h)
{
    return h != NULL ? hist_mean(h) / 1000.0 : 0.0;
}

static double p95_ms(const hist *h)
{
    return h != NULL ? (double)hist_percentile(h, 95.0) / 1000.0 : 0.0;
}

/* ---- table mode */

/* Appends lb to the frame as one screen line, cut to cols - 1 columns (a
 * character in the last column would make some terminals wrap). */
static void screen_line(live *l, const lbuf *lb, int cols, int *lines)
{
    size_t c, n = prefix_fit(lb->p, lb->len, (size_t)cols - 1, &c);

    lbuf_put(&l->screen, "\r\033[2K", 5);
    lbuf_put(&l->screen, lb->p, n);
    lbuf_put(&l->screen, "\n", 1);
    (*lines)++;
}

static void term_size(const live *l, int *cols, int *rows)
{
    struct winsize ws;

    *cols = l->cols;
    *rows = l->rows;
    if ((*cols == 0 || *rows == 0) && ioctl(fileno(l->out), TIOCGWINSZ, &ws) == 0) {
        if (*cols == 0)
            *cols = ws.ws_col;
        if (*rows == 0)
            *rows = ws.ws_row;
    }
    if (*cols <= 0)
        *cols = DEFAULT_COLS;
    if (*rows <= 0)
        *rows = DEFAULT_ROWS;
    *cols = *cols < COLS_MIN ? COLS_MIN : *cols > COLS_MAX ? COLS_MAX : *cols;
    *rows = *rows < ROWS_MIN ? ROWS_MIN : *rows > ROWS_MAX ? ROWS_MAX : *rows;
}

/* The latest second's worst saturated worker, if any: "injector saturated:
 * worker 0 CPU 100 %, lag 280 ms" into buf (the agent named when there are
 * several); else the console's latest second if it was saturated ("console
 * saturated: CPU 100 %, lag 600 ms"); 0 when all kept up. *lag_us gets its
 * loop lag. */
static int inj_text(const agg *a, char *buf, size_t len, uint32_t *lag_us)
{
    const injtot *t = &a->inj;
    const injtot_worker *worst = t->last_saturated ? injtot_last_worst(t, NULL, NULL) : NULL;
    char who[INTERVAL_SUM_LOAD_NAME + 24];

    if (worst == NULL || !worst->last_saturated) {
        /* the console's own latest second (console/selfload.h) */
        const injtot *c = &a->console;
        if (!c->last_saturated || c->n == 0)
            return 0;
        snprintf(buf, len, "console saturated: CPU %.0f %%, lag %.0f ms",
                 (double)c->w[0].last_cpu_permille / 10., (double)c->w[0].last_lag_us / 1e3);
        *lag_us = c->w[0].last_lag_us;
        return 1;
    }
    injtot_name(t, worst, who, sizeof(who));
    snprintf(buf, len, "injector saturated: %s CPU %.0f %%, lag %.0f ms", who,
             (double)worst->last_cpu_permille / 10., (double)worst->last_lag_us / 1e3);
    *lag_us = worst->last_lag_us;
    return 1;
}

/* The header: progress bar, times, VUs, agents, this second's TPS and error
 * rate. The bar is 20 wide, or narrower (down to 10) if the line would not
 * fit in cols otherwise. */
static void table_header(live *l, const agg *a, uint32_t alive, uint32_t agents, int cols, lbuf *lb)
{
    char el[32], pl[32], left[32];
    uint64_t errs = a->last.err_tech + a->last.err_func;
    int64_t done = a->elapsed_us < l->planned_us ? a->elapsed_us : l->planned_us;
    char rbuf[LINE_BYTES];
    lbuf rest = {rbuf, 0, sizeof(rbuf) - 1};

    dur_clock(a->elapsed_us, el, sizeof(el));
    if (l->planned_us > 0) {
        dur_clock(l->planned_us, pl, sizeof(pl));
        dur_clock(l->planned_us - done, left, sizeof(left));
        lbuf_fmt(&rest, "] %3d%%  %s / %s (%s left)", (int)(done * 100 / l->planned_us), el, pl,
                 left);
    } else {
        lbuf_fmt(&rest, "elapsed %s", el);
    }
    lbuf_fmt(&rest, "  VUs %u", a->active_vus);
    {
        rate_counts arr;
        if (agg_arrivals_all(a, &arr))
            lbuf_fmt(&rest, "  arrivals %llu (late %llu, dropped %llu)",
                     (unsigned long long)arr.scheduled, (unsigned long long)arr.late,
                     (unsigned long long)arr.dropped);
    }
    if (agents > 0)
        lbuf_fmt(&rest, "  agents %u/%u", alive, agents);
    lbuf_fmt(&rest, "  TPS %.1f  errors %.2f%%", per_s(a->last.count, a->last_length_us),
             a->last.count > 0 ? (double)errs * 100.0 / (double)a->last.count : 0.0);
    {
        char sat[128];
        uint32_t lag;
        if (inj_text(a, sat, sizeof(sat), &lag))
            lbuf_fmt(&rest, "  %s", sat);
    }
    if (l->planned_us > 0) {
        int64_t bar = (int64_t)cols - 1 - 1 - (int64_t)rest.len;
        int64_t filled;
        bar = bar < BAR_MIN ? BAR_MIN : bar > BAR_MAX ? BAR_MAX : bar;
        filled = done * bar / l->planned_us;
        lbuf_put(lb, "[", 1);
        for (int64_t i = 0; i < bar; i++)
            lbuf_put(lb, i < filled ? "#" : ".", 1);
    }
    lbuf_put(lb, rest.p, rest.len);
}

static void table_row(lbuf *lb, const char *name, size_t name_cols, size_t width,
                      const step_stats *s, int64_t length_us, uint64_t err_total)
{
    lb_name(lb, name, name_cols, width);
    lbuf_fmt(lb, " %10.1f %9.1f %9.1f %8llu %10llu", per_s(s->count, length_us), mean_ms(s->hist),
             p95_ms(s->hist), (unsigned long long)(s->err_tech + s->err_func),
             (unsigned long long)err_total);
}

static void table_draw(live *l, const agg *a, const step_stats *steps, uint32_t alive,
                       uint32_t agents)
{
    size_t nsteps = l->nsteps < a->nsteps ? l->nsteps : a->nsteps, shown, budget, width;
    uint64_t err_all = 0;
    int cols, rows, lines = 0;
    char line[LINE_BYTES];
    lbuf lb = {line, 0, sizeof(line) - 1}; /* a line of the table, at most COLS_MAX characters */
    char esc[32];

    term_size(l, &cols, &rows);
    /* Lines: header, column titles, steps, totals; one row stays free for
     * the cursor, or the top line would scroll out of reach. */
    budget = (size_t)rows - 1 - 3;
    shown = nsteps <= budget ? nsteps : budget - 1;
    width = (size_t)cols - 1 > NUMS_WIDTH ? (size_t)cols - 1 - NUMS_WIDTH : 0;
    if (width > l->name_cols_max)
        width = l->name_cols_max;
    if (width < NAME_MIN)
        width = NAME_MIN;

    l->screen.len = 0;
    if (l->drawn > 0) {
        snprintf(esc, sizeof(esc), "\033[%dA", l->drawn);
        lbuf_put(&l->screen, esc, strlen(esc));
    }
    lb.len = 0;
    table_header(l, a, alive, agents, cols, &lb);
    screen_line(l, &lb, cols, &lines);

    lb.len = 0;
    lb_name(&lb, "step", 4, width);
    lbuf_fmt(&lb, " %10s %9s %9s %8s %10s", "TPS", "mean ms", "p95 ms", "err", "err total");
    screen_line(l, &lb, cols, &lines);

    for (size_t i = 0; i < nsteps; i++) {
        uint64_t e = a->total[i].err_tech + a->total[i].err_func;
        err_all += e;
        if (i >= shown)
            continue;
        lb.len = 0;
        table_row(&lb, l->names[i], l->name_cols[i], width, &steps[i], a->last_length_us, e);
        screen_line(l, &lb, cols, &lines);
    }
    if (shown < nsteps) {
        lb.len = 0;
        lbuf_fmt(&lb, "... %zu more step%s", nsteps - shown, nsteps - shown > 1 ? "s" : "");
        screen_line(l, &lb, cols, &lines);
    }
    lb.len = 0;
    table_row(&lb, "total", 5, width, &a->last, a->last_length_us, err_all);
    screen_line(l, &lb, cols, &lines);
    lbuf_put(&l->screen, "\033[J", 3); /* the last frame may have been longer */

    fwrite(l->screen.p, 1, l->screen.len, l->out);
    fflush(l->out);
    l->drawn = lines;
}

/* ---- plain mode */

static void plain_line(live *l)
{
    char line[512];
    int n;

    n = snprintf(line, sizeof(line),
                 "[%5.0fs] VUs %u  TPS %.1f  mean %.1f ms  p95 %.1f ms  errors %llu (technical "
                 "%llu, functional %llu)",
                 (double)l->elapsed_us / 1e6, l->vus, per_s(l->win_count, l->win_us),
                 mean_ms(l->win), p95_ms(l->win), (unsigned long long)(l->win_tech + l->win_func),
                 (unsigned long long)l->win_tech, (unsigned long long)l->win_func);
    if (l->open && n >= 0 && (size_t)n < sizeof(line))
        n += snprintf(line + n, sizeof(line) - (size_t)n,
                      "  arrivals %llu (late %llu, dropped %llu)",
                      (unsigned long long)l->arr.scheduled, (unsigned long long)l->arr.late,
                      (unsigned long long)l->arr.dropped);
    if (l->agents > 0 && n >= 0 && (size_t)n < sizeof(line))
        n += snprintf(line + n, sizeof(line) - (size_t)n, "  agents %u/%u", l->alive, l->agents);
    if (l->sat[0] != '\0' && n >= 0 && (size_t)n < sizeof(line))
        snprintf(line + n, sizeof(line) - (size_t)n, "  %s", l->sat);
    fprintf(l->out, "%s\n", line);
    l->sat[0] = '\0';
    l->sat_lag_us = 0;
    fflush(l->out);
    hist_reset(l->win);
    l->win_count = l->win_tech = l->win_func = 0;
    l->win_us = 0;
    l->win_n = 0;
}

static void plain_add(live *l, const agg *a, uint32_t alive, uint32_t agents)
{
    l->win_count += a->last.count;
    l->win_tech += a->last.err_tech;
    l->win_func += a->last.err_func;
    l->win_us += a->last_length_us;
    if (a->last.hist != NULL)
        hist_merge(l->win, a->last.hist);
    l->elapsed_us = a->elapsed_us;
    l->vus = a->active_vus;
    l->open = agg_arrivals_all(a, &l->arr);
    {
        char sat[128];
        uint32_t lag;
        if (inj_text(a, sat, sizeof(sat), &lag) && (l->sat[0] == '\0' || lag > l->sat_lag_us)) {
            snprintf(l->sat, sizeof(l->sat), "%s", sat);
            l->sat_lag_us = lag;
        }
    }
    l->alive = alive;
    l->agents = agents;
    if (++l->win_n >= LIVE_PLAIN_EVERY)
        plain_line(l);
}

/* ---- API */

live *live_new(FILE *out, int mode, const char *const *step_names, size_t nsteps,
               int64_t planned_us)
{
    live *l = xcalloc(1, sizeof(*l));
    size_t lines;

    if (mode == LIVE_AUTO) {
        const char *term = getenv("TERM");
        mode = isatty(fileno(out)) && term != NULL && term[0] != '\0' && strcmp(term, "dumb") != 0
                   ? LIVE_TABLE
                   : LIVE_PLAIN;
    }
    if (mode != LIVE_TABLE && mode != LIVE_PLAIN)
        mode = LIVE_QUIET;
    l->out = out;
    l->mode = mode;
    l->nsteps = nsteps;
    l->planned_us = planned_us > 0 ? planned_us : 0;
    l->names = xcalloc(nsteps ? nsteps : 1, sizeof(*l->names));
    l->name_cols = xcalloc(nsteps ? nsteps : 1, sizeof(*l->name_cols));
    l->name_cols_max = 5; /* "total" */
    for (size_t i = 0; i < nsteps; i++) {
        l->names[i] = sanitise(step_names != NULL ? step_names[i] : NULL);
        l->name_cols[i] = text_cols(l->names[i], strlen(l->names[i]));
        if (l->name_cols[i] > l->name_cols_max)
            l->name_cols_max = l->name_cols[i];
    }
    if (mode == LIVE_TABLE) {
        lines = nsteps + 3 < ROWS_MAX - 1 ? nsteps + 3 : ROWS_MAX - 1;
        size_t cap = lines * (LINE_BYTES + LINE_ESC) + 64;
        l->frame = xmalloc(cap);
        l->screen = (lbuf){l->frame, 0, cap};
    } else if (mode == LIVE_PLAIN) {
        l->win = hist_new();
    }
    return l;
}

int live_mode(const live *l)
{
    return l->mode;
}

void live_set_size(live *l, int cols, int rows)
{
    l->cols = cols > 0 ? cols : 0;
    l->rows = rows > 0 ? rows : 0;
}

void live_update(live *l, const agg *a, const step_stats *last_per_step, uint32_t agents_alive,
                 uint32_t agents_total)
{
    if (l->mode == LIVE_TABLE)
        table_draw(l, a, last_per_step, agents_alive, agents_total);
    else if (l->mode == LIVE_PLAIN)
        plain_add(l, a, agents_alive, agents_total);
}

void live_clear(live *l)
{
    if (l->mode != LIVE_TABLE || l->drawn == 0)
        return;
    fprintf(l->out, "\033[%dA\r\033[J", l->drawn);
    fflush(l->out);
    l->drawn = 0;
}

void live_finish(live *l)
{
    if (l == NULL)
        return; /* the run ended before its steps were known */
    if (l->mode == LIVE_PLAIN && l->win_n > 0)
        plain_line(l);
    /* The table stays; the cursor is already on the line below it. */
    l->drawn = 0;
    fflush(l->out);
}

void live_free(live *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->nsteps; i++)
        xfree(l->names[i]);
    xfree(l->names);
    xfree(l->name_cols);
    xfree(l->frame);
    hist_free(l->win);
    xfree(l);
}

/* outinflux — the pushes as InfluxDB line protocol; see outinflux.h. */
#include "console/outinflux.h"

#include <inttypes.h>
#include <string.h>

#include "common/hist.h"
#include "common/lbuf.h"
#include "common/mem.h"

/* 1 when c must be escaped in what. */
static int special(char c, enum outinflux_what what)
{
    if (what == OUTINFLUX_STRING)
        return c == '"' || c == '\\';
    if (what == OUTINFLUX_MEASUREMENT)
        return c == ',' || c == ' ';
    return c == ',' || c == '=' || c == ' ';
}

size_t outinflux_escape(const char *s, enum outinflux_what what, char *buf, size_t buflen)
{
    size_t n = 0;

    for (const char *p = s; *p != '\0'; p++) {
        char c = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
        int esc = special(c, what);
        /* Outside strings a backslash is literal, except before a special
         * character or at the end, where it would escape what follows. */
        if (c == '\\' && what != OUTINFLUX_STRING) {
            char next = p[1];
            if (p[strspn(p, "\\")] == '\0') /* InfluxDB 1.x reads no trailing one */
                break;
            esc = next == '\\' || special(next, what);
        }
        if (esc) {
            if (n + 1 < buflen)
                buf[n] = '\\';
            n++;
        }
        if (n + 1 < buflen)
            buf[n] = c;
        n++;
    }
    if (buflen > 0)
        buf[n < buflen ? n : buflen - 1] = '\0';
    return n;
}

/* Appends s escaped. */
static void put_esc(lbuf *b, const char *s, enum outinflux_what what)
{
    size_t room = b->cap - b->len, n = outinflux_escape(s, what, b->p + b->len, room);

    b->len += n < room ? n : room;
}

/* ",run=ID,name=NAME" then every --tag. */
static void common_tags(lbuf *b, const out_input *in)
{
    lbuf_fmt(b, ",run=%" PRIu64 ",name=", in->run_id);
    put_esc(b, in->run[0] != '\0' ? in->run : "-", OUTINFLUX_KEY);
    for (size_t i = 0; in->tags != NULL && i < props_count(in->tags); i++) {
        const char *v = props_value(in->tags, i);
        const char *k = props_key(in->tags, i);
        /* line protocol has no empty tag value; quern's own tags win */
        if (v[0] == '\0' || strcmp(k, "step") == 0 || strcmp(k, "scenario") == 0 ||
            strcmp(k, "run") == 0 || strcmp(k, "name") == 0)
            continue;
        lbuf_put(b, ",", 1);
        put_esc(b, k, OUTINFLUX_KEY);
        lbuf_put(b, "=", 1);
        put_esc(b, v, OUTINFLUX_KEY);
    }
}

static void step_point(lbuf *b, const out_input *in, size_t i)
{
    const step_stats *s = &in->steps[i];
    const hist *h = s->hist;

    lbuf_fmt(b, "%s,step=", in->final ? "quern_total" : "quern");
    put_esc(b, in->names[i][0] != '\0' ? in->names[i] : "-", OUTINFLUX_KEY);
    if (in->scens[i][0] != '\0') {
        lbuf_put(b, ",scenario=", 10);
        put_esc(b, in->scens[i], OUTINFLUX_KEY);
    }
    common_tags(b, in);
    lbuf_fmt(b,
             " count=%" PRIu64 "i,errors=%" PRIu64 "i,err_technical=%" PRIu64
             "i,err_functional=%" PRIu64 "i,bytes_received=%" PRIu64 "i,bytes_sent=%" PRIu64 "i",
             s->count, s->err_tech + s->err_func, s->err_tech, s->err_func, s->bytes_in,
             s->bytes_out);
    lbuf_fmt(b, ",mean=%.3f,p50=%.3f,p90=%.3f,p95=%.3f,p99=%.3f,max=%.3f %" PRId64 "\n",
             hist_mean(h) / 1000.0, (double)hist_percentile(h, 50) / 1000.0,
             (double)hist_percentile(h, 90) / 1000.0, (double)hist_percentile(h, 95) / 1000.0,
             (double)hist_percentile(h, 99) / 1000.0, (double)hist_max(h) / 1000.0, in->now_ns);
}

/* At most the points error_points writes for t. */
static size_t kind_rows(const errkinds *t)
{
    return t == NULL ? 0 : t->n + (t->other[0].count > 0) + (t->other[1].count > 0);
}

/* The step's errors per class and code (common/errkinds.h), one point each:
 * measurement quern_errors (quern_errors_total at the end), tags step,
 * scenario, class and code ("other" for the kinds past the bound). */
static void error_points(lbuf *b, const out_input *in, size_t i)
{
    errkind sums[ERRKIND_ROWS];
    size_t n = errkinds_by_code(in->steps[i].kinds, sums);

    for (size_t j = 0; j < n; j++) {
        lbuf_fmt(b, "%s,step=", in->final ? "quern_errors_total" : "quern_errors");
        put_esc(b, in->names[i][0] != '\0' ? in->names[i] : "-", OUTINFLUX_KEY);
        if (in->scens[i][0] != '\0') {
            lbuf_put(b, ",scenario=", 10);
            put_esc(b, in->scens[i], OUTINFLUX_KEY);
        }
        common_tags(b, in);
        if (errkinds_is_other(&sums[j]))
            lbuf_fmt(b, ",class=%s,code=other", errkinds_class(&sums[j]));
        else
            lbuf_fmt(b, ",class=%s,code=%d", errkinds_class(&sums[j]), (int)sums[j].code);
        lbuf_fmt(b, " count=%" PRIu64 "i %" PRId64 "\n", sums[j].count, in->now_ns);
    }
}

/* The script's checks and custom metrics: one point each (measurements
 * quern_check and quern_metric; quern_check_total and quern_metric_total at
 * the end). */
static void script_points(lbuf *b, const out_input *in)
{
    const tally *t = in->tally;

    for (size_t i = 0; t != NULL && i < t->nchecks; i++) {
        lbuf_fmt(b, "%s,check=", in->final ? "quern_check_total" : "quern_check");
        put_esc(b, t->checks[i].name, OUTINFLUX_KEY);
        common_tags(b, in);
        lbuf_fmt(b, " passes=%" PRIu64 "i,fails=%" PRIu64 "i %" PRId64 "\n", t->checks[i].passes,
                 t->checks[i].fails, in->now_ns);
    }
    for (size_t i = 0; t != NULL && i < t->nmetrics; i++) {
        const tally_metric *m = &t->metrics[i];
        if (m->kind == TALLY_GAUGE && !m->has_value)
            continue;
        lbuf_fmt(b, "%s,metric=%s,kind=%s", in->final ? "quern_metric_total" : "quern_metric",
                 m->name, tally_kind_name(m->kind));
        common_tags(b, in);
        if (m->kind == TALLY_COUNTER)
            lbuf_fmt(b, " total=%.17g", m->sum);
        else if (m->kind == TALLY_GAUGE)
            lbuf_fmt(b, " value=%.17g,min=%.17g,max=%.17g", m->value, m->min, m->max);
        else
            lbuf_fmt(b, " count=%" PRIu64 "i,mean=%.17g,p50=%.17g,p95=%.17g,p99=%.17g,max=%.17g",
                     hist_count(m->h), tally_trend_stat(m, "mean", 0),
                     tally_trend_stat(m, NULL, 50), tally_trend_stat(m, NULL, 95),
                     tally_trend_stat(m, NULL, 99), tally_trend_stat(m, "max", 0));
        lbuf_fmt(b, " %" PRId64 "\n", in->now_ns);
    }
}

char *outinflux_render(const out_input *in, size_t *len)
{
    size_t cap = 1024;
    lbuf b;

    for (size_t i = 0; in->tags != NULL && i < props_count(in->tags); i++)
        cap += 2 * (strlen(props_key(in->tags, i)) + strlen(props_value(in->tags, i))) + 2;
    cap += 2 * strlen(in->run);
    {
        size_t per = cap;
        for (size_t i = 0; i < in->nsteps; i++)
            cap += (per + 2 * (strlen(in->names[i]) + strlen(in->scens[i]))) *
                       (1 + kind_rows(in->steps[i].kinds)) +
                   512;
        if (in->tally != NULL) /* a name escaped takes twice its bytes at most */
            cap += (in->tally->nchecks + in->tally->nmetrics) * (per + 2 * TALLY_NAME_MAX + 512);
    }
    if (cap > OUT_PUSH_MAX)
        return NULL;
    b.p = xmalloc(cap);
    b.len = 0;
    b.cap = cap - 1;
    for (size_t i = 0; i < in->nsteps; i++) {
        step_point(&b, in, i);
        error_points(&b, in, i);
    }
    script_points(&b, in);
    lbuf_put(&b, "quern_run", 9);
    common_tags(&b, in);
    lbuf_fmt(&b, " vus=%" PRIu32 "i", in->vus);
    if (in->has_arrivals)
        lbuf_fmt(&b,
                 ",arrivals_scheduled=%" PRIu64 "i,arrivals_started=%" PRIu64
                 "i,arrivals_late=%" PRIu64 "i,arrivals_dropped=%" PRIu64 "i",
                 in->arrivals.scheduled, in->arrivals.started, in->arrivals.late,
                 in->arrivals.dropped);
    lbuf_fmt(&b, " %" PRId64 "\n", in->now_ns);
    if (b.len >= b.cap) { /* cannot happen with the room counted above */
        xfree(b.p);
        return NULL;
    }
    b.p[b.len] = '\0';
    *len = b.len;
    return b.p;
}

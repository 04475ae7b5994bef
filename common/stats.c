#include "common/stats.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "common/redact.h"

void stats_init(step_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->hist = hist_new();
}

void stats_free(step_stats *s)
{
    hist_free(s->hist);
    hist_free(s->svc);
    slowest_free(s->slow);
    errkinds_free(s->kinds);
    s->kinds = NULL;
    s->slow = NULL;
    s->hist = NULL;
    s->svc = NULL;
    s->svc_on = 0;
}

void stats_reset(step_stats *s)
{
    hist *h = s->hist, *svc = s->svc;
    slowest *slow = s->slow;
    errkinds *kinds = s->kinds;
    memset(s, 0, sizeof(*s));
    s->hist = h;
    s->kinds = kinds;
    errkinds_reset(kinds);
    s->slow = slow;
    if (slow != NULL)
        slowest_reset(slow);
    s->svc = svc; /* emptied when next turned on */
    hist_reset(h);
}

void stats_service_on(step_stats *s)
{
    if (s->svc_on)
        return;
    if (s->svc == NULL)
        s->svc = hist_new();
    hist_reset(s->svc);
    hist_merge(s->svc, s->hist);
    s->svc_on = 1;
}

const hist *stats_service(const step_stats *s)
{
    return s->svc_on ? s->svc : s->hist;
}

void stats_record(step_stats *s, uint64_t response_us, uint64_t service_us)
{
    if (response_us != service_us)
        stats_service_on(s);
    hist_record(s->hist, response_us);
    if (s->svc_on)
        hist_record(s->svc, service_us);
}

void stats_merge(step_stats *dst, const step_stats *src)
{
    dst->count += src->count;
    dst->err_tech += src->err_tech;
    dst->err_func += src->err_func;
    dst->bytes_in += src->bytes_in;
    dst->bytes_out += src->bytes_out;
    dst->sum_dns += src->sum_dns;
    dst->sum_connect += src->sum_connect;
    dst->sum_tls += src->sum_tls;
    dst->sum_ttfb += src->sum_ttfb;
    dst->new_conns += src->new_conns;
    dst->requests += src->requests;
    dst->ws_sent += src->ws_sent;
    dst->ws_recv += src->ws_recv;
    dst->ws_bytes_sent += src->ws_bytes_sent;
    dst->ws_bytes_recv += src->ws_bytes_recv;
    if (src->svc_on)
        stats_service_on(dst); /* before dst->hist takes src's */
    hist_merge(dst->hist, src->hist);
    if (dst->svc_on)
        hist_merge(dst->svc, stats_service(src));
    if (dst->sample_tech[0] == '\0') {
        memcpy(dst->sample_tech, src->sample_tech, sizeof(dst->sample_tech));
        memcpy(dst->trace_tech, src->trace_tech, sizeof(dst->trace_tech));
    }
    if (dst->sample_func[0] == '\0') {
        memcpy(dst->sample_func, src->sample_func, sizeof(dst->sample_func));
        memcpy(dst->trace_func, src->trace_func, sizeof(dst->trace_func));
    }
    if (src->slow != NULL && src->slow->n > 0) {
        if (dst->slow == NULL)
            dst->slow = slowest_new(SLOWEST_MAX);
        slowest_merge(dst->slow, src->slow);
    }
    if (errkinds_total(src->kinds) > 0) {
        if (dst->kinds == NULL)
            dst->kinds = errkinds_new();
        errkinds_merge(dst->kinds, src->kinds);
    }
}

void stats_note_kind(step_stats *s, int technical, int32_t code, const char *msg, int64_t now_ms,
                     const errkind_example *ex)
{
    if (s->kinds == NULL)
        s->kinds = errkinds_new();
    errkinds_note(s->kinds, technical, code, msg, now_ms, ex);
}

void stats_note_error(step_stats *s, int technical, const char *msg)
{
    stats_note_error_trace(s, technical, msg, NULL);
}

void stats_note_error_trace(step_stats *s, int technical, const char *msg, const char *trace)
{
    char *dst = technical ? s->sample_tech : s->sample_func;
    char *tr = technical ? s->trace_tech : s->trace_func;

    /* Once per step and kind a second: the message may name a URL. */
    if (dst[0] != '\0')
        return;
    redact_url(msg ? msg : "error", dst, STATS_SAMPLE_MAX);
    snprintf(tr, SLOWEST_TRACE_LEN, "%s", trace != NULL ? trace : "");
}

void stats_offer_slow(step_stats *s, size_t cap, const slowest_entry *x)
{
    if (s->slow == NULL)
        s->slow = slowest_new(cap);
    slowest_offer(s->slow, x);
}

step_stats *stats_array_new(size_t n)
{
    step_stats *a = xcalloc(n ? n : 1, sizeof(*a));

    for (size_t i = 0; i < n; i++)
        stats_init(&a[i]);
    return a;
}

void stats_array_free(step_stats *a, size_t n)
{
    for (size_t i = 0; a != NULL && i < n; i++)
        stats_free(&a[i]);
    xfree(a);
}

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
    s->hist = NULL;
    s->svc = NULL;
    s->svc_on = 0;
}

void stats_reset(step_stats *s)
{
    hist *h = s->hist, *svc = s->svc;
    memset(s, 0, sizeof(*s));
    s->hist = h;
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
    if (dst->sample_tech[0] == '\0')
        memcpy(dst->sample_tech, src->sample_tech, sizeof(dst->sample_tech));
    if (dst->sample_func[0] == '\0')
        memcpy(dst->sample_func, src->sample_func, sizeof(dst->sample_func));
}

void stats_note_error(step_stats *s, int technical, const char *msg)
{
    char *dst = technical ? s->sample_tech : s->sample_func;
    /* Once per step and kind a second: the message may name a URL. */
    if (dst[0] == '\0')
        redact_url(msg ? msg : "error", dst, STATS_SAMPLE_MAX);
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

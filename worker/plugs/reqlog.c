#include "worker/plugs/reqlog.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"
#include "worker/engine/engine.h"
#include "worker/wire/glog.h"
#include "worker/wire/intend.h"
#include "worker/wire/jtl.h"
#include "worker/plugs/pageres.h"
#include "worker/wire/scen.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"
#include "worker/wire/wfile.h"

/* What the last transfers of one VU left for its pending sample. */
typedef struct vslot {
    uint32_t seq; /**< the sample they belong to */
    int status, curl_rc;
    char url[REQLOG_URL_MAX];
} vslot;

struct reqlog {
    reqlog_cfg cfg;
    wfile jtl;
    glog glog;
    char agent[128];
    vslot *slots; /**< owned: one per VU of the worker */
    uint32_t vu_first, vu_stride, vu_count;
};

reqlog *reqlog_new(const reqlog_cfg *cfg, char *err, size_t errlen)
{
    reqlog *l = xcalloc(1, sizeof(*l));

    l->jtl.fd = l->glog.data.fd = -1;
    snprintf(l->agent, sizeof(l->agent), "%s", cfg->agent != NULL ? cfg->agent : "local");
    l->cfg = *cfg;
    if (cfg->jtl_path != NULL &&
        wfile_open(&l->jtl, cfg->jtl_path, WFILE_BUF_BYTES, err, errlen) != 0)
        goto fail;
    if (glog_open(&l->glog, cfg->data_path, cfg->out_path, cfg->process, err, errlen) != 0)
        goto fail;
    /* copied above: the caller's strings are not kept */
    l->cfg.agent = l->cfg.process = NULL;
    l->cfg.jtl_path = l->cfg.data_path = l->cfg.out_path = NULL;
    return l;
fail:
    reqlog_free(l);
    return NULL;
}

void reqlog_begin(reqlog *l, size_t nsteps, uint32_t vu_first, uint32_t vu_stride,
                  uint32_t vu_count)
{
    xfree(l->slots);
    l->slots = xcalloc(vu_count ? vu_count : 1, sizeof(*l->slots));
    glog_begin(&l->glog, nsteps);
    l->vu_first = vu_first;
    l->vu_stride = vu_stride ? vu_stride : 1;
    l->vu_count = vu_count;
}

static uint32_t reqlog_slot(const reqlog *l, const vu *v)
{
    return v->gid >= l->vu_first ? (v->gid - l->vu_first) / l->vu_stride : 0;
}

static vslot *slot_of(reqlog *l, const vu *v)
{
    uint32_t i = reqlog_slot(l, v);
    return l->slots != NULL && i < l->vu_count ? &l->slots[i] : NULL;
}

static int64_t to_wall_ms(const engine *e, int64_t mono_us)
{
    return (engine_t0_wall_us(e) + (mono_us - engine_t0_us(e))) / 1000;
}

/* Writes one JTL line of v; code and message come from status or the curl
 * error. */
static void reqlog_jtl_out(reqlog *l, vu *v, jtl_rec *r, int status, int curl_rc, const char *cmsg)
{
    char thread[192], fail[VU_MSG_MAX + 64];

    if (r->failure[0] != '\0') { /* an error's message may name a URL */
        redact_url(r->failure, fail, sizeof(fail));
        r->failure = fail;
    }
    snprintf(thread, sizeof(thread), "%s %u-%u", l->agent, l->cfg.worker + 1, v->gid);
    r->thread = thread;
    jtl_write(&l->jtl, r, status, curl_rc, cmsg, engine_second(v->eng), engine_active_vus(v->eng));
}

void reqlog_note(reqlog *l, vu *v, const sample *p, int status, int curl_rc, const char *url)
{
    vslot *s = slot_of(l, v);

    if (s == NULL)
        return;
    if (s->seq != p->seq || p->err == SAMPLE_OK) {
        /* The first error's status is the sample's, as its message is. */
        s->status = status;
        s->curl_rc = curl_rc;
    }
    s->seq = p->seq;
    snprintf(s->url, sizeof(s->url), "%s", url);
}

void reqlog_xfer(reqlog *l, vu *v, const xh *h, const urlc_ent *ue, const xfer_result *x,
                 const sample *p)
{
    const char *url = NULL;
    char buf[REQLOG_URL_MAX];
    long redirects = 0;

    /* The URL as written: its password redacted once per URL by the cache. */
    curl_easy_getinfo(h->easy, CURLINFO_EFFECTIVE_URL, &url);
    curl_easy_getinfo(h->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    url = urlc_shown(ue, url != NULL ? url : "", redirects, buf, sizeof(buf));
    if (p != NULL) {
        reqlog_note(l, v, p, x->status, x->curl_rc, url);
        return;
    }
    if (l->jtl.fd >= 0) {
        /* An untimed request: its line now, labelled with its path. */
        char label[256] = "http", fail[VU_MSG_MAX] = "";
        const char *a = strstr(url, "://"), *b;
        int ok = x->curl_rc == CURLE_OK && x->status < 400;
        jtl_rec r;

        a = a != NULL ? strchr(a + 3, '/') : NULL;
        if (a != NULL) {
            b = a + strcspn(a, "?#");
            snprintf(label, sizeof(label), "%.*s", (int)(b - a < 255 ? b - a : 255), a);
        }
        if (x->curl_rc != CURLE_OK)
            snprintf(fail, sizeof(fail), "%s",
                     h->errbuf[0] ? h->errbuf : curl_easy_strerror((CURLcode)x->curl_rc));
        else if (x->status >= 400)
            snprintf(fail, sizeof(fail), "HTTP status %d", x->status);
        memset(&r, 0, sizeof(r));
        r.start_ms = to_wall_ms(v->eng, x->start_us);
        r.elapsed_ms = x->fig.elapsed_us / 1000;
        r.label = label;
        r.success = ok;
        r.failure = fail;
        r.bytes = x->fig.bytes_in;
        r.sent = x->fig.bytes_out;
        r.url = url;
        r.latency_ms = x->fig.ttfb_us / 1000;
        r.connect_ms = (x->fig.dns_us + x->fig.connect_us + x->fig.tls_us) / 1000;
        r.trace = engine_config(v->eng)->traceparent ? x->trace_id : NULL;
        reqlog_jtl_out(l, v, &r, x->status, x->curl_rc, fail);
    }
}

/* A page's requested resources (pageres.h), as JMeter writes an HTTP
 * sampler's embedded ones: a line each, labelled "<step>-<n>", before the
 * parent's line. */
static void reqlog_subs(reqlog *l, vu *v, const char *step_name)
{
    const pageres *pg = v->page;
    unsigned k = 0;

    if (pg == NULL || pg->seq == 0 || pg->seq != v->pend.seq)
        return;
    for (size_t i = 0; i < pg->n; i++) {
        const pageres_item *r = &pg->r[i];
        char label[160], url[REQLOG_URL_MAX], fail[VU_MSG_MAX] = "";
        jtl_rec rec;
        if (r->start_us == 0 || r->how == PAGERES_CACHED || r->how == PAGERES_QUEUED)
            continue;
        snprintf(label, sizeof(label), "%s-%u", step_name, k++);
        redact_url(r->url, url, sizeof(url));
        if (r->curl_rc != CURLE_OK)
            snprintf(fail, sizeof(fail), "%s", curl_easy_strerror((CURLcode)r->curl_rc));
        else if (r->status >= 400)
            snprintf(fail, sizeof(fail), "HTTP status %d", r->status);
        memset(&rec, 0, sizeof(rec));
        rec.start_ms = to_wall_ms(v->eng, r->start_us);
        rec.elapsed_ms = r->elapsed_us / 1000;
        rec.label = label;
        rec.success = r->how != PAGERES_FAILED;
        rec.failure = fail;
        rec.bytes = r->bytes_in;
        rec.sent = r->bytes_out;
        rec.url = url;
        rec.latency_ms = r->ttfb_us / 1000;
        rec.connect_ms = r->connect_us / 1000;
        rec.trace =
            engine_config(v->eng)->traceparent ? "" : NULL; /* a resource's id is not kept */
        reqlog_jtl_out(l, v, &rec, r->status, r->curl_rc, fail);
    }
}

void reqlog_sample(reqlog *l, vu *v)
{
    const sample *p = &v->pend;
    vslot *s = slot_of(l, v);
    int status = 0, curl_rc = 0, ok = p->err == SAMPLE_OK;
    const char *url = "";
    /* The response time, from the sample's intended start (worker/wire/intend.h). */
    int64_t start_ms = to_wall_ms(v->eng, p->start_us - (p->lag_us > 0 ? p->lag_us : 0));
    int64_t el_ms = (int64_t)(intend_response(p->elapsed_us, p->lag_us) / 1000);
    glog_rec g;
    step *st;

    if (p->step < 0 || (size_t)p->step >= engine_scens(v->eng)->nsteps)
        return;
    st = engine_scens(v->eng)->steps[p->step];
    if (s != NULL && s->seq == p->seq) {
        status = s->status;
        curl_rc = s->curl_rc;
        url = s->url;
    }
    if (l->jtl.fd >= 0) {
        jtl_rec r;
        reqlog_subs(l, v, st->name);
        memset(&r, 0, sizeof(r));
        r.start_ms = start_ms;
        r.elapsed_ms = el_ms;
        r.label = st->name;
        r.success = ok;
        r.failure = ok ? "" : p->msg;
        r.bytes = p->bytes_in;
        r.sent = p->bytes_out;
        r.url = url;
        r.latency_ms = (int64_t)p->ttfb / 1000;
        r.connect_ms = (int64_t)(p->dns + p->connect + p->tls) / 1000;
        r.trace = engine_config(v->eng)->traceparent ? p->trace : NULL;
        reqlog_jtl_out(l, v, &r, status, curl_rc, p->msg);
    }
    memset(&g, 0, sizeof(g));
    g.thread = reqlog_slot(l, v);
    g.run = v->run > 0 ? v->run - 1 : 0;
    g.step = (size_t)p->step;
    g.start_ms = start_ms;
    g.elapsed_ms = el_ms;
    g.ok = ok;
    g.status = status;
    g.bytes_in = p->bytes_in;
    g.dns_us = p->dns;
    g.connect_us = p->connect;
    g.ttfb_us = p->ttfb;
    g.new_conns = p->new_conns;
    glog_sample(&l->glog, &g);
}

int reqlog_end(reqlog *l, const scen_set *ss, int64_t elapsed_us, char *err, size_t errlen)
{
    int rc = 0;

    if (l->jtl.fd >= 0 && wfile_close(&l->jtl) != 0) {
        err_set(err, errlen, "JTL: %s", strerror(l->jtl.err));
        rc = -1;
    }
    if (glog_end(&l->glog, ss, elapsed_us, err, errlen) != 0)
        rc = -1;
    return rc;
}

void reqlog_free(reqlog *l)
{
    if (l == NULL)
        return;
    wfile_close(&l->jtl);
    glog_close(&l->glog);
    xfree(l->slots);
    xfree(l);
}

#include "worker/plugs/pageres.h"

#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"
#include "common/version.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"

/* Resources of one page, those found in stylesheets included. */
#define PAGERES_MAX (2u * EMBED_MAX)
#define PAGERES_REDIRS 5L

size_t pageres_origin_len(const char *url)
{
    const char *path = strstr(url, "://");

    path = path != NULL ? strchr(path + 3, '/') : NULL;
    return path != NULL ? (size_t)(path - url) : strlen(url);
}

void pageres_want(vu *v, const reqopt *req, const reqopt *sro, long timeout_ms)
{
    const reqopt *o = reqopt_pick(REQOPT_RESOURCES, req, sro, NULL);
    const reqopt *c = reqopt_pick(REQOPT_CACHE, req, sro, NULL);
    pageres *p = v->page;

    if (o == NULL || !o->resources) {
        if (p != NULL)
            p->want = p->asked = 0;
        return;
    }
    if (p == NULL) {
        p = v->page = xcalloc(1, sizeof(*p));
        p->v = v;
    }
    p->want = 1;
    p->req_ro = req;
    p->scen_ro = sro;
    p->filt = o->res_filt.ninclude + o->res_filt.nexclude > 0 ? &o->res_filt : NULL;
    p->use_cache = c == NULL || c->cache;
    p->timeout_ms = timeout_ms;
}

/* Forgets the last page's resources (nothing is in flight). */
static void pageres_reset(pageres *p)
{
    for (size_t i = 0; i < p->n; i++)
        xfree(p->r[i].url);
    p->n = 0;
    p->inflight = 0;
    memset(&p->counts, 0, sizeof(p->counts));
}

/* Adds url (owned by the page from now on) unless filtered out or there. */
static void pageres_add(pageres *p, char *url, int css)
{
    pageres_item *r;

    if (p->n >= PAGERES_MAX || !embed_keep(p->filt, p->origin, url)) {
        xfree(url);
        return;
    }
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->r[i].url, url) == 0) {
            xfree(url);
            return;
        }
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->r = xreallocarray(p->r, p->cap, sizeof(*p->r));
    }
    r = &p->r[p->n++];
    memset(r, 0, sizeof(*r));
    r->url = url;
    r->css = (uint8_t)css;
    r->origin_len = pageres_origin_len(url);
}

/* Adds what a stylesheet names, newline-separated (kept in the cache). */
static void pageres_add_deps(pageres *p, const char *deps)
{
    while (deps != NULL && *deps) {
        size_t n = strcspn(deps, "\n");
        if (n > 0)
            pageres_add(p, xstrndup(deps, n), 0);
        deps += n + (deps[n] == '\n');
    }
}

/* The pending sample the page belongs to, or NULL (untimed, or over). */
static sample *pageres_sample(pageres *p)
{
    sample *s = &p->v->pend;

    return p->seq != 0 && s->step >= 0 && s->seq == p->seq ? s : NULL;
}

static void pageres_fail(pageres *p, pageres_item *r, const char *why)
{
    sample *s = pageres_sample(p);
    char raw[VU_MSG_MAX];

    r->how = PAGERES_FAILED;
    p->counts.failed++;
    if (s == NULL || s->err != SAMPLE_OK)
        return;
    snprintf(raw, sizeof(raw), "resource %s: %s", r->url, why);
    redact_url(raw, s->msg, sizeof(s->msg));
    s->err = SAMPLE_TECH;
}

static int pageres_host_busy(const pageres *p, const pageres_item *r)
{
    unsigned n = 0;

    for (size_t i = 0; i < p->n; i++) {
        const pageres_item *o = &p->r[i];
        if (o->how == PAGERES_INFLIGHT && o->origin_len == r->origin_len &&
            strncasecmp(o->url, r->url, r->origin_len) == 0)
            n++;
    }
    return n >= PAGERES_PER_HOST;
}

static void pageres_header(struct curl_slist **l, const char *name, const char *value)
{
    char line[RCACHE_VAL_MAX + 32];
    struct curl_slist *n;

    snprintf(line, sizeof(line), "%s: %s", name, value);
    n = curl_slist_append(*l, line);
    if (n == NULL)
        xoom("curl_slist_append");
    *l = n;
}

/* Requests r, conditionally when etag or last_mod is given. */
static void pageres_request(pageres *p, pageres_item *r, const char *etag, const char *last_mod)
{
    vu *v = p->v;
    engine *e = v->eng;
    xh *x = xh_get(e);
    CURL *h = x->easy;
    int http2 = reqopt_http2(p->req_ro, p->scen_ro, engine_run_reqopt(e));
    int reval = etag != NULL || last_mod != NULL;
    int tp = engine_config(e)->traceparent || engine_scens(e)->scens[v->scen]->traceparent,
        compressed;
    char id[TRACEID_HEX_LEN + 1];

    vu_attach(v, x);
    xh_begin(x);
    if (reval) {
        pageres_header(&r->hdrs, "User-Agent", QUERN_USER_AGENT);
        if (etag != NULL)
            pageres_header(&r->hdrs, "If-None-Match", etag);
        if (last_mod != NULL)
            pageres_header(&r->hdrs, "If-Modified-Since", last_mod);
        if (tp) { /* each resource a request of its own in the server's traces */
            char line[TRACEID_LINE_LEN + 1];
            traceid_line(engine_traceid(e), line, id);
            pageres_header(&r->hdrs, "traceparent", line + 13);
        }
    }
    curl_easy_setopt(h, CURLOPT_CURLU, NULL);
    curl_easy_setopt(h, CURLOPT_URL, r->url);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, http2 ? (long)URLC_RECV_MAX : (long)URLC_RECV_FIRST);
    curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, NULL);
    /* A revalidation's own list leaves Accept-Encoding to libcurl. */
    compressed = reqopt_compressed(p->req_ro, p->scen_ro, engine_run_reqopt(e));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER,
                     r->hdrs != NULL ? r->hdrs
                     : tp            ? xh_traceparent(x, engine_traceid(e), compressed, id)
                     : compressed    ? engine_user_agent(e, 1)
                                     : engine_user_agent(e, 0));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, p->timeout_ms);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, PAGERES_REDIRS);
    /* With HTTP/2 the resources wait for the VU's connection and share it. */
    curl_easy_setopt(h, CURLOPT_PIPEWAIT, http2 ? 1L : 0L);
    if (engine_trace(e) != NULL)
        curl_easy_setopt(h, CURLOPT_VERBOSE, 0L); /* a pooled handle may be traced: not this */
    reqopt_apply(h, &x->ro, p->req_ro, p->scen_ro, engine_run_reqopt(e),
                 strncasecmp(r->url, "https:", 6) == 0, engine_env_ca(e));
    r->x = x;
    r->how = PAGERES_INFLIGHT;
    r->start_us = clock_mono_us();
    p->inflight++;
    if (curl_multi_add_handle(engine_multi(e), h) != CURLM_OK) {
        r->x = NULL;
        p->inflight--;
        curl_slist_free_all(r->hdrs);
        r->hdrs = NULL;
        xh_put(e, x);
        pageres_fail(p, r, "cannot start the transfer");
    }
}

/* Starts what may start; resources fresh in the cache are served at once. */
static void pageres_pump(pageres *p)
{
    int64_t now = clock_mono_us();

    for (size_t i = 0; i < p->n; i++) {
        pageres_item *r = &p->r[i];
        const char *etag = NULL, *lm = NULL;
        enum rcache_plan plan = RCACHE_MISS;
        if (r->how != PAGERES_QUEUED || pageres_host_busy(p, r))
            continue;
        if (p->use_cache && p->cache != NULL)
            plan = rcache_plan(p->cache, r->url, now, &etag, &lm);
        if (plan == RCACHE_FRESH) {
            r->how = PAGERES_CACHED;
            p->counts.cached++;
            if (r->css)
                pageres_add_deps(p, rcache_deps(p->cache, r->url)); /* may move p->r */
            continue;
        }
        pageres_request(p, r, etag, lm);
    }
}

static int pageres_pending(const pageres *p)
{
    if (p->inflight > 0)
        return 1;
    for (size_t i = 0; i < p->n; i++)
        if (p->r[i].how == PAGERES_QUEUED)
            return 1;
    return 0;
}

/* Every resource is in: the sample's latency is the page's. */
static void pageres_finish(pageres *p)
{
    sample *s = pageres_sample(p);

    p->active = 0;
    p->elapsed_us = clock_mono_us() - p->v->x.start_us;
    if (s != NULL && !s->in_block)
        s->elapsed_us = p->elapsed_us;
}

int pageres_start(vu *v)
{
    pageres *p = v->page;
    const char *ctype = NULL, *eff = NULL;
    embed_list l;

    if (p == NULL || !p->want)
        return 0;
    p->want = 0;
    p->asked = 1;
    p->elapsed_us = v->x.fig.elapsed_us;
    pageres_reset(p);
    if (v->x.curl_rc != CURLE_OK || v->x.status < 200 || v->x.status > 299)
        return 0;
    curl_easy_getinfo(v->xh->easy, CURLINFO_CONTENT_TYPE, &ctype);
    if (ctype == NULL || (strncasecmp(ctype, "text/html", 9) != 0 &&
                          strncasecmp(ctype, "application/xhtml+xml", 21) != 0))
        return 0;
    curl_easy_getinfo(v->xh->easy, CURLINFO_EFFECTIVE_URL, &eff);
    if (eff == NULL || strlen(eff) >= sizeof(p->base) ||
        embed_origin(eff, p->origin, sizeof(p->origin)) != 0)
        return 0;
    memcpy(p->base, eff, strlen(eff) + 1);
    if (p->use_cache && p->cache == NULL)
        p->cache = rcache_new();
    p->seq = v->xfer_timed && v->pend.step >= 0 ? v->pend.seq : 0;
    embed_list_init(&l);
    embed_html(&l, v->xh->body.p, v->xh->body.len, p->base);
    for (size_t i = 0; i < l.n; i++) {
        pageres_add(p, l.v[i].url, l.v[i].css);
        l.v[i].url = NULL; /* the page owns it (or freed it) */
    }
    embed_list_clear(&l);
    /* the resources carry the cookies the page's answer set, as a browser's do */
    if (p->n > 0)
        vu_save_jar(v);
    p->active = 1;
    pageres_pump(p);
    if (pageres_pending(p))
        return 1;
    pageres_finish(p);
    return 0;
}

/* A fetched stylesheet: what it names is loaded too, and kept in the
 * cache with it. */
static void pageres_scan_css(pageres *p, pageres_item *r, const xh *x)
{
    const char *eff = NULL;
    embed_list l;
    char *deps = NULL;
    size_t dlen = 0;

    curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
    embed_list_init(&l);
    embed_css(&l, x->body.p, x->body.len, eff != NULL ? eff : r->url, 0);
    if (p->use_cache && l.n > 0) {
        for (size_t i = 0; i < l.n; i++)
            dlen += strlen(l.v[i].url) + 1;
        deps = xmalloc(dlen + 1);
        dlen = 0;
        for (size_t i = 0; i < l.n; i++) {
            size_t n = strlen(l.v[i].url);
            memcpy(deps + dlen, l.v[i].url, n);
            deps[dlen + n] = '\n';
            dlen += n + 1;
        }
        deps[dlen] = '\0';
        rcache_set_deps(p->cache, r->url, deps, dlen);
        xfree(deps);
    }
    for (size_t i = 0; i < l.n; i++) {
        pageres_add(p, l.v[i].url, 0); /* may move p->r: r is not used after */
        l.v[i].url = NULL;
    }
    embed_list_clear(&l);
}

/* A transfer finished: when it is one of p's resources, handles it and
 * returns 1; else 0 (p may be NULL). */
static int xfer_done(pageres *p, CURL *easy, CURLcode rc)
{
    pageres_item *r = NULL;
    sample *s;
    xh *x;
    long status = 0, hsize = 0, rsize = 0, nconn = 0;
    curl_off_t dl = 0, ul = 0, total = 0, ttfb = 0, conn = 0;
    engine *e;

    for (size_t i = 0; p != NULL && i < p->n && r == NULL; i++)
        if (p->r[i].x != NULL && p->r[i].x->easy == easy)
            r = &p->r[i];
    if (r == NULL)
        return 0;
    e = p->v->eng;
    x = r->x;
    curl_multi_remove_handle(engine_multi(e), easy);
    p->inflight--;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &dl);
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &ul);
    curl_easy_getinfo(easy, CURLINFO_HEADER_SIZE, &hsize);
    curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &rsize);
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &nconn);
    curl_easy_getinfo(easy, CURLINFO_TOTAL_TIME_T, &total);
    curl_easy_getinfo(easy, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
    curl_easy_getinfo(easy, CURLINFO_APPCONNECT_TIME_T, &conn);
    if (conn == 0)
        curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &conn);
    r->status = (int)status;
    r->curl_rc = (int)rc;
    r->elapsed_us = total > 0 ? total : clock_mono_us() - r->start_us;
    r->ttfb_us = ttfb;
    r->connect_us = conn;
    r->bytes_in = (uint64_t)dl + (uint64_t)hsize;
    r->bytes_out = (uint64_t)ul + (uint64_t)rsize;
    s = pageres_sample(p);
    if (s != NULL) {
        s->bytes_in += r->bytes_in;
        s->bytes_out += r->bytes_out;
        s->new_conns += (uint64_t)nconn;
        s->requests += xh_requests(x);
    }
    if (p->use_cache)
        rcache_update(p->cache, r->url, rc == CURLE_OK ? (int)status : 0, x->hdr.p, x->hdr.len,
                      clock_mono_us());
    if (rc != CURLE_OK) {
        pageres_fail(p, r, x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
    } else if (status >= 400) {
        char why[32];
        err_set(why, sizeof(why), "HTTP status %ld", status);
        pageres_fail(p, r, why);
    } else if (status == 304 && r->hdrs != NULL) {
        r->how = PAGERES_NOTMOD;
        p->counts.revalidated++;
    } else {
        r->how = PAGERES_FETCHED;
        p->counts.fetched++;
    }
    curl_slist_free_all(r->hdrs);
    r->hdrs = NULL;
    r->x = NULL;
    if (r->css && r->how == PAGERES_NOTMOD) {
        pageres_add_deps(p, rcache_deps(p->cache, r->url)); /* r is not used after */
    } else if (r->css && r->how == PAGERES_FETCHED && status == 200) {
        pageres_scan_css(p, r, x); /* r is not used after */
    }
    xh_put(e, x);
    pageres_pump(p);
    if (!pageres_pending(p)) {
        pageres_finish(p);
        vu_xfer_resume(p->v);
    }
    return 1;
}

void pageres_abort(pageres *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        pageres_item *r = &p->r[i];
        if (r->x == NULL)
            continue;
        curl_multi_remove_handle(engine_multi(p->v->eng), r->x->easy);
        xh_put(p->v->eng, r->x);
        r->x = NULL;
        curl_slist_free_all(r->hdrs);
        r->hdrs = NULL;
        r->how = PAGERES_FAILED;
    }
    p->inflight = 0;
    p->active = 0;
    p->want = 0;
}

void pageres_free(pageres *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        pageres_item *r = &p->r[i];
        if (r->x != NULL) {
            /* The engine's pool is gone by now: the handle goes with the page. */
            curl_multi_remove_handle(engine_multi(p->v->eng), r->x->easy);
            xh_free(r->x);
        }
        curl_slist_free_all(r->hdrs);
        xfree(r->url);
    }
    xfree(p->r);
    rcache_free(p->cache);
    xfree(p);
}

static int plug_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    return xfer_done(v->page, easy, rc);
}

static void plug_abort(vu *v)
{
    pageres_abort(v->page);
}

static void plug_free(vu *v)
{
    pageres_free(v->page);
    v->page = NULL;
}

const plug pageres_plug = {
    .name = "page", .xfer_done = plug_xfer_done, .vu_abort = plug_abort, .vu_free = plug_free};

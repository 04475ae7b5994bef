/* sse — one server-sent events stream of a VU (sse.h). */
#include "worker/plugs/sse.h"

#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"
#include "worker/wire/reqopt.h"
#include "worker/wire/cookiejar.h"

/* --- counting and the queue ---------------------------------------------- */

static step_stats *step_of(sse *c)
{
    return c->step >= 0 && (size_t)c->step < engine_scens(c->eng)->nsteps
               ? engine_step_stats(c->eng, c->step)
               : NULL;
}

sse_event *sse_pop(sse *c)
{
    sse_event *m = (sse_event *)inbox_pop(&c->in);

    if (m == NULL)
        return NULL;
    c->taken_id = xrealloc(c->taken_id, m->id_len + 1);
    memcpy(c->taken_id, m->text, m->id_len);
    c->taken_len = m->id_len;
    return m;
}

const char *sse_last_id(const sse *c, size_t *len)
{
    if (inbox_peek(&c->in) != NULL) {
        *len = c->taken_len;
        return c->taken_id != NULL ? c->taken_id : "";
    }
    *len = c->parser.last_id.len;
    return c->parser.last_id.p != NULL ? c->parser.last_id.p : "";
}

/* The parser's callback: the event is counted, then queued. */
static int on_event(void *ud, const sseparse_event *ev)
{
    sse *c = ud;
    step_stats *s = step_of(c);
    size_t n = ev->id_len + ev->event_len + ev->data_len;
    sse_event *m;

    if (s != NULL) {
        s->ws_recv++;
        s->ws_bytes_recv += ev->data_len;
    }
    if (!inbox_fits(&c->in, n)) {
        /* The script does not keep up: a bound, not a growing heap. */
        err_set(c->err, sizeof(c->err),
                "SSE: more than %d events (or %u bytes) waiting for next: closed", SSE_QUEUE_MAX,
                SSE_QUEUE_BYTES);
        return 1;
    }
    m = xmalloc(sizeof(*m) + n);
    m->retry = ev->retry;
    m->id_len = ev->id_len;
    m->event_len = ev->event_len;
    m->data_len = ev->data_len;
    memcpy(m->text, ev->id, ev->id_len);
    memcpy(m->text + ev->id_len, ev->event, ev->event_len);
    memcpy(m->text + ev->id_len + ev->event_len, ev->data, ev->data_len);
    inbox_push(&c->in, &m->link, n); /* it fits: checked above */
    return 0;
}

/* --- libcurl's callbacks (no libcurl call, no Lua from here) ------------- */

/* 1 when the Content-Type value at v (n bytes) is text/event-stream. */
static int event_stream_type(const char *v, size_t n)
{
    static const char want[] = "text/event-stream";
    size_t w = sizeof(want) - 1;

    while (n > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        n--;
    }
    return n >= w && strncasecmp(v, want, w) == 0 &&
           (n == w || v[w] == ';' || v[w] == ' ' || v[w] == '\t' || v[w] == '\r' || v[w] == '\n');
}

/* The answer's headers are in: accepted (2xx, text/event-stream), or the
 * reason why not in err. */
static void headers_done(sse *c, int ctype_ok)
{
    long nconn = 0, req = 0;

    /* the stream's time is to its answer's headers: its first byte too */
    c->fig.elapsed_us = c->fig.ttfb_us = clock_mono_us() - c->start_us;
    vu_read_phases(c->easy, &c->fig);
    curl_easy_getinfo(c->easy, CURLINFO_NUM_CONNECTS, &nconn);
    curl_easy_getinfo(c->easy, CURLINFO_REQUEST_SIZE, &req);
    c->fig.new_conns = (uint64_t)nconn;
    c->fig.bytes_out = (uint64_t)req;
    if (c->status < 200 || c->status > 299)
        err_set(c->err, sizeof(c->err), "SSE: HTTP status %d", c->status);
    else if (!ctype_ok)
        err_set(c->err, sizeof(c->err), "SSE: the answer's Content-Type is not text/event-stream");
    else {
        c->state = SSE_OPEN;
        c->opened = 1;
        inbox_open(&c->in);
    }
}

static size_t header_cb(char *buf, size_t size, size_t n, void *ud)
{
    sse *c = ud;
    static const char ct[] = "content-type:";
    long status = 0;

    n *= size;
    c->fig.bytes_in += n;
    if (n >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
        c->ctype_ok = 0; /* a new answer (after a 1xx or an auth challenge) */
        return n;
    }
    if (n >= sizeof(ct) - 1 && strncasecmp(buf, ct, sizeof(ct) - 1) == 0) {
        c->ctype_ok = (uint8_t)event_stream_type(buf + sizeof(ct) - 1, n - (sizeof(ct) - 1));
        return n;
    }
    if (c->state != SSE_CONNECTING || !(n == 2 || n == 1) || (buf[0] != '\r' && buf[0] != '\n'))
        return n;
    /* the empty line: the answer's headers end */
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    c->status = (int)status;
    if (status < 200 || ((status == 401 || status == 407) && c->auth))
        return n; /* an interim answer, a proxy's answer to CONNECT (0 here), or a
                     challenge that libcurl answers with the credentials */
    headers_done(c, c->ctype_ok);
    inbox_wake_soon(&c->in);
    return c->opened ? n : 0; /* 0: the transfer ends, refused */
}

static size_t write_cb(char *buf, size_t size, size_t n, void *ud)
{
    sse *c = ud;
    char err[ERR_MAX];
    int rc;

    n *= size;
    if (c->state != SSE_OPEN)
        return n; /* a challenge's body */
    rc = sseparse_feed(&c->parser, buf, n, on_event, c, err, sizeof(err));
    if (inbox_peek(&c->in) != NULL)
        inbox_wake_soon(&c->in);
    if (rc == 0)
        return n;
    if (rc < 0)
        err_set(c->err, sizeof(c->err), "%s: closed", err);
    c->failed = 1;
    vu_count_error(c->owner, c->step, 1, c->err);
    inbox_wake_soon(&c->in);
    return 0; /* the transfer ends: sse_xfer_done */
}

/* --- the stream's life --------------------------------------------------- */

/* Releases libcurl's side; the struct, its queue and its parser stay. */
static void shut(sse *c)
{
    if (c->in_multi)
        curl_multi_remove_handle(engine_multi(c->eng), c->easy);
    c->in_multi = 0;
    curl_easy_cleanup(c->easy);
    c->easy = NULL;
    curl_slist_free_all(c->headers);
    c->headers = NULL;
    c->state = SSE_CLOSED;
    inbox_end(&c->in);
}

static void stream_free(sse *c)
{
    shut(c);
    inbox_free(&c->in);
    sseparse_free(&c->parser);
    xfree(c->taken_id);
    if (c->slot != NULL)
        *c->slot = NULL;
    xfree(c);
}

static int sse_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    sse *c = v->sse;

    while (c != NULL && c->easy != easy)
        c = c->next;
    if (c == NULL)
        return 0;
    if (!c->opened && c->err[0] == '\0') {
        /* no answer, or one whose headers never ended */
        c->fig.elapsed_us = c->fig.ttfb_us = clock_mono_us() - c->start_us;
        if (rc == CURLE_OK && c->status > 0)
            err_set(c->err, sizeof(c->err), "SSE: HTTP status %d", c->status);
        else
            err_set(c->err, sizeof(c->err), "SSE: %s",
                    c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
    } else if (c->opened && c->err[0] == '\0') {
        err_set(c->err, sizeof(c->err), "SSE: the server ended the stream%s%s",
                rc != CURLE_OK ? ": " : "", rc != CURLE_OK ? curl_easy_strerror(rc) : "");
    }
    shut(c);
    inbox_wake(&c->in); /* last: the script may free c */
    return 1;
}

/* --- opening ------------------------------------------------------------- */

/* The VU's cookies go with the request, as a browser's EventSource sends
 * them (from the handle it holds, else its text); cookies the answer sets
 * are not kept. */
static void put_cookies(sse *c, vu *v)
{
    char *jar;

    if (v->jar_reset)
        return; /* emptied at its next use: none now */
    jar = v->xh != NULL && v->xh->owner == v ? cookiejar_take(v->xh->easy) : xstrdup(v->jar);
    if (jar != NULL)
        cookiejar_put(c->easy, jar);
    xfree(jar);
}

sse *sse_open(vu *v, sse_cfg *cfg, char *err, size_t errlen)
{
    engine *e = v->eng;
    sse *c = xcalloc(1, sizeof(*c));

    c->eng = e;
    c->owner = v;
    c->step = cfg->step;
    inbox_init(&c->in, engine_loop(e), SSE_QUEUE_MAX, SSE_QUEUE_BYTES);
    c->state = SSE_CONNECTING;
    c->headers = cfg->headers;
    cfg->headers = NULL;
    c->auth = reqopt_pick(REQOPT_AUTH, cfg->req, cfg->scen, engine_run_reqopt(e)) != NULL;
    c->fig.requests = 1;
    sseparse_init(&c->parser);
    c->easy = vu_stream_easy(v, cfg->url, cfg->req, cfg->scen, c->errbuf);
    curl_easy_setopt(c->easy, CURLOPT_HTTPGET, 1L);
    put_cookies(c, v);
    c->start_us = clock_mono_us();
    /* it lasts as long as the server sends (the wait for its headers is
     * bound by the VU's timer, lsse.c): no timeout */
    if (vu_stream_start(v, c->easy, c->headers, header_cb, write_cb, c, 0L) != 0) {
        err_set(err, errlen, "step:sse: libcurl refused the request");
        stream_free(c);
        return NULL;
    }
    c->in_multi = 1;
    c->next = v->sse;
    v->sse = c;
    return c;
}

void sse_close(sse *c)
{
    if (c->state == SSE_CLOSED)
        return;
    if (c->err[0] == '\0')
        err_set(c->err, sizeof(c->err), "SSE: closed by the script");
    shut(c);
}

static void sse_vu_end(vu *v)
{
    while (v->sse != NULL) {
        sse *c = v->sse;
        v->sse = c->next;
        stream_free(c);
    }
}

static void sse_free_all(engine *e)
{
    for (uint32_t i = 0; i < engine_nvus(e); i++)
        sse_vu_end(engine_vu(e, i));
}

const plug sse_plug = {
    .name = "sse", .xfer_done = sse_xfer_done, .vu_end = sse_vu_end, .engine_end = sse_free_all};

/* gstream — one gRPC stream of a VU (gstream.h). */
#include "worker/plugs/gstream.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"

/* The address scopes given to streams so far: above any VU's id (a VU's
 * connections carry its id, vshare.h), one per stream. */
static uint32_t scopes;

/* --- counting and the queue ---------------------------------------------- */

static step_stats *step_of(gstream *c)
{
    return c->step >= 0 && (size_t)c->step < engine_scens(c->eng)->nsteps
               ? engine_step_stats(c->eng, c->step)
               : NULL;
}

gstream_msg *gstream_pop(gstream *c)
{
    return (gstream_msg *)inbox_pop(&c->in);
}

/* The status quern gives the call itself (a bound passed, a bad frame):
 * the transfer is then ended by the callback's refusal. */
static void set_local(gstream *c, int status, const char *why)
{
    c->local = 1;
    c->status = status;
    err_set(c->err, sizeof(c->err), "%s", why);
}

/* --- libcurl's callbacks (no libcurl call but getinfo, no Lua) ----------- */

/* The stream is open (the reply's headers, or the request out when it
 * sends): its figures for the sample, the time to now. */
static void opened_now(gstream *c)
{
    long nconn = 0, req = 0;

    if (c->state != GSTREAM_CONNECTING)
        return;
    /* the stream's time is to its open: its first byte too */
    c->fig.elapsed_us = c->fig.ttfb_us = clock_mono_us() - c->start_us;
    vu_read_phases(c->easy, &c->fig);
    curl_easy_getinfo(c->easy, CURLINFO_NUM_CONNECTS, &nconn);
    curl_easy_getinfo(c->easy, CURLINFO_REQUEST_SIZE, &req);
    c->fig.new_conns = (uint64_t)nconn;
    c->fig.bytes_out = (uint64_t)req + c->body_len;
    c->state = GSTREAM_OPEN;
    inbox_open(&c->in);
}

/* The reply's headers are in. */
static void headers_done(gstream *c)
{
    long status = 0;

    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    c->http_status = (int)status;
    c->hdr_end = c->hdr_len;
    c->encoding = (int8_t)grpc_encoding_read(c->hdr, c->hdr_end);
    c->got_hdr = 1;
    opened_now(c);
}

/* grpc-status came (trailers, or a reply of trailers only): the server
 * ended the call. libcurl 7.88 keeps a transfer whose upload is paused
 * open past the server's end: the upload is resumed from the loop, and
 * read_cb ends it. */
static void server_ended(gstream *c)
{
    c->server_done = 1;
    if (c->paused && c->loop != NULL && !ev_is_active(&c->kick)) {
        ev_timer_set(&c->kick, 0., 0.);
        ev_timer_start(c->loop, &c->kick);
    }
}

static size_t header_cb(char *buf, size_t size, size_t n, void *ud)
{
    gstream *c = ud;

    n *= size;
    c->fig.bytes_in += n;
    if (!c->got_hdr && n >= 5 && strncmp(buf, "HTTP/", 5) == 0)
        c->hdr_len = 0; /* a new answer (after a 1xx) */
    if (c->hdr_len + n <= GSTREAM_HDR_MAX) {
        memcpy(c->hdr + c->hdr_len, buf, n);
        c->hdr_len += n;
    }
    if (n > 12 && strncasecmp(buf, "grpc-status:", 12) == 0)
        server_ended(c);
    if (c->got_hdr || !(n == 2 || n == 1) || (buf[0] != '\r' && buf[0] != '\n'))
        return n;
    /* the empty line: the reply's headers end, unless an interim answer's */
    {
        long status = 0;
        curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status < 200)
            return n;
    }
    headers_done(c);
    inbox_wake_soon(&c->in);
    return n;
}

/* The request body of a stream that sends: the queued frames, as many as
 * fit; none queued, the upload pauses until gstream_send or
 * gstream_close_send resumes it; 0 ends it (END_STREAM). */
static size_t read_cb(char *buf, size_t size, size_t n, void *ud)
{
    gstream *c = ud;
    size_t room = size * n, k = 0;
    step_stats *s = step_of(c);

    if (c->state == GSTREAM_CONNECTING) {
        opened_now(c); /* the request's headers are out */
        inbox_wake_soon(&c->in);
    }
    while (c->out != NULL && k < room && !c->server_done) {
        gstream_out *f = c->out;
        size_t take = f->len - f->at < room - k ? f->len - f->at : room - k;
        memcpy(buf + k, f->data + f->at, take);
        f->at += take;
        k += take;
        if (f->at < f->len)
            break;
        c->out = f->next;
        if (c->out == NULL)
            c->out_tail = &c->out;
        c->out_count--;
        c->out_bytes -= f->len;
        c->sent++;
        if (s != NULL) {
            s->ws_sent++;
            s->ws_bytes_sent += f->len - 5;
        }
        xfree(f);
    }
    if (k > 0)
        return k;
    if (c->half_closed || c->server_done)
        return 0;
    c->paused = 1;
    return CURL_READFUNC_PAUSE;
}

/* A whole message is in: counted, queued. */
static void got_message(gstream *c)
{
    gstream_msg *m = c->cur;
    step_stats *s = step_of(c);

    c->cur = NULL;
    c->pre_len = 0;
    c->received++;
    if (s != NULL) {
        s->ws_recv++;
        s->ws_bytes_recv += m->len;
    }
    inbox_push(&c->in, &m->link, m->len); /* it fits: prefix_read checked */
}

/* Reads a frame's 5-byte prefix: 0 with the local status set when the frame
 * cannot be taken. */
static int prefix_read(gstream *c)
{
    uint32_t mlen = (uint32_t)c->pre[1] << 24 | (uint32_t)c->pre[2] << 16 |
                    (uint32_t)c->pre[3] << 8 | c->pre[4];
    char why[GSTREAM_ERR_MAX];

    if (c->pre[0] > 1 || (c->pre[0] == 1 && c->encoding != GRPC_ENC_GZIP)) {
        err_set(why, sizeof(why), "a message frame flagged %u under grpc-encoding %s", c->pre[0],
                c->encoding == GRPC_ENC_GZIP ? "gzip" : "identity or unknown");
        set_local(c, GRPC_INTERNAL, why);
        return 0;
    }
    if (mlen > GRPC_MSG_MAX) {
        err_set(why, sizeof(why), "a message of %u bytes (at most %u)", mlen, GRPC_MSG_MAX);
        set_local(c, GRPC_RESOURCE_EXHAUSTED, why);
        return 0;
    }
    if (!inbox_fits(&c->in, mlen)) {
        /* The script does not keep up: a bound, not a growing heap. */
        err_set(why, sizeof(why), "more than %d messages (or %u bytes) waiting for the script",
                GSTREAM_QUEUE_MAX, GSTREAM_QUEUE_BYTES);
        set_local(c, GRPC_RESOURCE_EXHAUSTED, why);
        return 0;
    }
    c->cur = xmalloc(sizeof(*c->cur) + mlen);
    c->cur->compressed = c->pre[0]; /* inflated when the script takes it */
    c->cur->len = mlen;
    c->cur_len = 0;
    return 1;
}

static size_t write_cb(char *buf, size_t size, size_t n, void *ud)
{
    gstream *c = ud;
    const uint8_t *p = (const uint8_t *)buf;
    size_t left = n * size;

    if (c->http_status != 200)
        return n * size; /* not a gRPC reply: its status says what it is */
    while (left > 0) {
        size_t k;
        if (c->cur == NULL) {
            k = 5 - c->pre_len < left ? 5 - c->pre_len : left;
            memcpy(c->pre + c->pre_len, p, k);
            c->pre_len += k;
            p += k;
            left -= k;
            if (c->pre_len < 5)
                break;
            if (!prefix_read(c)) {
                inbox_wake_soon(&c->in);
                return 0; /* the transfer ends: gstream_xfer_done */
            }
        }
        k = c->cur->len - c->cur_len < left ? c->cur->len - c->cur_len : left;
        memcpy(c->cur->data + c->cur_len, p, k);
        c->cur_len += k;
        p += k;
        left -= k;
        if (c->cur_len == c->cur->len)
            got_message(c);
    }
    if (inbox_peek(&c->in) != NULL)
        inbox_wake_soon(&c->in);
    return n * size;
}

/* --- the stream's life --------------------------------------------------- */

/* Releases libcurl's side; the struct, its queue and its lines stay. */
static void shut(gstream *c)
{
    if (c->in_multi)
        curl_multi_remove_handle(engine_multi(c->eng), c->easy);
    c->in_multi = 0;
    if (c->easy != NULL)
        curl_easy_cleanup(c->easy);
    c->easy = NULL;
    curl_slist_free_all(c->headers);
    c->headers = NULL;
    xfree(c->cur);
    c->cur = NULL;
    while (c->out != NULL) {
        gstream_out *f = c->out;
        c->out = f->next;
        xfree(f);
    }
    c->out_tail = &c->out;
    c->out_count = c->out_bytes = 0;
    if (c->loop != NULL)
        ev_timer_stop(c->loop, &c->kick);
    if (c->state == GSTREAM_CONNECTING)
        c->fig.elapsed_us = c->fig.ttfb_us = clock_mono_us() - c->start_us;
    c->state = GSTREAM_CLOSED;
    inbox_end(&c->in);
}

static void stream_free(gstream *c)
{
    shut(c);
    inbox_free(&c->in);
    xfree(c->hdr);
    xfree(c->body);
    if (c->slot != NULL)
        *c->slot = NULL;
    xfree(c);
}

/* The status of the call libcurl ended (as lgrpc.c's unary call_status). */
static void final_status(gstream *c, CURLcode rc)
{
    grpc_status st;

    grpc_status_read(c->hdr != NULL ? c->hdr : "", c->hdr_len, &st);
    c->from_server = 0;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        c->status = GRPC_DEADLINE_EXCEEDED;
        err_set(c->err, sizeof(c->err), "%s", c->errbuf[0] ? c->errbuf : "timed out");
    } else if (rc != CURLE_OK) {
        c->status = GRPC_UNAVAILABLE;
        err_set(c->err, sizeof(c->err), "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
    } else if (c->http_status != 200) {
        c->status = grpc_from_http(c->http_status);
        err_set(c->err, sizeof(c->err), "HTTP status %d", c->http_status);
    } else if (!st.found) {
        c->status = GRPC_INTERNAL;
        err_set(c->err, sizeof(c->err), "no grpc-status in the reply");
    } else if (st.code == GRPC_OK && (c->pre_len > 0 || c->cur != NULL)) {
        c->status = GRPC_INTERNAL;
        err_set(c->err, sizeof(c->err), "a partial message at the end of the stream");
    } else {
        c->status = st.code;
        c->from_server = 1;
        err_set(c->err, sizeof(c->err), "%s", st.message);
    }
}

static int gstream_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    gstream *c = v->gstream;

    while (c != NULL && c->easy != easy)
        c = c->next;
    if (c == NULL)
        return 0;
    if (!c->local)
        final_status(c, rc);
    shut(c);
    gstream_end(c);
    inbox_wake(&c->in); /* last: the script may free c */
    return 1;
}

void gstream_end(gstream *c)
{
    vu *v = c->owner;
    sample *p = &v->pend;
    char msg[VU_MSG_MAX];

    if (c->ended || c->state != GSTREAM_CLOSED)
        return;
    c->ended = 1;
    if (c->status >= 0 && c->status < 64 && (c->accept >> c->status & 1))
        return;
    err_set(msg, sizeof(msg), "gRPC status %s%s%s", grpc_status_name(c->status),
            c->err[0] ? ": " : "", c->err);
    if (p->step >= 0 && p->seq == c->seq) {
        if (p->err == SAMPLE_OK) {
            p->err = SAMPLE_TECH;
            p->status_err = c->from_server; /* a status the script may still accept */
            err_set(p->msg, sizeof(p->msg), "%s", msg);
        }
    } else
        vu_count_error(v, c->step, 1, msg);
}

void gstream_cancel(gstream *c, int status, const char *why)
{
    if (c->state == GSTREAM_CLOSED)
        return;
    set_local(c, status, why);
    shut(c);
    if (status == GRPC_CANCELLED)
        c->ended = 1; /* the client's choice: no error */
    gstream_end(c);
}

/* --- sending ------------------------------------------------------------- */

/* Resumes the upload read_cb paused. From the loop only. */
static void upload_resume(gstream *c)
{
    if (!c->paused || !c->in_multi)
        return;
    c->paused = 0;
    curl_easy_pause(c->easy, CURLPAUSE_CONT);
}

static void kick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    upload_resume((gstream *)((char *)w - offsetof(gstream, kick)));
}

int gstream_send(gstream *c, const uint8_t pre[5], const uint8_t *msg, size_t n, char *err,
                 size_t errlen)
{
    gstream_out *f;

    if (c->state == GSTREAM_CLOSED || c->server_done)
        return 0;
    if (c->out_count >= GSTREAM_SEND_MAX || n + 5 > GSTREAM_SEND_BYTES - c->out_bytes) {
        /* the server (or the network) does not take them: a bound, not a heap */
        err_set(err, errlen, "more than %d messages (or %u bytes) waiting to be sent",
                GSTREAM_SEND_MAX, GSTREAM_SEND_BYTES);
        return -1;
    }
    f = xmalloc(sizeof(*f) + 5 + n);
    f->next = NULL;
    f->len = 5 + n;
    f->at = 0;
    memcpy(f->data, pre, 5);
    if (n > 0)
        memcpy(f->data + 5, msg, n);
    *c->out_tail = f;
    c->out_tail = &f->next;
    c->out_count++;
    c->out_bytes += f->len;
    upload_resume(c);
    return 1;
}

void gstream_close_send(gstream *c)
{
    c->half_closed = 1;
    if (c->state != GSTREAM_CLOSED)
        upload_resume(c);
}

/* --- opening ------------------------------------------------------------- */

gstream *gstream_open(vu *v, gstream_cfg *cfg, char *err, size_t errlen)
{
    engine *e = v->eng;
    gstream *c = xcalloc(1, sizeof(*c));

    c->eng = e;
    c->owner = v;
    c->step = cfg->step;
    c->seq = cfg->seq;
    c->accept = 1; /* OK */
    inbox_init(&c->in, engine_loop(e), GSTREAM_QUEUE_MAX, GSTREAM_QUEUE_BYTES);
    c->state = GSTREAM_CONNECTING;
    c->headers = cfg->headers;
    cfg->headers = NULL;
    c->hdr = xmalloc(GSTREAM_HDR_MAX);
    c->body = xmalloc(cfg->body_len > 0 ? cfg->body_len : 1);
    if (cfg->body_len > 0)
        memcpy(c->body, cfg->body, cfg->body_len);
    c->body_len = cfg->body_len;
    c->fig.requests = 1;
    c->out_tail = &c->out;
    c->loop = engine_loop(e);
    ev_timer_init(&c->kick, kick_cb, 0., 0.);
    c->easy = vu_stream_easy(v, cfg->url, cfg->req, cfg->scen, c->errbuf);
    if (cfg->sends) {
        /* a body of unknown length: HTTP/2 has no chunks, libcurl sends DATA
         * frames as read_cb gives bytes */
        c->sends = 1;
        c->body_len = 0;
        curl_easy_setopt(c->easy, CURLOPT_POST, 1L);
        curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)-1);
        curl_easy_setopt(c->easy, CURLOPT_READFUNCTION, read_cb);
        curl_easy_setopt(c->easy, CURLOPT_READDATA, c);
    } else {
        curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
        curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, c->body);
    }
    /* After reqopt: the stream's connection is its own, closed with it (a
     * cancel the server sees at once: vu_stream_start), and bound only by
     * the call's deadline. Its own: a cache key no other transfer has (the
     * address scope, as vshare.h keys a VU's connections), so that nothing
     * is multiplexed on it; libcurl before 8.0 breaks a second stream on an
     * h2c connection (reqopt.c), and a connection shared with the stream
     * would close under the other. */
    curl_easy_setopt(c->easy, CURLOPT_SHARE, v->share);
    curl_easy_setopt(c->easy, CURLOPT_ADDRESS_SCOPE,
                     (long)(0x80000000u | (++scopes & 0x7fffffffu)));
    c->start_us = clock_mono_us();
    if (vu_stream_start(v, c->easy, c->headers, header_cb, write_cb, c, cfg->timeout_ms) != 0) {
        err_set(err, errlen, "step:grpc_stream: libcurl refused the request");
        stream_free(c);
        return NULL;
    }
    c->in_multi = 1;
    c->next = v->gstream;
    v->gstream = c;
    return c;
}

static void gstream_vu_end(vu *v)
{
    while (v->gstream != NULL) {
        gstream *c = v->gstream;
        v->gstream = c->next;
        gstream_cancel(c, GRPC_CANCELLED, "the VU's phase ended");
        stream_free(c);
    }
}

static void gstream_free_all(engine *e)
{
    for (uint32_t i = 0; i < engine_nvus(e); i++)
        gstream_vu_end(engine_vu(e, i));
}

const plug gstream_plug = {.name = "gstream",
                           .xfer_done = gstream_xfer_done,
                           .vu_end = gstream_vu_end,
                           .engine_end = gstream_free_all};

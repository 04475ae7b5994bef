/* websocket — one WebSocket client connection of a VU (websocket.h). */
#include "worker/plugs/websocket.h"

#include <errno.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"
#include "worker/plugs/trace.h"
#include "worker/wire/cookiejar.h"
#include "worker/wire/wscookie.h"

static void on_io(struct ev_loop *loop, ev_io *w, int revents);
static void on_close_timer(struct ev_loop *loop, ev_timer *w, int revents);
static void on_more(struct ev_loop *loop, ev_timer *w, int revents);

/* --- counting and the queue ---------------------------------------------- */

static step_stats *step_of(websocket *c)
{
    return c->step >= 0 && (size_t)c->step < engine_scens(c->eng)->nsteps
               ? engine_step_stats(c->eng, c->step)
               : NULL;
}

websocket_msg *websocket_pop(websocket *c)
{
    return (websocket_msg *)inbox_pop(&c->in);
}

/* --- the network side ---------------------------------------------------- */

/* --trace: an event of c's VU (worker/plugs/trace.h). */
static void traced(websocket *c, const char *what, const char *mark, const char *text, size_t len)
{
    if (engine_trace(c->eng) != NULL && c->owner != NULL)
        trace_ws(engine_trace(c->eng), c->owner, what, mark, text, len);
}

/* --trace: a message of c's. */
static void traced_msg(websocket *c, const char *dir, int binary, const char *data, size_t len)
{
    char what[64];

    if (engine_trace(c->eng) == NULL || c->owner == NULL)
        return;
    snprintf(what, sizeof(what), "%s %s, %zu bytes", dir, binary ? "binary" : "text", len);
    traced(c, what, dir[0] == 's' ? "> " : "< ", binary ? NULL : data, len);
}

/* libcurl's close of the socket: a taken one stays open (it is ours). */
static int close_cb(void *ud, curl_socket_t fd)
{
    websocket *c = ud;

    if (c->taken && fd == c->fd)
        return 0;
    return close(fd);
}

/* Lets go of libcurl: the handle, its connection cache. */
static void drop_curl(websocket *c)
{
    if (c->in_multi)
        curl_multi_remove_handle(engine_multi(c->eng), c->easy);
    c->in_multi = 0;
    if (c->easy != NULL)
        curl_easy_cleanup(c->easy);
    c->easy = NULL;
    if (c->share != NULL)
        curl_share_cleanup(c->share);
    c->share = NULL;
}

/* Sends up to n bytes: CURLE_OK with *done sent, CURLE_AGAIN, or an error
 * (the codes and texts of curl_easy_send, whichever carries the bytes). */
static CURLcode conn_send(websocket *c, const void *buf, size_t n, size_t *done)
{
    ssize_t r;

    *done = 0;
    if (!c->taken)
        return curl_easy_send(c->easy, buf, n, done);
    do
        r = send(c->fd, buf, n, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r >= 0) {
        *done = (size_t)r;
        return CURLE_OK;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK ? CURLE_AGAIN : CURLE_SEND_ERROR;
}

/* Reads up to n bytes: CURLE_OK with *done read (0: the server closed),
 * CURLE_AGAIN, or an error, as curl_easy_recv. */
static CURLcode conn_recv(websocket *c, void *buf, size_t n, size_t *done)
{
    ssize_t r;

    *done = 0;
    if (!c->taken)
        return curl_easy_recv(c->easy, buf, n, done);
    do
        r = recv(c->fd, buf, n, 0);
    while (r < 0 && errno == EINTR);
    if (r >= 0) {
        *done = (size_t)r;
        return CURLE_OK;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK ? CURLE_AGAIN : CURLE_RECV_ERROR;
}

/* Releases the socket, wslay and libcurl; the struct stays for its owner. */
static void shut(websocket *c, const char *why)
{
    if (c->state == WEBSOCKET_CLOSED)
        return;
    if (why != NULL && c->err[0] == '\0')
        err_set(c->err, sizeof(c->err), "%s", why);
    c->state = WEBSOCKET_CLOSED;
    inbox_end(&c->in);
    ev_io_stop(engine_loop(c->eng), &c->io);
    ev_timer_stop(engine_loop(c->eng), &c->timer);
    ev_timer_stop(engine_loop(c->eng), &c->more);
    if (c->ctx != NULL)
        wslay_event_context_free(c->ctx);
    c->ctx = NULL;
    drop_curl(c); /* through libcurl: libcurl closes its socket */
    if (c->taken && c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    xfree(c->hs);
    c->hs = NULL;
    xfree(c->ck_host);
    xfree(c->ck_path);
    c->ck_host = c->ck_path = NULL;
}

static void conn_free(websocket *c)
{
    shut(c, NULL);
    inbox_free(&c->in);
    if (c->slot != NULL)
        *c->slot = NULL;
    xfree(c);
}

/* Unlinks c from the list at *head; 1 if it was there. */
static int unlink_from(websocket **head, websocket *c)
{
    for (websocket **pp = head; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            c->next = NULL;
            return 1;
        }
    }
    return 0;
}

static void arm(websocket *c, int events)
{
    if (c->io.events == events && ev_is_active(&c->io))
        return;
    ev_io_stop(engine_loop(c->eng), &c->io);
    ev_io_set(&c->io, c->io.fd, events);
    ev_io_start(engine_loop(c->eng), &c->io);
}

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *ud)
{
    websocket *c = ud;
    size_t n = 0;
    CURLcode rc;

    if (c->extra_off < c->extra_len) {
        /* frames that came in with the handshake's answer */
        n = c->extra_len - c->extra_off < len ? c->extra_len - c->extra_off : len;
        memcpy(buf, c->hs + c->extra_off, n);
        wsbound_feed(&c->bound, buf, n);
        c->extra_off += n;
        if (c->extra_off == c->extra_len) {
            xfree(c->hs); /* an idle connection keeps no handshake buffer */
            c->hs = NULL;
        }
        return (ssize_t)n;
    }
    if (c->budget == 0) {
        /* A server that sends without pause must not hold the loop: the
         * rest is read at the next iteration (TLS may hold it decrypted,
         * with the socket no longer readable: a timer, not the watcher). */
        if (!ev_is_active(&c->more)) {
            ev_timer_set(&c->more, 0., 0.);
            ev_timer_start(engine_loop(c->eng), &c->more);
        }
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    rc = conn_recv(c, buf, len < c->budget ? len : c->budget, &n);
    if (rc == CURLE_AGAIN) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    wsbound_feed(&c->bound, buf, n);
    c->budget -= n < c->budget ? n : c->budget;
    if (rc != CURLE_OK || n == 0) {
        if (c->err[0] == '\0')
            err_set(c->err, sizeof(c->err), "WebSocket: %s",
                    rc != CURLE_OK ? curl_easy_strerror(rc) : "the server closed the connection");
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return (ssize_t)n;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *ud)
{
    websocket *c = ud;
    size_t n = 0;
    CURLcode rc = conn_send(c, data, len, &n);

    if (rc == CURLE_AGAIN) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    if (rc != CURLE_OK) {
        if (c->err[0] == '\0')
            err_set(c->err, sizeof(c->err), "WebSocket: %s", curl_easy_strerror(rc));
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return (ssize_t)n;
}

static int genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *ud)
{
    return RAND_bytes(buf, (int)len) == 1 ? 0 : -1;
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *ud)
{
    websocket *c = ud;
    step_stats *s = step_of(c);
    websocket_msg *m;

    if (arg->opcode == WSLAY_CONNECTION_CLOSE) {
        c->close_code = arg->status_code;
        return; /* wslay answers it */
    }
    if (arg->opcode != WSLAY_TEXT_FRAME && arg->opcode != WSLAY_BINARY_FRAME)
        return; /* pings are answered by wslay, pongs need nothing */
    if (s != NULL) {
        s->ws_recv++;
        s->ws_bytes_recv += arg->msg_length;
    }
    traced_msg(c, "received", arg->opcode == WSLAY_BINARY_FRAME, (const char *)arg->msg,
               arg->msg_length);
    if (c->owner == NULL || c->state != WEBSOCKET_OPEN)
        return; /* closing: nobody will read it */
    if (!inbox_fits(&c->in, arg->msg_length)) {
        /* The script does not keep up: a bound, not a growing heap. */
        char msg[WEBSOCKET_ERR_MAX];
        err_set(msg, sizeof(msg),
                "WebSocket: more than %d messages (or %u bytes) waiting for receive: closed "
                "with 1008",
                WEBSOCKET_QUEUE_MAX, WEBSOCKET_QUEUE_BYTES);
        vu_count_error(c->owner, c->step, 1, msg);
        err_set(c->err, sizeof(c->err), "%s", msg);
        wslay_event_queue_close(ctx, 1008, (const uint8_t *)"receive queue full", 18);
        c->state = WEBSOCKET_CLOSING;
        inbox_end(&c->in);
        return;
    }
    m = xmalloc(sizeof(*m) + arg->msg_length);
    m->len = arg->msg_length;
    m->binary = arg->opcode == WSLAY_BINARY_FRAME;
    memcpy(m->data, arg->msg, arg->msg_length);
    inbox_push(&c->in, &m->link, m->len); /* it fits: checked above */
}

/* c's wslay context, made again if c let it go while idle: a fresh one is
 * the same as an idle one (no frame or message in, nothing queued, no
 * close). */
static wslay_event_context_ptr ctx_of(websocket *c)
{
    static const struct wslay_event_callbacks cbs = {recv_cb, send_cb, genmask_cb, NULL,
                                                     NULL,    NULL,    on_msg};
    wslay_event_context_ptr ctx;

    if (c->ctx != NULL)
        return c->ctx;
    if (wslay_event_context_client_init(&ctx, &cbs, c) != 0)
        xoom("wslay_event_context_client_init");
    wslay_event_config_set_max_recv_msg_length(ctx, WEBSOCKET_MSG_MAX);
    c->ctx = ctx;
    return ctx;
}

/* Whether c's context holds nothing a fresh one would not: open, every
 * frame handed to it whole, no message cut, nothing to send. */
static int idle(websocket *c)
{
    wslay_event_context_ptr ctx = c->ctx;

    return c->state == WEBSOCKET_OPEN && wsbound_idle(&c->bound) && c->extra_off == c->extra_len &&
           !wslay_event_want_write(ctx) && wslay_event_get_read_enabled(ctx) &&
           !wslay_event_get_close_sent(ctx) && !wslay_event_get_close_received(ctx);
}

/* Reads and writes what wslay can; shuts c when the connection is over. */
static void pump(websocket *c, int readable)
{
    wslay_event_context_ptr ctx = ctx_of(c);

    c->budget = WEBSOCKET_READ_BUDGET;
    if (readable && wslay_event_want_read(ctx) && wslay_event_recv(ctx) != 0) {
        shut(c, NULL);
        return;
    }
    if (wslay_event_want_write(ctx) && wslay_event_send(ctx) != 0) {
        shut(c, NULL);
        return;
    }
    if (wslay_event_get_close_received(ctx) && c->state == WEBSOCKET_OPEN) {
        c->state = WEBSOCKET_CLOSING;
        inbox_end(&c->in);
        if (c->err[0] == '\0')
            err_set(c->err, sizeof(c->err), "WebSocket closed by the server (%d)", c->close_code);
    }
    if (!wslay_event_want_read(ctx) && !wslay_event_want_write(ctx)) {
        shut(c, NULL); /* both closes went: the handshake is over */
        return;
    }
    if (idle(c)) { /* an idle connection keeps no context: the next bytes make one */
        wslay_event_context_free(ctx);
        c->ctx = NULL;
        arm(c, EV_READ);
        return;
    }
    arm(c,
        (wslay_event_want_read(ctx) ? EV_READ : 0) | (wslay_event_want_write(ctx) ? EV_WRITE : 0));
}

static void became_open(websocket *c, size_t answer_len)
{
    c->state = WEBSOCKET_OPEN;
    c->opened = 1;
    inbox_open(&c->in);
    c->fig.elapsed_us = clock_mono_us() - c->start_us;
    c->fig.bytes_in = answer_len;
    c->extra_off = answer_len;
    c->extra_len = c->hs_off;
    if (c->extra_off == c->extra_len) {
        xfree(c->hs); /* nothing came after the answer */
        c->hs = NULL;
    }
    pump(c, 1);
}

/* Adds one jar line to v's jar: into the cookie engine of the handle v
 * holds, or, holding none, into its jar text (cookiejar.h), so that a VU that
 * only speaks WebSocket takes no transfer handle for its cookies. */
static void jar_add(vu *v, const char *line)
{
    char *merged;

    if (v->xh != NULL) {
        curl_easy_setopt(vu_easy(v), CURLOPT_COOKIELIST, line);
        return;
    }
    if (v->jar_reset) { /* cookies = "reset": the run starts from none */
        xfree(v->jar);
        v->jar = NULL;
        v->jar_reset = 0;
    }
    merged = cookiejar_merge(v->jar, NULL, line);
    xfree(v->jar);
    v->jar = merged;
    v->jar_gen++;
}

/* The Set-Cookie lines of the 101 answer (its first len bytes) into the
 * VU's jar, as libcurl does with an HTTP step's answer. */
static void jar_from_answer(websocket *c, size_t len)
{
    static const char name[] = "set-cookie:";
    const char *p = c->hs, *end = c->hs + len;

    if (c->owner == NULL || c->ck_host == NULL)
        return;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = (eol != NULL ? eol : end) - p;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (n > sizeof(name) - 1 && n < 8192 && strncasecmp(p, name, sizeof(name) - 1) == 0) {
            char value[8192], line[8192 + 512];
            snprintf(value, sizeof(value), "%.*s", (int)(n - (sizeof(name) - 1)),
                     p + sizeof(name) - 1);
            if (wscookie_line(value, c->ck_host, c->ck_path, time(NULL), line, sizeof(line)) == 0)
                jar_add(c->owner, line);
        }
        if (eol == NULL)
            break;
        p = eol + 1;
    }
}

/* The VU's cookies for host and path (secure: wss://) as a Cookie header
 * line in out, "" when none; a Cookie line among the script's headers
 * wins. The jar is the cookie engine of the handle the VU holds, else its
 * jar text. */
static void jar_to_request(websocket *c, const char *headers, const char *host, const char *path,
                           int secure, char *out, size_t cap)
{
    vu *v = c->owner;
    struct curl_slist *list = NULL;
    char *text = NULL;
    const char **lines = NULL;
    size_t n = 0, k = 0;

    out[0] = '\0';
    for (const char *h = headers; h != NULL && *h != '\0';) {
        const char *eol = strchr(h, '\n');
        if (strncasecmp(h, "cookie:", 7) == 0)
            return;
        h = eol != NULL ? eol + 1 : NULL;
    }
    if (v == NULL)
        return;
    if (v->xh != NULL) {
        curl_easy_getinfo(vu_easy(v), CURLINFO_COOKIELIST, &list);
        for (struct curl_slist *l = list; l != NULL; l = l->next)
            n++;
        lines = xcalloc(n + 1, sizeof(*lines));
        for (struct curl_slist *l = list; l != NULL; l = l->next)
            lines[k++] = l->data;
    } else if (v->jar != NULL && !v->jar_reset) {
        text = xstrdup(v->jar);
        for (const char *t = text; *t != '\0'; t++)
            n += *t == '\n';
        lines = xcalloc(n + 2, sizeof(*lines));
        for (char *t = text, *nl; t != NULL; t = nl) {
            nl = strchr(t, '\n');
            if (nl != NULL)
                *nl++ = '\0';
            if (*t != '\0')
                lines[k++] = t;
        }
    }
    if (k > 0)
        wscookie_header(out, cap, lines, k, host, path, secure, time(NULL));
    xfree(lines);
    xfree(text);
    curl_slist_free_all(list);
}

/* The upgrade request goes out, then its answer comes in. */
static void upgrade_io(websocket *c)
{
    size_t n = 0;
    CURLcode rc;
    int got;
    wshandshake_res res;
    char err[ERR_MAX];

    while (c->hs_off < c->hs_len && c->fig.bytes_out == 0) {
        rc = conn_send(c, c->hs + c->hs_off, c->hs_len - c->hs_off, &n);
        if (rc == CURLE_AGAIN) {
            arm(c, EV_WRITE);
            return;
        }
        if (rc != CURLE_OK) {
            err_set(c->err, sizeof(c->err), "WebSocket handshake: %s", curl_easy_strerror(rc));
            shut(c, NULL);
            return;
        }
        c->hs_off += n;
        if (c->hs_off == c->hs_len) {
            traced(c, "upgrade request", "> ", c->hs, c->hs_len);
            c->fig.bytes_out = c->hs_len;
            /* the answer gets a small buffer, grown if it must: connections
             * waiting for theirs each hold one */
            xfree(c->hs);
            c->hs_cap = WEBSOCKET_ANSWER_FIRST;
            c->hs = xmalloc(c->hs_cap);
            c->hs_off = 0;
        }
    }
    for (;;) {
        if (c->hs_off == c->hs_cap) { /* below WSHANDSHAKE_MAX: parse said so */
            c->hs_cap = c->hs_cap * 2 < WSHANDSHAKE_MAX ? c->hs_cap * 2 : WSHANDSHAKE_MAX;
            c->hs = xrealloc(c->hs, c->hs_cap);
        }
        rc = conn_recv(c, c->hs + c->hs_off, c->hs_cap - c->hs_off, &n);
        if (rc == CURLE_AGAIN) {
            arm(c, EV_READ);
            return;
        }
        if (rc != CURLE_OK || n == 0) {
            err_set(c->err, sizeof(c->err), "WebSocket handshake: %s",
                    rc != CURLE_OK ? curl_easy_strerror(rc) : "the server closed the connection");
            shut(c, NULL);
            return;
        }
        c->hs_off += n;
        got = wshandshake_parse(c->hs, c->hs_off, c->key, &res, err, sizeof(err));
        c->status = res.status;
        if (got < 0) {
            c->fig.elapsed_us = clock_mono_us() - c->start_us;
            c->fig.bytes_in = c->hs_off;
            err_set(c->err, sizeof(c->err), "%s", err);
            traced(c, err, "< ", c->hs, c->hs_off);
            shut(c, NULL);
            return;
        }
        if (got > 0) {
            char what[80];
            snprintf(what, sizeof(what), "open in %.2f ms",
                     (double)(clock_mono_us() - c->start_us) / 1000.);
            traced(c, what, "< ", c->hs, (size_t)got);
            snprintf(c->protocol, sizeof(c->protocol), "%s", res.protocol);
            jar_from_answer(c, (size_t)got);
            xfree(c->ck_host); /* an open connection keeps no copy of its URL */
            xfree(c->ck_path);
            c->ck_host = c->ck_path = NULL;
            became_open(c, (size_t)got);
            return;
        }
    }
}

/* An orphan (owner NULL) is freed once shut. */
static void reap(websocket *c)
{
    if (c->owner == NULL && c->state == WEBSOCKET_CLOSED) {
        unlink_from(&(*engine_ws_closing(c->eng)), c);
        conn_free(c);
    }
}

/* After c's I/O: an orphan is freed once shut, a VU waiting on c goes on. */
static void after_io(websocket *c)
{
    if (c->owner == NULL) {
        reap(c);
        return;
    }
    inbox_wake(&c->in);
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    websocket *c = (websocket *)((char *)w - offsetof(websocket, io));

    if (c->state == WEBSOCKET_CONNECTING)
        upgrade_io(c);
    else if (c->state != WEBSOCKET_CLOSED)
        pump(c, (revents & EV_READ) != 0);
    after_io(c);
}

static void on_more(struct ev_loop *loop, ev_timer *w, int revents)
{
    websocket *c = (websocket *)((char *)w - offsetof(websocket, more));

    if (c->state != WEBSOCKET_CLOSED && c->state != WEBSOCKET_CONNECTING)
        pump(c, 1);
    after_io(c);
}

static void on_close_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    websocket *c = (websocket *)((char *)w - offsetof(websocket, timer));

    shut(c, "WebSocket: the server did not answer the close");
    if (c->owner == NULL)
        reap(c);
    else
        inbox_wake(&c->in);
}

static int websocket_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    websocket *c = v->ws;
    curl_socket_t fd = CURL_SOCKET_BAD;
    long tunnel = 0;

    while (c != NULL && c->easy != easy)
        c = c->next;
    if (c == NULL)
        return 0;
    if (rc != CURLE_OK) {
        c->fig.elapsed_us = clock_mono_us() - c->start_us;
        err_set(c->err, sizeof(c->err), "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
        traced(c, c->err, "", NULL, 0);
        shut(c, NULL);
        inbox_wake(&c->in);
        return 1;
    }
    vu_read_phases(easy, &c->fig);
    if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) {
        err_set(c->err, sizeof(c->err), "WebSocket: no socket after the connect");
        shut(c, NULL);
        inbox_wake(&c->in);
        return 1;
    }
    c->fd = fd;
    /* plain and straight to the server: the socket is ours, the handle goes */
    curl_easy_getinfo(easy, CURLINFO_HTTP_CONNECTCODE, &tunnel);
    if (!c->tls && tunnel == 0) {
        c->taken = 1;
        drop_curl(c);
    }
    ev_io_init(&c->io, on_io, fd, EV_WRITE);
    upgrade_io(c);
    inbox_wake(&c->in);
    return 1;
}

/* --- opening ------------------------------------------------------------- */

/* Sets the parts of the URL at url (ws:// or wss://) into the request, and
 * writes the http:// or https:// URL libcurl connects to into http_url (cap
 * bytes); 0, or -1 with the reason in err. */
static int set_url(websocket *c, const websocket_cfg *cfg, char *http_url, size_t cap, char *err,
                   size_t errlen)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *path = NULL, *query = NULL, hostport[300], target[8192];
    char cookie[WSHANDSHAKE_MAX], *extra = NULL;
    const char *url = cfg->url;
    int rc = -1, n, https;

    if (u == NULL)
        xoom("curl_url");
    if (strncasecmp(url, "ws://", 5) == 0) {
        https = 0;
        n = snprintf(http_url, cap, "http://%s", url + 5);
    } else if (strncasecmp(url, "wss://", 6) == 0) {
        https = 1;
        c->tls = 1;
        n = snprintf(http_url, cap, "https://%s", url + 6);
    } else {
        err_set(err, errlen, "step:ws: \"%s\" is not a ws:// or wss:// URL", url);
        goto out;
    }
    if (n < 0 || (size_t)n >= cap || curl_url_set(u, CURLUPART_URL, http_url, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) || curl_url_get(u, CURLUPART_PATH, &path, 0)) {
        err_set(err, errlen, "step:ws: bad URL \"%s\"", url);
        goto out;
    }
    curl_url_get(u, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT);
    curl_url_get(u, CURLUPART_QUERY, &query, 0);
    snprintf(hostport, sizeof(hostport), "%s%s%s", host, port ? ":" : "", port ? port : "");
    n = snprintf(target, sizeof(target), "%s%s%s", path, query ? "?" : "", query ? query : "");
    c->hs = xmalloc(WSHANDSHAKE_MAX);
    jar_to_request(c, cfg->headers, host, path, https, cookie, sizeof(cookie));
    if (cookie[0] != '\0') {
        extra = xasprintf("%s%s", cfg->headers ? cfg->headers : "", cookie);
    }
    n = n > 0 && (size_t)n < sizeof(target)
            ? wshandshake_request(c->hs, WSHANDSHAKE_MAX, hostport, target, c->key, cfg->protocols,
                                  extra != NULL ? extra : cfg->headers)
            : -1;
    if (n < 0) {
        err_set(err, errlen, "step:ws: the upgrade request exceeds %d bytes", WSHANDSHAKE_MAX);
        goto out;
    }
    c->hs_len = (size_t)n;
    c->ck_host = xstrdup(host);
    c->ck_path = xstrdup(path);
    rc = 0;
out:
    xfree(extra);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_url_cleanup(u);
    return rc;
}

websocket *websocket_open(vu *v, const websocket_cfg *cfg, char *err, size_t errlen)
{
    engine *e = v->eng;
    websocket *c = xcalloc(1, sizeof(*c));
    uint8_t rnd[16];
    char http_url[8192];

    c->eng = e;
    c->owner = v;
    c->step = cfg->step;
    c->fd = -1;
    inbox_init(&c->in, engine_loop(e), WEBSOCKET_QUEUE_MAX, WEBSOCKET_QUEUE_BYTES);
    c->state = WEBSOCKET_CONNECTING;
    ev_init(&c->io, on_io);
    ev_init(&c->timer, on_close_timer);
    ev_init(&c->more, on_more);
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        memset(rnd, 0x5a, sizeof(rnd));
    wshandshake_key(rnd, c->key);
    c->fig.new_conns = 1; /* its connection cache is its own: the connection is new */
    c->fig.requests = 1;
    if (set_url(c, cfg, http_url, sizeof(http_url), err, errlen) != 0) {
        conn_free(c); /* shut frees what set_url made */
        return NULL;
    }
    c->easy = vu_stream_easy(v, http_url, cfg->req, cfg->scen, c->errbuf);
    if (c->tls || !engine_no_env_proxy(e)) {
        /* the handle may stay: a cache of its own (websocket.h). A plain
         * socket straight to the server is taken at once, none needed. */
        c->share = curl_share_init();
        if (c->share == NULL)
            xoom("curl_share_init");
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        curl_easy_setopt(c->easy, CURLOPT_SHARE, c->share);
    }
    if (!c->tls) { /* the socket may become ours once connected */
        curl_easy_setopt(c->easy, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
        curl_easy_setopt(c->easy, CURLOPT_CLOSESOCKETDATA, c);
    }
    curl_easy_setopt(c->easy, CURLOPT_CONNECT_ONLY, 1L);
    /* libcurl's receive buffer is not used (curl_easy_recv reads into
     * wslay's): the smallest, not 16 KiB a connection */
    curl_easy_setopt(c->easy, CURLOPT_BUFFERSIZE, 1024L); /* libcurl's minimum */
    /* a proxy is crossed by a tunnel, as browsers do for WebSockets */
    curl_easy_setopt(c->easy, CURLOPT_HTTPPROXYTUNNEL, 1L);
    /* after reqopt: ALPN offers only HTTP/1.1, the upgrade's version */
    curl_easy_setopt(c->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, cfg->timeout_ms);
    c->start_us = clock_mono_us();
    if (curl_multi_add_handle(engine_multi(e), c->easy) != CURLM_OK) {
        err_set(err, errlen, "step:ws: libcurl refused the connection");
        conn_free(c);
        return NULL;
    }
    c->in_multi = 1;
    c->next = v->ws;
    v->ws = c;
    return c;
}

/* --- messages and closing ------------------------------------------------ */

int websocket_send(websocket *c, const char *data, size_t len, int binary)
{
    struct wslay_event_msg m = {binary ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME,
                                (const uint8_t *)data, len};
    step_stats *s = step_of(c);

    if (c->state != WEBSOCKET_OPEN || wslay_event_queue_msg(ctx_of(c), &m) != 0)
        return -1;
    if (s != NULL) {
        s->ws_sent++;
        s->ws_bytes_sent += len;
    }
    traced_msg(c, "sent", binary, data, len);
    pump(c, 0); /* may shut c: the caller reads its state */
    return 0;
}

void websocket_close(websocket *c, int code, const char *reason)
{
    size_t rl = reason != NULL ? strlen(reason) : 0;

    if (c->state != WEBSOCKET_OPEN)
        return;
    if (rl > 123)
        rl = 123; /* a control frame's payload is 125 bytes at most */
    wslay_event_queue_close(ctx_of(c), (uint16_t)code, (const uint8_t *)reason, rl);
    c->state = WEBSOCKET_CLOSING;
    inbox_end(&c->in);
    ev_timer_set(&c->timer, engine_after(c->eng, WEBSOCKET_CLOSE_WAIT_US), 0.);
    ev_timer_start(engine_loop(c->eng), &c->timer);
    pump(c, 0);
}

static void websocket_vu_end(vu *v)
{
    while (v->ws != NULL) {
        websocket *c = v->ws;
        v->ws = c->next;
        c->next = NULL;
        inbox_wait_done(&c->in);
        if (c->slot != NULL)
            *c->slot = NULL;
        c->slot = NULL;
        inbox_clear(&c->in);
        if (c->state == WEBSOCKET_OPEN)
            websocket_close(c, 1000, "");
        if (c->state == WEBSOCKET_CLOSING) {
            c->owner = NULL;
            c->next = (*engine_ws_closing(c->eng));
            (*engine_ws_closing(c->eng)) = c;
            if (!ev_is_active(&c->timer)) {
                ev_timer_set(&c->timer, engine_after(c->eng, WEBSOCKET_CLOSE_WAIT_US), 0.);
                ev_timer_start(engine_loop(c->eng), &c->timer);
            }
        } else {
            conn_free(c); /* connecting or closed: nothing to say goodbye to */
        }
    }
}

static void websocket_free_all(engine *e)
{
    for (uint32_t i = 0; i < engine_nvus(e); i++) {
        while (engine_vu(e, i)->ws != NULL) {
            websocket *c = engine_vu(e, i)->ws;
            engine_vu(e, i)->ws = c->next;
            conn_free(c);
        }
    }
    while ((*engine_ws_closing(e)) != NULL) {
        websocket *c = (*engine_ws_closing(e));
        (*engine_ws_closing(e)) = c->next;
        conn_free(c);
    }
}

const plug websocket_plug = {.name = "websocket",
                             .xfer_done = websocket_xfer_done,
                             .vu_end = websocket_vu_end,
                             .engine_end = websocket_free_all};

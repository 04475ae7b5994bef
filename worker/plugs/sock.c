/* sock — one TCP connection of a VU (sock.h). */
#include "worker/plugs/sock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"

static void on_io(struct ev_loop *loop, ev_io *w, int revents);
static void on_more(struct ev_loop *loop, ev_timer *w, int revents);
static void on_beat(struct ev_loop *loop, ev_timer *w, int revents);

/* A connection's heartbeat and its one timer, made at its first
 * sock_heartbeat: a connection without one pays a pointer. */
struct sock_beat {
    ev_timer timer; /**< fires when a beat may be due; its data is the connection */
    heartbeat h;    /**< when, and what */
};

/* --- counting ------------------------------------------------------------- */

/* in bytes received and out sent: the block's sample they are made in, else
 * the connection's step, this second. */
static void count(sock *c, size_t in, size_t out)
{
    if (c->owner != NULL)
        vu_count_bytes(c->owner, c->step, in, out);
}

/* --- closing -------------------------------------------------------------- */

/* libcurl's close of the socket: a taken one stays open (it is ours). */
static int close_cb(void *ud, curl_socket_t fd)
{
    sock *c = ud;

    if (c->taken && fd == c->fd)
        return 0;
    return close(fd);
}

/* Lets go of libcurl: the handle, its connection cache. */
static void drop_curl(sock *c)
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

void sock_close(sock *c, const char *why)
{
    if (c->state == SOCK_CLOSED)
        return;
    if (why != NULL && c->err[0] == '\0')
        err_set(c->err, sizeof(c->err), "%s", why);
    c->state = SOCK_CLOSED;
    inbox_end(&c->in);
    ev_io_stop(engine_loop(c->eng), &c->io);
    ev_timer_stop(engine_loop(c->eng), &c->more);
    if (c->beat != NULL)
        ev_timer_stop(engine_loop(c->eng), &c->beat->timer);
    drop_curl(c); /* TLS: libcurl closes its socket */
    if (c->taken && c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->out = NULL;
}

static void conn_free(sock *c)
{
    sock_close(c, NULL);
    inbox_free(&c->in);
    dbuf_free(&c->rd);
    xfree(c->beat);
    if (c->slot != NULL)
        *c->slot = NULL;
    xfree(c);
}

/* --- the bytes ------------------------------------------------------------ */

/* Reads up to n bytes into buf: > 0 read, 0 the server closed, -1 nothing
 * now, -2 an error (c closed). */
static ssize_t raw_read(sock *c, char *buf, size_t n)
{
    ssize_t r;
    size_t got = 0;
    CURLcode rc;

    if (c->tls) {
        rc = curl_easy_recv(c->easy, buf, n, &got);
        if (rc == CURLE_AGAIN)
            return -1;
        if (rc != CURLE_OK) {
            sock_close(c, curl_easy_strerror(rc));
            return -2;
        }
        return (ssize_t)got;
    }
    do
        r = recv(c->fd, buf, n, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return -1;
    if (r < 0) {
        sock_close(c, strerror(errno));
        return -2;
    }
    return r;
}

/* Writes up to n bytes: how many (0 none now), -1 an error (c closed). */
static ssize_t raw_write(sock *c, const char *buf, size_t n)
{
    ssize_t r;
    size_t sent = 0;
    CURLcode rc;

    if (c->tls) {
        rc = curl_easy_send(c->easy, buf, n, &sent);
        if (rc == CURLE_AGAIN)
            return 0;
        if (rc != CURLE_OK) {
            sock_close(c, curl_easy_strerror(rc));
            return -1;
        }
        return (ssize_t)sent;
    }
    do
        r = send(c->fd, buf, n, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (r < 0) {
        sock_close(c, strerror(errno));
        return -1;
    }
    return r;
}

/* Whether part of a beat is still to send: it goes before any other byte. */
static int beat_begun(const sock *c)
{
    size_t left = 0;

    if (c->beat != NULL)
        heartbeat_rest(&c->beat->h, &left);
    return left > 0;
}

static void arm(sock *c, int events)
{
    if (beat_begun(c))
        events |= EV_WRITE;
    if (c->fd < 0 || (events == c->io.events && ev_is_active(&c->io)))
        return;
    ev_io_stop(engine_loop(c->eng), &c->io);
    if (events == 0)
        return;
    ev_io_set(&c->io, c->fd, events);
    ev_io_start(engine_loop(c->eng), &c->io);
}

/* Held bytes not taken yet. */
static size_t held(const sock *c)
{
    return c->rd.len - c->rd_off;
}

/* Whether the wanted piece is there (or can never be): 1 the VU may go on. */
static int decided(sock *c)
{
    size_t take, drop;

    return rdframe_find(&c->want, c->rd.p + c->rd_off, held(c), SOCK_IN_MAX, &c->scanned, &take,
                        &drop) != 0;
}

/* Reads while the VU waits and its piece is not in, within the budget: 1
 * when the VU may go on (its piece, the end, an error), 0 when it waits. */
static int fill(sock *c)
{
    char buf[SOCK_READ_CHUNK];
    size_t budget = SOCK_READ_BUDGET;

    if (c->rd.p != NULL && decided(c))
        return 1;
    while (c->state == SOCK_OPEN) {
        size_t room = SOCK_IN_MAX - held(c);
        ssize_t n;
        if (budget == 0) { /* the rest next iteration: others run meanwhile */
            ev_timer_set(&c->more, 0., 0.);
            ev_timer_start(engine_loop(c->eng), &c->more);
            return 0;
        }
        if (room == 0)
            return 1; /* full without the piece: decided (-1) */
        n = raw_read(c, buf, room < sizeof(buf) ? room : sizeof(buf));
        if (n == -1) {
            arm(c, EV_READ);
            return 0;
        }
        if (n < 0)
            return 1;
        if (n == 0) { /* what is held can still be taken */
            sock_close(c, "the server closed the connection");
            return 1;
        }
        if (c->rd_off > 0 && c->rd_off == c->rd.len) {
            dbuf_reset(&c->rd);
            c->rd_off = 0;
        }
        if (c->rd.len + (size_t)n > SOCK_IN_MAX) { /* compact: the taken bytes go */
            memmove(c->rd.p, c->rd.p + c->rd_off, held(c));
            dbuf_cut(&c->rd, held(c));
            c->rd_off = 0;
        }
        dbuf_put(&c->rd, buf, (size_t)n); /* fits: room */
        count(c, (size_t)n, 0);
        budget -= (size_t)n < budget ? (size_t)n : budget;
        if (decided(c))
            return 1;
    }
    return 1;
}

int sock_take(sock *c, const rdframe *w, const char **piece, size_t *len)
{
    size_t take = 0, drop = 0, scanned = c->wanting ? c->scanned : 0;
    int rc = rdframe_find(w, c->rd.p != NULL ? c->rd.p + c->rd_off : "", held(c), SOCK_IN_MAX,
                          &scanned, &take, &drop);

    if (rc != 1)
        return rc;
    *piece = c->rd.p != NULL ? c->rd.p + c->rd_off : "";
    *len = take;
    c->rd_off += drop;
    c->scanned = 0; /* the buffer is freed once empty, at the next want */
    return 1;
}

int sock_want(sock *c, const rdframe *w)
{
    /* an emptied buffer goes: an idle connection holds none */
    if (c->rd_off == c->rd.len) {
        dbuf_free(&c->rd);
        c->rd_off = 0;
    }
    c->want = *w;
    if (w->kind == RDFRAME_UNTIL) {
        memcpy(c->delim, w->delim, w->dlen);
        c->want.delim = c->delim;
    }
    c->scanned = 0;
    c->wanting = 1;
    if (fill(c)) {
        sock_unwant(c);
        return 0;
    }
    return 1;
}

void sock_unwant(sock *c)
{
    c->wanting = 0;
    c->scanned = 0;
    ev_timer_stop(engine_loop(c->eng), &c->more);
    if (c->out == NULL)
        arm(c, 0);
}

/* Writes what the socket takes of a beat begun: 1 all of it sent (or none
 * begun), 0 the socket takes no more now (the caller arms), -1 closed. */
static int drain_beat(sock *c)
{
    size_t left;
    const char *rest;
    ssize_t n;

    if (c->beat == NULL)
        return 1;
    rest = heartbeat_rest(&c->beat->h, &left);
    while (left > 0) {
        n = raw_write(c, rest, left);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        heartbeat_wrote(&c->beat->h, (size_t)n, ev_now(engine_loop(c->eng)));
        count(c, 0, (size_t)n);
        rest = heartbeat_rest(&c->beat->h, &left);
    }
    return 1;
}

/* Writes what the socket takes of c->out: 1 all sent, 0 more to send, -1
 * closed. */
static int flush(sock *c)
{
    int rc = drain_beat(c); /* a beat's rest first: never inside c->out */

    if (rc == 0)
        arm(c, EV_WRITE);
    if (rc <= 0)
        return rc;
    while (c->out_off < c->out_len) {
        ssize_t n = raw_write(c, c->out + c->out_off, c->out_len - c->out_off);
        if (n < 0)
            return -1;
        if (n == 0) {
            arm(c, EV_WRITE);
            return 0;
        }
        c->out_off += (size_t)n;
        count(c, 0, (size_t)n);
        if (c->beat != NULL) /* the activity the beat's timer looks at: no timer touched */
            c->beat->h.last = ev_now(engine_loop(c->eng));
    }
    c->out = NULL;
    arm(c, 0);
    return 1;
}

int sock_send(sock *c, const char *data, size_t len)
{
    int rc;

    if (c->state != SOCK_OPEN)
        return -1;
    c->out = data;
    c->out_len = len;
    c->out_off = 0;
    rc = flush(c);
    if (rc < 0)
        c->out = NULL;
    return rc;
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    sock *c = (sock *)((char *)w - offsetof(sock, io));
    int go = 0;

    if (c->out != NULL)
        go = flush(c) != 0;
    else if (drain_beat(c) >= 0 && c->wanting)
        go = fill(c);
    else
        arm(c, 0);
    if (go || c->state == SOCK_CLOSED)
        inbox_wake_any(&c->in); /* last: the script may free c */
}

static void on_more(struct ev_loop *loop, ev_timer *w, int revents)
{
    sock *c = (sock *)((char *)w - offsetof(sock, more));

    if (c->wanting && fill(c))
        inbox_wake_any(&c->in);
}

/* --- the heartbeat ------------------------------------------------------- */

/* The beat's timer: a beat when c was silent long enough, else the timer
 * waits the rest (libev's timer with a last-activity timestamp). */
static void on_beat(struct ev_loop *loop, ev_timer *w, int revents)
{
    sock *c = w->data;
    heartbeat *h = &c->beat->h;
    double after = h->every;
    char why[ERR_MAX];
    int rc;

    if (c->state != SOCK_OPEN)
        return;
    /* a send in progress is traffic: once it ends, its time counts */
    if (c->out == NULL && !beat_begun(c) && heartbeat_due(h, ev_now(loop), &after)) {
        after = h->every;
        heartbeat_begin(h);
        rc = drain_beat(c);
        if (rc < 0) {
            err_set(why, sizeof(why), "TCP heartbeat: %s", c->err);
            err_set(c->err, sizeof(c->err), "%s", why);
            inbox_wake_any(&c->in); /* a VU waiting on c sees its end; last */
            return;
        }
        if (rc == 0) /* the rest when the socket takes it */
            arm(c, c->wanting ? EV_READ : 0);
    }
    ev_timer_set(w, after, 0.);
    ev_timer_start(loop, w);
}

int sock_heartbeat(sock *c, double every, const char *bytes, size_t len)
{
    struct ev_loop *loop = engine_loop(c->eng);
    double now = ev_now(loop), after = 0.;
    heartbeat h;

    if (every == 0.) {
        if (c->beat != NULL)
            ev_timer_stop(loop, &c->beat->timer); /* a beat begun still ends first */
        return 0;
    }
    if (beat_begun(c))
        return -2;
    if (heartbeat_set(&h, every, bytes, len, c->beat != NULL ? c->beat->h.last : now) != 0)
        return -1;
    if (c->beat == NULL) {
        c->beat = xcalloc(1, sizeof(*c->beat));
        ev_init(&c->beat->timer, on_beat);
        c->beat->timer.data = c;
    }
    c->beat->h = h;
    ev_timer_stop(loop, &c->beat->timer);
    if (c->state != SOCK_OPEN)
        return 0;
    heartbeat_due(&c->beat->h, now, &after);
    ev_timer_set(&c->beat->timer, after, 0.);
    ev_timer_start(loop, &c->beat->timer);
    return 0;
}

/* --- connecting ----------------------------------------------------------- */

static int sock_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    sock *c = v->sock;
    curl_socket_t fd = CURL_SOCKET_BAD;

    while (c != NULL && c->easy != easy)
        c = c->next;
    if (c == NULL)
        return 0;
    c->fig.elapsed_us = clock_mono_us() - c->start_us;
    if (rc != CURLE_OK) {
        err_set(c->err, sizeof(c->err), "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
        sock_close(c, NULL);
        inbox_wake(&c->in);
        return 1;
    }
    vu_read_phases(easy, &c->fig);
    if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) {
        sock_close(c, "TCP: no socket after the connect");
        inbox_wake(&c->in);
        return 1;
    }
    c->fd = fd;
    if (!c->tls) { /* the socket is ours; libcurl's handle goes */
        c->taken = 1;
        drop_curl(c);
    }
    ev_io_init(&c->io, on_io, c->fd, 0);
    c->state = SOCK_OPEN;
    c->opened = 1;
    inbox_open(&c->in);
    inbox_wake(&c->in);
    return 1;
}

sock *sock_open(vu *v, const sock_cfg *cfg, char *err, size_t errlen)
{
    engine *e = v->eng;
    sock *c;
    char url[600];
    int n, v6 = strchr(cfg->host, ':') != NULL;

    n = snprintf(url, sizeof(url), "%s://%s%s%s:%d/", cfg->tls ? "https" : "http", v6 ? "[" : "",
                 cfg->host, v6 ? "]" : "", cfg->port);
    if (n < 0 || (size_t)n >= sizeof(url) || cfg->host[0] == '\0' ||
        strpbrk(cfg->host, "/?#@ []\r\n") != NULL) {
        err_set(err, errlen, "step:tcp: bad host \"%.100s\"", cfg->host);
        return NULL;
    }
    c = xcalloc(1, sizeof(*c));
    c->eng = e;
    c->owner = v;
    c->step = cfg->step;
    c->tls = cfg->tls != 0;
    c->fd = -1;
    c->state = SOCK_CONNECTING;
    inbox_init(&c->in, engine_loop(e), 1, 1);
    dbuf_init(&c->rd, SOCK_IN_MAX);
    ev_init(&c->io, on_io);
    ev_init(&c->more, on_more);
    c->fig.new_conns = 1;
    c->fig.requests = 1;
    c->easy = vu_stream_easy(v, url, cfg->req, cfg->scen, c->errbuf);
    if (c->tls) {
        c->share = curl_share_init();
        if (c->share == NULL)
            xoom("curl_share_init");
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        curl_easy_setopt(c->easy, CURLOPT_SHARE, c->share);
        curl_easy_setopt(c->easy, CURLOPT_SSL_ENABLE_ALPN, 0L); /* no HTTP offered */
    } else {
        curl_easy_setopt(c->easy, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
        curl_easy_setopt(c->easy, CURLOPT_CLOSESOCKETDATA, c);
    }
    curl_easy_setopt(c->easy, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(c->easy, CURLOPT_PROXY, ""); /* a raw connection crosses no HTTP proxy */
    curl_easy_setopt(c->easy, CURLOPT_BUFFERSIZE, 1024L); /* libcurl's minimum: unused */
    curl_easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, cfg->timeout_ms);
    c->start_us = clock_mono_us();
    if (curl_multi_add_handle(engine_multi(e), c->easy) != CURLM_OK) {
        err_set(err, errlen, "step:tcp: libcurl refused the connection");
        conn_free(c);
        return NULL;
    }
    c->in_multi = 1;
    c->next = v->sock;
    v->sock = c;
    return c;
}

/* --- the plug ------------------------------------------------------------- */

static void sock_vu_end(vu *v)
{
    while (v->sock != NULL) {
        sock *c = v->sock;
        v->sock = c->next;
        inbox_wait_done(&c->in);
        conn_free(c);
    }
}

static void sock_free_all(engine *e)
{
    for (uint32_t i = 0; i < engine_nvus(e); i++)
        sock_vu_end(engine_vu(e, i));
}

const plug sock_plug = {.name = "sock",
                        .xfer_done = sock_xfer_done,
                        .vu_end = sock_vu_end,
                        .engine_end = sock_free_all};

#include "proto/peer.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"

static void on_later(struct ev_loop *loop, ev_timer *w, int revents)
{
    peer *l = w->data;
    char why[sizeof(l->why)];

    if (!l->failing)
        return;
    err_set(why, sizeof(why), "%s", l->why);
    peer_close(l);
    if (l->on_close != NULL)
        l->on_close(l, why, l->ud); /* may reuse or free l: not touched after */
}

void peer_fail(peer *l, const char *why)
{
    if (l->fd < 0 || l->failing)
        return;
    l->failing = 1;
    err_set(l->why, sizeof(l->why), "%s", why);
    ev_io_stop(l->loop, &l->rio);
    ev_io_stop(l->loop, &l->wio);
    ev_timer_set(&l->later, 0., 0.);
    ev_timer_start(l->loop, &l->later);
}

static void flush(peer *l)
{
    int rc = frame_writer_flush(l->w, l->fd);
    char why[300];

    if (rc < 0) {
        err_set(why, sizeof(why), "write: %s", strerror(errno));
        peer_fail(l, why);
    } else if (rc == 0) {
        ev_io_start(l->loop, &l->wio);
    } else {
        ev_io_stop(l->loop, &l->wio);
    }
}

static void on_write(struct ev_loop *loop, ev_io *w, int revents)
{
    flush(w->data);
}

/* Reads what is there and hands over every complete frame, also those that
 * arrived just before the peer closed; returns what the read returned. */
static ssize_t read_some(peer *l)
{
    char err[ERR_MAX] = "", ferr[ERR_MAX] = "";
    ssize_t n = frame_reader_read_fd(l->r, l->fd, err, sizeof(err));
    int saved = errno;
    Quern__Envelope *env;
    interval_decode iv; /* an Interval read in place: a console gets one per agent a second */
    int rc = 0;

    for (;;) {
        if (l->failing || l->fd < 0)
            return n;
        rc = frame_reader_next_iv(l->r, &env, &iv, ferr, sizeof(ferr));
        if (rc != 1)
            break;
        l->on_msg(l, env, l->ud);
        frame_env_free(env, &iv);
    }
    if (rc < 0) {
        peer_fail(l, ferr);
        return -1;
    }
    if (n == 0)
        peer_fail(l, "connection closed by peer");
    else if (n < 0 && saved != EAGAIN && saved != EWOULDBLOCK)
        peer_fail(l, err[0] ? err : strerror(saved));
    return n;
}

static void on_read(struct ev_loop *loop, ev_io *w, int revents)
{
    read_some(w->data);
}

void peer_drain(peer *l)
{
    while (peer_alive(l) && read_some(l) > 0)
        ;
}

void peer_init(peer *l, struct ev_loop *loop, int fd, size_t max_in, size_t max_queued,
               peer_msg_fn on_msg, peer_close_fn on_close, void *ud)
{
    memset(l, 0, sizeof(*l));
    l->fd = fd;
    l->loop = loop;
    l->r = frame_reader_new(max_in);
    l->w = frame_writer_new(max_queued);
    l->on_msg = on_msg;
    l->on_close = on_close;
    l->ud = ud;
    ev_io_init(&l->rio, on_read, fd, EV_READ);
    ev_io_init(&l->wio, on_write, fd, EV_WRITE);
    ev_init(&l->later, on_later);
    l->rio.data = l->wio.data = l->later.data = l;
    ev_io_start(loop, &l->rio);
}

int peer_alive(const peer *l)
{
    return l->fd >= 0 && !l->failing;
}

int peer_send(peer *l, const Quern__Envelope *env)
{
    if (!peer_alive(l))
        return -1;
    if (frame_writer_push(l->w, env, FRAME_MAX_DEFAULT) != 0) {
        peer_fail(l, errno == ENOBUFS ? "peer is not reading (send queue full)"
                                      : "message too large to send");
        return -1;
    }
    l->last_tx_us = clock_mono_us();
    if (!ev_is_active(&l->wio))
        flush(l);
    return peer_alive(l) ? 0 : -1;
}

size_t peer_pending(const peer *l)
{
    return l->w != NULL ? frame_writer_pending(l->w) : 0;
}

void peer_close(peer *l)
{
    if (l->loop == NULL)
        return;
    ev_io_stop(l->loop, &l->rio);
    ev_io_stop(l->loop, &l->wio);
    ev_timer_stop(l->loop, &l->later);
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    l->failing = 0;
    frame_reader_free(l->r);
    frame_writer_free(l->w);
    seal_free(l->tx);
    seal_free(l->rx);
    l->r = NULL;
    l->w = NULL;
    l->tx = NULL;
    l->rx = NULL;
}

int peer_seal_send(peer *l, const uint8_t key[SEAL_KEY_LEN])
{
    if (!peer_alive(l))
        return -1;
    if (l->tx != NULL || (l->tx = seal_new(key)) == NULL) {
        peer_fail(l, "cannot seal the link");
        return -1;
    }
    frame_writer_seal(l->w, l->tx);
    return 0;
}

int peer_seal_recv(peer *l, const uint8_t key[SEAL_KEY_LEN], size_t max_in)
{
    char err[ERR_MAX];

    if (!peer_alive(l))
        return -1;
    if (l->rx != NULL || (l->rx = seal_new(key)) == NULL) {
        peer_fail(l, "cannot seal the link");
        return -1;
    }
    if (frame_reader_seal(l->r, l->rx, max_in, err, sizeof(err)) != 0) {
        peer_fail(l, err);
        return -1;
    }
    return 0;
}

int peer_seal_link(peer *l, const char *token, size_t token_len, seal_hs *hs,
                   uint8_t my_priv[KEYEXCHANGE_LEN], const uint8_t *their_kx, int is_console,
                   size_t max_in)
{
    uint8_t to_console[SEAL_KEY_LEN], to_agent[SEAL_KEY_LEN], secret[KEYEXCHANGE_LEN];
    const uint8_t *tx = is_console ? to_agent : to_console,
                  *rx = is_console ? to_console : to_agent;
    int rc = -1;

    hs->secret = secret;
    if (keyexchange_shared(my_priv, their_kx, secret) != 0 ||
        seal_derive_keys(token, token_len, hs, to_console, to_agent) != 0) {
        peer_fail(l, "cannot derive the link's keys (bad key exchange)");
        goto out;
    }
    /* The console seals what it sends first (its AuthResult is queued, in
     * plain); the agent, handling that AuthResult, what it receives first. */
    if (is_console ? peer_seal_send(l, tx) != 0 || peer_seal_recv(l, rx, max_in) != 0
                   : peer_seal_recv(l, rx, max_in) != 0 || peer_seal_send(l, tx) != 0)
        goto out;
    rc = 0;
out:
    OPENSSL_cleanse(to_console, sizeof(to_console));
    OPENSSL_cleanse(to_agent, sizeof(to_agent));
    OPENSSL_cleanse(secret, sizeof(secret));
    OPENSSL_cleanse(my_priv, KEYEXCHANGE_LEN);
    hs->secret = NULL;
    return rc;
}

int peer_sealed(const peer *l)
{
    return l->tx != NULL && l->rx != NULL;
}

int peer_quiet(const peer *l, int64_t now_us)
{
    return now_us - l->last_tx_us >= PEER_HEARTBEAT_US;
}

void peer_pong(peer *l, const Quern__Ping *ping)
{
    Quern__Envelope out = QUERN__ENVELOPE__INIT;
    Quern__Pong po = QUERN__PONG__INIT;

    if (!peer_quiet(l, clock_mono_us()))
        return;
    po.seq = ping->seq;
    po.sent_us = ping->sent_us;
    po.peer_us = clock_wall_us();
    out.body_case = QUERN__ENVELOPE__BODY_PONG;
    out.pong = &po;
    peer_send(l, &out);
}

/* dgram — one UDP socket of a VU (dgram.h). */
#include "worker/plugs/dgram.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/mem.h"
#include "worker/engine/engine.h"

/* The VU waits for a datagram or for room to send: either wakes it. */
static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    dgram *c = (dgram *)((char *)w - offsetof(dgram, io));

    dgram_watch(c, 0);
    inbox_wake_any(&c->in); /* last: the script may free c */
}

void dgram_watch(dgram *c, int events)
{
    struct ev_loop *loop = engine_loop(c->eng);

    if (c->fd < 0 || (events == c->io.events && ev_is_active(&c->io)))
        return;
    ev_io_stop(loop, &c->io);
    if (events == 0)
        return;
    ev_io_set(&c->io, c->fd, events);
    ev_io_start(loop, &c->io);
}

void dgram_close(dgram *c, const char *why)
{
    if (c->state == DGRAM_CLOSED)
        return;
    if (why != NULL && c->err[0] == '\0')
        err_set(c->err, sizeof(c->err), "%s", why);
    c->state = DGRAM_CLOSED;
    inbox_end(&c->in);
    ev_io_stop(engine_loop(c->eng), &c->io);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static void dgram_free(dgram *c)
{
    dgram_close(c, NULL);
    inbox_free(&c->in);
    if (c->slot != NULL)
        *c->slot = NULL;
    xfree(c);
}

int dgram_send(dgram *c, const char *data, size_t len)
{
    ssize_t r;

    if (c->state != DGRAM_OPEN)
        return -2;
    do
        r = send(c->fd, data, len, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r >= 0) {
        vu_count_bytes(c->owner, c->step, 0, (size_t)r);
        return 1;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
        return 0;
    if (errno == ECONNREFUSED)
        return -1;
    dgram_close(c, strerror(errno));
    return -2;
}

ssize_t dgram_recv(dgram *c, char *buf, size_t cap, int *cut)
{
    ssize_t r;

    *cut = 0;
    if (c->state != DGRAM_OPEN)
        return -3;
    do
        r = recv(c->fd, buf, cap, MSG_TRUNC);
    while (r < 0 && errno == EINTR);
    if (r >= 0) {
        vu_count_bytes(c->owner, c->step, (size_t)r, 0);
        if ((size_t)r > cap) {
            *cut = 1;
            r = (ssize_t)cap;
        }
        return r;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return -1;
    if (errno == ECONNREFUSED)
        return -2;
    dgram_close(c, strerror(errno));
    return -3;
}

/* The peer's (or the source's) address: numeric only, port given; 0, or -1
 * when it is not one. */
static int addr_of(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof(*ss));
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof(*a4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a6);
        return 0;
    }
    return -1;
}

dgram *dgram_open(vu *v, const dgram_cfg *cfg, char *err, size_t errlen)
{
    struct sockaddr_storage peer, src;
    socklen_t plen, slen;
    dgram *c = NULL;
    int fd = -1;

    if (addr_of(cfg->host, cfg->port, &peer, &plen) < 0) {
        err_set(err, errlen, "step:udp: \"%.100s\" is not a numeric address", cfg->host);
        return NULL;
    }
    fd = socket(peer.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        err_set(err, errlen, "step:udp: socket: %s", strerror(errno));
        return NULL;
    }
    if (cfg->source != NULL) {
        if (addr_of(cfg->source, 0, &src, &slen) < 0 || src.ss_family != peer.ss_family) {
            err_set(err, errlen, "step:udp: source address %.100s does not fit %.100s", cfg->source,
                    cfg->host);
            goto fail;
        }
        if (bind(fd, (struct sockaddr *)&src, slen) < 0) {
            err_set(err, errlen, "step:udp: bind %.100s: %s", cfg->source, strerror(errno));
            goto fail;
        }
    }
    if (connect(fd, (struct sockaddr *)&peer, plen) < 0) {
        err_set(err, errlen, "step:udp: %.100s port %d: %s", cfg->host, cfg->port, strerror(errno));
        goto fail;
    }
    c = xcalloc(1, sizeof(*c));
    c->eng = v->eng;
    c->owner = v;
    c->step = cfg->step;
    c->fd = fd;
    c->state = DGRAM_OPEN;
    inbox_init(&c->in, engine_loop(v->eng), 1, 1);
    inbox_open(&c->in);
    ev_init(&c->io, on_io);
    c->next = v->dgram;
    v->dgram = c;
    return c;
fail:
    close(fd);
    return NULL;
}

/* --- the plug ------------------------------------------------------------- */

static void dgram_vu_end(vu *v)
{
    while (v->dgram != NULL) {
        dgram *c = v->dgram;
        v->dgram = c->next;
        inbox_wait_done(&c->in);
        dgram_free(c);
    }
}

static void dgram_free_all(engine *e)
{
    for (uint32_t i = 0; i < engine_nvus(e); i++)
        dgram_vu_end(engine_vu(e, i));
}

const plug dgram_plug = {.name = "dgram", .vu_end = dgram_vu_end, .engine_end = dgram_free_all};

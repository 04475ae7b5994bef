/* idlefloor — the floor of memory per idle connection: a bare epoll loop
 * that opens N TCP connections to one server, for "ws" writes the
 * WebSocket upgrade request by hand and reads the 101 answer, then holds
 * them idle, and nothing else: no libcurl, no Lua, no event library.
 *
 *   idlefloor HOST PORT N tcp|ws PATH HOLD_S [SRC]
 *
 * At most 256 connects or handshakes are in progress at once. What it keeps
 * per connection is what any client must: the socket and a few bytes of
 * state. Prints one line, "base_rss_kb rss_kb opened errors": the RSS of
 * the process from /proc/self/status before the first connection and once
 * every connection is open (or failed), read as bench/run.sh reads quern's
 * worker; then holds HOLD_S seconds (the server counts them open) and
 * exits. Exit 1 on a usage error. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define WINDOW 256 /* connects and handshakes in progress at most */

/* One connection: its socket and how far its handshake went. */
struct conn {
    int fd;
    int state;     /* 0 connecting, 1 upgrade answer awaited, 2 open, -1 failed */
    unsigned got;  /* bytes of the answer's end "\r\n\r\n" matched so far */
    unsigned seen; /* bytes of the answer read */
};

/* The resident set of this process in kB, -1 when unreadable. */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

/* Starts connecting c (number i) to dst from src (NULL: any); 0, or -1. */
static int start(struct conn *c, long i, const struct sockaddr_in *dst, const char *src, int ep)
{
    struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = (uint64_t)i};
    struct sockaddr_in from = {.sin_family = AF_INET};

    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0)
        return -1;
    if (src != NULL) {
        inet_pton(AF_INET, src, &from.sin_addr);
        if (bind(c->fd, (struct sockaddr *)&from, sizeof(from)) != 0)
            return -1;
    }
    if (connect(c->fd, (const struct sockaddr *)dst, sizeof(*dst)) != 0 && errno != EINPROGRESS)
        return -1;
    return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

/* The socket of c (number i) is writable (connected) or readable (the
 * answer): 1 when c is done (open or failed), 0 when it waits. */
static int step(struct conn *c, long i, const char *req, int ep)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
    char buf[2048];
    int err = 0;
    socklen_t len = sizeof(err);
    ssize_t n;

    if (c->state == 0) {
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            c->state = -1;
            return 1;
        }
        if (req == NULL) {
            c->state = 2;
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            return 1;
        }
        /* the request is small: a fresh socket takes it whole */
        if (send(c->fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
            c->state = -1;
            return 1;
        }
        c->state = 1;
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        return 0;
    }
    n = recv(c->fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0 || (c->seen == 0 && (n < 12 || strncmp(buf, "HTTP/1.1 101", 12) != 0))) {
        c->state = -1;
        return 1;
    }
    c->seen += (unsigned)n;
    for (ssize_t k = 0; k < n; k++) {
        c->got = buf[k] == "\r\n\r\n"[c->got] ? c->got + 1 : buf[k] == '\r';
        if (c->got == 4) {
            c->state = 2;
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in dst = {.sin_family = AF_INET};
    struct epoll_event evs[WINDOW];
    struct conn **conns;
    char req[1024];
    const char *src;
    long n, hold, next = 0, busy = 0, opened = 0, errors = 0, base;
    int ep, ws;

    if (argc < 7 || (strcmp(argv[4], "tcp") != 0 && strcmp(argv[4], "ws") != 0) ||
        inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
        fprintf(stderr, "usage: idlefloor HOST PORT N tcp|ws PATH HOLD_S [SRC]\n");
        return 1;
    }
    dst.sin_port = htons((uint16_t)atoi(argv[2]));
    n = atol(argv[3]);
    ws = strcmp(argv[4], "ws") == 0;
    hold = atol(argv[6]);
    src = argc > 7 ? argv[7] : NULL;
    /* the key is fixed: the floor does not check the server's accept */
    snprintf(req, sizeof(req),
             "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             argv[5], argv[1], argv[2]);
    conns = calloc((size_t)n, sizeof(*conns)); /* 8 bytes a connection, touched as they open */
    ep = epoll_create1(0);
    if (conns == NULL || ep < 0)
        return 1;
    base = rss_kb();
    while (opened + errors < n) {
        int k;
        while (busy < WINDOW && next < n) {
            conns[next] = calloc(1, sizeof(struct conn));
            if (start(conns[next], next, &dst, src, ep) != 0) {
                errors++;
                if (conns[next]->fd >= 0)
                    close(conns[next]->fd);
                conns[next]->state = -1;
            } else {
                busy++;
            }
            next++;
        }
        k = epoll_wait(ep, evs, WINDOW, 10000);
        if (k <= 0)
            break; /* nothing moved in 10 s: what did not open failed */
        for (int j = 0; j < k; j++) {
            struct conn *c = conns[evs[j].data.u64];
            if (!step(c, (long)evs[j].data.u64, ws ? req : NULL, ep))
                continue;
            busy--;
            if (c->state == 2)
                opened++;
            else
                errors++;
        }
    }
    printf("%ld %ld %ld %ld\n", base, rss_kb(), opened, n - opened);
    fflush(stdout);
    sleep((unsigned)hold);
    return 0;
}

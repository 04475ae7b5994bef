/* idlefloor — the floor of memory per idle connection: a bare epoll loop
 * that opens N TCP connections to one server, for "ws" writes the
 * WebSocket upgrade request by hand and reads the 101 answer, for "mqtt"
 * writes an MQTT 3.1.1 CONNECT and a SUBSCRIBE to a topic of its own
 * (PATH/i) and reads the CONNACK and the SUBACK (the broker then holds a
 * session and a subscription for it, as for quern's idle clients), then
 * holds them idle, and nothing else: no libcurl, no Lua, no event library.
 *
 *   idlefloor HOST PORT N tcp|ws|mqtt PATH HOLD_S [SRC]
 *
 * At most 256 connects or handshakes are in progress at once. What it keeps
 * per connection is what any client must: the socket and a few bytes of
 * state. Prints one line, "base_rss_kb rss_kb opened errors": the RSS of
 * the process from /proc/self/status before the first connection and once
 * every connection is open (or failed), read as bench/run.sh reads quern's
 * worker; then holds HOLD_S seconds (the server counts them open) and
 * exits; an MQTT client's keepalive is 60 s, so HOLD_S stays below it (no
 * PINGREQ is sent). Exit 1 on a usage error. */
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
#define MQTT_KEEPALIVE 60

enum kind { TCP, WS, MQTT };

/* One connection: its socket and how far its handshake went. */
struct conn {
    int fd;
    int state;     /* 0 connecting, 1 answer awaited, 2 open, -1 failed */
    unsigned got;  /* ws: bytes of the answer's end "\r\n\r\n" matched so far */
    unsigned seen; /* bytes of the answer read */
};

/* What the broker answers a CONNECT (clean session) and a SUBSCRIBE of
 * packet id 1 at QoS 0: CONNACK accepted, SUBACK granted 0. */
static const unsigned char mqtt_answer[] = {0x20, 2, 0, 0, 0x90, 3, 0, 1, 0};

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

/* Appends s as an MQTT string (two bytes of length, then its bytes). */
static size_t mqtt_str(unsigned char *out, const char *s)
{
    size_t n = strlen(s);

    out[0] = (unsigned char)(n >> 8);
    out[1] = (unsigned char)n;
    memcpy(out + 2, s, n);
    return n + 2;
}

/* Connection i's CONNECT then SUBSCRIBE into out (sent together: a client
 * may send before CONNACK, MQTT 3.1.1 3.1.4); their length. The client id
 * and the topic are its own; both packets stay under 128 bytes, so each
 * remaining length is one byte. */
static size_t mqtt_request(unsigned char *out, long i, const char *prefix)
{
    char id[24], topic[200];
    size_t n = 0, start;

    snprintf(id, sizeof(id), "qf%d-%ld", (int)getpid(), i);
    snprintf(topic, sizeof(topic), "%.80s/%ld", prefix, i);
    out[n++] = 0x10; /* CONNECT */
    start = ++n;
    n += mqtt_str(out + n, "MQTT");
    out[n++] = 4;    /* protocol level: 3.1.1 */
    out[n++] = 0x02; /* clean session */
    out[n++] = MQTT_KEEPALIVE >> 8;
    out[n++] = MQTT_KEEPALIVE & 0xff;
    n += mqtt_str(out + n, id);
    out[start - 1] = (unsigned char)(n - start);
    out[n++] = 0x82; /* SUBSCRIBE, its reserved flags 0010 */
    start = ++n;
    out[n++] = 0; /* packet id 1 */
    out[n++] = 1;
    n += mqtt_str(out + n, topic);
    out[n++] = 0; /* QoS 0 */
    out[start - 1] = (unsigned char)(n - start);
    return n;
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
        int one = 1;
        inet_pton(AF_INET, src, &from.sin_addr);
        /* the port is picked at connect, per destination: the source
         * address's ports are not all taken by other servers' sockets */
        setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
        if (bind(c->fd, (struct sockaddr *)&from, sizeof(from)) != 0)
            return -1;
    }
    if (connect(c->fd, (const struct sockaddr *)dst, sizeof(*dst)) != 0 && errno != EINPROGRESS)
        return -1;
    return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

/* The answer's bytes buf[0..n) came for c: 1 when c is done (open or
 * failed), 0 when it waits for more. */
static int answer(struct conn *c, enum kind k, const char *buf, ssize_t n)
{
    if (k == MQTT) {
        for (ssize_t j = 0; j < n; j++)
            if (c->seen >= sizeof(mqtt_answer) || (unsigned char)buf[j] != mqtt_answer[c->seen++]) {
                c->state = -1;
                return 1;
            }
        if (c->seen < sizeof(mqtt_answer))
            return 0;
        c->state = 2;
        return 1;
    }
    if (c->seen == 0 && (n < 12 || strncmp(buf, "HTTP/1.1 101", 12) != 0)) {
        c->state = -1;
        return 1;
    }
    c->seen += (unsigned)n;
    for (ssize_t j = 0; j < n; j++) {
        c->got = buf[j] == "\r\n\r\n"[c->got] ? c->got + 1 : buf[j] == '\r';
        if (c->got == 4) {
            c->state = 2;
            return 1;
        }
    }
    return 0;
}

/* The socket of c (number i) is writable (connected) or readable (the
 * answer): 1 when c is done (open or failed), 0 when it waits. req is the
 * ws request; mqtt's is made here, prefix its topics'. */
static int step(struct conn *c, long i, enum kind k, const char *req, const char *prefix, int ep)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
    char buf[2048];
    unsigned char out[512];
    size_t len;
    int err = 0;
    socklen_t elen = sizeof(err);
    ssize_t n;

    if (c->state == 0) {
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) {
            c->state = -1;
            return 1;
        }
        if (k == TCP) {
            c->state = 2;
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            return 1;
        }
        len = k == WS ? strlen(req) : mqtt_request(out, i, prefix);
        /* the request is small: a fresh socket takes it whole */
        if (send(c->fd, k == WS ? (const void *)req : out, len, MSG_NOSIGNAL) != (ssize_t)len) {
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
    if (n <= 0) {
        c->state = -1;
        return 1;
    }
    if (!answer(c, k, buf, n))
        return 0;
    if (c->state == 2)
        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    return 1;
}

int main(int argc, char **argv)
{
    struct sockaddr_in dst = {.sin_family = AF_INET};
    struct epoll_event evs[WINDOW];
    struct conn **conns;
    char req[1024];
    const char *src;
    long n, hold, next = 0, busy = 0, opened = 0, errors = 0, base;
    int ep;
    enum kind k;

    if (argc < 7 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
        fprintf(stderr, "usage: idlefloor HOST PORT N tcp|ws|mqtt PATH HOLD_S [SRC]\n");
        return 1;
    }
    if (strcmp(argv[4], "tcp") == 0)
        k = TCP;
    else if (strcmp(argv[4], "ws") == 0)
        k = WS;
    else if (strcmp(argv[4], "mqtt") == 0)
        k = MQTT;
    else {
        fprintf(stderr, "usage: idlefloor HOST PORT N tcp|ws|mqtt PATH HOLD_S [SRC]\n");
        return 1;
    }
    dst.sin_port = htons((uint16_t)atoi(argv[2]));
    n = atol(argv[3]);
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
        int got;
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
        got = epoll_wait(ep, evs, WINDOW, 10000);
        if (got <= 0)
            break; /* nothing moved in 10 s: what did not open failed */
        for (int j = 0; j < got; j++) {
            struct conn *c = conns[evs[j].data.u64];
            if (!step(c, (long)evs[j].data.u64, k, req, argv[5], ep))
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

/* knee_server — an HTTP/1.1 server with one chosen bottleneck, a target for
 * profiling under load: the throughput knee and where the time goes.
 *
 *   knee-server --mode lock|search|none [--threads N] [--port P] [--items N]
 *
 * Listens on 127.0.0.1:P (default 0, any free port), prints "port N" on
 * stdout, then serves until SIGTERM or SIGINT (exit 0). A thread accepts the
 * connections and hands them in turn to N worker threads (default 4), each
 * with its own epoll, that serve them: keep-alive, pipelined requests
 * answered in order.
 * GET /item?id=K answers 200 with a one-line text body; every request goes
 * through serve_request, and only the function it calls differs by mode:
 *   lock    seq_next(): one global mutex, held for a fixed hash loop (about
 *           10 us) and a wait of SEQ_WAIT_US (the round trip of a sequence
 *           generator that asks its database for the next block): the
 *           requests queue on it, so throughput stops growing with
 *           concurrency while the CPU stays mostly idle.
 *   search  find_item(K): a linear search of a linked list of --items entries
 *           (default 130000), built newest first so that a small K is
 *           near its end (about 150 us a search); a K not in the list walks
 *           all of it and answers 404. CPU-bound.
 *   none    handle_plain(K): a short hash loop (a few us), the control.
 * Those functions, and serve_request, are kept out of line with their symbols
 * so that a profile names them; build with frame pointers and without
 * sanitizers (the Makefile's rule does).
 *
 * A request is at most REQ_MAX bytes of line and headers, with no body; a
 * malformed one, a body or a request too long is answered 400 (405, 431,
 * 505) and the connection closed. Exit 2 on a usage error, 1 if it cannot
 * start. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, memmem */
#endif
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_MAX 8192         /* bytes: a request's line and headers */
#define OUT_MAX 16384        /* bytes: responses waiting to be written on one connection */
#define RESP_MAX 512         /* bytes: one response, at most */
#define READS_PER_EVENT 64   /* reads on one connection before the thread's others get a turn */
#define THREADS_MAX 1024     /* --threads, at most */
#define ITEMS_MAX 100000000  /* --items, at most */
#define ITEMS_DEFAULT 130000 /* about 150 us a search of a small id */
#define LOCK_ROUNDS 28000    /* hash rounds under the mutex: about 30 us */
#define SEQ_WAIT_US 60       /* the wait under the mutex: one round trip */
#define PLAIN_ROUNDS 2000    /* hash rounds of the control: about 2 us */

/* Kept out of line and uncloned, so that a profile names the function. */
#ifdef __clang__
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE __attribute__((noinline, noclone))
#endif

enum mode { MODE_NONE, MODE_LOCK, MODE_SEARCH };

struct item {
    struct item *next; /* owned by the list: the next older item, NULL at the end */
    unsigned long key;
    unsigned long value;
};

struct conn {
    int fd;
    bool closing;      /* close once out is written */
    uint32_t events;   /* what epoll waits for on fd */
    size_t in_len;     /* bytes read, not yet answered */
    size_t out_off;    /* bytes of out already written */
    size_t out_len;    /* bytes of out to write */
    char in[REQ_MAX];  /* a request and what follows it */
    char out[OUT_MAX]; /* responses not yet written */
};

/* What serve_request needs from a parsed request. */
struct request {
    bool is_item;     /* the path is /item */
    bool has_id;      /* a valid id= parameter */
    unsigned long id; /* its value */
};

static enum mode g_mode;
static int g_listen_fd = -1;
static unsigned g_threads;   /* worker threads */
static struct item *g_items; /* owned: the search mode's list, newest first */

static pthread_mutex_t seq_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long seq_count; /* guarded by seq_mutex */
static unsigned long seq_hash;  /* guarded by seq_mutex: what the loop under it computes */

/* A fixed amount of CPU work: each round depends on the one before, so it
 * can neither be folded nor run in parallel. Inlined, so that its samples are
 * its caller's own. */
static inline __attribute__((always_inline)) unsigned long mix_rounds(unsigned long h,
                                                                      unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++)
        h = (h ^ i) * 0x100000001b3UL;
    return h;
}

/* Sets up the frame pointer in a leaf function: gcc leaves it out of a leaf
 * that needs no stack, even with -fno-omit-frame-pointer, and a profile's
 * frame-pointer call chain would then skip the leaf's caller. */
#define KEEP_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

/* The lock mode's bottleneck: the next sequence number, computed while
 * holding the one global mutex. */
OUT_OF_LINE unsigned long seq_next(void)
{
    unsigned long n;

    struct timespec wait = {0, SEQ_WAIT_US * 1000L};

    pthread_mutex_lock(&seq_mutex);
    seq_hash = mix_rounds(seq_hash, LOCK_ROUNDS / 3);
    nanosleep(&wait, NULL);
    n = ++seq_count;
    pthread_mutex_unlock(&seq_mutex);
    return n;
}

/* The search mode's bottleneck: the item of KEY, by a walk of the list one
 * element at a time; NULL if none. */
OUT_OF_LINE const struct item *find_item(unsigned long key)
{
    KEEP_FRAME();
    for (const struct item *it = g_items; it != NULL; it = it->next)
        if (it->key == key)
            return it;
    return NULL;
}

/* The control: a small constant amount of work. */
OUT_OF_LINE unsigned long handle_plain(unsigned long id)
{
    KEEP_FRAME();
    return mix_rounds(id, PLAIN_ROUNDS);
}

static unsigned long item_value(unsigned long key)
{
    return (key * 2654435761UL) & 0xffffffffUL;
}

/* Builds the list of keys 0..N-1, each pushed in front of the one before. */
static int items_build(unsigned long n)
{
    for (unsigned long k = 0; k < n; k++) {
        struct item *it = malloc(sizeof(*it));

        if (it == NULL)
            return -1;
        it->key = k;
        it->value = item_value(k);
        it->next = g_items;
        g_items = it;
    }
    return 0;
}

static const char *status_text(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 431:
        return "Request Header Fields Too Large";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Internal Server Error";
    }
}

/* Appends a response to c->out; CLOSE marks the connection to be closed once
 * it is written. The caller has made room for RESP_MAX bytes. */
static void reply(struct conn *c, int status, const char *body, bool close_after)
{
    int n;

    if (close_after)
        c->closing = true;
    n = snprintf(c->out + c->out_len, RESP_MAX,
                 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                 "Connection: %s\r\n%s\r\n%s",
                 status, status_text(status), strlen(body), c->closing ? "close" : "keep-alive",
                 status == 405 ? "Allow: GET\r\n" : "", body);
    if (n < 0 || n >= RESP_MAX) {
        c->closing = true; /* cannot happen with the bodies below; never send half */
        return;
    }
    c->out_len += (size_t)n;
}

/* Answers one well-formed request: the same for every mode but the function
 * that computes the value. */
OUT_OF_LINE void serve_request(struct conn *c, const struct request *rq)
{
    char body[128];
    const struct item *it;

    if (!rq->is_item) {
        reply(c, 404, "no such path\n", false);
        return;
    }
    if (!rq->has_id) {
        reply(c, 400, "want /item?id=K\n", false);
        return;
    }
    switch (g_mode) {
    case MODE_LOCK:
        snprintf(body, sizeof(body), "item %lu seq %lu\n", rq->id, seq_next());
        break;
    case MODE_SEARCH:
        it = find_item(rq->id);
        if (it == NULL) {
            reply(c, 404, "no such item\n", false);
            return;
        }
        snprintf(body, sizeof(body), "item %lu value %lu\n", it->key, it->value);
        break;
    case MODE_NONE:
        snprintf(body, sizeof(body), "item %lu value %lu\n", rq->id, handle_plain(rq->id));
        break;
    }
    reply(c, 200, body, false);
}

/* True if [p, p+n) holds no control byte other than a tab. */
static bool text_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];

        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return false;
    }
    return true;
}

/* The id of a query "a=1&id=K&b=2" into rq; false if there is none or it is
 * not a decimal of at most 18 digits. */
static bool parse_id(const char *q, size_t n, struct request *rq)
{
    size_t i = 0;

    while (i < n) {
        size_t end = i;

        while (end < n && q[end] != '&')
            end++;
        if (end - i > 3 && memcmp(q + i, "id=", 3) == 0) {
            size_t d = i + 3;
            unsigned long v = 0;

            if (end - d > 18)
                return false;
            for (; d < end; d++) {
                if (!isdigit((unsigned char)q[d]))
                    return false;
                v = v * 10 + (unsigned long)(q[d] - '0');
            }
            rq->id = v;
            rq->has_id = true;
            return true;
        }
        i = end + 1;
    }
    return false;
}

/* True if header line [p, p+n) is NAME (case-insensitive) followed by ':';
 * *val and *vlen then hold its value, blanks trimmed. */
static bool header_is(const char *p, size_t n, const char *name, const char **val, size_t *vlen)
{
    size_t nl = strlen(name);

    if (n <= nl || p[nl] != ':' || strncasecmp(p, name, nl) != 0)
        return false;
    p += nl + 1;
    n -= nl + 1;
    while (n > 0 && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    *val = p;
    *vlen = n;
    return true;
}

/* True if the comma-separated list [v, v+n) holds TOKEN (case-insensitive). */
static bool list_has(const char *v, size_t n, const char *token)
{
    size_t tl = strlen(token), i = 0;

    while (i < n) {
        size_t end = i, a, b;

        while (end < n && v[end] != ',')
            end++;
        for (a = i; a < end && (v[a] == ' ' || v[a] == '\t'); a++)
            ;
        for (b = end; b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'); b--)
            ;
        if (b - a == tl && strncasecmp(v + a, token, tl) == 0)
            return true;
        i = end + 1;
    }
    return false;
}

/* Checks the request line [p, p+n) (no CRLF). Returns 0 and fills rq and
 * *http10, or the status to answer before closing. */
static int parse_request_line(const char *p, size_t n, struct request *rq, bool *http10)
{
    const char *sp1 = memchr(p, ' ', n), *sp2, *target, *q;
    size_t tlen, vlen;

    if (!text_ok(p, n) || sp1 == NULL)
        return 400;
    sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p));
    if (sp2 == NULL)
        return 400;
    target = sp1 + 1;
    tlen = (size_t)(sp2 - target);
    vlen = n - (size_t)(sp2 + 1 - p);
    if (sp1 == p || tlen == 0 || target[0] != '/' || memchr(target, ' ', tlen) != NULL ||
        memchr(target, '\t', tlen) != NULL)
        return 400;
    if (vlen != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
        return vlen >= 5 && memcmp(sp2 + 1, "HTTP/", 5) == 0 ? 505 : 400;
    if (sp2[8] == '0')
        *http10 = true;
    else if (sp2[8] != '1')
        return 505;
    if ((size_t)(sp1 - p) != 3 || memcmp(p, "GET", 3) != 0) {
        for (const char *m = p; m < sp1; m++)
            if (!isupper((unsigned char)*m))
                return 400;
        return 405;
    }
    q = memchr(target, '?', tlen);
    rq->is_item =
        (size_t)((q != NULL ? q : target + tlen) - target) == 5 && memcmp(target, "/item", 5) == 0;
    if (rq->is_item && q != NULL)
        parse_id(q + 1, tlen - (size_t)(q + 1 - target), rq);
    return 0;
}

/* Parses the request [p, p+n): its line and headers, the empty line left
 * out. Returns 0 and fills rq (c->closing if the client asked), or the
 * status to answer before closing. */
static int parse_request(struct conn *c, const char *p, size_t n, struct request *rq)
{
    const char *eol = memchr(p, '\r', n), *end = p + n, *val;
    bool http10 = false, keep = false;
    size_t vlen;
    int status;

    memset(rq, 0, sizeof(*rq));
    if (eol == NULL)
        eol = end;
    status = parse_request_line(p, (size_t)(eol - p), rq, &http10);
    if (status != 0)
        return status;
    for (p = eol; p < end;) {
        size_t len;

        if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
            return 400;
        p += 2;
        eol = memchr(p, '\r', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        len = (size_t)(eol - p);
        /* a name, a colon; no folded line, no blank before the colon */
        if (len == 0 || !text_ok(p, len) || p[0] == ' ' || p[0] == '\t')
            return 400;
        {
            const char *colon = memchr(p, ':', len);

            if (colon == NULL || colon == p || memchr(p, ' ', (size_t)(colon - p)) != NULL ||
                memchr(p, '\t', (size_t)(colon - p)) != NULL)
                return 400;
        }
        if (header_is(p, len, "Connection", &val, &vlen)) {
            if (list_has(val, vlen, "close"))
                c->closing = true;
            if (list_has(val, vlen, "keep-alive"))
                keep = true;
        } else if (header_is(p, len, "Content-Length", &val, &vlen)) {
            if (vlen != 1 || val[0] != '0')
                return 400; /* a GET with a body */
        } else if (header_is(p, len, "Transfer-Encoding", &val, &vlen)) {
            return 400;
        }
        p = eol;
    }
    if (http10 && !keep)
        c->closing = true;
    return 0;
}

/* Answers the complete requests at the start of c->in while c->out has room.
 * Returns how many it answered. */
static int conn_parse(struct conn *c)
{
    int answered = 0;

    while (!c->closing && OUT_MAX - c->out_len >= RESP_MAX) {
        char *hdr_end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
        struct request rq;
        size_t used;
        int status;

        if (hdr_end == NULL) {
            /* incomplete: refuse early a first line that cannot be a request */
            char *nl = memchr(c->in, '\n', c->in_len);

            if (nl != NULL &&
                (nl == c->in || nl[-1] != '\r' ||
                 parse_request_line(c->in, (size_t)(nl - 1 - c->in), &rq, &(bool){false}) != 0)) {
                reply(c, 400, "bad request\n", true);
                answered++;
            } else if (c->in_len == REQ_MAX) {
                reply(c, 431, "request too long\n", true);
                answered++;
            }
            break;
        }
        used = (size_t)(hdr_end - c->in) + 4;
        status = parse_request(c, c->in, used - 4, &rq);
        if (status != 0) {
            reply(c, status, "bad request\n", true);
            answered++;
            break;
        }
        serve_request(c, &rq);
        answered++;
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
    }
    return answered;
}

/* Writes what it can of c->out. Returns 0, or -1 if the connection failed. */
static int conn_flush(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

        if (n > 0) {
            c->out_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    c->out_off = c->out_len = 0;
    return 0;
}

static void conn_close(int ep, struct conn *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c);
}

/* Waits for EVENTS on c. Returns 0, or -1 if epoll refused. */
static int conn_want(int ep, struct conn *c, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};

    if (c->events == events)
        return 0;
    if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        return -1;
    c->events = events;
    return 0;
}

/* Before a close: the end of the responses, then what the client has
 * already sent read away, so that the close does not reset the connection
 * and lose the last response on its way. */
static void conn_drain(struct conn *c)
{
    char sink[4096];

    shutdown(c->fd, SHUT_WR);
    while (recv(c->fd, sink, sizeof(sink), 0) > 0)
        ;
}

/* Runs connection c as far as it can go without blocking: writes, answers
 * what was read, reads. Closes and frees it when it is done. */
static void conn_run(int ep, struct conn *c)
{
    int reads = 0;

    for (;;) {
        ssize_t n;

        if (conn_flush(c) != 0)
            break;
        if (c->out_len > 0) {
            /* the client reads slowly: read nothing more until it has */
            if (conn_want(ep, c, EPOLLOUT) != 0)
                break;
            return;
        }
        if (c->closing) {
            conn_drain(c);
            break;
        }
        if (conn_parse(c) > 0)
            continue;
        if (reads++ == READS_PER_EVENT) {
            /* nothing complete is left in c->in, so epoll will call again */
            if (conn_want(ep, c, EPOLLIN) != 0)
                break;
            return;
        }
        n = recv(c->fd, c->in + c->in_len, REQ_MAX - c->in_len, 0);
        if (n > 0) {
            c->in_len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (conn_want(ep, c, EPOLLIN) != 0)
                break;
            return;
        }
        break; /* the client closed, or the connection failed */
    }
    conn_close(ep, c);
}

static void *worker_main(void *arg)
{
    int ep = (int)(intptr_t)arg;
    struct epoll_event evs[64];

    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("knee-server: epoll_wait");
            exit(1);
        }
        for (int i = 0; i < n; i++)
            conn_run(ep, evs[i].data.ptr);
    }
    return NULL;
}

/* Accepts the connections and hands them to the workers in turn: the
 * workers taking them from the listening socket themselves leave most of
 * them on one thread. */
static void *acceptor_main(void *arg)
{
    const int *eps = arg;
    unsigned next = 0;

    for (;;) {
        int fd = accept4(g_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
        struct epoll_event ev;
        struct conn *c;

        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                usleep(1000); /* out of descriptors or memory: let connections close */
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c = malloc(sizeof(*c));
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->closing = false;
        c->events = EPOLLIN;
        c->in_len = c->out_off = c->out_len = 0;
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        /* from here on the worker owns c */
        if (epoll_ctl(eps[next++ % g_threads], EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            free(c);
        }
    }
    return NULL;
}

static void usage(const char *why)
{
    fprintf(stderr,
            "knee-server: %s\nusage: knee-server --mode lock|search|none [--threads N] "
            "[--port P] [--items N]\n",
            why);
    exit(2);
}

/* VALUE as a decimal in [lo, hi], or a usage error naming OPT. */
static long num_arg(const char *opt, const char *value, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "knee-server: %s wants a number from %ld to %ld, not \"%s\"\n", opt, lo, hi,
                value);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"mode", required_argument, NULL, 'm'}, {"threads", required_argument, NULL, 't'},
        {"port", required_argument, NULL, 'p'}, {"items", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *mode = NULL;
    long threads = 4, port = 0, items = ITEMS_DEFAULT;
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    struct rlimit rl;
    sigset_t stop;
    static int eps[THREADS_MAX]; /* the workers' epolls */
    int opt, one = 1, sig;

    prctl(PR_SET_TIMERSLACK, 1UL); /* the lock's wait as asked, for every thread made after */
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'm':
            mode = optarg;
            break;
        case 't':
            threads = num_arg("--threads", optarg, 1, THREADS_MAX);
            break;
        case 'p':
            port = num_arg("--port", optarg, 0, 65535);
            break;
        case 'i':
            items = num_arg("--items", optarg, 1, ITEMS_MAX);
            break;
        case 'h':
            printf("usage: knee-server --mode lock|search|none [--threads N] [--port P] "
                   "[--items N]\n");
            return 0;
        default:
            usage("unknown option");
        }
    }
    if (optind < argc)
        usage("unexpected argument");
    if (mode == NULL)
        usage("--mode is required");
    if (strcmp(mode, "lock") == 0)
        g_mode = MODE_LOCK;
    else if (strcmp(mode, "search") == 0)
        g_mode = MODE_SEARCH;
    else if (strcmp(mode, "none") == 0)
        g_mode = MODE_NONE;
    else
        usage("--mode wants lock, search or none");

    if (g_mode == MODE_SEARCH && items_build((unsigned long)items) != 0) {
        fprintf(stderr, "knee-server: out of memory for %ld items\n", items);
        return 1;
    }
    /* a descriptor per connection: as many as allowed */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    g_listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (g_listen_fd < 0 ||
        setsockopt(g_listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(g_listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(g_listen_fd, 1024) != 0 ||
        getsockname(g_listen_fd, (struct sockaddr *)&sa, &salen) != 0) {
        perror("knee-server: listen");
        return 1;
    }

    /* the workers inherit the mask: only the main thread takes the signals */
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    signal(SIGPIPE, SIG_IGN);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    g_threads = (unsigned)threads;
    for (long i = 0; i <= threads; i++) {
        pthread_t t;
        int rc;

        /* threads workers, each with its epoll, then the acceptor */
        if (i < threads) {
            eps[i] = epoll_create1(EPOLL_CLOEXEC);
            if (eps[i] < 0) {
                perror("knee-server: epoll");
                return 1;
            }
            rc = pthread_create(&t, NULL, worker_main, (void *)(intptr_t)eps[i]);
        } else {
            rc = pthread_create(&t, NULL, acceptor_main, eps);
        }
        if (rc != 0) {
            fprintf(stderr, "knee-server: thread: %s\n", strerror(rc));
            return 1;
        }
        pthread_detach(t);
    }

    printf("port %u\n", (unsigned)ntohs(sa.sin_port));
    fflush(stdout);
    while (sigwait(&stop, &sig) != 0)
        ;
    exit(0);
}

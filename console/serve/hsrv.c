/* hsrv — the console's small HTTP servers; see hsrv.h. */
#include "console/serve/hsrv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/ofile.h"
#include "common/inaddr.h"
#include "common/log.h"
#include "common/mem.h"
#include "proto/auth.h"

/* What a 421 says: short, and no more than the request already knew. */
#define MISDIRECTED_BODY "misdirected request: this server answers only its own address as Host\n"

/* One open connection: MHD's socket context, linked in hsrv.conns. */
struct hsrv_conn {
    struct hsrv_conn *prev, *next; /* borrowed: the list's */
    int fd;                        /* MHD's socket: shut down past the deadline, never closed */
    int64_t deadline_us;           /* clock_mono_us() by which the headers must be complete */
    int headers_done;              /* the access handler saw this request's headers */
    int shut;                      /* the sweep shut it down already */
};

/* HOST:PORT into host and port ([v6] unbracketed). 0, or -1. */
static int split_addr(const char *a, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon = strrchr(a, ':');

    if (colon == NULL || colon == a || (size_t)(colon - a) >= hlen || colon[1] == '\0' ||
        strlen(colon + 1) >= plen)
        return -1;
    snprintf(host, hlen, "%.*s", (int)(colon - a), a);
    snprintf(port, plen, "%s", colon + 1);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    return 0;
}

/* Resolves a (numeric only: no DNS on the way to a run). */
static struct addrinfo *resolve_addr(const char *a, char *err, size_t errlen)
{
    char host[256], port[16];
    struct addrinfo hints, *res = NULL;
    int gai;

    if (split_addr(a, host, sizeof(host), port, sizeof(port)) != 0) {
        err_set(err, errlen, "wants HOST:PORT, got \"%s\"", a);
        return NULL;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        err_set(err, errlen, "%s: %s (a numeric address and port)", a, gai_strerror(gai));
        return NULL;
    }
    return res;
}

int hsrv_check(const char *flag, const char *addr, const char *token_file)
{
    char err[ERR_MAX], line[800];
    struct addrinfo *res;
    int loop;

    if (addr == NULL)
        return 0;
    res = resolve_addr(addr, err, sizeof(err));
    if (res == NULL) {
        snprintf(line, sizeof(line), "%s %s", flag, err);
        cli_usage_err("run", "%s", line);
        return -1;
    }
    loop = inaddr_is_loopback(res->ai_addr);
    freeaddrinfo(res);
    if (!loop && token_file == NULL) {
        snprintf(line, sizeof(line),
                 "%s %s is not a loopback address: give --token-file, whose token "
                 "every request must then carry",
                 flag, addr);
        cli_usage_err("run", "%s", line);
        return -1;
    }
    return 0;
}

int hsrv_needs_token(const char *addr)
{
    char err[ERR_MAX];
    struct addrinfo *res = addr != NULL ? resolve_addr(addr, err, sizeof(err)) : NULL;
    int loop;

    if (res == NULL)
        return 0;
    loop = inaddr_is_loopback(res->ai_addr);
    freeaddrinfo(res);
    return !loop;
}

static int write_port_file(const char *flag, const char *path, unsigned port, char *err,
                           size_t errlen)
{
    char line[16], oerr[ERR_MAX];
    int n = snprintf(line, sizeof(line), "%u\n", port);

    if (ofile_put(path, OFILE_REPLACE, line, (size_t)n, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "%s-port-file %s", flag, oerr);
        return -1;
    }
    return 0;
}

/* A listening socket on res; its port into *port. -1 with err. */
static int listen_on(const struct addrinfo *res, const char *flag, const char *a, unsigned *port,
                     char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int one = 1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        err_set(err, errlen, "%s: socket: %s", flag, strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        err_set(err, errlen, "%s: cannot listen on %s: %s", flag, a, strerror(errno));
        close(fd);
        return -1;
    }
    *port = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                    : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

/* MHD's NOTIFY_CONNECTION, on its thread: tracks each connection from its
 * accept to its close (MHD closes the socket only after CLOSED returns, so
 * the sweep, which holds mu, never touches a closed one). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    hsrv *s = cls;
    struct hsrv_conn *k = *socket_context;
    const union MHD_ConnectionInfo *fd;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        k = xcalloc(1, sizeof(*k));
        k->fd = fd != NULL ? fd->connect_fd : -1;
        k->deadline_us = clock_mono_us() + (int64_t)HSRV_HEADER_DEADLINE_S * 1000000;
        pthread_mutex_lock(&s->mu);
        k->next = s->conns;
        if (s->conns != NULL)
            s->conns->prev = k;
        s->conns = k;
        pthread_mutex_unlock(&s->mu);
        *socket_context = k;
        return;
    }
    if (k == NULL)
        return;
    pthread_mutex_lock(&s->mu);
    if (k->prev != NULL)
        k->prev->next = k->next;
    else
        s->conns = k->next;
    if (k->next != NULL)
        k->next->prev = k->prev;
    pthread_mutex_unlock(&s->mu);
    xfree(k);
    *socket_context = NULL;
}

static struct hsrv_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return i != NULL ? i->socket_context : NULL;
}

/* MHD's NOTIFY_COMPLETED: a keep-alive connection's next request gets a
 * deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    hsrv *s = cls;
    struct hsrv_conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&s->mu);
    k->headers_done = 0;
    k->deadline_us = clock_mono_us() + (int64_t)HSRV_HEADER_DEADLINE_S * 1000000;
    pthread_mutex_unlock(&s->mu);
}

/* The sweep's thread: shuts down each connection past its deadline with
 * its headers incomplete; MHD then reads its end and closes it. */
static void *sweep(void *arg)
{
    hsrv *s = arg;
    struct timespec until;

    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        int64_t now = clock_mono_us();
        for (struct hsrv_conn *k = s->conns; k != NULL; k = k->next) {
            if (k->headers_done || k->shut || k->fd < 0 || now < k->deadline_us)
                continue;
            shutdown(k->fd, SHUT_RDWR);
            k->shut = 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)HSRV_SWEEP_MS * 1000000;
        until.tv_sec += until.tv_nsec / 1000000000;
        until.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&s->wake, &s->mu, &until);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int hsrv_host_ok(const hsrv *s, const char *h)
{
    const char *names[] = {s->host, "localhost", "[::1]"};
    char port[16];

    if (s->host[0] == '\0')
        return 1;
    if (h == NULL)
        return 0;
    snprintf(port, sizeof(port), ":%u", s->port);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(h, names[i], n) == 0 && (h[n] == '\0' || strcmp(h + n, port) == 0))
            return 1;
    }
    return 0;
}

/* MHD's access handler, on its thread: the request's headers are complete
 * (the deadline no longer applies), its Host is checked, then the server's
 * own handler answers. */
static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_len, void **req_cls)
{
    hsrv *s = cls;
    struct hsrv_conn *k = conn_of(c);

    if (k != NULL) {
        pthread_mutex_lock(&s->mu);
        k->headers_done = 1;
        pthread_mutex_unlock(&s->mu);
    }
    if (!hsrv_host_ok(s, MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
        return hsrv_reply(c, MHD_HTTP_MISDIRECTED_REQUEST, "text/plain; charset=utf-8",
                          MISDIRECTED_BODY, strlen(MISDIRECTED_BODY), NULL);
    return s->cb(s->cls, c, url, method, version, upload, upload_len, req_cls);
}

/* The address of res as a Host header names it: "127.0.0.1", "[::1]". */
static void host_name(const struct addrinfo *res, char *out, size_t outlen)
{
    char a[INET6_ADDRSTRLEN] = "";

    if (res->ai_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)res->ai_addr)->sin6_addr, a, sizeof(a));
        snprintf(out, outlen, "[%s]", a);
    } else {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)res->ai_addr)->sin_addr, a, sizeof(a));
        snprintf(out, outlen, "%s", a);
    }
}

int hsrv_start(hsrv *s, const char *flag, const char *addr, const char *token_file,
               const char *port_file, MHD_AccessHandlerCallback cb, void *cls, const char *path,
               char *err, size_t errlen)
{
    struct addrinfo *res = resolve_addr(addr, err, errlen);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
    pthread_condattr_t ca;
    sigset_t all, old;
    char host[256], portbuf[16];
    int fd = -1, v6;

    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    s->sync_ready = 1;
    s->cb = cb;
    s->cls = cls;
    if (res == NULL)
        goto fail;
    if (inaddr_is_loopback(res->ai_addr))
        host_name(res, s->host, sizeof(s->host));
    else if (auth_read_token_file(token_file, &s->token, &s->token_len, err, errlen) != 0)
        goto fail;
    fd = listen_on(res, flag, addr, &s->port, err, errlen);
    if (fd < 0)
        goto fail;
    if (res->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (port_file != NULL && write_port_file(flag, port_file, s->port, err, errlen) != 0)
        goto fail;
    /* MHD's thread and the sweep take the signals' mask from here: the
     * loop handles them */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    s->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_access, s, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)HSRV_CONN_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)HSRV_PER_IP_MAX, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HSRV_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HSRV_CONN_MEMORY, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (s->d != NULL) {
        fd = -1; /* MHD's now: MHD_stop_daemon closes it */
        s->swept = pthread_create(&s->sweeper, NULL, sweep, s) == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (s->d == NULL || !s->swept) {
        err_set(err, errlen, "%s: cannot serve on %s", flag, addr);
        goto fail;
    }
    split_addr(addr, host, sizeof(host), portbuf, sizeof(portbuf));
    v6 = strchr(host, ':') != NULL;
    log_msg(LOG_INFO, "%s at http://%s%s%s:%u%s%s", flag + 2, v6 ? "[" : "", host, v6 ? "]" : "",
            s->port, path, s->token != NULL ? " (token required)" : "");
    freeaddrinfo(res);
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    if (res != NULL)
        freeaddrinfo(res);
    hsrv_stop(s);
    return -1;
}

int hsrv_token_ok(const hsrv *s, const char *tok)
{
    if (s->token == NULL)
        return 1;
    if (tok == NULL || strlen(tok) != s->token_len)
        return 0;
    return CRYPTO_memcmp(tok, s->token, s->token_len) == 0;
}

const char *hsrv_bearer(const char *h)
{
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    return h;
}

enum MHD_Result hsrv_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
                           const char *body, size_t len, const char *const *hdrs)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    for (size_t i = 0; hdrs != NULL && hdrs[i] != NULL && hdrs[i + 1] != NULL; i += 2)
        MHD_add_response_header(resp, hdrs[i], hdrs[i + 1]);
    ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

void hsrv_linger(int64_t linger_us)
{
    struct timespec ts = {(time_t)(linger_us / 1000000), (long)(linger_us % 1000000) * 1000};
    sigset_t stop, old;

    if (linger_us <= 0)
        return;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    sigtimedwait(&stop, NULL, &ts);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void hsrv_stop(hsrv *s)
{
    if (s->swept) {
        pthread_mutex_lock(&s->mu);
        s->stopping = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->sweeper, NULL);
        s->swept = 0;
    }
    if (s->d != NULL)
        MHD_stop_daemon(s->d); /* each connection's CLOSED frees its record */
    s->d = NULL;
    while (s->conns != NULL) {
        struct hsrv_conn *k = s->conns;
        s->conns = k->next;
        xfree(k);
    }
    if (s->sync_ready) {
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->mu);
        s->sync_ready = 0;
    }
    auth_token_free(s->token, s->token_len);
    s->token = NULL;
    s->token_len = 0;
}

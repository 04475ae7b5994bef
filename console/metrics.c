/* metrics — the Prometheus endpoint of `quern run --metrics`; see metrics.h. */
#include "console/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "console/prom.h"
#include "proto/auth.h"

struct metrics {
    struct MHD_Daemon *d; /* owned */
    pthread_mutex_t mu;   /* guards text and len */
    char *text;           /* owned: what a scrape gets */
    size_t len;
    char *token; /* owned: the bearer token, NULL on a loopback address */
    size_t token_len;
    char run[256]; /* the run's name */
    uint32_t vus_max;
    int too_big_logged;
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

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    return 0;
}

/* Resolves o->metrics (numeric only: no DNS on the way to a run). */
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
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        err_set(err, errlen, "%s: %s", a, gai_strerror(gai));
        return NULL;
    }
    return res;
}

int metrics_check(const run_opts *o)
{
    char err[512], line[600];
    struct addrinfo *res;
    int loop;

    if (o->metrics == NULL)
        return 0;
    res = resolve_addr(o->metrics, err, sizeof(err));
    if (res == NULL) {
        snprintf(line, sizeof(line), "--metrics %s", err);
        cli_usage_err("run", "%s", line);
        return -1;
    }
    loop = is_loopback(res->ai_addr);
    freeaddrinfo(res);
    if (!loop && o->token_file == NULL) {
        snprintf(line, sizeof(line),
                 "--metrics %s is not a loopback address: give --token-file, whose token "
                 "every scrape must then send as a bearer token",
                 o->metrics);
        cli_usage_err("run", "%s", line);
        return -1;
    }
    return 0;
}

/* Sends text with status and its content type; 0 bytes for HEAD is MHD's. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *ctype,
                             const char *body, size_t len, const char *hname, const char *hval)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (hname != NULL)
        MHD_add_response_header(resp, hname, hval);
    ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result reply_plain(struct MHD_Connection *c, unsigned status, const char *msg,
                                   const char *hname, const char *hval)
{
    return reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), hname, hval);
}

/* 1 when the request carries "Authorization: Bearer TOKEN" with m's token,
 * compared in constant time. */
static int authorized(const metrics *m, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    const char *tok;

    if (m->token == NULL)
        return 1;
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return 0;
    tok = h + 7;
    while (*tok == ' ')
        tok++;
    if (strlen(tok) != m->token_len)
        return 0;
    return CRYPTO_memcmp(tok, m->token, m->token_len) == 0;
}

/* MHD's access handler, on its thread: answers at the first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    metrics *m = cls;
    enum MHD_Result ret;

    if (strcmp(url, "/metrics") != 0)
        return reply_plain(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL,
                           NULL);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n",
                           MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (!authorized(m, c))
        return reply_plain(c, MHD_HTTP_UNAUTHORIZED, "a bearer token is required\n",
                           MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"quern\"");
    pthread_mutex_lock(&m->mu);
    ret = reply(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, m->text, m->len, NULL, NULL);
    pthread_mutex_unlock(&m->mu);
    return ret;
}

/* Swaps text (owned, len bytes) in; the previous text is freed. */
static void publish(metrics *m, char *text, size_t len)
{
    char *old;

    pthread_mutex_lock(&m->mu);
    old = m->text;
    m->text = text;
    m->len = len;
    pthread_mutex_unlock(&m->mu);
    xfree(old);
}

static int write_port_file(const char *path, unsigned port, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        err_set(err, errlen, "--metrics-port-file %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A listening socket on res; its port into *port. -1 with err. */
static int listen_on(const struct addrinfo *res, const char *a, unsigned *port, char *err,
                     size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int one = 1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        err_set(err, errlen, "--metrics: socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        err_set(err, errlen, "--metrics: cannot listen on %s: %s", a, strerror(errno));
        close(fd);
        return -1;
    }
    *port = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                    : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

metrics *metrics_start(const run_opts *o, char *err, size_t errlen)
{
    metrics *m = xcalloc(1, sizeof(*m));
    struct addrinfo *res = resolve_addr(o->metrics, err, errlen);
    unsigned port = 0, flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
    sigset_t all, old;
    char host[256], portbuf[16];
    int fd = -1;
    size_t len;

    pthread_mutex_init(&m->mu, NULL);
    db_opts_name(&o->db, o->script, m->run, sizeof(m->run));
    m->vus_max = o->vus;
    if (res == NULL)
        goto fail;
    if (!is_loopback(res->ai_addr) &&
        auth_read_token_file(o->token_file, &m->token, &m->token_len, err, errlen) != 0)
        goto fail;
    fd = listen_on(res, o->metrics, &port, err, errlen);
    if (fd < 0)
        goto fail;
    if (res->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (o->metrics_port_file != NULL && write_port_file(o->metrics_port_file, port, err, errlen))
        goto fail;
    metrics_update(m, NULL, NULL, NULL, NULL, 0);
    /* MHD's thread takes the signals' mask from here: the loop handles them */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    m->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONN_MAX,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_PER_IP_MAX,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_TIMEOUT_S,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (m->d == NULL) {
        err_set(err, errlen, "--metrics: cannot serve on %s", o->metrics);
        goto fail;
    }
    fd = -1; /* MHD's now: MHD_stop_daemon closes it */
    split_addr(o->metrics, host, sizeof(host), portbuf, sizeof(portbuf));
    len = strchr(host, ':') != NULL ? 1 : 0;
    log_msg(LOG_INFO, "metrics at http://%s%s%s:%u/metrics%s", len ? "[" : "", host, len ? "]" : "",
            port, m->token != NULL ? " (bearer token required)" : "");
    freeaddrinfo(res);
    return m;
fail:
    if (fd >= 0)
        close(fd);
    if (res != NULL)
        freeaddrinfo(res);
    metrics_stop(m, 0);
    return NULL;
}

void metrics_update(metrics *m, const agg *a, const char *const *step_ids,
                    const char *const *step_names, thresh *const *th, size_t nth)
{
    prom_threshold *pt;
    prom_input in;
    char *text;
    size_t len = 0;

    if (m == NULL)
        return;
    pt = xcalloc(nth + 1, sizeof(*pt));
    for (size_t i = 0; i < nth; i++) {
        thresh_result r;
        pt[i].expr = th[i]->expr;
        pt[i].passed = a != NULL &&
                       thresh_eval(th[i], a, step_ids, step_names, (double)a->elapsed_us / 1e6, &r);
    }
    in.run = m->run;
    in.steps = step_names;
    in.a = a;
    in.vus_max = m->vus_max;
    in.th = pt;
    in.nth = nth;
    text = prom_render(&in, &len);
    xfree(pt);
    if (text == NULL) {
        if (!m->too_big_logged)
            log_msg(LOG_WARN, "--metrics: the text would pass %u bytes: serving the last one",
                    PROM_TEXT_MAX);
        m->too_big_logged = 1;
        return;
    }
    publish(m, text, len);
}

void metrics_stop(metrics *m, int64_t linger_us)
{
    if (m == NULL)
        return;
    if (m->d != NULL && linger_us > 0) {
        /* Ctrl-C or SIGTERM ends the linger at once */
        struct timespec ts = {(time_t)(linger_us / 1000000), (long)(linger_us % 1000000) * 1000};
        sigset_t stop, old;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop, &old);
        sigtimedwait(&stop, NULL, &ts);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (m->d != NULL)
        MHD_stop_daemon(m->d);
    pthread_mutex_destroy(&m->mu);
    xfree(m->text);
    auth_token_free(m->token, m->token_len);
    xfree(m);
}

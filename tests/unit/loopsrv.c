/* loopsrv — an HTTP server on loopback in a thread of the test (loopsrv.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/unit/loopsrv.h"

/* One open connection and the bytes read of its next request. */
typedef struct conn {
    int fd;   /* -1: a free slot */
    int held; /* its /hold request waits for release_fd */
    unsigned id;
    size_t len;
    char buf[LOOPSRV_HEAD];
} conn;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the client went away: its transfer says so */
        p += w;
        n -= (size_t)w;
    }
}

/* The value of header name (with its ": ") in head, into out. */
static void header_value(const char *head, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);

    out[0] = '\0';
    for (const char *p = strstr(head, "\r\n"); p != NULL; p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, name, nl) == 0) {
            const char *v = p + 2 + nl, *end = strstr(v, "\r\n");
            size_t n = end != NULL ? (size_t)(end - v) : strlen(v);
            snprintf(out, len, "%.*s", (int)n, v);
            return;
        }
    }
}

static const char ok_200[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/* The body of /page: a comment of LOOPSRV_PAGE_PAD bytes, then what it
 * embeds, then (bad) an image the server fails. */
static size_t page_body(char *out, size_t len, int bad)
{
    char pad[LOOPSRV_PAGE_PAD + 1];
    int n;

    memset(pad, 'x', LOOPSRV_PAGE_PAD);
    pad[LOOPSRV_PAGE_PAD] = '\0';
    n = snprintf(out, len,
                 "<!DOCTYPE html>\n<html><head><!--%s-->\n"
                 "<link rel=\"stylesheet\" href=\"/res/site.css\">\n"
                 "<script src=\"/res/app.js\"></script></head>\n"
                 "<body><img src=\"/res/logo.png\">%s</body></html>\n",
                 pad, bad ? "<img src=\"/500/missing.png\">" : "");
    assert_true(n > 0 && (size_t)n < len);
    return (size_t)n;
}

/* Logs the request whose head is head (NUL-ended) and answers it; 0 when
 * the connection stays, -1 when it is to be closed unanswered, 1 when the
 * answer is held. */
static int answer(loopsrv *s, conn *c, const char *head)
{
    loopsrv_req r;
    const char *sp = strchr(head, ' '), *end = sp != NULL ? strchr(sp + 1, ' ') : NULL;
    const char *type = "text/plain", *extra = "";
    char resp[LOOPSRV_PAGE_PAD + 1024], body[LOOPSRV_PAGE_PAD + 512] = "ok", setc[64] = "";
    size_t blen = 2;
    int close_it, status = 200, n;

    memset(&r, 0, sizeof(r));
    r.at_us = clock_mono_us();
    r.conn = c->id;
    if (sp != NULL && end != NULL)
        snprintf(r.path, sizeof(r.path), "%.*s", (int)(end - sp - 1), sp + 1);
    header_value(head, "Cookie: ", r.cookie, sizeof(r.cookie));
    close_it = strncmp(r.path, "/close", 6) == 0;
    if (strncmp(r.path, "/500", 4) == 0)
        status = 500;
    if (strncmp(r.path, "/page", 5) == 0) {
        type = "text/html";
        blen = page_body(body, sizeof(body), strstr(r.path, "bad") != NULL);
    }
    if (strncmp(r.path, "/res/", 5) == 0)
        extra = "Cache-Control: max-age=300\r\n";
    if (strncmp(r.path, "/cookie", 7) == 0 && r.cookie[0] == '\0') {
        snprintf(r.set, sizeof(r.set), "k%u=1", ++s->cookies);
        snprintf(setc, sizeof(setc), "Set-Cookie: %s; Path=/\r\n", r.set);
    }
    if (s->nreq < LOOPSRV_LOG)
        s->log[s->nreq] = r;
    s->nreq++;
    if (close_it)
        return -1;
    if (strncmp(r.path, "/hold", 5) == 0) {
        write_all(s->notify_fd, "!", 1);
        return 1;
    }
    n = snprintf(resp, sizeof(resp),
                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%s%sContent-Length: %zu\r\n\r\n%s", status,
                 status == 200 ? "OK" : "Internal Server Error", type, extra, setc, blen, body);
    assert_true(n > 0 && (size_t)n < sizeof(resp));
    write_all(c->fd, resp, (size_t)n);
    return 0;
}

/* Reads what c has; answers each complete head. -1: c is to be closed. */
static int serve(loopsrv *s, conn *c)
{
    ssize_t n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
    char *end;

    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    c->len += (size_t)n;
    c->buf[c->len] = '\0';
    while ((end = strstr(c->buf, "\r\n\r\n")) != NULL) {
        size_t used = (size_t)(end + 4 - c->buf);
        int rc;
        end[2] = '\0';
        rc = answer(s, c, c->buf);
        if (rc < 0)
            return -1;
        memmove(c->buf, c->buf + used, c->len - used + 1);
        c->len -= used;
        if (rc > 0) {
            c->held = 1; /* nothing more is read from it until released */
            break;
        }
    }
    return c->len == sizeof(c->buf) - 1 ? -1 : 0; /* a head too long: not ours */
}

static void *thread_main(void *ud)
{
    loopsrv *s = ud;
    conn conns[LOOPSRV_CONNS];
    struct pollfd p[3 + LOOPSRV_CONNS];

    for (int i = 0; i < LOOPSRV_CONNS; i++) {
        conns[i].fd = -1;
        conns[i].held = 0;
    }
    for (;;) {
        int n = 3, held = -1;
        for (int i = 0; i < LOOPSRV_CONNS; i++)
            if (conns[i].fd >= 0 && conns[i].held)
                held = i;
        p[0].fd = s->wake[0];
        p[1].fd = s->lfd;
        p[2].fd = held >= 0 ? s->release_fd : -1; /* a negative one is skipped by poll */
        for (int i = 0; i < LOOPSRV_CONNS; i++)
            p[n++].fd = conns[i].held ? -1 : conns[i].fd;
        for (int i = 0; i < n; i++)
            p[i].events = POLLIN;
        if (poll(p, (nfds_t)n, -1) < 0)
            continue; /* EINTR */
        if (p[0].revents != 0)
            break;
        if (p[2].revents != 0) {
            char b;
            if (read(s->release_fd, &b, 1) == 1) {
                write_all(conns[held].fd, ok_200, sizeof(ok_200) - 1);
                conns[held].held = 0;
            }
        }
        for (int i = 0; i < LOOPSRV_CONNS; i++) {
            conn *c = &conns[i];
            if (c->fd < 0 || c->held || p[3 + i].revents == 0)
                continue;
            if (serve(s, c) != 0) {
                close(c->fd);
                c->fd = -1;
            }
        }
        if (p[1].revents & POLLIN) {
            int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
            int slot = -1;
            if (fd < 0)
                continue;
            s->accepted++;
            for (int i = 0; i < LOOPSRV_CONNS && slot < 0; i++)
                if (conns[i].fd < 0)
                    slot = i;
            if (slot < 0) {
                close(fd);
                continue;
            }
            conns[slot].fd = fd;
            conns[slot].held = 0;
            conns[slot].id = s->accepted;
            conns[slot].len = 0;
        }
    }
    for (int i = 0; i < LOOPSRV_CONNS; i++)
        if (conns[i].fd >= 0)
            close(conns[i].fd);
    return NULL;
}

void loopsrv_start(loopsrv *s)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    sigset_t all, old;

    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s->lfd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(s->lfd, 64), 0);
    assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&sa, &sl), 0);
    s->port = ntohs(sa.sin_port);
    assert_int_equal(pipe2(s->wake, O_CLOEXEC), 0);
    /* The process's signals (SIGINT, SIGTERM) go to the test's thread, where
     * the engine runs, not to this one. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    assert_int_equal(pthread_create(&s->th, NULL, thread_main, s), 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void loopsrv_stop(loopsrv *s)
{
    write_all(s->wake[1], "x", 1);
    pthread_join(s->th, NULL);
    close(s->wake[0]);
    close(s->wake[1]);
    close(s->lfd);
}

unsigned loopsrv_count(const loopsrv *s, const char *prefix)
{
    unsigned n = 0;

    assert_true(s->nreq <= LOOPSRV_LOG); /* every request is in the log */
    for (unsigned i = 0; i < s->nreq; i++)
        if (strncmp(s->log[i].path, prefix, strlen(prefix)) == 0)
            n++;
    return n;
}

const loopsrv_req *loopsrv_find(const loopsrv *s, const char *path)
{
    for (unsigned i = 0; i < s->nreq && i < LOOPSRV_LOG; i++)
        if (strcmp(s->log[i].path, path) == 0)
            return &s->log[i];
    return NULL;
}

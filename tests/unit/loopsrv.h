/* loopsrv — an HTTP/1.1 server on 127.0.0.1, port 0, in a thread of the
 * test: the peer of the tests that run a worker's engine (test_engine,
 * test_vu, and those of the worker's modules that live on its loop), which
 * judge quern's figures by what it saw.
 *
 * One poll loop over its connections (kept alive), each request logged as
 * its head is read, before it is answered, so that once the engine's run
 * has returned every request it sent is in the log. It answers by path:
 *   /close...    closes the connection without answering
 *   /cookie...   200, and a cookie of its own, "kN=1" (N counts the cookies
 *                set), to a request that carries none
 *   /500...      500
 *   /page...     200, an HTML page (text/html) of LOOPSRV_PAGE_PAD bytes of
 *                comment, then a stylesheet /res/site.css, a script
 *                /res/app.js and an image /res/logo.png; with "bad" in its
 *                path an image /500/missing.png too
 *   /res/...     200, body "ok", fresh for 300 s (Cache-Control: max-age)
 *   /hold...     held: a byte is written to notify_fd, and the answer, 200,
 *                waits for a byte on release_fd (a request in flight for
 *                as long as the test wants, without a sleep); one at a time
 *   anything else 200, body "ok"
 * The log is read after loopsrv_stop (which joins the thread): no lock.
 * A failed socket call fails the calling test (cmocka's checks). Link
 * tests/unit/loopsrv.c. */
#ifndef QUERN_TESTS_LOOPSRV_H
#define QUERN_TESTS_LOOPSRV_H

#include <pthread.h>
#include <stdint.h>

#define LOOPSRV_CONNS 32      /* connections open at once; more are closed as accepted */
#define LOOPSRV_LOG 512       /* requests logged; more are counted only */
#define LOOPSRV_HEAD 4096     /* bytes of a request's head */
#define LOOPSRV_PAGE_PAD 1500 /* bytes of /page's comment: more than a trace shows */

/** One request, as the server read it. */
typedef struct loopsrv_req {
    int64_t at_us;    /**< monotonic time its head was read (common/clock.h) */
    unsigned conn;    /**< the connection it came on, 1-based in accept order */
    char path[128];   /**< the request line's target, cut to fit */
    char cookie[128]; /**< its Cookie header's value, "" without */
    char set[32];     /**< the cookie the answer set ("k1=1"), "" none */
} loopsrv_req;

/** The server: zeroed, with notify_fd and release_fd set when a request
 *  is /hold, before loopsrv_start. */
typedef struct loopsrv {
    unsigned port;                /**< where it listens, set by loopsrv_start */
    int notify_fd;                /**< borrowed: written a byte when a /hold request is read */
    int release_fd;               /**< borrowed: a byte read from it answers the /hold one */
    unsigned accepted;            /**< connections accepted */
    unsigned nreq;                /**< requests read, logged or not */
    unsigned cookies;             /**< cookies set */
    loopsrv_req log[LOOPSRV_LOG]; /**< the first nreq (at most LOOPSRV_LOG) */
    int lfd;                      /**< owned: the listening socket */
    int wake[2];                  /**< owned: a byte on wake[1] ends the thread */
    pthread_t th;                 /**< the server's thread */
} loopsrv;

/** Listens on 127.0.0.1 port 0 and starts the thread. */
void loopsrv_start(loopsrv *s);
/** Ends the thread, closes every socket; the log stays readable. */
void loopsrv_stop(loopsrv *s);
/** Requests whose path starts with prefix; more requests than the log
 *  holds fail the test. */
unsigned loopsrv_count(const loopsrv *s, const char *prefix);
/** The logged request whose path is exactly path, or NULL. */
const loopsrv_req *loopsrv_find(const loopsrv *s, const char *path);

#endif

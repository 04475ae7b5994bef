/* timerlag — how late a libev loop wakes for a due time: an ev_timer
 * against a timerfd (CLOCK_MONOTONIC, TFD_TIMER_ABSTIME) watched by an
 * ev_io, on an idle loop or one carrying libcurl traffic (CONNS transfers
 * to URL, each added again when it ends). The experiment behind the open
 * model's arrival timer (worker/engine/arrive.c), and the floor of bench/run.sh's
 * start-lag row (build/rel/timerlag, `make MODE=rel build/rel/timerlag`):
 *
 *   ./timerlag timer|tfd N [URL CONNS]
 *   ./timerlag rate R SECS [URL [POOL MAX]]
 *
 * timer|tfd: due times are spaced 200 to 1,200 us apart (a fixed
 * pseudo-random sequence), so they fall anywhere within a millisecond.
 * rate: arrival k is due at k / R s from the start, as quern's open model
 * schedules a constant rate (common/rate.h), for SECS seconds; one timerfd,
 * and each wake takes every arrival due by then before re-arming once for
 * the next, as worker/engine/arrive.c does; with URL each arrival also starts one
 * GET of URL on the loop's libcurl multi, as quern's open model does with
 * its pool of VUs: POOL handles (default 50) made at the start, each keeping
 * its connection alive, grown one at a time up to MAX (default 500, what
 * --vus 50 gives --max-vus) when an arrival finds none idle; past MAX the
 * arrival waits for the next handle to finish, and its lateness is taken
 * when it gets one, as quern takes a run's start lag when a VU plays it.
 * The handles taken in one wake are added to the multi together and started
 * by the one timeout libcurl sets, as quern's start queue does. Prints the
 * lateness p50, p90, p99 and max in microseconds; in rate mode also
 * "wakes=" (wake-ups that took arrivals) and "waited=" (arrivals that found
 * no handle). */
#include <curl/curl.h>
#include <ev.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct {
    int use_tfd;
    int64_t *late;
    size_t n, done;
    int64_t due;
    uint32_t seed;
    ev_timer timer;
    ev_io tfd_io;
    int tfd;
    CURLM *multi;
    ev_timer curl_timer;
    const char *url;
    long requests;
    double rate;  /* rate mode: arrivals a second, 0 otherwise */
    int64_t t0;   /* rate mode: the start, arrival 0's due time */
    size_t wakes; /* rate mode: wake-ups that took at least one arrival */
    CURL **spare; /* rate mode with URL: idle handles; owns them */
    size_t nspare, capspare;
    size_t made, max_made; /* rate mode with URL: handles made, the most */
    size_t waiting;        /* arrivals due with no handle, oldest first */
    size_t waited;         /* arrivals that ever waited for a handle */
} g;

static void arm(struct ev_loop *loop)
{
    g.seed = g.seed * 1103515245u + 12345u;
    g.due += 200 + (g.seed >> 8) % 1000;
    if (g.use_tfd) {
        struct itimerspec its = {0};
        its.it_value.tv_sec = g.due / 1000000;
        its.it_value.tv_nsec = (g.due % 1000000) * 1000;
        timerfd_settime(g.tfd, TFD_TIMER_ABSTIME, &its, NULL);
    } else {
        ev_now_update(loop);
        ev_timer_set(&g.timer, (double)(g.due - now_us()) / 1e6, 0.);
        ev_timer_start(loop, &g.timer);
    }
}

/* Rate mode: arrival k's due time. */
static int64_t rate_due(size_t k)
{
    return g.t0 + (int64_t)((double)k * 1e6 / g.rate);
}

static void rate_arm(void)
{
    struct itimerspec its = {0};
    int64_t at = rate_due(g.done + g.waiting); /* the next not yet taken */

    its.it_value.tv_sec = at / 1000000;
    its.it_value.tv_nsec = (at % 1000000) * 1000;
    timerfd_settime(g.tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void add_one(void);
static int take_handle(void);

/* Rate mode: every arrival due by now, each with its own lateness, then
 * the timer once for the next. */
static void rate_wake(struct ev_loop *loop)
{
    int64_t now = now_us();
    size_t took = 0;

    while (g.done + g.waiting < g.n && rate_due(g.done + g.waiting) <= now) {
        took++;
        if (g.url != NULL && (g.waiting > 0 || !take_handle())) {
            g.waiting++;
            g.waited++;
            continue;
        }
        g.late[g.done] = now - rate_due(g.done);
        g.done++;
        if (g.url != NULL)
            add_one();
        now = now_us();
    }
    g.wakes += took > 0;
    if (g.done == g.n)
        ev_break(loop, EVBREAK_ALL);
    else if (g.done + g.waiting < g.n)
        rate_arm();
}

static void due(struct ev_loop *loop)
{
    g.late[g.done++] = now_us() - g.due;
    if (g.done == g.n)
        ev_break(loop, EVBREAK_ALL);
    else
        arm(loop);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    due(loop);
}

static void on_tfd(struct ev_loop *loop, ev_io *w, int revents)
{
    uint64_t ticks;

    (void)revents;
    if (read(w->fd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks))
        return;
    if (g.rate > 0)
        rate_wake(loop);
    else
        due(loop);
}

/* --- libcurl on the same loop ---------------------------------------------- */

static size_t sink(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

static void keep_handle(CURL *h)
{
    if (g.nspare == g.capspare) {
        g.capspare = g.capspare ? g.capspare * 2 : 64;
        g.spare = realloc(g.spare, g.capspare * sizeof(*g.spare));
    }
    g.spare[g.nspare++] = h;
}

/* Rate mode: whether a handle is idle for an arrival, or can be made. */
static int take_handle(void)
{
    if (g.nspare > 0)
        return 1;
    if (g.made >= g.max_made)
        return 0;
    keep_handle(curl_easy_init());
    g.made++;
    return 1;
}

static void add_one(void)
{
    CURL *h = g.nspare > 0 ? g.spare[--g.nspare] : curl_easy_init();

    curl_easy_setopt(h, CURLOPT_URL, g.url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_multi_add_handle(g.multi, h);
}

/* A finished transfer: its handle kept for the next arrival, first for the
 * oldest one waiting (rate mode), or freed and replaced at once (the
 * constant CONNS of the other modes). */
static void done_one(struct ev_loop *loop, CURL *h)
{
    if (g.rate == 0) {
        curl_easy_cleanup(h);
        add_one();
        return;
    }
    keep_handle(h);
    if (g.waiting > 0) {
        g.late[g.done] = now_us() - rate_due(g.done);
        g.done++;
        g.waiting--;
        add_one();
        if (g.done == g.n)
            ev_break(loop, EVBREAK_ALL);
    }
}

static void reap(struct ev_loop *loop)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(g.multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURL *h = m->easy_handle;
        curl_multi_remove_handle(g.multi, h);
        g.requests++;
        done_one(loop, h);
    }
}

static void on_sock(struct ev_loop *loop, ev_io *w, int revents)
{
    int running, fl = (revents & EV_READ ? CURL_CSELECT_IN : 0) |
                      (revents & EV_WRITE ? CURL_CSELECT_OUT : 0);

    curl_multi_socket_action(g.multi, w->fd, fl, &running);
    reap(loop);
}

static void on_curl_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    int running;

    (void)w;
    (void)revents;
    curl_multi_socket_action(g.multi, CURL_SOCKET_TIMEOUT, 0, &running);
    reap(loop);
}

static int sock_cb(CURL *h, curl_socket_t s, int what, void *u, void *sp)
{
    struct ev_loop *loop = u;
    ev_io *w = sp;

    (void)h;
    if (what == CURL_POLL_REMOVE) {
        if (w) {
            ev_io_stop(loop, w);
            free(w);
        }
        return 0;
    }
    if (w == NULL) {
        w = calloc(1, sizeof(*w));
        curl_multi_assign(g.multi, s, w);
    } else {
        ev_io_stop(loop, w);
    }
    ev_io_init(w, on_sock, s,
               (what & CURL_POLL_IN ? EV_READ : 0) | (what & CURL_POLL_OUT ? EV_WRITE : 0));
    ev_io_start(loop, w);
    return 0;
}

static int timer_cb(CURLM *m, long ms, void *u)
{
    struct ev_loop *loop = u;

    (void)m;
    ev_timer_stop(loop, &g.curl_timer);
    if (ms >= 0) {
        ev_timer_set(&g.curl_timer, (double)ms / 1e3, 0.);
        ev_timer_start(loop, &g.curl_timer);
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
    int conns = argc > 4 ? atoi(argv[4]) : 0;

    if (argc < 3 || (strcmp(argv[1], "rate") == 0 && argc < 4)) {
        fprintf(
            stderr,
            "usage: timerlag timer|tfd N [URL CONNS] | timerlag rate R SECS [URL [POOL MAX]]\n");
        return 2;
    }
    g.use_tfd = strcmp(argv[1], "tfd") == 0 || strcmp(argv[1], "rate") == 0;
    if (strcmp(argv[1], "rate") == 0) {
        g.rate = strtod(argv[2], NULL);
        g.n = (size_t)(g.rate * strtod(argv[3], NULL));
        conns = argc > 4;
        g.max_made = argc > 6 ? strtoul(argv[6], NULL, 10) : 500;
        if (g.rate <= 0 || g.n == 0) {
            fprintf(stderr, "timerlag: rate: R and SECS must be above 0\n");
            return 2;
        }
    } else {
        g.n = strtoul(argv[2], NULL, 10);
    }
    g.late = calloc(g.n ? g.n : 1, sizeof(*g.late));
    g.seed = 1;
    ev_init(&g.timer, on_timer);
    g.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    ev_io_init(&g.tfd_io, on_tfd, g.tfd, EV_READ);
    if (g.use_tfd)
        ev_io_start(loop, &g.tfd_io);
    if (conns > 0) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        g.url = g.rate > 0 ? argv[4] : argv[3];
        g.multi = curl_multi_init();
        curl_multi_setopt(g.multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
        curl_multi_setopt(g.multi, CURLMOPT_SOCKETDATA, loop);
        curl_multi_setopt(g.multi, CURLMOPT_TIMERFUNCTION, timer_cb);
        curl_multi_setopt(g.multi, CURLMOPT_TIMERDATA, loop);
        ev_init(&g.curl_timer, on_curl_timer);
        /* One connection kept per handle, as quern keeps one per VU: by
         * default the cache holds 4 per handle in the multi, few at once
         * when each arrival's handle leaves it at its end. */
        if (g.rate > 0)
            curl_multi_setopt(g.multi, CURLMOPT_MAXCONNECTS, (long)g.max_made);
        for (int i = 0; i < conns && g.rate == 0; i++)
            add_one();
        for (size_t i = 0, pool = argc > 5 ? strtoul(argv[5], NULL, 10) : 50;
             g.rate > 0 && i < pool && g.made < g.max_made; i++) {
            keep_handle(curl_easy_init());
            g.made++;
        }
    }
    if (g.rate > 0) {
        g.t0 = now_us() + 10000;
        rate_arm();
    } else {
        g.due = now_us() + 10000;
        arm(loop);
    }
    int64_t t0 = now_us();
    ev_run(loop, 0);
    double secs = (double)(now_us() - t0) / 1e6;
    qsort(g.late, g.n, sizeof(*g.late), cmp);
    printf("%s%s n=%zu p50=%lld p90=%lld p99=%lld max=%lld us; requests/s=%.0f wakes=%zu "
           "waited=%zu handles=%zu\n",
           argv[1], conns > 0 ? "+curl" : "", g.n, (long long)g.late[g.n / 2],
           (long long)g.late[g.n * 9 / 10], (long long)g.late[g.n * 99 / 100],
           (long long)g.late[g.n - 1], g.requests / secs, g.wakes, g.waited, g.made);
    return 0;
}

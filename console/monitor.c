/* monitor — the system under test's resources, scraped on a thread of its
 * own; see monitor.h. */
#include "console/monitor.h"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "common/dbuf.h"
#include "common/err.h"
#include "common/mem.h"
#include "console/monitor_host.h"

/* One endpoint: its transfer, the answer being read, its last scrape. */
typedef struct monitor_host {
    CURL *easy;      /* owned */
    const char *url; /* borrowed from the caller */
    dbuf body;       /* the answer, up to MONITOR_BODY_MAX */
    int toobig;      /* the answer passed MONITOR_BODY_MAX */
    int done, reported, has_prev;
    CURLcode result;
    int64_t start_wall, start_mono, prev_wall, prev_mono;
    monitor_host_scrape prev, cur;
    char errbuf[CURL_ERROR_SIZE];
} monitor_host;

/* A queued item, its figures and problem held in place. */
typedef struct monitor_slot {
    size_t host;
    int64_t wall_us;
    int is_problem;
    double v[MONITOR_HOST_FIXED + MONITOR_HOST_SELS_MAX];
    char problem[512];
} monitor_slot;

struct monitor {
    CURLM *multi;        /* owned */
    monitor_host *hosts; /* owned: n */
    size_t n;
    const monitor_expo_sel *sels; /* borrowed */
    size_t nsel;
    pthread_t th;
    int started;
    atomic_int stop;
    pthread_mutex_t mu; /* guards the queue below */
    monitor_slot *q;    /* owned: MONITOR_QUEUE, a ring */
    size_t qhead, qlen, dropped;
};

int monitor_check_url(const char *url, char *err, size_t errlen)
{
    const char *h;

    if (strncmp(url, "http://", 7) == 0)
        h = url + 7;
    else if (strncmp(url, "https://", 8) == 0)
        h = url + 8;
    else {
        err_set(err, errlen, "expected an http:// or https:// URL");
        return -1;
    }
    if (strlen(url) > MONITOR_URL_MAX) {
        err_set(err, errlen, "longer than %d bytes", MONITOR_URL_MAX);
        return -1;
    }
    for (const char *p = url; *p != '\0'; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f) {
            err_set(err, errlen, "a space or control character in the URL");
            return -1;
        }
    if (*h == '\0' || *h == '/' || *h == ':' || *h == '@') {
        err_set(err, errlen, "no host in the URL");
        return -1;
    }
    return 0;
}

const char *monitor_host_of(const char *url, char *buf, size_t len)
{
    const char *h = strstr(url, "://"), *end, *at;

    h = h != NULL ? h + 3 : url;
    end = h + strcspn(h, "/?#");
    at = memchr(h, '@', (size_t)(end - h));
    if (at != NULL)
        h = at + 1; /* user-info is no part of the host, and may hold a password */
    snprintf(buf, len, "%.*s", (int)(end - h), h);
    return buf;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
    monitor_host *h = ud;
    size_t n = size * nmemb;

    if (dbuf_put(&h->body, data, n) != 0) {
        h->toobig = 1;
        return 0; /* aborts the transfer */
    }
    return n;
}

/* Queues an item (the thread's side); a full queue drops it and counts. */
static void push(monitor *m, const monitor_host *h, int64_t wall_us, const double *v,
                 const char *problem)
{
    monitor_slot *s;

    pthread_mutex_lock(&m->mu);
    if (m->qlen == MONITOR_QUEUE) {
        m->dropped++;
        pthread_mutex_unlock(&m->mu);
        return;
    }
    s = &m->q[(m->qhead + m->qlen++) % MONITOR_QUEUE];
    s->host = (size_t)(h - m->hosts);
    s->wall_us = wall_us;
    s->is_problem = problem != NULL;
    if (problem != NULL)
        snprintf(s->problem, sizeof(s->problem), "%s", problem);
    else
        memcpy(s->v, v, (MONITOR_HOST_FIXED + m->nsel) * sizeof(double));
    pthread_mutex_unlock(&m->mu);
}

/* Says an endpoint's first problem; its next good scrape starts afresh. */
static void problem(monitor *m, monitor_host *h, const char *why)
{
    h->has_prev = 0;
    if (h->reported)
        return;
    h->reported = 1;
    push(m, h, h->start_wall, NULL, why);
}

/* One endpoint's answer: parsed, compared with its previous scrape. */
static void finish(monitor *m, monitor_host *h)
{
    char why[600], perr[ERR_MAX];
    long code = 0;

    if (h->result != CURLE_OK) {
        if (h->toobig)
            err_set(why, sizeof(why), "its answer is larger than %u bytes",
                    (unsigned)MONITOR_BODY_MAX);
        else
            err_set(why, sizeof(why), "cannot scrape it: %s",
                    h->errbuf[0] != '\0' ? h->errbuf : curl_easy_strerror(h->result));
        problem(m, h, why);
        return;
    }
    curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code != 200) {
        err_set(why, sizeof(why), "it answered HTTP status %ld, not 200", code);
        problem(m, h, why);
        return;
    }
    monitor_host_scrape_init(&h->cur, m->sels, m->nsel);
    if (monitor_expo_parse(h->body.p, h->body.len, monitor_host_add, &h->cur, perr, sizeof(perr)) !=
        0) {
        err_set(why, sizeof(why), "not Prometheus text: %s", perr);
        problem(m, h, why);
        return;
    }
    if (h->has_prev) {
        double v[MONITOR_HOST_FIXED + MONITOR_HOST_SELS_MAX];
        monitor_host_derive(&h->prev, &h->cur, (double)(h->start_mono - h->prev_mono) / 1e6, v);
        /* The figures cover the time between the scrapes: dated by its middle. */
        push(m, h, h->prev_wall + (h->start_wall - h->prev_wall) / 2, v, NULL);
    }
    h->prev = h->cur;
    h->prev_wall = h->start_wall;
    h->prev_mono = h->start_mono;
    h->has_prev = 1;
}

/* Every endpoint at once; returns when all answered, failed or timed out. */
static void scrape_all(monitor *m)
{
    int running = 1;
    CURLMsg *msg;
    int left;

    for (size_t i = 0; i < m->n; i++) {
        monitor_host *h = &m->hosts[i];
        dbuf_reset(&h->body);
        h->toobig = 0;
        h->done = 0;
        h->errbuf[0] = '\0';
        h->start_wall = clock_wall_us();
        h->start_mono = clock_mono_us();
        curl_multi_add_handle(m->multi, h->easy);
    }
    while (running && !atomic_load(&m->stop)) {
        curl_multi_perform(m->multi, &running);
        while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
            monitor_host *h = NULL;
            if (msg->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&h);
            h->result = msg->data.result;
            h->done = 1;
        }
        if (running)
            curl_multi_poll(m->multi, NULL, 0, 100, NULL);
    }
    for (size_t i = 0; i < m->n; i++) {
        curl_multi_remove_handle(m->multi, m->hosts[i].easy);
        if (m->hosts[i].done && !atomic_load(&m->stop))
            finish(m, &m->hosts[i]);
    }
}

static void *monitor_thread(void *arg)
{
    monitor *m = arg;
    int64_t next = clock_mono_us();

    while (!atomic_load(&m->stop)) {
        int64_t now;
        scrape_all(m);
        next += 1000000;
        now = clock_mono_us();
        if (next < now)
            next = now; /* a scrape overran: the next one now, none made up */
        while (!atomic_load(&m->stop) && (now = clock_mono_us()) < next)
            curl_multi_poll(m->multi, NULL, 0, (int)((next - now) / 1000) + 1, NULL);
    }
    return NULL;
}

monitor *monitor_start(const char *const *urls, size_t n, const monitor_expo_sel *sels, size_t nsel,
                       char *err, size_t errlen)
{
    monitor *m = xcalloc(1, sizeof(*m));
    sigset_t all, old;

    m->n = n;
    m->sels = sels;
    m->nsel = nsel < MONITOR_HOST_SELS_MAX ? nsel : MONITOR_HOST_SELS_MAX;
    m->hosts = xcalloc(n + 1, sizeof(*m->hosts));
    m->q = xcalloc(MONITOR_QUEUE, sizeof(*m->q));
    pthread_mutex_init(&m->mu, NULL);
    atomic_init(&m->stop, 0);
    m->multi = curl_multi_init();
    if (m->multi == NULL) {
        err_set(err, errlen, "--monitor: cannot initialise libcurl");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        monitor_host *h = &m->hosts[i];
        h->url = urls[i];
        dbuf_init(&h->body, MONITOR_BODY_MAX);
        h->easy = curl_easy_init();
        if (h->easy == NULL) {
            err_set(err, errlen, "--monitor: cannot initialise libcurl");
            goto fail;
        }
        curl_easy_setopt(h->easy, CURLOPT_URL, h->url);
        curl_easy_setopt(h->easy, CURLOPT_PRIVATE, (char *)h);
        curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, h);
        curl_easy_setopt(h->easy, CURLOPT_ERRORBUFFER, h->errbuf);
        curl_easy_setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h->easy, CURLOPT_TIMEOUT_MS, (long)MONITOR_TIMEOUT_MS);
        curl_easy_setopt(h->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)MONITOR_TIMEOUT_MS / 2);
        curl_easy_setopt(h->easy, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(h->easy, CURLOPT_USERAGENT, "quern-monitor");
        curl_easy_setopt(h->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    }
    /* The thread takes the signals' mask from here: the loop handles them. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (pthread_create(&m->th, NULL, monitor_thread, m) != 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        err_set(err, errlen, "--monitor: cannot start its thread");
        goto fail;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_setname_np(m->th, "quern-monitor"); /* as top -H and /proc show it */
    m->started = 1;
    return m;
fail:
    monitor_stop(m);
    return NULL;
}

size_t monitor_drain(monitor *m, monitor_fn fn, void *ud)
{
    size_t dropped;

    if (m == NULL)
        return 0;
    for (;;) {
        monitor_slot s;
        monitor_item it;
        pthread_mutex_lock(&m->mu);
        if (m->qlen == 0) {
            pthread_mutex_unlock(&m->mu);
            break;
        }
        s = m->q[m->qhead];
        m->qhead = (m->qhead + 1) % MONITOR_QUEUE;
        m->qlen--;
        pthread_mutex_unlock(&m->mu);
        it = (monitor_item){s.host, s.wall_us, s.is_problem ? NULL : s.v,
                            s.is_problem ? 0 : MONITOR_HOST_FIXED + m->nsel,
                            s.is_problem ? s.problem : NULL};
        fn(ud, &it);
    }
    pthread_mutex_lock(&m->mu);
    dropped = m->dropped;
    m->dropped = 0;
    pthread_mutex_unlock(&m->mu);
    return dropped;
}

void monitor_stop(monitor *m)
{
    if (m == NULL)
        return;
    if (m->started) {
        atomic_store(&m->stop, 1);
        curl_multi_wakeup(m->multi);
        pthread_join(m->th, NULL);
    }
    for (size_t i = 0; i < m->n; i++) {
        if (m->hosts[i].easy != NULL)
            curl_easy_cleanup(m->hosts[i].easy);
        dbuf_free(&m->hosts[i].body);
    }
    if (m->multi != NULL)
        curl_multi_cleanup(m->multi);
    pthread_mutex_destroy(&m->mu);
    xfree(m->hosts);
    xfree(m->q);
    xfree(m);
}

/* quern-target — the demo HTTP server that quern's tests and demo run against.
 *
 * A small HTTP/1.1 server on libmicrohttpd (MHD) with a handful of endpoints
 * (login/session/profile, static files, slow responses, arbitrary status codes,
 * sized bodies, echo, cookies, redirects) and, above all, exact counts of what
 * it served, readable at GET /__stats and cleared by POST /__reset. Tests hold
 * quern's own numbers against these counts, so every counted request is
 * counted once, when its headers arrive, under one mutex.
 *
 *   quern-target [--host 127.0.0.1] [--port 0] [--port-file FILE] [--threads N]
 *                [--idle-timeout S]
 *
 * Threads: MHD runs N internal polling threads (epoll), N from --threads.
 * GET /slow?ms=N never blocks them: the handler suspends the connection and
 * pushes it on a deadline heap; one timer thread resumes it when due.
 *
 * Shutdown (SIGTERM/SIGINT): the timer thread resumes every suspended
 * connection and exits, we wait (bounded) for those requests to be answered,
 * then stop MHD and free everything, exiting 0. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/target/tpage.h"

/* Limits: everything coming from the network is bounded. */
#define MAX_FORM_BODY (64 * 1024)   /* /login body */
#define MAX_ECHO_BODY (1024 * 1024) /* /echo body; larger gets 413 */
#define MAX_USER_LEN 256            /* user name at /login */
#define MAX_SLOW_MS 60000           /* /slow?ms= */
#define MAX_BYTES 10000000ULL       /* /bytes/N */
#define MAX_TIMES 200000            /* request_times_us entries kept */
#define MAX_LOG 10000               /* request_log entries kept */
#define MAX_SEEN 1000000            /* distinct presented session ids tracked */
#define MAX_SESSION_REQ_OUT 100000  /* session_requests entries in /__stats */
#define MAX_SESSIONS 4000000        /* live sessions; /login gets 503 beyond */
#define MAX_LOGIN_TOKENS 4000000    /* unused login-form tokens; GET /login gets 503 beyond */
#define MAX_KEYS 10000              /* distinct by_path / by_method_path keys */
#define MAX_KEY_LEN 256             /* by_path key length */
#define MAX_SID_LEN 128             /* presented session id length */
#define MAX_STATUS 1000             /* by_status slots */
#define OTHER_KEY "(other)"         /* by_path key once MAX_KEYS is reached */
#define CONNECTION_LIMIT 20000
#define CONNECTION_TIMEOUT_S 120
#define LISTEN_BACKLOG 4096
#define SHUTDOWN_DRAIN_MS 2000 /* wait for resumed /slow requests at exit */

/* ---------------------------------------------------------------- utilities */

static void oom(void)
{
    fprintf(stderr, "quern-target: out of memory\n");
    abort();
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        oom();
    return p;
}

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        oom();
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        oom();
    return q;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (p == NULL)
        oom();
    return p;
}

/* asprintf that aborts on failure; the result is owned by the caller. */
static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    return s;
}

static uint64_t now_epoch_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t now_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Parses a decimal number made only of digits (no sign, no spaces) that is at
 * most max. Returns false on anything else. */
static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (s == NULL || *s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

/* Copies s (at most max bytes) into a new string, replacing bytes that are
 * not printable ASCII with '?', so the result is a safe JSON object key. */
static char *printable_copy(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    char *out = xstrndup(s, n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)out[i];
        if (c < 0x20 || c >= 0x7f)
            out[i] = '?';
    }
    return out;
}

/* A JSON string for n bytes at s; invalid UTF-8 bytes become '?'. */
static json_t *json_bytes(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    if (j != NULL)
        return j;
    char *copy = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        copy[i] = ((unsigned char)s[i] >= 0x80) ? '?' : s[i];
    j = json_stringn(copy, n);
    free(copy);
    if (j == NULL)
        oom();
    return j;
}

/* HTML-escapes s into a new string owned by the caller. */
static char *html_escape(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += (*p == '&' || *p == '<' || *p == '>' || *p == '"' || *p == '\'') ? 6 : 1;
    char *out = xmalloc(n + 1);
    char *o = out;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            break;
        }
        if (rep != NULL) {
            size_t l = strlen(rep);
            memcpy(o, rep, l);
            o += l;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* -------------------------------------------------------------- string map */

/* A chained hash map from byte-string keys to a counter and a pointer.
 * Not thread-safe: callers hold g_st.lock. */
struct map_entry {
    struct map_entry *next; /* owned: next in the bucket chain */
    uint64_t hash;
    uint64_t n; /* counter, for counting maps */
    void *val;  /* owned by the map's user (e.g. struct session) */
    size_t len; /* key length */
    char key[]; /* NUL-terminated */
};

struct map {
    struct map_entry **buckets; /* owned; NULL until first insert */
    size_t nbuckets;            /* power of two */
    size_t count;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void map_grow(struct map *m)
{
    size_t nb = m->nbuckets ? m->nbuckets * 2 : 64;
    struct map_entry **b = xcalloc(nb, sizeof(*b));
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct map_entry *e = m->buckets[i];
        while (e != NULL) {
            struct map_entry *next = e->next;
            size_t k = (size_t)(e->hash & (nb - 1));
            e->next = b[k];
            b[k] = e;
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = nb;
}

/* Finds key; if absent and create is true, inserts it with n = 0 and
 * val = NULL. Returns NULL when absent and not created. */
static struct map_entry *map_find(struct map *m, const char *key, size_t len, bool create)
{
    uint64_t h = hash_bytes(key, len);
    if (m->nbuckets > 0) {
        for (struct map_entry *e = m->buckets[h & (m->nbuckets - 1)]; e != NULL; e = e->next) {
            if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0)
                return e;
        }
    }
    if (!create)
        return NULL;
    if (m->count >= m->nbuckets)
        map_grow(m);
    struct map_entry *e = xmalloc(sizeof(*e) + len + 1);
    e->hash = h;
    e->n = 0;
    e->val = NULL;
    e->len = len;
    memcpy(e->key, key, len);
    e->key[len] = '\0';
    size_t k = (size_t)(h & (m->nbuckets - 1));
    e->next = m->buckets[k];
    m->buckets[k] = e;
    m->count++;
    return e;
}

/* Removes key if present and returns its val (now owned by the caller). */
static void *map_remove(struct map *m, const char *key, size_t len)
{
    if (m->nbuckets == 0)
        return NULL;
    uint64_t h = hash_bytes(key, len);
    struct map_entry **pp = &m->buckets[h & (m->nbuckets - 1)];
    for (; *pp != NULL; pp = &(*pp)->next) {
        struct map_entry *e = *pp;
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) {
            void *val = e->val;
            *pp = e->next;
            free(e);
            m->count--;
            return val;
        }
    }
    return NULL;
}

/* Frees every entry (and each val with free_val, if given); m is empty after. */
static void map_clear(struct map *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct map_entry *e = m->buckets[i];
        while (e != NULL) {
            struct map_entry *next = e->next;
            if (free_val != NULL)
                free_val(e->val);
            free(e);
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = NULL;
    m->nbuckets = 0;
    m->count = 0;
}

/* Adds 1 to key's counter, unless the map already has MAX_KEYS keys, in which
 * case the count goes to OTHER_KEY. */
static void map_count_capped(struct map *m, const char *key)
{
    struct map_entry *e = map_find(m, key, strlen(key), m->count < MAX_KEYS);
    if (e == NULL)
        e = map_find(m, OTHER_KEY, strlen(OTHER_KEY), true);
    e->n++;
}

/* ------------------------------------------------------------ shared state */

struct session {
    char *user;      /* owned */
    uint64_t visits; /* profile fetches with this session */
};

static void session_free(void *p)
{
    struct session *s = p;
    if (s == NULL)
        return;
    free(s->user);
    free(s);
}

/* Per-connection state, MHD's socket context. Owned by MHD's notify
 * callbacks: allocated at STARTED, freed at CLOSED. */
struct conn_state {
    uint64_t counted_gen; /* g_st.gen when this connection last counted; 0 = never */
};

/* Everything the server counts, and the sessions. All under lock. */
struct stats {
    pthread_mutex_t lock;
    uint64_t gen; /* bumped by /__reset; starts at 1 */
    uint64_t requests;
    uint64_t first_us, last_us;
    uint64_t *times; /* owned, MAX_TIMES slots, allocated on first use */
    size_t ntimes;
    char **log; /* owned, "METHOD /path" of the first MAX_LOG requests, each owned */
    size_t nlog;
    struct map by_path;        /* counters */
    struct map by_method_path; /* counters */
    struct map by_client;      /* client IP address -> requests */
    uint64_t by_status[MAX_STATUS];
    struct map seen;     /* presented session id -> requests (counter) */
    bool seen_capped;    /* MAX_SEEN reached: sessions_seen stops growing */
    struct map sessions; /* session id -> struct session (owned) */
    uint64_t sessions_created;
    struct map login_tokens;  /* token of each login form shown, not yet used (no value) */
    uint64_t login_forms;     /* login forms shown (tokens issued) */
    uint64_t logins_rejected; /* POST /login refused for a missing or unknown token */
    uint64_t digest_stale;    /* /digest answered with a nonce not issued for its path */
    uint64_t connections;     /* distinct connections that carried a counted request */
    uint64_t accepted;        /* connections accepted since the last reset */
    uint64_t open;            /* connections open now (not reset) */
    uint64_t sid_counter;
    uint64_t rng; /* splitmix64 state for session ids */
};

static struct stats g_st = {.lock = PTHREAD_MUTEX_INITIALIZER, .gen = 1};
/* Most /slow requests waiting at once since the last reset: raised under
 * the timer's lock, read and cleared atomically by /__stats and /__reset. */
static size_t g_slow_peak;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Zeroes every counter and forgets all sessions. Caller holds g_st.lock. */
static void stats_reset_locked(void)
{
    g_st.gen++;
    g_st.requests = 0;
    g_st.digest_stale = 0;
    g_st.first_us = 0;
    g_st.last_us = 0;
    g_st.ntimes = 0;
    for (size_t i = 0; i < g_st.nlog; i++)
        free(g_st.log[i]);
    g_st.nlog = 0;
    map_clear(&g_st.by_path, NULL);
    map_clear(&g_st.by_client, NULL);
    map_clear(&g_st.by_method_path, NULL);
    memset(g_st.by_status, 0, sizeof(g_st.by_status));
    map_clear(&g_st.seen, NULL);
    g_st.seen_capped = false;
    map_clear(&g_st.sessions, session_free);
    g_st.sessions_created = 0;
    map_clear(&g_st.login_tokens, NULL);
    g_st.login_forms = 0;
    g_st.logins_rejected = 0;
    g_st.connections = 0;
    g_st.accepted = 0;
    __atomic_store_n(&g_slow_peak, 0, __ATOMIC_RELAXED);
}

static void stats_free(void)
{
    pthread_mutex_lock(&g_st.lock);
    stats_reset_locked();
    free(g_st.times);
    g_st.times = NULL;
    free(g_st.log);
    g_st.log = NULL;
    pthread_mutex_unlock(&g_st.lock);
}

/* ------------------------------------------------------------ per request */

enum endpoint {
    EP_NOT_FOUND,
    EP_LOGIN,
    EP_PROFILE,
    EP_API_PROFILE,
    EP_LOGOUT,
    EP_STATIC,
    EP_SLOW,
    EP_STATUS,
    EP_BYTES,
    EP_XML,
    EP_ECHO,
    EP_SET_COOKIE,
    EP_REDIRECT,
    EP_STATS,
    EP_RESET,
    EP_PAGE,   /* /page and its resources (tpage.h) */
    EP_DIGEST, /* digest authentication */
};

#define HEAP_NONE SIZE_MAX

/* One HTTP request: MHD's request context, freed at request completion. */
struct req {
    struct MHD_Connection *conn; /* borrowed */
    enum endpoint ep;
    bool counted; /* counted in g_st (everything but /__stats, /__reset) */
    char *body;   /* owned; NUL-terminated; only for endpoints that read it */
    size_t body_len;
    size_t body_max; /* 0: body is discarded */
    bool body_too_big;
    /* /slow; fields below are guarded by g_timer.lock */
    bool suspended;       /* MHD_suspend_connection called, handler not yet re-entered */
    bool slow_ready;      /* deadline passed (or shutting down): answer now */
    uint64_t deadline_ns; /* CLOCK_MONOTONIC */
    size_t heap_idx;      /* position in g_timer.heap, HEAP_NONE if not there */
    unsigned slow_ms;
};

/* --------------------------------------------------------------- /slow timer */

/* Suspended /slow requests ordered by deadline (a binary min-heap), and the
 * thread that resumes them. */
struct timer {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled on push and stop */
    bool stopping;
    struct req **heap; /* owned array of borrowed requests */
    size_t n, cap;
    size_t suspended; /* requests suspended and not yet re-entered */
    pthread_t thread;
};

static struct timer g_timer = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void heap_swap(size_t a, size_t b)
{
    struct req *t = g_timer.heap[a];
    g_timer.heap[a] = g_timer.heap[b];
    g_timer.heap[b] = t;
    g_timer.heap[a]->heap_idx = a;
    g_timer.heap[b]->heap_idx = b;
}

static void heap_up(size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (g_timer.heap[parent]->deadline_ns <= g_timer.heap[i]->deadline_ns)
            break;
        heap_swap(i, parent);
        i = parent;
    }
}

static void heap_down(size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < g_timer.n && g_timer.heap[l]->deadline_ns < g_timer.heap[m]->deadline_ns)
            m = l;
        if (r < g_timer.n && g_timer.heap[r]->deadline_ns < g_timer.heap[m]->deadline_ns)
            m = r;
        if (m == i)
            return;
        heap_swap(i, m);
        i = m;
    }
}

static void heap_push(struct req *rq)
{
    if (g_timer.n == g_timer.cap) {
        g_timer.cap = g_timer.cap ? g_timer.cap * 2 : 256;
        g_timer.heap = xrealloc(g_timer.heap, g_timer.cap * sizeof(*g_timer.heap));
    }
    rq->heap_idx = g_timer.n;
    g_timer.heap[g_timer.n++] = rq;
    heap_up(rq->heap_idx);
    if (g_timer.n > __atomic_load_n(&g_slow_peak, __ATOMIC_RELAXED))
        __atomic_store_n(&g_slow_peak, g_timer.n, __ATOMIC_RELAXED);
}

static void heap_remove(struct req *rq)
{
    size_t i = rq->heap_idx;
    rq->heap_idx = HEAP_NONE;
    g_timer.n--;
    if (i == g_timer.n)
        return;
    g_timer.heap[i] = g_timer.heap[g_timer.n];
    g_timer.heap[i]->heap_idx = i;
    heap_down(i);
    heap_up(i);
}

/* Resumes the earliest request; the caller holds g_timer.lock, which is
 * released around the MHD call (MHD takes its own locks). The request stays
 * alive meanwhile: MHD does not free a suspended connection's request. */
static void timer_fire_top_locked(void)
{
    struct req *rq = g_timer.heap[0];
    heap_remove(rq);
    rq->slow_ready = true;
    pthread_mutex_unlock(&g_timer.lock);
    MHD_resume_connection(rq->conn);
    pthread_mutex_lock(&g_timer.lock);
}

static void *timer_main(void *arg)
{
    pthread_mutex_lock(&g_timer.lock);
    while (!g_timer.stopping) {
        if (g_timer.n == 0) {
            pthread_cond_wait(&g_timer.cond, &g_timer.lock);
            continue;
        }
        uint64_t due = g_timer.heap[0]->deadline_ns;
        if (due > now_mono_ns()) {
            struct timespec ts = {.tv_sec = (time_t)(due / 1000000000u),
                                  .tv_nsec = (long)(due % 1000000000u)};
            pthread_cond_timedwait(&g_timer.cond, &g_timer.lock, &ts);
            continue;
        }
        timer_fire_top_locked();
    }
    while (g_timer.n > 0)
        timer_fire_top_locked();
    pthread_mutex_unlock(&g_timer.lock);
    return NULL;
}

static int timer_start(char *err, size_t errlen)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&g_timer.cond, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0) {
        snprintf(err, errlen, "pthread_cond_init: %s", strerror(rc));
        return -1;
    }
    rc = pthread_create(&g_timer.thread, NULL, timer_main, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "pthread_create: %s", strerror(rc));
        pthread_cond_destroy(&g_timer.cond);
        return -1;
    }
    return 0;
}

/* Resumes every suspended request, stops the timer thread, then waits up to
 * SHUTDOWN_DRAIN_MS for the resumed requests to be answered by MHD. */
static void timer_stop(void)
{
    pthread_mutex_lock(&g_timer.lock);
    g_timer.stopping = true;
    pthread_cond_signal(&g_timer.cond);
    pthread_mutex_unlock(&g_timer.lock);
    pthread_join(g_timer.thread, NULL);

    uint64_t give_up = now_mono_ns() + (uint64_t)SHUTDOWN_DRAIN_MS * 1000000u;
    for (;;) {
        pthread_mutex_lock(&g_timer.lock);
        size_t left = g_timer.suspended;
        pthread_mutex_unlock(&g_timer.lock);
        if (left == 0 || now_mono_ns() > give_up)
            break;
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
    pthread_cond_destroy(&g_timer.cond);
    free(g_timer.heap);
    g_timer.heap = NULL;
    g_timer.n = g_timer.cap = 0;
}

/* ---------------------------------------------------------- responses */

static const char STATIC_BODY[] =
    "/* quern-target static asset */\n"
    "body { margin: 0; padding: 0; font-family: sans-serif; color: #222; }\n"
    "h1 { font-size: 2em; color: #345; }\n"
    ".card { border: 1px solid #ccc; border-radius: 4px; padding: 8px; }\n";

static const char XML_BODY[] = "<?xml version=\"1.0\"?>"
                               "<catalog>"
                               "<item id=\"1\"><name>Alpha</name><price>10</price></item>"
                               "<item id=\"2\"><name>Beta</name><price>20</price></item>"
                               "</catalog>";

/* /bytes/N repeats this 64-byte pattern: byte i is BYTES_PATTERN[i % 64]. */
static const char BYTES_PATTERN[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+\n";

/* Queues resp with status, counting the status for counted requests, and
 * drops our reference to resp. */
static enum MHD_Result respond(struct req *rq, unsigned status, struct MHD_Response *resp)
{
    if (resp == NULL)
        return MHD_NO;
    if (rq->counted) {
        pthread_mutex_lock(&g_st.lock);
        if (status < MAX_STATUS)
            g_st.by_status[status]++;
        pthread_mutex_unlock(&g_st.lock);
    }
    enum MHD_Result ret = MHD_queue_response(rq->conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A response with body (len bytes, handled as mode says) and Content-Type. */
static struct MHD_Response *body_response(const char *ctype, const void *body, size_t len,
                                          enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (resp == NULL) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free((void *)body);
        return NULL;
    }
    if (ctype != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    return resp;
}

/* A response owning the NUL-terminated text s (malloc'd). */
static struct MHD_Response *owned_text(const char *ctype, char *s)
{
    return body_response(ctype, s, strlen(s), MHD_RESPMEM_MUST_FREE);
}

/* Sends a short constant text/plain body. */
static enum MHD_Result reply_text(struct req *rq, unsigned status, const char *text)
{
    return respond(rq, status,
                   body_response("text/plain", text, strlen(text), MHD_RESPMEM_PERSISTENT));
}

/* Sends j (reference stolen) as compact JSON. */
static enum MHD_Result reply_json(struct req *rq, unsigned status, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (s == NULL)
        oom();
    return respond(rq, status, owned_text("application/json", s));
}

/* ------------------------------------------------------------- endpoints */

/* The SESSION cookie's value, or NULL. Borrowed from MHD. */
static const char *session_cookie(struct MHD_Connection *c)
{
    const char *sid = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, "SESSION");
    if (sid == NULL || *sid == '\0')
        return NULL;
    return sid;
}

/* Decodes a form-urlencoded component in place ('+' and %XX). */
static void form_unescape(char *s)
{
    for (char *p = s; *p; p++) {
        if (*p == '+')
            *p = ' ';
    }
    MHD_http_unescape(s);
}

/* Finds field name in the form-urlencoded body (modified in place). Returns
 * a pointer into body, or NULL. The first occurrence wins. */
static const char *form_field(char *body, const char *name)
{
    const char *found = NULL;
    char *rest = body;
    char *pair;
    while (found == NULL && (pair = strsep(&rest, "&")) != NULL) {
        char *eq = strchr(pair, '=');
        char *value = "";
        if (eq != NULL) {
            *eq = '\0';
            value = eq + 1;
        }
        form_unescape(pair);
        if (strcmp(pair, name) == 0) {
            form_unescape(value);
            found = value;
        }
    }
    return found;
}

/* GET /login: the login form, with a hidden token the POST must send back
 * (as a site's CSRF token), so that a replayed recording without
 * correlation fails. Each form gets its own token, valid once. */
static enum MHD_Result ep_login_form(struct req *rq)
{
    char token[40];
    pthread_mutex_lock(&g_st.lock);
    if (g_st.login_tokens.count >= MAX_LOGIN_TOKENS) {
        pthread_mutex_unlock(&g_st.lock);
        return reply_text(rq, MHD_HTTP_SERVICE_UNAVAILABLE, "too many login forms\n");
    }
    uint64_t r1 = splitmix64(&g_st.rng), r2 = splitmix64(&g_st.rng);
    snprintf(token, sizeof(token), "%016" PRIx64 "%016" PRIx64, r1, r2);
    map_find(&g_st.login_tokens, token, strlen(token), true);
    g_st.login_forms++;
    pthread_mutex_unlock(&g_st.lock);
    char *page = xasprintf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                           "<title>Connexion</title></head>\n<body><h1>Connexion</h1>\n"
                           "<form method=\"post\" action=\"/login\">\n"
                           "<input type=\"hidden\" name=\"csrf\" value=\"%s\">\n"
                           "<p><label>Utilisateur <input name=\"user\" id=\"user\"></label></p>\n"
                           "<p><label>Mot de passe <input type=\"password\" name=\"password\" "
                           "id=\"password\"></label></p>\n"
                           "<p><button type=\"submit\" id=\"submit\">Entrer</button></p>\n"
                           "</form></body></html>\n",
                           token);
    return respond(rq, MHD_HTTP_OK, owned_text("text/html", page));
}

/* Uses up the login token the form posted; false when it is missing or was
 * never issued (or already used). */
static bool login_token_take(const char *token)
{
    if (token == NULL || *token == '\0')
        return false;
    pthread_mutex_lock(&g_st.lock);
    bool ok = map_find(&g_st.login_tokens, token, strlen(token), false) != NULL;
    if (ok)
        map_remove(&g_st.login_tokens, token, strlen(token));
    pthread_mutex_unlock(&g_st.lock);
    return ok;
}

static enum MHD_Result ep_login(struct req *rq, const char *method)
{
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return ep_login_form(rq);
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
        struct MHD_Response *resp =
            body_response("text/plain", "use GET or POST\n", 16, MHD_RESPMEM_PERSISTENT);
        if (resp != NULL)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, POST");
        return respond(rq, MHD_HTTP_METHOD_NOT_ALLOWED, resp);
    }
    if (rq->body_too_big)
        return reply_text(rq, MHD_HTTP_CONTENT_TOO_LARGE, "body too large\n");
    /* form_field cuts the body it reads: each field from its own copy */
    char *copy = rq->body ? xstrndup(rq->body, rq->body_len) : NULL;
    const char *user = rq->body ? form_field(rq->body, "user") : NULL;
    bool token_ok = copy != NULL && login_token_take(form_field(copy, "csrf"));
    free(copy);
    if (user == NULL || *user == '\0')
        return reply_text(rq, MHD_HTTP_BAD_REQUEST, "missing user\n");
    if (strlen(user) > MAX_USER_LEN)
        return reply_text(rq, MHD_HTTP_BAD_REQUEST, "user too long\n");
    if (!token_ok) {
        pthread_mutex_lock(&g_st.lock);
        g_st.logins_rejected++;
        pthread_mutex_unlock(&g_st.lock);
        return reply_text(rq, MHD_HTTP_FORBIDDEN,
                          "missing or stale login token (GET /login gives one)\n");
    }

    char sid[40];
    pthread_mutex_lock(&g_st.lock);
    if (g_st.sessions.count >= MAX_SESSIONS) {
        pthread_mutex_unlock(&g_st.lock);
        return reply_text(rq, MHD_HTTP_SERVICE_UNAVAILABLE, "too many sessions\n");
    }
    uint64_t r = splitmix64(&g_st.rng);
    snprintf(sid, sizeof(sid), "%016" PRIx64 "%08" PRIx64, r, ++g_st.sid_counter);
    struct session *s = xmalloc(sizeof(*s));
    s->user = xstrndup(user, strlen(user));
    s->visits = 0;
    map_find(&g_st.sessions, sid, strlen(sid), true)->val = s;
    g_st.sessions_created++;
    pthread_mutex_unlock(&g_st.lock);

    char *name = html_escape(user);
    char *page = xasprintf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                           "<title>Bienvenue</title></head>\n<body><h1>Bienvenue %s</h1>\n"
                           "<p><a href=\"/profile\">Profil</a></p></body></html>\n",
                           name);
    free(name);
    struct MHD_Response *resp = owned_text("text/html", page);
    if (resp != NULL) {
        char cookie[80];
        snprintf(cookie, sizeof(cookie), "SESSION=%s; Path=/", sid);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    }
    return respond(rq, MHD_HTTP_OK, resp);
}

/* Looks up the request's session; on success copies the user name (owned
 * by the caller) and the visit count after counting this visit. */
static bool session_visit(struct MHD_Connection *c, char **user, uint64_t *visits, char **sid)
{
    const char *id = session_cookie(c);
    if (id == NULL)
        return false;
    bool ok = false;
    pthread_mutex_lock(&g_st.lock);
    struct map_entry *e = map_find(&g_st.sessions, id, strlen(id), false);
    if (e != NULL) {
        struct session *s = e->val;
        s->visits++;
        *visits = s->visits;
        *user = xstrndup(s->user, strlen(s->user));
        *sid = xstrndup(e->key, e->len);
        ok = true;
    }
    pthread_mutex_unlock(&g_st.lock);
    return ok;
}

static enum MHD_Result ep_profile(struct req *rq)
{
    char *user, *sid;
    uint64_t visits;
    if (!session_visit(rq->conn, &user, &visits, &sid)) {
        static const char page[] = "<!DOCTYPE html>\n<html><head><title>401</title></head>"
                                   "<body><h1>Unauthorized</h1><p>Please log in.</p>"
                                   "</body></html>\n";
        return respond(rq, MHD_HTTP_UNAUTHORIZED,
                       body_response("text/html", page, sizeof(page) - 1, MHD_RESPMEM_PERSISTENT));
    }
    char *name = html_escape(user);
    char *page = xasprintf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                           "<title>Profil</title></head>\n<body><h1>Profil</h1>\n"
                           "<p>Nom: <span id=\"name\">%s</span></p>\n"
                           "<p>Visites: <span id=\"visits\">%" PRIu64 "</span></p>\n"
                           "<p><a href=\"/logout\">Deconnexion</a></p></body></html>\n",
                           name, visits);
    free(name);
    free(user);
    free(sid);
    return respond(rq, MHD_HTTP_OK, owned_text("text/html", page));
}

static enum MHD_Result ep_api_profile(struct req *rq)
{
    char *user, *sid;
    uint64_t visits;
    if (!session_visit(rq->conn, &user, &visits, &sid))
        return reply_json(rq, MHD_HTTP_UNAUTHORIZED, json_pack("{s:s}", "error", "no session"));
    json_t *j = json_object();
    json_object_set_new(j, "name", json_bytes(user, strlen(user)));
    json_object_set_new(j, "session", json_bytes(sid, strlen(sid)));
    json_object_set_new(j, "visits", json_integer((json_int_t)visits));
    free(user);
    free(sid);
    return reply_json(rq, MHD_HTTP_OK, j);
}

static enum MHD_Result ep_logout(struct req *rq)
{
    const char *id = session_cookie(rq->conn);
    if (id != NULL) {
        pthread_mutex_lock(&g_st.lock);
        session_free(map_remove(&g_st.sessions, id, strlen(id)));
        pthread_mutex_unlock(&g_st.lock);
    }
    struct MHD_Response *resp = body_response("text/plain", "bye", 3, MHD_RESPMEM_PERSISTENT);
    if (resp != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, "SESSION=; Max-Age=0; Path=/");
    return respond(rq, MHD_HTTP_OK, resp);
}

static const char *static_content_type(const char *url)
{
    static const struct {
        const char *ext;
        const char *ctype;
    } types[] = {
        {".css", "text/css"},      {".js", "text/javascript"},    {".html", "text/html"},
        {".htm", "text/html"},     {".json", "application/json"}, {".txt", "text/plain"},
        {".svg", "image/svg+xml"}, {".png", "image/png"},         {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},   {".gif", "image/gif"},         {".ico", "image/x-icon"},
    };
    const char *dot = strrchr(url, '.');
    if (dot != NULL && strchr(dot, '/') == NULL) {
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
            if (strcasecmp(dot, types[i].ext) == 0)
                return types[i].ctype;
        }
    }
    return "application/octet-stream";
}

static enum MHD_Result ep_static(struct req *rq, const char *url)
{
    return respond(rq, MHD_HTTP_OK,
                   body_response(static_content_type(url), STATIC_BODY, sizeof(STATIC_BODY) - 1,
                                 MHD_RESPMEM_PERSISTENT));
}

static enum MHD_Result ep_slow(struct req *rq)
{
    pthread_mutex_lock(&g_timer.lock);
    bool resumed = rq->suspended;
    bool ready = rq->slow_ready;
    if (resumed) {
        rq->suspended = false;
        g_timer.suspended--;
    }
    pthread_mutex_unlock(&g_timer.lock);

    if (!resumed) {
        const char *ms_arg = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "ms");
        uint64_t ms = 0;
        if (ms_arg != NULL && !parse_uint(ms_arg, MAX_SLOW_MS, &ms))
            return reply_text(rq, MHD_HTTP_BAD_REQUEST, "ms must be 0..60000\n");
        rq->slow_ms = (unsigned)ms;
        if (ms > 0) {
            /* Suspend first, then arm: the timer may resume us at once. */
            MHD_suspend_connection(rq->conn);
            pthread_mutex_lock(&g_timer.lock);
            rq->suspended = true;
            g_timer.suspended++;
            bool stopping = g_timer.stopping;
            if (stopping) {
                rq->slow_ready = true;
            } else {
                rq->deadline_ns = now_mono_ns() + ms * 1000000u;
                heap_push(rq);
                pthread_cond_signal(&g_timer.cond);
            }
            pthread_mutex_unlock(&g_timer.lock);
            if (stopping)
                MHD_resume_connection(rq->conn);
            return MHD_YES;
        }
        ready = true;
    }
    if (!ready)
        return MHD_YES; /* cannot happen: resumed only when ready */
    char *text = xasprintf("slept %u ms\n", rq->slow_ms);
    return respond(rq, MHD_HTTP_OK, owned_text("text/plain", text));
}

static enum MHD_Result ep_status(struct req *rq, const char *url)
{
    uint64_t code = 0;
    const char *num = url + strlen("/status/");
    if (strlen(num) != 3 || !parse_uint(num, 599, &code) || code < 200)
        return reply_text(rq, MHD_HTTP_BAD_REQUEST, "status must be 200..599\n");
    if (code == 204 || code == 304)
        return respond(rq, (unsigned)code,
                       body_response("text/plain", "", 0, MHD_RESPMEM_PERSISTENT));
    char *text = xasprintf("status %u", (unsigned)code);
    return respond(rq, (unsigned)code, owned_text("text/plain", text));
}

static ssize_t bytes_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    size_t off = (size_t)(pos % 64);
    for (size_t i = 0; i < max; i++)
        buf[i] = BYTES_PATTERN[(off + i) % 64];
    return (ssize_t)max;
}

static enum MHD_Result ep_bytes(struct req *rq, const char *url)
{
    uint64_t n = 0;
    if (!parse_uint(url + strlen("/bytes/"), MAX_BYTES, &n))
        return reply_text(rq, MHD_HTTP_BAD_REQUEST, "N must be 0..10000000\n");
    struct MHD_Response *resp =
        MHD_create_response_from_callback(n, 64 * 1024, bytes_reader, NULL, NULL);
    if (resp != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
    return respond(rq, MHD_HTTP_OK, resp);
}

/* Iterator state for /echo: collects one kind of MHD values into a JSON object. */
struct echo_ctx {
    json_t *obj;     /* borrowed */
    bool lower_keys; /* header names are lowercased */
    bool join_dups;  /* duplicates: join with ", " (headers) or make an array */
};

static enum MHD_Result echo_collect(void *cls, enum MHD_ValueKind kind, const char *key,
                                    size_t key_size, const char *value, size_t value_size)
{
    struct echo_ctx *ec = cls;
    char *k = xstrndup(key, key_size);
    if (ec->lower_keys) {
        for (char *p = k; *p; p++) {
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        }
    }
    json_t *v = json_bytes(value ? value : "", value ? value_size : 0);
    json_t *kj = json_bytes(k, strlen(k)); /* the key, made valid UTF-8 */
    const char *kk = json_string_value(kj);
    json_t *prev = json_object_get(ec->obj, kk);
    if (prev == NULL) {
        json_object_set_new(ec->obj, kk, v);
    } else if (ec->join_dups) {
        json_t *joined = json_sprintf("%s, %s", json_string_value(prev), json_string_value(v));
        json_decref(v);
        if (joined != NULL)
            json_object_set_new(ec->obj, kk, joined);
    } else if (json_is_array(prev)) {
        json_array_append_new(prev, v);
    } else {
        json_t *arr = json_array();
        json_array_append(arr, prev);
        json_array_append_new(arr, v);
        json_object_set_new(ec->obj, kk, arr);
    }
    json_decref(kj);
    free(k);
    return MHD_YES;
}

static json_t *echo_values(struct MHD_Connection *c, enum MHD_ValueKind kind, bool lower, bool join)
{
    struct echo_ctx ec = {.obj = json_object(), .lower_keys = lower, .join_dups = join};
    MHD_get_connection_values_n(c, kind, echo_collect, &ec);
    return ec.obj;
}

static enum MHD_Result ep_echo(struct req *rq, const char *url, const char *method)
{
    if (rq->body_too_big)
        return reply_text(rq, MHD_HTTP_CONTENT_TOO_LARGE, "body too large\n");
    json_t *j = json_object();
    json_object_set_new(j, "method", json_bytes(method, strlen(method)));
    json_object_set_new(j, "path", json_bytes(url, strlen(url)));
    json_object_set_new(j, "query", echo_values(rq->conn, MHD_GET_ARGUMENT_KIND, false, false));
    json_object_set_new(j, "headers", echo_values(rq->conn, MHD_HEADER_KIND, true, true));
    json_object_set_new(j, "cookies", echo_values(rq->conn, MHD_COOKIE_KIND, false, false));
    json_object_set_new(j, "body", json_bytes(rq->body ? rq->body : "", rq->body_len));
    return reply_json(rq, MHD_HTTP_OK, j);
}

/* Cookie names are HTTP tokens; values are cookie-octets (RFC 6265), except
 * that spaces are allowed in values. */
static bool cookie_name_ok(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= 0x20 || c >= 0x7f || strchr("()<>@,;:\\\"/[]?={}", c) != NULL)
            return false;
    }
    return true;
}

static bool cookie_value_ok(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\')
            return false;
    }
    return true;
}

struct cookie_ctx {
    json_t *set; /* borrowed: name -> value of the cookies to set */
    bool bad;    /* an invalid name or value was given */
};

static enum MHD_Result cookie_collect(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    struct cookie_ctx *cc = cls;
    const char *v = value ? value : "";
    if (!cookie_name_ok(key) || !cookie_value_ok(v)) {
        cc->bad = true;
        return MHD_NO;
    }
    json_object_set_new(cc->set, key, json_string(v));
    return MHD_YES;
}

static enum MHD_Result ep_set_cookie(struct req *rq)
{
    struct cookie_ctx cc = {.set = json_object(), .bad = false};
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, cookie_collect, &cc);
    if (cc.bad) {
        json_decref(cc.set);
        return reply_json(rq, MHD_HTTP_BAD_REQUEST,
                          json_pack("{s:s}", "error", "invalid cookie name or value"));
    }
    char *s = json_dumps(cc.set, JSON_COMPACT);
    if (s == NULL)
        oom();
    struct MHD_Response *resp = owned_text("application/json", s);
    if (resp != NULL) {
        const char *name;
        json_t *value;
        json_object_foreach(cc.set, name, value)
        {
            char *h = xasprintf("%s=%s; Path=/", name, json_string_value(value));
            MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, h);
            free(h);
        }
    }
    json_decref(cc.set);
    return respond(rq, MHD_HTTP_OK, resp);
}

static enum MHD_Result ep_redirect(struct req *rq)
{
    const char *to = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "to");
    bool ok = to != NULL && *to != '\0';
    for (const char *p = to; ok && *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            ok = false;
    }
    if (!ok)
        return reply_text(rq, MHD_HTTP_BAD_REQUEST, "missing or invalid to=\n");
    char *text = xasprintf("redirecting to %s\n", to);
    struct MHD_Response *resp = owned_text("text/plain", text);
    if (resp != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, to);
    return respond(rq, MHD_HTTP_FOUND, resp);
}

/* An object of map's counters. */
static json_t *counts_json(const struct map *m)
{
    json_t *o = json_object();
    for (size_t i = 0; i < m->nbuckets; i++) {
        for (const struct map_entry *e = m->buckets[i]; e != NULL; e = e->next)
            json_object_set_new(o, e->key, json_integer((json_int_t)e->n));
    }
    return o;
}

static enum MHD_Result ep_stats(struct req *rq)
{
    json_t *j = json_object();
    pthread_mutex_lock(&g_st.lock);
    json_object_set_new(j, "requests", json_integer((json_int_t)g_st.requests));
    json_object_set_new(j, "by_path", counts_json(&g_st.by_path));
    json_object_set_new(j, "digest_stale", json_integer((json_int_t)g_st.digest_stale));
    json_object_set_new(j, "by_client", counts_json(&g_st.by_client));
    json_object_set_new(j, "by_method_path", counts_json(&g_st.by_method_path));
    json_t *by_status = json_object();
    for (unsigned s = 0; s < MAX_STATUS; s++) {
        if (g_st.by_status[s] > 0) {
            char key[8];
            snprintf(key, sizeof(key), "%u", s);
            json_object_set_new(by_status, key, json_integer((json_int_t)g_st.by_status[s]));
        }
    }
    json_object_set_new(j, "by_status", by_status);
    json_object_set_new(j, "sessions_created", json_integer((json_int_t)g_st.sessions_created));
    json_object_set_new(j, "sessions_live", json_integer((json_int_t)g_st.sessions.count));
    json_object_set_new(j, "login_forms", json_integer((json_int_t)g_st.login_forms));
    json_object_set_new(j, "logins_rejected", json_integer((json_int_t)g_st.logins_rejected));
    json_object_set_new(j, "sessions_seen", json_integer((json_int_t)g_st.seen.count));
    json_object_set_new(j, "sessions_seen_capped", json_boolean(g_st.seen_capped));
    json_object_set_new(j, "connections", json_integer((json_int_t)g_st.connections));
    json_object_set_new(j, "connections_accepted", json_integer((json_int_t)g_st.accepted));
    json_object_set_new(j, "open_connections", json_integer((json_int_t)g_st.open));
    json_object_set_new(j, "slow_peak",
                        json_integer((json_int_t)__atomic_load_n(&g_slow_peak, __ATOMIC_RELAXED)));
    json_t *sr = json_object();
    size_t out = 0;
    for (size_t i = 0; i < g_st.seen.nbuckets && out < MAX_SESSION_REQ_OUT; i++) {
        for (const struct map_entry *e = g_st.seen.buckets[i];
             e != NULL && out < MAX_SESSION_REQ_OUT; e = e->next, out++)
            json_object_set_new(sr, e->key, json_integer((json_int_t)e->n));
    }
    json_object_set_new(j, "session_requests", sr);
    json_object_set_new(j, "first_request_us", json_integer((json_int_t)g_st.first_us));
    json_object_set_new(j, "last_request_us", json_integer((json_int_t)g_st.last_us));
    size_t ntimes = g_st.ntimes;
    uint64_t *times = xmalloc(ntimes * sizeof(*times));
    if (ntimes > 0)
        memcpy(times, g_st.times, ntimes * sizeof(*times));
    pthread_mutex_unlock(&g_st.lock);

    json_t *arr = json_array();
    for (size_t i = 0; i < ntimes; i++)
        json_array_append_new(arr, json_integer((json_int_t)times[i]));
    free(times);
    json_object_set_new(j, "request_times_us", arr);
    json_t *lg = json_array();
    pthread_mutex_lock(&g_st.lock);
    for (size_t i = 0; i < g_st.nlog; i++)
        json_array_append_new(lg, json_string(g_st.log[i]));
    pthread_mutex_unlock(&g_st.lock);
    json_object_set_new(j, "request_log", lg);
    return reply_json(rq, MHD_HTTP_OK, j);
}

static enum MHD_Result ep_reset(struct req *rq)
{
    pthread_mutex_lock(&g_st.lock);
    stats_reset_locked();
    pthread_mutex_unlock(&g_st.lock);
    return reply_json(rq, MHD_HTTP_OK, json_pack("{s:b}", "reset", 1));
}

/* ------------------------------------------------------------- dispatch */

static enum MHD_Result ep_page(struct req *rq, const char *url)
{
    struct tpage_answer a;
    struct MHD_Response *resp;

    tpage_answer(url, MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "If-None-Match"), &a);
    resp = body_response(a.ctype, a.body, a.len, MHD_RESPMEM_PERSISTENT);
    if (resp != NULL && a.etag != NULL) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, a.etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, a.cache_control);
    }
    return respond(rq, a.status, resp);
}

/* GET /digest: 200 "digest ok USER" for one of digest_users with its
 * password by digest authentication (MD5, realm DIGEST_REALM), else 401 and
 * a challenge (stale when the nonce expired or was issued for another
 * path: counted in digest_stale). Several users, so that tests can tell
 * whose credentials an answer was computed with; /digest/NAME too, whose
 * nonces are NAME's (MHD's nonce hashes the path), not another path's. */
#define DIGEST_REALM "quern-target"
static const char *const digest_users[][2] = {
    {"alice", "wonderland"},
    {"bob", "builder"},
    {"carol", "singer"},
};
static enum MHD_Result ep_digest(struct req *rq)
{
    char *user = MHD_digest_auth_get_username(rq->conn);
    const char *pw = NULL;
    char ok[64];
    int r = MHD_NO;
    struct MHD_Response *resp;
    enum MHD_Result ret;

    for (size_t i = 0; user != NULL && i < sizeof(digest_users) / sizeof(digest_users[0]); i++)
        if (strcmp(user, digest_users[i][0]) == 0)
            pw = digest_users[i][1];
    if (pw != NULL)
        r = MHD_digest_auth_check2(rq->conn, DIGEST_REALM, user, pw, 300, MHD_DIGEST_ALG_MD5);
    if (r == MHD_YES) {
        snprintf(ok, sizeof(ok), "digest ok %s\n", user);
        MHD_free(user);
        return respond(rq, MHD_HTTP_OK,
                       body_response("text/plain", ok, strlen(ok), MHD_RESPMEM_MUST_COPY));
    }
    if (user != NULL)
        MHD_free(user);
    resp = body_response("text/plain", "unauthorized\n", 13, MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    pthread_mutex_lock(&g_st.lock);
    g_st.by_status[MHD_HTTP_UNAUTHORIZED]++;
    g_st.digest_stale += r == MHD_INVALID_NONCE;
    pthread_mutex_unlock(&g_st.lock);
    ret = MHD_queue_auth_fail_response2(rq->conn, DIGEST_REALM, "quern-opaque", resp,
                                        r == MHD_INVALID_NONCE ? MHD_YES : MHD_NO,
                                        MHD_DIGEST_ALG_MD5);
    MHD_destroy_response(resp);
    return ret;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static enum endpoint classify(const char *url)
{
    static const struct {
        const char *path;
        enum endpoint ep;
    } exact[] = {
        {"/login", EP_LOGIN},
        {"/profile", EP_PROFILE},
        {"/api/profile", EP_API_PROFILE},
        {"/logout", EP_LOGOUT},
        {"/slow", EP_SLOW},
        {"/xml", EP_XML},
        {"/echo", EP_ECHO},
        {"/set-cookie", EP_SET_COOKIE},
        {"/redirect", EP_REDIRECT},
        {"/__stats", EP_STATS},
        {"/__reset", EP_RESET},
        {"/digest", EP_DIGEST},
    };
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        if (strcmp(url, exact[i].path) == 0)
            return exact[i].ep;
    }
    if (has_prefix(url, "/digest/"))
        return EP_DIGEST;
    if (has_prefix(url, "/static/"))
        return EP_STATIC;
    if (has_prefix(url, "/status/"))
        return EP_STATUS;
    if (has_prefix(url, "/bytes/"))
        return EP_BYTES;
    if (tpage_is(url))
        return EP_PAGE;
    return EP_NOT_FOUND;
}

/* The by_path key of a request (owned by the caller). */
static char *path_key(enum endpoint ep, const char *url)
{
    switch (ep) {
    case EP_STATIC:
        return printable_copy("/static/*", MAX_KEY_LEN);
    case EP_BYTES:
        return printable_copy("/bytes/*", MAX_KEY_LEN);
    case EP_DIGEST:
        return printable_copy("/digest", MAX_KEY_LEN);
    default:
        return printable_copy(url, MAX_KEY_LEN);
    }
}

/* Counts a request whose headers just arrived. */
static void count_request(struct req *rq, const char *url, const char *method)
{
    char *path = path_key(rq->ep, url);
    char *meth = printable_copy(method, 32);
    char *mp = xasprintf("%s %s", meth, path);
    const char *sid = session_cookie(rq->conn);
    char *sid_key =
        (sid != NULL && strlen(sid) <= MAX_SID_LEN) ? printable_copy(sid, MAX_SID_LEN) : NULL;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn_state *cs = ci ? ci->socket_context : NULL;
    const union MHD_ConnectionInfo *ai =
        MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char client[INET6_ADDRSTRLEN] = "?";

    /* Which source address each request came from (source-address tests). */
    if (ai != NULL && ai->client_addr != NULL) {
        if (ai->client_addr->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)ai->client_addr)->sin_addr, client,
                      sizeof(client));
        else if (ai->client_addr->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ai->client_addr)->sin6_addr, client,
                      sizeof(client));
    }

    pthread_mutex_lock(&g_st.lock);
    uint64_t now = now_epoch_us(); /* under the lock: times stay in order */
    g_st.requests++;
    if (g_st.first_us == 0)
        g_st.first_us = now;
    g_st.last_us = now;
    if (g_st.ntimes < MAX_TIMES) {
        if (g_st.times == NULL)
            g_st.times = xmalloc(MAX_TIMES * sizeof(*g_st.times));
        g_st.times[g_st.ntimes++] = now;
    }
    map_count_capped(&g_st.by_path, path);
    map_count_capped(&g_st.by_method_path, mp);
    if (g_st.nlog < MAX_LOG) {
        if (g_st.log == NULL)
            g_st.log = xmalloc(MAX_LOG * sizeof(*g_st.log));
        g_st.log[g_st.nlog++] = xstrndup(mp, strlen(mp));
    }
    map_count_capped(&g_st.by_client, client);
    if (cs != NULL && cs->counted_gen != g_st.gen) {
        cs->counted_gen = g_st.gen;
        g_st.connections++;
    }
    if (sid_key != NULL) {
        struct map_entry *e =
            map_find(&g_st.seen, sid_key, strlen(sid_key), g_st.seen.count < MAX_SEEN);
        if (e != NULL)
            e->n++;
        else
            g_st.seen_capped = true;
    }
    pthread_mutex_unlock(&g_st.lock);

    free(sid_key);
    free(mp);
    free(meth);
    free(path);
}

static struct req *req_new(struct MHD_Connection *conn, const char *url, const char *method)
{
    struct req *rq = xcalloc(1, sizeof(*rq));
    rq->conn = conn;
    rq->ep = classify(url);
    rq->heap_idx = HEAP_NONE;
    rq->counted = rq->ep != EP_STATS && rq->ep != EP_RESET;
    if (rq->ep == EP_LOGIN)
        rq->body_max = MAX_FORM_BODY;
    else if (rq->ep == EP_ECHO)
        rq->body_max = MAX_ECHO_BODY;
    if (rq->counted)
        count_request(rq, url, method);
    return rq;
}

static void req_append(struct req *rq, const char *data, size_t n)
{
    if (rq->body_max == 0 || rq->body_too_big)
        return;
    if (n > rq->body_max - rq->body_len) {
        rq->body_too_big = true;
        return;
    }
    rq->body = xrealloc(rq->body, rq->body_len + n + 1);
    memcpy(rq->body + rq->body_len, data, n);
    rq->body_len += n;
    rq->body[rq->body_len] = '\0';
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    struct req *rq = *req_cls;
    if (rq == NULL) {
        *req_cls = req_new(conn, url, method);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        req_append(rq, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    switch (rq->ep) {
    case EP_LOGIN:
        return ep_login(rq, method);
    case EP_PROFILE:
        return ep_profile(rq);
    case EP_API_PROFILE:
        return ep_api_profile(rq);
    case EP_LOGOUT:
        return ep_logout(rq);
    case EP_STATIC:
        return ep_static(rq, url);
    case EP_SLOW:
        return ep_slow(rq);
    case EP_STATUS:
        return ep_status(rq, url);
    case EP_BYTES:
        return ep_bytes(rq, url);
    case EP_XML:
        return respond(rq, MHD_HTTP_OK,
                       body_response("application/xml", XML_BODY, sizeof(XML_BODY) - 1,
                                     MHD_RESPMEM_PERSISTENT));
    case EP_ECHO:
        return ep_echo(rq, url, method);
    case EP_SET_COOKIE:
        return ep_set_cookie(rq);
    case EP_REDIRECT:
        return ep_redirect(rq);
    case EP_STATS:
        return ep_stats(rq);
    case EP_RESET:
        return ep_reset(rq);
    case EP_PAGE:
        return ep_page(rq, url);
    case EP_DIGEST:
        return ep_digest(rq);
    case EP_NOT_FOUND:
        break;
    }
    return reply_text(rq, MHD_HTTP_NOT_FOUND, "not found\n");
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct req *rq = *req_cls;
    if (rq == NULL)
        return;
    *req_cls = NULL;
    pthread_mutex_lock(&g_timer.lock);
    if (rq->heap_idx != HEAP_NONE)
        heap_remove(rq);
    if (rq->suspended) {
        rq->suspended = false;
        g_timer.suspended--;
    }
    pthread_mutex_unlock(&g_timer.lock);
    free(rq->body);
    free(rq);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = xcalloc(1, sizeof(struct conn_state));
        pthread_mutex_lock(&g_st.lock);
        g_st.accepted++;
        g_st.open++;
        pthread_mutex_unlock(&g_st.lock);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        pthread_mutex_lock(&g_st.lock);
        g_st.open--;
        pthread_mutex_unlock(&g_st.lock);
        free(*socket_context);
        *socket_context = NULL;
    }
}

/* ---------------------------------------------------------------- main */

struct options {
    const char *host; /* borrowed from argv */
    unsigned port;
    const char *port_file; /* borrowed from argv; NULL if none */
    unsigned threads;
    unsigned idle_timeout_s; /* idle keep-alive connections closed after this */
};

static void usage(FILE *f)
{
    fprintf(f, "usage: quern-target [--host 127.0.0.1] [--port 0] [--port-file FILE] "
               "[--threads N] [--idle-timeout S]\n");
}

static int parse_options(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'},
        {"port", required_argument, NULL, 'p'},
        {"port-file", required_argument, NULL, 'f'},
        {"threads", required_argument, NULL, 't'},
        {"idle-timeout", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, '?'},
        {NULL, 0, NULL, 0},
    };
    o->host = "127.0.0.1";
    o->port = 0;
    o->port_file = NULL;
    o->threads = 2;
    o->idle_timeout_s = CONNECTION_TIMEOUT_S;
    for (;;) {
        int c = getopt_long(argc, argv, "", longopts, NULL);
        if (c == -1)
            break;
        uint64_t v;
        switch (c) {
        case 'h':
            o->host = optarg;
            break;
        case 'f':
            o->port_file = optarg;
            break;
        case 'p':
            if (!parse_uint(optarg, 65535, &v)) {
                snprintf(err, errlen, "--port must be 0..65535");
                return -1;
            }
            o->port = (unsigned)v;
            break;
        case 't':
            if (!parse_uint(optarg, 256, &v) || v == 0) {
                snprintf(err, errlen, "--threads must be 1..256");
                return -1;
            }
            o->threads = (unsigned)v;
            break;
        case 'i':
            if (!parse_uint(optarg, 3600, &v) || v == 0) {
                snprintf(err, errlen, "--idle-timeout must be 1..3600 (seconds)");
                return -1;
            }
            o->idle_timeout_s = (unsigned)v;
            break;
        default:
            snprintf(err, errlen, "invalid arguments");
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument: %s", argv[optind]);
        return -1;
    }
    return 0;
}

/* Writes "PORT\n" to path via a temporary file and rename(2). */
static int write_port_file(const char *path, unsigned port, char *err, size_t errlen)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        goto err;
    }
    bool ok = fprintf(f, "%u\n", port) > 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        goto err;
    }
    free(tmp);
    return 0;
err:
    free(tmp);
    return -1;
}

/* Raises the open-file soft limit to the hard limit, for many connections. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void seed_rng(void)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = now_epoch_us() ^ ((uint64_t)getpid() << 32);
    g_st.rng = seed;
}

int main(int argc, char **argv)
{
    char err[512];
    struct options opt;
    if (parse_options(argc, argv, &opt, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern-target: %s\n", err);
        usage(stderr);
        return 2;
    }

    union {
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } addr;
    memset(&addr, 0, sizeof(addr));
    if (strcmp(opt.host, "localhost") == 0)
        opt.host = "127.0.0.1";
    bool v6 = strchr(opt.host, ':') != NULL;
    int ok = v6 ? inet_pton(AF_INET6, opt.host, &addr.v6.sin6_addr)
                : inet_pton(AF_INET, opt.host, &addr.v4.sin_addr);
    if (ok != 1) {
        fprintf(stderr,
                "quern-target: --host must be localhost or a numeric IPv4/IPv6 address: %s\n",
                opt.host);
        return 2;
    }
    if (v6) {
        addr.v6.sin6_family = AF_INET6;
        addr.v6.sin6_port = htons((uint16_t)opt.port);
    } else {
        addr.v4.sin_family = AF_INET;
        addr.v4.sin_port = htons((uint16_t)opt.port);
    }

    /* Signals are taken by sigwait() below; every thread created from here
     * on inherits the blocked mask. */
    signal(SIGPIPE, SIG_IGN);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    raise_nofile();
    seed_rng();
    if (timer_start(err, sizeof(err)) != 0) {
        fprintf(stderr, "quern-target: %s\n", err);
        return 1;
    }

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    if (v6)
        flags |= MHD_USE_IPv6;
    struct MHD_OptionItem mopts[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &addr},
        {MHD_OPTION_CONNECTION_LIMIT, CONNECTION_LIMIT, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)opt.idle_timeout_s, NULL},
        {MHD_OPTION_LISTEN_BACKLOG_SIZE, LISTEN_BACKLOG, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, NULL},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, NULL},
        /* /digest: room for the nonces of many VUs at once (MHD keeps 4). */
        {MHD_OPTION_NONCE_NC_SIZE, 4096, NULL},
        /* MHD warns about a pool of 1, so the pool option comes last and is
         * cut off (by MHD_OPTION_END) for a single thread. */
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)opt.threads, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    if (opt.threads == 1)
        mopts[7].option = MHD_OPTION_END;
    struct MHD_Daemon *d = MHD_start_daemon(flags, (uint16_t)opt.port, NULL, NULL, on_request, NULL,
                                            MHD_OPTION_ARRAY, mopts, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "quern-target: cannot listen on %s port %u\n", opt.host, opt.port);
        timer_stop();
        return 1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = di ? di->port : opt.port;

    int rc = 0;
    if (opt.port_file != NULL && write_port_file(opt.port_file, port, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern-target: %s\n", err);
        rc = 1;
    } else {
        printf("quern-target listening on http://%s%s%s:%u\n", v6 ? "[" : "", opt.host,
               v6 ? "]" : "", port);
        fflush(stdout);
        int sig = 0;
        sigwait(&sigs, &sig);
    }

    timer_stop();
    MHD_stop_daemon(d);
    stats_free();
    return rc;
}

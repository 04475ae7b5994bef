/* rcache — a VU's cache of the resources it fetched, as a browser's HTTP
 * cache decides what to ask again.
 *
 * What it is for: a page step with `resources` loads each resource once per
 * VU, then asks again only as the server's headers say. Nothing of a body is
 * kept: only what decides the next request, keyed by the absolute URL.
 *
 * Rules, from the answer to the last request of a URL:
 *   - `Cache-Control: no-store`: not kept (an entry there is removed);
 *   - `max-age=N` (N > 0, no `no-cache`), else an `Expires` date in the
 *     future: fresh for that long, not requested at all while fresh;
 *   - once stale, or with `no-cache` or `max-age=0`: requested again with
 *     `If-None-Match` (its ETag) and `If-Modified-Since` (its Last-Modified);
 *     a 304 keeps the entry and takes the new freshness;
 *   - an answer with neither freshness nor a validator is not kept (no
 *     heuristic freshness), nor is any status but 200, 203 and 304 (an
 *     error removes the entry).
 *
 * Bounds: at most RCACHE_MAX entries a VU (the least recently used one is
 * replaced), URLs up to RCACHE_URL_MAX bytes, validators up to
 * RCACHE_VAL_MAX (longer ones are not kept). Allocated on first use: a VU
 * that loads no resources pays one NULL pointer.
 *
 * Use:
 *     rcache *c = rcache_new();
 *     const char *etag, *lm;
 *     switch (rcache_plan(c, url, now_us, &etag, &lm)) { ... }
 *     rcache_update(c, url, status, raw_headers, len, now_us);
 *     rcache_free(c);
 * Internal to worker/. */
#ifndef QUERN_RCACHE_H
#define QUERN_RCACHE_H

#include <stddef.h>
#include <stdint.h>

/** Entries a VU keeps. */
#define RCACHE_MAX 512u
/** Longest URL kept. */
#define RCACHE_URL_MAX 2048u
/** Most bytes of what an entry's body names (rcache_set_deps). */
#define RCACHE_DEPS_MAX 8192u
/** Longest ETag or Last-Modified kept. */
#define RCACHE_VAL_MAX 256u

/** What to do about a URL. */
enum rcache_plan {
    RCACHE_MISS,  /**< not cached: a plain request */
    RCACHE_FRESH, /**< fresh: no request */
    RCACHE_COND   /**< stale or no-cache: a conditional request */
};

/** What the answer to a request headed, parsed from its raw headers. */
typedef struct rcache_hdrs {
    int no_store, no_cache;
    int64_t max_age_s;  /**< -1: none given */
    int64_t expires_in; /**< Expires minus Date (or now), seconds; -1: none */
    char etag[RCACHE_VAL_MAX];
    char last_modified[RCACHE_VAL_MAX];
} rcache_hdrs;

typedef struct rcache rcache;

/** An empty cache. */
rcache *rcache_new(void);
/** Frees c; NULL is fine. */
void rcache_free(rcache *c);
/** Entries held now. */
size_t rcache_count(const rcache *c);

/** Parses raw response headers (the last response's, "Name: value" lines)
 *  into h. now_s is the wall clock in seconds (for Expires without Date). */
void rcache_parse(const char *hdr, size_t len, int64_t now_s, rcache_hdrs *h);

/** What to do about url at now_us (monotonic). For RCACHE_COND, *etag and
 *  *last_modified (each may be set to NULL when absent; borrowed until the
 *  next call on c) are the validators to send. */
enum rcache_plan rcache_plan(rcache *c, const char *url, int64_t now_us, const char **etag,
                             const char **last_modified);
/** Keeps with url's entry (if any) what its body names, e.g. a
 *  stylesheet's url()s, newline-separated (cut to RCACHE_DEPS_MAX bytes at
 *  a newline): a fresh or revalidated stylesheet still loads them. */
void rcache_set_deps(rcache *c, const char *url, const char *deps, size_t len);
/** What rcache_set_deps kept for url (borrowed until the next update of c),
 *  NULL when nothing. */
const char *rcache_deps(rcache *c, const char *url);
/** Records the answer to a request of url: status (0: no answer) and its
 *  raw headers, received at now_us. */
void rcache_update(rcache *c, const char *url, int status, const char *hdr, size_t len,
                   int64_t now_us);

#endif

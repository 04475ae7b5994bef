/* pageres — a page step's embedded resources, fetched as a browser would
 * before the step's sample ends, and the VU's cache of them.
 *
 * What it is for: with `resources` (a request option or a scenario
 * default), an HTML answer (Content-Type text/html or
 * application/xhtml+xml, status 2xx) is parsed (embed.h) and what it embeds
 * is fetched on the VU's own connections (its share), at most PAGERES_PER_HOST
 * at once per origin as browsers do (with HTTP/2, in streams of one
 * connection), stylesheets scanned once fetched. The Lua coroutine resumes
 * when the last resource is in: the step's latency is the page's, from the
 * main request's start to the last resource's end; the resources' bytes
 * and new connections are the step's, and the first resource that fails (a
 * transport error or a status of 400 or more) is the step's technical error,
 * "resource URL: reason", unless the sample already had one.
 *
 * The cache (rcache.h) is the VU's, kept across its runs: a fresh resource
 * is not requested, a stale one is revalidated (a 304 counts as fetched);
 * `cache = false` bypasses it. Resources carry quern's User-Agent, the VU's
 * cookies and the request's connection options (tls, http2, resolve, auth,
 * compressed, connect_timeout, timeout), not the page request's headers;
 * redirects are followed (at most 5).
 *
 * Each requested resource is a sub-result of the step's JTL line (reqlog.h),
 * kept here until the VU's next page;
 * `--trace` shows the page request, not its resources.
 *
 * Use (from lhttp.c and vu.c, on the loop):
 *     pageres_want(v, req_ro, scen_ro, timeout_ms);  // before the main request
 *     if (pageres_start(v)) return;                  // main request done: fetching
 *     pageres_plug.xfer_done(v, easy, rc)            // from the engine, per transfer
 *     pageres_abort(v->page); pageres_free(v->page);
 * Internal to worker/. */
#ifndef QUERN_PAGERES_H
#define QUERN_PAGERES_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/wire/embed.h"
#include "worker/plugs/plug.h"
#include "worker/wire/rcache.h"
#include "worker/wire/reqopt.h"

struct vu;
struct xh;

/** Resources of one origin fetched at once (a batch's requests too, batch.h). */
#define PAGERES_PER_HOST 6

/** Bytes of url up to its path ("http://h:1" of "http://h:1/a?b"): the
 *  per-origin limit's key, compared without case. */
size_t pageres_origin_len(const char *url);

/** How a resource was served. */
enum pageres_how {
    PAGERES_QUEUED,   /**< not started */
    PAGERES_INFLIGHT, /**< requested, no answer yet */
    PAGERES_FETCHED,  /**< answered 2xx/3xx */
    PAGERES_NOTMOD,   /**< revalidated: 304 */
    PAGERES_CACHED,   /**< fresh in the cache: not requested */
    PAGERES_FAILED    /**< transport error or status >= 400 */
};

/** One resource of the current page. */
typedef struct pageres_item {
    char *url;               /**< owned: absolute URL */
    uint8_t css;             /**< a stylesheet: its url()s are loaded too */
    uint8_t how;             /**< enum pageres_how */
    size_t origin_len;       /**< bytes of url up to its path: the per-host limit's key */
    struct xh *x;            /**< borrowed from the engine's pool while in flight */
    struct curl_slist *hdrs; /**< owned while in flight: conditional headers */
    int status, curl_rc;     /**< the answer */
    int64_t start_us;        /**< monotonic, when requested */
    int64_t elapsed_us, ttfb_us, connect_us;
    uint64_t bytes_in, bytes_out;
} pageres_item;

/** Counts of the last page (also the Lua response's `resources`). */
typedef struct pageres_counts {
    uint32_t fetched, revalidated, cached, failed;
} pageres_counts;

/** A VU's page state: what the next response should load, the resources
 *  of the last page, the cache. Allocated the first time a request asks
 *  for resources. */
typedef struct pageres {
    struct vu *v;             /**< borrowed: its VU */
    int want;                 /**< the request in flight asked for resources */
    int asked;                /**< the last request asked: counts and elapsed_us are its */
    int64_t elapsed_us;       /**< the last page's time, main request included */
    int active;               /**< resources are being fetched */
    int use_cache;            /**< the cache is consulted and filled */
    const reqopt *req_ro;     /**< borrowed (on the VU's Lua stack): request's options */
    const reqopt *scen_ro;    /**< borrowed: the scenario's defaults */
    const embed_filter *filt; /**< borrowed from one of them, NULL: same origin */
    long timeout_ms;          /**< each resource's timeout */
    uint32_t seq;             /**< the sample the resources belong to, 0: untimed */
    pageres_item *r;          /**< owned: n resources, in the order found */
    size_t n, cap;
    unsigned inflight;
    pageres_counts counts;
    rcache *cache;                /**< owned: the VU's cache, NULL until used */
    char origin[512];             /**< the page's origin (embed_origin; a host is at most 253) */
    char base[EMBED_URL_MAX + 1]; /**< the page's URL (after redirects) */
} pageres;

/** Notes whether the VU's next request loads resources, from its levels
 *  (each may be NULL; both must live until the page is done). */
void pageres_want(struct vu *v, const reqopt *req, const reqopt *scen, long timeout_ms);
/** The VU's main transfer is over (v->x filled): when it asked for
 *  resources and is an HTML page that embeds some, starts fetching them and
 *  returns 1 (vu_xfer_resume is called once they are in); else 0. */
int pageres_start(struct vu *v);
/** The engine's plug (worker/plugs/plug.h): a transfer finished, one of the
 *  resources of v's page (handled, 1) or not (0). */
extern const plug pageres_plug;
/** Removes whatever is in flight (the grace is over); NULL is fine. */
void pageres_abort(pageres *p);
/** Frees p (aborting it) and its cache; NULL is fine. */
void pageres_free(pageres *p);

#endif

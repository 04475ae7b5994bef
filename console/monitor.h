/* monitor — `quern run --monitor URL`: the system under test's resources,
 * scraped once a second from Prometheus exposition endpoints while the run
 * lasts (Debian's prometheus-node-exporter on the target hosts).
 *
 * What it is for: the console's loop must never wait on a host that is
 * slow or gone, so the scrapes run on a thread of their own, every endpoint
 * at once on one libcurl multi handle, each scrape bounded by
 * MONITOR_TIMEOUT_MS and its body by MONITOR_BODY_MAX. Each answer is read
 * by console/monitor_expo.h and turned into the host's figures by console/monitor_host.h;
 * the thread queues them (at most MONITOR_QUEUE) and the loop takes them
 * with monitor_drain, which it calls from its tick: the database is written
 * from the loop only. The first failure of an endpoint (unreachable, an
 * HTTP status but 200, a malformed text) is queued once as a problem, with
 * its URL (credentials redacted) and why; the endpoint is still scraped,
 * its figures resume if it recovers, and the run goes on.
 *
 * Usage:
 *     if (monitor_check_url(url, err, sizeof(err)) ...       // at option parsing
 *     monitor *m = monitor_start(urls, n, sels, nsel, err, sizeof(err));
 *     ... from the loop: monitor_drain(m, on_sample, ud);
 *     monitor_stop(m);                                       // joins the thread
 */
#ifndef QUERN_MONITOR_H
#define QUERN_MONITOR_H

#include <stddef.h>
#include <stdint.h>

#include "console/monitor_expo.h"

/** Most --monitor endpoints. */
#define MONITOR_URLS_MAX 32
/** Longest --monitor URL. */
#define MONITOR_URL_MAX 1024
/** A scrape gives up after this (the next one starts on the next second). */
#define MONITOR_TIMEOUT_MS 800
/** Largest answer read; a longer one is a problem (node exporter's is ~100 KB). */
#define MONITOR_BODY_MAX (4u << 20)
/** Figures waiting for the loop at most; more are dropped, and counted. */
#define MONITOR_QUEUE 256

/** A running monitor; opaque. */
typedef struct monitor monitor;

/** What monitor_drain hands the loop: one scrape's figures of one host,
 *  or an endpoint's first problem. Borrowed during the call. */
typedef struct monitor_item {
    size_t host;     /**< index of the endpoint, as given */
    int64_t wall_us; /**< when the scrape began (epoch microseconds) */
    const double *
        v; /**< borrowed: MONITOR_HOST_FIXED + nsel figures (monitor_host.h); NULL with a problem */
    size_t nv;           /**< entries in v */
    const char *problem; /**< borrowed: why the endpoint failed, NULL with figures */
} monitor_item;

/** Called by monitor_drain for each item. */
typedef void (*monitor_fn)(void *ud, const monitor_item *it);

/** Checks a --monitor URL: http:// or https://, a host, at most
 *  MONITOR_URL_MAX bytes. 0, or -1 with err. */
int monitor_check_url(const char *url, char *err, size_t errlen);

/** The host:port a URL names (its Prometheus "instance"), into buf. */
const char *monitor_host_of(const char *url, char *buf, size_t len);

/** Starts scraping the n urls (borrowed, must outlive m) once a second,
 *  summing the nsel selectors (borrowed) too. NULL with err. */
monitor *monitor_start(const char *const *urls, size_t n, const monitor_expo_sel *sels, size_t nsel,
                       char *err, size_t errlen);

/** Hands every queued item to fn, in order, from the calling thread (the
 *  loop's). m may be NULL. Returns how many items were dropped since the
 *  last call because the queue was full. */
size_t monitor_drain(monitor *m, monitor_fn fn, void *ud);

/** Stops the thread (at once: an ongoing scrape is cut), frees m; what is
 *  still queued is lost, so drain first. NULL is fine. */
void monitor_stop(monitor *m);

#endif

/* metrics — `quern run --metrics HOST:PORT`: the run's totals served to
 * Prometheus at GET /metrics while the run lasts.
 *
 * What it is for: Prometheus scrapes the console; its histogram_quantile
 * over quern_latency_seconds gives quantiles from the merged HDR data
 * (console/prom.h says which series). libmicrohttpd serves on a thread of
 * its own: the console's loop never waits on a client. The loop renders the
 * text once per merged second (metrics_update, after agg_add) and swaps it
 * in under a mutex; the HTTP thread only copies the current text out.
 *
 * Access: a loopback address serves anyone on this host. Any other address
 * needs --token-file (a usage error without it, metrics_check), and then
 * every scrape must send "Authorization: Bearer TOKEN", compared in constant
 * time (401 otherwise). The token is never logged.
 *
 * Bounds: those of console/serve/hsrv.h (connections at once and per address,
 * idle timeout, memory per connection); a request is answered from a copy
 * of a buffer, never waits for the loop. Other paths
 * get 404, other methods than GET and HEAD 405.
 *
 * After the run, metrics_stop keeps serving the final text for the linger
 * (--metrics-linger, default OPTS_METRICS_LINGER_US) so that a last scrape sees
 * the final counts, then stops; SIGINT or SIGTERM ends the linger early.
 *
 * Usage:
 *     if (metrics_check(&o) != 0) return 2;         // after opts_parse
 *     metrics *m = metrics_start(&o, err, sizeof(err));  // NULL: err
 *     ... each second: metrics_update(m, &agg, ids, names, th, nth);
 *     metrics_stop(m, o.metrics_linger_us); */
#ifndef QUERN_METRICS_H
#define QUERN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "console/agg.h"
#include "console/opts.h"
#include "console/thresh.h"

/** A running endpoint; opaque. */
typedef struct metrics metrics;

/** Checks o->metrics: HOST:PORT, and loopback unless --token-file was
 *  given. 0, or -1 after one usage line on stderr naming --metrics. */
int metrics_check(const run_opts *o);

/** Reads the token (a non-loopback address), binds o->metrics, writes
 *  --metrics-port-file, logs the address and starts serving an empty run.
 *  Returns the endpoint, or NULL with a message in err. */
metrics *metrics_start(const run_opts *o, char *err, size_t errlen);

/** Renders the totals a (a->nsteps steps, full names step_names; the ids
 *  and names scope the nth thresholds th, evaluated on a as
 *  --abort-on-fail does) and makes it what scrapes get. Loop thread only.
 *  m may be NULL (no --metrics): does nothing. */
void metrics_update(metrics *m, const agg *a, const char *const *step_ids,
                    const char *const *step_names, thresh *const *th, size_t nth);

/** What quern ctl left (console/steering.h): the VUs asked for and whether
 *  the load is paused, shown from the next metrics_update on. Loop thread;
 *  m may be NULL. */
void metrics_steered(metrics *m, uint32_t vus_max, int paused);

/** Keeps serving for linger_us (0: not at all; a SIGINT or SIGTERM ends it
 *  early), then stops the server and frees m. NULL is fine. */
void metrics_stop(metrics *m, int64_t linger_us);

#endif

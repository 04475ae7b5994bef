/* stats — what is counted for one step during one interval.
 *
 * The worker fills one step_stats per step per second; agents and the console
 * merge them by adding (histograms add bucket by bucket), so no percentile is
 * ever averaged. Recording a sample is a few increments and one histogram
 * bucket increment.
 *
 * Two latencies: hist is the response time, from the sample's intended start
 * (a run that started late, behind its arrival or its pacing slot, counts the
 * wait); svc is the service time, from its actual start. While no sample
 * was late the two are the same histogram, so svc is not kept (svc_on 0,
 * stats_service returns hist): recording, merging and sending cost one
 * histogram until a late sample comes. */
#ifndef QUERN_STATS_H
#define QUERN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/errkinds.h"
#include "common/hist.h"
#include "common/slowest.h"

#define STATS_SAMPLE_MAX 200 /* bytes kept of an error's sample message */

/** Counters of one step over one interval (or over a whole run, merged). */
typedef struct step_stats {
    uint64_t count;     /**< completed samples, successes and errors */
    uint64_t err_tech;  /**< technical errors: transport, timeout, status not accepted */
    uint64_t err_func;  /**< functional errors: failed checks, script errors */
    uint64_t bytes_in;  /**< bytes received (headers and bodies) */
    uint64_t bytes_out; /**< bytes sent (request line, headers, bodies) */
    uint64_t sum_dns;   /**< sums of the timing phases, microseconds */
    uint64_t sum_connect;
    uint64_t sum_tls;
    uint64_t sum_ttfb;
    uint64_t new_conns; /**< connections opened for these samples */
    uint64_t requests;  /**< HTTP requests sent for these samples: each redirect, digest
                             round trip and resource (304s too); 1 for a transfer that got no
                             response */
    hist *hist;         /**< owned: response time of each sample, microseconds */
    hist *svc;          /**< owned, NULL until needed: service times (svc_on) */
    uint8_t svc_on;     /**< svc kept apart; when 0 service times are hist's */
    char sample_tech[STATS_SAMPLE_MAX]; /**< first technical error message seen, "" if none */
    char sample_func[STATS_SAMPLE_MAX]; /**< first functional error message seen */
    char trace_tech[SLOWEST_TRACE_LEN]; /**< trace id of sample_tech's request, "" if none */
    char trace_func[SLOWEST_TRACE_LEN]; /**< trace id of sample_func's request, "" if none */
    slowest *slow;   /**< owned, NULL until a sample is offered: the slowest samples
                          (common/slowest.h); stats_reset empties it */
    errkinds *kinds; /**< owned, NULL until the first error: the errors by kind
                          (common/errkinds.h); stats_reset empties it */

    /** WebSocket messages sent and received (worker/plugs/websocket.h), and their payload bytes */
    uint64_t ws_sent, ws_recv, ws_bytes_sent, ws_bytes_recv;
} step_stats;

/** Initialises s empty (allocates its histogram). */
void stats_init(step_stats *s);
/** Releases what s owns; s may then be initialised again. */
void stats_free(step_stats *s);
/** Empties s, keeping its histogram allocation. */
void stats_reset(step_stats *s);
/** dst += src; the first non-empty sample messages are kept; the slowest
 *  samples merge (dst's heap, made on first use, keeps SLOWEST_MAX); the
 *  kinds merge by key (dst's table made on first use). */
void stats_merge(step_stats *dst, const step_stats *src);
/** Records one sample's latencies (microseconds): the response time, from
 *  its intended start, and the service time, from its actual start. */
void stats_record(step_stats *s, uint64_t response_us, uint64_t service_us);
/** Starts keeping the service times apart: svc becomes a copy of hist (the
 *  samples so far, all on time). Nothing when already on. */
void stats_service_on(step_stats *s);
/** The service-time histogram: svc when kept apart, else hist. */
const hist *stats_service(const step_stats *s);
/** Keeps msg as the sample for its kind if none is kept yet. */
void stats_note_error(step_stats *s, int technical, const char *msg);
/** stats_note_error, keeping trace (a trace id, or NULL or "" for none)
 *  with the message. */
void stats_note_error_trace(step_stats *s, int technical, const char *msg, const char *trace);
/** Counts one error by kind (common/errkinds.h errkinds_note), making s's
 *  table on first use: code the HTTP status, the libcurl code or 0; ex the
 *  example (NULL none). The counters (err_tech, err_func) are the caller's. */
void stats_note_kind(step_stats *s, int technical, int32_t code, const char *msg, int64_t now_ms,
                     const errkind_example *ex);
/** Offers x to s's slowest samples, a heap of cap entries made on first use. */
void stats_offer_slow(step_stats *s, size_t cap, const slowest_entry *x);

/** n initialised step_stats (at least one allocated, so n may be 0);
 *  owned by the caller, released with stats_array_free. */
step_stats *stats_array_new(size_t n);
/** Releases the n step_stats of a and a itself; a may be NULL. */
void stats_array_free(step_stats *a, size_t n);

#endif

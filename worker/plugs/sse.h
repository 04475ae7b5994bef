/* sse — one server-sent events stream of a VU, on the worker's loop.
 *
 * The stream is an HTTP GET on an easy handle of its own in the engine's
 * multi handle, for as long as the stream lasts: libcurl does the
 * connection and the VU's connection options (TLS, proxy, source address,
 * --resolve), its header callback sees the answer's status and content
 * type, and its write callback feeds the body to the parser (sseparse.h).
 * The stream's connection is its own, closed with it (FORBID_REUSE); the
 * VU's cookies are sent, those the answer sets are not kept.
 *
 * Events go to the stream's inbox (inbox.h: SSE_QUEUE_MAX events,
 * SSE_QUEUE_BYTES bytes) until the script takes them; past the bound, or
 * past a parser's bound, the stream is closed and a technical error is
 * counted on its step. libcurl's callbacks never resume the VU: they arm
 * the inbox's zero timer (inbox_wake_soon).
 *
 * Ownership: a stream belongs to its VU's list (vu.sse) until the VU's
 * phase ends, when it is closed and freed. The Lua object only points at
 * it (slot).
 *
 * Use: sse_open(), then the VU yields (VU_SSEOPEN) and is resumed when the
 * state leaves SSE_CONNECTING; sse_pop, sse_close; the VU waits for an
 * event with VU_SSENEXT on the stream's inbox. Internal to worker/. */
#ifndef QUERN_SSE_H
#define QUERN_SSE_H

#include <curl/curl.h>
#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/plugs/inbox.h"
#include "worker/plugs/plug.h"
#include "worker/wire/sseparse.h"
#include "worker/engine/vu.h"

struct engine;
struct vu;
struct reqopt;

#define SSE_QUEUE_MAX 1024          /* events queued for the script at most */
#define SSE_QUEUE_BYTES (16u << 20) /* their bytes (id, type, data) at most */
#define SSE_ERR_MAX 160             /* bytes of an error message */

enum sse_state {
    SSE_CONNECTING, /**< the request is out, the answer's headers awaited */
    SSE_OPEN,       /**< a 2xx text/event-stream: events flow */
    SSE_CLOSED      /**< the transfer is over; err says why if it failed */
};

/** An event received and not yet taken by the script. */
typedef struct sse_event {
    inbox_msg link; /**< first: its place in the inbox */
    int64_t retry;  /**< ms, -1 none */
    size_t id_len, event_len, data_len;
    char text[]; /**< id, type, then data, each as long as said, no NUL */
} sse_event;

/** One stream. */
typedef struct sse {
    struct engine *eng;         /**< borrowed */
    struct vu *owner;           /**< borrowed: its VU */
    struct sse **slot;          /**< borrowed: the Lua object's pointer to it, or NULL */
    struct sse *next;           /**< borrowed: the next in its VU's list */
    int step;                   /**< the step its events count against, -1 none */
    uint8_t state;              /**< enum sse_state */
    uint8_t in_multi;           /**< easy is in the engine's multi handle */
    uint8_t opened;             /**< the answer was accepted (it may have closed since) */
    uint8_t failed;             /**< closed by quern on a bound (the error was counted) */
    uint8_t auth;               /**< credentials are set: a 401 or 407 is a challenge */
    uint8_t ctype_ok;           /**< the answer's Content-Type is text/event-stream */
    CURL *easy;                 /**< owned */
    struct curl_slist *headers; /**< owned: the request's header lines */
    sseparse parser;
    inbox in;                     /**< the events not yet taken (sse_event), and the VU's wait */
    char *taken_id;               /**< owned: the id of the last event taken, NULL none */
    size_t taken_len;             /**< its length */
    int64_t start_us;             /**< monotonic start of the request */
    xfer_figures fig;             /**< for its sample: elapsed_us and ttfb_us to the answer's
                                       headers (once open or failed); bytes: the answer's
                                       headers, the request */
    int status;                   /**< the answer's HTTP status, 0 none */
    char err[SSE_ERR_MAX];        /**< why it failed or closed, "" none */
    char errbuf[CURL_ERROR_SIZE]; /**< libcurl's message */
} sse;

/** What sse_open needs beside the VU. */
typedef struct sse_cfg {
    const char *url;                 /**< borrowed: http:// or https:// */
    struct curl_slist *headers;      /**< owned by the stream from the call: header lines */
    const struct reqopt *req, *scen; /**< borrowed: the connection option levels (reqopt.h) */
    int step;                        /**< the step its events count against, -1 none */
} sse_cfg;

/** Starts the request of a new stream of v, linked in v's list; NULL with
 *  the reason in err (libcurl refused the handle). */
sse *sse_open(struct vu *v, sse_cfg *cfg, char *err, size_t errlen);
/** The oldest queued event (owned by the caller, xfree it), or NULL; its
 *  id becomes the stream's last id. */
sse_event *sse_pop(sse *c);
/** The stream's last event ID as the script sees it: the last taken
 *  event's while others wait in the queue, else the parser's (which an id
 *  in a block without data moves too). Sets *len. */
const char *sse_last_id(const sse *c, size_t *len);
/** Ends the transfer (the server sees the connection close); the queue
 *  can still be read. */
void sse_close(sse *c);
/** The engine's plug (worker/plugs/plug.h): a stream's transfer ended; at a
 *  phase's end its streams are closed and freed, the Lua objects' pointers
 *  cleared; at the engine's end, every one freed at once. */
extern const plug sse_plug;

#endif

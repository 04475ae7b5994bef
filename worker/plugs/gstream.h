/* gstream — one gRPC stream of a VU, on the worker's loop: a server
 * stream, a client stream or a bidirectional one.
 *
 * The call is an HTTP/2 POST on an easy handle of its own in the engine's
 * multi handle, for as long as the stream lasts (as sse.h does): the VU's
 * script runs while messages come. The header callback keeps the reply's
 * headers and trailers (at most GSTREAM_HDR_MAX bytes), the write callback
 * cuts the body into messages (grpc.h framing) and queues them, undecoded,
 * until the script takes them. The stream's connection is its own (no
 * other transfer is multiplexed on it), closed with it: a stream ended
 * early is cancelled (the server sees RST_STREAM and the connection close).
 *
 * The queue is the stream's inbox (inbox.h: GSTREAM_QUEUE_MAX messages,
 * GSTREAM_QUEUE_BYTES bytes): past it, the stream is cancelled and ends as
 * RESOURCE_EXHAUSTED, a technical error of its step; what was queued can
 * still be read. libcurl's callbacks never resume the VU: they arm the
 * inbox's zero timer (inbox_wake_soon).
 *
 * A stream that sends (the method streams from the client) has a body of
 * unknown length: libcurl's read callback hands it the frames gstream_send
 * queued (at most GSTREAM_SEND_MAX frames, GSTREAM_SEND_BYTES bytes), and
 * pauses the upload (CURL_READFUNC_PAUSE) when none is queued;
 * gstream_send and gstream_close_send resume it (curl_easy_pause, from the
 * loop). libcurl 7.88 does not end a transfer whose upload is paused when
 * the server ends the call: grpc-status seen, a zero timer resumes the
 * upload, whose end then ends the transfer.
 *
 * Ownership: a stream belongs to its VU's list (vu.gstream) until the VU's
 * phase ends, when it is cancelled and freed. The Lua object only points
 * at it (slot).
 *
 * Use: gstream_open(), then the VU yields (VU_GRPCOPEN) and is resumed
 * when the state leaves GSTREAM_CONNECTING (the reply's headers; for a
 * stream that sends, its request is out); gstream_send,
 * gstream_close_send; gstream_pop, gstream_cancel; the VU waits for a
 * message with VU_GRPCNEXT on the stream's inbox; gstream_end classes the
 * stream's status once it ended. Internal to worker/. */
#ifndef QUERN_GSTREAM_H
#define QUERN_GSTREAM_H

#include <curl/curl.h>
#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/wire/grpc.h"
#include "worker/plugs/inbox.h"
#include "worker/plugs/plug.h"
#include "worker/engine/vu.h"

struct engine;
struct vu;
struct reqopt;

#define GSTREAM_QUEUE_MAX 1024          /* messages queued for the script at most */
#define GSTREAM_QUEUE_BYTES (16u << 20) /* their bytes at most */
#define GSTREAM_HDR_MAX 16384           /* bytes of the reply's headers and trailers kept */
#define GSTREAM_ERR_MAX 160             /* bytes of an error message */
#define GSTREAM_SEND_MAX 1024           /* frames queued to send at most */
#define GSTREAM_SEND_BYTES (16u << 20)  /* their bytes at most */

enum gstream_state {
    GSTREAM_CONNECTING, /**< the request is out, the reply's headers awaited */
    GSTREAM_OPEN,       /**< headers in (or, sending, the request out): messages flow */
    GSTREAM_CLOSED      /**< the call is over: status says how */
};

/** A message received and not yet taken by the script. */
typedef struct gstream_msg {
    inbox_msg link;     /**< first: its place in the inbox */
    uint8_t compressed; /**< its frame's flag: gzip (the reply's grpc-encoding), to inflate */
    size_t len;
    uint8_t data[]; /**< the serialized message, without its 5-byte prefix */
} gstream_msg;

/** A frame queued to send. */
typedef struct gstream_out {
    struct gstream_out *next; /**< owned: the next queued, NULL for the last */
    size_t len;               /**< its bytes, the 5-byte prefix with them */
    size_t at;                /**< those handed to libcurl so far */
    uint8_t data[];           /**< the prefix and the serialized message */
} gstream_out;

/** One stream. */
typedef struct gstream {
    struct engine *eng;         /**< borrowed */
    struct vu *owner;           /**< borrowed: its VU */
    struct gstream **slot;      /**< borrowed: the Lua object's pointer to it, or NULL */
    struct gstream *next;       /**< borrowed: the next in its VU's list */
    int step;                   /**< the step it counts against, -1 none */
    uint32_t seq;               /**< its sample's seq (vu.h sample), to find it still pending */
    uint8_t state;              /**< enum gstream_state */
    uint8_t in_multi;           /**< easy is in the engine's multi handle */
    uint8_t ended;              /**< gstream_end classed it */
    uint8_t local;              /**< quern set status and err itself (a bound, a cancel) */
    uint8_t from_server;        /**< status is the server's grpc-status */
    uint8_t got_hdr;            /**< the reply's headers are in */
    uint8_t sends;              /**< the client streams: the body is gstream_send's frames */
    uint8_t half_closed;        /**< gstream_close_send: the body ends once the queue is out */
    uint8_t paused;             /**< read_cb paused the upload (nothing was queued) */
    uint8_t server_done;        /**< grpc-status came: the server ended the call */
    int8_t encoding;            /**< the reply's grpc-encoding (GRPC_ENC_*, -1 another) */
    uint64_t accept;            /**< statuses that are no error, a bit each (bit 0: OK) */
    CURL *easy;                 /**< owned */
    struct curl_slist *headers; /**< owned: the request's header lines */
    char *body;                 /**< owned: the request (prefix and message) */
    size_t body_len;
    uint8_t pre[5];            /**< the 5-byte prefix of the frame being received */
    size_t pre_len;            /**< its bytes in so far */
    gstream_msg *cur;          /**< owned: the message being received (its prefix read), or NULL */
    size_t cur_len;            /**< its bytes in so far */
    inbox in;                  /**< the messages not yet taken (gstream_msg), and the VU's wait */
    gstream_out *out;          /**< owned: the frames queued to send, oldest first, or NULL */
    gstream_out **out_tail;    /**< borrowed: the link the next frame fills */
    size_t out_count;          /**< frames queued */
    size_t out_bytes;          /**< their bytes */
    uint64_t sent;             /**< messages handed to libcurl */
    struct ev_loop *loop;      /**< borrowed: the engine's, NULL in a unit test */
    ev_timer kick;             /**< resumes a paused upload from the loop once the server ended */
    uint64_t received;         /**< messages received (queued or not) */
    char *hdr;                 /**< owned: header and trailer lines, GSTREAM_HDR_MAX at most */
    size_t hdr_len;            /**< their bytes */
    size_t hdr_end;            /**< where the headers end and the trailers start */
    int64_t start_us;          /**< monotonic start of the request */
    xfer_figures fig;          /**< for its sample: elapsed_us and ttfb_us to the reply's headers
                                    (or the end, without headers); bytes_out: the request's headers
                                    and body */
    int http_status;           /**< the reply's HTTP status, 0 none */
    int status;                /**< the gRPC status once closed */
    char err[GSTREAM_ERR_MAX]; /**< grpc-message or why it failed, "" none */
    char errbuf[CURL_ERROR_SIZE]; /**< libcurl's message */
} gstream;

/** What gstream_open needs beside the VU. */
typedef struct gstream_cfg {
    const char *url;                 /**< borrowed: http://host:port/pkg.Service/Method */
    struct curl_slist *headers;      /**< owned by the stream from the call */
    const char *body;                /**< borrowed: copied; unused when sends */
    size_t body_len;                 /**< its bytes */
    long timeout_ms;                 /**< libcurl's bound on the whole call, 0 none */
    const struct reqopt *req, *scen; /**< borrowed: the connection option levels (reqopt.h) */
    int step;                        /**< the step it counts against, -1 none */
    uint32_t seq;                    /**< the pending sample's seq */
    int sends;                       /**< 1: the client streams (gstream_send) */
} gstream_cfg;

/** Starts the call of a new stream of v, linked in v's list; NULL with the
 *  reason in err (libcurl refused the handle). */
gstream *gstream_open(struct vu *v, gstream_cfg *cfg, char *err, size_t errlen);
/** Queues a frame to send: its 5-byte prefix pre and the n bytes of msg
 *  (copied). 1 queued; 0 the call is over or the server ended it (nothing
 *  sent: the status says why); -1 past GSTREAM_SEND_MAX or
 *  GSTREAM_SEND_BYTES, err set. From the loop, never from libcurl. */
int gstream_send(gstream *c, const uint8_t pre[5], const uint8_t *msg, size_t n, char *err,
                 size_t errlen);
/** No more frames: the body ends (END_STREAM) once the queue is out. */
void gstream_close_send(gstream *c);
/** The oldest queued message (owned by the caller, xfree it), or NULL. */
gstream_msg *gstream_pop(gstream *c);
/** Ends the call from the client side with status (CANCELLED: the script
 *  or the VU's end; DEADLINE_EXCEEDED: a wait ran out) and why; the queue
 *  can still be read. Nothing when it is closed already. */
void gstream_cancel(gstream *c, int status, const char *why);
/** Classes the closed stream once: a status not in accept is a technical
 *  error of its step, on its sample when that is still pending. */
void gstream_end(gstream *c);
/** The engine's plug (worker/plugs/plug.h): a stream's call ended; at a phase's
 *  end its streams are cancelled and freed, the Lua objects' pointers
 *  cleared; at the engine's end, every one freed at once. */
extern const plug gstream_plug;

#endif

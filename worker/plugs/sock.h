/* sock — one TCP connection of a VU (step:tcp), on the worker's loop.
 *
 * libcurl connects (DNS or --resolve, source address, connect timeout, and
 * for TLS the handshake with the VU's trust and client-certificate options:
 * CURLOPT_CONNECT_ONLY in the engine's multi handle), so a socket opens as
 * an HTTP request's connection does. Then:
 *   - plain TCP: the socket is taken from libcurl (its close callback keeps
 *     it open) and the handle freed: an idle connection costs this struct,
 *     no buffer and no libcurl state (docs/protocols.md measures it);
 *   - TLS: the handle stays, and bytes go through curl_easy_send and
 *     curl_easy_recv, which go through libcurl's TLS, as a WebSocket does.
 * An ev_io of its own watches the socket only while the VU waits on it.
 *
 * Reading is on demand: bytes are read only while the script waits for a
 * piece (rdframe.h), into a buffer of at most SOCK_IN_MAX bytes, which is
 * freed once empty; what the script does not ask for stays in the kernel,
 * so a server that sends more than is read meets TCP's own flow control.
 * A piece that cannot fit in SOCK_IN_MAX bytes is an error of the read.
 * Sending writes what the kernel takes; the VU waits for the rest (its
 * bytes are the script's string, kept on the VU's stack meanwhile).
 *
 * A heartbeat (sock_heartbeat) sends a few bytes of the script's whenever
 * nothing was sent for a while, from a timer on the loop, so it goes while
 * the VU thinks, sleeps or waits on anything else; always between two
 * sends, never inside one (worker/wire/heartbeat.h).
 *
 * Counting: the connect is the step's sample (xfer_figures, like a
 * request's); the bytes of later exchanges count against the sample of the
 * step:time block they are made in, else against the step that opened the
 * connection, in the current second.
 *
 * Ownership: a connection belongs to its VU's list (vu.sock) until the VU's
 * phase ends, when it is closed and freed; the Lua object only points at it
 * (slot). Internal to worker/. */
#ifndef QUERN_SOCK_H
#define QUERN_SOCK_H

#include <curl/curl.h>
#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "worker/engine/vu.h"
#include "worker/plugs/inbox.h"
#include "worker/plugs/plug.h"
#include "worker/wire/heartbeat.h"
#include "worker/wire/rdframe.h"

struct engine;
struct reqopt;

#define SOCK_IN_MAX (1u << 20)        /* bytes buffered for one piece at most */
#define SOCK_READ_CHUNK (16u << 10)   /* bytes one read asks for */
#define SOCK_READ_BUDGET (256u << 10) /* bytes read per loop iteration at most */

enum sock_state {
    SOCK_CONNECTING, /**< libcurl connects (and does TLS) */
    SOCK_OPEN,       /**< bytes flow */
    SOCK_CLOSED      /**< closed by the script, the server or an error (err says which) */
};

/** One connection. */
typedef struct sock {
    struct engine *eng; /**< borrowed */
    struct vu *owner;   /**< borrowed: its VU */
    struct sock **slot; /**< borrowed: the Lua object's pointer to it, or NULL */
    struct sock *next;  /**< borrowed: the next in its VU's list */
    int step;           /**< the step its bytes count against, -1 none */
    uint8_t state;      /**< enum sock_state */
    uint8_t in_multi;   /**< easy is in the engine's multi handle */
    uint8_t opened;     /**< the connect succeeded (it may have closed since) */
    uint8_t tls;        /**< TLS: easy stays, I/O goes through libcurl */
    uint8_t taken;      /**< plain: the socket is ours, libcurl's close leaves it open */
    uint8_t wanting;    /**< the VU waits for want's piece */
    int fd;             /**< the socket once connected, -1 before and once closed */
    CURL *easy;         /**< owned: while connecting, and for TLS until closed */
    CURLSH *share;      /**< owned, TLS only: a connection cache of its own, so that no
                             other transfer's pruning closes the connection */
    ev_io io;           /**< its socket, armed while the VU waits on it */
    ev_timer more;      /**< reads left for the next loop iteration (budget) */
    inbox in;           /**< the VU's waits (opened, a piece, the rest sent): no messages */
    dbuf rd;            /**< bytes read and not taken, from rd_off; freed when empty */
    size_t rd_off;      /**< bytes of rd already taken */
    size_t scanned;     /**< rd's bytes searched for want's end without a match */
    rdframe want;       /**< the piece the VU waits for, while wanting */
    char delim[RDFRAME_DELIM_MAX]; /**< want's delimiter, copied */
    const char *out;         /**< borrowed: the bytes being sent (the script's string), or NULL */
    size_t out_len, out_off; /**< their length, and how many were sent */
    int64_t start_us;        /**< monotonic start of the connect */
    xfer_figures fig;        /**< the connect's, for its sample */
    char err[ERR_MAX];       /**< why it failed or closed, "" none */
    char errbuf[CURL_ERROR_SIZE]; /**< libcurl's message */
    struct sock_beat *beat;       /**< owned: its heartbeat and timer, NULL until sock_heartbeat */
} sock;

/** What sock_open needs beside the VU. */
typedef struct sock_cfg {
    const char *host;                /**< borrowed: a name or an address (IPv6 bare) */
    int port;                        /**< 1 to 65535 */
    int tls;                         /**< 1: TLS */
    const struct reqopt *req, *scen; /**< borrowed: the connection option levels (reqopt.h) */
    long timeout_ms;                 /**< the connect's bound */
    int step;                        /**< the step its bytes count against, -1 none */
} sock_cfg;

/** Starts connecting a new connection of v, linked in v's list; NULL with
 *  the reason in err. The VU then waits on its inbox (VU_SOCKOPEN), which
 *  opens or ends. */
sock *sock_open(struct vu *v, const sock_cfg *cfg, char *err, size_t errlen);
/** Whether the buffer holds w's piece (rdframe_find's answer: 1, 0, -1);
 *  with 1 its bytes are *piece (borrowed, valid until the next call on c),
 *  *len of them, taken out of the buffer. */
int sock_take(sock *c, const rdframe *w, const char **piece, size_t *len);
/** The VU is about to wait for w's piece (sock_take gave 0): reads what is
 *  there now and watches the socket; 1 when the wait is needed, 0 when the
 *  piece or the end came at once (sock_take again). */
int sock_want(sock *c, const rdframe *w);
/** The VU's wait is over (woken or timed out): the socket is no longer
 *  watched for it. */
void sock_unwant(sock *c);
/** Sends len bytes of data (borrowed until sent): 1 all sent, 0 the rest
 *  is sent as the socket takes it (the VU waits, VU_SOCKSEND, woken when
 *  c->out is NULL again), -1 when the connection is closed (err says why). */
int sock_send(sock *c, const char *data, size_t len);
/** Sends len bytes (1 to HEARTBEAT_MAX) whenever nothing was sent on c for
 *  every seconds (HEARTBEAT_MIN_S to HEARTBEAT_MAX_S), from the loop; every
 *  0 stops it. A beat is sent whole, never inside another send; a send in
 *  progress delays it. A failed beat closes c, its error in err. Returns 0,
 *  -1 when every or len is out of bounds, -2 while a beat is half sent (the
 *  socket full): nothing changed. */
int sock_heartbeat(sock *c, double every, const char *bytes, size_t len);
/** Closes the connection now (nothing waits); the struct stays its VU's. */
void sock_close(sock *c, const char *why);
/** The engine's plug (worker/plugs/plug.h): a connect done; at a phase's
 *  end the VU's connections are closed and freed, the Lua objects'
 *  pointers cleared; at the engine's end, every one freed. */
extern const plug sock_plug;

#endif

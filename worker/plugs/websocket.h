/* websocket — one WebSocket client connection of a VU, on the worker's loop.
 *
 * libcurl connects (TCP, TLS, proxy tunnel, source address, --resolve and
 * the VU's connection options: CURLOPT_CONNECT_ONLY in the engine's multi
 * handle); this file then writes the upgrade request and reads the answer
 * (wshandshake.h) on the socket of CURLINFO_ACTIVESOCKET, which an ev_io
 * watches, and wslay frames the messages (docs/protocols.md says why).
 * Nothing blocks: every read and write is non-blocking and resumes on the
 * watcher.
 *
 * What an idle connection keeps (docs/benchmarks.md measures it):
 *   - ws:// straight to the server (no proxy's tunnel): the socket is taken
 *     from libcurl once connected (its close callback keeps it open) and the
 *     handle freed, as step:tcp does (sock.h); bytes go through send/recv;
 *   - wss://, or through a proxy: the handle stays, and bytes go through
 *     curl_easy_send and curl_easy_recv (libcurl's TLS);
 *   - wslay's context (8.8 KB) only while a frame or a message is partly
 *     in, or something is left to send, or the closing handshake runs
 *     (wsbound.h follows the frames): it is made again when bytes come.
 *
 * Pings are answered by wslay at once, whatever the VU does; text and
 * binary messages go to the connection's inbox (inbox.h:
 * WEBSOCKET_QUEUE_MAX messages, WEBSOCKET_QUEUE_BYTES bytes) until the
 * script takes them; past the bound the connection is closed with 1008 and
 * a technical error is counted. Its I/O runs in loop callbacks, which wake
 * the VU at once (inbox_wake).
 *
 * Ownership: a connection belongs to its VU's list (vu.ws) until the VU's
 * phase ends; then an open one sends its close (1000) and finishes the
 * closing handshake alone, on the engine's list (engine.ws_closing), for at
 * most WEBSOCKET_CLOSE_WAIT_US. The Lua object only points at it (slot).
 *
 * Use: websocket_open(), then the VU yields (VU_WSOPEN) and is resumed when
 * the state leaves WEBSOCKET_CONNECTING; websocket_send, websocket_pop,
 * websocket_close; the VU waits for a message with VU_WSRECV on the
 * connection's inbox, which ends when the state leaves WEBSOCKET_OPEN.
 * Internal to worker/. */
#ifndef QUERN_WEBSOCKET_H
#define QUERN_WEBSOCKET_H

#include <curl/curl.h>
#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/plugs/inbox.h"
#include "worker/plugs/plug.h"
#include "worker/engine/vu.h"
#include "worker/wire/wsbound.h"
#include "worker/wire/wshandshake.h"

struct engine;
struct vu;
struct reqopt;

#define WEBSOCKET_QUEUE_MAX 1024           /* messages queued for the script at most */
#define WEBSOCKET_QUEUE_BYTES (16u << 20)  /* their bytes at most */
#define WEBSOCKET_MSG_MAX (16u << 20)      /* one message's bytes at most (1009 past it) */
#define WEBSOCKET_CLOSE_WAIT_US 2000000    /* a closing handshake's wait for the server */
#define WEBSOCKET_READ_BUDGET (256u << 10) /* bytes read per loop iteration at most */
#define WEBSOCKET_ERR_MAX 160              /* bytes of an error message */
#define WEBSOCKET_ANSWER_FIRST 1024        /* the answer's first room, doubled as it fills */

enum websocket_state {
    WEBSOCKET_CONNECTING, /**< libcurl connects, then the upgrade request and its answer */
    WEBSOCKET_OPEN,       /**< messages flow */
    WEBSOCKET_CLOSING,    /**< a close was sent, the server's is awaited */
    WEBSOCKET_CLOSED      /**< the network side is released; err says why if it failed */
};

/** A message received and not yet taken by the script. */
typedef struct websocket_msg {
    inbox_msg link; /**< first: its place in the inbox */
    size_t len;
    uint8_t binary;
    char data[]; /**< len bytes */
} websocket_msg;

/** One connection. */
typedef struct websocket {
    struct engine *eng;      /**< borrowed */
    struct vu *owner;        /**< borrowed: its VU, NULL once closing on its own */
    struct websocket **slot; /**< borrowed: the Lua object's pointer to it, or NULL */
    struct websocket *next;  /**< borrowed: the next in its list (the VU's or the engine's) */
    int step;                /**< the step its messages count against, -1 none */
    uint8_t state;           /**< enum websocket_state */
    uint8_t in_multi;        /**< easy is in the engine's multi handle */
    uint8_t opened;          /**< the handshake succeeded (it may have closed since) */
    uint8_t tls;             /**< wss:// */
    uint8_t taken;           /**< the socket is ours, libcurl's handle gone */
    int fd;                  /**< the socket once connected, -1 before and once closed */
    CURL *easy;              /**< owned: while connecting; kept for TLS or a proxy's tunnel */
    CURLSH *share;           /**< owned, with easy: a connection cache of its own, so that no
                                  other transfer's pruning closes this connection */
    void *ctx;               /**< owned: the wslay event context, while not idle */
    wsbound bound;           /**< where the frames handed to wslay end */
    ev_io io;                /**< its socket, once connected */
    ev_timer timer;          /**< the closing handshake's bound */
    ev_timer more;           /**< reads left for the next loop iteration (budget) */
    size_t budget;           /**< bytes this read may still take (WEBSOCKET_READ_BUDGET) */
    char key[WSHANDSHAKE_KEY_LEN + 1];
    char *hs;              /**< owned: the upgrade request, then its answer (WSHANDSHAKE_MAX) */
    size_t hs_len, hs_off; /**< request: length and bytes sent; answer: bytes read */
    size_t hs_cap;         /**< the answer's room in hs, grown to WSHANDSHAKE_MAX */
    size_t extra_off, extra_len; /**< frames read with the answer, fed to wslay first */
    char *ck_host, *ck_path;     /**< owned: where the upgrade went, for its Set-Cookie;
                                      freed once open */
    inbox in;         /**< the messages not yet taken (websocket_msg), and the VU's wait */
    int64_t start_us; /**< monotonic start of the handshake */
    xfer_figures fig; /**< the handshake's, for its sample: elapsed_us once open or failed;
                           new_conns 1 (a connection cache of its own), no ttfb_us */
    int status;       /**< the answer's HTTP status, 0 none */
    int close_code;   /**< the close code received, 0 none */
    char protocol[WSHANDSHAKE_PROTOCOL_MAX]; /**< the subprotocol chosen, "" none */
    char err[WEBSOCKET_ERR_MAX];             /**< why it failed or closed, "" none */
    char errbuf[CURL_ERROR_SIZE];            /**< libcurl's message */
} websocket;

/** What websocket_open needs beside the VU. */
typedef struct websocket_cfg {
    const char *url;       /**< borrowed: ws:// or wss:// */
    const char *protocols; /**< borrowed: comma-separated, NULL none */
    const char *headers;   /**< borrowed: extra header lines, each ending in CRLF, NULL none */
    const struct reqopt *req, *scen; /**< borrowed: the connection option levels (reqopt.h) */
    long timeout_ms;                 /**< the handshake's bound */
    int step;                        /**< the step its messages count against, -1 none */
} websocket_cfg;

/** Starts connecting a new connection of v, linked in v's list; NULL with
 *  the reason in err (a bad URL, a request too long). */
websocket *websocket_open(struct vu *v, const websocket_cfg *cfg, char *err, size_t errlen);
/** Queues a message and starts sending it: 0, or -1 when the connection is
 *  not open. */
int websocket_send(websocket *c, const char *data, size_t len, int binary);
/** The oldest queued message (owned by the caller, xfree it), or NULL. */
websocket_msg *websocket_pop(websocket *c);
/** Starts the closing handshake with code and reason (bounded to 123 bytes). */
void websocket_close(websocket *c, int code, const char *reason);
/** The engine's plug (worker/plugs/plug.h): a connection's upgrade transfer
 *  done (it stays in the multi); at a phase's end the open connections
 *  close (1000) on their own, the others are freed, the Lua objects'
 *  pointers cleared; at the engine's end, every one freed at once. */
extern const plug websocket_plug;

#endif

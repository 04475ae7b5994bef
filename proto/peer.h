/* peer — one framed protobuf connection on a libev loop.
 *
 * What it is for: the console's connection to each agent, the agent's
 * connection to its console and to each of its workers all move Envelope
 * frames (proto/frame.h) over a non-blocking socket. A peer owns the fd, its
 * read and write watchers, a bounded frame_reader and a bounded frame_writer;
 * it calls on_msg for each received envelope and on_close once when the
 * connection ends for any reason other than peer_close.
 *
 * Reentrancy: on_close is always called from a zero-delay timer of the peer,
 * never from inside peer_send or on_msg, so callers may send and fail links
 * freely from any callback. A peer's memory belongs to its owner (usually
 * embedded in a bigger struct); the peer never frees it, and the owner must
 * not free it from on_msg (peer_close it and free it later, or reuse it).
 *
 * Sealing (console <-> agent): the handshake travels in plain frames; once a
 * side knows the other knows the token, it calls peer_seal_send (every frame
 * queued after the call is sealed, those queued before are not) and, from the
 * handler of the last plain frame it expects, peer_seal_recv (every frame
 * after that one must open, proto/seal.h). A frame that does not open fails
 * the peer, before on_msg sees anything of it.
 *
 * Usage:
 *     peer_init(&l, loop, fd, FRAME_MAX_SMALL, 1 << 20, on_msg, on_close, ud);
 *     peer_send(&l, &env);        // queued, written when the socket takes it
 *     ...
 *     peer_close(&l);             // no callback; the fd is closed
 */
#ifndef QUERN_PEER_H
#define QUERN_PEER_H

#include <ev.h>
#include <stddef.h>

#include "proto/frame.h"

/* A link that carried nothing for this long sends a Ping. Each side takes a
 * link silent for 5 s as lost. */
#define PEER_HEARTBEAT_US 1000000

typedef struct peer peer;

/** Receives one envelope (borrowed: freed after the call returns). */
typedef void (*peer_msg_fn)(peer *l, const Quern__Envelope *env, void *ud);
/** The connection ended (EOF, error, malformed frame, overflow); why says so.
 *  The peer is already closed; the owner may reuse or free its memory. */
typedef void (*peer_close_fn)(peer *l, const char *why, void *ud);

/** One connection. Fields are private to peer.c except ud and fd (read only). */
struct peer {
    int fd;               /**< owned: the socket, -1 when closed */
    struct ev_loop *loop; /**< borrowed */
    ev_io rio, wio;       /**< read and write watchers */
    ev_timer later;       /**< runs the deferred on_close */
    frame_reader *r;      /**< owned */
    frame_writer *w;      /**< owned */
    seal *tx;             /**< owned: seals what we send, NULL before peer_seal_send */
    seal *rx;             /**< owned: opens what we receive, NULL before peer_seal_recv */
    peer_msg_fn on_msg;
    peer_close_fn on_close;
    void *ud;           /**< borrowed: passed to the callbacks */
    int failing;        /**< 1: on_close is pending */
    int64_t last_tx_us; /**< monotonic time the last message was queued */
    char why[256];      /**< why it failed */
};

/** Takes ownership of the non-blocking fd and starts reading. Frames larger
 *  than max_in are refused (the peer fails); at most max_queued bytes wait to
 *  be written. */
void peer_init(peer *l, struct ev_loop *loop, int fd, size_t max_in, size_t max_queued,
               peer_msg_fn on_msg, peer_close_fn on_close, void *ud);

/** 1 while the peer is open and not failing. */
int peer_alive(const peer *l);

/** Queues env (up to FRAME_MAX_DEFAULT bytes) and writes what the socket
 *  takes. Returns 0, or -1 if the peer is not alive or the queue is full (the
 *  peer then fails: on_close follows). */
int peer_send(peer *l, const Quern__Envelope *env);

/** Bytes not yet written. */
size_t peer_pending(const peer *l);

/** Seals every frame sent from now on with a seal of this key (copied).
 *  Returns 0, or -1 (the peer fails) if the peer is not alive, is already
 *  sealing, or the cipher cannot be set up. */
int peer_seal_send(peer *l, const uint8_t key[SEAL_KEY_LEN]);

/** Every frame received after the one being handled must be sealed with this
 *  key (copied) and is at most max_in bytes (the tag not counted). Returns 0,
 *  or -1 (the peer fails) as peer_seal_send, or if a frame already received
 *  breaks the new limit. */
int peer_seal_recv(peer *l, const uint8_t key[SEAL_KEY_LEN], size_t max_in);

/** Seals both directions once the handshake has proved the token on both
 *  sides (the console after the agent's proof, the agent on AuthResult(ok)):
 *  derives the connection's keys from the token, hs (its secret is filled
 *  here from the X25519 exchange of my_priv with their_kx) and the
 *  direction, then calls peer_seal_send and peer_seal_recv (max_in) in the
 *  order of its side. Wipes my_priv and every derived secret. Returns 0, or
 *  -1 (the peer has failed). */
int peer_seal_link(peer *l, const char *token, size_t token_len, seal_hs *hs,
                   uint8_t my_priv[KEYEXCHANGE_LEN], const uint8_t *their_kx, int is_console,
                   size_t max_in);

/** 1 once both directions are sealed. */
int peer_sealed(const peer *l);

/** Fails the peer: stops it now and calls on_close(why) from the loop soon. */
void peer_fail(peer *l, const char *why);

/** Reads and hands over everything the peer already sent (until EOF or
 *  nothing more is there): used before closing the link of a process that
 *  exited, so its last frames are not lost. */
void peer_drain(peer *l);
/** Answers a Ping with its Pong (sequence and send time echoed, our clock
 *  added), unless the link carried something else within PEER_HEARTBEAT_US:
 *  a Ping asks whether we are alive, and any message already said so. */
void peer_pong(peer *l, const Quern__Ping *ping);
/** 1 if nothing was sent on the link for PEER_HEARTBEAT_US up to now
 *  (monotonic): the time to send a Ping, so that an idle link still shows
 *  it is alive; a link that carries intervals every second needs none. */
int peer_quiet(const peer *l, int64_t now_us);
/** Closes the peer now without calling on_close; fine on a closed peer. */
void peer_close(peer *l);

#endif

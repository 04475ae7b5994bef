/* handshake — the messages that open a link, written once for both sides:
 * console <-> agent (Hello, AuthProof, AuthResult, Register, then sealing)
 * and worker -> agent (Ready).
 *
 * The console-agent exchange (proto/auth.h says why it is safe):
 *     agent                                   console
 *     handshake_init(&hs, "agent")            handshake_init(&hs, "console")
 *     handshake_keys(&hs)
 *     Hello (handshake_hello) ------------->  handshake_hello_take, handshake_keys
 *     handshake_hello_take <----------------  Hello (handshake_hello)
 *     AuthProof (handshake_proof) --------->  handshake_proof_ok, or AuthResult(0, why)
 *     handshake_proof_ok <------------------  AuthProof (handshake_proof), AuthResult(1)
 *     on AuthResult(1): handshake_seal        handshake_seal, right after AuthResult(1)
 *     Register (handshake_register) ------->  Registered (handshake_registered)
 * Each message is built into a handshake_msg the caller provides (on its
 * stack), so that any transport sends it: a peer (peer_send), a plain
 * socket, a test's own writer. The checks of what arrives are here too, with
 * the wording every side reports; what a side does about a failure (refuse,
 * log, retry) stays with it.
 *
 * Usage (the console, from its connection's handler):
 *     handshake_msg m;
 *     if (handshake_hello_take(&c->hs, env, err, sizeof(err)) != 0) ...refuse...
 *     if (handshake_keys(&c->hs) != 0) ...no random numbers...
 *     peer_send(l, handshake_hello(&c->hs, &m)); */
#ifndef QUERN_HANDSHAKE_H
#define QUERN_HANDSHAKE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "proto/keyexchange.h"
#include "proto/peer.h"
#include "proto/quern.pb-c.h"
#include "proto/seal.h"

/** One side's state of the console-agent handshake of one connection. */
typedef struct handshake {
    const char *role;                   /**< borrowed literal: "agent" or "console", our side */
    uint8_t nonce[AUTH_NONCE_LEN];      /**< ours, in our Hello */
    uint8_t peer_nonce[AUTH_NONCE_LEN]; /**< theirs, from their Hello */
    uint8_t
        keyexchange_priv[KEYEXCHANGE_LEN]; /**< our key pair's private half (wiped once sealed) */
    uint8_t keyexchange_pub[KEYEXCHANGE_LEN]; /**< ours, in our Hello */
    uint8_t peer_kx[KEYEXCHANGE_LEN];         /**< theirs, from their Hello */
} handshake;

/** Room for one handshake message: fill it with a builder below, send the
 *  envelope it returns, and let it go (nothing in it is allocated). */
typedef struct handshake_msg {
    Quern__Envelope env;
    union {
        Quern__Hello hello;
        Quern__AuthProof proof;
        Quern__AuthResult result;
        Quern__Register reg;
        Quern__Registered registered;
        Quern__Ready ready;
    } u;
    uint8_t mac[AUTH_MAC_LEN]; /**< the AuthProof's mac */
    char host[256];            /**< the Register's host name */
} handshake_msg;

/** Our side of a new connection: role is "agent" or "console" (a literal).
 *  Nothing is drawn yet (handshake_keys). */
void handshake_init(handshake *hs, const char *role);

/** Draws our nonce and key pair, for our Hello. Returns 0, or -1 when there
 *  are no random numbers (the sides say "no random numbers" and fail the
 *  link). */
int handshake_keys(handshake *hs);

/** Our Hello (protocol AUTH_PROTO_VERSION, our role, nonce, key, version). */
Quern__Envelope *handshake_hello(const handshake *hs, handshake_msg *m);

/** Checks that env is the other side's Hello: a Hello, of our protocol,
 *  from the other role, with a nonce and a key of the right length, then
 *  keeps its nonce and key in hs. env NULL stands for a Hello out of turn,
 *  refused in the same words. Returns 0, or -1 with err "not a quern console
 *  of protocol 2" (or agent: the role we expected). */
int handshake_hello_take(handshake *hs, const Quern__Envelope *env, char *err, size_t errlen);

/** Our AuthProof: that we know the token, bound to both nonces. */
Quern__Envelope *handshake_proof(const handshake *hs, const char *token, size_t token_len,
                                 handshake_msg *m);

/** 1 if pr proves that the other side knows the token (for this connection's
 *  nonces), else 0. */
int handshake_proof_ok(const handshake *hs, const char *token, size_t token_len,
                       const Quern__AuthProof *pr);

/** The console's AuthResult: ok, or refused with reason (borrowed, NULL: ""). */
Quern__Envelope *handshake_result(int ok, const char *reason, handshake_msg *m);

/** The keys' inputs of this connection, in the agent/console order seal.h
 *  wants; secret (KEYEXCHANGE_LEN bytes, borrowed) is the caller's keyexchange_shared. */
seal_hs handshake_seal_hs(const handshake *hs, const uint8_t *secret);

/** Seals both directions of l once both proofs are checked (the console
 *  right after sending AuthResult(1), the agent on receiving it): frames
 *  received are then at most max_in bytes. Wipes our private key. Returns 0,
 *  or -1 (the peer has failed). */
int handshake_seal(peer *l, handshake *hs, const char *token, size_t token_len, size_t max_in);

/** The agent's Register: its name (borrowed) and workers, with this host's
 *  name, cores, our version and pid. */
Quern__Envelope *handshake_register(const char *name, uint32_t workers, handshake_msg *m);

/** The console's Registered: ok with the agent's index, or refused with
 *  reason (borrowed, NULL: ""). */
Quern__Envelope *handshake_registered(int ok, uint32_t agent_index, const char *reason,
                                      handshake_msg *m);

/** Ready (a worker to its agent, an agent to the console): the run's barrier
 *  answer, ok with vus, or not with error (borrowed, NULL: ""). */
Quern__Envelope *handshake_ready(uint64_t run_id, int ok, const char *error, uint32_t vus,
                                 handshake_msg *m);

#endif

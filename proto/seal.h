/* seal — encryption and authentication of the frames after the handshake.
 *
 * What it is for: once the console and an agent have proved to each other
 * that they know the token (proto/auth.h), every later frame between them is
 * sealed: encrypted and authenticated with ChaCha20-Poly1305 under a key that
 * only the two ends of this connection can derive, with a per-direction frame
 * counter as the nonce. A relay without the token can neither read a frame,
 * nor alter, replay, reorder, drop or inject one without the next check
 * failing.
 *
 * Keys (seal_derive_key): HKDF-SHA256 with input key material token || S,
 * where S is the X25519 secret the two Hello.kx public keys share
 * (proto/keyexchange.h), salt "quern-seal-v1", and info = direction label NUL || Na ||
 * Nc || Ka || Kc, where Na, Ka are the agent's Hello nonce and public key and
 * Nc, Kc the console's; the label is SEAL_DIR_TO_CONSOLE ("agent->console")
 * or SEAL_DIR_TO_AGENT ("console->agent"). Each direction has its own 32-byte
 * key. The token makes the keys known only to those who know it; S makes
 * them unknown to whoever learns the token later (forward secrecy); Ka and
 * Kc in info mean that public keys swapped by a relay give the two ends
 * different keys, so the first sealed frame fails.
 *
 * A sealed frame on the wire: the 4-byte big-endian length N (proto/frame.h),
 * then N bytes: the ciphertext of the Envelope (N - SEAL_TAG_LEN bytes) and a
 * 16-byte Poly1305 tag. The AEAD nonce is 4 zero bytes and the 64-bit
 * big-endian count of frames sealed before it in that direction (0 first);
 * the associated data is the 4-byte length header. The counter is never sent:
 * the receiver uses its own, so a replayed, reordered or dropped frame is
 * opened with the wrong nonce and fails.
 *
 * Usage, one seal per direction and connection:
 *
 *     uint8_t key[SEAL_KEY_LEN];
 *     seal_hs hs = {na, nc, ka, kc, secret};
 *     seal_derive_key(token, len, &hs, SEAL_DIR_TO_AGENT, key);
 *     seal *tx = seal_new(key);                  // the console's sending side
 *     seal_frame(tx, hdr, body, n, body + n);     // in place, tag after the body
 *     ...
 *     seal_open(rx, hdr, body, n, body + n)       // 0: body now holds the plaintext
 *
 * A seal holds one EVP cipher context, reused for every frame: nothing is
 * allocated per frame. After one failed open the seal stays failed: the
 * connection must be closed. */
#ifndef QUERN_SEAL_H
#define QUERN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "proto/keyexchange.h"

/** Bytes of a direction key. */
#define SEAL_KEY_LEN 32
/** Bytes of the authentication tag after each sealed body. */
#define SEAL_TAG_LEN 16
/** Direction label of the frames an agent sends. */
#define SEAL_DIR_TO_CONSOLE "agent->console"
/** Direction label of the frames a console sends. */
#define SEAL_DIR_TO_AGENT "console->agent"

/** One direction of one connection: a key, a counter, a cipher context. */
typedef struct seal seal;

/** What the keys of one connection are made from, besides the token. */
typedef struct seal_hs {
    const uint8_t *agent_nonce;   /**< borrowed: AUTH_NONCE_LEN bytes (the agent's Hello) */
    const uint8_t *console_nonce; /**< borrowed: AUTH_NONCE_LEN bytes (the console's Hello) */
    const uint8_t *agent_kx;      /**< borrowed: KEYEXCHANGE_LEN bytes, the agent's Hello.kx */
    const uint8_t *console_kx;    /**< borrowed: KEYEXCHANGE_LEN bytes, the console's Hello.kx */
    const uint8_t *secret;        /**< borrowed: KEYEXCHANGE_LEN bytes, from keyexchange_shared */
} seal_hs;

/** Derives the key of one direction (see above) into key. Returns 0, or -1
 *  (key then zeroed) on an empty token or a failure of OpenSSL. */
int seal_derive_key(const char *token, size_t token_len, const seal_hs *hs, const char *dir,
                    uint8_t key[SEAL_KEY_LEN]);

/** Both keys of a connection: to_console (SEAL_DIR_TO_CONSOLE) and to_agent
 *  (SEAL_DIR_TO_AGENT). Returns 0, or -1 (both zeroed). */
int seal_derive_keys(const char *token, size_t token_len, const seal_hs *hs,
                     uint8_t to_console[SEAL_KEY_LEN], uint8_t to_agent[SEAL_KEY_LEN]);

/** New seal with this key and its counter at 0 (the key is copied; wipe
 *  yours). Returns NULL if OpenSSL cannot set up the cipher. */
seal *seal_new(const uint8_t key[SEAL_KEY_LEN]);

/** Wipes and frees; NULL is fine. */
void seal_free(seal *s);

/** Encrypts the len bytes at body in place and writes the tag at tag
 *  (SEAL_TAG_LEN bytes), authenticating hdr (the FRAME_HEADER_LEN-byte length
 *  header) with them; then counts the frame. Returns 0, or -1 (nothing
 *  counted; do not send) if the cipher failed or the counter is exhausted. */
int seal_frame(seal *s, const uint8_t hdr[4], uint8_t *body, size_t len, uint8_t tag[SEAL_TAG_LEN]);

/** Checks and decrypts the len bytes at body in place against tag and hdr,
 *  with the next counter value. Returns 0 (body holds the plaintext, the
 *  frame is counted), or -1 if the frame is not the next one this direction's
 *  peer sealed with this key (altered, replayed, reordered, dropped before
 *  it, wrong key); the seal then stays failed and every later open fails. */
int seal_open(seal *s, const uint8_t hdr[4], uint8_t *body, size_t len,
              const uint8_t tag[SEAL_TAG_LEN]);

/** Frames sealed or opened so far. */
uint64_t seal_count(const seal *s);

#endif

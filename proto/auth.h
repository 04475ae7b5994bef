/* auth — mutual challenge–response over a shared token (agent <-> console).
 *
 * Agents run code the console sends, so both ends prove they know the same
 * secret token without ever sending it. Each side puts a fresh random nonce
 * (auth_nonce) in its Hello; each then sends an AuthProof whose mac is
 *
 *     HMAC-SHA256(token, "quern-<role>-v1" NUL || receiver's nonce || sender's nonce)
 *
 * where <role> is the sender's (the prover's) role. The role label means an
 * agent's proof is never a valid console proof, so a proof cannot be
 * reflected back at the side that made it; the receiver's nonce makes it
 * fresh, so it cannot be replayed on another connection.
 *
 * Agent side (own nonce Na, console's nonce Nc):
 *
 *     auth_proof(tok, len, "agent", Nc, Na, mac);                 send it
 *     auth_verify(tok, len, "console", Na, Nc, peer_mac, n)       check the console's
 *
 * Console side (own nonce Nc, agent's nonce Na):
 *
 *     auth_proof(tok, len, "console", Na, Nc, mac);               send it
 *     auth_verify(tok, len, "agent", Nc, Na, peer_mac, n)         check the agent's
 *
 * In every call role, peer_nonce and own_nonce are those of the prover: in
 * auth_verify, peer_nonce is the verifier's own nonce and own_nonce the nonce
 * the prover sent in its Hello.
 *
 * The token comes from a file that only its owner may read
 * (auth_read_token_file); free it with auth_token_free, which wipes it. */
#ifndef QUERN_AUTH_H
#define QUERN_AUTH_H

#include <stddef.h>
#include <stdint.h>

/** Hello.version of this build: 2 since every frame after the handshake is
 *  sealed (proto/seal.h); a peer of another version is refused at its Hello. */
#define AUTH_PROTO_VERSION 2
/** Bytes of a Hello nonce. */
#define AUTH_NONCE_LEN 32
/** Bytes of an AuthProof mac (HMAC-SHA256). */
#define AUTH_MAC_LEN 32
/** Shortest token accepted, in bytes (after trailing whitespace is trimmed):
 *  anything shorter can be guessed. */
#define AUTH_TOKEN_MIN 16
/** Largest token accepted, in bytes (after trailing whitespace is trimmed). */
#define AUTH_TOKEN_MAX 4096

/** Fills out with cryptographically random bytes (OpenSSL RAND_bytes).
 *  Returns 0, or -1 if the random generator failed (then do not connect). */
int auth_nonce(uint8_t out[AUTH_NONCE_LEN]);

/** Computes the proof that the prover, of role role ("agent" or "console"),
 *  knows token: mac = HMAC-SHA256(token, "quern-<role>-v1" NUL || peer_nonce
 *  || own_nonce). peer_nonce is the nonce received from the other side,
 *  own_nonce the one the prover sent. Returns 0, or -1 (mac then holds random
 *  bytes, which will not verify) if the token is empty or HMAC failed. */
int auth_proof(const char *token, size_t token_len, const char *role,
               const uint8_t peer_nonce[AUTH_NONCE_LEN], const uint8_t own_nonce[AUTH_NONCE_LEN],
               uint8_t mac[AUTH_MAC_LEN]);

/** Checks a proof received from a prover of role role, in constant time.
 *  Nonces are given from the prover's point of view: peer_nonce is the
 *  verifier's own nonce (the one it sent in its Hello) and own_nonce the
 *  prover's nonce (received in the prover's Hello). Returns 1 if mac (of
 *  mac_len bytes) is the right proof, 0 otherwise — including a wrong length,
 *  an empty token, or both nonces equal (a peer echoing our nonce). */
int auth_verify(const char *token, size_t token_len, const char *role,
                const uint8_t peer_nonce[AUTH_NONCE_LEN], const uint8_t own_nonce[AUTH_NONCE_LEN],
                const uint8_t *mac, size_t mac_len);

/** Reads the token from the file at path, trimming trailing whitespace and
 *  newlines. Refuses (-1, with a message naming the file in err) a file that
 *  cannot be opened or read, is not a regular file, can be accessed by group
 *  or others (mode & 077: "chmod 600" it), or whose token is empty, shorter
 *  than AUTH_TOKEN_MIN or longer than AUTH_TOKEN_MAX bytes. Returns 0 with *out a NUL-terminated
 * copy of the token (free it with auth_token_free) and *out_len its length. */
int auth_read_token_file(const char *path, char **out, size_t *out_len, char *err, size_t errlen);

/** Wipes and frees a token of len bytes from auth_read_token_file; NULL is fine. */
void auth_token_free(char *token, size_t len);

#endif

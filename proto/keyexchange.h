/* keyexchange — the ephemeral X25519 key exchange of the console–agent handshake.
 *
 * What it is for: forward secrecy. Each side makes a fresh key pair per
 * connection, sends the public half in its Hello (Hello.kx), and mixes the
 * shared secret into the link's keys with the token (proto/seal.h). Someone
 * who recorded a run and learns the token later still cannot derive the
 * keys: the private halves were never sent and are wiped once the link is
 * sealed.
 *
 *     uint8_t priv[KEYEXCHANGE_LEN], pub[KEYEXCHANGE_LEN], secret[KEYEXCHANGE_LEN];
 *     keyexchange_keypair(priv, pub);                    // pub goes into our Hello
 *     keyexchange_shared(priv, peer_pub, secret);        // with the peer's Hello.kx
 *     ... seal_derive_key(..., secret, ...); then wipe priv and secret
 *
 * Keys are plain byte arrays: the caller keeps them in its connection
 * struct and wipes them (OPENSSL_cleanse) when done. */
#ifndef QUERN_KEYEXCHANGE_H
#define QUERN_KEYEXCHANGE_H

#include <stdint.h>

/** Bytes of an X25519 private key, public key and shared secret. */
#define KEYEXCHANGE_LEN 32

/** Makes a fresh key pair. Returns 0, or -1 if OpenSSL or the random
 *  generator failed (both arrays are then zeroed). */
int keyexchange_keypair(uint8_t priv[KEYEXCHANGE_LEN], uint8_t pub[KEYEXCHANGE_LEN]);

/** Computes the secret shared with the peer whose public key is peer_pub.
 *  Returns 0, or -1 (secret zeroed) if the peer's key is not a valid one
 *  (a low-order point gives an all-zero secret: refused) or OpenSSL failed. */
int keyexchange_shared(const uint8_t priv[KEYEXCHANGE_LEN], const uint8_t peer_pub[KEYEXCHANGE_LEN],
                       uint8_t secret[KEYEXCHANGE_LEN]);

#endif

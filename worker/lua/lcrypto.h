/* lcrypto — quern.crypto: digests, HMAC, random bytes and UUIDs, with
 * OpenSSL's libcrypto.
 *
 * What it is for: APIs that sign requests (an HMAC header, a JWT, an AWS-
 * style signature), send a hash of the body or want a fresh id per request,
 * and SCRAM logins (quern.pg); a script should not carry a Lua SHA-256.
 *
 *   quern.crypto.sha256(s [, enc])          also md5, sha1, sha384, sha512
 *   quern.crypto.hmac(alg, key, s [, enc])  alg "sha256", "sha1", ...
 *   quern.crypto.pbkdf2(alg, password, salt, iterations, len [, enc])
 *                                           RFC 8018 with HMAC-alg
 *   quern.crypto.random_bytes(n [, enc])    n <= LCRYPTO_RANDOM_MAX
 *   quern.crypto.uuid()                     version 4 (RFC 9562)
 *
 * enc is "hex" (lower case; the default of the digests and HMAC), "base64",
 * "base64url" (RFC 4648's URL alphabet, padded), "base64rawurl" (the same
 * without padding, as JWTs use) or "binary" (the raw bytes; the default of
 * random_bytes). Random bytes come from OpenSSL's CSPRNG (RAND_bytes),
 * which reseeds itself in a forked child.
 *
 * Each algorithm is fetched from OpenSSL once per Lua state, the first time
 * it is used, with its own digest context and HMAC context, reused by every
 * call; the state's collector frees them.
 *
 * Use: lcrypto_register(L, idx) sets the table crypto into the module
 * table at idx (lquern.h). Internal to worker/. */
#ifndef QUERN_LCRYPTO_H
#define QUERN_LCRYPTO_H

#include <lua.h>

/** Largest n of quern.crypto.random_bytes. */
#define LCRYPTO_RANDOM_MAX 65536

/** Most iterations of quern.crypto.pbkdf2: its work runs on the loop
 *  (4096, SCRAM's usual count, takes one or two milliseconds). */
#define LCRYPTO_PBKDF2_ITER_MAX 1000000
/** Most bytes quern.crypto.pbkdf2 derives at once. */
#define LCRYPTO_PBKDF2_LEN_MAX 1024

/** Sets the table crypto (md5, sha1, sha256, sha384, sha512, hmac, pbkdf2,
 *  random_bytes, uuid) into the table at idx. */
void lcrypto_register(lua_State *L, int idx);

/** Writes a version 4 UUID, "xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx" (N one of
 *  8, 9, a, b) and a NUL, into out; returns 0, or -1 when the CSPRNG fails. */
int lcrypto_uuid(char out[37]);

#endif

/* fuzz_auth — the handshake's authentication (proto/auth): the token file
 * both ends read, and the AuthProof a peer sends (any bytes, any length).
 *
 * Input: byte 0 splits the rest; the first part is the token file (mode
 * 0600), the second the mac of a received AuthProof; the nonces are taken
 * from the input too. Checks: a token that loads is non-empty, at most
 * AUTH_TOKEN_MAX bytes, without trailing whitespace or NUL; the proof made
 * with it verifies for its role and nonces only (not for the other role, a
 * flipped bit, a shorter mac, or equal nonces); the received mac verifies
 * exactly when it is the right proof, whatever its length. */
#include <ctype.h>
#include <string.h>

#include "common/err.h"
#include "proto/auth.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN], bad[AUTH_MAC_LEN];
    const uint8_t *peer_mac;
    size_t split, peer_len;
    char *token = NULL, err[ERR_MAX];
    size_t token_len = 0;
    const char *path;

    if (size < 1)
        return 0;
    split = data[0] < size - 1 ? data[0] : size - 1;
    data++;
    size--;
    peer_mac = data + split;
    peer_len = size - split;
    for (size_t i = 0; i < AUTH_NONCE_LEN; i++) {
        na[i] = size ? data[i % size] : 0;
        nc[i] = (uint8_t)(na[i] ^ (i + 1));
    }
    path = fuzz_file_mode(data, split, 0600);
    if (path == NULL)
        return 0;
    if (auth_read_token_file(path, &token, &token_len, err, sizeof(err)) != 0) {
        fuzz_check(token == NULL && err[0] != '\0');
        /* an empty token proves nothing */
        fuzz_check(auth_verify("", 0, "agent", nc, na, peer_mac, peer_len) == 0);
        return 0;
    }
    fuzz_check(token_len > 0 && token_len <= AUTH_TOKEN_MAX && strlen(token) == token_len);
    fuzz_check(!isspace((unsigned char)token[token_len - 1]));

    fuzz_check(auth_proof(token, token_len, "agent", nc, na, mac) == 0);
    fuzz_check(auth_verify(token, token_len, "agent", nc, na, mac, sizeof(mac)) == 1);
    fuzz_check(auth_verify(token, token_len, "console", nc, na, mac, sizeof(mac)) == 0);
    fuzz_check(auth_verify(token, token_len, "agent", na, nc, mac, sizeof(mac)) == 0);
    fuzz_check(auth_verify(token, token_len, "agent", nc, na, mac, sizeof(mac) - 1) == 0);
    fuzz_check(auth_verify(token, token_len, "agent", na, na, mac, sizeof(mac)) == 0);
    memcpy(bad, mac, sizeof(bad));
    bad[peer_len % sizeof(bad)] ^= (uint8_t)(1u << (peer_len % 8));
    fuzz_check(auth_verify(token, token_len, "agent", nc, na, bad, sizeof(bad)) == 0);

    fuzz_check(auth_verify(token, token_len, "agent", nc, na, peer_mac, peer_len) ==
               (peer_len == AUTH_MAC_LEN && memcmp(peer_mac, mac, AUTH_MAC_LEN) == 0));
    auth_token_free(token, token_len);
    return 0;
}

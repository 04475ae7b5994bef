/* fuzz_wshandshake — a server's answer to a WebSocket upgrade request
 * (worker/wshandshake): every wss:// and ws:// step reads one from the
 * network before wslay takes the connection's frames.
 *
 * Input: the answer's bytes, to the key of RFC 6455's example. Checks: the
 * answer is the same twice; an accepted one is a 101 whose length ends with
 * the empty line, within the input and WSHANDSHAKE_MAX, and any shorter
 * prefix of it asks for more; a refused one leaves a NUL-terminated
 * message; the protocol is always NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/wire/wshandshake.h"

static const char key[] = "dGhlIHNhbXBsZSBub25jZQ==";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    wshandshake_res res, res2;
    char err[ERR_MAX];
    int n = wshandshake_parse(buf, size, key, &res, err, sizeof(err));

    fuzz_check(n == wshandshake_parse(buf, size, key, &res2, NULL, 0));
    fuzz_check(memchr(res.protocol, '\0', sizeof(res.protocol)) != NULL);
    if (n > 0) {
        fuzz_check((size_t)n <= size && n <= WSHANDSHAKE_MAX && n >= 4);
        fuzz_check(res.status == 101 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0);
        fuzz_check(wshandshake_parse(buf, (size_t)n - 1, key, &res2, err, sizeof(err)) == 0);
        fuzz_check(wshandshake_parse(buf, (size_t)n / 2, key, &res2, err, sizeof(err)) == 0);
    } else if (n < 0) {
        fuzz_check(n == -1 && memchr(err, '\0', sizeof(err)) != NULL);
    } else {
        fuzz_check(size < WSHANDSHAKE_MAX);
    }
    return 0;
}

/* fuzz_grpc — a gRPC reply's body and headers (worker/grpc,
 * worker/grpczip): every unary reply and every stream's message goes
 * through the framing, and a message flagged compressed through gzip's
 * inflate.
 *
 * Input: a body of frames as a server sends them, also read as header
 * lines. Checks: each frame read lies inside the input, within
 * GRPC_MSG_MAX, its flag 0 or 1, and the walk advances to the end or
 * stops with an error; a compressed frame inflates within its bound (64
 * KiB here, so that a run stays fast) or is refused, and what inflates
 * deflates and inflates back to itself; grpc-status, grpc-message and
 * grpc-encoding read from the same bytes are well-formed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/wire/grpc.h"
#include "worker/wire/grpczip.h"

#define BOUND (64u << 10)

/* Inflates a compressed message; what comes back round-trips. */
static void inflate_one(grpczip *z, const uint8_t *m, size_t n)
{
    const uint8_t *out, *back, *gz;
    size_t outlen, backlen, gzlen;
    uint8_t *copy;
    char err[ERR_MAX];
    int rc = grpczip_inflate(z, m, n, BOUND, &out, &outlen, err, sizeof(err));

    fuzz_check(rc == 0 || rc == -1 || rc == -2);
    fuzz_check(rc == 0 || err[0] != '\0');
    if (rc != 0)
        return;
    fuzz_check(outlen <= BOUND);
    copy = xmalloc(outlen + 1);
    memcpy(copy, out, outlen);
    fuzz_check(grpczip_deflate(z, copy, outlen, &gz, &gzlen, err, sizeof(err)) == 0);
    {
        uint8_t *gzcopy = xmalloc(gzlen);
        memcpy(gzcopy, gz, gzlen);
        fuzz_check(grpczip_inflate(z, gzcopy, gzlen, BOUND, &back, &backlen, err, sizeof(err)) ==
                   0);
        fuzz_check(backlen == outlen && memcmp(back, copy, outlen) == 0);
        xfree(gzcopy);
    }
    xfree(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static grpczip *z;
    size_t used = 0, n;
    const uint8_t *m;
    int k, flag;
    grpc_status st;
    char err[ERR_MAX];

    if (z == NULL)
        z = grpczip_new(); /* one a process, as one a Lua state */
    while ((k = grpc_frame_next(data, size, &used, &m, &n, &flag, err, sizeof(err))) == 1) {
        fuzz_check(m >= data + 5 && m + n <= data + size && m + n == data + used);
        fuzz_check(n <= GRPC_MSG_MAX && (flag == 0 || flag == 1));
        if (flag)
            inflate_one(z, m, n);
    }
    fuzz_check(k == 0 ? used == size : err[0] != '\0');
    grpc_status_read((const char *)data, size, &st);
    fuzz_check(st.found || st.code == 0);
    fuzz_check(memchr(st.message, '\0', sizeof(st.message)) != NULL);
    k = grpc_encoding_read((const char *)data, size);
    fuzz_check(k == GRPC_ENC_IDENTITY || k == GRPC_ENC_GZIP || k == -1);
    return 0;
}

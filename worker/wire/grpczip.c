/* grpczip — gzip for gRPC messages; see grpczip.h. */
#include "worker/wire/grpczip.h"

#include <zlib.h>

#include "common/err.h"
#include "common/mem.h"

/* gzip's header and trailer: zlib's window bits plus 16 */
#define GZIP_BITS (15 + 16)
/* the output's first size when inflating */
#define INFLATE_START 4096

struct grpczip {
    z_stream def; /**< the deflate stream, reset per message */
    z_stream inf; /**< the inflate stream, reset per message */
    uint8_t *buf; /**< owned: the last output */
    size_t cap;   /**< its bytes */
};

grpczip *grpczip_new(void)
{
    grpczip *z = xcalloc(1, sizeof(*z));

    if (deflateInit2(&z->def, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_BITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK ||
        inflateInit2(&z->inf, GZIP_BITS) != Z_OK)
        xoom("zlib");
    return z;
}

void grpczip_free(grpczip *z)
{
    if (z == NULL)
        return;
    deflateEnd(&z->def);
    inflateEnd(&z->inf);
    xfree(z->buf);
    xfree(z);
}

/* Makes z's buffer at least n bytes (its bytes are not kept). */
static void room(grpczip *z, size_t n)
{
    if (z->cap >= n)
        return;
    xfree(z->buf);
    z->buf = xmalloc(n);
    z->cap = n;
}

int grpczip_deflate(grpczip *z, const uint8_t *in, size_t n, const uint8_t **out, size_t *outlen,
                    char *err, size_t errlen)
{
    int rc;

    if (n > UINT32_MAX) {
        err_set(err, errlen, "gzip: a message of %zu bytes", n);
        return -1;
    }
    deflateReset(&z->def);
    /* the bound holds the whole output: one call */
    room(z, deflateBound(&z->def, (uLong)n));
    z->def.next_in = (Bytef *)(uintptr_t)in;
    z->def.avail_in = (uInt)n;
    z->def.next_out = z->buf;
    z->def.avail_out = (uInt)z->cap;
    rc = deflate(&z->def, Z_FINISH);
    if (rc != Z_STREAM_END) {
        err_set(err, errlen, "gzip: deflate failed (%d)", rc);
        return -1;
    }
    *out = z->buf;
    *outlen = z->def.total_out;
    return 0;
}

int grpczip_inflate(grpczip *z, const uint8_t *in, size_t n, size_t max, const uint8_t **out,
                    size_t *outlen, char *err, size_t errlen)
{
    size_t have = 0, cap = INFLATE_START < max + 1 ? INFLATE_START : max + 1;
    int rc = Z_OK;

    if (n > UINT32_MAX || max >= UINT32_MAX) {
        err_set(err, errlen, "gzip: a message of %zu bytes", n);
        return -1;
    }
    inflateReset(&z->inf);
    z->inf.next_in = (Bytef *)(uintptr_t)in;
    z->inf.avail_in = (uInt)n;
    room(z, cap);
    for (;;) {
        z->inf.next_out = z->buf + have;
        z->inf.avail_out = (uInt)(z->cap - have);
        rc = inflate(&z->inf, Z_NO_FLUSH);
        have = z->cap - z->inf.avail_out;
        if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR))
            break;
        if (z->inf.avail_out > 0) /* output room left: the input ended first */
            break;
        if (have > max) /* one byte past the bound is enough to know */
            break;
        /* double, but never past max + 1: that byte says it is too large */
        z->cap = z->cap * 2 < max + 1 ? z->cap * 2 : max + 1;
        z->buf = xrealloc(z->buf, z->cap);
    }
    if (have > max) {
        err_set(err, errlen, "a compressed message of more than %zu bytes once inflated", max);
        return -2;
    }
    if (rc != Z_STREAM_END) {
        err_set(err, errlen, "a compressed message that is not whole gzip (%s)",
                z->inf.msg != NULL ? z->inf.msg : "cut short");
        return -1;
    }
    *out = z->buf;
    *outlen = have;
    return 0;
}

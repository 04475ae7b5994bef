/* Unit tests for worker/grpczip: gzip both ways (empty, small, large,
 * incompressible), the context reused across messages, a message that
 * inflates past its bound refused at the bound (a zip bomb: 64 MiB of
 * zeros in 64 KiB), and input that is not gzip or is cut short. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <zlib.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/wire/grpc.h"
#include "worker/wire/grpczip.h"

/* Deflates then inflates the n bytes of in; checks they come back. */
static void round_trip(grpczip *z, const uint8_t *in, size_t n)
{
    const uint8_t *out, *back;
    size_t outlen, backlen;
    uint8_t *copy;
    char err[ERR_MAX];

    assert_int_equal(grpczip_deflate(z, in, n, &out, &outlen, err, sizeof(err)), 0);
    assert_true(outlen >= 18);               /* gzip's header and trailer */
    assert_memory_equal(out, "\x1f\x8b", 2); /* gzip, not zlib */
    copy = xmalloc(outlen);                  /* the next call reuses z's buffer */
    memcpy(copy, out, outlen);
    assert_int_equal(
        grpczip_inflate(z, copy, outlen, GRPC_MSG_MAX, &back, &backlen, err, sizeof(err)), 0);
    assert_int_equal(backlen, n);
    if (n > 0)
        assert_memory_equal(back, in, n);
    xfree(copy);
}

static void test_round_trip(void **state)
{
    grpczip *z = grpczip_new();
    size_t big = 1u << 20;
    uint8_t *b = xmalloc(big);
    uint32_t x = 12345;

    round_trip(z, (const uint8_t *)"", 0);
    round_trip(z, (const uint8_t *)"hello, hello, hello", 19);
    memset(b, 'a', big);
    round_trip(z, b, big);             /* the output grows past its first size */
    for (size_t i = 0; i < big; i++) { /* noise: gzip makes it a little larger */
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 24);
    }
    round_trip(z, b, big);
    round_trip(z, (const uint8_t *)"small again", 11);
    xfree(b);
    grpczip_free(z);
    grpczip_free(NULL);
}

static void test_bomb(void **state)
{
    grpczip *z = grpczip_new();
    size_t big = 64u << 20, clen;
    uint8_t *zeros = xcalloc(1, big), *c;
    const uint8_t *out;
    size_t outlen;
    z_stream s;
    char err[ERR_MAX];

    /* 64 MiB of zeros, gzipped by zlib itself */
    memset(&s, 0, sizeof(s));
    assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    clen = deflateBound(&s, big);
    c = xmalloc(clen);
    s.next_in = zeros;
    s.avail_in = (uInt)big;
    s.next_out = c;
    s.avail_out = (uInt)clen;
    assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
    clen = s.total_out;
    deflateEnd(&s);
    assert_true(clen < 128u << 10);
    assert_int_equal(grpczip_inflate(z, c, clen, GRPC_MSG_MAX, &out, &outlen, err, sizeof(err)),
                     -2);
    assert_non_null(strstr(err, "once inflated"));
    /* a bound it fits in */
    assert_int_equal(grpczip_inflate(z, c, clen, big, &out, &outlen, err, sizeof(err)), 0);
    assert_int_equal(outlen, big);
    /* exactly the bound is fine, one byte less is not */
    assert_int_equal(grpczip_inflate(z, c, clen, big - 1, &out, &outlen, err, sizeof(err)), -2);
    xfree(c);
    xfree(zeros);
    grpczip_free(z);
}

static void test_not_gzip(void **state)
{
    grpczip *z = grpczip_new();
    const uint8_t *out, *gz;
    size_t outlen, gzlen;
    uint8_t copy[64];
    char err[ERR_MAX];

    assert_int_equal(
        grpczip_inflate(z, (const uint8_t *)"plain text", 10, 100, &out, &outlen, err, sizeof(err)),
        -1);
    assert_non_null(strstr(err, "not whole gzip"));
    assert_int_equal(
        grpczip_inflate(z, (const uint8_t *)"", 0, 100, &out, &outlen, err, sizeof(err)), -1);
    assert_int_equal(
        grpczip_deflate(z, (const uint8_t *)"abcabcabc", 9, &gz, &gzlen, err, sizeof(err)), 0);
    assert_true(gzlen <= sizeof(copy));
    memcpy(copy, gz, gzlen);
    /* cut short: every length but the whole */
    for (size_t n = 0; n < gzlen; n++)
        assert_int_equal(grpczip_inflate(z, copy, n, 100, &out, &outlen, err, sizeof(err)), -1);
    assert_int_equal(grpczip_inflate(z, copy, gzlen, 100, &out, &outlen, err, sizeof(err)), 0);
    assert_int_equal(outlen, 9);
    grpczip_free(z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bomb),
        cmocka_unit_test(test_not_gzip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

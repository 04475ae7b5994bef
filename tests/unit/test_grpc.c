/* Unit tests for worker/grpc: status names, the HTTP status table, the
 * message framing (partial, the compressed flag, a flag unknown, too
 * large), grpc-timeout values, grpc-status / grpc-message read from headers
 * and trailers, grpc-encoding, and which metadata keys are binary. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "worker/wire/grpc.h"

static void test_names(void **state)
{
    assert_string_equal(grpc_status_name(0), "OK");
    assert_string_equal(grpc_status_name(5), "NOT_FOUND");
    assert_string_equal(grpc_status_name(16), "UNAUTHENTICATED");
    assert_string_equal(grpc_status_name(17), "UNKNOWN");
    assert_string_equal(grpc_status_name(-1), "UNKNOWN");
    assert_int_equal(grpc_status_code("DEADLINE_EXCEEDED"), 4);
    assert_int_equal(grpc_status_code("nope"), -1);
    assert_int_equal(grpc_from_http(404), GRPC_UNIMPLEMENTED);
    assert_int_equal(grpc_from_http(503), GRPC_UNAVAILABLE);
    assert_int_equal(grpc_from_http(401), GRPC_UNAUTHENTICATED);
    assert_int_equal(grpc_from_http(500), GRPC_UNKNOWN);
}

static void test_frames(void **state)
{
    uint8_t b[32];
    const uint8_t *m;
    size_t n, used = 0;
    int z = -1;
    char err[ERR_MAX];

    grpc_frame_header(b, 3, 0);
    memcpy(b + 5, "abc", 3);
    grpc_frame_header(b + 8, 0, 1);
    assert_memory_equal(b, "\0\0\0\0\3", 5);
    assert_memory_equal(b + 8, "\1\0\0\0\0", 5); /* the compressed flag */
    assert_int_equal(grpc_frame_next(b, 13, &used, &m, &n, &z, err, sizeof(err)), 1);
    assert_int_equal(n, 3);
    assert_int_equal(z, 0);
    assert_memory_equal(m, "abc", 3);
    assert_int_equal(grpc_frame_next(b, 13, &used, &m, &n, &z, err, sizeof(err)), 1);
    assert_int_equal(n, 0);
    assert_int_equal(z, 1);
    assert_int_equal(grpc_frame_next(b, 13, &used, &m, &n, &z, err, sizeof(err)), 0);
    used = 0;
    assert_int_equal(grpc_frame_next(b, 7, &used, &m, &n, &z, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "partial message"));
    used = 0;
    assert_int_equal(grpc_frame_next(b, 4, &used, &m, &n, &z, err, sizeof(err)), -1);
    b[0] = 2; /* no such flag */
    used = 0;
    assert_int_equal(grpc_frame_next(b, 13, &used, &m, &n, &z, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "flagged 2"));
    b[0] = 0;
    b[1] = 0x7f;
    used = 0;
    assert_int_equal(grpc_frame_next(b, 13, &used, &m, &n, &z, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "at most"));
}

static void test_encoding(void **state)
{
    const char *h = "HTTP/2 200\r\ncontent-type: application/grpc\r\nGrpc-Encoding:  gzip \r\n\r\n";

    assert_int_equal(grpc_encoding_read(h, strlen(h)), GRPC_ENC_GZIP);
    assert_int_equal(grpc_encoding_read("a: b\r\n", 6), GRPC_ENC_IDENTITY);
    assert_int_equal(grpc_encoding_read("grpc-encoding: identity\r\n", 25), GRPC_ENC_IDENTITY);
    assert_int_equal(grpc_encoding_read("grpc-encoding: snappy\r\n", 23), -1);
    assert_int_equal(grpc_encoding_read("grpc-encoding: gzipx\r\n", 22), -1);
    assert_int_equal(grpc_encoding_read("grpc-encoding:", 14), -1); /* empty: not one known */
}

static void test_timeout(void **state)
{
    char t[16];

    grpc_timeout(t, 250000);
    assert_string_equal(t, "250000u");
    grpc_timeout(t, 99999999);
    assert_string_equal(t, "99999999u");
    grpc_timeout(t, 100000000);
    assert_string_equal(t, "100000m");
    grpc_timeout(t, 0);
    assert_string_equal(t, "1u");
    grpc_timeout(t, INT64_MAX);
    assert_int_equal(t[strlen(t) - 1], 'H');
}

static void test_status(void **state)
{
    grpc_status st;
    const char *h = "HTTP/2 200\r\ncontent-type: application/grpc\r\n\r\n"
                    "grpc-status: 5\r\nGrpc-Message: no%20such%20user%zz\r\n";

    grpc_status_read(h, strlen(h), &st);
    assert_true(st.found);
    assert_int_equal(st.code, 5);
    assert_string_equal(st.message, "no such user%zz");
    grpc_status_read("a: b\r\n", 6, &st);
    assert_false(st.found);
    grpc_status_read("grpc-status: x\r\n", 16, &st);
    assert_true(st.found);
    assert_int_equal(st.code, GRPC_UNKNOWN);
    /* trailers-only: the status in the headers */
    h = "HTTP/2 200\r\ngrpc-status:  14 \r\n\r\n";
    grpc_status_read(h, strlen(h), &st);
    assert_int_equal(st.code, 14);
}

static void test_bin_key(void **state)
{
    assert_true(grpc_bin_key("x-blob-bin", 10));
    assert_true(grpc_bin_key("X-Blob-BIN", 10));
    assert_false(grpc_bin_key("-bin", 4)); /* a name before the suffix */
    assert_false(grpc_bin_key("x-bin-not", 9));
    assert_false(grpc_bin_key("x-blob-bin", 9)); /* only the n bytes count */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),   cmocka_unit_test(test_frames),
        cmocka_unit_test(test_timeout), cmocka_unit_test(test_status),
        cmocka_unit_test(test_bin_key), cmocka_unit_test(test_encoding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

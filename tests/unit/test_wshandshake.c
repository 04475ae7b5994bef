/* Unit tests for worker/wshandshake: the upgrade request, the accept key and
 * the checks of the server's answer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "worker/wire/wshandshake.h"

/* RFC 6455 1.3's example */
static const char key[] = "dGhlIHNhbXBsZSBub25jZQ==";
static const char accept_ok[] = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

static int parse(const char *s, wshandshake_res *res, char *err, size_t errlen)
{
    return wshandshake_parse(s, strlen(s), key, res, err, errlen);
}

static void test_accept(void **state)
{
    char a[29];
    const uint8_t rnd[16] = {'t', 'h', 'e', ' ', 's', 'a', 'm', 'p',
                             'l', 'e', ' ', 'n', 'o', 'n', 'c', 'e'};
    char k[WSHANDSHAKE_KEY_LEN + 1];

    wshandshake_accept(key, a);
    assert_string_equal(a, accept_ok);
    wshandshake_key(rnd, k);
    assert_string_equal(k, key);
}

static void test_request(void **state)
{
    char out[512];
    int n =
        wshandshake_request(out, sizeof(out), "h:8080", "/chat?x=1", key, "chat, v2", "X-A: 1\r\n");

    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(out));
    assert_non_null(strstr(out, "GET /chat?x=1 HTTP/1.1\r\nHost: h:8080\r\n"));
    assert_non_null(strstr(out, "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"));
    assert_non_null(strstr(out, "Sec-WebSocket-Protocol: chat, v2\r\nX-A: 1\r\n\r\n"));
    n = wshandshake_request(out, sizeof(out), "h", "/", key, NULL, NULL);
    assert_null(strstr(out, "Protocol"));
    assert_memory_equal(out + n - 4, "\r\n\r\n", 4);
    assert_int_equal(wshandshake_request(out, 40, "h", "/", key, NULL, NULL), -1);
}

static void test_good(void **state)
{
    char s[512], err[ERR_MAX];
    wshandshake_res res;
    int n;

    snprintf(s, sizeof(s),
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
             "Connection: keep-alive, Upgrade\r\nsec-websocket-accept:  %s \r\n"
             "Sec-WebSocket-Protocol: chat\r\n\r\n\x81\x02hi",
             accept_ok);
    n = parse(s, &res, err, sizeof(err));
    assert_int_equal(n, (int)strlen(s) - 4); /* the frame after it is not the answer's */
    assert_int_equal(res.status, 101);
    assert_string_equal(res.protocol, "chat");
}

static void test_partial(void **state)
{
    char err[ERR_MAX];
    wshandshake_res res;

    assert_int_equal(parse("", &res, err, sizeof(err)), 0);
    assert_int_equal(
        parse("HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\n", &res, err, sizeof(err)), 0);
}

static void test_refused(void **state)
{
    char s[512], err[ERR_MAX];
    wshandshake_res res;
    static char big[WSHANDSHAKE_MAX + 16];

    assert_int_equal(parse("HTTP/1.1 404 Not Found\r\n\r\n", &res, err, sizeof(err)), -1);
    assert_int_equal(res.status, 404);
    assert_string_equal(err, "WebSocket handshake: HTTP status 404");
    snprintf(s, sizeof(s),
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Accept: %.27sA\r\n\r\n",
             accept_ok);
    assert_int_equal(parse(s, &res, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "Sec-WebSocket-Accept"));
    snprintf(s, sizeof(s), "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: %s\r\n\r\n",
             accept_ok);
    assert_int_equal(parse(s, &res, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "Upgrade"));
    assert_int_equal(parse("HTTP/1.0 101 x\r\n\r\n", &res, err, sizeof(err)), -1);
    assert_int_equal(parse("garbage\r\n\r\n", &res, err, sizeof(err)), -1);
    memset(big, 'a', sizeof(big) - 1);
    assert_int_equal(wshandshake_parse(big, sizeof(big) - 1, key, &res, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "exceed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accept),  cmocka_unit_test(test_request), cmocka_unit_test(test_good),
        cmocka_unit_test(test_partial), cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

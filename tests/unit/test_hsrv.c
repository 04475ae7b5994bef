/* What --metrics and --web share: the address check (numeric HOST:PORT,
 * loopback unless there is a token file), the bearer header read, the
 * token compared, and a real server on a free loopback port that answers
 * through hsrv_reply with its headers and stops cleanly; on loopback, only
 * to a Host that names it (a rebound name gets 421). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "console/serve/hsrv.h"

#include "tests/unit/loopask.h"

static void test_check(void **state)
{
    assert_int_equal(hsrv_check("--web", NULL, NULL), 0);
    assert_int_equal(hsrv_check("--web", "127.0.0.1:0", NULL), 0);
    assert_int_equal(hsrv_check("--web", "[::1]:8080", NULL), 0);
    assert_int_equal(hsrv_check("--web", "0.0.0.0:0", NULL), -1); /* needs a token */
    assert_int_equal(hsrv_check("--web", "0.0.0.0:0", "tok"), 0);
    assert_int_equal(hsrv_check("--web", "nohost", NULL), -1);         /* no port */
    assert_int_equal(hsrv_check("--web", "localhost:8080", NULL), -1); /* numeric only */
}

static void test_bearer_and_token(void **state)
{
    hsrv s;
    char tok[] = "s3cret";

    assert_null(hsrv_bearer(NULL));
    assert_null(hsrv_bearer("Basic abc"));
    assert_string_equal(hsrv_bearer("Bearer   abc"), "abc");
    assert_string_equal(hsrv_bearer("bearer abc"), "abc");
    memset(&s, 0, sizeof(s));
    assert_true(hsrv_token_ok(&s, NULL)); /* loopback: no token needed */
    s.token = tok;
    s.token_len = strlen(tok);
    assert_true(hsrv_token_ok(&s, "s3cret"));
    assert_false(hsrv_token_ok(&s, "s3cre"));
    assert_false(hsrv_token_ok(&s, "s3cretx"));
    assert_false(hsrv_token_ok(&s, NULL));
}

static enum MHD_Result on_req(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **req_cls)
{
    const char *hdrs[] = {"X-One", "1", "X-Two", "2", NULL};
    return hsrv_reply(c, 200, "text/plain", "hello", 5, hdrs);
}

static void test_serve(void **state)
{
    hsrv s;
    char err[ERR_MAX], buf[1024], req[256];

    assert_int_equal(
        hsrv_start(&s, "--web", "127.0.0.1:0", NULL, NULL, on_req, NULL, "/", err, sizeof(err)), 0);
    assert_true(s.port > 0);
    snprintf(req, sizeof(req), "GET / HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n\r\n", s.port);
    loopask(s.port, req, buf, sizeof(buf));
    assert_non_null(strstr(buf, " 200 "));
    assert_non_null(strstr(buf, "X-One: 1"));
    assert_non_null(strstr(buf, "X-Two: 2"));
    assert_non_null(strstr(buf, "\r\n\r\nhello"));
    snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: localhost:%u\r\nConnection: close\r\n\r\n",
             s.port);
    loopask(s.port, req, buf, sizeof(buf));
    assert_non_null(strstr(buf, " 200 "));
    /* a name rebound to 127.0.0.1, or no name at all: 421, not the handler */
    snprintf(req, sizeof(req),
             "GET / HTTP/1.1\r\nHost: evil.example:%u\r\nConnection: close\r\n\r\n", s.port);
    loopask(s.port, req, buf, sizeof(buf));
    assert_non_null(strstr(buf, " 421 "));
    assert_null(strstr(buf, "hello"));
    loopask(s.port, "GET / HTTP/1.0\r\n\r\n", buf, sizeof(buf));
    assert_non_null(strstr(buf, " 421 "));
    hsrv_stop(&s);
    assert_null(s.d);
    hsrv_stop(&s); /* twice is fine */
}

static void test_host(void **state)
{
    hsrv s;
    const char *ok[] = {"127.0.0.1",      "127.0.0.1:8089", "localhost",
                        "LocalHost:8089", "[::1]",          "[::1]:8089"};
    const char *bad[] = {"evil.example",
                         "evil.example:8089",
                         "127.0.0.1:8090",
                         "127.0.0.1:80890",
                         "127.0.0.1:",
                         "localhost.evil.example",
                         "127.0.0.1.nip.io",
                         "localhost:8089@evil",
                         "",
                         "::1",
                         "[::1]:8089x",
                         "127.0.0.10:8089"};

    memset(&s, 0, sizeof(s));
    s.port = 8089;
    assert_true(hsrv_host_ok(&s, NULL)); /* non-loopback: any Host */
    assert_true(hsrv_host_ok(&s, "evil.example"));
    snprintf(s.host, sizeof(s.host), "127.0.0.1");
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_true(hsrv_host_ok(&s, ok[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (hsrv_host_ok(&s, bad[i]))
            fail_msg("Host \"%s\" was let through", bad[i]);
    }
    assert_false(hsrv_host_ok(&s, NULL));
    snprintf(s.host, sizeof(s.host), "[::1]");
    assert_true(hsrv_host_ok(&s, "[::1]:8089"));
    assert_false(hsrv_host_ok(&s, "127.0.0.2:8089"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_bearer_and_token),
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

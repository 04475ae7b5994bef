/* What --metrics and --web share: the address check (numeric HOST:PORT,
 * loopback unless there is a token file), the bearer header read, the
 * token compared, and a real server on a free loopback port that answers
 * through hsrv_reply with its headers and stops cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "console/hsrv.h"

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
    char err[256], buf[1024];
    struct sockaddr_in sa;
    ssize_t n, got = 0;
    int fd;

    assert_int_equal(
        hsrv_start(&s, "--web", "127.0.0.1:0", NULL, NULL, on_req, NULL, "/", err, sizeof(err)), 0);
    assert_true(s.port > 0);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)s.port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    const char req[] = "GET / HTTP/1.0\r\n\r\n";
    assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
    while ((n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += n;
    buf[got] = '\0';
    close(fd);
    assert_non_null(strstr(buf, " 200 "));
    assert_non_null(strstr(buf, "X-One: 1"));
    assert_non_null(strstr(buf, "X-Two: 2"));
    assert_non_null(strstr(buf, "\r\n\r\nhello"));
    hsrv_stop(&s);
    assert_null(s.d);
    hsrv_stop(&s); /* twice is fine */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_bearer_and_token),
        cmocka_unit_test(test_serve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for common/inaddr: which addresses are loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "common/inaddr.h"

static int v4(const char *a)
{
    struct sockaddr_in s;

    memset(&s, 0, sizeof(s));
    s.sin_family = AF_INET;
    inet_pton(AF_INET, a, &s.sin_addr);
    return inaddr_is_loopback((const struct sockaddr *)&s);
}

static int v6(const char *a)
{
    struct sockaddr_in6 s;

    memset(&s, 0, sizeof(s));
    s.sin6_family = AF_INET6;
    inet_pton(AF_INET6, a, &s.sin6_addr);
    return inaddr_is_loopback((const struct sockaddr *)&s);
}

static void test_loopback(void **state)
{
    struct sockaddr other = {.sa_family = AF_UNIX};

    assert_true(v4("127.0.0.1"));
    assert_true(v4("127.255.0.9"));
    assert_false(v4("128.0.0.1"));
    assert_false(v4("0.0.0.0"));
    assert_false(v4("10.0.0.127"));
    assert_true(v6("::1"));
    assert_false(v6("::"));
    assert_false(v6("::ffff:127.0.0.1")); /* a mapped address is not the IPv6 loopback */
    assert_false(inaddr_is_loopback(&other));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

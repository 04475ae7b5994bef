/* Unit tests for common/hostres: which "host:port:address" entries pass. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "common/hostres.h"

static int ok(const char *e)
{
    char err[ERR_MAX];
    err[0] = '\0';
    return hostres_check(e, err, sizeof(err)) == 0 && err[0] == '\0';
}

static void test_good(void **state)
{
    assert_true(ok("quern.test:443:127.0.0.1"));
    assert_true(ok("a:1:10.0.0.1,10.0.0.2"));
    assert_true(ok("v6.test:8443:[::1]"));
    assert_true(ok("host:65535:[2001:db8::1],127.0.0.1"));
}

static void test_bad(void **state)
{
    char err[ERR_MAX], big[HOSTRES_ENTRY_MAX + 8];

    assert_false(ok(""));
    assert_false(ok("host"));
    assert_false(ok("host:443"));
    assert_false(ok(":443:127.0.0.1"));
    assert_false(ok("host::127.0.0.1"));
    assert_false(ok("host:0:127.0.0.1"));
    assert_false(ok("host:65536:127.0.0.1"));
    assert_false(ok("host:99999999999999999999:127.0.0.1"));
    assert_false(ok("host:44x:127.0.0.1"));
    assert_false(ok("host:443:"));
    assert_false(ok("host:443:1.2.3.4,"));
    assert_false(ok("host:443:,1.2.3.4"));
    assert_false(ok("host:443:[::1"));
    assert_false(ok("host:443:127.0.0.1 x"));
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memcpy(big, "h:1:", 4);
    assert_int_equal(hostres_check(big, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "512"));
    assert_int_equal(hostres_check("host:0:1.2.3.4", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "port"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

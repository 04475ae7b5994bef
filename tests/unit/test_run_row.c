/* Unit tests for store/run_row: the computed values of a runs row: its times
 * in ISO 8601 UTC, the script's SHA-256, and the properties and command line
 * with every secret masked (a secret-named property, a URL's password), as
 * every writer of a runs row stores them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/props.h"
#include "store/run_row.h"

static void test_iso_utc(void **state)
{
    char b[40];

    run_row_iso_utc(1714564800123456LL, b, sizeof(b));
    assert_string_equal(b, "2024-05-01T12:00:00.123Z");
    run_row_iso_utc(0, b, sizeof(b));
    assert_string_equal(b, "1970-01-01T00:00:00.000Z");
}

static void test_hash_file(void **state)
{
    char path[] = "/tmp/quern-test-run_row-XXXXXX", hex[65], err[ERR_MAX];
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    assert_int_equal(run_row_hash_file(path, hex, err, sizeof(err)), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    assert_int_equal(run_row_hash_file(path, hex, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path)); /* names the file it could not read */
}

static void test_props_json(void **state)
{
    props *p = props_new();
    char *s;

    props_set(p, "base_url", "http://alice:pw-4711@shop.test/");
    props_set(p, "password", "S3cret");
    props_set(p, "api_token", "tok-1");
    props_set(p, "vus", "10");
    props_set(p, "empty_password", "");
    s = run_row_props_json(p, 1);
    assert_null(strstr(s, "pw-4711"));
    assert_null(strstr(s, "S3cret"));
    assert_null(strstr(s, "tok-1"));
    assert_non_null(strstr(s, "\"password\":\"***\""));
    assert_non_null(strstr(s, "\"vus\":\"10\""));          /* the rest as given */
    assert_non_null(strstr(s, "\"empty_password\":\"\"")); /* nothing to hide */
    assert_non_null(strstr(s, "shop.test/"));
    free(s); /* jansson's */
    s = run_row_props_json(p, 0);
    assert_non_null(strstr(s, "\"password\":\"S3cret\"")); /* unredacted when asked */
    free(s);
    props_free(p);
    s = run_row_props_json(NULL, 1);
    assert_string_equal(s, "{}");
    free(s);
}

static void test_command_line(void **state)
{
    const char *const argv[] = {
        "run",    "plan.lua", "-p", "password=S3cret", "-p", "base_url=http://u:pw-4711@h/",
        "--name", "two words"};
    char *s = run_row_command_line(8, argv);

    assert_non_null(s);
    assert_true(strncmp(s, "quern run plan.lua ", 19) == 0);
    assert_null(strstr(s, "S3cret"));
    assert_null(strstr(s, "pw-4711"));
    assert_non_null(strstr(s, "'two words'")); /* shell-quoted */
    xfree(s);
    assert_null(run_row_command_line(0, argv));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iso_utc),
        cmocka_unit_test(test_hash_file),
        cmocka_unit_test(test_props_json),
        cmocka_unit_test(test_command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* JTL lines: CSV fields are escaped as JMeter and RFC 4180 read them, cut
 * fields stay well-formed, and a JTL line has its 17 fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/wire/jtl.h"

static char *field(const char *s, size_t room)
{
    static char out[512];
    size_t n = jtl_csv_field(out, room, s);
    out[n] = '\0';
    return out;
}

static void test_csv_plain_and_quoted(void **state)
{
    assert_string_equal(field("SC-A-STEP-1)Login", 100), "SC-A-STEP-1)Login");
    assert_string_equal(field("", 100), "");
    assert_string_equal(field("a,b", 100), "\"a,b\"");
    assert_string_equal(field("say \"hi\"", 100), "\"say \"\"hi\"\"\"");
    assert_string_equal(field("two\nlines", 100), "\"two\nlines\"");
    assert_string_equal(field("cr\rhere", 100), "\"cr\rhere\"");
    assert_int_equal(jtl_csv_field(NULL, 0, NULL), 0);
}

static void test_csv_cut_stays_well_formed(void **state)
{
    /* Plain: cut to the room. */
    assert_string_equal(field("abcdef", 3), "abc");
    /* Quoted: the closing quote always fits, a doubled quote is never split. */
    assert_string_equal(field("a,bcdef", 5), "\"a,b\"");
    assert_string_equal(field("\"\"\"", 4), "\"\"\"\"");
    assert_string_equal(field("x\"y,", 4), "\"x\"");
    assert_string_equal(field("a,b", 1), "");
    assert_string_equal(field("a,b", 2), "\"\"");
}

static void test_jtl_line(void **state)
{
    char out[WFILE_LINE_MAX];
    char *big = malloc(20000);
    jtl_rec r;
    size_t n, at = 0;

    memset(&r, 0, sizeof(r));
    r.start_ms = 1700000000123;
    r.elapsed_ms = 42;
    r.label = "SC-X-STEP-2)Consultation, du \"profil\"";
    r.code = "200";
    r.message = "OK";
    r.thread = "local 1-17";
    r.success = 0;
    r.failure = "expected 201, got 200";
    r.bytes = 345;
    r.sent = 120;
    r.grp = r.all = 5;
    r.url = "http://h/p?a=1,2";
    r.latency_ms = 40;
    r.connect_ms = 3;
    n = jtl_line(out, sizeof(out), &r, &at);
    out[n] = '\0';
    assert_int_equal(strncmp(out + at, "5,5,\"http", 9), 0); /* the console rewrites there */
    assert_string_equal(out,
                        "1700000000123,42,\"SC-X-STEP-2)Consultation, du \"\"profil\"\"\",200,OK,"
                        "local 1-17,text,false,\"expected 201, got 200\",345,120,5,5,"
                        "\"http://h/p?a=1,2\",40,0,3\n");

    /* --traceparent: the trace id after JMeter's last column, empty when none */
    r.trace = "0af7651916cd43dd8448eb211c80319c";
    n = jtl_line(out, sizeof(out), &r, NULL);
    out[n] = '\0';
    assert_non_null(strstr(out, ",40,0,3,0af7651916cd43dd8448eb211c80319c\n"));
    r.trace = "";
    n = jtl_line(out, sizeof(out), &r, NULL);
    out[n] = '\0';
    assert_non_null(strstr(out, ",40,0,3,\n"));
    r.trace = NULL;

    /* Whatever the strings, the line fits and ends with a newline. */
    memset(big, '"', 19999);
    big[19999] = '\0';
    r.label = r.message = r.failure = r.url = r.thread = r.code = big;
    n = jtl_line(out, sizeof(out), &r, NULL);
    assert_true(n <= WFILE_LINE_MAX);
    assert_int_equal(out[n - 1], '\n');
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_plain_and_quoted),
        cmocka_unit_test(test_csv_cut_stays_well_formed),
        cmocka_unit_test(test_jtl_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

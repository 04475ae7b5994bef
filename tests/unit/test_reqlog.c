/* Request logs: CSV fields are escaped as JMeter and RFC 4180 read them, cut
 * fields stay well-formed, a JTL line has its 17 fields, and the buffered
 * file writes only when full or closed, losing nothing. */
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

#include "worker/reqlog.h"

static char *field(const char *s, size_t room)
{
    static char out[512];
    size_t n = reqlog_csv_field(out, room, s);
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
    assert_int_equal(reqlog_csv_field(NULL, 0, NULL), 0);
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
    char out[REQLOG_LINE_MAX];
    char *big = malloc(20000);
    reqlog_jtl r;
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
    n = reqlog_jtl_line(out, sizeof(out), &r, &at);
    out[n] = '\0';
    assert_int_equal(strncmp(out + at, "5,5,\"http", 9), 0); /* the console rewrites there */
    assert_string_equal(out,
                        "1700000000123,42,\"SC-X-STEP-2)Consultation, du \"\"profil\"\"\",200,OK,"
                        "local 1-17,text,false,\"expected 201, got 200\",345,120,5,5,"
                        "\"http://h/p?a=1,2\",40,0,3\n");

    /* Whatever the strings, the line fits and ends with a newline. */
    memset(big, '"', 19999);
    big[19999] = '\0';
    r.label = r.message = r.failure = r.url = r.thread = r.code = big;
    n = reqlog_jtl_line(out, sizeof(out), &r, NULL);
    assert_true(n <= REQLOG_LINE_MAX);
    assert_int_equal(out[n - 1], '\n');
    free(big);
}

static void test_file_buffers_until_full(void **state)
{
    char path[] = "/tmp/quern-reqlog-XXXXXX", err[256], line[100];
    int fd = mkstemp(path);
    reqlog_file f;
    struct stat st;
    size_t total = 0;
    uint64_t i;

    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(reqlog_file_open(&f, path, 16384, err, sizeof(err)), 0);
    /* Lines go to memory: nothing is written while a line still fits. */
    for (i = 0; i < 100; i++) {
        char *p = reqlog_file_reserve(&f);
        int n = snprintf(line, sizeof(line), "line %03llu\n", (unsigned long long)i);
        assert_non_null(p);
        memcpy(p, line, (size_t)n);
        reqlog_file_commit(&f, (size_t)n);
        total += (size_t)n;
    }
    assert_int_equal(f.flushes, 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    /* Past the buffer: written in big blocks, in order, nothing lost. */
    for (; i < 3000; i++) {
        char *p = reqlog_file_reserve(&f);
        int n = snprintf(line, sizeof(line), "line %04llu\n", (unsigned long long)i);
        memcpy(p, line, (size_t)n);
        reqlog_file_commit(&f, (size_t)n);
        total += (size_t)n;
    }
    assert_true(f.flushes >= 1 && f.flushes <= total / (16384 - REQLOG_LINE_MAX) + 1);
    reqlog_file_append(&f, "tail\n", 5);
    total += 5;
    assert_int_equal(f.lines, 3000);
    assert_int_equal(reqlog_file_close(&f), 0);
    assert_int_equal(reqlog_file_close(&f), 0); /* twice is fine */
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((size_t)st.st_size, total);
    {
        FILE *in = fopen(path, "r");
        char buf[64];
        int k = 0;
        assert_non_null(in);
        while (fgets(buf, sizeof(buf), in) != NULL && k < 3000) {
            unsigned v;
            assert_int_equal(sscanf(buf, "line %u", &v), 1);
            assert_int_equal(v, (unsigned)k);
            k++;
        }
        assert_int_equal(k, 3000);
        fclose(in);
    }
    unlink(path);
}

static void test_file_open_errors(void **state)
{
    reqlog_file f;
    char err[256];

    assert_int_equal(reqlog_file_open(&f, "/nonexistent-dir/x.jtl", 65536, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.jtl"));
    assert_null(reqlog_file_reserve(&f));
    assert_int_equal(reqlog_file_close(&f), 0);
    /* A buffer smaller than a line is refused. */
    assert_int_equal(reqlog_file_open(&f, "/tmp/quern-never", 100, err, sizeof(err)), -1);
    reqlog_file_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_plain_and_quoted),
        cmocka_unit_test(test_csv_cut_stays_well_formed),
        cmocka_unit_test(test_jtl_line),
        cmocka_unit_test(test_file_buffers_until_full),
        cmocka_unit_test(test_file_open_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

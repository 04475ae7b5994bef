/* The Grinder logs: the data_ log has The Grinder's header and one line per
 * step sample, Test numbered from 1; the out_ table counts only successful
 * samples as Tests, errors apart, and names each test with its step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "worker/wire/glog.h"
#include "worker/wire/scen.h"

/* The whole of the file at path, NUL-terminated (owned by the caller). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *s = calloc(1, 65536);
    size_t n;

    assert_non_null(f);
    n = fread(s, 1, 65535, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void test_data_and_out(void **state)
{
    char dir[] = "/tmp/quern-glog-XXXXXX", data[64], out[64], err[ERR_MAX];
    scen_set ss;
    scen *sc;
    glog g;
    glog_rec r;
    char *s;

    assert_non_null(mkdtemp(dir));
    snprintf(data, sizeof(data), "%s/data", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    scen_set_init(&ss);
    sc = scen_add(&ss, "A", "a.lua:1", err, sizeof(err));
    assert_non_null(scen_add_step(&ss, sc, 1, "Login", "a.lua:2", err, sizeof(err)));
    assert_non_null(scen_add_step(&ss, sc, 2, "Two  spaces \"q\"", "a.lua:3", err, sizeof(err)));

    assert_int_equal(glog_open(&g, data, out, "host-0", err, sizeof(err)), 0);
    glog_begin(&g, ss.nsteps);
    memset(&r, 0, sizeof(r));
    r.thread = 3;
    r.run = 1;
    r.step = 1;
    r.start_ms = 1700000000123;
    r.elapsed_ms = 42;
    r.ok = 1;
    r.status = 200;
    r.bytes_in = 512;
    r.dns_us = 1000;
    r.connect_us = 2000;
    r.ttfb_us = 30000;
    r.new_conns = 1;
    glog_sample(&g, &r);
    r.ok = 0;
    r.status = 500;
    glog_sample(&g, &r);
    r.step = 99; /* not a step of the run: a data line, no totals */
    glog_sample(&g, &r);
    assert_int_equal(glog_end(&g, &ss, 2000000, err, sizeof(err)), 0);
    glog_close(&g);
    glog_close(&g); /* twice is fine */

    s = slurp(data);
    assert_int_equal(strncmp(s, GLOG_DATA_HEADER "\n", strlen(GLOG_DATA_HEADER) + 1), 0);
    assert_non_null(strstr(s, "\n3, 1, 2, 1700000000123, 42, 0, 200, 512, 0, 1, 3, 30, 1\n"));
    assert_non_null(strstr(s, "\n3, 1, 2, 1700000000123, 42, 1, 500, 512, 1, 1, 3, 30, 1\n"));
    assert_non_null(strstr(s, "\n3, 1, 100, "));
    free(s);

    s = slurp(out);
    assert_non_null(strstr(s, "INFO  host-0: The Grinder 3 worker log format"));
    assert_non_null(strstr(s, "elapsed time is 2000 ms\n"));
    /* Test 2: one success, one error, one response error; Test 1 had none. */
    assert_non_null(strstr(s, "\nTest 2       1            1            42.00"));
    assert_null(strstr(s, "Test 1 "));
    /* The plugin splits on two spaces and strips quotes: neither is kept. */
    assert_non_null(strstr(s, "\"SC-A-STEP-2)Two_ spaces 'q'\"\n"));
    assert_non_null(strstr(s, "\nTotals       1            1            42.00"));
    free(s);

    unlink(data);
    unlink(out);
    rmdir(dir);
    scen_set_free(&ss);
}

static void test_open_errors(void **state)
{
    glog g;
    char err[ERR_MAX];

    assert_int_equal(glog_open(&g, "/nonexistent-dir/data", NULL, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/data"));
    glog_close(&g);
    /* No files at all: samples are counted, nothing is written. */
    assert_int_equal(glog_open(&g, NULL, NULL, NULL, err, sizeof(err)), 0);
    assert_string_equal(g.process, "local-0");
    glog_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_and_out),
        cmocka_unit_test(test_open_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

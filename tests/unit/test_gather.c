/* Unit tests for console/gather: the JTL's thread columns are the run's
 * active VUs of the sample's second, written once that second is merged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console/gather.h"
#include "proto/wfiles.h"

static char path[64];

static int setup(void **state)
{
    int fd;

    snprintf(path, sizeof(path), "/tmp/quern-gather-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    unlink(path);
    return 0;
}

/* The JTL written so far, without its header line. */
static const char *body(void)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n;
    char *nl;

    assert_non_null(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    nl = strchr(buf, '\n');
    assert_non_null(nl);
    assert_int_equal(strncmp(buf, WFILES_JTL_HEADER "\n", strlen(WFILES_JTL_HEADER) + 1), 0);
    return nl + 1;
}

static void part(gather *g, const char *data)
{
    Quern__FilePart fp = QUERN__FILE_PART__INIT;
    char err[256];

    fp.name = "jtl";
    fp.data.data = (uint8_t *)data;
    fp.data.len = strlen(data);
    assert_int_equal(gather_part(g, &fp, err, sizeof(err)), 0);
}

/* A worker's line for second s, its worker having own VUs active. */
static const char *line(uint64_t s, unsigned own, const char *label)
{
    static char out[2][512];
    static int i;
    char l[256];
    int at;

    i ^= 1;
    at = snprintf(l, sizeof(l), "1,2,%s,200,OK,a 1-1,text,true,,3,4,", label);
    snprintf(out[i], sizeof(out[i]), "%llu %u %d\t%s%u,%u,http://h/,1,0,0\n", (unsigned long long)s,
             own, at, l, own, own);
    return out[i];
}

static void test_rewritten_when_merged(void **state)
{
    char err[256];
    gather *g = gather_new(path, NULL, err, sizeof(err));
    char data[1024];

    assert_non_null(g);
    gather_second(g, 0, 12, 0);
    gather_second(g, 1, 12, 0);
    /* Known seconds: written at once, with the run's count. */
    part(g, line(1, 6, "a"));
    assert_string_equal(body(), "1,2,a,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n");
    /* Second 2 is not merged yet: held. */
    snprintf(data, sizeof(data), "%s%s", line(2, 6, "b"), line(1, 5, "c"));
    part(g, data);
    assert_string_equal(body(), "1,2,a,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n"
                                "1,2,c,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n");
    /* Second 2 ends with the VUs stopped: its samples count the VUs it
     * started with. */
    gather_second(g, 2, 0, 0);
    assert_non_null(strstr(body(), "1,2,b,200,OK,a 1-1,text,true,,3,4,12,12,http://h/"));
    assert_int_equal(gather_jtl_lines(g), 3);
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    gather_free(g);
}

static void test_floor_late_and_close(void **state)
{
    char err[256];
    gather *g = gather_new(path, NULL, err, sizeof(err));

    assert_non_null(g);
    /* Never fewer than the sample's own worker had. */
    gather_second(g, 0, 0, 0);
    part(g, line(0, 3, "own"));
    assert_non_null(strstr(body(), ",own,200,OK,a 1-1,text,true,,3,4,3,3,"));
    /* A late agent's part of a second adds to it. */
    part(g, line(5, 1, "late"));
    gather_second(g, 5, 4, 0);
    assert_non_null(strstr(body(), ",late,200,OK,a 1-1,text,true,,3,4,4,4,"));
    gather_second(g, 6, 2, 0);
    gather_second(g, 6, 3, 1);
    part(g, line(7, 1, "after"));
    /* Closing writes what is still held with what is known. */
    part(g, line(9, 2, "held"));
    assert_null(strstr(body(), ",held,"));
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    assert_non_null(strstr(body(), ",after,200,OK,a 1-1,text,true,,3,4,5,5,"));
    assert_non_null(strstr(body(), ",held,200,OK,a 1-1,text,true,,3,4,2,2,"));
    gather_free(g);
}

/* A line without a well-formed prefix is written as it came. */
static void test_malformed(void **state)
{
    char err[256];
    gather *g = gather_new(path, NULL, err, sizeof(err));

    assert_non_null(g);
    part(g, "plain,line\n");
    part(g, "1 2 999\tshort,line\n"); /* offset past the line */
    part(g, "1 2 2\tabc,def\n");      /* no "2,2," there */
    part(g, "x y z\tq\nno newline");
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    assert_string_equal(body(), "plain,line\n1 2 999\tshort,line\n1 2 2\tabc,def\n"
                                "x y z\tq\nno newline");
    gather_free(g);
    gather_second(NULL, 0, 1, 0); /* no --jtl: nothing to do */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rewritten_when_merged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floor_late_and_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for common/opttab.c: one table for getopt_long and the help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/opttab.h"

typedef struct t_opts {
    const char *db;
    int quiet;
} t_opts;

static const opttab_row rows[] = {
    {NULL, 0, 0, NULL, "usage: quern t [options]\n\noptions:", OPTTAB_NONE},
    {"db", required_argument, 'd', "--db FILE", "a database\nsecond line", OPTTAB_STR(t_opts, db)},
    {"quiet", no_argument, 'q', "-q, --quiet", "say less", OPTTAB_SET(t_opts, quiet)},
    {"limit", required_argument, 300, "--a-very-long-flag N", "its text below", OPTTAB_NONE},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
    {NULL, 0, 0, NULL, "\nend.", OPTTAB_NONE},
};
static const opttab tab = {rows, sizeof(rows) / sizeof(rows[0]), 12};

static void test_usage(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    assert_non_null(f);
    opttab_usage(&tab, f);
    fclose(f);
    assert_string_equal(buf, "usage: quern t [options]\n"
                             "\n"
                             "options:\n"
                             "  --db FILE   a database\n"
                             "              second line\n"
                             "  -q, --quiet say less\n"
                             "  --a-very-long-flag N\n"
                             "              its text below\n"
                             "\n"
                             "end.\n");
    free(buf);
}

static void test_longopts(void **state)
{
    struct option lo[sizeof(rows) / sizeof(rows[0]) + 1];

    (void)state;
    assert_int_equal(opttab_longopts(&tab, lo), 4);
    assert_string_equal(lo[0].name, "db");
    assert_int_equal(lo[0].has_arg, required_argument);
    assert_int_equal(lo[0].val, 'd');
    assert_string_equal(lo[2].name, "limit");
    assert_int_equal(lo[2].val, 300);
    assert_string_equal(lo[3].name, "help"); /* parsed, though not shown */
    assert_null(lo[4].name);
    assert_int_equal(lo[4].val, 0);
}

static void test_plain_and_name(void **state)
{
    t_opts o = {NULL, 0};
    char buf[32];

    (void)state;
    assert_int_equal(opttab_plain(&tab, 'd', "x.db", &o), 1);
    assert_string_equal(o.db, "x.db");
    assert_int_equal(opttab_plain(&tab, 'q', NULL, &o), 1);
    assert_int_equal(o.quiet, 1);
    assert_int_equal(opttab_plain(&tab, 300, "5", &o), 0); /* its parser checks it */
    assert_int_equal(opttab_plain(&tab, 'z', "5", &o), 0);
    assert_string_equal(opttab_name(&tab, 300, buf, sizeof(buf)), "--limit");
    assert_string_equal(opttab_name(&tab, 'q', buf, sizeof(buf)), "--quiet");
    assert_string_equal(opttab_name(&tab, 'z', buf, sizeof(buf)), "-z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_longopts),
        cmocka_unit_test(test_plain_and_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

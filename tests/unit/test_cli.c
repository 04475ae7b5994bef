/* Unit tests for common/cli: the option named in a usage error as it was
 * typed, whichever form getopt_long parsed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <getopt.h>
#include <string.h>

#include "common/cli.h"

static const struct option opts[] = {
    {"db", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {NULL, 0, NULL, 0},
};

/* The flag cli_flag names for the first option of argv (as getopt_long
 * returns it, in order, ':' on a missing value). */
static const char *first_flag(int argc, char **argv, int *c)
{
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then starts afresh (a caller may have parsed before) */
    *c = getopt_long(argc, argv, "-:o:", opts, NULL);
    return cli_flag(argv, optind, *c == ':' || *c == '?' ? NULL : optarg);
}

static void test_flag(void **state)
{
    char a0[] = "report", db[] = "--db", empty[] = "", dbeq[] = "--db=", o[] = "-o",
         bogus[] = "--x";
    char *v1[] = {a0, db, empty, NULL};
    char *v2[] = {a0, dbeq, NULL};
    char *v3[] = {a0, o, NULL};
    char *v4[] = {a0, bogus, NULL};
    int c;

    assert_string_equal(first_flag(3, v1, &c), "--db");
    assert_int_equal(c, 'd');
    assert_string_equal(first_flag(2, v2, &c), "--db=");
    assert_string_equal(first_flag(2, v3, &c), "-o");
    assert_int_equal(c, ':');
    assert_string_equal(first_flag(2, v4, &c), "--x");
    assert_int_equal(c, '?');
}

static void test_usage_err(void **state)
{
    assert_int_equal(cli_usage_err("runs", "unknown argument %s", "x"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag),
        cmocka_unit_test(test_usage_err),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for common/opttab.c: one table for getopt_long and the help,
 * and the one parse loop: the messages of an unknown flag, a missing or
 * empty value and a "--", the three places of the arguments, a handler's
 * error and stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
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
static const opttab tab = {rows, sizeof(rows) / sizeof(rows[0]), 12, .args = OPTTAB_ARGS_INLINE};

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

/* What the handler saw, one "val[flag]=v;" an item ("@=v;" an argument). */
typedef struct t_seen {
    char log[256];
    int fail_on; /* this val: the handler refuses it */
    int stop_on; /* this val: the handler stops with success */
} t_seen;

static int t_opt(void *ctx, int val, const char *flag, const char *v, char *err, size_t errlen)
{
    t_seen *s = ctx;
    size_t n = strlen(s->log);

    if (val == OPTTAB_ARG)
        snprintf(s->log + n, sizeof(s->log) - n, "@=%s;", v);
    else
        snprintf(s->log + n, sizeof(s->log) - n, "%c[%s]=%s;", val < 128 ? val : '#', flag,
                 v != NULL ? v : "");
    if (val == s->fail_on) {
        err_set(err, errlen, "%s: not that", flag != NULL ? flag : v);
        return -1;
    }
    return val == s->stop_on ? OPTTAB_DONE : 0;
}

/* Parses the words of line (at most 15) with t; the result, err and the log. */
static int t_parse(const opttab *t, const char *line, t_seen *s, char *err, size_t errlen)
{
    char buf[256], *argv[16], *save = NULL;
    int argc = 0;

    snprintf(buf, sizeof(buf), "%s", line);
    for (char *w = strtok_r(buf, " ", &save); w != NULL && argc < 15;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = strcmp(w, "''") == 0 ? w + 2 : w; /* '' is an empty word */
    argv[argc] = NULL;
    return opttab_parse(t, argc, argv, t_opt, s, err, errlen);
}

static void test_parse_in_order(void **state)
{
    opttab t = tab;
    t_seen s = {"", 0, 0};
    char err[ERR_MAX];

    (void)state;
    t.shorts = "hqd:";
    assert_int_equal(t_parse(&t, "x a -q --db=f.db b -d g.db --limit 3", &s, err, sizeof(err)), 0);
    assert_string_equal(s.log, "@=a;q[-q]=;d[--db=f.db]=f.db;@=b;d[-d]=g.db;#[--limit]=3;");
    assert_string_equal(err, "");
    /* a second parse starts afresh */
    s.log[0] = '\0';
    assert_int_equal(t_parse(&t, "x -q", &s, err, sizeof(err)), 0);
    assert_string_equal(s.log, "q[-q]=;");
}

static void test_parse_refused(void **state)
{
    opttab t = tab;
    t_seen s = {"", 0, 0};
    char err[ERR_MAX];

    (void)state;
    t.shorts = "hqd:";
    assert_int_equal(t_parse(&t, "x --bogus", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option --bogus");
    assert_int_equal(t_parse(&t, "x -Z", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option -Z");
    assert_int_equal(t_parse(&t, "x a --db", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "--db needs a value");
    assert_int_equal(t_parse(&t, "x -q -d", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "-d needs a value");
    assert_int_equal(t_parse(&t, "x a -- b", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option --");
    /* an empty value is a value unless the table refuses it */
    s.log[0] = '\0';
    assert_int_equal(t_parse(&t, "x --db=", &s, err, sizeof(err)), 0);
    assert_string_equal(s.log, "d[--db=]=;");
    t.refuse_empty = 1;
    assert_int_equal(t_parse(&t, "x --db=", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "--db= needs a value");
    assert_int_equal(t_parse(&t, "x -d ''", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "-d needs a value");
    /* the command's own words */
    t.unknown = "unknown argument %s";
    assert_int_equal(t_parse(&t, "x --", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown argument --");
    t.dashdash_ok = 1;
    s.log[0] = '\0';
    assert_int_equal(t_parse(&t, "x a -- -q b", &s, err, sizeof(err)), 0);
    assert_string_equal(s.log, "@=a;"); /* what follows "--" is not read */
}

static void test_parse_named(void **state)
{
    opttab t = tab;
    t_seen s = {"", 0, 0};
    char err[ERR_MAX];

    (void)state;
    t.named = 1;
    t.args = OPTTAB_ARGS_AFTER;
    /* shorts NULL: every row's character, 'd' with its value */
    assert_int_equal(t_parse(&t, "x a -d f.db -- -q", &s, err, sizeof(err)), 0);
    assert_string_equal(s.log, "d[--db]=f.db;@=a;@=-q;");
    assert_int_equal(t_parse(&t, "x -d", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "--db needs a value");
    assert_int_equal(t_parse(&t, "x --quiet=1", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "--quiet takes no value");
    assert_int_equal(t_parse(&t, "x --bogus=1", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option --bogus");
    assert_int_equal(t_parse(&t, "x -qZ", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option -Z");
}

static void test_parse_no_args(void **state)
{
    opttab t = tab;
    t_seen s = {"", 0, 0};
    char err[ERR_MAX];

    (void)state;
    t.args = OPTTAB_ARGS_NONE;
    t.unknown = "unknown option %s (see x --help)";
    assert_int_equal(t_parse(&t, "x -q a -d f.db", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option a (see x --help)");
    assert_string_equal(s.log, "q[-q]=;"); /* the first argument ended the flags */
    assert_int_equal(t_parse(&t, "x -q --", &s, err, sizeof(err)), 0);
}

static void test_parse_handler(void **state)
{
    opttab t = tab;
    t_seen s = {"", 300, 'h'};
    char err[ERR_MAX];

    (void)state;
    assert_int_equal(t_parse(&t, "x -q --limit 3 -q", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "--limit: not that");
    assert_string_equal(s.log, "q[-q]=;#[--limit]=3;"); /* nothing after the refused flag */
    s.log[0] = '\0';
    assert_int_equal(t_parse(&t, "x --help --limit 3", &s, err, sizeof(err)), OPTTAB_DONE);
    assert_string_equal(s.log, "h[--help]=;");
    /* an argument refused, after the flags */
    t.args = OPTTAB_ARGS_AFTER;
    s.fail_on = OPTTAB_ARG;
    s.stop_on = 0;
    assert_int_equal(t_parse(&t, "x a -q", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "a: not that");
    /* err starts empty: a handler that said why itself leaves it so */
    assert_int_equal(opttab_parse(&t, 1, (char *[]){"x", NULL}, t_opt, &s, err, sizeof(err)), 0);
    assert_string_equal(err, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),          cmocka_unit_test(test_longopts),
        cmocka_unit_test(test_plain_and_name), cmocka_unit_test(test_parse_in_order),
        cmocka_unit_test(test_parse_refused),  cmocka_unit_test(test_parse_named),
        cmocka_unit_test(test_parse_no_args),  cmocka_unit_test(test_parse_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

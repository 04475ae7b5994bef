/* Unit tests for console/expo: the exposition text, its limits, selectors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "console/monitor_expo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the callback saw: the last sample's text, and a count. */
typedef struct seen {
    int n;
    char last[512];
    double sum;
} seen;

static void on_sample(void *ud, const monitor_expo_sample *s)
{
    seen *x = ud;
    size_t off;

    x->n++;
    if (!isnan(s->value) && !isinf(s->value))
        x->sum += s->value;
    off = (size_t)snprintf(x->last, sizeof(x->last), "%s", s->name);
    for (size_t i = 0; i < s->nlabels && off < sizeof(x->last); i++)
        off += (size_t)snprintf(x->last + off, sizeof(x->last) - off, "|%s=%s", s->labels[i].name,
                                s->labels[i].value);
    if (off < sizeof(x->last))
        snprintf(x->last + off, sizeof(x->last) - off, " %g", s->value);
}

static int parse(const char *text, seen *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof(*x));
    return monitor_expo_parse(text, strlen(text), on_sample, x, err, errlen);
}

static void test_samples(void **state)
{
    seen x;
    char err[ERR_MAX] = "";
    const char *node = "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n"
                       "# TYPE node_cpu_seconds_total counter\n"
                       "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 18854.36\n"
                       "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 5331.91\n"
                       "\n"
                       "node_load1 5.19\n"
                       "node_memory_MemTotal_bytes 2.5275990016e+10\r\n"
                       "  spaced{a=\"1\" , b=\"2\",} 3 1700000000000\n"
                       "last 7";

    assert_int_equal(parse(node, &x, err, sizeof(err)), 0);
    assert_int_equal(x.n, 6);
    assert_string_equal(x.last, "last 7");
    assert_true(fabs(x.sum - (18854.36 + 5331.91 + 5.19 + 2.5275990016e10 + 3 + 7)) < 1e-3);
    assert_int_equal(parse("spaced{a=\"1\" , b=\"2\",} 3 1700000000000\n", &x, err, sizeof(err)),
                     0);
    assert_string_equal(x.last, "spaced|a=1|b=2 3");
    /* escapes, special values */
    assert_int_equal(parse("m{p=\"a\\\"b\\\\c\\nd\"} NaN\n", &x, err, sizeof(err)), 0);
    assert_string_equal(x.last, "m|p=a\"b\\c\nd nan");
    assert_int_equal(parse("m +Inf\nm -Inf\n", &x, err, sizeof(err)), 0);
    assert_int_equal(x.n, 2);
    assert_string_equal(x.last, "m -inf");
    assert_int_equal(parse("", &x, err, sizeof(err)), 0);
    assert_int_equal(x.n, 0);
}

static void fails(const char *text, size_t len, const char *want)
{
    seen x;
    char err[ERR_MAX] = "";

    memset(&x, 0, sizeof(x));
    if (monitor_expo_parse(text, len, on_sample, &x, err, sizeof(err)) == 0)
        fail_msg("accepted: %.60s", text);
    if (strstr(err, want) == NULL)
        fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_malformed(void **state)
{
    fails("ok 1\n{a=\"b\"} 1\n", 16, "line 2: a metric name expected");
    fails("m{a=b} 1\n", 9, "line 1: a quoted label value expected");
    fails("m{a=\"b} 1\n", 10, "without its closing quote");
    fails("m{a=\"\\x\"} 1\n", 12, "unknown escape");
    fails("m{a\"b\"} 1\n", 10, "'=' expected");
    fails("m{a=\"b\" c=\"d\"} 1\n", 17, "',' or '}' expected");
    fails("m 0x10\n", 7, "a number expected");
    fails("m infinity\n", 11, "a number expected");
    fails("m\n", 2, "a value expected");
    fails("m 1 12.5\n", 9, "timestamp is not an integer");
    fails("m 1 2 3\n", 8, "text after the timestamp");
    fails("m\x01 1\n", 5, "a space or '{' expected");
    fails("m 1\nm\0 1\n", 9, "line 2: a NUL byte");
}

static void test_limits(void **state)
{
    size_t n = MONITOR_EXPO_LINE_MAX + 10, off = 0;
    char *big = malloc(64 * 40 + MONITOR_EXPO_LINE_MAX + 64);
    seen x;
    char err[ERR_MAX];

    /* a line of MONITOR_EXPO_LINE_MAX bytes is read, one more is refused */
    memset(big, 'a', n);
    memcpy(big + MONITOR_EXPO_LINE_MAX - 2, " 1", 2);
    big[MONITOR_EXPO_LINE_MAX] = '\n';
    memset(&x, 0, sizeof(x));
    assert_int_equal(
        monitor_expo_parse(big, MONITOR_EXPO_LINE_MAX + 1, on_sample, &x, err, sizeof(err)), 0);
    assert_int_equal(x.n, 1);
    memcpy(big + MONITOR_EXPO_LINE_MAX - 1, " 1", 2);
    fails(big, MONITOR_EXPO_LINE_MAX + 1, "line 1: longer than 4096 bytes");
    /* labels: 32 fine, 33 refused */
    for (int k = 0; k < 2; k++) {
        off = (size_t)sprintf(big, "m{");
        for (int i = 0; i < MONITOR_EXPO_LABELS_MAX + k; i++)
            off += (size_t)sprintf(big + off, "l%d=\"v\",", i);
        off += (size_t)sprintf(big + off, "} 1\n");
        if (k == 0) {
            assert_int_equal(parse(big, &x, err, sizeof(err)), 0);
            assert_int_equal(x.n, 1);
        } else {
            fails(big, off, "labels in one series");
        }
    }
    free(big);
    /* series: MONITOR_EXPO_SERIES_MAX fine, one more refused */
    {
        size_t len = (MONITOR_EXPO_SERIES_MAX + 1) * 4;
        char *many = malloc(len);
        for (size_t i = 0; i <= MONITOR_EXPO_SERIES_MAX; i++)
            memcpy(many + i * 4, "m 1\n", 4);
        memset(&x, 0, sizeof(x));
        assert_int_equal(monitor_expo_parse(many, len - 4, on_sample, &x, err, sizeof(err)), 0);
        assert_int_equal(x.n, MONITOR_EXPO_SERIES_MAX);
        fails(many, len, "more than 50000 series");
        free(many);
    }
}

static void test_selectors(void **state)
{
    monitor_expo_sel sel;
    char err[ERR_MAX] = "";
    monitor_expo_label l[2] = {{"cpu", "0"}, {"mode", "user"}};
    monitor_expo_sample s = {"node_cpu_seconds_total", l, 2, 1.0};

    assert_int_equal(monitor_expo_sel_parse("node_cpu_seconds_total", &sel, err, sizeof(err)), 0);
    assert_int_equal(sel.nlabels, 0);
    assert_true(monitor_expo_sel_match(&sel, &s));
    assert_int_equal(
        monitor_expo_sel_parse("node_cpu_seconds_total{mode=\"user\"}", &sel, err, sizeof(err)), 0);
    assert_int_equal(sel.nlabels, 1);
    assert_string_equal(sel.lname[0], "mode");
    assert_true(monitor_expo_sel_match(&sel, &s));
    assert_string_equal(monitor_expo_label_get(&s, "cpu"), "0");
    assert_null(monitor_expo_label_get(&s, "device"));
    l[1].value = "idle";
    assert_false(monitor_expo_sel_match(&sel, &s));
    assert_int_equal(monitor_expo_sel_parse("node_load1", &sel, err, sizeof(err)), 0);
    assert_false(monitor_expo_sel_match(&sel, &s));
    assert_int_equal(monitor_expo_sel_parse("", &sel, err, sizeof(err)), -1);
    assert_int_equal(monitor_expo_sel_parse("a b", &sel, err, sizeof(err)), -1);
    assert_int_equal(monitor_expo_sel_parse("m{mode=user}", &sel, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "a quoted label value expected"));
    assert_int_equal(monitor_expo_sel_parse("9m", &sel, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "'9m'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_selectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for reports/junit (and console/thresh's JUnit cases): the XML
 * is read back with libxml2 and checked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "console/thresh.h"
#include "reports/junit.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char path[128];

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/quern-junit.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof(path), "%s/junit.xml", dir);
    return 0;
}

static int teardown(void **state)
{
    unlink(path);
    rmdir(dir);
    xmlCleanupParser();
    return 0;
}

/* ---- reading back */

static xmlDocPtr read_back(void)
{
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    if (doc == NULL)
        fail_msg("%s is not well-formed XML", path);
    return doc;
}

/* The value of attribute name of n, copied into buf ("" if absent). */
static const char *attr(xmlNodePtr n, const char *name, char *buf, size_t len)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    snprintf(buf, len, "%s", v != NULL ? (const char *)v : "");
    xmlFree(v);
    return buf;
}

static void assert_attr(xmlNodePtr n, const char *name, const char *want)
{
    char buf[1024];
    if (strcmp(attr(n, name, buf, sizeof(buf)), want) != 0)
        fail_msg("%s=\"%s\", want \"%s\"", name, buf, want);
}

/* The text content of n, copied into buf. */
static const char *text(xmlNodePtr n, char *buf, size_t len)
{
    xmlChar *v = xmlNodeGetContent(n);
    snprintf(buf, len, "%s", v != NULL ? (const char *)v : "");
    xmlFree(v);
    return buf;
}

/* The i-th element child of n named name, or NULL. */
static xmlNodePtr child(xmlNodePtr n, const char *name, int i)
{
    for (xmlNodePtr c = n->children; c != NULL; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0 && i-- == 0)
            return c;
    return NULL;
}

static int count_children(xmlNodePtr n, const char *name)
{
    int k = 0;
    while (child(n, name, k) != NULL)
        k++;
    return k;
}

/* The suite, checked to be the root. */
static xmlNodePtr suite_of(xmlDocPtr doc)
{
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_non_null(root);
    assert_string_equal((const char *)root->name, "testsuite");
    return root;
}

/* ---- junit_write */

static void test_write_basic(void **state)
{
    junit_case cases[] = {
        {"quern.demo", "SC-A-STEP-1)home", 0.0123, 0, NULL, NULL, NULL, "count 10"},
        {"quern.demo", "threshold p95<500ms", 0, 1, "p95 of all steps = 612.3 ms, limit < 500 ms",
         "threshold", "details\nline 2", NULL},
        {"quern.demo", "threshold errors<1%", 0, 0, NULL, NULL, NULL, NULL},
    };
    char err[256] = "", buf[1024];
    xmlNodePtr s, c;
    xmlDocPtr doc;

    assert_int_equal(junit_write(path, "demo", cases, 3, 61.25, err, sizeof(err)), 0);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "name", "demo");
    assert_attr(s, "tests", "3");
    assert_attr(s, "failures", "1");
    assert_attr(s, "errors", "0");
    assert_attr(s, "skipped", "0");
    assert_attr(s, "time", "61.250");
    /* 2024-05-02T10:00:00 */
    attr(s, "timestamp", buf, sizeof(buf));
    assert_int_equal(strlen(buf), 19);
    assert_true(buf[4] == '-' && buf[10] == 'T' && buf[13] == ':');
    assert_true(strlen(attr(s, "hostname", buf, sizeof(buf))) > 0);
    assert_int_equal(count_children(s, "testcase"), 3);

    c = child(s, "testcase", 0);
    assert_attr(c, "classname", "quern.demo");
    assert_attr(c, "name", "SC-A-STEP-1)home");
    assert_attr(c, "time", "0.012");
    assert_null(child(c, "failure", 0));
    assert_string_equal(text(child(c, "system-out", 0), buf, sizeof(buf)), "count 10");

    c = child(s, "testcase", 1);
    assert_non_null(child(c, "failure", 0));
    assert_attr(child(c, "failure", 0), "message", "p95 of all steps = 612.3 ms, limit < 500 ms");
    assert_attr(child(c, "failure", 0), "type", "threshold");
    assert_string_equal(text(child(c, "failure", 0), buf, sizeof(buf)), "details\nline 2");
    assert_null(child(c, "system-out", 0));

    c = child(s, "testcase", 2);
    assert_null(child(c, "failure", 0));
    assert_null(child(c, "system-out", 0));
    xmlFreeDoc(doc);
}

static void test_write_escaping(void **state)
{
    const char *nasty = "a<b>&c\"d'e";
    junit_case cases[] = {
        {"quern.<&\">", nasty, 0, 1, "1 < 2 && \"x\" > 'y'\nnext line\ttab", "t<&>",
         "body <tag> & \"q\" ]]> end", "out <&> ]]>"},
    };
    char err[256] = "", buf[1024];
    xmlNodePtr s, c, f;
    xmlDocPtr doc;

    assert_int_equal(junit_write(path, "suite <&\">", cases, 1, 0, err, sizeof(err)), 0);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "name", "suite <&\">");
    assert_attr(s, "time", "0.000");
    c = child(s, "testcase", 0);
    assert_attr(c, "classname", "quern.<&\">");
    assert_attr(c, "name", nasty);
    f = child(c, "failure", 0);
    /* new lines and tabs in attributes survive (written as character references) */
    assert_attr(f, "message", "1 < 2 && \"x\" > 'y'\nnext line\ttab");
    assert_attr(f, "type", "t<&>");
    assert_string_equal(text(f, buf, sizeof(buf)), "body <tag> & \"q\" ]]> end");
    assert_string_equal(text(child(c, "system-out", 0), buf, sizeof(buf)), "out <&> ]]>");
    xmlFreeDoc(doc);
}

static void test_write_untrusted_bytes(void **state)
{
    /* error samples come from the network: control characters and invalid
     * UTF-8 become '?', valid UTF-8 stays */
    junit_case cases[] = {
        {"quern.x", "caf\xc3\xa9 \xe2\x82\xac", 0, 1, "bell\x07 esc\x1b nul-less \xff\xfe end",
         NULL, "overlong \xc0\xaf surrogate \xed\xa0\x80 cut \xe2\x82", "\x01\x02ok\r\n"},
    };
    char err[256] = "", buf[1024];
    xmlNodePtr c;
    xmlDocPtr doc;

    assert_int_equal(junit_write(path, "s", cases, 1, 1, err, sizeof(err)), 0);
    doc = read_back();
    c = child(suite_of(doc), "testcase", 0);
    assert_attr(c, "name", "caf\xc3\xa9 \xe2\x82\xac");
    assert_attr(child(c, "failure", 0), "message", "bell? esc? nul-less ?? end");
    assert_string_equal(text(child(c, "failure", 0), buf, sizeof(buf)),
                        "overlong ?? surrogate ??? cut ??");
    assert_string_equal(text(child(c, "system-out", 0), buf, sizeof(buf)), "??ok\r\n");
    xmlFreeDoc(doc);
}

static void test_write_empty_and_nulls(void **state)
{
    junit_case cases[] = {{NULL, NULL, -1, 1, NULL, NULL, NULL, NULL}};
    char err[256] = "";
    xmlNodePtr s, c;
    xmlDocPtr doc;

    assert_int_equal(junit_write(path, "empty", NULL, 0, 0, err, sizeof(err)), 0);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "tests", "0");
    assert_attr(s, "failures", "0");
    assert_int_equal(count_children(s, "testcase"), 0);
    xmlFreeDoc(doc);

    /* NULL strings are written empty; a negative or infinite time as 0 */
    assert_int_equal(junit_write(path, NULL, cases, 1, INFINITY, err, sizeof(err)), 0);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "time", "0.000");
    c = child(s, "testcase", 0);
    assert_attr(c, "name", "");
    assert_attr(c, "time", "0.000");
    assert_attr(child(c, "failure", 0), "message", "");
    xmlFreeDoc(doc);
}

static void test_write_fails(void **state)
{
    junit_case c = {"quern.x", "n", 0, 0, NULL, NULL, NULL, NULL};
    char err[256] = "", bad[160];

    snprintf(bad, sizeof(bad), "%s/no/such/dir/junit.xml", dir);
    assert_int_equal(junit_write(bad, "s", &c, 1, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot write "));
    assert_non_null(strstr(err, "No such file or directory"));
    /* a NULL error buffer is fine */
    assert_int_equal(junit_write(bad, "s", &c, 1, 0, NULL, 0), -1);
}

/* ---- a run's cases, end to end: agg + thresholds -> cases -> XML */

static const char *const ids[] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-B-STEP-1"};
static const char *const names[] = {"SC-A-STEP-1)home <&\">", "SC-A-STEP-2)search",
                                    "SC-B-STEP-1)login"};

static void build(agg *a)
{
    step_stats steps[3];
    uint64_t runs[1] = {3}, missed[1] = {0};

    agg_init(a, 3, 1);
    for (size_t i = 0; i < 3; i++) {
        stats_init(&steps[i]);
        /* step i: 100 samples of (i + 1) * 200 ms */
        hist_record_n(steps[i].hist, (uint64_t)(i + 1) * 200000, 100);
        steps[i].count = 100;
    }
    steps[1].err_tech = 3;
    steps[1].err_func = 1;
    stats_note_error(&steps[1], 1, "HTTP 503 <Service Unavailable> & co");
    agg_add(a, steps, runs, missed, 10000000, 5);
    for (size_t i = 0; i < 3; i++)
        stats_free(&steps[i]);
}

static void test_run_cases(void **state)
{
    const char *exprs[] = {"SC-A-*: p95<500ms", "errors<1%", "SC-B-STEP-1: count>=100", "tps>=30"};
    enum { NT = sizeof(exprs) / sizeof(exprs[0]) };
    thresh *ts[NT];
    thresh_result rs[NT];
    thresh_junit j;
    char err[256] = "", buf[2048];
    xmlNodePtr s, c;
    xmlDocPtr doc;
    agg a;

    build(&a);
    for (size_t i = 0; i < NT; i++) {
        ts[i] = thresh_parse(exprs[i], err, sizeof(err));
        assert_non_null(ts[i]);
        thresh_eval(ts[i], &a, ids, names, 10, &rs[i]);
    }
    /* p95 of SC-A-*: 100 samples of 200 ms, 100 of 400 ms */
    assert_true(rs[0].passed);
    assert_false(rs[1].passed); /* 4 of 300 = 1.333 % */
    assert_true(rs[2].passed);
    assert_true(rs[3].passed); /* 300 in 10 s */

    /* make the scoped one fail: a tighter limit on the same steps */
    thresh_free(ts[0]);
    ts[0] = thresh_parse("SC-A-*: p95<300ms", err, sizeof(err));
    assert_non_null(ts[0]);
    assert_false(thresh_eval(ts[0], &a, ids, names, 10, &rs[0]));

    thresh_junit_cases(&j, "demo", &a, ids, names, 10, (const thresh *const *)ts, rs, NT);
    assert_int_equal(j.n, 3 + NT);
    assert_int_equal(junit_write(path, "demo", j.cases, j.n, 10, err, sizeof(err)), 0);
    thresh_junit_free(&j);
    thresh_junit_free(&j); /* twice is fine */

    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "tests", "7");
    /* the two SC-A steps (covered by the failed scoped threshold; the
     * failed errors<1% adds SC-A-STEP-2's errors), and the two failed
     * thresholds; SC-B-STEP-1 had no error */
    assert_attr(s, "failures", "4");
    assert_int_equal(count_children(s, "testcase"), 7);

    c = child(s, "testcase", 0);
    assert_attr(c, "classname", "quern.demo");
    assert_attr(c, "name", "SC-A-STEP-1)home <&\">");
    assert_attr(c, "time", "0.200");
    assert_attr(child(c, "failure", 0), "message",
                "threshold 'SC-A-*: p95<300ms' failed: p95 of SC-A-* (2 steps) = 400 ms, "
                "limit < 300 ms");

    c = child(s, "testcase", 1);
    assert_attr(c, "name", "SC-A-STEP-2)search");
    /* its errors first (a failed errors threshold covers it), then the rest */
    assert_attr(child(c, "failure", 0), "message",
                "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                "Unavailable> & co), 1 functional (and 1 more)");
    text(child(c, "system-out", 0), buf, sizeof(buf));
    assert_non_null(strstr(buf, "count 100, errors 4 (technical 3, functional 1), error rate 4 %"));
    assert_non_null(strstr(buf, "technical error, e.g. HTTP 503 <Service Unavailable> & co"));

    /* a step without error and without a failed scoped threshold passes */
    c = child(s, "testcase", 2);
    assert_attr(c, "name", "SC-B-STEP-1)login");
    assert_null(child(c, "failure", 0));
    text(child(c, "system-out", 0), buf, sizeof(buf));
    assert_non_null(strstr(buf, "tps 10/s, mean 600 ms, p50 600 ms"));

    c = child(s, "testcase", 3);
    assert_attr(c, "name", "threshold SC-A-*: p95<300ms");
    assert_attr(child(c, "failure", 0), "message",
                "p95 of SC-A-* (2 steps) = 400 ms, limit < 300 ms");
    assert_attr(child(c, "failure", 0), "type", "threshold");
    assert_string_equal(text(child(c, "failure", 0), buf, sizeof(buf)),
                        "threshold 'SC-A-*: p95<300ms' failed: p95 of SC-A-* (2 steps) = 400 ms, "
                        "limit < 300 ms\n200 samples in 2 step(s)\n");
    assert_null(child(c, "system-out", 0));

    c = child(s, "testcase", 4);
    assert_attr(c, "name", "threshold errors<1%");
    assert_attr(child(c, "failure", 0), "message",
                "errors of all steps = 1.333 % (4 of 300), limit < 1 %");

    c = child(s, "testcase", 5);
    assert_attr(c, "name", "threshold SC-B-STEP-1: count>=100");
    assert_null(child(c, "failure", 0));
    assert_string_equal(text(child(c, "system-out", 0), buf, sizeof(buf)),
                        "passed: count of SC-B-STEP-1 = 100, limit >= 100\n");

    c = child(s, "testcase", 6);
    assert_attr(c, "name", "threshold tps>=30");
    assert_null(child(c, "failure", 0));
    xmlFreeDoc(doc);

    for (size_t i = 0; i < NT; i++)
        thresh_free(ts[i]);
    agg_free(&a);
}

/* A failed errors threshold without a scope fails the case of each step
 * that had errors (not the others); a passing one fails none. */
static void test_run_cases_errors(void **state)
{
    thresh *t;
    thresh_result r;
    thresh_junit j;
    char err[256] = "", buf[2048];
    xmlDocPtr doc;
    xmlNodePtr s, c;
    agg a;

    build(&a);
    t = thresh_parse("errors<=0%", err, sizeof(err));
    assert_non_null(t);
    assert_false(thresh_eval(t, &a, ids, names, 10, &r));
    thresh_junit_cases(&j, "demo", &a, ids, names, 10, (const thresh *const *)&t, &r, 1);
    assert_int_equal(junit_write(path, "demo", j.cases, j.n, 10, err, sizeof(err)), 0);
    thresh_junit_free(&j);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "failures", "2"); /* SC-A-STEP-2 and the threshold's own case */
    assert_null(child(child(s, "testcase", 0), "failure", 0));
    c = child(s, "testcase", 1);
    assert_attr(child(c, "failure", 0), "message",
                "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                "Unavailable> & co), 1 functional");
    text(child(c, "failure", 0), buf, sizeof(buf));
    assert_string_equal(buf, "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                             "Unavailable> & co), 1 functional");
    assert_null(child(child(s, "testcase", 2), "failure", 0));
    xmlFreeDoc(doc);
    thresh_free(t);

    /* errors<5% passes (1.333 %): the errors are tolerated, no step fails */
    t = thresh_parse("errors<5%", err, sizeof(err));
    assert_true(thresh_eval(t, &a, ids, names, 10, &r));
    thresh_junit_cases(&j, "demo", &a, ids, names, 10, (const thresh *const *)&t, &r, 1);
    for (size_t i = 0; i < j.n; i++)
        assert_false(j.cases[i].failed);
    thresh_junit_free(&j);
    thresh_free(t);
    agg_free(&a);
}

static void test_run_cases_no_thresholds(void **state)
{
    thresh_junit j;
    char err[256] = "";
    xmlDocPtr doc;
    xmlNodePtr s;
    agg a;

    build(&a);
    thresh_junit_cases(&j, NULL, &a, ids, NULL, 10, NULL, NULL, 0);
    assert_int_equal(j.n, 3);
    assert_string_equal(j.cases[0].classname, "quern.run");
    assert_string_equal(j.cases[0].name, "SC-A-STEP-1");
    assert_int_equal(junit_write(path, "run", j.cases, j.n, 10, err, sizeof(err)), 0);
    thresh_junit_free(&j);
    doc = read_back();
    s = suite_of(doc);
    assert_attr(s, "tests", "3");
    assert_attr(s, "failures", "0");
    xmlFreeDoc(doc);
    agg_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_basic),
        cmocka_unit_test(test_write_escaping),
        cmocka_unit_test(test_write_untrusted_bytes),
        cmocka_unit_test(test_write_empty_and_nulls),
        cmocka_unit_test(test_write_fails),
        cmocka_unit_test(test_run_cases),
        cmocka_unit_test(test_run_cases_errors),
        cmocka_unit_test(test_run_cases_no_thresholds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

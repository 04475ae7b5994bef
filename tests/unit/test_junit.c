/* Unit tests for reports/junit: the XML
 * is read back with libxml2 and checked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
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
    char err[ERR_MAX] = "", buf[1024];
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
    char err[ERR_MAX] = "", buf[1024];
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
    char err[ERR_MAX] = "", buf[1024];
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
    char err[ERR_MAX] = "";
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
    char err[ERR_MAX] = "", bad[160];

    snprintf(bad, sizeof(bad), "%s/no/such/dir/junit.xml", dir);
    assert_int_equal(junit_write(bad, "s", &c, 1, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot write "));
    assert_non_null(strstr(err, "No such file or directory"));
    /* a NULL error buffer is fine */
    assert_int_equal(junit_write(bad, "s", &c, 1, 0, NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_basic),           cmocka_unit_test(test_write_escaping),
        cmocka_unit_test(test_write_untrusted_bytes), cmocka_unit_test(test_write_empty_and_nulls),
        cmocka_unit_test(test_write_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

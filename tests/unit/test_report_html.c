/* Unit tests for reports/report_html: a run written through store/db, loaded by
 * store/query and rendered, then parsed back with libxml2's HTML parser:
 * its title, each step's row with its counts, the totals, the error table,
 * names escaped (no markup of theirs in the page), and a run that did not
 * end said to be partial. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/db.h"
#include "store/query.h"
#include "reports/report_html.h"

#include "tests/unit/dbfix.h"
#include "tests/unit/runfix.h"

/* The page of run id, as text (xfree it) and parsed (*doc: xmlFreeDoc). */
static char *render(fx *f, int64_t id, htmlDocPtr *doc)
{
    char err[ERR_MAX], *buf = NULL, *page;
    size_t len = 0;
    query_run *r = query_run_load(f->d, id, 0, NULL, err, sizeof(err));
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(r);
    assert_non_null(out);
    report_html_write(out, r);
    assert_int_equal(ferror(out), 0);
    fclose(out);
    query_run_free(r);
    page = xstrdup(buf);
    free(buf); /* open_memstream's: malloc'd by libc */
    *doc = htmlReadMemory(page, (int)strlen(page), "r.html", "utf-8",
                          HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    assert_non_null(*doc);
    return page;
}

/* The string value of an XPath expression over doc ("" when none); xfree it. */
static char *xs(htmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr c = xmlXPathNewContext(doc);
    xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, c);
    xmlChar *s;
    char *v;

    assert_non_null(o);
    s = xmlXPathCastToString(o);
    v = xstrdup((const char *)s);
    xmlFree(s);
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(c);
    return v;
}

static void assert_xs(htmlDocPtr doc, const char *expr, const char *want)
{
    char *got = xs(doc, expr);

    if (strcmp(got, want) != 0) {
        fail_msg("%s: got \"%s\", want \"%s\"", expr, got, want);
    }
    xfree(got);
}

static void test_ended(void **state)
{
    fx *f = *state;
    int64_t id = runfix_write(f->d, f->script, "plan<script>", "Home <b>&</b>", 1);
    htmlDocPtr doc;
    char *page = render(f, id, &doc), want[128];

    snprintf(want, sizeof(want), "quern report: plan<script> (run %lld)", (long long)id);
    assert_xs(doc, "string(/html/head/title)", want);
    /* one row a step, in order, with its counts; the totals in the footer */
    assert_xs(doc, "string(count(//table[@class='steps']/tbody/tr))", "2");
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[1]/td[1]/code)", "SC-S-STEP-1");
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[1]/td[2]/@data-count)", "6");
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[1]/td[@data-errors]/@data-errors)",
              "0");
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[2]/td[1]/span[@class='lbl'])",
              "Home <b>&</b>");
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[2]/td[@data-errors]/@data-errors)",
              "1");
    assert_xs(doc, "string(//table[@class='steps']/tfoot/tr/td[2]/@data-count)", "7");
    /* the error: its kind, its step, its message */
    assert_xs(doc, "string(count(//table[@class='errors']/tbody/tr))", "1");
    assert_xs(doc, "string(//table[@class='errors']/tbody/tr/td[1])", "technical");
    assert_xs(doc, "string(//table[@class='errors']/tbody/tr/td[2])", "SC-S-STEP-2");
    assert_xs(doc, "string(//table[@class='errors']/tbody/tr/td[3])", "connection refused");
    assert_xs(doc, "string(count(//*[@id='incomplete']))", "0");
    assert_xs(doc, "string(count(//section[@id='verdict']))", "1");
    /* markup in names is text: no element of theirs in the page */
    assert_xs(doc, "string(count(//script))", "0");
    assert_xs(doc, "string(count(//table[@class='steps']//b))", "0");
    assert_non_null(strstr(page, "Home &lt;b&gt;&amp;&lt;/b&gt;"));
    assert_null(strstr(page, "The run did not end"));
    xmlFreeDoc(doc);
    xfree(page);
}

static void test_partial(void **state)
{
    fx *f = *state;
    int64_t id = runfix_write(f->d, f->script, "plan<script>", "Home <b>&</b>", 0);
    htmlDocPtr doc;
    char *page = render(f, id, &doc), *note;

    /* the figures summed from the recorded seconds, and said so */
    assert_xs(doc, "string(//table[@class='steps']/tbody/tr[1]/td[2]/@data-count)", "6");
    assert_xs(doc, "string(//table[@class='steps']/tfoot/tr/td[2]/@data-count)", "7");
    note = xs(doc, "string(//section[@id='steps']/p[@class='note'])");
    assert_non_null(strstr(note, "The run did not end"));
    xfree(note);
    xmlFreeDoc(doc);
    xfree(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ended, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_partial, setup_open, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);

    xmlCleanupParser();
    return rc;
}

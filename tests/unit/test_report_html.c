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
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include "store/db.h"
#include "store/query.h"
#include "reports/report_html.h"

#include "tests/unit/dbfix.h"

/* Writes a run of two steps over three seconds (as test_query.c does): step
 * 0 has 2 samples a second (1 ms and 3 ms), step 1 one technical error in
 * second 1; the run's name and a label carry markup. Ends it (with totals)
 * when end is 1. */
static int64_t write_run(fx *f, int end)
{
    static const db_step steps[2] = {{"SC-S-STEP-1", "Login", "S"},
                                     {"SC-S-STEP-2", "Home <b>&</b>", "S"}};
    static const char *const scens[1] = {"S"};
    db_run_info ri = {0};
    step_stats s[2], tot[2];
    uint64_t runs = 1, missed = 0;
    rate_counts arr = {4, 3, 1, 1}; /* the open model's arrivals each second */
    db_iv iv = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = "plan<script>";
    ri.script = f->script;
    ri.vus = 2;
    ri.started_us = 1700000000000000;
    ri.steps = steps;
    ri.nsteps = 2;
    ri.scen_names = scens;
    ri.nscens = 1;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    for (int i = 0; i < 2; i++) {
        stats_init(&s[i]);
        stats_init(&tot[i]);
    }
    iv.length_us = 1000000;
    iv.active_vus = 2;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &runs;
    iv.missed = &missed;
    iv.nscens = 1;
    iv.arrivals = &arr;
    for (uint64_t sec = 0; sec < 3; sec++) {
        for (int i = 0; i < 2; i++)
            stats_reset(&s[i]);
        s[0].count = 2;
        hist_record(s[0].hist, 1000);
        hist_record(s[0].hist, 3000);
        if (sec == 1) {
            s[1].count = 1;
            s[1].err_tech = 1;
            stats_note_error(&s[1], 1, "connection refused");
            hist_record(s[1].hist, 500);
        }
        iv.second = sec;
        iv.start_us = ri.started_us + (int64_t)sec * 1000000;
        assert_int_equal(db_interval(f->d, id, &iv, err, sizeof(err)), 0);
        for (int i = 0; i < 2; i++)
            stats_merge(&tot[i], &s[i]);
    }
    if (end) {
        db_run_end_info ei = {"completed", ri.started_us + 3000000, 3000000, tot, 2, NULL};
        assert_int_equal(db_run_end(f->d, id, &ei, err, sizeof(err)), 0);
    }
    for (int i = 0; i < 2; i++) {
        stats_free(&s[i]);
        stats_free(&tot[i]);
    }
    return id;
}

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
    int64_t id = write_run(f, 1);
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
    int64_t id = write_run(f, 0);
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

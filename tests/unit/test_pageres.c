/* Unit tests for worker/pageres: a page step's embedded resources fetched by
 * the real engine (a libev loop and a libcurl multi) from an HTTP server in
 * a thread of the test (tests/unit/loopsrv.h, whose /page embeds a
 * stylesheet, a script and an image, each fresh for 300 s), judged by the
 * requests the server saw.
 *
 * With resources, the page's 3 resources are requested once: the next run
 * finds them fresh in the VU's cache and requests the page only, and
 * r.resources says so (fetched, cached, failed, its time at least the
 * page's own); cache = false requests them again; an exclude pattern
 * drops one; a resource that fails (500) is the step's technical error,
 * naming it; the step's requests are those the server saw for it, its one
 * sample the page's, from the page's request to the last resource's end;
 * the resources of a later run carry the VU's cookies.
 * Without the loop: the per-origin key (pageres_origin_len). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/hist.h"
#include "worker/engine/engine.h"
#include "worker/plugs/pageres.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

/* One step "Page" that gets /page + page_q with options opts each run,
 * then tells the server (untimed, /report...) what r.resources said; in
 * run 1, first, the server gives the VU a cookie (untimed, /cookie). */
static void write_script(char *path, size_t len, unsigned port, const char *page_q,
                         const char *opts)
{
    char buf[1536];

    snprintf(buf, sizeof(buf),
             "local quern = require \"quern\"\n"
             "local http = require \"quern.http\"\n"
             "local base = \"http://127.0.0.1:%u\"\n"
             "local sc = quern.scenario(\"PAGE\", {})\n"
             "local page = sc:step(1, \"Page\")\n"
             "function sc.run(vu)\n"
             "  if vu.run == 1 then http.get(base .. \"/cookie\") end\n"
             "  local r = page:get(base .. \"/page%s?run=\" .. vu.run, { %s })\n"
             "  local x = r.resources\n"
             "  http.get(base .. \"/report?run=\" .. vu.run .. \"&f=\" .. x.fetched .. \"&c=\" .. "
             "x.cached\n"
             "           .. \"&x=\" .. x.failed .. \"&long=\" .. tostring(x.time >= r.time))\n"
             "end\n",
             port, page_q, opts);
    scriptfile_write(path, len, "pageres", buf);
}

static void must_see(const loopsrv *s, const char *p)
{
    if (loopsrv_find(s, p) == NULL)
        fail_msg("the server never saw %s", p);
}

/* Plays 1 VU of runs runs of the page script. */
static void play(loopsrv *s, enginefix *f, char *path, size_t len, uint32_t runs,
                 const char *page_q, const char *opts)
{
    engine_cfg cfg;

    memset(s, 0, sizeof(*s));
    loopsrv_start(s);
    write_script(path, len, s->port, page_q, opts);
    enginefix_cfg(&cfg, path, 1, runs);
    enginefix_new(f, &cfg, -1, -1);
    enginefix_run(f);
    loopsrv_stop(s);
    assert_int_equal(f->status, ENGINE_COMPLETED);
    assert_true(f->run_us < WALL_MAX_US);
}

/* Run 1: the page, then its 3 resources (after the page, on the VU's
 * connections), all fetched; runs 2 and 3: the page only, the 3 cached. The
 * step's requests are the server's 5 less the untimed reports; its sample
 * in run 1 lasts at least from the page's request to the last resource's. */
static void test_cached(void **state)
{
    static const char *const res[] = {"/res/site.css", "/res/app.js", "/res/logo.png"};
    char path[96];
    const loopsrv_req *page;
    int64_t last = 0;
    loopsrv s;
    enginefix f;

    play(&s, &f, path, sizeof(path), 3, "", "resources = true");
    page = loopsrv_find(&s, "/page?run=1");
    assert_non_null(page);
    for (int i = 0; i < 3; i++) {
        const loopsrv_req *r = loopsrv_find(&s, res[i]);
        if (r == NULL)
            fail_msg("the page's %s was never asked for", res[i]);
        assert_true(r->at_us >= page->at_us);
        if (r->at_us > last)
            last = r->at_us;
        assert_int_equal(loopsrv_count(&s, res[i]), 1); /* then fresh in the cache */
    }
    assert_int_equal(loopsrv_count(&s, "/res/"), 3);
    must_see(&s, "/page?run=2");
    must_see(&s, "/page?run=3");
    must_see(&s, "/report?run=1&f=3&c=0&x=0&long=true");
    must_see(&s, "/report?run=2&f=0&c=3&x=0&long=true");
    must_see(&s, "/report?run=3&f=0&c=3&x=0&long=true");
    assert_int_equal(s.nreq, 10);
    assert_int_equal(f.steps[0].count, 3);
    assert_int_equal(f.steps[0].requests,
                     s.nreq - loopsrv_count(&s, "/report") - loopsrv_count(&s, "/cookie"));
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    if (hist_max(f.steps[0].hist) < (uint64_t)(last - page->at_us))
        fail_msg("the page took %llu us, its resources came %lld us after it",
                 (unsigned long long)hist_max(f.steps[0].hist), (long long)(last - page->at_us));
    enginefix_free(&f);
    unlink(path);
}

/* cache = false: each run requests the 3 resources again, and every one
 * carries the cookie the VU got in run 1, those of run 1 too: that cookie
 * is still in the handle the VU holds when the page's answer comes, and
 * the resources' handles start from it (vu_save_jar), as a browser's
 * requests for a page's resources carry the cookies set just before. */
static void test_no_cache(void **state)
{
    char path[96];
    const loopsrv_req *page1;
    loopsrv s;
    enginefix f;
    unsigned with = 0;

    play(&s, &f, path, sizeof(path), 2, "", "resources = true, cache = false");
    assert_int_equal(loopsrv_count(&s, "/res/"), 6);
    assert_int_equal(loopsrv_count(&s, "/res/logo.png"), 2);
    page1 = loopsrv_find(&s, "/page?run=1");
    assert_non_null(page1);
    for (const loopsrv_req *r = page1 + 1; r < s.log + s.nreq; r++)
        if (strncmp(r->path, "/res/", 5) == 0) {
            assert_string_equal(r->cookie, "k1=1"); /* the VU's cookies go with them */
            with++;
        }
    assert_int_equal(with, 6);
    must_see(&s, "/report?run=2&f=3&c=0&x=0&long=true");
    assert_int_equal(f.steps[0].requests, 8);
    enginefix_free(&f);
    unlink(path);
}

/* An exclude pattern: the image is never asked for, the other 2 are. */
static void test_exclude(void **state)
{
    char path[96];
    loopsrv s;
    enginefix f;

    play(&s, &f, path, sizeof(path), 1, "", "resources = { exclude = { \"*/logo.png\" } }");
    assert_int_equal(loopsrv_count(&s, "/res/logo.png"), 0);
    must_see(&s, "/res/site.css");
    must_see(&s, "/res/app.js");
    must_see(&s, "/report?run=1&f=2&c=0&x=0&long=true");
    assert_int_equal(f.steps[0].requests, 3);
    enginefix_free(&f);
    unlink(path);
}

/* Without resources the page is the only request. */
static void test_not_asked(void **state)
{
    char path[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;
    char buf[512];

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    snprintf(buf, sizeof(buf),
             "local quern = require \"quern\"\n"
             "local sc = quern.scenario(\"PAGE\", {})\n"
             "local page = sc:step(1, \"Page\")\n"
             "function sc.run(vu) page:get(\"http://127.0.0.1:%u/page\") end\n",
             s.port);
    scriptfile_write(path, sizeof(path), "pageres", buf);
    enginefix_cfg(&cfg, path, 1, 1);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);
    assert_int_equal(s.nreq, 1);
    assert_int_equal(f.steps[0].requests, 1);
    enginefix_free(&f);
    unlink(path);
}

/* A page whose fourth resource fails with a 500: the step's one
 * technical error names it; the others are still fetched. */
static void test_failed_resource(void **state)
{
    char path[96], want[128];
    loopsrv s;
    enginefix f;
    const step_stats *st;

    play(&s, &f, path, sizeof(path), 1, "-bad", "resources = true");
    must_see(&s, "/500/missing.png");
    assert_int_equal(loopsrv_count(&s, "/res/"), 3);
    must_see(&s, "/report?run=1&f=3&c=0&x=1&long=true");
    st = &f.steps[0];
    assert_int_equal(st->count, 1);
    assert_int_equal(st->requests, 5);
    assert_int_equal(st->err_tech, 1);
    assert_int_equal(st->err_func, 0);
    snprintf(want, sizeof(want), "resource http://127.0.0.1:%u/500/missing.png: HTTP status 500",
             s.port);
    if (strstr(st->sample_tech, want) == NULL)
        fail_msg("the error says \"%s\", not \"%s\"", st->sample_tech, want);
    enginefix_free(&f);
    unlink(path);
}

static void test_origin_len(void **state)
{
    assert_int_equal(pageres_origin_len("http://h:1/a?b"), 10);
    assert_int_equal(pageres_origin_len("https://example.test/"), 20);
    assert_int_equal(pageres_origin_len("http://h:1"), 10);
    assert_int_equal(pageres_origin_len("no-scheme/x"), 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached),          cmocka_unit_test(test_no_cache),
        cmocka_unit_test(test_exclude),         cmocka_unit_test(test_not_asked),
        cmocka_unit_test(test_failed_resource), cmocka_unit_test(test_origin_len),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

/* Unit tests for worker/reqlog: a worker's result files (--jtl, and
 * --grinder-logs' data_ and out_) written by the real engine (a libev loop
 * and a libcurl multi) against an HTTP server in a thread of the test
 * (tests/unit/loopsrv.h), each line held against the requests the server
 * saw.
 *
 * 2 VUs of 2 runs: a step request each run, a step request the server
 * fails (500) in run 2, an untimed request each run. The JTL has a line
 * per request the server saw, each with its URL (password masked), its
 * step's name or the untimed request's path as label, its status and
 * success, the worker's threadName, and a prefix saying its interval and
 * its active VUs, and where they are in the line for the console; the
 * data_ log a line per step sample with its test, run, errors and status;
 * the out_ table each step's tests and errors. A page's resources fetched
 * are lines of their own before the page's, as JMeter's sub-results. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/engine/engine_int.h"
#include "worker/wire/glog.h"
#include "worker/plugs/reqlog.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */
#define FILE_MAX (64u << 10)
#define NF 17 /* a JTL line's fields, WORKERFILES_JTL_HEADER's */

static void slurp(const char *path, char *out)
{
    FILE *fp = fopen(path, "r");
    size_t n;

    assert_non_null(fp);
    n = fread(out, 1, FILE_MAX - 1, fp);
    out[n] = '\0';
    fclose(fp);
}

/* Splits the JTL line at p (up to its newline) into its prefix's numbers
 * and fields (into buf); the start of the next line. */
static const char *jtl_line(const char *p, unsigned long long pre[3], char *buf, size_t len,
                            char *fld[NF])
{
    const char *tab = strchr(p, '\t'), *nl = tab != NULL ? strchr(tab, '\n') : NULL;
    char *q;
    int n = 0;

    if (tab == NULL || nl == NULL || sscanf(p, "%llu %llu %llu", &pre[0], &pre[1], &pre[2]) != 3)
        fail_msg("not a JTL line: %.80s", p);
    snprintf(buf, len, "%.*s", (int)(nl - tab - 1), tab + 1);
    for (q = buf; n < NF; n++) {
        fld[n] = q;
        q = strchr(q, ',');
        if (q == NULL)
            break;
        *q++ = '\0';
    }
    if (n != NF - 1)
        fail_msg("a JTL line of %d fields: %s", n + 1, tab + 1);
    return nl + 1;
}

/* Each line: its length in its prefix; by label, the status, message and
 * success of its request; every request the server saw, once, by URL. */
static void check_jtl(const char *txt, const loopsrv *s, const enginefix *f)
{
    char line[1024], url[256], *fld[NF];
    unsigned long long pre[3];
    unsigned lines = 0, get = 0, bad = 0, plain = 0, thr[3] = {0, 0, 0};
    int64_t t0_ms = f->e->t0_wall_us / 1000;

    if (strstr(txt, "pw123") != NULL)
        fail_msg("the password is in the JTL:\n%s", txt);
    for (const char *p = txt; *p != '\0'; lines++) {
        char act[24];
        long long ts;
        p = jtl_line(p, pre, line, sizeof(line), fld);
        /* the prefix: the interval, the active VUs then, where they are */
        assert_true(pre[0] < f->intervals);
        assert_true(pre[1] >= 1 && pre[1] <= 2);
        assert_int_equal(pre[2], (unsigned long long)(fld[11] - line));
        snprintf(act, sizeof(act), "%llu", pre[1]);
        assert_string_equal(fld[11], act);
        assert_string_equal(fld[12], act);
        ts = strtoll(fld[0], NULL, 10);
        assert_true(ts >= t0_ms && ts <= t0_ms + f->run_us / 1000 + 1);
        if (strcmp(fld[2], "SC-LOG-STEP-1)Get") == 0) {
            get++;
            assert_string_equal(fld[3], "200");
            assert_string_equal(fld[7], "true");
        } else if (strcmp(fld[2], "SC-LOG-STEP-2)Bad") == 0) {
            bad++;
            assert_string_equal(fld[3], "500");
            assert_string_equal(fld[4], "Internal Server Error");
            assert_string_equal(fld[7], "false");
            assert_string_equal(fld[8], "HTTP status 500");
        } else if (strcmp(fld[2], "/plain/x") == 0) {
            plain++;
            assert_string_equal(fld[3], "200");
            assert_string_equal(fld[7], "true");
        } else {
            fail_msg("a JTL line labelled %s", fld[2]);
        }
        if (strcmp(fld[5], "agentA 3-1") == 0)
            thr[1]++;
        else if (strcmp(fld[5], "agentA 3-2") == 0)
            thr[2]++;
        else
            fail_msg("a JTL line of thread \"%s\"", fld[5]);
    }
    assert_int_equal(lines, s->nreq);
    assert_int_equal(get, 4);
    assert_int_equal(bad, 2);
    assert_int_equal(plain, 4);
    assert_int_equal(thr[1], 5);
    assert_int_equal(thr[2], 5);
    for (unsigned i = 0; i < s->nreq; i++) {
        unsigned seen = 0, lined = 0;
        snprintf(url, sizeof(url), "http://u:***@127.0.0.1:%u%s", s->port, s->log[i].path);
        for (unsigned j = 0; j < s->nreq; j++)
            seen += strcmp(s->log[j].path, s->log[i].path) == 0;
        for (const char *p = txt; *p != '\0'; lined += strcmp(fld[13], url) == 0)
            p = jtl_line(p, pre, line, sizeof(line), fld);
        if (lined != seen)
            fail_msg("%s: %u JTL lines, the server saw it %u times", url, lined, seen);
    }
}

/* The header, then a line per step sample: 4 of test 1, fine, 2 of test 2,
 * an error each, status 500, in run 1 (0-based), one for each VU's slot. */
static void check_data(const char *txt)
{
    const char *p = strchr(txt, '\n');
    unsigned n[3] = {0, 0, 0}, thread, run, test, errs, code;
    unsigned long long start, el;

    assert_non_null(p);
    assert_int_equal(p - txt, strlen(GLOG_DATA_HEADER));
    assert_memory_equal(txt, GLOG_DATA_HEADER, strlen(GLOG_DATA_HEADER));
    for (p++; *p != '\0'; p = strchr(p, '\n') + 1) {
        if (sscanf(p, "%u, %u, %u, %llu, %llu, %u, %u", &thread, &run, &test, &start, &el, &errs,
                   &code) != 7 ||
            test < 1 || test > 2 || thread > 1 || run > 1)
            fail_msg("a data_ line: %.80s", p);
        n[test]++;
        assert_int_equal(errs, test == 2);
        assert_int_equal(code, test == 2 ? 500 : 200);
        if (test == 2)
            assert_int_equal(run, 1);
    }
    assert_int_equal(n[1], 4);
    assert_int_equal(n[2], 2);
}

/* The table: test 1, 4 tests and no error; test 2, none and 2 errors;
 * each named by its step. */
static void check_out(const char *txt)
{
    const char *t1 = strstr(txt, "\nTest 1 "), *t2 = strstr(txt, "\nTest 2 ");
    unsigned long long tests, errs;

    if (t1 == NULL || t2 == NULL)
        fail_msg("no Test 1 and Test 2 rows:\n%s", txt);
    assert_int_equal(sscanf(t1, "\nTest 1 %llu %llu", &tests, &errs), 2);
    assert_int_equal(tests, 4);
    assert_int_equal(errs, 0);
    assert_int_equal(sscanf(t2, "\nTest 2 %llu %llu", &tests, &errs), 2);
    assert_int_equal(tests, 0);
    assert_int_equal(errs, 2);
    assert_non_null(strstr(t1, "\"SC-LOG-STEP-1)Get\"\n"));
    assert_non_null(strstr(t2, "\"SC-LOG-STEP-2)Bad\"\n"));
}

/* Plays vus VUs of runs runs of text (its one %u: the server's port) with
 * the result files at jtl, data and out (NULL: none), worker 2 of agent
 * agentA; the server's log in s, the engine's sums in f (freed by the
 * caller). */
static void play_logged(loopsrv *s, enginefix *f, char *path, size_t len, const char *text,
                        uint32_t vus, uint32_t runs, const char *jtl, const char *data,
                        const char *out)
{
    char buf[1024], err[ERR_MAX];
    reqlog_cfg rc;
    reqlog *l;
    engine_cfg cfg;

    memset(&rc, 0, sizeof(rc));
    rc.jtl_path = jtl;
    rc.data_path = data;
    rc.out_path = out;
    rc.agent = "agentA";
    rc.process = "hostA-2";
    rc.worker = 2;
    l = reqlog_new(&rc, err, sizeof(err));
    if (l == NULL)
        fail_msg("reqlog_new: %s", err);
    memset(s, 0, sizeof(*s));
    loopsrv_start(s);
    snprintf(buf, sizeof(buf), text, s->port);
    scriptfile_write(path, len, "reqlog", buf);
    enginefix_cfg(&cfg, path, vus, runs);
    cfg.reqlog = l;
    enginefix_new(f, &cfg, -1, -1);
    reqlog_begin(l, f->nsteps, 1, 1, vus);
    enginefix_run(f);
    loopsrv_stop(s);
    if (reqlog_end(l, engine_scens(f->e), f->run_us, err, sizeof(err)) != 0)
        fail_msg("reqlog_end: %s", err);
    reqlog_free(l);
    assert_int_equal(f->status, ENGINE_COMPLETED);
    assert_true(f->run_us < WALL_MAX_US);
}

static void test_files(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local http = require \"quern.http\"\n"
                               "local base = \"http://u:pw123@127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"LOG\", {})\n"
                               "local get = sc:step(1, \"Get\")\n"
                               "local bad = sc:step(2, \"Bad\")\n"
                               "function sc.run(vu)\n"
                               "  get:get(base .. \"/ok?vu=\" .. vu.id .. \"&run=\" .. vu.run)\n"
                               "  if vu.run == 2 then bad:get(base .. \"/500?vu=\" .. vu.id) end\n"
                               "  http.get(base .. \"/plain/x?vu=\" .. vu.id)\n"
                               "end\n";
    char path[96], jtl[] = "/tmp/quern-test-reqlog.XXXXXX", data[64], out[64];
    char *txt = malloc(FILE_MAX);
    int fd = mkstemp(jtl);
    loopsrv s;
    enginefix f;

    assert_true(fd >= 0 && txt != NULL);
    close(fd);
    snprintf(data, sizeof(data), "%s.data", jtl);
    snprintf(out, sizeof(out), "%s.out", jtl);
    play_logged(&s, &f, path, sizeof(path), text, 2, 2, jtl, data, out);
    assert_int_equal(s.nreq, 10);
    slurp(jtl, txt);
    check_jtl(txt, &s, &f);
    slurp(data, txt);
    check_data(txt);
    slurp(out, txt);
    check_out(txt);
    enginefix_free(&f);
    unlink(path);
    unlink(jtl);
    unlink(data);
    unlink(out);
    free(txt);
}

/* A page with resources, 1 VU of 2 runs: run 1's 3 resources are lines
 * labelled Page-0, -1, -2 before the page's own line, each with the URL of
 * a resource the server saw; run 2's resources come from the cache: the
 * page's line only. A line per request the server saw, in all. */
static void test_page_resources(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"LOG\", {})\n"
        "local page = sc:step(1, \"Page\")\n"
        "function sc.run(vu)\n"
        "  page:get(base .. \"/page?run=\" .. vu.run, { resources = true })\n"
        "end\n";
    static const char *const label[] = {"SC-LOG-STEP-1)Page-0", "SC-LOG-STEP-1)Page-1",
                                        "SC-LOG-STEP-1)Page-2", "SC-LOG-STEP-1)Page",
                                        "SC-LOG-STEP-1)Page"};
    char path[96], jtl[] = "/tmp/quern-test-reqlog.XXXXXX", line[1024], *fld[NF], want[128];
    char *txt = malloc(FILE_MAX);
    unsigned long long pre[3];
    int fd = mkstemp(jtl), n = 0;
    loopsrv s;
    enginefix f;

    assert_true(fd >= 0 && txt != NULL);
    close(fd);
    play_logged(&s, &f, path, sizeof(path), text, 1, 2, jtl, NULL, NULL);
    assert_int_equal(s.nreq, 5);
    assert_int_equal(loopsrv_count(&s, "/res/"), 3);
    slurp(jtl, txt);
    for (const char *p = txt; *p != '\0'; n++) {
        p = jtl_line(p, pre, line, sizeof(line), fld);
        if (n >= 5)
            fail_msg("more than 5 JTL lines:\n%s", txt);
        assert_string_equal(fld[2], label[n]);
        assert_string_equal(fld[3], "200");
        assert_string_equal(fld[7], "true");
        if (n < 3) {
            const char *at = strstr(fld[13], "/res/");
            if (at == NULL || loopsrv_find(&s, at) == NULL)
                fail_msg("a resource's line of URL %s, which the server never saw", fld[13]);
        } else {
            snprintf(want, sizeof(want), "http://127.0.0.1:%u/page?run=%d", s.port, n - 2);
            assert_string_equal(fld[13], want);
        }
    }
    assert_int_equal(n, 5);
    enginefix_free(&f);
    unlink(path);
    unlink(jtl);
    free(txt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_page_resources),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

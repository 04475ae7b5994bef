/* Unit tests for worker/trace: --trace's printout of live transfers, the
 * real engine (a libev loop and a libcurl multi) against an HTTP server in
 * a thread of the test (tests/unit/loopsrv.h), the worker's stderr caught
 * in a file.
 *
 * Mode 1 prints VU 1's transfers only, mode 2 every VU's: one block per
 * request the server saw, its VU, run and step, the method and the URL
 * with its password masked, the request headers as sent (Authorization's
 * credentials masked), the status, the response headers, the body cut at
 * TRACE_BODY_MAX bytes with what was left out counted, and the timings; a
 * transfer with no answer says libcurl's cause; with --traceparent, the
 * head names the trace id the request sent. Off (mode 0), nothing. */
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

#include "worker/engine/engine.h"
#include "worker/plugs/trace.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */
#define OUT_MAX (256u << 10)
#define STEP "SC-TRACE-STEP-1)Get" /* the step's name in a trace: its key, then its name */

/* The script of one step ("Get") that gets base .. path in each run. */
static void write_script(char *path, size_t len, unsigned port, const char *req)
{
    char buf[1024];

    snprintf(buf, sizeof(buf),
             "local quern = require \"quern\"\n"
             "local base = \"http://u:pw123@127.0.0.1:%u\"\n"
             "local sc = quern.scenario(\"TRACE\", {})\n"
             "local get = sc:step(1, \"Get\")\n"
             "function sc.run(vu)\n"
             "  get:get(base .. %s)\n"
             "end\n",
             port, req);
    scriptfile_write(path, len, "trace", buf);
}

/* Plays vus VUs of runs runs of the script at path with --trace=mode (and
 * --traceparent when tp is 1), what the worker wrote to stderr into out
 * (NUL-ended). */
static void play_traced(enginefix *f, const char *path, uint32_t vus, uint32_t runs, unsigned mode,
                        int tp, char *out)
{
    char tmp[] = "/tmp/quern-test-trace.XXXXXX";
    int fd = mkstemp(tmp), saved;
    ssize_t n;
    engine_cfg cfg;

    assert_true(fd >= 0);
    unlink(tmp);
    enginefix_cfg(&cfg, path, vus, runs);
    cfg.trace = mode;
    cfg.traceparent = tp;
    enginefix_new(f, &cfg, -1, -1);
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    enginefix_run(f);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    n = pread(fd, out, OUT_MAX - 1, 0);
    close(fd);
    assert_true(n >= 0);
    out[n] = '\0';
    assert_int_equal(f->status, ENGINE_COMPLETED);
    assert_true(f->run_us < WALL_MAX_US);
}

/* How many times needle is in hay. */
static unsigned count(const char *hay, const char *needle)
{
    unsigned n = 0;

    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void must_have(const char *out, const char *what)
{
    if (strstr(out, what) == NULL)
        fail_msg("the trace lacks \"%s\":\n%s", what, out);
}

static void must_lack(const char *out, const char *what)
{
    if (strstr(out, what) != NULL)
        fail_msg("the trace shows \"%s\":\n%s", what, out);
}

/* 2 VUs of 2 runs, mode 1: VU 1's 2 requests are printed, VU 2's not,
 * though the server saw all 4; each block has the request as sent and the
 * answer; the password is in neither the URL nor the header. */
static void test_vu1_only(void **state)
{
    char path[96], *out = malloc(OUT_MAX), want[128];
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/t?vu=\" .. vu.id .. \"&run=\" .. vu.run");
    play_traced(&f, path, 2, 2, 1, 0, out);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 4);
    assert_int_equal(count(out, "--- VU "), 2);
    for (int r = 1; r <= 2; r++) {
        snprintf(want, sizeof(want),
                 "--- VU 1, run %d, " STEP ": GET http://u:***@127.0.0.1:%u/t?vu=1&run=%d\n", r,
                 s.port, r);
        must_have(out, want);
        snprintf(want, sizeof(want), "> GET /t?vu=1&run=%d HTTP/1.1\n", r);
        must_have(out, want);
    }
    must_lack(out, "--- VU 2");
    must_lack(out, "vu=2");
    must_have(out, "> Authorization: Basic ***\n");
    must_lack(out, "pw123");
    must_lack(out, "dTpwdzEyMw"); /* "u:pw123" in base64 */
    assert_int_equal(count(out, "< HTTP/1.1 200 OK\n"), 2);
    assert_int_equal(count(out, "< Content-Type: text/plain\n"), 2);
    assert_int_equal(count(out, "\nok\n--- 200 in "), 2);
    assert_int_equal(count(out, " bytes in, "), 2);
    must_have(out, "(dns ");
    enginefix_free(&f);
    unlink(path);
    free(out);
}

/* Mode 2: each of the 3 VUs' requests, one block each. */
static void test_every_vu(void **state)
{
    char path[96], *out = malloc(OUT_MAX), want[128];
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/t?vu=\" .. vu.id");
    play_traced(&f, path, 3, 1, 2, 0, out);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 3);
    assert_int_equal(count(out, "--- VU "), 3);
    for (int v = 1; v <= 3; v++) {
        snprintf(want, sizeof(want), "--- VU %d, run 1, " STEP ": GET ", v);
        must_have(out, want);
        snprintf(want, sizeof(want), "> GET /t?vu=%d HTTP/1.1\n", v);
        must_have(out, want);
    }
    assert_int_equal(count(out, "--- 200 in "), 3);
    enginefix_free(&f);
    unlink(path);
    free(out);
}

/* A page of more than TRACE_BODY_MAX bytes: the first TRACE_BODY_MAX
 * are shown, the rest counted (its Content-Length less them). */
static void test_body_cut(void **state)
{
    char path[96], *out = malloc(OUT_MAX), want[96];
    const char *b, *e;
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/page\"");
    play_traced(&f, path, 1, 1, 1, 0, out);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 1); /* no resources asked: the page only */
    must_have(out, "< Content-Type: text/html\n");
    b = strstr(out, "<!DOCTYPE html>");
    assert_non_null(b);
    e = strstr(b, "\n[... ");
    assert_non_null(e);
    assert_int_equal(e - b, TRACE_BODY_MAX);
    b = strstr(out, "< Content-Length: ");
    assert_non_null(b);
    snprintf(want, sizeof(want), "\n[... %ld more bytes of the body]\n--- 200 in ",
             strtol(b + 18, NULL, 10) - (long)TRACE_BODY_MAX);
    must_have(out, want);
    must_lack(out, "/res/logo.png"); /* past the cut */
    enginefix_free(&f);
    unlink(path);
    free(out);
}

/* The server closes without answering: the block says so, with
 * libcurl's cause and code. */
static void test_no_response(void **state)
{
    char path[96], *out = malloc(OUT_MAX);
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/close\"");
    play_traced(&f, path, 1, 1, 1, 0, out);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 1);
    must_have(out, "> GET /close HTTP/1.1\n");
    must_have(out, "--- no response: Empty reply from server (curl error 52) in ");
    must_lack(out, "< HTTP");
    enginefix_free(&f);
    unlink(path);
    free(out);
}

/* With --traceparent, the block's head names the request's trace id,
 * the one its traceparent header sent. */
static void test_trace_id(void **state)
{
    char path[96], *out = malloc(OUT_MAX), id[33], want[96];
    const char *p;
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/t\"");
    play_traced(&f, path, 1, 1, 1, 1, out);
    loopsrv_stop(&s);

    p = strstr(out, "/t, trace ");
    if (p == NULL || strlen(p) < 10 + 32 || strspn(p + 10, "0123456789abcdef") != 32)
        fail_msg("no trace id in the block's head:\n%s", out);
    snprintf(id, sizeof(id), "%.32s", p + 10);
    snprintf(want, sizeof(want), "> traceparent: 00-%s-", id);
    must_have(out, want);
    enginefix_free(&f);
    unlink(path);
    free(out);
}

/* Mode 0: the same requests, no trace. */
static void test_off(void **state)
{
    char path[96], *out = malloc(OUT_MAX);
    loopsrv s;
    enginefix f;

    assert_non_null(out);
    assert_null(trace_new(0, 4));
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "\"/t\"");
    play_traced(&f, path, 2, 1, 0, 0, out);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 2);
    must_lack(out, "--- VU");
    must_lack(out, "> GET");
    enginefix_free(&f);
    unlink(path);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vu1_only), cmocka_unit_test(test_every_vu),
        cmocka_unit_test(test_body_cut), cmocka_unit_test(test_no_response),
        cmocka_unit_test(test_trace_id), cmocka_unit_test(test_off),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

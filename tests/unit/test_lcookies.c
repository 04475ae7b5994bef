/* Unit tests for worker/lcookies: vu:cookies() and the jar's other methods
 * in a running VU, the real engine (a libev loop and a libcurl multi)
 * against an HTTP server in a thread of the test (tests/unit/loopsrv.h),
 * judged by the Cookie headers the server saw.
 *
 * The cookie the server set is listed (its name, value, domain, path,
 * secure, expires) and read by name; add_cookie's table form (with its
 * defaults) and Set-Cookie form (HttpOnly marked) add cookies the next
 * request carries, an expired one is not listed nor sent, a tab is
 * refused; clear_cookies empties the jar (nothing sent); save_cookies
 * writes the Netscape file and load_cookies brings the jar back from it. */
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

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

static const loopsrv_req *must_find(const loopsrv *s, const char *p)
{
    const loopsrv_req *r = loopsrv_find(s, p);

    if (r == NULL)
        fail_msg("the server never saw %s", p);
    return r;
}

/* The request's Cookie header holds each of the n name=value pairs and
 * nothing else. */
static void carries(const loopsrv_req *r, int n, const char *const *pairs)
{
    size_t len = 0;

    for (int i = 0; i < n; i++) {
        if (strstr(r->cookie, pairs[i]) == NULL)
            fail_msg("%s carried \"%s\", without %s", r->path, r->cookie, pairs[i]);
        len += strlen(pairs[i]) + (i > 0 ? 2 : 0); /* "; " between */
    }
    if (strlen(r->cookie) != len)
        fail_msg("%s carried \"%s\": more than its %d cookies", r->path, r->cookie, n);
}

static void test_jar_methods(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local jar = \"%s\"\n"
        "local sc = quern.scenario(\"JAR\", {})\n"
        "local get = sc:step(1, \"Get\")\n"
        "local function names(vu)\n"
        "  local t = {}\n"
        "  for _, c in ipairs(vu:cookies()) do t[#t + 1] = c.name .. (c.http_only and \"!\" or "
        "\"\") end\n"
        "  table.sort(t)\n"
        "  return table.concat(t, \",\")\n"
        "end\n"
        "function sc.run(vu)\n"
        "  get:get(base .. \"/cookie\")\n"
        "  local c = vu:cookies()[1]\n"
        "  get:get(base .. \"/r1?n=\" .. #vu:cookies() .. \"&k1=\" .. tostring(vu:cookie(\"k1\"))\n"
        "    .. \"&none=\" .. tostring(vu:cookie(\"none\")) .. \"&name=\" .. c.name .. \"&dom=\" "
        ".. c.domain\n"
        "    .. \"&path=\" .. c.path .. \"&sec=\" .. tostring(c.secure) .. \"&exp=\" .. "
        "c.expires)\n"
        "  vu:add_cookie{ name = \"t\", value = \"tv\" }\n"
        "  vu:add_cookie(\"Set-Cookie: s=sv; Domain=127.0.0.1; Path=/; HttpOnly\")\n"
        "  vu:add_cookie(\"u=uv; Domain=127.0.0.1; Path=/\")\n"
        "  vu:add_cookie{ name = \"old\", value = \"x\", expires = 1 }\n"
        "  local ok, e = pcall(vu.add_cookie, vu, { name = \"a\\tb\" })\n"
        "  get:get(base .. \"/r2?names=\" .. names(vu) .. \"&tab=\" .. tostring(not ok and\n"
        "    e:find(\"cannot contain tabs\", 1, true) ~= nil))\n"
        "  local saved = vu:save_cookies(jar)\n"
        "  vu:clear_cookies()\n"
        "  get:get(base .. \"/r3?names=\" .. names(vu))\n"
        "  local loaded = vu:load_cookies(jar)\n"
        "  get:get(base .. \"/r4?names=\" .. names(vu) .. \"&same=\" .. tostring(saved == "
        "loaded))\n"
        "end\n";
    static const char *const all[] = {"k1=1", "t=tv", "s=sv", "u=uv"};
    char path[96], buf[4096], jar[] = "/tmp/quern-test-jar.XXXXXX", file[1024];
    const loopsrv_req *r1;
    int fd = mkstemp(jar);
    FILE *fp;
    size_t n;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    assert_true(fd >= 0);
    close(fd);
    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    snprintf(buf, sizeof(buf), text, s.port, jar);
    scriptfile_write(path, sizeof(path), "lcookies", buf);
    enginefix_cfg(&cfg, path, 1, 1);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 5);
    assert_int_equal(f.steps[0].count, 5);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    assert_string_equal(must_find(&s, "/cookie")->set, "k1=1");
    r1 = must_find(&s, "/r1?n=1&k1=1&none=nil&name=k1&dom=127.0.0.1&path=/&sec=false&exp=0");
    carries(r1, 1, all);
    carries(must_find(&s, "/r2?names=k1,s!,t,u&tab=true"), 4, all);
    carries(must_find(&s, "/r3?names="), 0, all);
    carries(must_find(&s, "/r4?names=k1,s!,t,u&same=true"), 4, all);

    fp = fopen(jar, "r");
    assert_non_null(fp);
    n = fread(file, 1, sizeof(file) - 1, fp);
    fclose(fp);
    file[n] = '\0';
    assert_memory_equal(file, "# Netscape HTTP Cookie File\n", 28);
    if (strstr(file, "#HttpOnly_127.0.0.1\t") == NULL || strstr(file, "\tk1\t1\n") == NULL ||
        strstr(file, "\tt\ttv\n") == NULL)
        fail_msg("the saved jar lacks a cookie:\n%s", file);
    enginefix_free(&f);
    unlink(path);
    unlink(jar);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jar_methods),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

/* Unit tests for console/scan: comments and strings are set aside, and each
 * warning (a step never used, an unknown request option, a CSV column never
 * read) names its line, with none for what is used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/preflight.h"
#include "common/err.h"
#include "console/scan.h"

static void masks(const char *in, const char *want)
{
    char out[256];

    assert_true(strlen(in) < sizeof(out));
    scan_mask(in, strlen(in), out);
    out[strlen(in)] = '\0';
    assert_string_equal(out, want);
}

static void test_mask(void **state)
{
    (void)state;
    masks("a = 1 -- b\nc", "a = 1     \nc");
    masks("x = \"a\\\"b\" .. 'c'", "x = \"    \" .. ' '");
    masks("--[[ a\nb ]] c", "      \n     c");
    masks("s = [==[ ]] x ]==] y", "s = [==[      ]==] y");
    masks("t[i] = 1", "t[i] = 1");
    masks("u = \"open", "u = \"    "); /* unterminated: to the end */
}

/* The warnings about script text, loaded with its CSV file beside it. */
static char *warnings(const char *text, unsigned *n)
{
    char dir[] = "/tmp/quern-test-scan.XXXXXX", p[128], err[ERR_MAX];
    preflight pf;
    char *buf = NULL;
    size_t len = 0;
    FILE *f, *out;

    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/users.csv", dir);
    f = fopen(p, "w");
    fputs("user,password,unused\nalice,a,x\n", f);
    fclose(f);
    snprintf(p, sizeof(p), "%s/s.lua", dir);
    f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    assert_int_equal(preflight_load(p, NULL, 1, 0, &pf, err, sizeof(err)), 0);
    out = open_memstream(&buf, &len);
    *n = scan_script(p, &pf, out);
    fclose(out);
    preflight_free(&pf);
    unlink(p);
    snprintf(p, sizeof(p), "%s/users.csv", dir);
    unlink(p);
    rmdir(dir);
    return buf;
}

static void test_warnings(void **state)
{
    unsigned n;
    char *w;

    (void)state;
    w = warnings("local quern = require \"quern\"\n"
                 "local http = require \"quern.http\"\n"
                 "local users = quern.csv(\"users.csv\")\n"
                 "local sc = quern.scenario(\"W\")\n"
                 "local a = sc:step(1, \"A\")\n"
                 "local b = sc:step(2, \"B\") -- b\n"
                 "sc:step(3, \"C\")\n"
                 "local s = {}\n"
                 "s[1] = sc:step(4, \"D\")\n"
                 "function sc.run(vu)\n"
                 "  local row = users:next()\n"
                 "  a:get(\"http://h/\" .. row.user, { headers = { x = 1 }, tiemout = \"1s\",\n"
                 "    query = { q = \"b\" } })\n"
                 "  http.post(\"http://h/\", { form = { p = row['password'] }, foo = 1 })\n"
                 "  vu.b = 1 -- a field named b, not the variable\n"
                 "  local cache = { get = function() end }\n"
                 "  cache.get(1, { bar = 1 }) -- not a request\n"
                 "end\n",
                 &n);
    assert_int_equal(n, 5);
    assert_non_null(
        strstr(w, "s.lua:6: warning: step SC-W-STEP-2 (\"B\") is declared and never used\n"));
    assert_non_null(strstr(w, "s.lua:7: warning: step SC-W-STEP-3 (\"C\")"));
    assert_null(strstr(w, "SC-W-STEP-1 "));
    assert_null(strstr(w, "SC-W-STEP-4 ")); /* in a table: cannot be told */
    assert_non_null(strstr(w, "s.lua:12: warning: unknown request option \"tiemout\""));
    assert_non_null(strstr(w, "s.lua:14: warning: unknown request option \"foo\""));
    assert_null(strstr(w, "\"x\"")); /* a header's name, one level down */
    assert_null(strstr(w, "\"q\""));
    assert_null(strstr(w, "\"bar\""));
    assert_non_null(strstr(w, "s.lua:3: warning: column \"unused\" of users.csv is never read"));
    assert_null(strstr(w, "column \"user\""));
    assert_null(strstr(w, "column \"password\""));
    free(w);
}

static void test_no_warning(void **state)
{
    unsigned n;
    char *w;

    (void)state;
    w = warnings("local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"OK\")\n"
                 "local a = sc:step(1, \"A\")\n"
                 "function sc.run(vu)\n"
                 "  a:get(\"http://h/\", { headers = { a = 1 }, timeout = \"1s\", tls = { insecure "
                 "= true } })\n"
                 "end\n",
                 &n);
    assert_int_equal(n, 0);
    assert_string_equal(w, "");
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_no_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

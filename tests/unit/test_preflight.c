/* Unit tests for agent/preflight: a script's steps and thresholds come out
 * in order, a broken script gives its file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/preflight.h"

static char path[64];

static void write_script(const char *text)
{
    int fd;
    FILE *f;

    snprintf(path, sizeof(path), "/tmp/quern-test-preflight.XXXXXX.lua");
    fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_steps_and_thresholds(void **state)
{
    preflight pf;
    char err[512], where[128];
    const char *base;

    write_script("local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"SHOP\", { thresholds = { \"count>=2\" } })\n"
                 "sc:step(2, \"Pay\")\n"
                 "sc:step(1, \"Login\")\n"
                 "quern.threshold(\"p95<500ms\")\n"
                 "function sc.run(vu) end\n");
    base = strrchr(path, '/') + 1;
    assert_int_equal(preflight_load(path, NULL, 4, &pf, err, sizeof(err)), 0);
    assert_int_equal(pf.nsteps, 2);
    assert_string_equal(pf.steps[0].id, "SC-SHOP-STEP-2");
    assert_string_equal(pf.steps[0].name, "SC-SHOP-STEP-2)Pay");
    assert_string_equal(pf.steps[1].id, "SC-SHOP-STEP-1");
    assert_string_equal(pf.steps[1].name, "SC-SHOP-STEP-1)Login");
    assert_int_equal(pf.nthresholds, 2);
    /* A scenario's threshold is scoped to its steps. */
    assert_string_equal(pf.thresholds[0].expr, "SC-SHOP-STEP-*: count>=2");
    assert_string_equal(pf.thresholds[1].expr, "p95<500ms");
    snprintf(where, sizeof(where), "%s:5", base);
    assert_non_null(strstr(pf.thresholds[1].where, where));
    preflight_free(&pf);
    assert_int_equal(pf.nsteps, 0);
    preflight_free(&pf);
    unlink(path);
}

static void test_syntax_error(void **state)
{
    preflight pf;
    char err[512], where[128];

    write_script("local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"SYN\")\n"
                 "function sc.run(vu)\n"
                 "end end\n");
    assert_int_equal(preflight_load(path, NULL, 1, &pf, err, sizeof(err)), -1);
    snprintf(where, sizeof(where), "%s:4: ", strrchr(path, '/') + 1);
    assert_non_null(strstr(err, where));
    assert_int_equal(pf.nsteps, 0);
    assert_null(pf.steps);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_and_thresholds),
        cmocka_unit_test(test_syntax_error),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

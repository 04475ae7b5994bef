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
#include "common/err.h"

#include "tests/unit/scriptfile.h"

static char path[64];

static void write_script(const char *text)
{
    scriptfile_write(path, sizeof(path), "preflight", text);
}

static void test_steps_and_thresholds(void **state)
{
    preflight pf;
    char err[ERR_MAX], where[128];
    const char *base;

    write_script("local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"SHOP\", { thresholds = { \"count>=2\" } })\n"
                 "sc:step(2, \"Pay\")\n"
                 "sc:step(1, \"Login\")\n"
                 "quern.threshold(\"p95<500ms\")\n"
                 "function sc.run(vu) end\n");
    base = strrchr(path, '/') + 1;
    assert_int_equal(preflight_load(path, NULL, 4, 0, &pf, err, sizeof(err)), 0);
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

/* A scenario's own rate: alone, an open run; beside another weighted
 * scenario, a mixed run (that one plays --vus); beside one of weight 0, not
 * mixed; two rates, an error. */
static void test_scenario_rate(void **state)
{
    static const struct {
        const char *others;
        int closed, error;
    } cases[] = {
        {"", 0, 0},
        {"local b = quern.scenario(\"BROWSE\", { pacing = \"1s\" })\nfunction b.run(vu) end\n", 1,
         0},
        {"local i = quern.scenario(\"IDLE\", { weight = 0 })\nfunction i.run(vu) end\n", 0, 0},
        {"local a = quern.scenario(\"API2\", { rate = \"5/s\" })\nfunction a.run(vu) end\n", 0, 1},
    };
    char text[512], err[ERR_MAX];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        preflight pf;
        snprintf(text, sizeof(text),
                 "local quern = require \"quern\"\n"
                 "local api = quern.scenario(\"API\", { rate = \"200/s\" })\n"
                 "function api.run(vu) end\n%s",
                 cases[i].others);
        write_script(text);
        if (preflight_load(path, NULL, 4, 0, &pf, err, sizeof(err)) != 0)
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(pf.nrate_stages, 2);
        if (!cases[i].error)
            assert_int_equal(pf.rate_closed, cases[i].closed);
        assert_int_equal(pf.rate_err[0] != '\0', cases[i].error);
        preflight_free(&pf);
        unlink(path);
    }
}

static void test_syntax_error(void **state)
{
    preflight pf;
    char err[ERR_MAX], where[128];

    write_script("local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"SYN\")\n"
                 "function sc.run(vu)\n"
                 "end end\n");
    assert_int_equal(preflight_load(path, NULL, 1, 0, &pf, err, sizeof(err)), -1);
    snprintf(where, sizeof(where), "%s:4: ", strrchr(path, '/') + 1);
    assert_non_null(strstr(err, where));
    assert_int_equal(pf.nsteps, 0);
    assert_null(pf.steps);
    unlink(path);
}

/* Loads text; asserts it fails with want at the given line. */
static void load_fails_at(const char *text, int line, const char *want)
{
    preflight pf;
    char err[ERR_MAX], where[128];

    write_script(text);
    assert_int_equal(preflight_load(path, NULL, 1, 0, &pf, err, sizeof(err)), -1);
    snprintf(where, sizeof(where), "%s:%d: %s", strrchr(path, '/') + 1, line, want);
    if (strstr(err, where) == NULL)
        fail_msg("\"%s\" does not say \"%s\"", err, where);
    unlink(path);
}

/* os.exit ends no process: wherever a script finds it, it raises. */
static void test_os_exit_refused_everywhere(void **state)
{
    static const char *calls[] = {"os.exit(0)", "package.loaded.os.exit(0)",
                                  "debug.getregistry()._LOADED.os.exit(0)",
                                  "require('os').exit(true, true)"};
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        snprintf(text, sizeof(text),
                 "local quern = require \"quern\"\n"
                 "local sc = quern.scenario(\"EXIT\")\n"
                 "%s\n"
                 "function sc.run(vu) end\n",
                 calls[i]);
        load_fails_at(text, 3, "os.exit is not allowed in a scenario");
    }
}

/* An error object whose __tostring raises still gives a message. */
static void test_error_object_tostring_raises(void **state)
{
    preflight pf;
    char err[ERR_MAX];

    (void)state;
    write_script("local quern = require \"quern\"\n"
                 "quern.scenario(\"T\").run = function() end\n"
                 "error(setmetatable({}, {__tostring = function() error('boom') end}))\n");
    assert_int_equal(preflight_load(path, NULL, 1, 0, &pf, err, sizeof(err)), -1);
    assert_string_equal(err, "(error object is a table value)");
    unlink(path);
}

/* The console's copy of the script is bounded too. */
static void test_load_memory_limit(void **state)
{
    preflight pf;
    char err[ERR_MAX];

    (void)state;
    write_script("local quern = require \"quern\"\n"
                 "local t = {}\n"
                 "for i = 1, 1e8 do t[i] = {i} end\n");
    assert_int_equal(preflight_load(path, NULL, 1, 16u << 20, &pf, err, sizeof(err)), -1);
    assert_non_null(strstr(err, ": not enough memory while the script loaded (its Lua state may "
                                "hold 16M, --worker-memory)"));
    assert_non_null(strstr(err, strrchr(path, '/') + 1));
    unlink(path);
}

/* grpc.load of a .proto: the descriptor set protoc made comes out for the
 * bundle, under quern-grpc/ with the .proto's path. */
static void test_made_files(void **state)
{
    preflight pf;
    char err[ERR_MAX], dir[] = "/tmp/quern-test-preflight-grpc.XXXXXX", p[128];
    FILE *f;

    if (system("command -v protoc >/dev/null") != 0)
        skip();
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/svc.proto", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("syntax = \"proto3\";\npackage t;\nmessage A { int32 x = 1; }\n"
          "service S { rpc M(A) returns (A); }\n",
          f);
    fclose(f);
    snprintf(p, sizeof(p), "%s/s.lua", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("require(\"quern.grpc\").load(\"svc.proto\")\n"
          "local sc = require(\"quern\").scenario(\"G\", {})\n"
          "sc:step(1, \"m\")\nfunction sc.run() end\n",
          f);
    fclose(f);
    assert_int_equal(preflight_load(p, NULL, 1, 0, &pf, err, sizeof(err)), 0);
    assert_int_equal(pf.made.nfiles, 1);
    assert_string_equal(pf.made.files[0]->path, "quern-grpc/svc.proto.pb");
    assert_true(pf.made.files[0]->data.len > 20);
    assert_non_null(
        memmem(pf.made.files[0]->data.data, pf.made.files[0]->data.len, "svc.proto", 9));
    preflight_free(&pf);
    assert_int_equal(pf.made.nfiles, 0);
    unlink(p);
    snprintf(p, sizeof(p), "%s/svc.proto", dir);
    unlink(p);
    rmdir(dir);
}

/* What `quern check` prints: each property asked for (first place, default,
 * optional), each scenario's options, each step's scenario and place; a
 * property with neither default nor value stops the load at its line. */
static void test_properties_and_scenarios(void **state)
{
    preflight pf;
    props *p = props_new();
    char err[ERR_MAX], want[600];

    (void)state;
    write_script("local quern = require \"quern\"\n"
                 "local base = quern.property(\"base_url\", \"http://h:1\")\n"
                 "local n = quern.property(\"n\", 3)\n"
                 "local tok = quern.property(\"token\", nil, { optional = true })\n"
                 "local pw = quern.property(\"password\")\n"
                 "local sc = quern.scenario(\"A\", { pacing = \"2s\", think = { min = \"1s\", "
                 "max = \"3s\" }, weight = 2 })\n"
                 "local s = sc:step(4, \"Four\")\n"
                 "function sc.run(vu) end\n");
    assert_int_equal(preflight_load(path, NULL, 1, 0, &pf, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "%s:5: property \"password\" has no value: give it with -p password=...", path);
    assert_string_equal(err, want);
    props_set(p, "password", "pw");
    assert_int_equal(preflight_load(path, p, 1, 0, &pf, err, sizeof(err)), 0);
    assert_int_equal(pf.info.nprops, 4);
    assert_string_equal(pf.info.props[0].name, "base_url");
    assert_string_equal(pf.info.props[0].dflt, "http://h:1");
    assert_string_equal(pf.info.props[1].dflt, "3");
    assert_null(pf.info.props[2].dflt);
    assert_int_equal(pf.info.props[2].optional, 1);
    assert_null(pf.info.props[3].dflt);
    assert_int_equal(pf.info.props[3].optional, 0);
    snprintf(want, sizeof(want), "%s:5", path);
    assert_string_equal(pf.info.props[3].where, want);
    assert_int_equal(pf.nscens, 1);
    assert_string_equal(pf.scens[0].name, "A");
    assert_true(pf.scens[0].weight == 2);
    assert_int_equal(pf.scens[0].pacing_min_us, 2000000);
    assert_int_equal(pf.scens[0].think_max_us, 3000000);
    assert_int_equal(pf.steps[0].scen, 0);
    assert_string_equal(pf.steps[0].label, "Four");
    snprintf(want, sizeof(want), "%s:7", path);
    assert_string_equal(pf.steps[0].where, want);
    preflight_free(&pf);
    assert_int_equal(pf.info.nprops, 0);
    props_free(p);
    unlink(path);
}

/* The request options a request knows, and not others. */
static void test_request_option(void **state)
{
    (void)state;
    assert_int_equal(preflight_request_option("headers"), 1);
    assert_int_equal(preflight_request_option("timeout"), 1);
    assert_int_equal(preflight_request_option("tls"), 1);
    assert_int_equal(preflight_request_option("tiemout"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_and_thresholds),
        cmocka_unit_test(test_properties_and_scenarios),
        cmocka_unit_test(test_request_option),
        cmocka_unit_test(test_made_files),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_scenario_rate),
        cmocka_unit_test(test_os_exit_refused_everywhere),
        cmocka_unit_test(test_error_object_tostring_raises),
        cmocka_unit_test(test_load_memory_limit),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

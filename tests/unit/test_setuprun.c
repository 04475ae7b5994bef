/* Unit tests for agent/setuprun (and the engine's setup and teardown mode,
 * worker/engine/lifecycle.c): what setup returns comes out as JSON by scenario,
 * teardown gets it read-only, and each kind of failure (a Lua error, a
 * value JSON cannot carry, a request that fails) gives one file:line
 * message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/setuprun.h"
#include "common/mem.h"

#include "tests/unit/scriptfile.h"

static char path[64];

static const char *write_script(const char *text)
{
    return scriptfile_write(path, sizeof(path), "setuprun", text);
}

/* setuprun_setup on text: its rc, the JSON in *json, the error in err. */
static int setup_of(const char *text, char **json, size_t *len, char *err, size_t errlen)
{
    setuprun_cfg c = {.script = path};
    int rc;

    write_script(text);
    rc = setuprun_setup(&c, json, len, err, errlen);
    return rc;
}

#define HEAD                                                                                       \
    "local quern = require 'quern'\n"                                                              \
    "local http = require 'quern.http'\n"                                                          \
    "local a = quern.scenario('A', {})\n"                                                          \
    "local b = quern.scenario('B', {})\n"                                                          \
    "function a.run(vu) end\n"                                                                     \
    "function b.run(vu) end\n"

static void test_data_and_teardown(void **state)
{
    char *json, err[1024], where[128];
    size_t len;
    setuprun_cfg c = {.script = path};
    const char *base;

    assert_int_equal(setup_of(HEAD "function a.setup() return { token = 't', n = 1, list = { 1, "
                                   "2 } } end\n"
                                   "function b.teardown(d) end\n"
                                   "function a.teardown(d)\n"
                                   "  error('got ' .. d.token .. ' ' .. #d.list .. ' ' .. d.n)\n"
                                   "end\n",
                              &json, &len, err, sizeof(err)),
                     0);
    assert_non_null(json);
    assert_int_equal(strlen(json), len);
    assert_non_null(strstr(json, "{\"A\":{"));
    assert_non_null(strstr(json, "\"token\":\"t\""));
    assert_non_null(strstr(json, "\"list\":[1,2]"));
    assert_null(strstr(json, "\"B\""));
    base = strrchr(path, '/') + 1;
    assert_int_equal(setuprun_teardown(&c, json, len, err, sizeof(err)), -1);
    snprintf(where, sizeof(where), "%s:10: got t 2 1 (teardown of scenario A)", base);
    assert_non_null(strstr(err, where));
    xfree(json);
    unlink(path);

    /* teardown may not change the data either */
    assert_int_equal(setup_of(HEAD "function a.setup() return { token = 't' } end\n"
                                   "function a.teardown(d) d.token = 'u' end\n",
                              &json, &len, err, sizeof(err)),
                     0);
    assert_int_equal(setuprun_teardown(&c, json, len, err, sizeof(err)), -1);
    snprintf(where, sizeof(where), "%s:8: vu.setup is read-only (teardown of scenario A)", base);
    assert_non_null(strstr(err, where));
    xfree(json);
    unlink(path);

    /* a setup that returns nothing: no data */
    assert_int_equal(setup_of(HEAD "function a.setup() end\n", &json, &len, err, sizeof(err)), 0);
    assert_null(json);
    assert_int_equal(len, 0);
    unlink(path);
}

static void test_failures(void **state)
{
    static const struct {
        const char *fn, *want;
    } cases[] = {
        {"function a.setup() error('boom') end\n", ":7: boom (setup of scenario A)"},
        {"function a.setup() return 'x' end\n",
         ":7: setup must return a table (or nothing), not a string (setup of scenario A)"},
        {"function a.setup() return { f = print } end\n",
         ":7: what setup returned cannot be sent: json: $.f: cannot encode a function"},
        {"function a.setup() local t = {} t.t = t return t end\n",
         "a cycle: the table contains itself"},
        {"function a.setup()\n  http.post('http://127.0.0.1:1/login')\nend\n",
         ":8: POST http://127.0.0.1:1/login: "},
        {"function a.setup() http.get('http://user:secret@127.0.0.1:1/x') end\n",
         "GET http://user:***@127.0.0.1:1/x"},
        {"a.setup = 1\n", "scenario A: setup must be a function"},
        {"function a.setup() return { s = string.rep('x', 1 << 20) } end\n",
         ":7: what setup returned cannot be sent: 1048584 bytes as JSON, more than 1048576 (1 "
         "MiB)"},
    };
    char *json, err[1024];
    size_t len;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[1024];
        snprintf(text, sizeof(text), "%s%s", HEAD, cases[i].fn);
        assert_int_equal(setup_of(text, &json, &len, err, sizeof(err)), -1);
        assert_null(json);
        if (strstr(err, cases[i].want) == NULL)
            fail_msg("case %zu: %s, not ...%s", i, err, cases[i].want);
        assert_non_null(strstr(err, strrchr(path, '/') + 1));
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_and_teardown),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

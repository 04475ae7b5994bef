/* Unit tests for worker/lreqopt: reading option tables (a scenario's
 * defaults and a request's), the errors they raise, the files checked at
 * load, which level wins, and a handle set up once for levels that did not
 * change (reqopt_apply, on what was read). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/lua/lreqopt.h"

/* Stack: 1 table, 2 dir, 3 check_files, 4 defaults, 5 ro, 6 run (or nil). */
static int call_read(lua_State *L)
{
    lreqopt_read(L, 1, lua_tostring(L, 2), lua_toboolean(L, 3), lua_touserdata(L, 5),
                 lua_touserdata(L, 6), lua_toboolean(L, 4));
    return 0;
}

/* Reads the table the Lua expression src makes into ro (a fresh userdata
 * left on the stack until lua_close); returns NULL on success or the
 * error message (valid until the next call). */
static const char *read_into(lua_State *L, const char *src, int check, int defaults, reqopt **ro,
                             const reqopt *run)
{
    static char msg[512];
    char chunk[1024];

    *ro = lreqopt_push(L);
    lua_pushcfunction(L, call_read);
    snprintf(chunk, sizeof(chunk), "return %s", src);
    assert_int_equal(luaL_dostring(L, chunk), LUA_OK);
    lua_pushstring(L, "/scripts");
    lua_pushboolean(L, check);
    lua_pushboolean(L, defaults);
    lua_pushlightuserdata(L, *ro);
    if (run != NULL)
        lua_pushlightuserdata(L, (void *)run);
    else
        lua_pushnil(L);
    if (lua_pcall(L, 6, 0, 0) == LUA_OK)
        return NULL;
    err_set(msg, sizeof(msg), "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return msg;
}

static void test_read_all(void **state)
{
    lua_State *L = luaL_newstate();
    reqopt *ro;
    const char *err;

    err = read_into(L,
                    "{ tls = { ca = 'ca.pem', cert = '/abs/c.pem', key = 'k.pem', password = 'pw',"
                    " insecure = true, min = '1.3' }, http2 = true, resolve = { 'a:1:127.0.0.1' },"
                    " auth = { user = 'u', password = 'p', type = 'digest' }, compressed = false,"
                    " connect_timeout = '1500ms', timeout = '3s', redirects = 4 }",
                    0, 1, &ro, NULL);
    assert_null(err);
    assert_string_equal(ro->ca, "/scripts/ca.pem");
    assert_string_equal(ro->cert, "/abs/c.pem");
    assert_string_equal(ro->key, "/scripts/k.pem");
    assert_string_equal(ro->key_password, "pw");
    assert_int_equal(ro->insecure, 1);
    assert_int_equal(ro->tls_min, CURL_SSLVERSION_TLSv1_3);
    assert_int_equal(ro->http, REQOPT_HTTP2);
    assert_string_equal(ro->resolve->data, "a:1:127.0.0.1");
    assert_null(ro->resolve->next);
    assert_int_equal(ro->auth, REQOPT_AUTH_DIGEST);
    assert_string_equal(ro->user, "u");
    assert_string_equal(ro->password, "p");
    assert_int_equal(ro->compressed, 0);
    assert_int_equal(ro->connect_timeout_ms, 1500);
    assert_int_equal(ro->timeout_ms, 3000);
    assert_int_equal(ro->max_redirs, 4);
    assert_int_equal(ro->set, 0x1fff);
    lua_close(L); /* the GC frees what ro owns: ASan sees a leak otherwise */
}

static void test_read_errors(void **state)
{
    static const char *const bad[][2] = {
        {"{ tls = { ca = 1 } }", "tls.ca must be a string"},
        {"{ tls = { pem = 'x' } }", "unknown tls option \"pem\""},
        {"{ tls = { min = '1.4' } }", "tls.min"},
        {"{ tls = { insecure = 'yes' } }", "boolean"},
        {"{ http2 = true, http1 = true }", "exclusive"},
        {"{ http2 = 1 }", "http2 must be true or false"},
        {"{ resolve = 'a:1:127.0.0.1' }", "resolve is a list"},
        {"{ resolve = { 'a:1' } }", "resolve[1]"},
        {"{ resolve = {} }", "give 1 to 64"},
        {"{ auth = { user = 'u', type = 'ntlm' } }", "auth.type"},
        {"{ auth = { type = 'bearer' } }", "needs a token"},
        {"{ auth = { password = 'p' } }", "needs a user"},
        {"{ auth = { user = 'u', pass = 'p' } }", "unknown auth option \"pass\""},
        {"{ connect_timeout = 'soon' }", "connect_timeout"},
        {"{ headers = {} }", "unknown request default \"headers\""},
    };
    lua_State *L = luaL_newstate();
    reqopt *ro;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *err = read_into(L, bad[i][0], 0, 1, &ro, NULL);
        if (err == NULL || strstr(err, bad[i][1]) == NULL)
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i][0], err ? err : "(none)", bad[i][1]);
    }
    /* a request's table: keys that are not reqopt's are the caller's */
    assert_null(read_into(L, "{ headers = {}, timeout = '1s', http1 = true }", 0, 0, &ro, NULL));
    assert_int_equal(ro->set, REQOPT_HTTPV);
    lua_close(L);
}

static void test_files_checked(void **state)
{
    lua_State *L = luaL_newstate();
    reqopt *ro;
    const char *err;

    err = read_into(L, "{ tls = { ca = 'no-such-ca.pem' } }", 1, 1, &ro, NULL);
    assert_non_null(err);
    assert_non_null(strstr(err, "tls.ca: cannot read /scripts/no-such-ca.pem"));
    assert_null(read_into(L, "{ tls = { ca = 'no-such-ca.pem' } }", 0, 1, &ro, NULL));
    assert_null(read_into(L, "{ tls = { ca = '/dev/null' } }", 1, 1, &ro, NULL));
    lua_close(L);
}

static void test_levels(void **state)
{
    lua_State *L = luaL_newstate();
    reqopt run, *scen, *req;
    char err[ERR_MAX];

    memset(&run, 0, sizeof(run));
    assert_int_equal(reqopt_add_resolve(&run, "a:1:10.0.0.9", err, sizeof(err)), 0);
    assert_int_equal(reqopt_add_resolve(&run, "a:1", err, sizeof(err)), -1);
    assert_null(read_into(L, "{ http2 = true, resolve = { 'a:1:10.0.0.1' } }", 0, 1, &scen, &run));
    /* the run's entries come after the scenario's: they win in libcurl */
    assert_string_equal(scen->resolve->data, "a:1:10.0.0.1");
    assert_string_equal(scen->resolve->next->data, "a:1:10.0.0.9");
    assert_null(read_into(L, "{ http1 = true }", 0, 0, &req, &run));
    assert_true(reqopt_http2(NULL, scen, &run));
    assert_false(reqopt_http2(req, scen, &run));
    assert_false(reqopt_http2(NULL, NULL, &run));
    assert_true(req->serial != scen->serial && req->serial != 0);
    reqopt_clear(&run);
    lua_close(L);
}

static void test_apply_once(void **state)
{
    lua_State *L = luaL_newstate();
    CURL *h = curl_easy_init();
    reqopt_mark mark;
    reqopt *scen;

    memset(&mark, 0, sizeof(mark));
    assert_null(read_into(L, "{ http2 = true }", 0, 1, &scen, NULL));
    reqopt_apply(h, &mark, NULL, scen, NULL, 1, "/dev/null");
    assert_int_equal(mark.valid, 1);
    assert_true(mark.scen == scen->serial);
    assert_int_equal(mark.req, 0);
    reqopt_apply(h, &mark, NULL, scen, NULL, 1, "/dev/null"); /* nothing to do */
    reqopt_apply(h, &mark, NULL, scen, NULL, 0, "/dev/null");
    assert_int_equal(mark.https, 0);
    curl_easy_cleanup(h);
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_all),      cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_files_checked), cmocka_unit_test(test_levels),
        cmocka_unit_test(test_apply_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

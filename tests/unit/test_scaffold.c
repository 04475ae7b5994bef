/* quern new (console/scaffold.c): NAME.lua written in a temporary folder
 * (".lua" added unless given), a scenario that compiles as Lua, named
 * after the file in capitals with what a name may not hold as '-', its
 * base_url the demo target's unless --url (both spellings) says; an
 * existing file never overwritten; each bad argument refused with exit 2
 * and one line naming it: no NAME, two, an unknown option, a URL that is
 * not http(s):// or could break out of its Lua string, a NAME that leaves
 * no scenario name, a folder that is not there. Whether the scenario
 * passes quern check and plays is tests/e2e/check.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mem.h"
#include "console/scaffold.h"

#include "tests/unit/optcall.h"

static int call_new(void *arg)
{
    optcall *c = arg;

    return scaffold_main(c->argc, c->argv);
}

/* quern new with the arguments up to a NULL (optcall_free it). */
static optcall *new_(optcall *c, const char *first, ...)
{
    va_list ap;

    va_start(ap, first);
    optcall_args(c, "new", first, ap);
    va_end(ap);
    optcall_run(c, call_new, c);
    return c;
}

static void refused(optcall *c, const char *want)
{
    if (c->rc != 2 || strstr(c->said, want) == NULL)
        fail_msg("exit %d, said \"%s\"; wanted exit 2 and \"%s\"", c->rc, c->said, want);
    optcall_free(c);
}

/* The file at path as a string (xfree it). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = xcalloc(1, 1 << 16);

    assert_non_null(f);
    assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
    fclose(f);
    return buf;
}

/* 1 when the text compiles as a Lua chunk (it is not run). */
static int compiles(const char *text)
{
    lua_State *L = luaL_newstate();
    int ok = luaL_loadstring(L, text) == LUA_OK;

    lua_close(L);
    return ok;
}

static void test_write(void **state)
{
    char dir[] = "/tmp/quern-new-XXXXXX", name[64], path[80], other[80], *text;
    optcall c;

    assert_non_null(mkdtemp(dir));
    snprintf(name, sizeof(name), "%s/my plan.v2", dir);
    snprintf(path, sizeof(path), "%s/my plan.v2.lua", dir);
    new_(&c, name, NULL);
    assert_int_equal(c.rc, 0);
    assert_string_equal(c.said, "");
    optcall_free(&c);
    text = slurp(path);
    assert_true(compiles(text));
    assert_non_null(strstr(text, "quern.scenario(\"MY-PLAN-V2\", {"));
    assert_non_null(strstr(text, "SC-MY-PLAN-V2-STEP-1"));
    assert_non_null(strstr(text, "quern.property(\"base_url\", \"" SCAFFOLD_URL_DEFAULT "\")"));
    assert_non_null(strstr(text, "-- my plan.v2.lua: a first quern scenario"));
    xfree(text);

    /* there already: left as it was */
    assert_int_equal(truncate(path, 5), 0);
    refused(new_(&c, path, "--url", "https://example.test", NULL), "(not overwritten)");
    text = slurp(path);
    assert_int_equal(strlen(text), 5);
    xfree(text);
    unlink(path);

    /* ".lua" given; --url in both spellings */
    snprintf(other, sizeof(other), "%s/b_2.lua", dir);
    new_(&c, "--url", "https://example.test:8443/api", other, NULL);
    assert_int_equal(c.rc, 0);
    optcall_free(&c);
    text = slurp(other);
    assert_true(compiles(text));
    assert_non_null(strstr(text, "quern.scenario(\"B_2\", {"));
    assert_non_null(strstr(text, "\"https://example.test:8443/api\")"));
    xfree(text);
    unlink(other);
    new_(&c, other, "--url=http://10.0.0.5:9000", NULL);
    assert_int_equal(c.rc, 0);
    optcall_free(&c);
    text = slurp(other);
    assert_non_null(strstr(text, "\"http://10.0.0.5:9000\")"));
    xfree(text);
    unlink(other);
    rmdir(dir);
}

static void test_refused(void **state)
{
    char dir[] = "/tmp/quern-new-XXXXXX", a[64], b[64];
    optcall c;

    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof(a), "%s/a", dir);
    snprintf(b, sizeof(b), "%s/b", dir);
    refused(new_(&c, NULL), "NAME is missing");
    refused(new_(&c, "", NULL), "NAME is missing");
    refused(new_(&c, a, b, NULL), "unexpected argument \"");
    refused(new_(&c, "--force", a, NULL), "unexpected argument \"--force\"");
    refused(new_(&c, a, "--url", "ftp://x", NULL), "--url: \"ftp://x\" is not an http://");
    refused(new_(&c, a, "--url", "http://x\"..os.exit()..\"", NULL), "--url: ");
    refused(new_(&c, a, "--url", "http://x\\", NULL), "--url: ");
    refused(new_(&c, a, "--url", "http://a b", NULL), "--url: ");
    refused(new_(&c, "/nonexistent-folder/.lua", NULL), "leaves no scenario name");
    refused(new_(&c, "/nonexistent-folder/plan", NULL), "/nonexistent-folder/plan.lua: ");
    assert_int_equal(rmdir(dir), 0); /* nothing written for any of them */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

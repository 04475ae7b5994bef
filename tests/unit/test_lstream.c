/* Unit tests for worker/lstream: a step's option known only by its whole
 * name in the list, and the Lua object over a stand-in stream: items taken
 * as the kind pushes them, then none ("timeout" while the inbox is open,
 * "closed" once it ended or the stream is gone), next's timeout argument
 * checked, the iterator called alone and in a for loop, fields and own
 * methods through the kind, close through the kind (nothing once the
 * stream is gone), another VU's stream refused (close too, unless any VU
 * may close it), another type refused, and the stream's slot pointed at the
 * object's pointer, cleared by __gc.
 *
 * The test includes lstream.c. No VU runs (vu_current is NULL): next never
 * waits, and the open (a yield) is not made here but by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/lua/lstream.c"

#include <lualib.h>

enum { T_CONNECTING, T_OPEN, T_CLOSED };

/** The stand-in stream: the members lstream reads, named as the protocols'. */
typedef struct tstream {
    inbox in;
    vu *owner;             /* borrowed */
    uint8_t state;         /* T_* */
    struct tstream **slot; /* borrowed: the object's pointer to it */
    int items;             /* items still to take, each its number, counting down */
    int closes;            /* close's calls */
} tstream;

static lstream_kind kind;

static struct {
    lua_State *L; /* owned */
    tstream t;
    lstream *s; /* owned by L: the global s */
    vu other;   /* a VU that runs no script */
} fx;

static int t_push(lua_State *L, lstream *s)
{
    tstream *t = s->c;

    if (t->items == 0)
        return 0;
    lua_pushinteger(L, t->items--);
    lua_pushliteral(L, "item");
    return 2;
}

static int t_close(lua_State *L, void *c)
{
    if (c != NULL)
        ((tstream *)c)->closes++;
    return 0;
}

static int t_field(lua_State *L, lstream *s, const char *k)
{
    if (strcmp(k, "items") != 0)
        return 0;
    lua_pushinteger(L, s->c != NULL ? ((tstream *)s->c)->items : -1);
    return 1;
}

/* s:each(): the iterator over the items */
static int t_each(lua_State *L)
{
    lstream_push_iter(L, &kind);
    return 1;
}

static const luaL_Reg own[] = {{"each", t_each}, {NULL, NULL}};

static int setup(void **state)
{
    memset(&fx, 0, sizeof(fx));
    memset(&kind, 0, sizeof(kind));
    kind.mt = "quern.TestStream";
    kind.what = "test stream";
    kind.next = "next";
    kind.timeout_what = "next timeout";
    kind.in_off = offsetof(tstream, in);
    kind.owner_off = offsetof(tstream, owner);
    kind.state_off = offsetof(tstream, state);
    kind.slot_off = offsetof(tstream, slot);
    kind.open_state = T_OPEN;
    kind.push = t_push;
    kind.close = t_close;
    kind.field = t_field;
    kind.methods = own;
    fx.other.gid = 7;
    fx.L = luaL_newstate();
    luaL_openlibs(fx.L);
    *(vu **)lua_getextraspace(fx.L) = NULL; /* no VU runs */
    lstream_register(fx.L, &kind, 0);
    inbox_init(&fx.t.in, NULL, 8, 1024);
    inbox_open(&fx.t.in);
    fx.t.state = T_OPEN;
    fx.s = lstream_new(fx.L, &kind, sizeof(*fx.s), 1000000);
    fx.s->c = &fx.t; /* as lstream_open does before its wait */
    set_slot(fx.s, &fx.s->c);
    lua_setglobal(fx.L, "s");
    return 0;
}

static int teardown(void **state)
{
    lua_close(fx.L);
    inbox_free(&fx.t.in);
    return 0;
}

/* Runs script in the fixture's state; a Lua error fails the test. */
static void run(const char *script)
{
    if (luaL_dostring(fx.L, script) != LUA_OK)
        fail_msg("%s", lua_tostring(fx.L, -1));
}

static void test_listed(void **state)
{
    const char *list = "headers, tls, http1";

    assert_true(listed(list, "headers"));
    assert_true(listed(list, "tls"));
    assert_true(listed(list, "http1"));
    assert_false(listed(list, "tl"));
    assert_false(listed(list, "ls"));
    assert_false(listed(list, "http"));
    assert_false(listed(list, "ttp1"));
    assert_false(listed(list, "tls, http1"));
    assert_false(listed(list, ""));
    assert_false(listed(list, " tls"));
}

static void test_items_then_none(void **state)
{
    fx.t.items = 2;
    run("local n, w = s:next() assert(n == 2 and w == 'item')\n"
        "n, w = s:next('1s') assert(n == 1 and w == 'item')\n"
        "n, w = s:next() assert(n == nil and w == 'timeout', tostring(w))\n"
        "local ok, e = pcall(s.next, s, 'soon')\n"
        "assert(not ok and e:find('next timeout: ', 1, true), e)");
    inbox_end(&fx.t.in);
    fx.t.state = T_CLOSED;
    run("local n, w = s:next() assert(n == nil and w == 'closed', tostring(w))");
}

static void test_iterator(void **state)
{
    fx.t.items = 3;
    run("local it = s:each() assert(it() == 3)\n"
        "local seen = {} for n in s:each() do seen[#seen + 1] = n end\n"
        "assert(#seen == 2 and seen[1] == 2 and seen[2] == 1, #seen)");
}

static void test_fields_and_methods(void **state)
{
    fx.t.items = 4;
    run("assert(s.items == 4 and s.nothing == nil and type(s.each) == 'function')\n"
        "assert(type(s.next) == 'function' and type(s.close) == 'function')\n"
        "s:close() s:close(1, 2)");
    assert_int_equal(fx.t.closes, 2);
}

static void test_gone(void **state)
{
    fx.t.items = 1;
    *fx.t.slot = NULL; /* the protocol freed the stream */
    run("local n, w = s:next() assert(n == nil and w == 'closed', tostring(w))\n"
        "assert(s.items == -1) s:close()");
    assert_int_equal(fx.t.closes, 0);
    assert_int_equal(fx.t.items, 1);
}

static void test_owner(void **state)
{
    fx.t.owner = &fx.other;
    fx.t.items = 1;
    run("local ok, e = pcall(s.next, s)\n"
        "assert(not ok and e:find('this test stream belongs to VU 7', 1, true), e)\n"
        "assert(not pcall(s.close, s))");
    assert_int_equal(fx.t.items, 1);
    kind.any_close = 1;
    run("assert(pcall(s.close, s))");
    assert_int_equal(fx.t.closes, 1);
}

static void test_wrong_type(void **state)
{
    run("local ok, e = pcall(s.next, {})\n"
        "assert(not ok and e:find('quern.TestStream expected', 1, true), e)\n"
        "ok, e = pcall(getmetatable(s).__index, {}, 'items')\n"
        "assert(not ok and e:find('quern.TestStream expected', 1, true), e)");
}

static void test_slot(void **state)
{
    assert_ptr_equal(fx.t.slot, (tstream **)&fx.s->c);
    lua_close(fx.L); /* __gc: the stream no longer points at the object */
    assert_null(fx.t.slot);
    fx.L = luaL_newstate();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed),
        cmocka_unit_test_setup_teardown(test_items_then_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iterator, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_and_methods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slot, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

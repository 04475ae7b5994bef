/* fuzz_har2lua — a HAR file as a browser, a proxy or a colleague wrote it
 * (record/har.c, record/correl.c, record/replay.c, record/luaout.c): what
 * `quern har2lua` reads before it writes a script a tester will run.
 *
 * Input: byte 0 says how: bit 0 --resources list (else auto); bit 1 a file
 * name follows, up to the first NUL byte (at most 255 bytes), given as the
 * file's name and the scenario's; the rest is the file's bytes.
 * Checks: a refusal says where ("LINE:COLUMN: ..."); a script ends with
 * run()'s "end", every line of it is blank, a comment, a declaration or
 * indented code, and every byte is a line end, printable ASCII or part of
 * a well-formed UTF-8 character. Then the script is loaded in Lua and run,
 * its top level and sc.run(vu), under an instruction limit, in an
 * environment where quern's modules are harmless stubs and os, io, load,
 * loadstring, dofile, loadfile, package, any require but quern's and any
 * other global are recorders: nothing the recording holds may reach them,
 * and the script must load. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/utf8.h"
#include "record/har2lua.h"
#include "tests/fuzz/fuzz_util.h"

#define STEPS_MAX 2000000 /* Lua instructions a script may run (it has no loop) */

/* A line of the script as har2lua writes them. */
static int line_ok(const char *s, size_t n)
{
    static const char *const starts[] = {"--", "local ", "function sc.run(vu)", "  ", "end"};

    if (n == 0)
        return 1;
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
        if (n >= strlen(starts[i]) && strncmp(s, starts[i], strlen(starts[i])) == 0)
            return strcmp(starts[i], "end") != 0 || n == 3;
    return 0;
}

/* 1 when every byte of the script is '\n', printable ASCII or in a
 * well-formed UTF-8 character. */
static int bytes_ok(const char *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + n;

    while (p < end) {
        uint32_t c;
        size_t len = *p < 0x80 ? 1 : utf8_decode(p, (size_t)(end - p), &c);
        if (len == 0 || (*p < 0x80 && *p != '\n' && (*p < 0x20 || *p == 0x7f)) ||
            (len > 1 && c >= 0x80 && c < 0xa0))
            return 0;
        p += len;
    }
    return 1;
}

/* -------------------------------------------------- the script's sandbox */

static char fuzz_used[128]; /* the first recorder the script reached, or "" */
static long fuzz_steps;

/* A recorder: notes its name (upvalue 1, and the key when indexed) and fails. */
static int fuzz_record(lua_State *L)
{
    if (fuzz_used[0] == '\0')
        snprintf(fuzz_used, sizeof(fuzz_used), "%s%s%s", lua_tostring(L, lua_upvalueindex(1)),
                 lua_type(L, 2) == LUA_TSTRING ? "." : "",
                 lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "");
    return luaL_error(L, "sandbox: %s used", lua_tostring(L, lua_upvalueindex(1)));
}

/* Pushes a recorder function named name. */
static void push_recorder(lua_State *L, const char *name)
{
    lua_pushstring(L, name);
    lua_pushcclosure(L, fuzz_record, 1);
}

/* Pushes a table whose every read, write or call is recorded. */
static void push_recorder_table(lua_State *L, const char *name)
{
    lua_newtable(L);
    lua_newtable(L);
    push_recorder(L, name);
    lua_setfield(L, -2, "__index");
    push_recorder(L, name);
    lua_setfield(L, -2, "__newindex");
    push_recorder(L, name);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
}

/* The stub's call: runs the functions it is given (s:time(function() ... end)),
 * then returns the stub. */
static int stub_call(lua_State *L)
{
    int n = lua_gettop(L);

    for (int i = 2; i <= n; i++)
        if (lua_isfunction(L, i)) {
            lua_pushvalue(L, i);
            lua_pushvalue(L, 1);
            lua_call(L, 1, 0);
        }
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

static int stub_self(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

static int stub_concat(lua_State *L)
{
    lua_pushliteral(L, "stub");
    return 1;
}

/* Pushes the stub: a value every index, call or concatenation of which
 * gives itself (a step, a response, quern.http, quern.sleep...). */
static void push_stub(lua_State *L)
{
    lua_newtable(L);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, stub_self, 1);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, stub_call, 1);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, stub_concat);
    lua_setfield(L, -2, "__concat");
    lua_setmetatable(L, -2);
}

/* quern.property(name [, default]): the default, else "x". */
static int stub_property(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_pushstring(L, luaL_optstring(L, 2, "x"));
    return 1;
}

/* quern.scenario(name): a table (sc.run is set on it) whose methods are the stub's. */
static int stub_scenario(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "fuzz_sc");
    return 1;
}

/* require: "quern" and "quern.http" are stubs, anything else is recorded. */
static int stub_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);

    if (strcmp(name, "quern") == 0) {
        lua_newtable(L);
        lua_pushcfunction(L, stub_property);
        lua_setfield(L, -2, "property");
        push_stub(L);
        lua_pushcclosure(L, stub_scenario, 1);
        lua_setfield(L, -2, "scenario");
        lua_newtable(L); /* quern.sleep and the rest: the stub */
        push_stub(L);
        lua_pushcclosure(L, stub_self, 1);
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, -2);
        return 1;
    }
    if (strcmp(name, "quern.http") == 0) {
        push_stub(L);
        return 1;
    }
    if (fuzz_used[0] == '\0')
        snprintf(fuzz_used, sizeof(fuzz_used), "require \"%s\"", name);
    return luaL_error(L, "sandbox: require \"%s\"", name);
}

static void fuzz_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    fuzz_steps += 1000;
    if (fuzz_steps > STEPS_MAX)
        luaL_error(L, "sandbox: instruction limit");
}

/* Loads the script with the sandbox as its _ENV, runs it and sc.run(vu);
 * checks it loads and reaches no recorder. */
static void script_run(const char *buf, size_t len)
{
    static const char *const recorded_tables[] = {"os", "io", "package", "debug"};
    static const char *const recorded_fns[] = {"load",   "loadstring", "dofile",      "loadfile",
                                               "rawset", "rawget",     "setmetatable"};
    lua_State *L = luaL_newstate();
    int rc;

    fuzz_check(L != NULL);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 0); /* strings' methods */
    lua_pop(L, 1);
    fuzz_used[0] = '\0';
    fuzz_steps = 0;
    rc = luaL_loadbuffer(L, buf, len, "=script");
    if (rc != LUA_OK)
        fprintf(stderr, "the script does not load: %s\n", lua_tostring(L, -1));
    fuzz_check(rc == LUA_OK);
    /* the environment: recorders, require, and a recorder for any other global */
    lua_newtable(L);
    for (size_t i = 0; i < sizeof(recorded_tables) / sizeof(recorded_tables[0]); i++) {
        push_recorder_table(L, recorded_tables[i]);
        lua_setfield(L, -2, recorded_tables[i]);
    }
    for (size_t i = 0; i < sizeof(recorded_fns) / sizeof(recorded_fns[0]); i++) {
        push_recorder(L, recorded_fns[i]);
        lua_setfield(L, -2, recorded_fns[i]);
    }
    lua_pushcfunction(L, stub_require);
    lua_setfield(L, -2, "require");
    lua_newtable(L);
    push_recorder(L, "a global");
    lua_setfield(L, -2, "__index");
    push_recorder(L, "a global set");
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    fuzz_check(lua_setupvalue(L, -2, 1) != NULL); /* the chunk's _ENV */
    lua_sethook(L, fuzz_hook, LUA_MASKCOUNT, 1000);
    rc = lua_pcall(L, 0, 0, 0);
    if (rc == LUA_OK && lua_getfield(L, LUA_REGISTRYINDEX, "fuzz_sc") == LUA_TTABLE &&
        lua_getfield(L, -1, "run") == LUA_TFUNCTION) {
        push_stub(L); /* vu */
        rc = lua_pcall(L, 1, 0, 0);
    }
    if (fuzz_used[0] != '\0')
        fprintf(stderr, "the script reached %s\n", fuzz_used);
    fuzz_check(fuzz_used[0] == '\0');
    lua_close(L);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    replay_opts o = {.source = "f.har", .name = "F", .prop = "base_url"};
    char err[ERR_MAX], *buf, file[256];
    size_t blen, skip = 1;
    dbuf out;
    int rc;

    if (size < 1)
        return 0;
    o.resources = data[0] & 1 ? REPLAY_RES_LIST : REPLAY_RES_AUTO;
    if (data[0] & 2) {
        const uint8_t *nul = memchr(data + 1, '\0', size - 1);
        size_t n = nul != NULL ? (size_t)(nul - data - 1) : size - 1;
        if (n >= sizeof(file))
            n = sizeof(file) - 1;
        memcpy(file, data + 1, n);
        file[n] = '\0';
        skip = 1 + n + (nul != NULL);
        o.source = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file;
        o.name = file;
        if (skip > size)
            skip = size;
    }
    dbuf_init(&out, REPLAY_SCRIPT_MAX);
    err[0] = '\0';
    rc = har2lua_convert((const char *)data + skip, size - skip, &o, &out, err, sizeof(err));
    buf = out.p;
    blen = out.len;
    if (rc != 0) {
        unsigned line, col;
        fuzz_check(sscanf(err, "%u:%u: ", &line, &col) == 2);
    } else {
        fuzz_check(blen >= 4 && strcmp(buf + blen - 4, "end\n") == 0);
        fuzz_check(bytes_ok(buf, blen));
        for (const char *s = buf; s < buf + blen;) {
            const char *nl = memchr(s, '\n', (size_t)(buf + blen - s));
            size_t n = nl != NULL ? (size_t)(nl - s) : (size_t)(buf + blen - s);
            fuzz_check(line_ok(s, n));
            s += n + 1;
        }
        script_run(buf, blen);
    }
    dbuf_free(&out);
    return 0;
}

/* fuzz_luamod — what the fuzz targets of the protocols written in Lua
 * share (worker/lua/mods/, compiled in): the module loaded once into a Lua
 * state, and a reader over the input that answers as step:tcp's receive
 * does, for a harness in Lua that checks the module's promises.
 *
 * reader(s), a global of the harness, makes a reader over s: r:receive("line")
 * gives up to LF (a CR before it dropped), r:receive(n) exactly n bytes,
 * and at the end nil, "closed"; asking for more than the socket's 1 MiB,
 * or for anything else, raises, so a parser that would is caught. r.pos is
 * the next byte's position.
 *
 * Usage (header-only, one program per target):
 *     static const char harness[] = "local M, mode, s = ...  ... return nil or why";
 *     int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
 *     { return fuzz_luamod_run("quern.redis", harness, sizeof(harness) - 1, d, n); }
 * Byte 0 of the input is the harness's mode, the rest its bytes; a string
 * returned by the harness is an invariant broken (printed, then abort).
 *
 * Coverage: libFuzzer sees the C it was built with, not the Lua the
 * interpreter runs, so under clang (make fuzz) a line hook counts the
 * pairs of lines the Lua code goes through into libFuzzer's extra
 * counters: a new path through a parser is new coverage. */
#ifndef QUERN_FUZZ_LUAMOD_H
#define QUERN_FUZZ_LUAMOD_H

#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/fuzz/fuzz_util.h"
#include "worker/lua/lmods.h"

static const char fuzz_luamod_reader[] =
    "function reader(s)\n"
    "local r = { pos = 1 }\n"
    "function r.receive(self, what)\n"
    "  if what == 'line' then\n"
    "    local e = s:find('\\n', self.pos, true)\n"
    "    if not e then return nil, 'closed' end\n"
    "    local line = s:sub(self.pos, e - 1)\n"
    "    self.pos = e + 1\n"
    "    return (line:gsub('\\r$', ''))\n"
    "  end\n"
    "  if math.type(what) ~= 'integer' or what < 0 or what > 1 << 20 then\n"
    "    error('receive asked for ' .. tostring(what))\n"
    "  end\n"
    "  if self.pos + what - 1 > #s then return nil, 'closed' end\n"
    "  local piece = s:sub(self.pos, self.pos + what - 1)\n"
    "  self.pos = self.pos + what\n"
    "  return piece\n"
    "end\n"
    "return r\n"
    "end\n";

/* The state, for the process: index 1 the module, 2 the harness. */
static lua_State *fuzz_luamod_L;

#ifdef __clang__
#define FUZZ_LUAMOD_COUNTERS 65536
__attribute__((
    section("__libfuzzer_extra_counters"))) static uint8_t fuzz_luamod_cov[FUZZ_LUAMOD_COUNTERS];

/* One counter a pair of lines run one after the other (an edge). */
static void fuzz_luamod_hook(lua_State *L, lua_Debug *ar)
{
    static uint32_t prev;
    uint32_t line = (uint32_t)ar->currentline * 2654435761u;

    fuzz_luamod_cov[(line ^ (prev >> 1)) % FUZZ_LUAMOD_COUNTERS]++;
    prev = line;
}
#endif

static void fuzz_luamod_setup(const char *name, const char *harness, size_t hlen)
{
    size_t len;
    const char *src = lmods_source(name, &len);
    lua_State *L = luaL_newstate();

    fuzz_check(L != NULL && src != NULL);
    luaL_openlibs(L);
    /* what a module may take from quern when it loads (quern.mqtt its clock) */
    fuzz_check(luaL_dostring(L, "package.preload.quern = function() return { now = os.clock,"
                                " crypto = {} } end") == LUA_OK);
    fuzz_check(luaL_loadbufferx(L, src, len, name, "t") == LUA_OK);
    fuzz_check(lua_pcall(L, 0, 1, 0) == LUA_OK);
    fuzz_check(luaL_dostring(L, fuzz_luamod_reader) == LUA_OK);
    fuzz_check(luaL_loadbufferx(L, harness, hlen, "=harness", "t") == LUA_OK);
#ifdef __clang__
    lua_sethook(L, fuzz_luamod_hook, LUA_MASKLINE, 0);
#endif
    fuzz_luamod_L = L;
}

static inline int fuzz_luamod_run(const char *name, const char *harness, size_t hlen,
                                  const uint8_t *data, size_t size)
{
    lua_State *L;
    const char *why;

    if (size < 1)
        return 0;
    if (fuzz_luamod_L == NULL)
        fuzz_luamod_setup(name, harness, hlen);
    L = fuzz_luamod_L;
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, data[0]);
    lua_pushlstring(L, (const char *)data + 1, size - 1);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        fprintf(stderr, "%s: the harness raised: %s\n", name, lua_tostring(L, -1));
        fuzz_check(!"the harness raised");
    }
    why = lua_tostring(L, -1);
    if (why)
        fprintf(stderr, "%s: %s\n", name, why);
    fuzz_check(why == NULL);
    lua_pop(L, 1);
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

#endif

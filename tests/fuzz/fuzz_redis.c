/* fuzz_redis — a Redis server's bytes as quern.redis reads them
 * (worker/lua/mods/redis.lua, the source compiled in).
 *
 * Input: byte 0 even: the rest is what the server sent, read as replies
 * one after another through a reader that answers as step:tcp's receive
 * does ("line": up to LF, CR before it dropped; n: exactly n bytes; at the
 * end nil, "closed"). Checks: the parser never raises, never asks the
 * socket for more than its 1 MiB bound, and every reply is a value, nil
 * alone (a null reply), or nil with a kind among "error", "closed",
 * "protocol" and a message; each
 * reply takes at least a line, so the loop ends. Byte 0 odd: the rest, cut
 * at NUL bytes, is a command's arguments: what _encode sends reads back as
 * the same strings. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_util.h"
#include "worker/lua/lmods.h"

/* The harness, in Lua: (M, mode, input) -> nil, or what went wrong. */
static const char harness[] =
    "local M, mode, s = ...\n"
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
    "if mode == 0 then\n"
    "  local kinds = { error = true, closed = true, protocol = true }\n"
    "  while true do\n"
    "    local before, pushes = r.pos, {}\n"
    "    local ok, v, kind, msg = pcall(M._read_reply, r, pushes)\n"
    "    if not ok then return 'raised: ' .. tostring(v) end\n"
    "    if v == nil and kind ~= nil then\n"
    "      if not kinds[kind] then return 'kind ' .. tostring(kind) end\n"
    "      if type(msg) ~= 'string' then return 'no message for ' .. kind end\n"
    "      if kind ~= 'error' then return nil end\n"
    "    end\n"
    "    if r.pos <= before then return 'a reply took nothing' end\n"
    "  end\n"
    "end\n"
    "local args = {}\n"
    "for a in (s .. '\\0'):gmatch('([^\\0]*)\\0') do\n"
    "  if #args == 64 then break end\n"
    "  args[#args + 1] = a\n"
    "end\n"
    "s = M._encode(args)\n"
    "local got, kind = M._read_reply(r)\n"
    "if type(got) ~= 'table' or #got ~= #args then return 'read back: ' .. tostring(kind) end\n"
    "for i = 1, #args do\n"
    "  if got[i] ~= args[i] then return 'argument ' .. i .. ' read back changed' end\n"
    "end\n"
    "if r.pos ~= #s + 1 then return 'bytes left after the command' end\n";

static lua_State *L; /* owned for the process: the module loads once */

static void setup(void)
{
    size_t len;
    const char *src = lmods_source("quern.redis", &len);

    L = luaL_newstate();
    fuzz_check(L != NULL && src != NULL);
    luaL_openlibs(L);
    fuzz_check(luaL_loadbufferx(L, src, len, "@quern/redis.lua", "t") == LUA_OK);
    fuzz_check(lua_pcall(L, 0, 1, 0) == LUA_OK); /* the module, kept at index 1 */
    fuzz_check(luaL_loadbufferx(L, harness, sizeof(harness) - 1, "=harness", "t") == LUA_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why;

    if (size < 1)
        return 0;
    if (!L)
        setup();
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, data[0] & 1);
    lua_pushlstring(L, (const char *)data + 1, size - 1);
    fuzz_check(lua_pcall(L, 3, 1, 0) == LUA_OK);
    why = lua_tostring(L, -1);
    if (why)
        fprintf(stderr, "fuzz_redis: %s\n", why);
    fuzz_check(why == NULL);
    lua_pop(L, 1);
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

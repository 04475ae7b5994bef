/* fuzz_redis — a Redis server's bytes as quern.redis reads them
 * (worker/lua/mods/redis.lua, the source compiled in; fuzz_luamod.h).
 *
 * Input: byte 0 even: the rest is what the server sent, read as replies
 * one after another. Checks: the parser never raises, never asks the
 * socket for more than its 1 MiB bound, and every reply is a value, nil
 * alone (a null reply), or nil with a kind among "error", "closed",
 * "protocol" and a message; each reply takes at least a line, so the loop
 * ends. Byte 0 odd: the rest, cut at NUL bytes, is a command's arguments:
 * what _encode sends reads back as the same strings. */
#include <stdint.h>

#include "tests/fuzz/fuzz_luamod.h"

static const char harness[] =
    "local M, mode, s = ...\n"
    "if mode % 2 == 0 then\n"
    "  local r, kinds = reader(s), { error = true, closed = true, protocol = true }\n"
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
    "local sent = M._encode(args)\n"
    "local r = reader(sent)\n"
    "local got, kind = M._read_reply(r)\n"
    "if type(got) ~= 'table' or #got ~= #args then return 'read back: ' .. tostring(kind) end\n"
    "for i = 1, #args do\n"
    "  if got[i] ~= args[i] then return 'argument ' .. i .. ' read back changed' end\n"
    "end\n"
    "if r.pos ~= #sent + 1 then return 'bytes left after the command' end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_luamod_run("quern.redis", harness, sizeof(harness) - 1, data, size);
}

/* fuzz_pg — a PostgreSQL server's bytes as quern.pg reads them
 * (worker/lua/mods/pg.lua, the source compiled in; fuzz_luamod.h).
 *
 * Input: byte 0 even: the rest is what the server sent, read as messages
 * one after another and each body parsed as its type says (an error or a
 * notice, a row description, a data row of the last one, a command tag).
 * Checks: nothing raises, nothing asks the socket for more than its 1 MiB;
 * a message is a type byte and a body, or nil with a kind ("closed",
 * "protocol") and a message; a parsed error has a code and a message, a
 * row description's columns have names, a data row holds only described
 * columns. Byte 0 odd: the rest as SQL, its highest placeholder counted:
 * an integer from 0, no more than the digits in it allow. */
#include <stdint.h>

#include "tests/fuzz/fuzz_luamod.h"

static const char harness[] =
    "local M, mode, s = ...\n"
    "if mode % 2 == 1 then\n"
    "  local ok, n = pcall(M._placeholders, s)\n"
    "  if not ok then return 'placeholders raised: ' .. tostring(n) end\n"
    "  if math.type(n) ~= 'integer' or n < 0 then return 'placeholders: ' .. tostring(n) end\n"
    "  if n > 0 and not s:find(tostring(n), 1, true) then return 'a count not in the SQL' end\n"
    "  return nil\n"
    "end\n"
    "local r, cols = reader(s), nil\n"
    "local kinds = { closed = true, protocol = true }\n"
    "while true do\n"
    "  local ok, t, body, msg = pcall(M._read_message, r)\n"
    "  if not ok then return 'read raised: ' .. tostring(t) end\n"
    "  if t == nil then\n"
    "    if not kinds[body] or type(msg) ~= 'string' then return 'kind ' .. tostring(body) end\n"
    "    return nil\n"
    "  end\n"
    "  if type(t) ~= 'string' or #t ~= 1 or type(body) ~= 'string' then return 'a message' end\n"
    "  local v, k, m, parsed = nil, nil, nil, t == 'E' or t == 'N' or t == 'T' or t == 'D'\n"
    "  if t == 'E' or t == 'N' then\n"
    "    ok, v, k, m = pcall(M._parse_error, body)\n"
    "    if ok and v and (type(v.code) ~= 'string' or type(v.message) ~= 'string') then\n"
    "      return 'an error without its code or message'\n"
    "    end\n"
    "    if ok and v then ok = pcall(M._error_text, v) end\n"
    "  elseif t == 'T' then\n"
    "    ok, v, k, m = pcall(M._parse_row_description, body)\n"
    "    if ok and v then\n"
    "      for i, c in ipairs(v) do\n"
    "        if type(c.name) ~= 'string' then return 'column ' .. i .. ' without a name' end\n"
    "      end\n"
    "      cols = v\n"
    "    end\n"
    "  elseif t == 'D' and not cols then\n"
    "    parsed = false\n"
    "  elseif t == 'D' then\n"
    "    ok, v, k, m = pcall(M._parse_data_row, body, cols)\n"
    "    if ok and v then\n"
    "      local names = {}\n"
    "      for _, c in ipairs(cols) do names[c.name] = true end\n"
    "      for name in pairs(v) do\n"
    "        if not names[name] then return 'a column not described' end\n"
    "      end\n"
    "    end\n"
    "  elseif t == 'C' then\n"
    "    ok, v, k = pcall(M._parse_tag, (body:gsub('%z.*', '')))\n"
    "    if ok and type(v) ~= 'string' then return 'a tag without its command' end\n"
    "    if ok and k ~= nil and math.type(k) ~= 'integer' then return 'a count not integral' end\n"
    "  end\n"
    "  if not ok then return t .. ': parse raised: ' .. tostring(v) end\n"
    "  if parsed and v == nil and k ~= 'protocol' then return t .. ': kind ' .. tostring(k) end\n"
    "end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_luamod_run("quern.pg", harness, sizeof(harness) - 1, data, size);
}

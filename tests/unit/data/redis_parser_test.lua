-- The RESP parser and encoder of quern.redis (worker/lua/mods/redis.lua),
-- in plain Lua over a fake socket. tests/unit/test_lmods.c runs it on the
-- module compiled in (given as the chunk's argument); by hand:
--   lua5.4 tests/unit/data/redis_parser_test.lua worker/lua/mods/redis.lua
-- Prints "ok N - what" per check, "not ok N - what" on a failure, and exits
-- 1 if any failed.
local M = ...
if type(M) ~= "table" then
  M = assert(loadfile(assert(arg[1], "usage: redis_parser_test.lua path/to/redis.lua")))()
end

local n, failed = 0, 0
local function check(name, cond, detail)
  n = n + 1
  if cond then
    print("ok " .. n .. " - " .. name)
  else
    failed = failed + 1
    print("not ok " .. n .. " - " .. name .. (detail and (": " .. detail) or ""))
  end
end

-- A reader over a string, answering as step:tcp's receive does: a line
-- without its "\r\n" or "\n", exactly n bytes, or nil, "closed" at the end
-- (or nil, "timeout" when made with timeout = true).
local function reader(s, timeout)
  local r = { pos = 1, calls = 0 }
  local gone = timeout and "timeout" or "closed"
  function r.receive(self, what)
    self.calls = self.calls + 1
    if what == "line" then
      local e = s:find("\n", self.pos, true)
      if not e then return nil, gone end
      local line = s:sub(self.pos, e - 1)
      self.pos = e + 1
      return (line:gsub("\r$", ""))
    end
    assert(math.type(what) == "integer" and what >= 0, "receive: bad argument")
    assert(what <= 1 << 20, "receive past 1 MiB: the socket would raise")
    if self.pos + what - 1 > #s then return nil, gone end
    local piece = s:sub(self.pos, self.pos + what - 1)
    self.pos = self.pos + what
    return piece
  end
  return r
end

local function parse(s, pushes)
  local r = reader(s)
  local ok, v, kind, msg = pcall(M._read_reply, r, pushes)
  if not ok then error("the parser raised on " .. string.format("%q", s) .. ": " .. tostring(v)) end
  return v, kind, msg, r
end

-- deep equality; redis.null and error replies compared as values
local function same(a, b)
  if a == b then return true end
  if a ~= a and b ~= b then return true end  -- NaN
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  if getmetatable(a) ~= getmetatable(b) then return false end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function show(v)
  if type(v) ~= "table" or v == M.null or getmetatable(v) == M.error_reply then
    return type(v) == "string" and string.format("%q", v) or tostring(v)
  end
  local parts = {}
  for k, x in pairs(v) do parts[#parts + 1] = "[" .. show(k) .. "]=" .. show(x) end
  table.sort(parts)
  return "{" .. table.concat(parts, ",") .. "}"
end

local function value(name, input, want, wtype)
  local v, kind, msg, r = parse(input)
  local ok = kind == nil and same(v, want) and (wtype == nil or math.type(v) == wtype)
    and r.pos == #input + 1  -- the whole reply consumed, nothing more
  check(name, ok, "got " .. show(v) .. " " .. tostring(kind) .. " " .. tostring(msg))
end

local function fails(name, input, want_kind, msg_part)
  local v, kind, msg = parse(input)
  check(name, v == nil and kind == want_kind and (msg_part == nil or (msg or ""):find(msg_part, 1, true)),
    "got " .. show(v) .. " " .. tostring(kind) .. " " .. tostring(msg))
end

local null = M.null
local function E(t) return setmetatable({ err = t }, M.error_reply) end

-- RESP2 ----------------------------------------------------------------------
value("simple string", "+OK\r\n", "OK")
value("empty simple string", "+\r\n", "")
value("integer", ":1000\r\n", 1000, "integer")
value("negative integer", ":-42\r\n", -42, "integer")
value("64-bit integer", ":9223372036854775807\r\n", math.maxinteger, "integer")
value("bulk string", "$5\r\nhello\r\n", "hello")
value("empty bulk string", "$0\r\n\r\n", "")
value("binary bulk string, CRLF and NUL inside", "$6\r\na\r\n\0b\n\r\n", "a\r\n\0b\n")
value("null bulk string is nil", "$-1\r\n", nil)
value("null array is nil", "*-1\r\n", nil)
value("empty array", "*0\r\n", {})
value("array", "*3\r\n$3\r\nfoo\r\n:7\r\n+bar\r\n", { "foo", 7, "bar" })
value("nil inside an array is redis.null", "*3\r\n$1\r\na\r\n$-1\r\n$1\r\nc\r\n", { "a", null, "c" })
value("nested arrays", "*2\r\n*1\r\n:1\r\n*2\r\n+a\r\n*0\r\n", { { 1 }, { "a", {} } })
value("an error inside an array is an error_reply", "*2\r\n+OK\r\n-ERR no\r\n", { "OK", E("ERR no") })
fails("error reply", "-ERR unknown command 'FOO', with args beginning with: \r\n", "error",
  "ERR unknown command 'FOO'")
do
  local _, kind, msg = parse("-WRONGTYPE Operation against a key\r\n")
  check("error reply's message is the server's text, whole",
    kind == "error" and msg == "WRONGTYPE Operation against a key")
end
do
  local v = parse("*1\r\n-ERR x\r\n")
  check("an error_reply's tostring is its text", tostring(v[1]) == "ERR x")
end
check("redis.null's tostring", tostring(null) == "redis.null")
value("a bulk string over the socket's 1 MiB bound, read in chunks",
  "$" .. (3 << 20) .. "\r\n" .. string.rep("x", 3 << 20) .. "\r\n", string.rep("x", 3 << 20))

-- RESP3 ----------------------------------------------------------------------
value("null", "_\r\n", nil)
value("double", ",3.25\r\n", 3.25, "float")
value("double, integral, is a float", ",2\r\n", 2.0, "float")
value("double with exponent", ",-1.5e3\r\n", -1500.0)
value("double inf", ",inf\r\n", math.huge)
value("double -inf", ",-inf\r\n", -math.huge)
do
  local v, kind = parse(",nan\r\n")
  check("double nan", kind == nil and v ~= v)
end
value("boolean true", "#t\r\n", true)
value("boolean false", "#f\r\n", false)
value("big number is a string", "(3492890328409238509324850943850943825024385\r\n",
  "3492890328409238509324850943850943825024385")
value("verbatim string without its txt: prefix", "=15\r\ntxt:Some string\r\n", "Some string")
value("verbatim markdown", "=6\r\nmkd:**\r\n", "**")
fails("blob error", "!21\r\nSYNTAX invalid syntax\r\n", "error", "SYNTAX invalid syntax")
value("map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", { first = 1, second = 2 })
value("map with a null value keeps the key", "%1\r\n+k\r\n_\r\n", { k = null })
value("map with a null key", "%1\r\n_\r\n:1\r\n", { [null] = 1 })
value("map with integer keys", "%2\r\n:1\r\n+a\r\n:2\r\n+b\r\n", { "a", "b" })
value("set is a list", "~3\r\n+a\r\n+b\r\n_\r\n", { "a", "b", null })
value("attribute skipped, then the reply", "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2\r\n:9\r\n",
  { 2, 9 })
value("attribute before an element", "*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n:2\r\n", { 1, 2 })
value("several attributes in a row", "|0\r\n|0\r\n|1\r\n+x\r\n+y\r\n+OK\r\n", "OK")
do
  local pushes = {}
  local v, kind, _, r = parse(">3\r\n+message\r\n+chan\r\n+hi\r\n>2\r\n+a\r\n:1\r\n:42\r\n", pushes)
  check("pushes kept aside, then the reply", kind == nil and v == 42 and r.pos == 44 and
    same(pushes, { { "message", "chan", "hi" }, { "a", 1 } }), show(pushes))
  local v2 = parse(">1\r\n+x\r\n+OK\r\n")
  check("pushes without a list to keep them: dropped", v2 == "OK")
end
value("HELLO 3's map", "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n",
  { server = "redis", proto = 3, modules = {} })
value("a reply ended by LF alone is read too", "+OK\n", "OK")

-- Bounds ---------------------------------------------------------------------
local function nest(k, inner) return string.rep("*1\r\n", k) .. inner end
do
  local v, kind = parse(nest(64, ":1\r\n"))
  local depth, t = 0, v
  while type(t) == "table" do depth, t = depth + 1, t[1] end
  check("64 nested arrays are read", kind == nil and depth == 64 and t == 1)
end
fails("65 nested arrays: protocol", nest(65, ":1\r\n"), "protocol", "nested deeper than 64")
fails("deep nesting of maps: protocol", string.rep("%1\r\n+k\r\n", 65) .. ":1\r\n", "protocol", "nested")
fails("deep nesting inside an attribute: protocol", "|1\r\n+k\r\n" .. nest(64, ":1\r\n"), "protocol", "nested")
fails("a million nested arrays: protocol, no overflow", string.rep("*1\r\n", 1000000), "protocol", "nested")
do
  local _, kind, _, r = parse("*1048576\r\n")
  check("2^20 elements declared, none sent: closed, read one by one", kind == "closed" and r.calls == 2)
end
fails("2^20 + 1 elements: protocol", "*1048577\r\n", "protocol", "element count")
fails("map of 2^20 + 1 pairs: protocol", "%1048577\r\n", "protocol", "element count")
fails("set of 2^20 + 1: protocol", "~1048577\r\n", "protocol", "element count")
do
  local _, kind, _, r = parse("$536870912\r\n")
  check("a 512 MiB bulk string declared, not sent: closed after one chunk", kind == "closed" and r.calls == 2)
end
fails("bulk over 512 MiB: protocol", "$536870913\r\n", "protocol", "length")
fails("bulk of 2^63: protocol", "$9223372036854775808\r\n", "protocol", "length")
fails("blob error over 512 MiB: protocol", "!536870913\r\n", "protocol", "length")
fails("verbatim over 512 MiB: protocol", "=536870913\r\n", "protocol", "length")
fails("an array of arrays declared huge, nothing sent: closed",
  string.rep("*1048576\r\n", 64), "closed")

-- Truncated input: every strict prefix of a reply is "closed" -----------------
local whole = "|1\r\n+a\r\n+b\r\n>2\r\n+p\r\n:1\r\n*6\r\n$5\r\nhello\r\n:1\r\n%1\r\n+k\r\n~1\r\n,1.5\r\n" ..
  "=7\r\ntxt:abc\r\n#t\r\n*2\r\n$-1\r\n_\r\n"
do
  local bad = {}
  for i = 0, #whole - 1 do
    local v, kind = parse(whole:sub(1, i))
    if v ~= nil or kind ~= "closed" then bad[#bad + 1] = i .. ":" .. tostring(kind) end
  end
  check("every prefix of a mixed reply is closed (" .. #whole .. " prefixes)", #bad == 0, table.concat(bad, " "))
  local v, kind = parse(whole)
  check("... and the whole is read", kind == nil and #v == 6 and v[1] == "hello" and v[3].k[1] == 1.5
    and v[4] == "abc" and v[5] == true and v[6][1] == null and v[6][2] == null)
end
fails("nothing at all: closed", "", "closed")
fails("bulk without its CRLF: closed", "$3\r\nfoo", "closed")
do
  local v, kind = M._read_reply(reader("$3\r\nfo", true))
  check("a timeout is told apart from a close", v == nil and kind == "timeout")
  local _, kind2 = M._read_reply(reader("", true))
  check("a timeout before anything", kind2 == "timeout")
end

-- Garbage: protocol ----------------------------------------------------------
fails("unknown type byte", "hello\r\n", "protocol", "type byte 0x68")
fails("NUL as type byte", "\0\r\n", "protocol", "0x00")
fails("empty line", "\r\n", "protocol", "empty line")
fails("integer with letters", ":12a\r\n", "protocol", "integer")
fails("integer in hex", ":0x10\r\n", "protocol", "integer")
fails("integer with spaces", ": 1\r\n", "protocol", "integer")
fails("empty integer", ":\r\n", "protocol", "integer")
fails("integer past 64 bits", ":99999999999999999999\r\n", "protocol", "integer")
fails("bulk length -2", "$-2\r\n", "protocol", "length")
fails("bulk length not a number", "$x\r\n", "protocol", "length")
fails("bulk length as a float", "$1.0\r\n", "protocol", "length")
fails("bulk not ended by CRLF", "$3\r\nfooXY\r\n", "protocol", "CRLF")
fails("array count -2", "*-2\r\n", "protocol", "count")
fails("array count not a number", "*a\r\n", "protocol", "count")
fails("streamed string (RESP3 '$?'): protocol", "$?\r\n;4\r\nHell\r\n;0\r\n", "protocol")
fails("null with text", "_x\r\n", "protocol", "null")
fails("double in hex", ",0x10\r\n", "protocol", "double")
fails("double empty", ",\r\n", "protocol", "double")
fails("double garbage", ",1.2.3\r\n", "protocol", "double")
fails("boolean other than t/f", "#x\r\n", "protocol", "boolean")
fails("big number with letters", "(12a\r\n", "protocol", "big number")
fails("verbatim without format", "=3\r\nabc\r\n", "protocol", "verbatim")
fails("map key NaN", "%1\r\n,nan\r\n:1\r\n", "protocol", "NaN")
fails("null map: protocol", "%-1\r\n", "protocol", "count")
fails("push with count -1", ">-1\r\n", "protocol", "count")
fails("garbage inside an array", "*2\r\n:1\r\n?\r\n", "protocol", "type byte")

-- Never raises: random bytes and mutated replies (a fixed seed, quick) ------
do
  math.randomseed(20240611)
  local alphabet = { "*", "$", "%", "~", ">", "|", "+", "-", ":", "_", ",", "#", "(", "!", "=",
    "\r\n", "\r\n", "\r\n", "1", "2", "0", "-1", "3", "t", "nan", "x", "\0", "9999999", "." }
  local raised, tries = nil, 0
  for _ = 1, 3000 do
    local parts = {}
    for j = 1, math.random(1, 30) do parts[j] = alphabet[math.random(#alphabet)] end
    local s = table.concat(parts)
    tries = tries + 1
    local ok, err = pcall(M._read_reply, reader(s), {})
    if not ok then raised = string.format("%q: %s", s, err) break end
  end
  for _ = 1, 2000 do
    local s = whole
    local i = math.random(1, #s)
    s = s:sub(1, i - 1) .. string.char(math.random(0, 255)) .. s:sub(i + 1)
    tries = tries + 1
    local ok, err = pcall(M._read_reply, reader(s), {})
    if not ok then raised = raised or string.format("%q: %s", s, err) break end
  end
  check("never raises on " .. tries .. " random or mutated inputs", raised == nil, raised)
end

-- Encoding -------------------------------------------------------------------
local function enc(name, args, want)
  local ok, got = pcall(M._encode, args)
  check(name, ok and got == want, string.format("got %q", tostring(got)))
end
enc("SET k v", { "SET", "k", "v" }, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
enc("integers as integers", { "INCRBY", "k", 42 }, "*3\r\n$6\r\nINCRBY\r\n$1\r\nk\r\n$2\r\n42\r\n")
enc("integral floats as integers", { "EXPIRE", "k", 10.0 }, "*3\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$2\r\n10\r\n")
enc("floats, shortest exact form", { "INCRBYFLOAT", "k", 0.1 }, "*3\r\n$11\r\nINCRBYFLOAT\r\n$1\r\nk\r\n$3\r\n0.1\r\n")
enc("negative", { "INCRBY", "k", -3 }, "*3\r\n$6\r\nINCRBY\r\n$1\r\nk\r\n$2\r\n-3\r\n")
enc("binary and empty arguments", { "SET", "a\r\nb", "" }, "*3\r\n$3\r\nSET\r\n$4\r\na\r\nb\r\n$0\r\n\r\n")
enc("booleans through tostring", { "ECHO", true }, "*2\r\n$4\r\nECHO\r\n$4\r\ntrue\r\n")
enc("multi-byte characters count as bytes", { "SET", "k", "é" }, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n")
do
  local ok, err = pcall(M._encode, { n = 3, "SET", "k" })
  check("a nil argument is an error", not ok and tostring(err):find("argument 3 of the command is nil", 1, true), err)
  local ok2, err2 = pcall(M._encode, {})
  check("no command is an error", not ok2 and tostring(err2):find("no command", 1, true), err2)
  local v = parse(M._encode({ "SET", "k", "v" }))
  check("a command parses back as the array it is", same(v, { "SET", "k", "v" }))
end

-- c:call's path for one to three words: the same bytes as the list's
for _, args in ipairs({ { "PING" }, { "GET", "k" }, { "SET", "a\r\nb", "" }, { "INCRBY", "k", -3 },
                        { "EXPIRE", "k", 10.0 }, { "INCRBYFLOAT", "k", 0.1 }, { "ECHO", true },
                        { "SET", "k", string.rep("v", 2000) } }) do
  local ok, got = pcall(M._encode_few, table.unpack(args))
  check("few words as a list: " .. args[1] .. " of " .. #args, ok and got == M._encode(args),
        string.format("got %q", tostring(got)))
end
do
  local ok, err = pcall(M._encode_few, "SET", "k", nil)
  check("few words: a nil argument is an error",
        not ok and tostring(err):find("argument 3 of the command is nil", 1, true), err)
end

-- Bulk lengths seen before are looked up: the same replies either way
for i = 1, 2 do
  check("a bulk string, time " .. i, parse("$3\r\nabc\r\n") == "abc")
  check("an empty one, time " .. i, parse("$0\r\n\r\n") == "")
  check("a null, time " .. i, parse("$-1\r\n") == nil)
  check("leading zeros, time " .. i, parse("$003\r\nabc\r\n") == "abc")
  local v, kind = parse("$3\r\nabcd\r\n")
  check("a length that does not match, time " .. i, v == nil and kind == "protocol", kind)
  check("an array of them, time " .. i, same(parse("*2\r\n$1\r\na\r\n$3\r\nabc\r\n"), { "a", "abc" }))
end

-- URLs -----------------------------------------------------------------------
local function url(name, s, want)
  local u, why = M._parse_url(s)
  local ok = u ~= nil
  if ok then
    for k, v in pairs(want) do if u[k] ~= v then ok = false end end
  end
  check(name, ok, u and show(u) or why)
end
url("plain", "redis://127.0.0.1", { host = "127.0.0.1", port = 6379, db = 0, tls = false })
url("port and db", "redis://h:6380/2", { host = "h", port = 6380, db = 2 })
url("password", "redis://:secret@h", { password = "secret", user = nil })
url("user and password", "redis://alice:secret@h:1/0", { user = "alice", password = "secret", port = 1 })
url("percent-decoded password", "redis://:p%40ss%3Aw%25rd@h", { password = "p@ss:w%rd", host = "h" })
url("unescaped @ in the password", "redis://u:a@b@h", { user = "u", password = "a@b", host = "h" })
url("no colon: a password", "redis://secret@h", { password = "secret" })
url("rediss is TLS", "rediss://h", { tls = true })
url("IPv6", "redis://[::1]:7000", { host = "::1", port = 7000 })
url("trailing slash", "redis://h/", { db = 0 })
for _, bad in ipairs({ "http://h", "redis://", "redis://h:0", "redis://h:99999", "redis://h:x",
                       "redis://h/x", "redis://h/-1", "redis://h/1?x=2", "redis:h", 42 }) do
  check("bad URL " .. tostring(bad), M._parse_url(bad) == nil)
end

if failed > 0 then
  print(failed .. " of " .. n .. " failed")
  os.exit(1)
end
print("all " .. n .. " passed")

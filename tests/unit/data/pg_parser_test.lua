-- The messages and the SCRAM of quern.pg (worker/lua/mods/pg.lua), in
-- plain Lua over a fake socket and a fake step:
--   lua5.4 tests/unit/data/pg_parser_test.lua worker/lua/mods/pg.lua
-- Plain Lua has no quern.crypto: the module's M._lib is given SHA-256,
-- HMAC, PBKDF2 and base64 written here (checked against FIPS 180-2's and
-- RFC 4231's vectors first), so that RFC 7677's SCRAM-SHA-256 exchange is
-- computed whole; random bytes, last, must never make a reader raise.
-- Prints "ok N - what" per check, "not ok N - what" on a
-- failure, and exits 1 if any failed.
local path = assert(arg[1], "usage: pg_parser_test.lua path/to/pg.lua")
local M = assert(loadfile(path))()

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
local function eq(name, got, want)
  check(name, got == want,
    "got " .. string.format("%q", tostring(got)) .. ", want " .. string.format("%q", tostring(want)))
end

---------------------------------------------------------------------------
-- SHA-256 (FIPS 180-4), HMAC (RFC 2104), PBKDF2 (RFC 8018), base64.

local K, H0 = {}, {}
do
  -- the fractional parts of the cube (and square) roots of the first primes
  local primes, p = {}, 2
  while #primes < 64 do
    local prime = true
    for _, q in ipairs(primes) do if p % q == 0 then prime = false break end end
    if prime then primes[#primes + 1] = p end
    p = p + 1
  end
  local function frac32(x) return math.floor((x - math.floor(x)) * 2 ^ 32) end
  for i = 1, 64 do K[i] = frac32(primes[i] ^ (1 / 3)) end
  for i = 1, 8 do H0[i] = frac32(math.sqrt(primes[i])) end
end

local M32 = 0xffffffff
local function rotr(x, k) return ((x >> k) | (x << (32 - k))) & M32 end

local function sha256(msg)
  local h = { table.unpack(H0) }
  local len = #msg
  msg = msg .. "\x80" .. string.rep("\0", (55 - len) % 64) .. string.pack(">I8", len * 8)
  local w = {}
  for chunk = 1, #msg, 64 do
    for i = 1, 16 do w[i] = string.unpack(">I4", msg, chunk + (i - 1) * 4) end
    for i = 17, 64 do
      local a, b = w[i - 15], w[i - 2]
      local s0 = rotr(a, 7) ~ rotr(a, 18) ~ (a >> 3)
      local s1 = rotr(b, 17) ~ rotr(b, 19) ~ (b >> 10)
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) & M32
    end
    local a, b, c, d, e, f, g, hh = table.unpack(h)
    for i = 1, 64 do
      local S1 = rotr(e, 6) ~ rotr(e, 11) ~ rotr(e, 25)
      local ch = (e & f) ~ (~e & g)
      local t1 = (hh + S1 + ch + K[i] + w[i]) & M32
      local S0 = rotr(a, 2) ~ rotr(a, 13) ~ rotr(a, 22)
      local maj = (a & b) ~ (a & c) ~ (b & c)
      local t2 = (S0 + maj) & M32
      hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & M32, c, b, a, (t1 + t2) & M32
    end
    local v = { a, b, c, d, e, f, g, hh }
    for i = 1, 8 do h[i] = (h[i] + v[i]) & M32 end
  end
  return string.pack(">I4I4I4I4I4I4I4I4", table.unpack(h))
end

local function hmac(key, msg)
  if #key > 64 then key = sha256(key) end
  key = key .. string.rep("\0", 64 - #key)
  local ipad = key:gsub(".", function(ch) return string.char(ch:byte() ~ 0x36) end)
  local opad = key:gsub(".", function(ch) return string.char(ch:byte() ~ 0x5c) end)
  return sha256(opad .. sha256(ipad .. msg))
end

local function xor(a, b)
  local out = {}
  for i = 1, #a do out[i] = string.char(a:byte(i) ~ b:byte(i)) end
  return table.concat(out)
end

-- one block of 32 bytes: all SCRAM-SHA-256 asks for
local function pbkdf2(password, salt, rounds)
  local u = hmac(password, salt .. "\0\0\0\1")
  local t = u
  for _ = 2, rounds do
    u = hmac(password, u)
    t = xor(t, u)
  end
  return t
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(s)
  return (s:gsub("..?.?", function(g)
    local a, b, c = g:byte(1, 3)
    local v = (a << 16) | ((b or 0) << 8) | (c or 0)
    local out = {}
    for i = 1, 4 do
      local k = (v >> (6 * (4 - i))) & 63
      out[i] = B64:sub(k + 1, k + 1)
    end
    if not b then out[3] = "=" end
    if not c then out[4] = "=" end
    return table.concat(out)
  end))
end
local function unb64(s)
  if #s % 4 ~= 0 or s:find("[^%w%+/=]") then return nil end
  local out = {}
  for g in s:gmatch("....") do
    local v, pad = 0, 0
    for i = 1, 4 do
      local ch = g:sub(i, i)
      local k = ch == "=" and 0 or (B64:find(ch, 1, true) - 1)
      if ch == "=" then pad = pad + 1 end
      v = (v << 6) | k
    end
    out[#out + 1] = string.pack(">I3", v):sub(1, 3 - pad)
  end
  return table.concat(out)
end

local function hex(s) return (s:gsub(".", function(ch) return string.format("%02x", ch:byte()) end)) end

eq("sha256 of abc (FIPS 180-2)", hex(sha256("abc")),
  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
eq("sha256 of two blocks", hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
eq("hmac-sha256 (RFC 4231 case 2)", hex(hmac("Jefe", "what do ya want for nothing?")),
  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
eq("pbkdf2-hmac-sha256, 2 rounds", hex(pbkdf2("password", "salt", 2)),
  "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43")
eq("base64 both ways", unb64(b64("any\0bytes")) .. b64("ab") .. b64("abc"), "any\0bytesYWI=YWJj")

local md5_inputs = {}
local nonce = "rOprNGfwEbeRWgbNEkqO"  -- RFC 7677's client nonce
M._lib = {
  -- md5: a stand-in that shows what it was given
  md5hex = function(s) md5_inputs[#md5_inputs + 1] = s; return "<" .. s .. ">" end,
  sha256 = sha256, hmac = hmac, pbkdf2 = pbkdf2, b64 = b64, unb64 = unb64,
  nonce = function() return nonce end,
}

---------------------------------------------------------------------------
-- SCRAM-SHA-256: RFC 7677's section 3, user "user", password "pencil".

local first, bare = M._scram_first("user", nonce)
eq("scram: client-first", first, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
eq("scram: its bare part", bare, "n=user,r=rOprNGfwEbeRWgbNEkqO")
local server_first = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
local final, sig = M._scram_final("pencil", bare, nonce, server_first)
eq("scram: client-final with its proof (RFC 7677)", final,
  "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
eq("scram: the server signature expected", sig, "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
check("scram: the server-final verified", M._scram_verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", sig))
do
  local t0 = os.clock()
  local again = M._scram_final("pencil", bare, nonce, server_first)
  eq("scram: the keys kept, the same proof", again, final)
  check("scram: no PBKDF2 the second time", os.clock() - t0 < 0.05, tostring(os.clock() - t0))
  local other = M._scram_final("pencil2", bare, nonce, server_first)
  check("scram: another password, another proof", other ~= final)
end
do
  local ok, why = M._scram_verify("v=AAAA", sig)
  check("scram: a wrong server signature refused", not ok and why:find("does not match"), why)
  ok, why = M._scram_verify("e=invalid-proof", sig)
  check("scram: the server's e= told", not ok and why:find("invalid%-proof"), why)
end
local function scram_bad(name, sf, part)
  local f, why = M._scram_final("pencil", bare, nonce, sf)
  check("scram: " .. name, f == nil and why:find(part, 1, true), tostring(why))
end
scram_bad("a nonce that does not extend ours", "r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "nonce")
scram_bad("the nonce alone, not extended", "r=" .. nonce .. ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "nonce")
scram_bad("no salt", "r=" .. nonce .. "x,i=4096", "without")
scram_bad("a salt not base64", "r=" .. nonce .. "x,s=%%%,i=4096", "base64")
scram_bad("0 rounds", "r=" .. nonce .. "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0", "iteration count")
scram_bad("rounds past the bound", "r=" .. nonce .. "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1000001", "iteration count")
scram_bad("a mandatory extension", "m=ext,r=" .. nonce .. "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1", "extension")
eq("scram: a user name's , and = escaped", select(2, M._scram_first("a,b=c", "N")), "n=a=2Cb=3Dc,r=N")

-- md5: "md5" .. md5hex(md5hex(password .. user) .. salt)
eq("md5 password", M._md5_password("alice", "pw", "SALT"), "md5<<pwalice>SALT>")
eq("md5: password then user, then salt", table.concat(md5_inputs, "|"), "pwalice|<pwalice>SALT")

---------------------------------------------------------------------------
-- Frontend messages.

local function be32(x) return string.pack(">i4", x) end
local function be16(x) return string.pack(">i2", x) end

eq("startup: protocol 3.0, pairs, a NUL at the end",
  M._startup({ { "user", "u" }, { "database", "d" } }),
  be32(4 + 4 + 7 + 11 + 1) .. be32(196608) .. "user\0u\0database\0d\0\0")
eq("parse: name, SQL, no types", M._parse_msg("quern_1", "SELECT $1"),
  "P" .. be32(4 + 8 + 10 + 2) .. "quern_1\0SELECT $1\0" .. be16(0))
eq("bind: texts, NULL as -1, integers, floats, booleans",
  M._bind("s", { 7, nil, 2.5, true, "x", M.null, 1e300, 0.1, 3.0 }, 0),
  "B" .. be32(4 + 1 + 2 + 2 + 2 + (4 + 1) + 4 + (4 + 3) + (4 + 4) + (4 + 1) + 4 + (4 + 6) + (4 + 3) + (4 + 1) + 2)
  .. "\0s\0" .. be16(0) .. be16(9)
  .. be32(1) .. "7" .. be32(-1) .. be32(3) .. "2.5" .. be32(4) .. "true" .. be32(1) .. "x" .. be32(-1)
  .. be32(6) .. "1e+300" .. be32(3) .. "0.1" .. be32(1) .. "3" .. be16(0))
eq("bind: a trailing nil counted from the statement's $N", #M._bind("", { 1 }, 3), 1 + 4 + 1 + 1 + 2 + 2 + 5 + 8 + 2)
eq("bind: n counts trailing nils", #M._bind("", { 1, n = 2 }, 0), 1 + 4 + 1 + 1 + 2 + 2 + 5 + 4 + 2)
do
  local ok, e = pcall(M._bind, "", { {} }, 0)
  check("bind: a table parameter is an error", not ok and tostring(e):find("parameter 1 is a table"), tostring(e))
end

-- the $N a statement asks for: quotes and comments skipped
for _, c in ipairs({
  { "SELECT 1", 0 }, { "SELECT $1, $2", 2 }, { "SELECT $10", 10 }, { "SELECT '$5', $1", 1 },
  { "SELECT 'it''s $4', $2", 2 }, { "SELECT E'\\' $7', $1", 1 }, { 'SELECT "$9", $1', 1 },
  { "SELECT 1 -- $5\n, $2", 2 }, { "SELECT /* $3 /* $4 */ $5 */ $1", 1 }, { "SELECT $$ $8 $$, $2", 2 },
  { "SELECT $x$ $8 $x$, $1", 1 }, { "SELECT a$1, $2", 2 }, { "SELECT '", 0 }, { "SELECT /*", 0 },
}) do
  eq("placeholders of " .. c[1]:gsub("\n", " "), M._placeholders(c[1]), c[2])
end

---------------------------------------------------------------------------
-- Backend messages over a fake socket, answering as step:tcp's receive.

local function reader(s, timeout)
  local r = { pos = 1 }
  local gone = timeout and "timeout" or "closed"
  function r.receive(self, what)
    assert(math.type(what) == "integer" and what > 0 and what <= 1 << 20, "receive: bad count " .. tostring(what))
    if self.pos + what - 1 > #s then return nil, gone end
    local piece = s:sub(self.pos, self.pos + what - 1)
    self.pos = self.pos + what
    return piece
  end
  return r
end

local function msg(t, body) return t .. be32(#body + 4) .. body end

do
  local r = reader(msg("Z", "I") .. msg("1", ""))
  local t, body = M._read_message(r)
  eq("message: ReadyForQuery", t .. body, "ZI")
  t, body = M._read_message(r)
  eq("message: an empty body (ParseComplete)", t .. "[" .. body .. "]", "1[]")
  local t3, kind = M._read_message(r)
  check("message: then closed", t3 == nil and kind == "closed")
  local big = string.rep("x", 3 << 20)
  t, body = M._read_message(reader(msg("D", big)))
  check("message: a body past the socket's 1 MiB, read in chunks", t == "D" and body == big)
  local _, k2, m2 = M._read_message(reader("\1" .. be32(4)))
  check("message: a bad type byte", k2 == "protocol" and m2:find("type byte 0x01"), m2)
  _, k2, m2 = M._read_message(reader("D" .. be32(3)))
  check("message: a length below 4", k2 == "protocol" and m2:find("bad length 3"), m2)
  _, k2, m2 = M._read_message(reader("D" .. be32(0x7fffffff)))
  check("message: a length past the bound, told before reading", k2 == "protocol", m2)
  _, k2 = M._read_message(reader("D" .. be32(10) .. "abc"))
  check("message: cut short", k2 == "closed")
  _, k2 = M._read_message(reader("D" .. be32(10) .. "abc", true))
  check("message: no more in time", k2 == "timeout")
end

do
  local e = M._parse_error("SERROR\0VERROR\0C42P01\0Mrelation \"x\" does not exist\0P15\0Fparse_relation.c\0\0")
  check("error: fields by name", e.severity == "ERROR" and e.code == "42P01" and e.position == "15"
    and e.file == "parse_relation.c")
  eq("error: its text", M._error_text(e), "42P01: relation \"x\" does not exist")
  local _, kind = M._parse_error("SERROR\0C42P01")
  check("error: fields not ended", kind == "protocol")
  e = M._parse_error("SFATAL\0\0")
  check("error: no code, no message", e.code == "XX000" and e.message == "" and e.severity == "FATAL")
end

-- a row description: name, table oid, column, type oid, size, modifier, format
local function col(name, oid, fmt)
  return name .. "\0" .. be32(0) .. be16(0) .. be32(oid) .. be16(-1) .. be32(-1) .. be16(fmt or 0)
end
local function cell(v) if v == nil then return be32(-1) end return be32(#v) .. v end

do
  local oids = { 16, 20, 21, 23, 26, 700, 701, 1700, 25, 1043, 16, 701, 701, 23 }
  local names = { "b", "i8", "i2", "i4", "o", "f4", "f8", "num", "txt", "vc", "bf", "nan", "inf", "nul" }
  local body = be16(#oids)
  for i, o in ipairs(oids) do body = body .. col(names[i], o) end
  local cols = M._parse_row_description(body)
  check("row description", cols and #cols == 14 and cols[2].name == "i8" and cols[2].type == 20)
  local vals = { "t", "-9223372036854775808", "7", "70000", "26", "1.5", "0.1", "12.50", "héllo", "", "f",
                 "NaN", "-Infinity" }
  local row_body = be16(14)
  for i = 1, 13 do row_body = row_body .. cell(vals[i]) end
  row_body = row_body .. cell(nil)
  local row, kind, m = M._parse_data_row(row_body, cols)
  check("row: parsed", row ~= nil, tostring(kind) .. " " .. tostring(m))
  row = row or {}
  check("row: bool", row.b == true and row.bf == false)
  check("row: integers", math.type(row.i8) == "integer" and row.i8 == math.mininteger and row.i2 == 7
    and row.i4 == 70000 and row.o == 26)
  check("row: floats", math.type(row.f4) == "float" and row.f4 == 1.5 and row.f8 == 0.1
    and row.nan ~= row.nan and row.inf == -math.huge)
  check("row: numeric stays its text", row.num == "12.50")
  check("row: text, varchar (empty too)", row.txt == "héllo" and row.vc == "")
  check("row: NULL is pg.null", row.nul == M.null and tostring(M.null) == "pg.null")
  local _, k2 = M._parse_data_row(be16(1) .. cell("x"), cols)
  check("row: a column count other than described", k2 == "protocol")
  local one = { { name = "i", type = 23 } }
  _, k2, m = M._parse_data_row(be16(1) .. cell("1.5"), one)
  check("row: an int4 that is not an integer", k2 == "protocol" and m:find("bad value"), m)
  _, k2 = M._parse_data_row(be16(1) .. be32(5) .. "ab", one)
  check("row: a value cut short", k2 == "protocol")
  _, k2 = M._parse_data_row(be16(1) .. cell("1") .. "x", one)
  check("row: bytes after it", k2 == "protocol")
  _, k2 = M._parse_row_description(be16(1) .. col("x", 23, 1))
  check("row description: a binary column refused", k2 == "protocol")
  _, k2 = M._parse_row_description(be16(2) .. col("x", 23))
  check("row description: cut short", k2 == "protocol")
  check("pg.null is read-only", not pcall(function() M.null.x = 1 end))
end

for _, c in ipairs({ { "INSERT 0 1", "INSERT", 1 }, { "UPDATE 12", "UPDATE", 12 }, { "SELECT 0", "SELECT", 0 },
                     { "DELETE 3", "DELETE", 3 }, { "CREATE TABLE", "CREATE TABLE", nil }, { "BEGIN", "BEGIN", nil },
                     { "COPY 5", "COPY", 5 }, { "MERGE 2", "MERGE", 2 } }) do
  local cmd, cnt = M._parse_tag(c[1])
  check("tag " .. c[1], cmd == c[2] and cnt == c[3], tostring(cmd) .. " " .. tostring(cnt))
end

---------------------------------------------------------------------------
-- A session over a fake step and socket: a server that answers from a
-- script of messages, and records what the client sent.

local function fake_server(replies)
  local s = reader(table.concat(replies))
  s.sent, s.closed = {}, false
  function s.send(self, data) self.sent[#self.sent + 1] = data end
  function s.close(self) self.closed = true end
  function s.fail(_, m) error({ technical = m }, 0) end
  return s
end
local function fake_step(sock)
  local st = { samples = 0 }
  function st.time(self, fn) self.samples = self.samples + 1; return fn() end
  function st.tcp(_, host, port) st.host, st.port = host, port; return sock end
  return st
end
local READY = msg("Z", "I")
local function auth(code, rest) return msg("R", be32(code) .. (rest or "")) end
local function complete(tag) return msg("C", tag .. "\0") end
local function row1(name, oid, v) return msg("T", be16(1) .. col(name, oid)), msg("D", be16(1) .. cell(v)) end

do
  local T, D = row1("n", 23, "5")
  local sock = fake_server({
    auth(5, "SALT"), auth(0), msg("S", "server_version\0" .. "15.0\0"), msg("K", be32(42) .. be32(7)), READY,
    T, D, complete("SELECT 1"), READY,                                  -- a simple query
    msg("1", ""), msg("2", ""), T, D, complete("SELECT 1"), READY,     -- first extended
    msg("2", ""), T, D, complete("SELECT 1"), READY,                   -- second: no Parse
    msg("E", "SERROR\0C42P01\0Mrelation \"x\" does not exist\0\0"), READY,
    msg("N", "SNOTICE\0C00000\0Mhello\0\0"), msg("I", ""), READY,       -- empty query
    msg("E", "SERROR\0C26000\0Mprepared statement \"quern_1\" does not exist\0\0"), READY,
    msg("1", ""), msg("2", ""), T, D, complete("SELECT 1"), READY,     -- parsed again
  })
  local step = fake_step(sock)
  local c = M.connect(step, "postgres://alice:pw@db.test:6543/shop?application_name=q%20t")
  check("session: connected", c.pid == 42 and c.secret == 7 and c.params.server_version == "15.0"
    and c.status == "I" and step.host == "db.test" and step.port == 6543)
  eq("session: the startup's parameters", sock.sent[1]:sub(9),
    "user\0alice\0database\0shop\0application_name\0q t\0\0")
  eq("session: the md5 answer", sock.sent[2], "p" .. be32(4 + 19) .. "md5<<pwalice>SALT>\0")
  local r = c:query("SELECT 5 AS n")
  check("session: a simple query", r.rows[1].n == 5 and r.count == 1 and r.command == "SELECT"
    and #r.results == 1 and r.fields[1] == "n")
  eq("session: sent as Query", sock.sent[3], "Q" .. be32(4 + 14) .. "SELECT 5 AS n\0")
  r = c:query("SELECT $1::int AS n", { 5 })
  check("session: extended", r.rows[1].n == 5)
  check("session: Parse, Bind, Describe, Execute, Sync", sock.sent[4]:sub(1, 1) == "P"
    and sock.sent[4]:find("quern_1\0SELECT $1::int AS n\0", 1, true) and sock.sent[4]:sub(-5) == "S" .. be32(4))
  r = c:query("SELECT $1::int AS n", { 6 })
  check("session: the statement prepared once", sock.sent[5]:sub(1, 1) == "B"
    and sock.sent[5]:find("\0quern_1\0", 1, true) and c.nstatements == 1 and r.rows[1].n == 5)
  local ok, e = pcall(c.query, c, "SELECT * FROM x")
  eq("session: an ErrorResponse raised", ok and "no error" or e, 'PostgreSQL: 42P01: relation "x" does not exist')
  check("session: kept, the connection in step", c.error.code == "42P01" and not sock.closed)
  r = c:query("")
  check("session: an empty query, a notice kept", r.command == "" and #r.rows == 0 and c.notices[1].message == "hello")
  ok, e = pcall(c.query, c, "SELECT $1::int AS n", { 7 })
  check("session: a statement gone (DEALLOCATE)", not ok and e:find("26000", 1, true), tostring(e))
  r = c:query("SELECT $1::int AS n", { 7 })
  check("session: parsed again, under a new name", sock.sent[#sock.sent]:sub(1, 1) == "P"
    and sock.sent[#sock.sent]:find("quern_2\0SELECT $1::int AS n\0", 1, true) and r.rows[1].n == 5)
  eq("session: a sample each connect and query", step.samples, 8)
  c:close()
  check("session: Terminate, closed", sock.sent[#sock.sent] == "X" .. be32(4) and sock.closed)
end

do
  local sock = fake_server({ msg("E", "SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \"u\"\0\0") })
  local ok, e = pcall(M.connect, fake_step(sock), "postgres://u:bad@h/d")
  eq("login refused: the server's message", ok and "no error" or e,
    'PostgreSQL: 28P01: password authentication failed for user "u"')
  check("login refused: closed", sock.closed)
end

do
  local sock = fake_server({ auth(10, "SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0"),
    auth(11, "r=" .. nonce .. "srv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"), auth(12, "v=AAAA"), auth(0), READY })
  local ok, e = pcall(M.connect, fake_step(sock), "postgres://u:pencil@h/d")
  check("scram session: SCRAM-SHA-256 chosen", sock.sent[2]:find("SCRAM-SHA-256\0", 6, true) == 6
    and sock.sent[2]:find("n,,n=,r=" .. nonce, 1, true))
  check("scram session: the proof sent", sock.sent[3]:find("^p....c=biws,r=" .. nonce .. "srv,p="))
  check("scram session: a wrong server signature, a technical error", not ok and type(e) == "table"
    and e.technical:find("signature does not match"), type(e) == "table" and e.technical or tostring(e))
end

do
  local T, D = row1("x", 23, "1")
  local sock = fake_server({ auth(0), READY, D })
  local c = M.connect(fake_step(sock), "postgres://u@h/d")
  local ok, e = pcall(c.query, c, "SELECT 1")
  check("a DataRow without a RowDescription: a protocol error, closed", not ok and type(e) == "table"
    and e.technical:find("protocol error") and sock.closed, type(e) == "table" and e.technical or tostring(e))
  sock = fake_server({ auth(0), READY, T })
  c = M.connect(fake_step(sock), "postgres://u@h/d")
  ok, e = pcall(c.query, c, "SELECT 1")
  check("a reply cut short: connection closed", not ok and e.technical == "PostgreSQL: connection closed")
  sock = fake_server({ auth(5, "SALT") })
  ok, e = pcall(M.connect, fake_step(sock), "postgres://u@h/d")
  check("a password asked, none given", not ok and e.technical:find("has none"), tostring(e.technical))
  sock = fake_server({ auth(7) })
  ok, e = pcall(M.connect, fake_step(sock), "postgres://u:p@h/d")
  check("GSSAPI: not supported", not ok and e.technical:find("not supported"), tostring(e.technical))
end

---------------------------------------------------------------------------
-- URLs.

local function url(name, s, want)
  local u, why = M._parse_url(s)
  local ok = u ~= nil
  if ok then
    for k, v in pairs(want) do
      if type(v) == "table" then
        for k2, v2 in pairs(v) do if u[k][k2] ~= v2 then ok = false end end
      elseif u[k] ~= v then ok = false end
    end
  end
  check("url: " .. name, ok, why)
end
url("plain", "postgres://u@127.0.0.1", { host = "127.0.0.1", port = 5432, user = "u", database = nil })
url("postgresql://, port, database", "postgresql://u:p@h:6543/shop", { port = 6543, database = "shop", password = "p" })
url("percent-decoded", "postgres://al%40ce:p%40ss%3Aw%25rd@h/my%20db",
  { user = "al@ce", password = "p@ss:w%rd", database = "my db" })
url("an unescaped @ in the password", "postgres://u:a@b@h", { password = "a@b", host = "h" })
url("IPv6", "postgres://u@[::1]:7000/d", { host = "::1", port = 7000 })
url("query parameters", "postgres://u@h/d?application_name=x&sslmode=disable", { params = { application_name = "x" } })
for _, bad in ipairs({ "mysql://u@h", "postgres://", "postgres://u@h:0", "postgres://u@h:99999", "postgres://u@:5",
                       "postgres://u@h/d?sslmode=require", "postgres://u@h/d?foo=1", 42 }) do
  check("url: bad " .. tostring(bad), M._parse_url(bad) == nil)
end

---------------------------------------------------------------------------
-- Random bytes: the readers answer nil and why, and never raise.

do
  math.randomseed(7)
  local function junk(len)
    local t = {}
    for i = 1, len do t[i] = string.char(math.random(0, 255)) end
    return table.concat(t)
  end
  local cols = { { name = "i", type = 23 }, { name = "b", type = 16 }, { name = "f", type = 701 } }
  local raised
  for _ = 1, 3000 do
    local s = junk(math.random(0, 40))
    -- half of them framed as a message, so that the bodies are reached
    if math.random(2) == 1 then s = "D" .. be32(#s + 4) .. s end
    local ok, e = pcall(function()
      M._read_message(reader(s))
      M._parse_error(s)
      M._parse_row_description(s)
      M._parse_data_row(s, cols)
      M._parse_data_row(be16(3) .. s, cols)
      M._parse_tag(s)
      M._placeholders(s)
      M._parse_url("postgres://" .. s)
      M._scram_final("pw", "n=,r=" .. nonce, nonce, s)
      M._scram_verify(s, "sig")
    end)
    if not ok then raised = string.format("%q: %s", s, tostring(e)); break end
  end
  check("random bytes: nothing raises", raised == nil, raised)
end

if failed > 0 then
  print(failed .. " of " .. n .. " failed")
  os.exit(1)
end
print("all " .. n .. " passed")

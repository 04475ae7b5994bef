-- quern.pg: a PostgreSQL client over step:tcp (docs/scenarios.md,
-- "PostgreSQL: quern.pg"). Protocol 3.0: the startup and its logins
-- (SCRAM-SHA-256, md5, cleartext, trust), the simple query protocol, and
-- the extended one for queries with parameters. The connect and each query
-- are one sample. Compiled into quern as package.preload["quern.pg"].
--
-- It keeps no state of its own but a bounded cache of SCRAM keys: the step
-- it is given does the I/O, the client table holds the connection. Its
-- crypto is quern.crypto's, reached through M._lib, which a test replaces.

local M = {}

local MAX_MESSAGE = 256 << 20    -- bytes of one message (PostgreSQL's own field limit is 1 GiB)
local MAX_FIELDS = 1664          -- columns of a row: PostgreSQL's MaxTupleAttributeNumber
local MAX_PARAMS = 65535         -- parameters of a Bind: its count is an int16
local MAX_STATEMENTS = 256       -- named statements a connection prepares; then unnamed ones
local MAX_ROWS = 1 << 20         -- rows kept of one result; the rest read and counted
local MAX_KEPT = 100             -- notices and notifications kept on a connection
local MAX_ROUNDS = 1000000       -- SCRAM iterations accepted: quern.crypto.pbkdf2's bound
local MAX_KEYS = 64              -- SCRAM keys cached (by password, salt and rounds)
local CHUNK = 512 << 10          -- bytes asked of the socket at once (its bound is 1 MiB)

-- SQL NULL in a row (a Lua table cannot hold nil) and as a parameter.
M.null = setmetatable({}, {
  __name = "pg.null",
  __tostring = function() return "pg.null" end,
  __newindex = function() error("pg.null is read-only", 2) end,
})

---------------------------------------------------------------------------
-- The crypto: quern.crypto in quern, looked up the first time it is needed.

local function quern_lib()
  local quern = require "quern"
  local c = quern.crypto
  return {
    md5hex = function(s) return c.md5(s) end,
    sha256 = function(s) return c.sha256(s, "binary") end,
    hmac = function(k, s) return c.hmac("sha256", k, s, "binary") end,
    pbkdf2 = function(p, salt, n) return c.pbkdf2("sha256", p, salt, n, 32, "binary") end,
    b64 = quern.base64,
    unb64 = function(s)
      local ok, v = pcall(quern.base64_decode, s)
      if ok then return v end
      return nil
    end,
    nonce = function() return c.random_bytes(18, "base64") end,
  }
end

local function lib()
  if not M._lib then M._lib = quern_lib() end
  return M._lib
end

---------------------------------------------------------------------------
-- Encoding: frontend messages (PostgreSQL's "Frontend/Backend Protocol").

local function int32(n) return string.pack(">i4", n) end
local function int16(n) return string.pack(">i2", n) end
local function cstr(s) return s .. "\0" end

-- A message: its type byte, then its length (itself included) and body.
local function message(t, body)
  return t .. int32(#body + 4) .. body
end

local function has_nul(s) return s:find("\0", 1, true) ~= nil end

-- The startup message: protocol 3.0, then name/value pairs (user first).
local function startup(params)
  local parts = { int32(196608) }  -- 3 << 16
  for _, kv in ipairs(params) do
    parts[#parts + 1] = cstr(kv[1])
    parts[#parts + 1] = cstr(kv[2])
  end
  parts[#parts + 1] = "\0"
  local body = table.concat(parts)
  return int32(#body + 4) .. body
end
M._startup = startup

local function query_msg(sql) return message("Q", cstr(sql)) end
local function parse_msg(name, sql) return message("P", cstr(name) .. cstr(sql) .. int16(0)) end
local function describe_portal() return message("D", "P\0") end
local function execute_msg() return message("E", "\0" .. int32(0)) end
local SYNC = message("S", "")
local TERMINATE = message("X", "")

-- The shortest %g that reads back as the same double (as quern.redis).
local function float_text(x)
  if x ~= x then return "NaN" end
  if x == math.huge then return "Infinity" end
  if x == -math.huge then return "-Infinity" end
  for digits = 15, 17 do
    local s = string.format("%." .. digits .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

-- A parameter as text, or nil for NULL. Errors at level 5: the script's
-- line (param_text, bind_msg, prepare, c:query, the script).
local function param_text(v, i)
  local t = type(v)
  if v == nil or v == M.null then return nil end
  if t == "string" then
    if has_nul(v) then error(string.format("pg: parameter %d holds a NUL byte", i), 5) end
    return v
  end
  if t == "number" then
    local n = math.tointeger(v)  -- 2.0 is "2": an integer column refuses "2.0"
    if n then return string.format("%d", n) end
    return float_text(v)
  end
  if t == "boolean" then return v and "true" or "false" end
  error(string.format("pg: parameter %d is a %s (a string, number, boolean, nil or pg.null)", i, t), 5)
end

-- The highest $N of sql outside its quotes and comments: what the
-- statement asks for ({ x, nil } loses its trailing nil). 0 when there is
-- none; a statement parsed wrongly here is told by the server's error.
local function placeholders(sql)
  local n, i, len = 0, 1, #sql
  while i <= len do
    local ch = sql:sub(i, i)
    local two = sql:sub(i, i + 1)
    if ch == "'" or ch == '"' then
      -- a quoted string or name; its quote doubled inside; E'' strings have \-escapes
      local esc = ch == "'" and i > 1 and sql:sub(i - 1, i - 1):lower() == "e"
      local j = i + 1
      while j <= len do
        local cj = sql:sub(j, j)
        if esc and cj == "\\" then
          j = j + 1
        elseif cj == ch then
          if sql:sub(j + 1, j + 1) ~= ch then break end
          j = j + 1
        end
        j = j + 1
      end
      i = j + 1
    elseif two == "--" then
      i = (sql:find("\n", i, true) or len) + 1
    elseif two == "/*" then
      local depth, j = 1, i + 2
      while j <= len and depth > 0 do
        local t2 = sql:sub(j, j + 1)
        if t2 == "/*" then depth, j = depth + 1, j + 2
        elseif t2 == "*/" then depth, j = depth - 1, j + 2
        else j = j + 1 end
      end
      i = j
    elseif ch == "$" then
      local digits = sql:match("^%d+", i + 1)
      local tag = not digits and sql:match("^%$[%a_][%w_]*%$", i) or sql:match("^%$%$", i)
      local prev = i > 1 and sql:sub(i - 1, i - 1) or " "
      if digits and not prev:find("[%w_]") then
        n = math.max(n, math.tointeger(tonumber(digits)) or 0)
        i = i + 1 + #digits
      elseif tag and not prev:find("[%w_]") then
        -- a dollar-quoted string: up to the same tag
        local e = sql:find(tag, i + #tag, true)
        i = e and e + #tag or len + 1
      else
        i = i + 1
      end
    else
      i = i + 1
    end
  end
  return n
end
M._placeholders = placeholders

-- The count of params: the statement's $N (held), its n, or its highest
-- index, the largest (a nil may be a hole).
local function param_count(params, held)
  local n = math.max(params.n or 0, held)
  for k in pairs(params) do
    if math.type(k) == "integer" and k > n then n = k end
  end
  return n
end

-- Bind the unnamed portal to statement name, every parameter as text and
-- every result column as text (format code 0 for all).
local function bind_msg(name, params, held)
  local n = param_count(params, held)
  if n > MAX_PARAMS then error(string.format("pg: %d parameters (%d at most)", n, MAX_PARAMS), 4) end
  local parts = { "\0", cstr(name), int16(0), int16(n) }
  for i = 1, n do
    local s = param_text(params[i], i)
    if s == nil then
      parts[#parts + 1] = int32(-1)
    else
      parts[#parts + 1] = int32(#s)
      parts[#parts + 1] = s
    end
  end
  parts[#parts + 1] = int16(0)
  return message("B", table.concat(parts))
end
M._bind = bind_msg
M._parse_msg = parse_msg

---------------------------------------------------------------------------
-- Decoding: backend messages. Readers return a value, or nil, kind and
-- message (kind "closed", "timeout" or "protocol"); nothing here raises.

local function lost(why)
  if why == "timeout" then return nil, "timeout", "no reply in time" end
  return nil, "closed", "connection closed"
end

local function protocol(fmt, ...)
  return nil, "protocol", string.format(fmt, ...)
end

-- n bytes, in chunks: the socket holds at most 1 MiB for one piece.
local function read_bytes(reader, n)
  if n == 0 then return "" end
  local parts, left = {}, n
  while left > 0 do
    local k = math.min(left, CHUNK)
    local s, why = reader:receive(k)
    if not s then return lost(why) end
    parts[#parts + 1] = s
    left = left - k
  end
  return table.concat(parts)
end

-- One message: its type byte and its body.
local function read_message(reader)
  local head, why = reader:receive(5)
  if not head then return lost(why) end
  local t, len = head:sub(1, 1), string.unpack(">i4", head, 2)
  if not t:find("^%w$") then return protocol("unknown message type byte 0x%02x", t:byte()) end
  if len < 4 or len - 4 > MAX_MESSAGE then return protocol("bad length %d of a %q message", len, t) end
  local body, kind, msg = read_bytes(reader, len - 4)
  if not body then return nil, kind, msg end
  return t, body
end
M._read_message = read_message

-- A cursor over a body: each get returns nil once the body is short.
local function cursor(body)
  local pos = 1
  local c = {}
  function c.int(fmt, size)
    if pos + size - 1 > #body then return nil end
    local v = string.unpack(fmt, body, pos)
    pos = pos + size
    return v
  end
  function c.i32() return c.int(">i4", 4) end
  function c.i16() return c.int(">i2", 2) end
  function c.str()
    local e = body:find("\0", pos, true)
    if not e then return nil end
    local s = body:sub(pos, e - 1)
    pos = e + 1
    return s
  end
  function c.bytes(n)
    if n < 0 or pos + n - 1 > #body then return nil end
    local s = body:sub(pos, pos + n - 1)
    pos = pos + n
    return s
  end
  function c.rest() return body:sub(pos) end
  function c.done() return pos == #body + 1 end
  return c
end

-- ErrorResponse and NoticeResponse: fields by their code letter, under
-- names (severity, code, message, detail, hint, position, ...).
local field_names = {
  S = "severity", V = "severity_nonlocalized", C = "code", M = "message", D = "detail",
  H = "hint", P = "position", p = "internal_position", q = "internal_query", W = "where",
  s = "schema", t = "table", c = "column", d = "data_type", n = "constraint", F = "file",
  L = "line", R = "routine",
}

local function parse_error(body)
  local c, e = cursor(body), {}
  while true do
    local code = c.bytes(1)
    if code == nil then return protocol("error fields not ended") end
    if code == "\0" then break end
    local v = c.str()
    if v == nil then return protocol("error field %q not ended", code) end
    e[field_names[code] or code] = v
  end
  e.severity = e.severity_nonlocalized or e.severity or "ERROR"
  e.code = e.code or "XX000"
  e.message = e.message or ""
  return e
end
M._parse_error = parse_error

-- "42P01: relation "x" does not exist": what a raised error says.
local function error_text(e)
  return e.code .. ": " .. e.message
end
M._error_text = error_text

-- RowDescription: the columns, each { name, type (its OID) }.
local function parse_row_description(body)
  local c = cursor(body)
  local n = c.i16()
  if not n or n < 0 or n > MAX_FIELDS then return protocol("bad column count in a row description") end
  local cols = {}
  for i = 1, n do
    local name = c.str()
    -- table oid, column number, type oid, type size, type modifier, format:
    -- read one by one, as Lua does not fix the order of a list's calls
    c.i32()
    c.i16()
    local oid = c.i32()
    c.i16()
    c.i32()
    local fmt = c.i16()
    if not name or not fmt then return protocol("row description cut short") end
    if fmt ~= 0 then return protocol("column %q not in text format", name) end
    cols[i] = { name = name, type = oid }
  end
  if not c.done() then return protocol("bytes after a row description") end
  return cols
end
M._parse_row_description = parse_row_description

-- Values by type OID (pg_type.h); any other type stays its text.
local function int_value(s)
  if not s:find("^%-?%d+$") then return nil end
  return math.tointeger(tonumber(s))
end
local function float_value(s)
  if s == "NaN" then return 0 / 0 end
  if s == "Infinity" then return math.huge end
  if s == "-Infinity" then return -math.huge end
  local x = s:find("^[%d%.eE%+%-]+$") and tonumber(s)
  return x and x + 0.0
end
local function bool_value(s)
  if s == "t" then return true end
  if s == "f" then return false end
  return nil
end
local decoders = {
  [16] = bool_value,             -- bool
  [20] = int_value,              -- int8
  [21] = int_value,              -- int2
  [23] = int_value,              -- int4
  [26] = int_value,              -- oid
  [700] = float_value,           -- float4
  [701] = float_value,           -- float8
}

-- DataRow: a table keyed by column name, NULL as pg.null.
local function parse_data_row(body, cols)
  local c = cursor(body)
  local n = c.i16()
  if n ~= #cols then return protocol("a row of %s columns, %d described", tostring(n), #cols) end
  local row = {}
  for i = 1, n do
    local len = c.i32()
    if not len then return protocol("row cut short") end
    local v
    if len == -1 then
      v = M.null
    else
      v = c.bytes(len)
      if not v then return protocol("row cut short") end
      local dec = decoders[cols[i].type]
      if dec then
        local x = dec(v)
        if x == nil then return protocol("bad value %q of column %q", v:sub(1, 40), cols[i].name) end
        v = x
      end
    end
    row[cols[i].name] = v
  end
  if not c.done() then return protocol("bytes after a row") end
  return row
end
M._parse_data_row = parse_data_row

-- CommandComplete's tag: the command and its count, if the tag has one
-- ("INSERT 0 1" -> "INSERT", 1; "CREATE TABLE" -> "CREATE TABLE", nil).
local function parse_tag(tag)
  local cmd, n = tag:match("^(%u+) [%d ]-(%d+)$")
  if cmd then return cmd, math.tointeger(tonumber(n)) end
  return tag, nil
end
M._parse_tag = parse_tag

---------------------------------------------------------------------------
-- SCRAM-SHA-256 (RFC 5802, RFC 7677), as PostgreSQL asks for it: no
-- channel binding ("n,,"), the user name left empty (the server takes the
-- startup's). The password is used as it is (ASCII passwords are their
-- own SASLprep).

local function xor(a, b)
  local out = {}
  for i = 1, #a do out[i] = string.char(a:byte(i) ~ b:byte(i)) end
  return table.concat(out)
end

-- The SASL name of RFC 5802: "," and "=" escaped.
local function sasl_name(s)
  return (s:gsub("=", "=3D"):gsub(",", "=2C"))
end

-- The client-first message and its bare part.
local function scram_first(user, nonce)
  local bare = "n=" .. sasl_name(user) .. ",r=" .. nonce
  return "n,," .. bare, bare
end
M._scram_first = scram_first

-- attribute=value pairs, by their letter
local function scram_attrs(s)
  local a = {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^(%a)=(.*)$")
    if k then a[k] = a[k] or v end
  end
  return a
end

-- ClientKey and ServerKey of a password, salt and rounds: the same every
-- login of a role, so kept (a connect then costs no PBKDF2 but the first).
local keys, nkeys = {}, 0
local function scram_keys(L, password, salt, rounds)
  local id = L.sha256(password) .. salt .. string.pack(">i4", rounds)
  local k = keys[id]
  if k then return k[1], k[2] end
  local salted = L.pbkdf2(password, salt, rounds)
  local ck, sk = L.hmac(salted, "Client Key"), L.hmac(salted, "Server Key")
  if nkeys >= MAX_KEYS then keys, nkeys = {}, 0 end
  keys[id], nkeys = { ck, sk }, nkeys + 1
  return ck, sk
end

-- From the server-first message: the client-final message and the server
-- signature the server-final must carry; or nil, why.
local function scram_final(password, first_bare, nonce, server_first)
  local L = lib()
  local a = scram_attrs(server_first)
  if a.m then return nil, "the server asks for an extension (m=)" end
  local r, salt, rounds = a.r, a.s and L.unb64(a.s), int_value(a.i or "")
  if not r or not a.s or not a.i then return nil, "server-first message without r, s or i" end
  if r:sub(1, #nonce) ~= nonce or #r <= #nonce then return nil, "the server's nonce does not extend ours" end
  if not salt then return nil, "the salt is not base64" end
  if not rounds or rounds < 1 or rounds > MAX_ROUNDS then
    return nil, string.format("iteration count %s (1 to %d)", a.i, MAX_ROUNDS)
  end
  local ck, sk = scram_keys(L, password, salt, rounds)
  local without_proof = "c=" .. L.b64("n,,") .. ",r=" .. r
  local auth = first_bare .. "," .. server_first .. "," .. without_proof
  local proof = xor(ck, L.hmac(L.sha256(ck), auth))
  return without_proof .. ",p=" .. L.b64(proof), L.b64(L.hmac(sk, auth))
end
M._scram_final = scram_final

-- The server-final message: true when it carries the expected signature.
local function scram_verify(server_final, signature)
  local a = scram_attrs(server_final)
  if a.e then return nil, "the server refused the proof: " .. a.e end
  if a.v ~= signature then return nil, "the server's signature does not match: not the server of this password" end
  return true
end
M._scram_verify = scram_verify

local function md5_password(user, password, salt)
  local L = lib()
  return "md5" .. L.md5hex(L.md5hex(password .. user) .. salt)
end
M._md5_password = md5_password

---------------------------------------------------------------------------
-- The client.

local Client = {}
Client.__index = Client

local function timeout_text(t)
  if t == nil then return "the connection's timeout" end
  if type(t) == "number" then return float_text(t) .. " s" end
  return tostring(t)
end

-- The stream is out of step (or gone): closed, and a technical error
-- raised (sock:fail does not return).
local function fail_read(c, kind, msg)
  c.sock:close()
  if kind == "closed" then c.sock:fail("PostgreSQL: connection closed") end
  if kind == "timeout" then c.sock:fail("PostgreSQL: no reply within " .. timeout_text(c.timeout)) end
  c.sock:fail("PostgreSQL: protocol error: " .. tostring(msg))
end

local function unexpected(c, t, during)
  fail_read(c, "protocol", string.format("unexpected %q message %s", t, during))
end

local function keep(list, v)
  if #list < MAX_KEPT then list[#list + 1] = v end
end

-- A message any time may bring: ParameterStatus, NoticeResponse,
-- NotificationResponse. True when t was one (and taken in).
local function async_message(c, t, body)
  if t == "S" then
    local k = cursor(body)
    local name, value = k.str(), k.str()
    if not value then fail_read(c, "protocol", "parameter status cut short") end
    c.params[name] = value
    return true
  end
  if t == "N" then
    local e, _, msg = parse_error(body)
    if not e then fail_read(c, "protocol", msg) end
    keep(c.notices, e)
    return true
  end
  if t == "A" then
    local k = cursor(body)
    local pid, channel, payload = k.i32(), k.str(), k.str()
    if not payload then fail_read(c, "protocol", "notification cut short") end
    keep(c.notifications, { pid = pid, channel = channel, payload = payload })
    return true
  end
  return false
end

-- The next message that is not an asynchronous one.
local function next_message(c)
  while true do
    local t, body, msg = read_message(c.sock)
    if not t then fail_read(c, body, msg) end
    if not async_message(c, t, body) then return t, body end
  end
end

-- An ErrorResponse: kept as c.error; a FATAL one closes the connection.
local function take_error(c, body)
  local e, _, msg = parse_error(body)
  if not e then fail_read(c, "protocol", msg) end
  c.error = e
  if e.severity == "FATAL" or e.severity == "PANIC" then c.sock:close() end
  return e
end

local function raise_error(e)
  error("PostgreSQL: " .. error_text(e), 0)
end

-- BindComplete, PortalSuspended; a COPY TO STDOUT's CopyOutResponse,
-- CopyData and CopyDone: nothing to keep.
local skipped = { ["2"] = true, s = true, H = true, d = true, c = true }

local function new_result(cmd)
  return { rows = {}, fields = {}, command = cmd }
end

-- The results of one cycle up to ReadyForQuery: each statement's result,
-- and the first ErrorResponse. All is read, an error or not, so that the
-- connection stays in step; a COPY is refused or read and dropped.
local function read_results(c)
  local results, first, cur, cols = {}, nil, nil, nil
  while true do
    local t, body = next_message(c)
    if t == "Z" then
      if #body ~= 1 then fail_read(c, "protocol", "bad ReadyForQuery") end
      c.status = body
      return results, first
    elseif t == "T" then
      local desc, _, msg = parse_row_description(body)
      if not desc then fail_read(c, "protocol", msg) end
      cols = desc
      cur = new_result(nil)
      cur.columns = cols
      for i, col in ipairs(cols) do cur.fields[i] = col.name end
    elseif t == "D" then
      if not cols then unexpected(c, t, "without a row description") end
      local row, _, msg = parse_data_row(body, cols)
      if not row then fail_read(c, "protocol", msg) end
      if #cur.rows < MAX_ROWS then
        cur.rows[#cur.rows + 1] = row
      else
        cur.dropped = (cur.dropped or 0) + 1
      end
    elseif t == "C" then
      local tag = cursor(body).str()
      if not tag then fail_read(c, "protocol", "command tag not ended") end
      cur = cur or new_result(nil)
      cur.tag = tag
      cur.command, cur.count = parse_tag(tag)
      results[#results + 1] = cur
      cur, cols = nil, nil
    elseif t == "I" then       -- EmptyQueryResponse
      results[#results + 1] = new_result("")
    elseif t == "E" then
      local e = take_error(c, body)
      first = first or e
      if c.sock.closed then return results, first end
    elseif t == "G" then       -- CopyInResponse: no data to give
      c.sock:send(message("f", cstr("COPY FROM STDIN is not supported by quern.pg")))
    elseif t == "n" then       -- NoData: a statement without rows
      cur = new_result(nil)
    elseif t == "1" then       -- ParseComplete
      c.parsed = true
    elseif not skipped[t] then
      unexpected(c, t, "in a query's replies")
    end
  end
end

local function last_of(results)
  local res = results[#results] or new_result("")
  res.results = results
  return res
end

-- The statement of sql: a named one, prepared once per connection, while
-- fewer than MAX_STATEMENTS are; else the unnamed statement, parsed each
-- time. Returns { name, its count of $N }, and whether to parse it first.
local function statement(c, sql)
  local st = c.statements[sql]
  if st then return st, false end
  local name = ""
  if c.nstatements < MAX_STATEMENTS then name = "quern_" .. (c.nstatements + 1) end
  return { name = name, held = placeholders(sql) }, true
end

-- What c:query sends: a Query, or Parse (the first time), Bind, Describe,
-- Execute and Sync; and the statement when it is to be parsed.
local function prepare(c, sql, params)
  if params == nil then return query_msg(sql), nil end
  local st, parse = statement(c, sql)
  local payload = bind_msg(st.name, params, st.held) .. describe_portal() .. execute_msg() .. SYNC
  if parse then return parse_msg(st.name, sql) .. payload, st end
  return payload, nil
end

local function run_query(c, sql, payload, parsing)
  c.parsed = false
  c.sock:send(payload)
  local results, first = read_results(c)
  -- ParseComplete came: the statement exists, whatever failed after it
  if parsing and parsing.name ~= "" and c.parsed then
    c.statements[sql] = parsing
    c.nstatements = c.nstatements + 1
  end
  -- gone (a DEALLOCATE or DISCARD of the script's): parsed again next time
  if first and first.code == "26000" and not parsing then c.statements[sql] = nil end
  return results, first
end

function Client:query(sql, params)
  if type(sql) ~= "string" then error("pg: the query is not a string", 2) end
  if has_nul(sql) then error("pg: the query holds a NUL byte", 2) end
  if params ~= nil and type(params) ~= "table" then error("pg: params must be a table", 2) end
  local payload, parsing = prepare(self, sql, params)
  if self.sock.closed then self.sock:fail("PostgreSQL: the connection is closed") end
  return self.step:time(function()
    local results, first = run_query(self, sql, payload, parsing)
    if first then
      if self.sock.closed then self.sock:fail("PostgreSQL: " .. error_text(first)) end
      raise_error(first)
    end
    return last_of(results)
  end)
end

function Client:close()
  if not self.sock.closed then
    -- a Terminate, so that the server logs a clean end; a failed send is of no matter
    pcall(self.sock.send, self.sock, TERMINATE)
  end
  self.sock:close()
end

---------------------------------------------------------------------------
-- Connecting.

local function unescape(s)
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

-- The URL with its credentials hidden, to name it in an error.
local function redact(url)
  return (url:gsub("^(%a+://).*@", "%1***@"))
end

local url_keys = { application_name = true, options = true, sslmode = true }

-- postgres://[user[:password]@]host[:port][/database][?key=value&...] ->
-- a table, or nil and why. The last "@" ends the credentials.
local function parse_url(url)
  if type(url) ~= "string" then return nil, "not a string" end
  local scheme, rest = url:match("^(%a+)://(.*)$")
  if scheme ~= "postgres" and scheme ~= "postgresql" then return nil, "not postgres:// or postgresql://" end
  local u = { port = 5432, params = {} }
  local query
  rest, query = rest:match("^([^?]*)%??(.*)$")
  local info, hostpart = rest:match("^(.*)@(.*)$")
  if info then
    local user, pass = info:match("^([^:]*):(.*)$")
    if user then
      u.user, u.password = unescape(user), unescape(pass)
    else
      u.user = unescape(info)
    end
    if u.user == "" then u.user = nil end
    rest = hostpart
  end
  local authority, path = rest:match("^([^/]*)(.*)$")
  local host, port = authority:match("^%[([^%]]*)%]:?(.*)$")  -- [IPv6]
  if not host then host, port = authority:match("^([^:]*):?(.*)$") end
  u.host = unescape(host)
  if u.host == "" then return nil, "no host" end
  if port ~= "" then
    u.port = int_value(port)
    if not u.port or u.port < 1 or u.port > 65535 then return nil, "bad port" end
  end
  if path ~= "" and path ~= "/" then u.database = unescape(path:sub(2)) end
  for pair in query:gmatch("[^&]+") do
    local k, v = pair:match("^([^=]*)=(.*)$")
    if not k or not url_keys[k] then return nil, "unknown parameter " .. string.format("%q", k or pair) end
    u.params[k] = unescape(v)
  end
  local ssl = u.params.sslmode
  if ssl and ssl ~= "disable" and ssl ~= "allow" and ssl ~= "prefer" then
    return nil, "sslmode=" .. ssl .. ": TLS is not supported"
  end
  u.params.sslmode = nil
  return u
end
M._parse_url = parse_url

-- The startup's parameters: user, database, then the URL's and opts'.
local function startup_params(u, extra)
  local list = { { "user", u.user }, { "database", u.database or u.user } }
  if has_nul(u.user) or has_nul(list[2][2]) or has_nul(u.password or "") then
    error("pg.connect: a NUL byte in the URL's user, password or database", 3)
  end
  for k, v in pairs(u.params) do
    if extra[k] == nil then extra[k] = v end
  end
  local names = {}
  for k in pairs(extra) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    if k == "user" or k == "database" then error("pg.connect: " .. k .. " goes in the URL", 3) end
    local v = tostring(extra[k])
    if has_nul(k) or has_nul(v) then error("pg.connect: a NUL byte in parameter " .. k, 3) end
    list[#list + 1] = { k, v }
  end
  return list
end

-- Authentication requests: 0 ok, 3 cleartext, 5 md5, 10 SASL, 11 SASL
-- continue, 12 SASL final; 2 Kerberos, 7 GSSAPI, 8 its continue, 9 SSPI.
local auth_codes = { [0] = true, [2] = true, [3] = true, [5] = true, [7] = true, [8] = true,
                     [9] = true, [10] = true, [11] = true, [12] = true }

-- The login: the server's Authentication requests answered, up to
-- AuthenticationOk. Returns the ErrorResponse that ended it, if one did.
local function authenticate(c, u)
  local scram
  while true do
    local t, body = next_message(c)
    if t == "E" then return take_error(c, body) end
    if t ~= "R" then unexpected(c, t, "during the login") end
    local k = cursor(body)
    local code = k.i32()
    if code == 0 then return nil end
    if not auth_codes[code] then
      fail_read(c, "protocol", string.format("unknown authentication request %s", tostring(code)))
    end
    if (code == 3 or code == 5 or code == 10) and not u.password then
      c.sock:close()
      c.sock:fail("PostgreSQL: the server asks for a password and the URL has none")
    end
    if code == 3 then
      c.sock:send(message("p", cstr(u.password)))
    elseif code == 5 then
      local salt = k.bytes(4)
      if not salt then fail_read(c, "protocol", "md5 request without its salt") end
      c.sock:send(message("p", cstr(md5_password(u.user, u.password, salt))))
    elseif code == 10 then
      local offered = {}
      for mech in k.rest():gmatch("([^%z]+)%z") do offered[mech] = true end
      if not offered["SCRAM-SHA-256"] then
        c.sock:close()
        c.sock:fail("PostgreSQL: no SASL mechanism of the server is supported (SCRAM-SHA-256 is)")
      end
      local nonce = lib().nonce()
      local first, bare = scram_first("", nonce)
      scram = { bare = bare, nonce = nonce }
      c.sock:send(message("p", cstr("SCRAM-SHA-256") .. int32(#first) .. first))
    elseif code == 11 then
      if not scram or scram.signature then unexpected(c, "R", "(SASL continue) out of turn") end
      local final, sig = scram_final(u.password, scram.bare, scram.nonce, k.rest())
      if not final then fail_read(c, "protocol", "SCRAM: " .. sig) end
      scram.signature = sig
      c.sock:send(message("p", final))
    elseif code == 12 then
      if not scram or not scram.signature then unexpected(c, "R", "(SASL final) out of turn") end
      local ok, why = scram_verify(k.rest(), scram.signature)
      if not ok then
        c.sock:close()
        c.sock:fail("PostgreSQL: SCRAM: " .. why)
      end
    else
      c.sock:close()
      c.sock:fail(string.format("PostgreSQL: authentication method %d (Kerberos, GSSAPI or SSPI) "
                                .. "is not supported", code))
    end
  end
end

-- After AuthenticationOk: BackendKeyData and ParameterStatus up to the
-- first ReadyForQuery, or an ErrorResponse.
local function await_ready(c)
  while true do
    local t, body = next_message(c)
    if t == "Z" then c.status = body; return nil end
    if t == "E" then return take_error(c, body) end
    if t ~= "K" then unexpected(c, t, "before the first ReadyForQuery") end
    local k = cursor(body)
    c.pid, c.secret = k.i32(), k.i32()
    if not c.secret then fail_read(c, "protocol", "backend key data cut short") end
  end
end

function M.connect(step, url, opts)
  local u, why = parse_url(url)
  if not u then error(string.format("pg.connect: bad URL %q: %s", redact(tostring(url)), why), 2) end
  if not u.user then error("pg.connect: the URL names no user", 2) end
  opts = opts or {}
  if opts.tls then error("pg.connect: TLS is not supported", 2) end
  local tcp_opts, extra = {}, {}
  for k, v in pairs(opts) do
    if k == "params" then
      if type(v) ~= "table" then error("pg.connect: params must be a table", 2) end
      for pk, pv in pairs(v) do
        if type(pk) ~= "string" then error("pg.connect: params' keys are the settings' names", 2) end
        extra[pk] = pv
      end
    elseif k ~= "tls" then
      tcp_opts[k] = v
    end
  end
  local hello = startup(startup_params(u, extra))
  local c = setmetatable({ step = step, params = {}, notices = {}, notifications = {},
                           statements = {}, nstatements = 0, timeout = opts.timeout,
                           user = u.user, database = u.database or u.user }, Client)
  step:time(function()
    c.sock = step:tcp(u.host, u.port, tcp_opts)
    c.sock:send(hello)
    local e = authenticate(c, u) or await_ready(c)
    if e then
      c.sock:close()  -- a session that did not open is of no use
      raise_error(e)
    end
  end)
  return c
end

return M

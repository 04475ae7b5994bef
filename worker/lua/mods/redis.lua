-- quern.redis: a Redis client over step:tcp (docs/scenarios.md, "Redis:
-- quern.redis"). RESP2 and RESP3 replies; each call or pipeline is one
-- sample. Compiled into quern as package.preload["quern.redis"].
--
-- It requires nothing and keeps no state of its own: the step it is given
-- does the I/O, the client table holds the connection.

local M = {}

-- Bounds of what a reply may declare: checked before anything is built, so
-- a few bytes cannot make a huge table or string (the parser is fuzzed).
local MAX_DEPTH = 64             -- nested aggregates
local MAX_COUNT = 1 << 20        -- elements (or pairs) of one aggregate
local MAX_BULK = 512 << 20       -- bytes of one string, as Redis's own limit
local CHUNK = 512 << 10          -- bytes asked of the socket at once (its bound is 1 MiB)

-- A nil inside an array, set or map value: Lua lists cannot hold nil.
M.null = setmetatable({}, {
  __name = "redis.null",
  __tostring = function() return "redis.null" end,
  __newindex = function() error("redis.null is read-only", 2) end,
})

-- An error reply kept as a value: inside an aggregate (EXEC) or a
-- pipeline's list. getmetatable(v) == redis.error_reply tells it.
M.error_reply = {
  __name = "redis.error_reply",
  __tostring = function(e) return e.err end,
}

local function error_reply(text)
  return setmetatable({ err = text }, M.error_reply)
end

---------------------------------------------------------------------------
-- Encoding: a command as a RESP array of bulk strings.

-- The shortest %g that reads back as the same double: 0.1 is "0.1", not
-- tostring's 14 digits that may lose the last bits.
local function float_text(x)
  for digits = 15, 17 do
    local s = string.format("%." .. digits .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)  -- nan
end

local function arg_text(v, i)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then
    local n = math.tointeger(v)  -- 1.0 is "1": Redis refuses "1.0" where it wants an integer
    if n then return string.format("%d", n) end
    return float_text(v)
  end
  if v == nil then
    -- tostring would send "nil": almost always a script's bug. Level 4:
    -- the script's line (arg_text, encode, c:call or p:call, the script).
    error(string.format("redis: argument %d of the command is nil", i), 4)
  end
  return tostring(v)
end

-- "$N\r\n" and "*N\r\n" by N, each made once: a number's text costs a
-- snprintf, a lookup does not. Up to HEADS only, so that the tables stay
-- small whatever lengths a script sends.
local HEADS = 1024
local bulk_heads, array_heads = {}, {}

local function head(cache, mark, n)
  local h = cache[n]
  if h then return h end
  h = mark .. string.format("%d", n) .. "\r\n"
  if n <= HEADS then cache[n] = h end
  return h
end

-- args: a list (its n field, as table.pack gives, counts trailing nils)
local function encode(args)
  local n = args.n or #args
  if n == 0 then error("redis: no command given", 3) end
  local out, k = { head(array_heads, "*", n) }, 1
  for i = 1, n do
    local s = arg_text(args[i], i)
    out[k + 1], out[k + 2], out[k + 3] = head(bulk_heads, "$", #s), s, "\r\n"
    k = k + 3
  end
  return table.concat(out)
end

-- The same bytes for a command of one to three words (GET k, SET k v), in
-- one concatenation, without a table; called where encode is, so that
-- arg_text's error level holds.
local function encode_few(n, a, b, c)
  a = arg_text(a, 1)
  if n == 1 then return "*1\r\n" .. head(bulk_heads, "$", #a) .. a .. "\r\n" end
  b = arg_text(b, 2)
  if n == 2 then
    return "*2\r\n" .. head(bulk_heads, "$", #a) .. a .. "\r\n" .. head(bulk_heads, "$", #b) .. b .. "\r\n"
  end
  c = arg_text(c, 3)
  return "*3\r\n" .. head(bulk_heads, "$", #a) .. a .. "\r\n" .. head(bulk_heads, "$", #b) .. b .. "\r\n"
    .. head(bulk_heads, "$", #c) .. c .. "\r\n"
end

function M._encode(args)
  local s = encode(args)  -- not a tail call: the error levels count this frame
  return s
end

function M._encode_few(...)
  local s = encode_few(select("#", ...), ...)
  return s
end

---------------------------------------------------------------------------
-- Parsing. Internal readers return true, value or false, kind, message, so
-- that nil stays a value (a null reply). Nothing in here raises.

local function lost(why)
  if why == "timeout" then return false, "timeout", "no reply in time" end
  return false, "closed", "connection closed"
end

local function protocol(fmt, ...)
  return false, "protocol", string.format(fmt, ...)
end

-- A decimal integer, strictly: tonumber would take hex, spaces, floats.
local function int_of(s)
  if not s:find("^%-?%d+$") then return nil end
  return math.tointeger(tonumber(s))
end

local function what(s)
  if #s > 40 then s = s:sub(1, 40) .. "..." end
  return string.format("%q", s)
end

-- n bytes then CRLF; in chunks, as the socket will not hold more than 1 MiB
-- for one piece.
local function read_bytes(reader, n)
  if n + 2 <= CHUNK then
    local s, why = reader:receive(n + 2)
    if not s then return lost(why) end
    if s:sub(-2) ~= "\r\n" then return protocol("string of %d bytes not ended by CRLF", n) end
    return true, s:sub(1, n)
  end
  local parts, left = {}, n
  while left > 0 do
    local k = math.min(left, CHUNK)
    local s, why = reader:receive(k)
    if not s then return lost(why) end
    parts[#parts + 1] = s
    left = left - k
  end
  local crlf, why = reader:receive(2)
  if not crlf then return lost(why) end
  if crlf ~= "\r\n" then return protocol("string of %d bytes not ended by CRLF", n) end
  return true, table.concat(parts)
end

-- The length of a bulk-like type: nil for a null ($-1), else 0 .. MAX_BULK.
local function bulk_len(rest, null_ok)
  local n = int_of(rest)
  if n == -1 and null_ok then return true, nil end
  if not n or n < 0 or n > MAX_BULK then return protocol("bad string length %s", what(rest)) end
  return true, n
end

local read_value  -- forward: aggregates read their elements with it

-- The declared count of an aggregate, bounded before any table is made.
local function count_of(rest, depth, null_ok)
  if depth >= MAX_DEPTH then return protocol("replies nested deeper than %d", MAX_DEPTH) end
  local n = int_of(rest)
  if n == -1 and null_ok then return true, nil end
  if not n or n < 0 or n > MAX_COUNT then return protocol("bad element count %s", what(rest)) end
  return true, n
end

-- Array, set, push: a list, elements read one by one; nil becomes null.
local function read_list(reader, rest, depth, null_ok)
  local ok, n, msg = count_of(rest, depth, null_ok)
  if not ok then return false, n, msg end
  if n == nil then return true, nil end
  local list = {}
  for i = 1, n do
    local ok2, v, msg2 = read_value(reader, depth + 1)
    if not ok2 then return false, v, msg2 end
    if v == nil then v = M.null end
    list[i] = v
  end
  return true, list
end

local function read_map(reader, rest, depth)
  local ok, n, msg = count_of(rest, depth, false)
  if not ok then return false, n, msg end
  local map = {}
  for _ = 1, n do
    local ok2, k, msg2 = read_value(reader, depth + 1)
    if not ok2 then return false, k, msg2 end
    local ok3, v, msg3 = read_value(reader, depth + 1)
    if not ok3 then return false, v, msg3 end
    if k == nil then k = M.null end
    if k ~= k then return protocol("a map's key is NaN") end  -- a Lua table cannot hold it
    if v == nil then v = M.null end
    map[k] = v
  end
  return true, map
end

-- The length a "$N" line declares, for the lines seen before: a lookup
-- instead of a pattern and two conversions. Three digits at most ("$0" to
-- "$999", "$007"), so that it stays small whatever a server sends.
local bulk_lines = {}

local function read_bulk(reader, rest)
  local ok, n, msg = bulk_len(rest, true)
  if not ok or n == nil then return ok, n, msg end
  if #rest <= 3 then bulk_lines["$" .. rest] = n end
  return read_bytes(reader, n)
end

local doubles = { inf = math.huge, ["+inf"] = math.huge, ["-inf"] = -math.huge,
                  nan = 0 / 0, ["-nan"] = 0 / 0 }

-- One handler a type byte: (reader, rest of the line, depth) -> ok, value.
local types = {
  ["+"] = function(_, rest) return true, rest end,
  ["-"] = function(_, rest) return true, error_reply(rest) end,
  [":"] = function(_, rest)
    local n = int_of(rest)
    if not n then return protocol("bad integer %s", what(rest)) end
    return true, n
  end,
  ["$"] = read_bulk,
  ["*"] = function(reader, rest, depth) return read_list(reader, rest, depth, true) end,
  -- RESP3
  ["_"] = function(_, rest)
    if rest ~= "" then return protocol("bad null %s", what(rest)) end
    return true, nil
  end,
  [","] = function(_, rest)
    local d = doubles[rest:lower()]
    if d then return true, d end
    -- only what a decimal double holds: tonumber alone would take hex
    local x = rest:find("^[%d%.eE%+%-]+$") and tonumber(rest)
    if not x then return protocol("bad double %s", what(rest)) end
    return true, x + 0.0
  end,
  ["#"] = function(_, rest)
    if rest == "t" then return true, true end
    if rest == "f" then return true, false end
    return protocol("bad boolean %s", what(rest))
  end,
  ["("] = function(_, rest)
    if not rest:find("^%-?%d+$") then return protocol("bad big number %s", what(rest)) end
    return true, rest
  end,
  ["!"] = function(reader, rest)
    local ok, n, msg = bulk_len(rest, false)
    if not ok then return false, n, msg end
    local ok2, s, msg2 = read_bytes(reader, n)
    if not ok2 then return false, s, msg2 end
    return true, error_reply(s)
  end,
  ["="] = function(reader, rest)
    local ok, n, msg = bulk_len(rest, false)
    if not ok then return false, n, msg end
    local ok2, s, msg2 = read_bytes(reader, n)
    if not ok2 then return false, s, msg2 end
    -- "txt:" or "mkd:" first: the format, not the text
    if #s < 4 or s:sub(4, 4) ~= ":" then return protocol("verbatim string without its format") end
    return true, s:sub(5)
  end,
  ["%"] = read_map,
  ["~"] = function(reader, rest, depth) return read_list(reader, rest, depth, false) end,
  -- a push inside an aggregate is not RESP3's; read as a list all the same
  [">"] = function(reader, rest, depth) return read_list(reader, rest, depth, false) end,
}

-- One value; attributes before it are read and dropped, pushes (at the top
-- only, where RESP3 puts them) go to the pushes list. A loop, not a
-- recursion: any number of them may come first.
function read_value(reader, depth, pushes)
  while true do
    local line, why = reader:receive("line")
    if not line then return lost(why) end
    local len = bulk_lines[line]
    if len then return read_bytes(reader, len) end
    if line == "" then return protocol("empty line where a reply was due") end
    local t, rest = line:sub(1, 1), line:sub(2)
    if t == "|" then
      local ok, kind, msg = read_map(reader, rest, depth)
      if not ok then return false, kind, msg end
    elseif t == ">" and depth == 0 then
      local ok, v, msg = read_list(reader, rest, depth, false)
      if not ok then return false, v, msg end
      if pushes then pushes[#pushes + 1] = v end
    else
      local h = types[t]
      if not h then return protocol("unknown reply type byte 0x%02x", t:byte()) end
      return h(reader, rest, depth)
    end
  end
end

-- One reply: value, or nil, kind, message (kind "error", "closed",
-- "timeout" or "protocol"). A null reply is a plain nil.
local function read_reply(reader, pushes)
  local ok, v, msg = read_value(reader, 0, pushes)
  if not ok then return nil, v, msg end
  if getmetatable(v) == M.error_reply then return nil, "error", v.err end
  return v
end
M._read_reply = read_reply

---------------------------------------------------------------------------
-- The client.

local Client = {}
Client.__index = Client

local function timeout_text(t)
  if t == nil then return "the connection's timeout" end
  if type(t) == "number" then return float_text(t) .. " s" end
  return tostring(t)
end

-- A reply that did not come whole: the stream is out of step with the
-- commands (the rest would be taken for the next reply), so it is closed.
-- sock:fail raises a technical error and does not return.
local function fail_read(c, kind, msg)
  if kind == "closed" then c.sock:fail("Redis: connection closed") end
  c.sock:close()
  if kind == "timeout" then c.sock:fail("Redis: no reply within " .. timeout_text(c.timeout)) end
  c.sock:fail("Redis: protocol error: " .. tostring(msg))
end

-- The replies to n commands sent at once, in a list (null as redis.null,
-- error replies as redis.error_reply); and the first error's text. All are
-- read, an error or not, so that the connection stays usable.
local function read_replies(c, n)
  local list, first = {}, nil
  for i = 1, n do
    local v, kind, msg = read_reply(c.sock, c.pushes)
    if kind == "error" then
      v = error_reply(msg)
      first = first or msg
    elseif kind then
      fail_read(c, kind, msg)
    end
    if v == nil then v = M.null end
    list[i] = v
  end
  return list, first
end

-- Error replies are the server's answer to what the script asked: a
-- functional error, the server's text as the message.
local function raise_reply(text)
  error("Redis: " .. text, 0)
end

-- One command's exchange, the block of its sample: a function of the
-- module given its arguments by step:time, not a closure made per call.
local function exchange(c, payload)
  c.sock:send(payload)
  local v, kind, msg = read_reply(c.sock, c.pushes)
  if kind == "error" then raise_reply(msg) end
  if kind then fail_read(c, kind, msg) end
  return v
end

function Client:call(...)
  local n = select("#", ...)
  local payload
  if n >= 1 and n <= 3 then payload = encode_few(n, ...) else payload = encode(table.pack(...)) end
  return self.step:time(exchange, self, payload)
end

local Pipe = {}
Pipe.__index = Pipe

function Pipe:call(...)
  self[#self + 1] = encode(table.pack(...))
  return self
end

function Client:pipeline(fn)
  local p = setmetatable({}, Pipe)
  fn(p)  -- outside the sample: queueing is the script's work, not the server's
  if #p == 0 then return {} end
  local payload = table.concat(p)
  return self.step:time(function()
    self.sock:send(payload)
    local list, first = read_replies(self, #p)
    if first then raise_reply(first) end
    return list
  end)
end

function Client:close()
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

-- redis://[[user]:password@]host[:port][/db] (rediss:// for TLS) -> a
-- table, or nil and why. The last "@" ends the credentials, so that a
-- password left unescaped works too.
local function parse_url(url)
  if type(url) ~= "string" then return nil, "not a string" end
  local scheme, rest = url:match("^(%a+)://(.*)$")
  if scheme ~= "redis" and scheme ~= "rediss" then return nil, "not redis:// or rediss://" end
  local u = { tls = scheme == "rediss", port = 6379, db = 0 }
  local info, hostpart = rest:match("^(.*)@(.*)$")
  if info then
    local user, pass = info:match("^([^:]*):(.*)$")
    if user then
      u.user, u.password = user ~= "" and unescape(user) or nil, unescape(pass)
    else
      u.password = unescape(info)  -- no ":": the whole is a password, as redis-cli reads it
    end
    rest = hostpart
  end
  local authority, path = rest:match("^([^/]*)(.*)$")
  local host, port = authority:match("^%[([^%]]*)%]:?(.*)$")  -- [IPv6]
  if not host then host, port = authority:match("^([^:]*):?(.*)$") end
  host = unescape(host)
  if host == "" then return nil, "no host" end
  if port ~= "" then
    u.port = int_of(port)
    if not u.port or u.port < 1 or u.port > 65535 then return nil, "bad port" end
  end
  if path ~= "" and path ~= "/" then
    u.db = int_of(path:sub(2))
    if path:sub(1, 1) ~= "/" or not u.db or u.db < 0 then return nil, "bad database number" end
  end
  u.host = host
  return u
end
M._parse_url = parse_url

-- The commands that open the session, sent together.
local function hello_commands(u, resp)
  local cmds = {}
  if u.user or (u.password and u.password ~= "") then
    cmds[#cmds + 1] = encode(u.user and { "AUTH", u.user, u.password } or { "AUTH", u.password })
  end
  if resp == 3 then cmds[#cmds + 1] = encode({ "HELLO", 3 }) end
  if u.db ~= 0 then cmds[#cmds + 1] = encode({ "SELECT", u.db }) end
  return cmds
end

function M.connect(step, url, opts)
  local u, why = parse_url(url)
  if not u then error(string.format("redis.connect: bad URL %q: %s", redact(tostring(url)), why), 2) end
  opts = opts or {}
  local resp = opts.resp or 2
  if resp ~= 2 and resp ~= 3 then error("redis.connect: resp must be 2 or 3", 2) end
  local tcp_opts = {}
  for k, v in pairs(opts) do
    if k ~= "resp" then tcp_opts[k] = v end
  end
  if tcp_opts.tls == nil and u.tls then tcp_opts.tls = true end
  local cmds = hello_commands(u, resp)
  local c = setmetatable({ step = step, pushes = {}, resp = resp, db = u.db,
                           timeout = opts.timeout }, Client)
  step:time(function()
    c.sock = step:tcp(u.host, u.port, tcp_opts)
    if #cmds == 0 then return end
    c.sock:send(table.concat(cmds))
    local _, first = read_replies(c, #cmds)
    if first then
      c.sock:close()  -- a session that did not open is of no use
      raise_reply(first)
    end
  end)
  return c
end

return M

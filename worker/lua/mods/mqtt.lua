-- quern.mqtt: an MQTT 3.1.1 client over step:tcp (docs/scenarios.md, "MQTT:
-- quern.mqtt"). Each connect, publish, subscribe and unsubscribe is one
-- sample; the keepalive's PINGREQ is the socket's heartbeat, sent from the
-- worker's loop. Compiled into quern as package.preload["quern.mqtt"].
--
-- The step it is given does the I/O, the client table holds the connection
-- and what the protocol remembers of it (packet ids, messages waiting for
-- receive, QoS 2 messages received and not released yet).

local quern = require "quern"

local M = {}

local now = quern.now
local random_bytes = quern.crypto.random_bytes

-- Packet types (MQTT 3.1.1, 2.2.1).
local CONNECT, CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP = 1, 2, 3, 4, 5, 6, 7
local SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT = 8, 9, 10, 11, 12, 13, 14

local NAMES = { "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL", "PUBCOMP",
                "SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP",
                "DISCONNECT" }

local MAX_REMAINING = 268435455  -- the largest remaining length four bytes hold
local MAX_PACKET = 16 << 20      -- bytes of one packet read, at most
local CHUNK = 512 << 10          -- bytes asked of the socket at once (its bound is 1 MiB)
local QUEUE_MAX = 1024           -- messages waiting for receive
local QUEUE_BYTES = 16 << 20     -- and their payloads' bytes

M.PINGREQ = string.char(PINGREQ << 4, 0)

local function type_name(t)
  return NAMES[t] or string.format("type %d", t)
end

---------------------------------------------------------------------------
-- Encoding. Functions return the bytes, or nil and why (nothing raises).

-- The remaining length: 7 bits a byte, low first, the high bit "more".
local function varint(n)
  if math.type(n) ~= "integer" or n < 0 or n > MAX_REMAINING then return nil, "length out of range" end
  local out = {}
  repeat
    local b = n & 0x7f
    n = n >> 7
    if n > 0 then b = b | 0x80 end
    out[#out + 1] = string.char(b)
  until n == 0
  return table.concat(out)
end
M._varint = varint

-- s's remaining length from pos: value, the position after it; or nil and
-- "short" (more bytes needed) or "bad" (a fifth byte).
local function unvarint(s, pos)
  local n, shift = 0, 0
  for i = 0, 3 do
    local b = s:byte(pos + i)
    if not b then return nil, "short" end
    n = n | ((b & 0x7f) << shift)
    if b < 0x80 then return n, pos + i + 1 end
    shift = shift + 7
  end
  return nil, "bad"
end
M._unvarint = unvarint

-- A UTF-8 string: its length on two bytes, then its bytes. U+0000 and
-- what is not UTF-8 are refused, as the spec asks (1.5.3).
local function str(s, what)
  if type(s) ~= "string" then return nil, what .. " is not a string" end
  if #s > 65535 then return nil, what .. " is longer than 65535 bytes" end
  if not utf8.len(s) then return nil, what .. " is not UTF-8" end
  if s:find("\0", 1, true) then return nil, what .. " holds U+0000" end
  return string.pack(">s2", s)
end
function M._string(s) return str(s, "the string") end

local function bin(s, what)
  if type(s) ~= "string" then return nil, what .. " is not a string" end
  if #s > 65535 then return nil, what .. " is longer than 65535 bytes" end
  return string.pack(">s2", s)
end

local function packet(first, body)
  local len, why = varint(#body)
  if not len then return nil, "a packet of " .. #body .. " bytes: " .. why end
  return string.char(first) .. len .. body
end

-- A topic name to publish to: no wildcard.
local function topic_name(t)
  if type(t) ~= "string" or t == "" then return nil, "a topic is a string, not empty" end
  if t:find("[+#]") then return nil, string.format("topic %q: no wildcard in a topic to publish to", t) end
  return str(t, "the topic")
end

-- A topic filter: "+" a whole level, "#" the whole last level.
local function topic_filter(t)
  if type(t) ~= "string" or t == "" then return nil, "a topic filter is a string, not empty" end
  for level in (t .. "/"):gmatch("([^/]*)/") do
    if level:find("[+#]") and #level > 1 then
      return nil, string.format("topic filter %q: a wildcard is a whole level", t)
    end
  end
  local hash = t:find("#", 1, true)
  if hash and hash ~= #t then return nil, string.format("topic filter %q: # is the last level", t) end
  return str(t, "the topic filter")
end

local function qos_of(q, what)
  q = q or 0
  if q ~= 0 and q ~= 1 and q ~= 2 then return nil, what .. ": qos is 0, 1 or 2" end
  return math.tointeger(q)
end

local enc = {}

-- o: client_id, username, password, keepalive, clean, will = { topic,
-- payload, qos, retain }
function enc.connect(o)
  local flags = o.clean and 0x02 or 0
  local id, why = str(o.client_id, "client_id")
  if not id then return nil, why end
  local parts = { "", id }  -- the variable header first, once the flags are known
  if o.will then
    local w = o.will
    local q, why2 = qos_of(w.qos, "will")
    if not q then return nil, why2 end
    local t, why3 = topic_name(w.topic)
    if not t then return nil, "will: " .. why3 end
    local p, why4 = bin(w.payload or "", "the will's payload")
    if not p then return nil, why4 end
    flags = flags | 0x04 | (q << 3) | (w.retain and 0x20 or 0)
    parts[#parts + 1] = t
    parts[#parts + 1] = p
  end
  if o.username then
    local u, why2 = str(o.username, "username")
    if not u then return nil, why2 end
    flags = flags | 0x80
    parts[#parts + 1] = u
  end
  if o.password then
    if not o.username then return nil, "a password needs a username (MQTT 3.1.1)" end
    local p, why2 = bin(o.password, "password")
    if not p then return nil, why2 end
    flags = flags | 0x40
    parts[#parts + 1] = p
  end
  parts[1] = string.pack(">s2BBI2", "MQTT", 4, flags, o.keepalive)
  return packet(CONNECT << 4, table.concat(parts))
end

function enc.publish(topic, payload, qos, retain, dup, id)
  local t, why = topic_name(topic)
  if not t then return nil, why end
  if type(payload) ~= "string" then return nil, "the payload is not a string" end
  local first = (PUBLISH << 4) | (dup and 0x08 or 0) | (qos << 1) | (retain and 1 or 0)
  return packet(first, t .. (qos > 0 and string.pack(">I2", id) or "") .. payload)
end

-- filters: a list of strings; qos: the maximum asked of each
function enc.subscribe(id, filters, qos)
  local parts = { string.pack(">I2", id) }
  for _, f in ipairs(filters) do
    local s, why = topic_filter(f)
    if not s then return nil, why end
    parts[#parts + 1] = s .. string.char(qos)
  end
  return packet((SUBSCRIBE << 4) | 0x02, table.concat(parts))
end

function enc.unsubscribe(id, filters)
  local parts = { string.pack(">I2", id) }
  for _, f in ipairs(filters) do
    local s, why = topic_filter(f)
    if not s then return nil, why end
    parts[#parts + 1] = s
  end
  return packet((UNSUBSCRIBE << 4) | 0x02, table.concat(parts))
end

-- PUBACK, PUBREC, PUBREL (flags 0010), PUBCOMP: the type and a packet id.
function enc.ack(t, id)
  return string.char((t << 4) | (t == PUBREL and 0x02 or 0), 2) .. string.pack(">I2", id)
end

enc.disconnect = string.char(DISCONNECT << 4, 0)
M._encode = enc

---------------------------------------------------------------------------
-- Parsing: a packet's first byte and body into a table { type = ..., ... },
-- or nil and why.

local function id_of(body, pos)
  if #body < pos + 1 then return nil end
  local id = string.unpack(">I2", body, pos)
  if id == 0 then return nil end
  return id
end

local parsers = {
  [CONNACK] = function(body)
    if #body ~= 2 then return nil, "CONNACK of " .. #body .. " bytes, not 2" end
    local ack, code = body:byte(1, 2)
    if ack > 1 then return nil, string.format("CONNACK flags 0x%02x", ack) end
    return { type = CONNACK, session_present = ack == 1, code = code }
  end,
  [PUBLISH] = function(body, flags)
    local qos = (flags >> 1) & 3
    if qos == 3 then return nil, "PUBLISH with QoS 3" end
    if #body < 2 then return nil, "PUBLISH without its topic" end
    local tlen = string.unpack(">I2", body)
    local pos = 3 + tlen
    if pos - 1 > #body then return nil, "PUBLISH's topic past its end" end
    local topic = body:sub(3, pos - 1)
    if topic == "" or not utf8.len(topic) or topic:find("[%z+#]") then
      return nil, "PUBLISH to a topic that is not a topic name"
    end
    local id
    if qos > 0 then
      id = id_of(body, pos)
      if not id then return nil, "PUBLISH without its packet id" end
      pos = pos + 2
    end
    return { type = PUBLISH, topic = topic, payload = body:sub(pos), qos = qos,
             retain = flags & 1 == 1, dup = flags & 8 == 8, id = id }
  end,
  [SUBACK] = function(body)
    local id = id_of(body, 1)
    if not id or #body < 3 then return nil, "SUBACK without its packet id and codes" end
    local codes = { body:byte(3, -1) }
    for _, c in ipairs(codes) do
      if c > 2 and c ~= 0x80 then return nil, string.format("SUBACK code 0x%02x", c) end
    end
    return { type = SUBACK, id = id, codes = codes }
  end,
  [PINGRESP] = function(body)
    if #body ~= 0 then return nil, "PINGRESP with a body" end
    return { type = PINGRESP }
  end,
}
-- the acknowledgements: a packet id alone
for _, t in ipairs({ PUBACK, PUBREC, PUBREL, PUBCOMP, UNSUBACK }) do
  parsers[t] = function(body)
    local id = id_of(body, 1)
    if #body ~= 2 or not id then return nil, type_name(t) .. " without a packet id of 2 bytes" end
    return { type = t, id = id }
  end
end

local function parse(first, body)
  local t, flags = first >> 4, first & 0x0f
  local p = parsers[t]
  if not p then return nil, "a client receives no " .. type_name(t) end
  if t ~= PUBLISH and flags ~= (t == PUBREL and 2 or 0) then
    return nil, string.format("%s with flags 0x%x", type_name(t), flags)
  end
  return p(body, flags)
end
M._parse = parse

---------------------------------------------------------------------------
-- Reading from the socket. read_packet returns true, packet, or false,
-- kind, message: kind "idle" (nothing came within wait: nothing taken, the
-- stream is still in step), "closed", "timeout" (the rest of a packet did
-- not come), "protocol".

local function protocol(fmt, ...)
  return false, "protocol", string.format(fmt, ...)
end

local function lost(why)
  if why == "timeout" then return false, "timeout", "the rest of a packet did not come" end
  return false, "closed", "connection closed"
end

local function read_body(reader, n)
  if n == 0 then return true, "" end
  local parts, left = {}, n
  while left > 0 do
    local k = math.min(left, CHUNK)
    local s, why = reader:receive(k)
    if not s then return lost(why) end
    parts[#parts + 1] = s
    left = left - k
  end
  return true, table.concat(parts)
end

-- wait: the longest wait for the packet's first bytes, nil the socket's own
local function read_packet(reader, wait)
  local head, why = reader:receive(2, wait)  -- every packet is two bytes at least
  if not head then
    if why == "timeout" then return false, "idle", "no packet came" end
    return false, "closed", "connection closed"
  end
  local first, b = head:byte(1, 2)
  local n, shift = b & 0x7f, 7
  while b >= 0x80 do
    if shift == 28 then return protocol("a remaining length longer than 4 bytes") end
    local s, why2 = reader:receive(1)
    if not s then return lost(why2) end
    b = s:byte()
    n = n | ((b & 0x7f) << shift)
    shift = shift + 7
  end
  if n > MAX_PACKET then return protocol("a packet of %d bytes (at most %d are read)", n, MAX_PACKET) end
  local ok, body, msg = read_body(reader, n)
  if not ok then return false, body, msg end
  local p, bad = parse(first, body)
  if not p then return protocol("%s", bad) end
  return true, p
end

function M._read_packet(reader, wait)
  local ok, p, msg = read_packet(reader, wait)
  if not ok then return nil, p, msg end
  return p
end

---------------------------------------------------------------------------
-- Durations, as quern's: "250ms", "1.5s", "1m30s", a number of seconds.

local UNITS = { us = 1e-6, ms = 1e-3, s = 1, m = 60, h = 3600 }

local function seconds(d)
  if math.type(d) then
    if d < 0 or d ~= d then return nil end
    return d
  end
  if type(d) ~= "string" then return nil end
  if d:find("^%d+%.?%d*$") then return tonumber(d) end
  local total, pos = 0, 1
  while pos <= #d do
    local num, unit, nxt = d:match("^(%d+%.?%d*)(%a+)()", pos)
    if not num or not UNITS[unit] then return nil end
    total = total + tonumber(num) * UNITS[unit]
    pos = nxt
  end
  if pos == 1 then return nil end
  return total
end
M._seconds = seconds

---------------------------------------------------------------------------
-- The client.

local Client = {}
Client.__index = Client

local function num_text(x)
  if math.type(x) == "integer" or x == math.floor(x) then return string.format("%d s", math.floor(x)) end
  return string.format("%g s", x)
end

-- A read that went wrong while the client waits for `what`: the stream is
-- out of step (or gone), so the connection is closed and a technical
-- error raised (sock:fail does not return).
local function fail_read(c, kind, msg, what)
  if kind == "closed" then
    local why = c.sock.error
    c.sock:fail("MQTT: connection closed waiting for " .. what .. (why ~= "" and (" (" .. why .. ")") or ""))
  end
  c.sock:close()
  if kind == "idle" or kind == "timeout" then
    c.sock:fail("MQTT: no " .. what .. " within " .. num_text(c.sock.timeout))
  end
  c.sock:fail("MQTT: protocol error: " .. tostring(msg))
end

local function queue_push(c, m)
  if c.qn >= QUEUE_MAX or c.qbytes + #m.payload > QUEUE_BYTES then
    c.sock:close()
    c.sock:fail(string.format("MQTT: more than %d messages (or %d bytes) waiting for receive",
                              QUEUE_MAX, QUEUE_BYTES))
  end
  c.qtail = c.qtail + 1
  c.queue[c.qtail] = m
  c.qn = c.qn + 1
  c.qbytes = c.qbytes + #m.payload
end

local function queue_pop(c)
  if c.qn == 0 then return nil end
  local m = c.queue[c.qhead]
  c.queue[c.qhead] = nil
  c.qhead = c.qhead + 1
  c.qn = c.qn - 1
  c.qbytes = c.qbytes - #m.payload
  return m
end

-- A packet nobody waits for: a PUBLISH is acknowledged as its QoS asks and
-- returned as a message (nil: a QoS 2 resend, delivered already); a PUBREL
-- completed; a PINGRESP dropped; anything else is a protocol error.
local function incoming(c, p, what)
  if p.type == PUBLISH then
    local m = { topic = p.topic, payload = p.payload, qos = p.qos, retain = p.retain, dup = p.dup, id = p.id }
    if p.qos == 1 then
      c.sock:send(enc.ack(PUBACK, p.id))
    elseif p.qos == 2 then
      c.sock:send(enc.ack(PUBREC, p.id))
      if c.released[p.id] == false then return nil end  -- once until its PUBREL
      c.released[p.id] = false
    end
    return m
  end
  if p.type == PUBREL then
    c.released[p.id] = nil
    c.sock:send(enc.ack(PUBCOMP, p.id))
    return nil
  end
  if p.type == PINGRESP then return nil end
  local id = p.id and (" " .. p.id) or ""
  fail_read(c, "protocol", string.format("%s%s while waiting for %s", type_name(p.type), id, what), what)
end

-- Reads until the packet of type t (and id, when given) comes, within the
-- connection's timeout; messages on the way wait for receive.
local function await(c, t, id, what)
  local deadline = now() + c.sock.timeout
  while true do
    local left = math.max(0, deadline - now())
    local ok, p, msg = read_packet(c.sock, left)
    if not ok then fail_read(c, p, msg, what) end
    if p.type == t and (id == nil or p.id == id) then return p end
    local m = incoming(c, p, what)
    if m then queue_push(c, m) end
  end
end

local function new_id(c)
  local id = c.next_id
  c.next_id = id % 65535 + 1
  return id
end

-- A script's mistake: raised at its line (level 3: the check's caller's caller).
local function bad(fmt, ...)
  error(string.format(fmt, ...), 3)
end

function Client:publish(topic, payload, opts)
  opts = opts or {}
  local qos, why = qos_of(opts.qos, "c:publish")
  if not qos then bad("%s", why) end
  if math.type(payload) then payload = tostring(payload) end
  local id = qos > 0 and new_id(self) or nil
  local pkt, why2 = enc.publish(topic, payload, qos, opts.retain, false, id)
  if not pkt then bad("c:publish: %s", why2) end
  self.step:time(function()
    self.sock:send(pkt)
    if qos == 1 then
      await(self, PUBACK, id, "PUBACK")
    elseif qos == 2 then
      await(self, PUBREC, id, "PUBREC")
      self.sock:send(enc.ack(PUBREL, id))
      await(self, PUBCOMP, id, "PUBCOMP")
    end
  end)
end

local function filters_of(topics, what)
  if type(topics) == "string" then return { topics } end
  if type(topics) ~= "table" or #topics == 0 then
    error(what .. ": a topic filter or a list of them", 4)  -- the script's line, past subscribe
  end
  return topics
end

function Client:subscribe(topics, opts)
  opts = opts or {}
  local list = filters_of(topics, "c:subscribe")
  local qos, why = qos_of(opts.qos, "c:subscribe")
  if not qos then bad("%s", why) end
  local id = new_id(self)
  local pkt, why2 = enc.subscribe(id, list, qos)
  if not pkt then bad("c:subscribe: %s", why2) end
  local granted = self.step:time(function()
    self.sock:send(pkt)
    local p = await(self, SUBACK, id, "SUBACK")
    if #p.codes ~= #list then
      fail_read(self, "protocol", string.format("SUBACK of %d codes for %d filters", #p.codes, #list), "SUBACK")
    end
    for i, code in ipairs(p.codes) do
      -- the broker's answer to what the script asked: a functional error
      if code == 0x80 then error(string.format("MQTT: subscription to %q refused (SUBACK 0x80)", list[i]), 0) end
    end
    return p.codes
  end)
  if type(topics) == "string" then return granted[1] end
  return granted
end

function Client:unsubscribe(topics)
  local list = filters_of(topics, "c:unsubscribe")
  local id = new_id(self)
  local pkt, why = enc.unsubscribe(id, list)
  if not pkt then bad("c:unsubscribe: %s", why) end
  self.step:time(function()
    self.sock:send(pkt)
    await(self, UNSUBACK, id, "UNSUBACK")
  end)
end

-- The next message: topic, payload, its table; or nil, "timeout" or nil,
-- "closed". Not a sample: time it with step:time.
function Client:receive(timeout)
  local m = queue_pop(self)
  if m then return m.topic, m.payload, m end
  local wait = self.sock.timeout
  if timeout ~= nil then
    wait = seconds(timeout)
    if not wait then bad("c:receive: timeout %s is not a duration", tostring(timeout)) end
  end
  local deadline = now() + wait
  while true do
    local ok, p, msg = read_packet(self.sock, math.max(0, deadline - now()))
    if not ok then
      if p == "idle" then return nil, "timeout" end
      if p == "closed" then return nil, "closed" end
      fail_read(self, p, msg, "a message")
    end
    m = incoming(self, p, "a message")
    if m then return m.topic, m.payload, m end
  end
end

-- Ends the session: QoS 2 messages received wait for their PUBREL (within
-- the connection's timeout), answered, so that the broker's exchange ends;
-- what else came is read and dropped (a socket closed with unread bytes
-- sends a reset, which may lose the last bytes sent); then DISCONNECT.
function Client:close()
  local sock = self.sock
  local deadline = now() + sock.timeout
  for _ = 1, QUEUE_MAX do
    if sock.closed then break end
    local left = next(self.released) ~= nil and math.max(0, deadline - now()) or 0
    local ok, p = read_packet(sock, left)
    if not ok then break end
    if p.type == PUBREL then
      self.released[p.id] = nil
      sock:send(enc.ack(PUBCOMP, p.id))
    elseif p.type == PUBLISH and p.qos > 0 then
      -- acknowledged, as the broker expects, though no receive will take it
      sock:send(enc.ack(p.qos == 1 and PUBACK or PUBREC, p.id))
      if p.qos == 2 then self.released[p.id] = false end
    end
  end
  if not sock.closed then sock:send(enc.disconnect) end
  sock:close()
end

---------------------------------------------------------------------------
-- Connecting.

local function unescape(s)
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

local function redact(url)
  return (url:gsub("^(%a+://).*@", "%1***@"))
end

-- mqtt://[user[:password]@]host[:port] (mqtts:// for TLS) -> a table, or
-- nil and why. The last "@" ends the credentials.
local function parse_url(url)
  if type(url) ~= "string" then return nil, "not a string" end
  local scheme, rest = url:match("^(%a+)://(.*)$")
  if scheme ~= "mqtt" and scheme ~= "mqtts" then return nil, "not mqtt:// or mqtts://" end
  local u = { tls = scheme == "mqtts", port = scheme == "mqtts" and 8883 or 1883 }
  local info, hostpart = rest:match("^(.*)@(.*)$")
  if info then
    local user, pass = info:match("^([^:]*):(.*)$")
    if user then
      u.username, u.password = unescape(user), unescape(pass)
    else
      u.username = unescape(info)
    end
    rest = hostpart
  end
  local authority, path = rest:match("^([^/]*)(.*)$")
  if path ~= "" and path ~= "/" then return nil, "a path after the host" end
  local host, port = authority:match("^%[([^%]]*)%]:?(.*)$")  -- [IPv6]
  if not host then host, port = authority:match("^([^:]*):?(.*)$") end
  host = unescape(host)
  if host == "" then return nil, "no host" end
  if port ~= "" then
    u.port = port:find("^%d+$") and math.tointeger(tonumber(port))
    if not u.port or u.port < 1 or u.port > 65535 then return nil, "bad port" end
  end
  u.host = host
  return u
end
M._parse_url = parse_url

local REFUSED = {
  "unacceptable protocol version", "identifier rejected", "server unavailable",
  "bad user name or password", "not authorized",
}

local OWN = { client_id = true, username = true, password = true, keepalive = true,
              clean = true, will = true }

local function client_id()
  -- 23 bytes of 0-9a-zA-Z at most: what every server must take (3.1.3.1);
  -- from the system's random source, as math.random may repeat in workers
  return "quern" .. random_bytes(8, "hex")
end

function M.connect(step, url, opts)
  local u, why = parse_url(url)
  if not u then error(string.format("mqtt.connect: bad URL %q: %s", redact(tostring(url)), why), 2) end
  opts = opts or {}
  local keepalive = opts.keepalive or 60
  if math.type(keepalive) ~= "integer" or keepalive < 0 or keepalive > 65535 then
    error("mqtt.connect: keepalive is a whole number of seconds, 0 to 65535", 2)
  end
  local clean = opts.clean ~= false
  local tcp_opts = {}
  for k, v in pairs(opts) do
    if not OWN[k] then tcp_opts[k] = v end
  end
  if tcp_opts.tls == nil and u.tls then tcp_opts.tls = true end
  local pkt, why2 = enc.connect({
    client_id = opts.client_id or client_id(), clean = clean, keepalive = keepalive,
    username = opts.username or u.username, password = opts.password or u.password,
    will = opts.will,
  })
  if not pkt then error("mqtt.connect: " .. why2, 2) end
  local c = setmetatable({ step = step, next_id = 1, keepalive = keepalive, released = {},
                           queue = {}, qhead = 1, qtail = 0, qn = 0, qbytes = 0 }, Client)
  step:time(function()
    c.sock = step:tcp(u.host, u.port, tcp_opts)
    c.sock:send(pkt)
    local ok, p, msg = read_packet(c.sock, c.sock.timeout)
    if not ok then fail_read(c, p, msg, "CONNACK") end
    if p.type ~= CONNACK then fail_read(c, "protocol", type_name(p.type) .. " before CONNACK", "CONNACK") end
    if p.code ~= 0 then
      c.sock:close()  -- the server closes it too
      error(string.format("MQTT: connection refused: %s (CONNACK %d)",
                          REFUSED[p.code] or "an unknown code", p.code), 0)
    end
    c.session_present = p.session_present
  end)
  -- the keepalive is a promise to send within it: the worker's loop keeps it
  if keepalive > 0 then c.sock:heartbeat(keepalive, M.PINGREQ) end
  return c
end

return M

-- The MQTT 3.1.1 encoders and parser of quern.mqtt (worker/lua/mods/mqtt.lua),
-- in plain Lua over a fake socket:
--   lua5.4 tests/unit/data/mqtt_parser_test.lua worker/lua/mods/mqtt.lua
-- Prints "ok N - what" per check, "not ok N - what" on a failure, and exits
-- 1 if any failed.
local path = assert(arg[1], "usage: mqtt_parser_test.lua path/to/mqtt.lua")
-- the module asks quern for its clock and random bytes only
package.preload.quern = function() return { now = os.clock, crypto = { random_bytes = function() end } } end
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

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

-- A reader over a string, answering as step:tcp's receive does: exactly n
-- bytes, or nil, "closed" at the end (nil, "timeout" when made with
-- timeout = true). A wait given is recorded.
local function reader(s, timeout)
  local r = { pos = 1, calls = 0, waits = {} }
  local gone = timeout and "timeout" or "closed"
  function r.receive(self, what, wait)
    self.calls = self.calls + 1
    self.waits[#self.waits + 1] = wait or false
    assert(math.type(what) == "integer" and what > 0, "receive: bad argument")
    assert(what <= 1 << 20, "receive past 1 MiB: the socket would raise")
    if self.pos + what - 1 > #s then return nil, gone end
    local piece = s:sub(self.pos, self.pos + what - 1)
    self.pos = self.pos + what
    return piece
  end
  return r
end

local function read(s, timeout)
  local r = reader(s, timeout)
  local ok, p, kind, msg = pcall(M._read_packet, r, 5)
  if not ok then error("the reader raised on " .. hex(s) .. ": " .. tostring(p)) end
  return p, kind, msg, r
end

-- --- the remaining length --------------------------------------------------
local lengths = {
  { 0, "00" }, { 127, "7f" }, { 128, "8001" }, { 16383, "ff7f" }, { 16384, "808001" },
  { 2097151, "ffff7f" }, { 2097152, "80808001" }, { 268435455, "ffffff7f" },
}
for _, c in ipairs(lengths) do
  check("varint " .. c[1] .. " is " .. c[2], hex(M._varint(c[1])) == c[2], hex(M._varint(c[1]) or ""))
  local v, nxt = M._unvarint(M._varint(c[1]) .. "rest", 1)
  check("varint " .. c[1] .. " reads back", v == c[1] and nxt == #c[2] / 2 + 1)
end
check("varint past 268435455 refused", M._varint(268435456) == nil)
check("varint of -1 refused", M._varint(-1) == nil)
check("varint of a float refused", M._varint(1.5) == nil)
local v, why = M._unvarint("\x80\x80", 1)
check("varint cut short", v == nil and why == "short")
v, why = M._unvarint("\x80\x80\x80\x80\x01", 1)
check("varint of five bytes refused", v == nil and why == "bad")
v = M._unvarint("xx\x05", 3)
check("varint read from a position", v == 5)

-- --- strings ---------------------------------------------------------------
check("string: two bytes of length", M._string("MQTT") == "\0\4MQTT")
check("string: empty", M._string("") == "\0\0")
check("string: UTF-8 kept", M._string("caf\xc3\xa9") == "\0\5caf\xc3\xa9")
check("string: not UTF-8 refused", M._string("\xff") == nil)
check("string: a surrogate refused", M._string("\xed\xa0\x80") == nil)
check("string: U+0000 refused", M._string("a\0b") == nil)
check("string: 65535 bytes taken", #M._string(string.rep("a", 65535)) == 65537)
check("string: 65536 bytes refused", M._string(string.rep("a", 65536)) == nil)
check("string: a number refused", M._string(5) == nil)

-- --- encoding ----------------------------------------------------------------
local enc = M._encode
local p = enc.connect({ client_id = "c1", clean = true, keepalive = 60 })
check("CONNECT: clean, no credentials", hex(p) == "100e00044d5154540402003c00026331", hex(p))
p = enc.connect({ client_id = "c1", clean = false, keepalive = 1, username = "u", password = "pw" })
check("CONNECT: username and password flags, keepalive 1",
  hex(p) == "10150004" .. hex("MQTT") .. "04c0000100026331000175" .. "00027077", hex(p))
p = enc.connect({ client_id = "c", clean = true, keepalive = 0,
                  will = { topic = "w/t", payload = "bye", qos = 1, retain = true } })
check("CONNECT: a will of QoS 1, retained", p:byte(10) == 0x02 | 0x04 | 0x08 | 0x20, hex(p))
check("CONNECT: the will's topic and payload follow the id", p:find("\0\3w/t\0\3bye", 1, true) ~= nil)
local e
p, e = enc.connect({ client_id = "c", keepalive = 0, password = "x" })
check("CONNECT: a password without a username refused", p == nil and e:find("username"), e)
p, e = enc.connect({ client_id = "a\0", keepalive = 0 })
check("CONNECT: a client id with U+0000 refused", p == nil and e:find("client_id"), e)

p = enc.publish("a/b", "hi", 0, false, false, nil)
check("PUBLISH QoS 0: no packet id", hex(p) == "3007" .. "0003612f62" .. "6869", hex(p))
p = enc.publish("a/b", "hi", 1, true, false, 10)
check("PUBLISH QoS 1 retained: flags 0011, id 10", hex(p) == "3309" .. "0003612f62000a6869", hex(p))
p = enc.publish("a/b", "", 2, false, true, 65535)
check("PUBLISH QoS 2 dup: flags 1100, empty payload", hex(p) == "3c07" .. "0003612f62ffff", hex(p))
p, e = enc.publish("a/+", "x", 0)
check("PUBLISH to a wildcard refused", p == nil and e:find("wildcard"), e)
p, e = enc.publish("", "x", 0)
check("PUBLISH to an empty topic refused", p == nil, e)
p = enc.publish("t", string.rep("x", 200), 0, false, false)
check("PUBLISH of 203 bytes: a two-byte length", hex(p:sub(1, 3)) == "30cb01", hex(p:sub(1, 3)))

p = enc.subscribe(1, { "a/#", "+/b" }, 2)
check("SUBSCRIBE: flags 0010, two filters", hex(p) == "820e0001" .. "0003612f2302" .. "00032b2f6202", hex(p))
for _, bad in ipairs({ "a#", "a/#/b", "a/b+", "#/a", "" }) do
  p = enc.subscribe(1, { bad }, 0)
  check("SUBSCRIBE: filter " .. string.format("%q", bad) .. " refused", p == nil)
end
for _, good in ipairs({ "#", "+", "a/+/c", "+/+", "/", "a//b" }) do
  p = enc.subscribe(1, { good }, 0)
  check("SUBSCRIBE: filter " .. string.format("%q", good) .. " taken", p ~= nil)
end
p = enc.unsubscribe(7, { "a/#" })
check("UNSUBSCRIBE: flags 0010", hex(p) == "a2070007" .. "0003612f23", hex(p))
check("PUBACK", hex(enc.ack(4, 258)) == "40020102")
check("PUBREC", hex(enc.ack(5, 1)) == "50020001")
check("PUBREL: flags 0010", hex(enc.ack(6, 1)) == "62020001")
check("PUBCOMP", hex(enc.ack(7, 1)) == "70020001")
check("DISCONNECT", hex(enc.disconnect) == "e000")
check("PINGREQ", hex(M.PINGREQ) == "c000")

-- --- parsing -----------------------------------------------------------------
local pk, kind, msg, r, _
pk, _, _, r = read("\x20\x02\x00\x00")
check("CONNACK accepted", pk and pk.type == 2 and pk.code == 0 and not pk.session_present)
check("the first read waits what is given, the rest the socket's", r.waits[1] == 5)
pk = read("\x20\x02\x01\x05")
check("CONNACK refused 5, session present", pk and pk.code == 5 and pk.session_present)
pk, kind = read("\x20\x02\x02\x00")
check("CONNACK flags 2: protocol error", pk == nil and kind == "protocol")
pk, kind = read("\x20\x03\x00\x00\x00")
check("CONNACK of 3 bytes: protocol error", pk == nil and kind == "protocol")

pk = read("\x30\x07\x00\x03a/bhi")
check("PUBLISH QoS 0", pk and pk.type == 3 and pk.topic == "a/b" and pk.payload == "hi" and pk.qos == 0
  and pk.id == nil and not pk.retain and not pk.dup)
pk = read("\x3b\x09\x00\x03a/b\x00\x0ahi")
check("PUBLISH QoS 1, dup, retained, id 10", pk and pk.qos == 1 and pk.id == 10 and pk.retain and pk.dup
  and pk.payload == "hi")
pk = read("\x34\x07\x00\x03a/b\x01\x00")
check("PUBLISH QoS 2, empty payload", pk and pk.qos == 2 and pk.id == 256 and pk.payload == "")
pk, kind, msg = read("\x36\x07\x00\x03a/b\x00\x01")
check("PUBLISH QoS 3: protocol error", pk == nil and kind == "protocol" and msg:find("QoS 3"), msg)
pk, kind = read("\x32\x07\x00\x03a/b\x00\x00")
check("PUBLISH with packet id 0: protocol error", pk == nil and kind == "protocol")
pk, kind = read("\x30\x04\x00\x09ab")
check("PUBLISH whose topic runs past it: protocol error", pk == nil and kind == "protocol")
pk, kind = read("\x30\x05\x00\x03a/+")
check("PUBLISH to a wildcard: protocol error", pk == nil and kind == "protocol")
pk, kind = read("\x30\x03\x00\x01\xff")
check("PUBLISH to a topic not UTF-8: protocol error", pk == nil and kind == "protocol")
local big = string.rep("x", 700000)
local body = "\0\1t" .. big
pk, _, msg, r = read("\x30" .. M._varint(#body) .. body)
check("PUBLISH of 700 kB read in pieces under 1 MiB", pk and pk.payload == big, tostring(msg))
check("... in more than one read", r.calls >= 4)

pk = read("\x40\x02\x00\x01")
check("PUBACK 1", pk and pk.type == 4 and pk.id == 1)
pk = read("\x50\x02\xff\xff")
check("PUBREC 65535", pk and pk.type == 5 and pk.id == 65535)
pk = read("\x62\x02\x00\x02")
check("PUBREL 2", pk and pk.type == 6 and pk.id == 2)
pk, kind = read("\x60\x02\x00\x02")
check("PUBREL with flags 0: protocol error", pk == nil and kind == "protocol")
pk = read("\x70\x02\x00\x03")
check("PUBCOMP 3", pk and pk.type == 7 and pk.id == 3)
pk, kind = read("\x40\x03\x00\x01\x00")
check("PUBACK of 3 bytes: protocol error", pk == nil and kind == "protocol")
pk = read("\x90\x05\x00\x09\x00\x02\x80")
check("SUBACK: three codes", pk and pk.type == 9 and pk.id == 9 and #pk.codes == 3 and pk.codes[3] == 0x80)
pk, kind = read("\x90\x03\x00\x09\x03")
check("SUBACK code 3: protocol error", pk == nil and kind == "protocol")
pk = read("\xb0\x02\x00\x04")
check("UNSUBACK 4", pk and pk.type == 11 and pk.id == 4)
pk = read("\xd0\x00")
check("PINGRESP", pk and pk.type == 13)
pk, kind = read("\xd0\x01\x00")
check("PINGRESP with a body: protocol error", pk == nil and kind == "protocol")
for _, t in ipairs({ 0x10, 0x80, 0xa2, 0xc0, 0xe0, 0x00, 0xf0 }) do
  pk, kind = read(string.char(t, 0))
  check(string.format("type byte 0x%02x from a server: protocol error", t), pk == nil and kind == "protocol")
end
pk, kind = read("\x30\xff\xff\xff\xff\x01")
check("a length of five bytes: protocol error", pk == nil and kind == "protocol")
pk, kind, msg = read("\x30\xff\xff\xff\x7f")
check("a packet past 16 MiB: protocol error before any read of it",
  pk == nil and kind == "protocol" and msg:find("at most"), msg)

pk, kind = read("")
check("the connection closed before a packet: closed", pk == nil and kind == "closed")
pk, kind = read("", true)
check("a timeout before the first byte: idle", pk == nil and kind == "idle")
pk, kind = read("\x40", true)
check("one byte of two in time: idle (the socket takes none)", pk == nil and kind == "idle")
pk, kind = read("\x30\x05\x00\x03a", true)
check("a packet cut by the timeout: timeout", pk == nil and kind == "timeout")
pk, kind = read("\x30\x05\x00\x03a")
check("a packet cut by the close: closed", pk == nil and kind == "closed")
pk, kind = read("\x30\x80", true)
check("a length cut: timeout", pk == nil and kind == "timeout")

-- --- URLs and durations ------------------------------------------------------
local u = M._parse_url("mqtt://broker.test")
check("URL: port 1883", u and u.host == "broker.test" and u.port == 1883 and not u.tls)
u = M._parse_url("mqtts://u%40x:p%3Aw@[::1]:8884/")
check("URL: TLS, credentials decoded, IPv6, a port",
  u and u.tls and u.host == "::1" and u.port == 8884 and u.username == "u@x" and u.password == "p:w")
u = M._parse_url("mqtts://h")
check("URL: mqtts on 8883", u and u.port == 8883)
u = M._parse_url("mqtt://user@h:1")
check("URL: a username alone", u and u.username == "user" and u.password == nil)
for _, bad in ipairs({ "http://h", "mqtt://", "mqtt://h:0", "mqtt://h:65536", "mqtt://h:x", "mqtt://h/topic" }) do
  check("URL " .. bad .. " refused", M._parse_url(bad) == nil)
end
check("duration 2", M._seconds(2) == 2)
check("duration 0.25", M._seconds(0.25) == 0.25)
check("duration \"1.5s\"", M._seconds("1.5s") == 1.5)
check("duration \"250ms\"", math.abs(M._seconds("250ms") - 0.25) < 1e-12)
check("duration \"1m30s\"", M._seconds("1m30s") == 90)
check("duration \"90\"", M._seconds("90") == 90)
check("duration \"500us\"", math.abs(M._seconds("500us") - 0.0005) < 1e-12)
for _, bad in ipairs({ "1m30", "-1", "2x", "", "s", {}, -1 }) do
  check("duration " .. tostring(bad) .. " refused", M._seconds(bad) == nil)
end

-- --- any bytes: the reader answers, never raises -----------------------------
math.randomseed(7)
local raised = 0
for _ = 1, 3000 do
  local len = math.random(0, 12)
  local t = {}
  for i = 1, len do t[i] = string.char(math.random(0, 255)) end
  local ok = pcall(M._read_packet, reader(table.concat(t)), 1)
  if not ok then raised = raised + 1 end
end
check("3000 random inputs: none raised", raised == 0, raised .. " raised")

print(string.format("# %d checks, %d failed", n, failed))
os.exit(failed == 0 and 0 or 1)

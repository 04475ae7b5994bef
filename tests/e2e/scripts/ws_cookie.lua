-- A WebSocket shares the VU's cookie jar with its HTTP steps, against
-- tests/tools/ws_server.py and quern-target: a cookie an HTTP answer set
-- goes on the upgrade request, and the cookie the 101 sets goes on the
-- next HTTP request.
local quern = require "quern"
local ws_url = quern.property("ws_url")
local base = quern.property("base_url")

local sc = quern.scenario("WSC")
local login = sc:step(1, "set a cookie over HTTP")
local open  = sc:step(2, "upgrade with it")
local after = sc:step(3, "HTTP after the 101")

function sc.run(vu)
  login:get(base .. "/set-cookie?A=one-" .. vu.id):expect(200)
  -- a VU that waits gives its transfer handle back, and its jar is then
  -- text (worker/wire/cookiejar.h): VU 2 goes through that path, VU 1 keeps its handle
  if vu.id % 2 == 0 then quern.sleep("10ms") end
  local c = open:ws(ws_url .. "/cookie")
  c:send("x")
  assert(c:receive("2s") == "x", "echo")
  c:close()
  if vu.id % 2 == 0 then quern.sleep("10ms") end
  local r = after:get(base .. "/echo"):expect(200)
  local got = r:json().cookies
  assert(got.WSC == "from-101", "the 101's cookie on the next request: " .. tostring(got.WSC))
  assert(got.A == "one-" .. vu.id, "the HTTP cookie still there: " .. tostring(got.A))
end

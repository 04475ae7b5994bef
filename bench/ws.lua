-- The WebSocket row: each VU opens one connection to the echo server and
-- makes ROUND_TRIPS round trips on it (send a message, receive its echo),
-- each timed by step:time, then closes it.
--
--   bin/quern run bench/ws.lua --vus 10 --runs 1 -q -p ws_url=ws://127.0.0.1:PORT/echo
local quern = require "quern"

local url = quern.property("ws_url", "ws://127.0.0.1:8765/echo")
local n = tonumber(quern.property("round_trips", "2000"))
local sc = quern.scenario("BENCH-WS")
local open = sc:step(1, "open")
local rtt = sc:step(2, "round trip")
local msg = string.rep("x", 32)

function sc.run(vu)
  local c = open:ws(url)
  for _ = 1, n do
    rtt:time(function()
      c:send(msg)
      assert(c:receive("5s") == msg, "echo")
    end)
  end
  c:close()
end

-- A chat client over WebSocket: connect, join, time a few round trips (the
-- server echoes), read what the server pushes, leave.
--
--   quern run scripts/websocket.lua --vus 50 --duration 30s -p ws_url=ws://127.0.0.1:PORT
--
-- tests/tools/ws_server.py is such a server (/echo echoes, /push?n=N pushes N
-- messages first): python3 tests/tools/ws_server.py /tmp/port, then
-- ws_url=ws://127.0.0.1:$(cat /tmp/port).
local quern = require "quern"

local url = quern.property("ws_url", "ws://127.0.0.1:8765")

local sc = quern.scenario("WEBSOCKET-CHAT", {
  pacing = quern.property("pacing", "500ms"),
  think  = { min = "10ms", max = "50ms" },
})

local connect = sc:step(1, "Connect")     -- the handshake is the sample
local rtt     = sc:step(2, "Round trip")  -- a send and its answer, one sample each
local news    = sc:step(3, "Pushed news")

function sc.run(vu)
  local c = connect:ws(url .. "/echo", { protocols = { "chat" } })
  c:send('{"join":"lobby","user":' .. vu.id .. '}')
  assert(c:receive("2s"), "no answer to the join")
  for i = 1, 3 do
    rtt:time(function()
      local line = "message " .. i .. " from VU " .. vu.id
      c:send(line)
      local got, kind = c:receive("2s")
      assert(got == line and kind == "text", "echo " .. i .. ": " .. tostring(got))
    end)
  end
  c:close(1000, "bye")

  -- the server speaks first: its messages wait in the queue until read
  local feed = news:ws(url .. "/push?n=2")
  for i = 1, 2 do
    assert(feed:receive("2s") == "push " .. i, "news " .. i)
  end
  -- not closed: the end of the run closes it (1000)
end

-- A live feed over server-sent events: subscribe, read the events as they
-- come, drop the connection half-way, then resume where it stopped with
-- Last-Event-ID, as a browser's EventSource does after a network cut.
--
--   quern run scripts/sse.lua --vus 50 --duration 30s -p sse_url=http://127.0.0.1:PORT
--
-- tests/tools/sse_server.py is such a source (/stream?n=N sends N events with
-- ids 1..N, or from Last-Event-ID + 1): python3 tests/tools/sse_server.py
-- /tmp/port, then sse_url=http://127.0.0.1:$(cat /tmp/port).
local quern = require "quern"

local url = quern.property("sse_url", "http://127.0.0.1:8766")

local sc = quern.scenario("SSE-FEED", {
  pacing = quern.property("pacing", "500ms"),
  think  = { min = "10ms", max = "50ms" },
})

local subscribe = sc:step(1, "Subscribe") -- the answer's headers are the sample
local resume    = sc:step(2, "Resume")

function sc.run(vu)
  local feed = subscribe:sse(url .. "/stream?n=3", { headers = { ["X-User"] = "user" .. vu.id } })
  for i = 1, 3 do
    local ev = assert(feed:next("2s"), "no event " .. i)
    assert(ev.id == tostring(i), "event " .. i .. " has id " .. ev.id)
  end
  local seen = feed.last_id -- "3": the id of the last event read
  feed:close()               -- the end of the run would close it too

  -- the server starts again after the last id seen
  local again = resume:sse(url .. "/stream?n=3", { last_event_id = seen })
  local n = 0
  repeat
    local ev, why = again:next("2s")
    if ev then
      n = n + 1
      assert(tonumber(ev.id) == tonumber(seen) + n, "resumed at " .. ev.id)
    else
      assert(why == "closed", "the feed: " .. why) -- the server ended it
    end
  until ev == nil
  assert(n == 3, "resumed " .. n .. " events")
end

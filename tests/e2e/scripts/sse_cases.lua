-- Server-sent events steps against tests/tools/sse_server.py: a whole
-- stream (ids, types, multi-line data, comments, retry), a stream cut in
-- the middle of an event, a resume with last_event_id, a timeout, a 404, a
-- wrong content type, no server and the queue's bound. Every surprise is an assert: a
-- functional error that tests/e2e/sse.sh counts.
local quern = require "quern"
local http = require "quern.http"
local url = quern.property("sse_url")
local dead_url = quern.property("dead_url")

local sc = quern.scenario("SSE")
local whole   = sc:step(1, "whole stream")
local cut     = sc:step(2, "cut stream")
local resume  = sc:step(3, "resume")
local hold    = sc:step(4, "timeout")
local missing = sc:step(5, "404")
local wrong   = sc:step(6, "wrong type")
local flood   = sc:step(7, "queue bound")
local badopt  = sc:step(8, "unknown option")
local waited  = sc:step(9, "timeout's wait")
local refused = sc:step(10, "no server")

-- Reads every event until the end; checks each against what the server
-- sends (sse_server.py) from id first on.
local function read_all(s, first, what)
  local i = first
  while true do
    local ev, why = s:next("5s")
    if ev == nil then
      assert(why == "closed", what .. ": " .. tostring(why))
      return i - first
    end
    local data = "event " .. i
    if i % 2 == 0 then data = data .. "\nsecond line" end
    assert(ev.id == tostring(i), what .. ": id " .. tostring(ev.id) .. ", want " .. i)
    assert(ev.data == data, what .. ": data " .. ev.data)
    assert(ev.event == (i % 2 == 0 and "tick" or "message"), what .. ": event " .. ev.event)
    assert(ev.retry == 1500, what .. ": retry " .. tostring(ev.retry))
    assert(s.last_id == tostring(i), what .. ": last_id " .. s.last_id)
    i = i + 1
  end
end

function sc.run(vu)
  http.get(url .. "/login") -- its cookie goes with the streams
  local s = whole:sse(url .. "/stream?n=4&tag=whole")
  assert(s.status == 200, "status " .. s.status)
  assert(read_all(s, 1, "whole") == 4, "whole: not 4 events")
  assert(s.retry == 1500, "retry " .. tostring(s.retry))
  local ev, why = s:next()
  assert(ev == nil and why == "closed", "after the end: " .. tostring(why))

  -- half an event, then the server closes: not dispatched
  local c = cut:sse(url .. "/stream?n=3&cut=1&tag=cut")
  assert(read_all(c, 1, "cut") == 3, "cut: not 3 events")
  assert(c.last_id == "3", "cut: last_id " .. c.last_id)

  -- two events read, the stream closed by the script, then resumed
  local r = resume:sse(url .. "/stream?n=5&tag=resume")
  for i = 1, 2 do
    assert(r:next("5s").id == tostring(i), "resume: event " .. i)
  end
  quern.sleep("300ms") -- the other three come in, wait in the queue, and are counted
  assert(r.last_id == "2", "resume: last_id " .. r.last_id .. " (the last read, not queued)")
  r:close()
  local r2 = resume:sse(url .. "/stream?n=3&tag=resumed", { last_event_id = r.last_id })
  assert(read_all(r2, 3, "resumed") == 3, "resumed: not 3 events")

  -- one event, then only comments for 2 s: next times out, comments ignored
  local h = hold:sse(url .. "/stream?n=1&hold=2&tag=hold", { headers = { ["X-Test"] = "hold" } })
  assert(h:next("5s").id == "1", "hold: event 1")
  local none, why2
  waited:time(function() none, why2 = h:next("300ms") end) -- sse.sh reads its time
  assert(none == nil and why2 == "timeout", "hold: " .. tostring(why2))
  h:close()
  local none2, why3 = h:next("1s")
  assert(none2 == nil and why3 == "closed", "hold after close: " .. tostring(why3))

  local ok, err = pcall(function() missing:sse(url .. "/nothing") end)
  assert(not ok and tostring(err):find("HTTP status 404"), "404: " .. tostring(err))
  local ok2, err2 = pcall(function() wrong:sse(url .. "/text") end)
  assert(not ok2 and tostring(err2):find("not text/event%-stream"), "type: " .. tostring(err2))

  -- 1100 events while the script sleeps: the stream is closed past 1024
  local f = flood:sse(url .. "/stream?n=1100&tag=flood")
  quern.sleep("1s")
  local got = 0
  while f:next("2s") do got = got + 1 end
  print("flood: received " .. got .. ", then closed")

  local ok3, err3 = pcall(function() refused:sse(dead_url .. "/stream") end)
  assert(not ok3 and tostring(err3):find("SSE: "), "no server: " .. tostring(err3))

  badopt:sse(url .. "/stream?n=1", { body = "x" }) -- a script error: the run ends here
end

-- VUs wait in a 30 s next on a stream that sends only comments when the run
-- ends (--duration): the stop must not wait for it, and the streams close.
local quern = require "quern"
local url = quern.property("sse_url")
local sc = quern.scenario("SSESTOP")
local held = sc:step(1, "held")

function sc.run(vu)
  local s = held:sse(url .. "/stream?n=1&hold=10&tag=stop")
  assert(s:next("5s"), "no first event")
  s:next("30s")
end

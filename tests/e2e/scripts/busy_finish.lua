-- Many VUs sleep through the run; at the stop each one's finish works
-- burst_ms in Lua, then sends one request. The worker's stop is long (every
-- VU's burst, one after another, on one loop) but makes progress all along.
local quern = require "quern"
local base = quern.property("base_url")
local burst = tonumber(quern.property("burst_ms", "20")) / 1000
local sc = quern.scenario("FINISH")
local fin = sc:step(1, "finish")

function sc.run(vu)
  quern.sleep("60s")
end

function sc.finish(vu)
  local t = os.clock()
  while os.clock() - t < burst do end
  fin:get(base .. "/fin"):expect(404)
end

-- For tests/e2e/prometheus.sh: latencies spread from 1 to 40 ms, a
-- technical error (status 500) every 5th run, a functional one every 7th.
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("PROM", { pacing = quern.property("pacing", "100ms") })
local page = sc:step(1, "Page")
local flaky = sc:step(2, "Flaky")
local n = 0

function sc.run(vu)
  page:get(base .. "/slow?ms=" .. math.random(1, 40))
  n = n + 1
  if n % 5 == 0 then
    flaky:get(base .. "/status/500")
  elseif n % 7 == 0 then
    pcall(function() flaky:get(base .. "/status/200"):contains("not in the body") end)
  else
    flaky:get(base .. "/status/200"):expect(200)
  end
end

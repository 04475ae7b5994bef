-- For tests/e2e/monitor.sh: a light steady load on the demo target, while
-- the console scrapes a node exporter.
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("MON", { pacing = "100ms" })
local page = sc:step(1, "Page")

function sc.run(vu)
  page:get(base .. "/slow?ms=5"):expect(200)
end

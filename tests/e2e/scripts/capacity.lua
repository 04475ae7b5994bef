-- A capacity search (tests/e2e/capacity.sh): each run is one request to
-- the property path (default /hit) of an nginx limited to a known rate.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local path = quern.property("path", "/hit")
local sc = quern.scenario("CAP", { pacing = quern.property("pacing", "0s") })
local hit = sc:step(1, "Hit")

function sc.run(vu)
  hit:get(base .. path):expect(200)
end

-- Distributed fault tests: each VU only hits /vu/<id>, which the target counts
-- under its own path, so the server's count per VU can be checked against what
-- each agent reported.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("HIT", { pacing = quern.property("pacing", "200ms") })
local hit = sc:step(1, "Hit")

function sc.run(vu)
  hit:get(base .. "/vu/" .. vu.id):expect(404)
end

-- tests/e2e/soak.sh: each VU one GET a run, its runs started every second
-- (pacing), its jar kept: the server sets a new cookie on every response.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("SOAK", { cookies = "keep", pacing = "1s" })
local hit = sc:step(1, "GET /hit")
local url = base .. "/hit"

function sc.run(vu)
  hit:get(url):expect(200)
end

-- The speed row: one step, GET /small, no think time, no pacing; cookies kept
-- (the default) and statistics on (always on in quern).
--
--   bin/quern run bench/small.lua --vus 50 --duration 10s -q -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("BENCH-SMALL", { cookies = "keep" })
local small = sc:step(1, "GET /small")
local url = base .. "/small"

function sc.run(vu)
  small:get(url):expect(200)
end

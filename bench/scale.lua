-- The scale row: each VU opens one keep-alive connection and keeps it: GET
-- /small once per pacing interval (property "pacing", default 5s, the
-- start-to-start interval of a VU's runs), idle in between.
--
--   bin/quern run bench/scale.lua --vus 20000 --workers 1 --ramp-up 10s --duration 30s \
--       --db none -q -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("BENCH-SCALE", { cookies = "keep", pacing = quern.property("pacing", "5s") })
local small = sc:step(1, "GET /small")
local url = base .. "/small"

function sc.run(vu)
  small:get(url):expect(200)
end

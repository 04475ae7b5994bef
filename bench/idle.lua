-- The memory row: each VU loops GET /small then waits; the pacing property
-- (default 1s) is the start-to-start interval, so a VU is idle almost all the
-- time and holds its open keep-alive connection.
--
--   bin/quern run bench/idle.lua --vus 1000 --duration 30s -q -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local think = quern.property("think", "1s")
local sc = quern.scenario("BENCH-IDLE", { cookies = "keep" })
local small = sc:step(1, "GET /small")
local url = base .. "/small"

function sc.run(vu)
  small:get(url):expect(200)
  quern.sleep(think)
end

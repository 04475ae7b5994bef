-- The fleet row: each VU makes one GET when it starts (sc.init, header X-VU
-- carrying its number, so that nginx's access log tells which VUs began), then
-- loops GET /small and 5 s of sleep on its keep-alive connection.
--
--   bin/quern run bench/fleet.lua --vus 100000 --workers 8 --ramp-up 20s --duration 40s \
--       --source-addrs 127.0.0.2,...,127.0.0.7 --db none -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("BENCH-FLEET", { cookies = "keep" })
local first = sc:step(1, "GET /small (init)")
local small = sc:step(2, "GET /small")
local url = base .. "/small"

function sc.init(vu)
  first:get(url, { headers = { ["X-VU"] = vu.id } }):expect(200)
end

function sc.run(vu)
  small:get(url):expect(200)
  quern.sleep("5s")
end

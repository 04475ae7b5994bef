-- The idle TCP row: every VU waits (no connection), then opens one TCP
-- connection (step:tcp) and holds it idle, then closes it. The worker's
-- RSS is read once in each wait: the difference over the VUs is the memory
-- of an idle connection. addrs lists the servers, HOST:PORT,...: VU i
-- takes the ((i - 1) mod n + 1)-th.
--
--   bin/quern run bench/tcpidle.lua --vus 1000 --ramp-up 2s --runs 1 -q -p addrs=127.0.0.1:6379
local quern = require "quern"

local addrs = {}
for h, p in quern.property("addrs", "127.0.0.1:6379"):gmatch("([^,:]+):(%d+)") do
  addrs[#addrs + 1] = { host = h, port = tonumber(p) }
end
local before = quern.property("before", "5s")
local hold = quern.property("hold", "8s")
local sc = quern.scenario("BENCH-TCPIDLE")
local open = sc:step(1, "open")

function sc.run(vu)
  quern.sleep(before)
  local a = addrs[(vu.id - 1) % #addrs + 1]
  local c = open:tcp(a.host, a.port)
  quern.sleep(hold)
  c:close()
end

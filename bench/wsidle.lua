-- The idle WebSockets row: every VU waits (no connection), then opens one
-- WebSocket to the echo server and holds it idle, then closes it. The
-- worker's RSS is read once in each wait: the difference over the VUs is
-- the memory of an idle connection. ws_url may list several servers,
-- comma-separated: VU i takes the ((i - 1) mod n + 1)-th (bench/run.sh's
-- idle row spreads 20,000 connections over two, each process's descriptors
-- being bounded).
--
--   bin/quern run bench/wsidle.lua --vus 1000 --ramp-up 2s --runs 1 -q -p ws_url=ws://127.0.0.1:PORT/echo
local quern = require "quern"

local urls = {}
for u in quern.property("ws_url", "ws://127.0.0.1:8765/echo"):gmatch("[^,]+") do
  urls[#urls + 1] = u
end
local before = quern.property("before", "5s")
local hold = quern.property("hold", "8s")
local ca = quern.property("ca", "") -- wss://: the CA that verifies the server, "" none
local opts = ca ~= "" and { tls = { ca = ca } } or nil
local sc = quern.scenario("BENCH-WSIDLE")
local open = sc:step(1, "open")

function sc.run(vu)
  quern.sleep(before)
  local c = open:ws(urls[(vu.id - 1) % #urls + 1], opts)
  quern.sleep(hold)
  c:close()
end

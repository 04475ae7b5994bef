-- The idle MQTT row: every VU waits (no connection), then connects to the
-- broker (quern.mqtt, a keepalive the worker's loop keeps), subscribes to
-- a topic of its own (so the broker holds a subscription for it), and
-- holds the client idle, then closes it. The worker's RSS is read once in
-- each wait: the difference over the VUs is the memory of an idle client.
-- addrs lists the brokers, HOST:PORT,...: VU i takes the
-- ((i - 1) mod n + 1)-th.
--
--   bin/quern run bench/mqttidle.lua --vus 1000 --ramp-up 2s --runs 1 -q -p addrs=127.0.0.1:1883
local quern = require "quern"
local mqtt = require "quern.mqtt"

local urls = {}
for h, p in quern.property("addrs", "127.0.0.1:1883"):gmatch("([^,:]+):(%d+)") do
  urls[#urls + 1] = "mqtt://" .. h .. ":" .. p
end
local before = quern.property("before", "5s")
local hold = quern.property("hold", "8s")
local keepalive = math.tointeger(tonumber(quern.property("keepalive", "60")))
local sc = quern.scenario("BENCH-MQTTIDLE")
local open = sc:step(1, "open")
local sub = sc:step(2, "subscribe") -- apart: step 1 counts the connects

function sc.run(vu)
  quern.sleep(before)
  local c = mqtt.connect(open, urls[(vu.id - 1) % #urls + 1], { keepalive = keepalive })
  c.step = sub
  c:subscribe("idle/" .. vu.id)
  quern.sleep(hold)
  c:close()
end

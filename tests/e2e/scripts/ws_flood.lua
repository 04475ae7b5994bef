-- A server that pushes more than the receive queue holds while the script
-- sleeps: quern closes the connection with 1008 and counts a technical error.
local quern = require "quern"
local ws_url = quern.property("ws_url")

local sc = quern.scenario("WSF")
local flood = sc:step(1, "flood")

function sc.run(vu)
  local c = flood:ws(ws_url .. "/push?n=1100")
  quern.sleep("1s")
  local n = 0
  while c:receive("2s") do n = n + 1 end
  local _, why = c:receive("1ms")
  quern.log("flood: received " .. n .. ", then " .. why)
end

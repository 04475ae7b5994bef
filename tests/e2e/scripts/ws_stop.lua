-- VUs that wait long for a message when the run's duration ends: the stop
-- does not wait for them, and their connections close with 1000.
local quern = require "quern"
local ws_url = quern.property("ws_url")

local sc = quern.scenario("WSS")
local open = sc:step(1, "open")

function sc.run(vu)
  local c = open:ws(ws_url .. "/echo")
  c:receive("30s")
end

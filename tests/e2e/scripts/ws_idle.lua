-- Every VU holds one idle WebSocket for a while, then proves it still works.
local quern = require "quern"
local ws_url = quern.property("ws_url")
local hold = quern.property("hold", "3s")

local sc = quern.scenario("WSI")
local open = sc:step(1, "open")
local last = sc:step(2, "echo after the hold")

function sc.run(vu)
  local c = open:ws(ws_url .. "/echo")
  quern.sleep(hold)
  last:time(function()
    c:send("still here " .. vu.id)
    assert(c:receive("5s") == "still here " .. vu.id, "the connection did not hold")
  end)
end

-- A VU that holds its worker's loop: 800 ms of Lua work after each response,
-- then a 20 ms sleep. The event loop runs at least 700 ms late every cycle,
-- whatever else the machine runs: the worker cannot keep up.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("BURN")
local a = sc:step(1, "a")
function sc.run(vu)
  a:get(base .. "/static/a")
  local t = os.clock()
  while os.clock() - t < 0.8 do end
  quern.sleep("20ms")
end

-- A VU that holds its worker's loop: 600 ms of Lua work (CPU time) after
-- each response, then a 20 ms sleep. The event loop runs at least 500 ms
-- late every cycle, whatever else the machine runs: the worker cannot keep
-- up. Less than the 1 s a VU may run without yielding (wall time), with
-- room for a loaded machine that gives the worker 60 % of a core.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("BURN")
local a = sc:step(1, "a")
function sc.run(vu)
  a:get(base .. "/static/a")
  local t = os.clock()
  while os.clock() - t < 0.6 do end
  quern.sleep("20ms")
end

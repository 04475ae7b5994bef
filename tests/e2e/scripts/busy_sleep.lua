-- A VU that works 300 ms in Lua after a response, then sleeps 500 ms: the
-- sleep counts from the moment it is asked for, not from when the loop
-- last read the clock (before the work), so the requests are >= 800 ms apart.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("BUSY")
local a, b = sc:step(1, "a"), sc:step(2, "b")
function sc.run(vu)
  a:get(base .. "/static/a")
  local t = os.clock()
  while os.clock() - t < 0.3 do end
  quern.sleep("500ms")
  b:get(base .. "/static/b")
end

-- Every second run holds its worker's loop 130 ms after its request (Lua
-- work, CPU time): the arrival due in that time starts about 30 ms late,
-- quern's own delay, while the server answers in a millisecond. The loop
-- is never held long enough, nor the CPU busy enough, to saturate a second.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("OWNQUEUE")
local hit = sc:step(1, "hit")
local n = 0 -- the worker's runs: its VUs share one Lua state
function sc.run()
  hit:get(base .. "/"):expect(200)
  n = n + 1
  if n % 2 == 0 then
    local t = os.clock()
    while os.clock() - t < 0.13 do end
  end
end

-- VUs that hold the worker's loop: VU 1 spins after its request (odd runs
-- plainly, even runs inside a pcall that would swallow an ordinary error);
-- VU 2 only makes requests, and must keep being served.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("HOLD")
local hit = sc:step(1, "Hit")

function sc.run(vu)
  hit:get(base .. "/vu/" .. vu.id):expect(404)
  if vu.id == 1 and vu.run % 2 == 1 then
    while true do end
  elseif vu.id == 1 then
    while true do pcall(function() while true do end end) end
  end
end

-- VU 1 holds its worker's loop in a C call (a pattern match that backtracks
-- for hours), which no Lua hook can cut; the other VUs are in other workers.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("HOLDC", { pacing = "100ms" })
local hit = sc:step(1, "Hit")

function sc.run(vu)
  hit:get(base .. "/vu/" .. vu.id):expect(404)
  if vu.id == 1 then
    string.rep("a", 100000):find(".-.-.-.-b")
  end
end

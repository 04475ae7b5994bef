-- A run that keeps building strings (bounded here at about 1 GB a VU):
-- --worker-memory stops it long before.
local quern = require "quern"
local sc = quern.scenario("MEM")
sc:step(1, "grow")
function sc.run(vu)
  local t = {}
  for i = 1, 10000 do t[i] = string.rep("x" .. i, 20000) end
end

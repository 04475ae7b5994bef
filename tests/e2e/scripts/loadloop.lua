-- A top level that never ends (and would swallow an ordinary error).
local quern = require "quern"
local sc = quern.scenario("LOADLOOP")
function sc.run(vu) end
while true do
  pcall(function() while true do end end)
end

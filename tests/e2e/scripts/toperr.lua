local quern = require "quern"
local sc = quern.scenario("TOP")
local n = quern.property("count") + 1
function sc.run(vu) end

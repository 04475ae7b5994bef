local quern = require "quern"
local sc = quern.scenario("TOP")
local n = quern.property("count", nil, { optional = true }) + 1 -- nil + 1
function sc.run(vu) end

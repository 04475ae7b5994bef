local quern = require "quern"
local sc = quern.scenario("DUPC")
local a = sc:step(1, "first")
local b = sc:step(1, "again")
function sc.run(vu) end

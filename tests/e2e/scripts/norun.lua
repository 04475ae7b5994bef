local quern = require "quern"
local sc = quern.scenario("NORUN")
sc:step(1, "x")

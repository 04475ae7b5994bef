-- A step label that is not UTF-8 (a Latin-1 e acute).
local quern = require "quern"
local sc = quern.scenario("LATIN")
sc:step(1, "café")
function sc.run(vu) end

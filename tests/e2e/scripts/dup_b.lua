local quern = require "quern"
local sc = quern.scenario("DUP2")
sc:step(2, "fine")
-- the same id as dup_a.lua's step 1, declared through a second handle
local other = quern.scenario("DUP")

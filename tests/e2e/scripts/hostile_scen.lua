-- A scenario name that is not UTF-8.
local quern = require "quern"
local sc = quern.scenario("CAFé")
function sc.run(vu) end

local quern = require "quern"
local sc = quern.scenario("OPT", { pacing = "1s", thinktime = "2s" })
function sc.run(vu) end

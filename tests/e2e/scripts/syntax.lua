local quern = require "quern"
local sc = quern.scenario("SYN")
local s = sc:step(1, "x")
function sc.run(vu)
  s:get(quern.property("base_url") .. "/status/200"
end end

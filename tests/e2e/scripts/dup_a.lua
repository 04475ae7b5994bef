local quern = require "quern"
local sc = quern.scenario("DUP")
local a = sc:step(1, "first")
require "dup_b"
function sc.run(vu) a:get(quern.property("base_url") .. "/status/200") end

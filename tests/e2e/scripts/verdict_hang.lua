-- Every request hangs past the end of the run and its grace: nothing completes.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("VHANG")
local slow = sc:step(1, "slow")

function sc.run(vu)
  slow:get(base .. "/slow?ms=20000")
end

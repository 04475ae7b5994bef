-- Loads on the console, fails to load on an agent whose environment differs.
local quern = require "quern"
local base = quern.property("base_url")
if os.getenv("QUERN_TEST_FAIL_LOAD") then error("this agent cannot load the script") end
local sc = quern.scenario("VAGENT")
local page = sc:step(1, "page")

function sc.run(vu)
  page:get(base .. "/status/200")
end

-- os.exit from a run: a functional error of the step at that line, the VU
-- goes on to its next run.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("EXITRUN")
local page = sc:step(1, "page")
function sc.run(vu)
  page:get(base .. "/status/200")
  os.exit(0)
end

-- tests/e2e/gate.sh: one step as slow as the server is told (-p ms=N:
-- GET /slow?ms=N on the demo target), for runs of an unchanged server and
-- of one made slower.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("GATE", { pacing = "100ms" })
local page = sc:step(1, "page")
function sc.run()
  page:get(base .. "/slow?ms=" .. quern.property("ms", "20")):expect(200)
end

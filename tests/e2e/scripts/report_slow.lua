-- tests/e2e/report.sh: two steps, the second as slow as the server is told
-- (-p ms=N: GET /slow?ms=N), so that two runs make a real regression. Its
-- label holds characters HTML must escape.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("SLOWCHECK", { pacing = quern.property("pacing", "300ms") })
local steady = sc:step(1, "steady <static> & \"quoted\"")
local slow = sc:step(2, "slow")
function sc.run(vu)
  steady:get(base .. "/static/a.css"):expect(200)
  slow:get(base .. "/slow?ms=" .. quern.property("ms", "5")):expect(200)
end

-- --max-in-flight: each run is one slow request (property "ms", default 300).
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("INFLIGHT")
local slow = sc:step(1, "GET /slow")
local url = base .. "/slow?ms=" .. quern.property("ms", "300")
function sc.run(vu)
  slow:get(url):expect(200)
end

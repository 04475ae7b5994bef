local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("PACE", { pacing = quern.property("pacing", "1s") })
local s = sc:step(1, "page")
function sc.run(vu)
  s:get(base .. quern.property("path", "/static/a.css")):expect(200)
end

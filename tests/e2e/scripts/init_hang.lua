-- VUs whose login hangs (tests/e2e/delivery.sh): those past the property
-- `ready` (default: every one) wait 60 s in their init, longer than the
-- run, so they never make a first run; the others fetch a page each run.
local quern = require "quern"
local base = quern.property("base_url")
local ready = tonumber(quern.property("ready", "1000000"))
local sc = quern.scenario("LOGIN-HANG")
local page = sc:step(1, "page")
function sc.init(vu)
  if vu.id > ready then quern.sleep("60s") end
end
function sc.run(vu)
  page:get(base .. "/static/a.css"):expect(200)
  quern.sleep("50ms")
end

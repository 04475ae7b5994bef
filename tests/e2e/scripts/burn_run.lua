-- A run that costs its worker CPU (tests/e2e/delivery.sh): the property
-- `burn` (default 2 ms) of Lua work as it starts, then one request, so that
-- one worker starts at most about 1 / burn runs a second, whatever rate it
-- is asked.
local quern = require "quern"
local base = quern.property("base_url")
local burn = tonumber(quern.property("burn", "0.002"))
local sc = quern.scenario("BURN-RUN")
local page = sc:step(1, "page")
function sc.run(vu)
  local t = os.clock()
  while os.clock() - t < burn do end
  page:get(base .. "/static/a.css")
end

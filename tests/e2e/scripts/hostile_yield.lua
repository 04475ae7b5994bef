-- A coroutine.yield of the script's own in sc.run: nothing would resume it.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("YIELD")
local page = sc:step(1, "page")
function sc.run(vu)
  page:get(base .. "/status/200")
  coroutine.yield()
end

-- A runtime script bug in a smoke run (a typo in a method name).
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("VTYPO")
local a = sc:step(1, "page")

function sc.run(vu)
  a:gett(base .. "/status/200")
end

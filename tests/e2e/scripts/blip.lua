-- One request a run to the server's /blip, which stalls 500 ms for the
-- requests of 0.4 s, 5 s after its first (tests/tools/slow_server.py).
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("BLIP")
local hit = sc:step(1, "blip")
function sc.run()
  hit:get(base .. "/blip"):expect(200)
end

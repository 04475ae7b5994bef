-- The profile's tests (tests/e2e/profile.sh): one request a run to
-- tests/tools/knee_server.c, whose bottleneck is the mode it was started in.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("KNEE", {})
local item = sc:step(1, "Item")

function sc.run(vu)
  item:get(base .. "/item?id=7"):expect(200)
end

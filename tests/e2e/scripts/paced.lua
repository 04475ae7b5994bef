-- One request per run, runs paced at 100 ms: a light, steady load.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("PACED", { pacing = "100ms" })
local a = sc:step(1, "a")
function sc.run(vu)
  a:get(base .. "/static/a")
end

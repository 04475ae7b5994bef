-- Every sample fails a check: a build must not be green on this.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("VCHECK")
local page = sc:step(1, "page")

function sc.run(vu)
  page:get(base .. "/status/200"):contains("not in the body")
end

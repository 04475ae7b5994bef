-- For tests/e2e/errors.sh: checks and extractions on responses that never
-- came (the server is down): each fails with the transport's cause,
-- technical, not with what an empty body lacks. -p in_init=1 reads a form's
-- token in init, as a login does.
local quern = require "quern"
local http = require "quern.http"
local dead = quern.property("dead_url")

local sc = quern.scenario("NR")
local timed = sc:step(1, "timed")
local after = sc:step(2, "after")

function sc.init(vu)
  if quern.property("in_init", "") ~= "" then
    vu.token = http.get(dead .. "/login"):xpath("//input[@name='csrf']/@value")
  end
end

function sc.run(vu)
  pcall(function() timed:get(dead .. "/x"):xpath("//input/@value") end)
  after:get(dead .. "/z")
  pcall(function() http.get(dead .. "/w"):contains("x") end)
end

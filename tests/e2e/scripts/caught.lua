-- For tests/e2e/errors.sh: a failed check that pcall caught, then a bug in
-- the same run: the check's error is counted, and the bug is logged as a
-- script error (it is not taken for the check's error on its way out).
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("CAUGHT")
local page = sc:step(1, "page")

function sc.run(vu)
  pcall(function() page:get(base .. "/status/200"):contains("not in the body") end)
  local t = nil
  t.field = 1 -- a script error after the caught check
end

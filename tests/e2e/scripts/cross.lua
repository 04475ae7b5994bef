-- A VU of scenario A records into scenario B's step: an error at the call,
-- and no request.
local quern = require "quern"
local base = quern.property("base_url")
local a = quern.scenario("A")
local b = quern.scenario("B")
local a1 = a:step(1, "mine")
local b1 = b:step(1, "theirs")
function a.run(vu)
  if vu.run % 2 == 1 then
    b1:get(base .. "/static/b")
  else
    b1:time(function() end)
  end
  a1:get(base .. "/static/a")
end
function b.run(vu)
  b1:get(base .. "/static/b")
end

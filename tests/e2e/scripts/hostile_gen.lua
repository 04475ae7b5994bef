-- The script's own coroutines yield to it, not to the VU: they work.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("GEN")
local page = sc:step(1, "page")
function sc.run(vu)
  local gen = coroutine.wrap(function()
    for i = 1, 3 do coroutine.yield(i) end
  end)
  local co = coroutine.create(function(a) local b = coroutine.yield(a + 1); return b * 2 end)
  local _, x = coroutine.resume(co, 1)
  local _, y = coroutine.resume(co, 5)
  local n = gen() + gen() + gen() + x + y -- 6 + 2 + 10
  page:get(base .. "/status/200?n=" .. n):expect(200)
  assert(n == 18, "generator gave " .. n)
end

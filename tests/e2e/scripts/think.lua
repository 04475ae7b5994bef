local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("THINK", { think = "300ms" })
local a, b, c = sc:step(1, "a"), sc:step(2, "b"), sc:step(3, "c")
function sc.run(vu)
  a:get(base .. "/static/a")
  b:get(base .. "/static/b")
  c:get(base .. "/static/c")
end

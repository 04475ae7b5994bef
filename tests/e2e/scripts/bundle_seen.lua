-- Which files of its folder a worker finds beside its script (the bundle
-- e2e test): each name of the "names" property, comma separated, is looked
-- for once per run and reported to the target as GET /found/NAME or
-- /missing/NAME, which the target counts under its own path.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local names = quern.property("names", "")
local sc = quern.scenario("SEEN", {})
local seen = sc:step(1, "Seen")

function sc.run(vu)
  for name in string.gmatch(names, "[^,]+") do
    local f = io.open(name, "rb")
    if f ~= nil then
      f:close()
      seen:get(base .. "/found/" .. name):expect(404)
    else
      seen:get(base .. "/missing/" .. name):expect(404)
    end
  end
end

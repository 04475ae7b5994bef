-- One step, three causes of errors: each run asks for a 500, a 503 and a
-- file the server sends too slowly for the request's timeout.
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("EK")
local mixed = sc:step(1, "three causes")

function sc.run(vu)
  mixed:get(base .. "/e500")
  mixed:get(base .. "/e503")
  mixed:get(base .. "/slow/big.txt", { timeout = "300ms" })
end

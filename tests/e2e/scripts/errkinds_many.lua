-- One step, a different cause each run: more kinds than a step keeps.
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("EKM")
local step = sc:step(1, "many causes")
local n = 0

function sc.run(vu)
  step:get(base .. "/")
  n = n + 1
  -- a word per run (letters: not folded into one kind)
  error("cause " .. string.char(97 + n % 26) .. string.char(97 + n // 26))
end

-- The console fan-in row: a scenario of 50 steps (SC-FANIN-STEP-1 .. 50) for
-- the console to load. No agent runs it: tests/tools/fanin.c plays the agents
-- and reports statistics for these 50 steps every second.
--
--   bin/quern run bench/fanin.lua --agents N --listen 127.0.0.1:PORT --token-file F \
--       --wait 120s --duration 30s --db none -q
local quern = require "quern"

local sc = quern.scenario("FANIN")
local steps = {}
for n = 1, 50 do
  steps[n] = sc:step(n, "step " .. n)
end

function sc.run(vu)
  for n = 1, 50 do
    steps[n]:get(quern.property("base_url", "http://127.0.0.1:9") .. "/"):expect(200)
  end
end

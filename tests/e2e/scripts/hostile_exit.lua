-- os.exit while the script loads: a script error, not a run that passes.
local quern = require "quern"
local sc = quern.scenario("EXIT")
sc:step(1, "never")
os.exit(0)
function sc.run(vu) end

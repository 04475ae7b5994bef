-- quern.csv called from a VU: an error.
local quern = require "quern"
local sc = quern.scenario("CSVLATE")
local s = sc:step(1, "Never")
function sc.run(vu)
  quern.csv("csv_users.csv")
end

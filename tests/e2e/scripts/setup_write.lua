-- vu.setup is read-only: a write, nested or not, is an error at its line.
local quern = require "quern"
local sc = quern.scenario("SETUP-WRITE", {})
sc:step(1, "Nothing")

function sc.setup()
  return { x = 0, nested = { y = 0 }, list = { 10, 20, 30 } }
end

local first -- the first VU's vu.setup in this worker

function sc.run(vu)
  first = first or vu.setup
  assert(rawequal(first, vu.setup), "a copy per VU")
  local ok, err = pcall(function() vu.setup.nested.y = 1 end)
  assert(not ok and err:find("vu.setup is read-only", 1, true), "nested write allowed")
  assert(#vu.setup.list == 3 and vu.setup.list[2] == 20, "list not readable")
  local n = 0
  for _ in pairs(vu.setup) do n = n + 1 end
  assert(n == 3, "pairs sees " .. n .. " keys")
  vu.setup.x = 1
end

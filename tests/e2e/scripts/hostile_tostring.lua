-- An error object whose __tostring raises: a message all the same.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("TOSTR")
local page = sc:step(1, "page")
function sc.run(vu)
  page:get(base .. "/status/200")
  error(setmetatable({}, { __tostring = function() error("no text for you") end }))
end

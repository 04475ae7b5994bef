-- One step per kind of error; each run goes through all of them.
local quern = require "quern"
local base = quern.property("base_url")
local dead = quern.property("dead_url")

local sc = quern.scenario("ERR")
local refused  = sc:step(1, "connection refused")
local s500     = sc:step(2, "status 500")
local timeout  = sc:step(3, "timeout")
local expect   = sc:step(4, "expect fails on a 200")
local contains = sc:step(5, "contains fails")
local accepted = sc:step(6, "404 accepted by expect")
local fine     = sc:step(7, "fine")
local luaerr   = sc:step(8, "script error")
local redirect = sc:step(9, "redirect where 200 expected")

function sc.run(vu)
  refused:get(dead .. "/x")
  s500:get(base .. "/status/500")
  timeout:get(base .. "/slow?ms=3000", { timeout = "200ms" })
  pcall(function() expect:get(base .. "/status/200"):expect(201) end)
  pcall(function() contains:get(base .. "/status/200"):contains("not in the body") end)
  accepted:get(base .. "/status/404"):expect(404)
  pcall(function() redirect:get(base .. "/redirect?to=/login"):expect(200) end)
  fine:get(base .. "/status/200"):expect(200)
  luaerr:get(base .. "/status/200")
  local t = nil
  t.field = 1 -- a script error: counted against this step, the VU goes on
end

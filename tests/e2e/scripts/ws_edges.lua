-- The ways a WebSocket step goes wrong: no server, a server that closes,
-- a send after the close, options and codes the API refuses.
local quern = require "quern"
local ws_url = quern.property("ws_url")
local dead_url = quern.property("dead_url")

local sc = quern.scenario("WSE")
local refused = sc:step(1, "no server")
local bye     = sc:step(2, "server closes")
local late    = sc:step(3, "send after the close")
local badopt  = sc:step(4, "unknown option")
local badcode = sc:step(5, "bad close code")

function sc.run(vu)
  local ok, err = pcall(function() refused:ws(dead_url .. "/echo") end)
  assert(not ok)
  local c = bye:ws(ws_url .. "/bye")
  local msg, why = c:receive("2s")
  assert(msg == nil and why == "closed", "bye: " .. tostring(why))
  assert(c.close_code == 4000, "close code " .. tostring(c.close_code))
  -- in a time block: the block's sample fails
  pcall(function() late:time(function() c:send("too late") end) end)
  local e = badcode:ws(ws_url .. "/echo")
  local ok2, err2 = pcall(function() e:close(1234) end)
  assert(not ok2 and err2:find("code 1234"), tostring(err2))
  e:close()
  badopt:ws(ws_url .. "/echo", { body = "x" }) -- a script error: the run ends here
end

-- WebSockets against tests/tools/ws_server.py: echo (text and binary), a
-- server's push, a VU that never receives while the server pings it, and a
-- refused handshake. Each run: one connection per step that opens one.
local quern = require "quern"
local http = require "quern.http"
local ws_url = quern.property("ws_url")
local push_n = quern.property("push_n", 3)
local ca = quern.property("ca", "")
local base = quern.property("base_url", "") -- the demo target, for a slow HTTP request
local opts = ca ~= "" and { tls = { ca = ca } } or {}

local sc = quern.scenario("WS")
local echo    = sc:step(1, "echo")
local rtt     = sc:step(2, "round trip")
local push    = sc:step(3, "push")
local hold    = sc:step(4, "hold")
local refused = sc:step(5, "refused")

function sc.run(vu)
  local c = echo:ws(ws_url .. "/echo", { protocols = { "chat" }, tls = opts.tls,
                                         headers = { ["X-Vu"] = vu.id } })
  c:send("hello " .. vu.id)
  local msg, kind = c:receive("2s")
  assert(msg == "hello " .. vu.id and kind == "text", "text echo: " .. tostring(msg))
  c:send("\0\1\2\255", { binary = true })
  msg, kind = c:receive("2s")
  assert(msg == "\0\1\2\255" and kind == "binary", "binary echo: " .. tostring(kind))
  -- 1 MiB: read over several loop iterations (WEBSOCKET_READ_BUDGET), TLS too
  local big = string.rep("q", 1048576)
  c:send(big, { binary = true })
  msg = c:receive("5s")
  assert(msg == big, "1 MiB echo: " .. tostring(msg and #msg))
  rtt:time(function()
    c:send("ping?")
    assert(c:receive("2s") == "ping?")
  end)
  c:close()

  local p = push:ws(ws_url .. "/push?n=" .. push_n, opts)
  quern.sleep("200ms") -- the pushed messages wait in the queue
  for i = 1, push_n do
    local m = p:receive("2s")
    assert(m == "push " .. i, "push " .. i .. ": " .. tostring(m))
  end
  -- p is not closed: the end of the run closes it (1000)

  -- never receives: quern answers the server's pings while the script
  -- sleeps and while it waits on an HTTP request, and the server keeps the
  -- connection open (a pong 0.5 s late closes it with 1011)
  local h = hold:ws(ws_url .. "/hold", opts)
  quern.sleep("1500ms")
  if base ~= "" then http.get(base .. "/slow?ms=1000"):expect(200) end
  local _, why = h:receive("1ms")
  assert(why == "timeout", "hold: " .. tostring(why))
  -- in a later second than its step's sample: counted all the same
  h:send("late")
  assert(h:receive("2s") == "late")
  h:close(1000, "done")

  pcall(function() refused:ws(ws_url .. "/missing", opts) end)
end

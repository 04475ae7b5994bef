-- tests/e2e/tcp.sh: step:tcp's reads against scripts/tcp/server.py; each
-- case raises on what it did not get, so a run without errors is a pass.
local quern = require "quern"

local port = tonumber(quern.property("port"))
local case = quern.property("case", "reads")

local sc = quern.scenario("TCP", { pacing = "0s" })
local open = sc:step(1, "Connect")
local talk = sc:step(2, "Talk")

local function want(what, got, expected)
  if got ~= expected then
    error(what .. ": got " .. tostring(got) .. ", expected " .. tostring(expected))
  end
end

local cases = {}

function cases.reads(c)
  talk:time(function()
    c:send("echo hello world\r\n")
    want("CRLF line", c:receive("line"), "hello world")
    c:send("lf bare\n")
    want("LF line", c:receive("line"), "bare")
    c:send("bytes 5\r\n")
    want("5 bytes", c:receive(5), "aaaaa")
    c:send("until\r\n")
    want("until ::", c:receive_until("::"), "one")
    want("until :: again", c:receive_until("::"), "two")
    c:send("echo " .. string.rep("x", 3000) .. "\r\n")  -- more than one read
    want("a long line", #c:receive("line"), 3000)
    c:send("bytes 3\r\n")
    local some = c:receive()
    want("some", #some >= 1 and #some <= 3 and some == string.rep("a", #some), true)
    if #some < 3 then c:receive(3 - #some) end
  end)
end

function cases.timeout(c)
  c:send("silent\r\n")
  talk:time(function()  -- the block's time is the wait: tcp.sh reads it
    local got, why = c:receive("line", "300ms")
    want("silent: nothing", got, nil)
    want("silent: why", why, "timeout")
  end)
  want("still open", c.closed, false)
end

function cases.closed(c)
  c:send("bye\r\n")
  want("the last words before the close", c:receive_until("words"), "last ")
  local got, why = c:receive(1)
  want("closed: nothing more", got, nil)
  want("closed: why", why, "closed")
  want("closed: flag", c.closed, true)
end

function cases.big(c)
  c:send("big\r\n")
  talk:time(function() c:receive("line") end)  -- 2 MiB without LF: past the bound
end

function cases.tls(c)
  want("tls flag", c.tls, true)
  talk:time(function()
    c:send("hello over tls\n")  -- s_server -rev: each line back reversed
    want("TLS line", c:receive("line"), "slt revo olleh")
  end)
end

local tls = nil
if case == "tls" then tls = { ca = quern.property("ca") } end
if case == "untrusted" then tls = true; cases.untrusted = cases.tls end

function sc.run()
  local c = open:tcp("127.0.0.1", port, { timeout = "5s", tls = tls })
  cases[case](c)
  c:close()
end

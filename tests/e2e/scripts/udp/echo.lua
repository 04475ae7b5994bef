-- tests/e2e/udp.sh: step:udp against scripts/udp/server.py; each case
-- raises on what it did not get, so a run without errors is a pass.
local quern = require "quern"

local port = tonumber(quern.property("port"))
local case = quern.property("case", "echo")

local sc = quern.scenario("UDP", { pacing = "0s" })
local open = sc:step(1, "Open")
local talk = sc:step(2, "Exchange")

local function want(what, got, expected)
  if got ~= expected then
    error(what .. ": got " .. tostring(got) .. ", expected " .. tostring(expected))
  end
end

local cases = {}

function cases.echo(u, vu)
  talk:time(function()
    local msg = "ping " .. vu.id .. " " .. vu.run
    assert(u:send(msg))
    want("echo", u:receive(), msg)
    assert(u:send("twice"))
    want("first of two", u:receive(), "twice")
    want("second of two", u:receive(), "twice")
    local big = string.rep("x", 60000)
    assert(u:send(big))
    want("a large datagram", u:receive(), big)
  end)
end

function cases.timeout(u)
  assert(u:send("silent"))
  talk:time(function()  -- the block's time is the wait: udp.sh reads it
    local got, why = u:receive("300ms")
    want("silent: nothing", got, nil)
    want("silent: why", why, "timeout")
  end)
end

function cases.refused(u)
  talk:time(function()
    assert(u:send("anyone?"))
    local got, why = u:receive("2s")
    want("refused: nothing", got, nil)
    want("refused: why", why, "refused")
    want("refused: still open", u.closed, false)
  end)
end

function cases.toolarge(u)
  u:send(string.rep("x", 70000))
end

function cases.name()
  open:udp("example.invalid", port)
end

function sc.run(vu)
  local u = open:udp(quern.property("host", "127.0.0.1"), port, { timeout = "2s" })
  cases[case](u, vu)
  u:close()
  want("closed", u.closed, true)
end

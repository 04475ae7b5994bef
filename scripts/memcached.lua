-- A session cache in memcached, through a client written in Lua on
-- step:tcp (scripts/lib/memcache.lua: docs/protocols.md, "Writing a
-- protocol of one's own"): store a session, read it back, count a view.
--
--   memcached -l 127.0.0.1 -p 11211 &
--   quern run scripts/memcached.lua --vus 20 --duration 30s -p memcached=127.0.0.1:11211
--
-- tests/e2e/tcp.sh runs it and checks quern's counts against memcached's
-- own stats (cmd_set, get_hits, incr_hits).
local quern = require "quern"
local memcache = require "lib.memcache"

local host, port = quern.property("memcached", "127.0.0.1:11211"):match("^(.+):(%d+)$")

local sc = quern.scenario("MEMCACHED", {
  pacing = quern.property("pacing", "100ms"),
  think  = { min = "5ms", max = "10ms" },
})

local connect = sc:step(1, "Connect")
local store   = sc:step(2, "Store session")
local read    = sc:step(3, "Read session")
local count   = sc:step(4, "Count a view")

function sc.run(vu)
  local c = memcache.connect(connect, host, tonumber(port), { timeout = "2s" })
  local key = "session:" .. vu.id
  local session = "user " .. vu.id .. ", run " .. vu.run
  -- a call is a sample of the step it runs in: each in a block of its own
  store:time(function() c:set(key, session, 60) end)
  read:time(function()
    local got = c:get(key)
    if got ~= session then error("session " .. key .. ": " .. tostring(got)) end
  end)
  count:time(function()
    if not c:incr("views:" .. vu.id) then c:set("views:" .. vu.id, "1") end
  end)
  c:close()
end

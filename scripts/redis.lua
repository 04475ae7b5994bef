-- A cache in front of an application: connect to Redis, write a user's
-- entry, read it back, bump a counter ten times in one pipeline, leave.
--
--   quern run scripts/redis.lua --vus 50 --duration 30s -p redis_url=redis://127.0.0.1:6379
--
-- Any Redis will do (Debian's redis-server: redis-server --port 6379 --save ''),
-- with a password as redis://:PASSWORD@127.0.0.1:6379, a database as .../2,
-- TLS as rediss://. tests/e2e/redis.sh runs it and checks quern's counts
-- against the server's INFO commandstats.
local quern = require "quern"
local redis = require "quern.redis"

local url = quern.property("redis_url", "redis://127.0.0.1:6379")

local sc = quern.scenario("REDIS-CACHE", {
  pacing = quern.property("pacing", "200ms"),
  think  = { min = "5ms", max = "20ms" },
})

local connect  = sc:step(1, "Connect")   -- TCP and AUTH/SELECT: one sample
local set      = sc:step(2, "SET")
local get      = sc:step(3, "GET")
local pipeline = sc:step(4, "Pipeline of 10 INCR")

function sc.run(vu)
  -- a socket is closed when the VU's run ends, as a WebSocket: one a run
  local c = redis.connect(connect, url)
  local key = "user:" .. vu.id .. ":" .. vu.run
  local value = "profile of VU " .. vu.id .. ", run " .. vu.run

  -- c:call is a sample of the connect's step; inside another step's block
  -- it is part of that block's sample, so each command counts where it is
  set:time(function()
    assert(c:call("SET", key, value, "EX", 60) == "OK", "SET not OK")
  end)
  get:time(function()
    local got = c:call("GET", key)
    if got ~= value then error("GET " .. key .. ": " .. tostring(got) .. ", expected " .. value) end
  end)
  pipeline:time(function()
    local counts = c:pipeline(function(p)
      for _ = 1, 10 do p:call("INCR", "counter:" .. vu.id) end
    end)
    -- each INCR answers the counter's new value: ten in a row
    for i = 2, 10 do
      if counts[i] ~= counts[i - 1] + 1 then error("INCR " .. i .. " gave " .. tostring(counts[i])) end
    end
  end)
  c:close()
end

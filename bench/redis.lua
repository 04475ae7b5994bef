-- The Redis row: each VU opens one connection and makes OPS GETs of one key
-- on it, one after the other, each GET a sample of its own step; the same
-- key and value as redis-benchmark's `-t get` (bench/run.sh sets it first),
-- so that both send and receive the same bytes. One run per VU: a
-- connection lives as long as the run that opened it.
--
--   bin/quern run bench/redis.lua --vus 50 --runs 1 -q -p redis_url=redis://127.0.0.1:PORT
local quern = require "quern"
local redis = require "quern.redis"

local url = quern.property("redis_url", "redis://127.0.0.1:6379")
local n = tonumber(quern.property("ops", "2000"))
-- the key and the 3-byte value redis-benchmark -t get reads (its defaults),
-- so that both tools fetch the same bytes
local key = quern.property("key", "key:__rand_int__")
local value = quern.property("value", "xxx")
local sc = quern.scenario("BENCH-REDIS")
local connect = sc:step(1, "connect")
local get = sc:step(2, "GET")

function sc.run()
  local c = redis.connect(connect, url)
  c.step = get -- each c:call from here on is a sample of GET, not of connect
  for _ = 1, n do
    if c:call("GET", key) ~= value then error("GET " .. key .. ": not " .. value) end
  end
  c:close()
end

-- Soft checks and custom metrics (tests/e2e/checks.sh): each run asks for
-- /ok nine times and /bad once (nginx answers 500), checks every status
-- softly and goes on; with -p raise=1, a check that raises too (it counts as
-- failed). The metrics count what nginx's log counts too.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local raise = quern.property("raise", false)
local sc = quern.scenario("CHECKS", {})
local hit = sc:step(1, "Hit")

local bad_seen = quern.metric.counter("bad_seen")  -- one a /bad answered 500
local ok_ms    = quern.metric.trend("ok_ms")       -- each /ok's response time
local last_vu  = quern.metric.gauge("last_vu")     -- the VU that ran last
local runs     = quern.metric.counter("runs")
local oks      = quern.metric.trend("oks")         -- 200s a run: whole numbers

function sc.run(vu)
  local n = 0
  for i = 1, 10 do
    local r = hit:get(base .. (i == 10 and "/bad" or "/ok"))
    hit:check(r, { ["status is 200"] = function(res) return res.status == 200 end })
    if r.status == 500 then bad_seen:add(1) else ok_ms:add(r.time); n = n + 1 end
  end
  oks:add(n)
  if raise then quern.check(vu, { ["raises"] = function() error("a bug in the check") end }) end
  last_vu:set(vu.id)
  runs:add()
end

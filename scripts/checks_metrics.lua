-- Soft checks and custom metrics: checks count their passes and failures
-- without ending the run (r:expect is the hard form), and a script's own
-- counter, gauge and trend go to the summary, the database, the report,
-- Prometheus and the thresholds beside the steps' figures.
--
--   quern run scripts/checks_metrics.lua --vus 10 --duration 30s -p base_url=http://127.0.0.1:PORT \
--         --threshold 'checks>=99%' --threshold 'metric{body_kb}.p95<64'
local quern = require "quern"
local http  = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("CHECKS-METRICS", { pacing = quern.property("pacing", "300ms") })
local login = sc:step(1, "Login")
local page  = sc:step(2, "Profile page")
local api   = sc:step(3, "Profile API")

-- Declared as the script loads, like steps: a name, a kind.
local pages   = quern.metric.counter("pages_read")     -- a total (and a rate)
local visits  = quern.metric.gauge("profile_visits")   -- a value: the last set, its min and max
local body_kb = quern.metric.trend("body_kb")          -- a distribution, in the unit given (KiB)

function sc.init(vu)
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  local r = login:post(base .. "/login",
                       { form = { user = "user" .. vu.id, password = "secret", csrf = token } })
  -- a named check on a response (false, counted, and the VU goes on)
  r:check("login: status is 200", r.status == 200)
end

function sc.run(vu)
  local r = page:get(base .. "/profile")
  -- a set of checks on one value, as k6's check(): true when all passed
  page:check(r, {
    ["page: status is 200"] = function(res) return res.status == 200 end,
    ["page: under 2 s"]     = r.time < 2000,
  })
  pages:add()                       -- add() is add(1)
  body_kb:add(#r.body / 1024)

  local j = api:get(base .. "/api/profile", { headers = { Accept = "application/json" } })
  j:check("api: JSON body", function(res) return res:json().name == "user" .. vu.id end)
  if j.status == 200 then visits:set(j:json().visits) end
end

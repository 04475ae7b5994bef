-- A dashboard that loads its parts in parallel: after logging in, each run
-- sends the profile, two slow reports and the page's scripts at once, on the
-- VU's own connections (at most 6 at once per origin), and checks each
-- response. Each request is a sample of the batch's step, or of the step its
-- entry names.
--
--   quern run scripts/batch.lua --vus 10 --duration 30s -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local http  = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("DASHBOARD", {
  pacing = quern.property("pacing", "300ms"),
})

local login   = sc:step(1, "Login")
local parts   = sc:step(2, "Dashboard parts")
local reports = sc:step(3, "Slow reports")

function sc.init(vu)
  vu.data.user = string.format("dash%04d", vu.id)
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = vu.data.user, password = "secret", csrf = token } })
       :expect(200)
end

function sc.run(vu)
  -- { method, url, options, step = s }: the options of a single request;
  -- the session cookie of the login goes with every one of them.
  local r = parts:batch({
    { "GET", base .. "/api/profile", { headers = { Accept = "application/json" } } },
    { "GET", base .. "/slow", { query = { ms = 100, report = "sales" } }, step = reports },
    { "GET", base .. "/slow", { query = { ms = 100, report = "stock" } }, step = reports },
    { "GET", base .. "/static/app.js" },
    { "GET", base .. "/static/site.css" },
  })
  local me = r[1]:expect(200):json()
  if me.name ~= vu.data.user then error("logged in as " .. tostring(me.name)) end
  for i = 2, #r do r[i]:expect(200) end
end

-- Test data from a CSV file: every VU logs in with its own account from
-- users.csv (mode "unique": no two VUs, on any agent, share a row), then each
-- run searches for a city taken in turn from the same file (mode "sequential").
-- Run it against the demo target:  quern run scripts/csv_users.lua -p base_url=http://127.0.0.1:PORT
-- With more VUs than users.csv has rows (50), init fails with "no row left".
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

-- Read once, when the script loads; the path is relative to this file.
local users = quern.csv("users.csv", { mode = "unique" })
local cities = quern.csv("users.csv", { mode = "sequential" })

local sc = quern.scenario("CSV-USERS", {
  pacing  = quern.property("pacing", "2s"),
  think   = { min = "100ms", max = "300ms" },
})

local login   = sc:step(1, "Login")
local profile = sc:step(2, "Consultation du profil")
local search  = sc:step(3, "Search a city")

function sc.init(vu)
  local row = users:next(vu)        -- VU k gets row k: user0001 for VU 1, ...
  vu.data.user = row.user           -- each call gives a fresh table
  -- the login form's hidden one-time token, which the POST must send back
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = row.user, password = row.password, csrf = token } })
       :expect(200):contains("Bienvenue")
end

function sc.run(vu)
  profile:get(base .. "/profile"):expect(200):contains(vu.data.user)
  local city = cities:next().city   -- "Paris, France", "Lyon", ... in file order
  local r = search:get(base .. "/echo", { query = { city = city } }):expect(200):json()
  if r.query.city ~= city then
    error("searched " .. city .. ", the server got " .. tostring(r.query.city))
  end
end

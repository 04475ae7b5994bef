-- A JSON API session: log in, read the profile, reuse what it says in the
-- next requests (correlation), send JSON and query parameters to /echo and
-- check what the server received.
--
--   quern run scripts/api_json.lua --vus 10 --duration 30s -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local http  = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

-- every 10 s of the run, not only on average: a stall fails its window
quern.threshold("p95[10s]<2s")

local sc = quern.scenario("API-JSON", {
  pacing = quern.property("pacing", "300ms"),
  think  = { min = "10ms", max = "50ms" },
})

local login   = sc:step(1, "Login")
local profile = sc:step(2, "Read profile")
local post    = sc:step(3, "Post JSON")
local search  = sc:step(4, "Search with query parameters")
local page    = sc:step(5, "Profile page and assets")   -- one sample for two requests

function sc.init(vu)
  vu.data.user = string.format("api%04d", vu.id)
  -- the login form's hidden one-time token, which the POST must send back
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = vu.data.user, password = "secret", csrf = token } })
       :expect(200)
end

function sc.run(vu)
  -- r:json() decodes the body (a check: a body that is not JSON fails the step).
  local me = profile:get(base .. "/api/profile", { headers = { Accept = "application/json" } })
                    :expect(200):json()
  if me.name ~= vu.data.user then error("logged in as " .. tostring(me.name)) end

  -- Correlation: the session id and visit count go into the next request.
  -- json = {...} encodes the table and sets Content-Type: application/json.
  local echo = post:post(base .. "/echo", {
    json = { user = me.name, session = me.session, visits = me.visits, tags = { "a", "b" } },
  }):expect(200):json()
  if echo.headers["content-type"] ~= "application/json" then
    error("sent as " .. tostring(echo.headers["content-type"]))
  end
  -- /echo returns the raw body it received; look for the values we sent.
  for _, want in ipairs{ '"session":"' .. me.session .. '"', '"visits":' .. me.visits,
                         '"tags":["a","b"]' } do
    if not echo.body:find(want, 1, true) then error("echoed body lacks " .. want) end
  end

  -- query = {...} is URL-encoded and appended; a list repeats the key.
  local q = search:get(base .. "/echo", {
    query = { q = "load test", page = 2, tag = { "x", "y" } },
  }):expect(200):json()
  if q.query.q ~= "load test" or q.query.page ~= "2" or q.query.tag[2] ~= "y" then
    error("query received as " .. q.path .. " " .. tostring(q.query.q))
  end

  -- step:time times a block as one sample: here two requests, the second an
  -- untimed quern.http call, which inside the block counts towards it.
  page:time(function()
    http.get(base .. "/profile"):expect(200):contains(vu.data.user)
    http.get(base .. "/static/app.js"):expect(200)
  end)
end

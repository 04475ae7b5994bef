-- A workload mix: three scenarios share the VUs 50/25/25, as the Grinder
-- article's "Tir" script spread its threads over ScenarioA/B/C.
--
--   quern run scripts/mix.lua --vus 8 --duration 1m -p base_url=http://127.0.0.1:PORT
--
-- With 8 VUs: 4 browse, 2 read the API, 2 read the catalogue. VU i always
-- plays the same scenario, whatever the number of machines.
local quern = require "quern"
local http = require "quern.http"

local base   = quern.property("base_url", "http://127.0.0.1:8080")
local pacing = quern.property("pacing", "500ms")   -- small default: tests stay fast
local think  = { min = "20ms", max = "100ms" }

------------------------------------------------------------------------------
-- BROWSE (50 %): an anonymous visitor loads a page's static files.
local browse = quern.scenario("BROWSE", { weight = 50, pacing = pacing, think = think })

local home  = browse:step(1, "Home page")
local style = browse:step(2, "Style sheet")
local logo  = browse:step(3, "Logo")

function browse.run(vu)
  home:get(base .. "/static/index.html"):expect(200):contains("static asset")
  local css = style:get(base .. "/static/site.css"):expect(200)
  if css:header("Content-Type") ~= "text/css" then
    error("site.css served as " .. tostring(css:header("Content-Type")))  -- functional error
  end
  logo:get(base .. "/static/logo.png"):expect(200)
end

------------------------------------------------------------------------------
-- API-PROFILE (25 %): log in once, then read the JSON profile every run.
local api = quern.scenario("API-PROFILE", { weight = 25, pacing = pacing, think = think })

local login   = api:step(1, "Login")
local profile = api:step(2, "API profile")
local logout  = api:step(3, "Logout")

function api.init(vu)                       -- once per VU: the session cookie is kept
  vu.data.user = string.format("mix%04d", vu.id)
  -- the login form's hidden one-time token, which the POST must send back
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = vu.data.user, password = "secret", csrf = token } })
       :expect(200):contains("Bienvenue")
end

function api.run(vu)
  local p = profile:get(base .. "/api/profile"):expect(200):json()
  if p.name ~= vu.data.user then
    error("profile of " .. tostring(p.name) .. ", expected " .. vu.data.user)
  end
end

function api.finish(vu)                     -- once per VU, at the end
  logout:get(base .. "/logout"):expect(200)
end

------------------------------------------------------------------------------
-- CATALOGUE (25 %): read an XML catalogue and check it with XPath.
local cat = quern.scenario("CATALOGUE", { weight = 25, pacing = pacing })

local catalogue = cat:step(1, "XML catalogue")

function cat.run(vu)
  local r = catalogue:get(base .. "/xml"):expect(200)
  local items = r:xpath("count(//item)")          -- a number
  local beta  = r:xpath("//item[@id='2']/name")   -- text of the first match
  if items < 1 or beta ~= "Beta" then
    error(string.format("catalogue: %s items, item 2 is %s", items, tostring(beta)))
  end
  local names = r:xpath_all("//item/name")        -- every match, as a list
  if #names ~= items then
    error("catalogue: " .. #names .. " names for " .. items .. " items")
  end
end

-- Log in once for the whole run (sc.setup), share that session with every
-- VU of every agent (vu.setup, read-only), log out once at the end
-- (sc.teardown). Against the demo target: its /login form's one-time token,
-- then the session cookie the login sets, sent by every VU.
--
--   quern run scripts/setup_teardown.lua --vus 10 --duration 30s -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local http  = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("SHARED-SESSION", { pacing = quern.property("pacing", "200ms") })

local profile = sc:step(1, "Profile with the shared session")

-- Once per run, on the console, before any VU starts. An error here (a Lua
-- error, a failed check, a request that fails) stops the run: no load.
-- Its requests are not samples of the run.
function sc.setup()
  local csrf = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  local r = http.post(base .. "/login", { form = { user = "admin", password = "secret", csrf = csrf } })
  local session = r:expect(200):header("Set-Cookie"):match("SESSION=([^;]+)")
  if session == nil then error("the login set no SESSION cookie") end
  return { session = session, user = "admin" }   -- strings, numbers, booleans, tables
end

function sc.run(vu)
  local me = profile:get(base .. "/api/profile", {
    headers = { Cookie = "SESSION=" .. vu.setup.session, ["X-VU"] = tostring(vu.id) },
  }):expect(200):json()
  if me.name ~= vu.setup.user then error("the session is " .. tostring(me.name) .. "'s") end
end

-- Once, after the last VU of every agent ended; data is what setup returned.
function sc.teardown(data)
  http.get(base .. "/logout", { headers = { Cookie = "SESSION=" .. data.session } }):expect(200)
end

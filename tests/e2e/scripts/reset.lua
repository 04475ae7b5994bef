-- The Grinder's way: a fresh cookie jar each run, so each run logs in anew.
local quern = require "quern"
local http = require "quern.http"
local base = quern.property("base_url")
local sc = quern.scenario("RESET", { cookies = quern.property("cookies", "reset") })
local login = sc:step(1, "Login")
local profile = sc:step(2, "Profile")
function sc.run(vu)
  if vu.run == 1 or quern.property("cookies", "reset") == "reset" then
    -- the login form's hidden one-time token, which the POST must send back
    local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
    login:post(base .. "/login", { form = { user = "u" .. vu.id, password = "x", csrf = token } }):expect(200)
  end
  profile:get(base .. "/profile"):expect(200)
end

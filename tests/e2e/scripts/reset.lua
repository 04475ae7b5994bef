-- The Grinder's way: a fresh cookie jar each run, so each run logs in anew.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("RESET", { cookies = quern.property("cookies", "reset") })
local login = sc:step(1, "Login")
local profile = sc:step(2, "Profile")
function sc.run(vu)
  if vu.run == 1 or quern.property("cookies", "reset") == "reset" then
    login:post(base .. "/login", { form = { user = "u" .. vu.id, password = "x" } }):expect(200)
  end
  profile:get(base .. "/profile"):expect(200)
end

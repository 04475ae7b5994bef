-- Distributed tests: every VU logs in as "user<id>", consults its profile,
-- and visits /vu/<id> once, which the target counts under its own path: the
-- number of distinct /vu/ paths the server saw is the number of distinct
-- vu.id across all agents.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("DIST", {
  pacing = quern.property("pacing", "500ms"),
})

local login = sc:step(1, "Login")
local mark = sc:step(2, "Mark")
local profile = sc:step(3, "Profile")

function sc.init(vu)
  vu.data.user = "user" .. vu.id
  -- the login form's hidden one-time token, which the POST must send back
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = vu.data.user, password = "secret", csrf = token } }):expect(200)
  mark:get(base .. "/vu/" .. vu.id):expect(404)
end

function sc.run(vu)
  profile:get(base .. "/profile"):expect(200):contains("Profil")
end

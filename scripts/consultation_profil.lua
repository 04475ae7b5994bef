-- The Grinder article's scenario: log in, consult the profile, log out.
-- Run it against the demo target:  quern run scripts/consultation_profil.lua -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("CONSULTATION-PROFIL", {
  pacing  = quern.property("pacing", "2s"), -- one run every 2 s per VU
  think   = { min = "100ms", max = "300ms" },  -- pause between steps
  cookies = "keep",                        -- the session survives across runs
})

local login   = sc:step(1, "Login")
local profile = sc:step(2, "Consultation du profil")
local logout  = sc:step(3, "Logout")

function sc.init(vu)
  vu.data.user = string.format("user%04d", vu.id)
  -- one sample: the login form, whose hidden one-time token the POST must send back, and the POST
  login:time(function()
    local token = http.get(base .. "/login"):expect(200):xpath("//input[@name='csrf']/@value")
    http.post(base .. "/login", { form = { user = vu.data.user, password = "secret", csrf = token } })
        :expect(200):contains("Bienvenue")
  end)
end

function sc.run(vu)
  local r = profile:get(base .. "/profile")
  r:expect(200):contains("Profil")
  local name = r:xpath("//span[@id='name']")
  if name ~= vu.data.user then
    error("profile shows " .. tostring(name) .. ", expected " .. vu.data.user)
  end
end

function sc.finish(vu)
  logout:get(base .. "/logout"):expect(200)
end

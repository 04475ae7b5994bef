-- Redirects followed, then plain requests on the same VU: each request goes
-- where its own URL says, whatever the handle did before.
local quern = require "quern"
local base = quern.property("base_url")

local sc = quern.scenario("REDIR")
local rel = sc:step(1, "relative redirect followed")
local chain = sc:step(2, "two redirects followed")
local plain = sc:step(3, "plain request after them")
local kept = sc:step(4, "redirect not followed")

function sc.run(vu)
  rel:get(base .. "/redirect?to=/static/a.css", { redirects = true }):expect(200)
  chain:get(base .. "/redirect", { query = { to = "/redirect?to=/status/204" },
    redirects = 2 }):expect(204)
  plain:get(base .. "/status/200"):expect(200)
  local r = kept:get(base .. "/redirect?to=/status/201"):expect(302)
  if r.url ~= base .. "/redirect?to=/status/201" then
    error("r.url is " .. tostring(r.url))
  end
end

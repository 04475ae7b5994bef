-- A home page loaded as a browser loads it: the HTML, then its stylesheet
-- (and the image its url() names), scripts, icon and images, on the VU's own
-- connections, 6 at a time per host. The step's time is the whole page's.
-- The third-party script (cdn.example.com) is skipped: only the page's origin
-- is loaded unless `include` says otherwise. Each VU keeps a cache: on its
-- next visits the stylesheet (no-cache) is revalidated, the rest is fresh.
-- Run it against the demo target:  quern run scripts/page.lua -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("ACCUEIL", {
  pacing  = quern.property("pacing", "2s"),
  request = { resources = { exclude = { "*.ico" } } }, -- every request of the scenario
})
local home = sc:step(1, "Accueil")

function sc.run(vu)
  local r = home:get(base .. "/page"):expect(200):contains("<h1>Accueil</h1>")
  local n = r.resources -- fetched, revalidated (304), cached (not asked), failed, time (ms)
  local want = vu.run == 1 and { 5, 0, 0 } or { 0, 1, 4 }
  if n.fetched ~= want[1] or n.revalidated ~= want[2] or n.cached ~= want[3] then
    error(("run %d: %d fetched, %d revalidated, %d cached"):format(vu.run, n.fetched, n.revalidated, n.cached))
  end
end

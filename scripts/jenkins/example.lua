-- The scenario the Jenkins example runs (scripts/jenkins/Jenkinsfile), and
-- tests/e2e/ci.sh against the demo target (bin/quern-target). Its pass/fail
-- conditions live with it: quern.threshold, and a scenario's thresholds.
--
--   quern run scripts/jenkins/example.lua --vus 4 --duration 30s \
--       -p base_url=http://127.0.0.1:8080 -p path=/slow?ms=40
local quern = require "quern"
local base = quern.property("base_url", "http://127.0.0.1:8080")
local path = quern.property("path", "/slow?ms=40") -- a page of about 40 ms on the demo target

-- Conditions on the whole run (all steps merged).
quern.threshold("errors<1%")
quern.threshold("p95<500ms")

local sc = quern.scenario("CI-CATALOG", {
  pacing = quern.property("pacing", "300ms"),
  -- Scoped to this scenario's steps ("SC-CI-CATALOG-STEP-*: count>=20"):
  -- fewer samples than that make comparisons between builds meaningless.
  thresholds = { "count>=20" },
})
local page = sc:step(1, "Catalogue")

function sc.run(vu)
  page:get(base .. path):expect(200)
end

-- setup and teardown around a run that is stopped or aborted: each VU's
-- finish lasts 3 s, so a second interrupt comes while VUs still finish.
local quern = require "quern"
local http  = require "quern.http"
local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("SETUP-STOP", { pacing = "100ms" })
local hit = sc:step(1, "Hit")

function sc.setup() http.get(base .. "/begin"):expect(200) return { n = 1 } end
function sc.run(vu) hit:get(base .. "/hit"):expect(200) end
function sc.finish(vu) quern.sleep(quern.property("finish", "0s")) end
function sc.teardown(data) http.get(base .. "/logout?n=" .. data.n):expect(200) end

-- Staged loads (tests/e2e/stages.sh): every request names its VU in an X-VU
-- header, so the server's log tells which VUs were active when; init and
-- finish make a request of their own, so they can be counted too.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("STAGES", { pacing = "200ms" })
local hit = sc:step(1, "Hit")

local function vu_header(vu)
  return { headers = { ["X-VU"] = tostring(vu.id) } }
end

function sc.init(vu)
  http.get(base .. "/init", vu_header(vu)):expect(200)
end

function sc.run(vu)
  hit:get(base .. "/hit", vu_header(vu)):expect(200)
end

function sc.finish(vu)
  http.get(base .. "/finish", vu_header(vu)):expect(200)
end

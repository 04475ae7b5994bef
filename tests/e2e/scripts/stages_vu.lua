-- Staged loads (tests/e2e/stages.sh): every request names its VU in an X-VU
-- header, so the server's log tells which VUs were active when; init and
-- finish make a request of their own, so they can be counted too. With
-- -p with_api=1 a second scenario, without stages, plays the run's --vus
-- (it hits /api).
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
-- -p own_stages=3s:20,4s:20,3s:0 gives the scenario stages of its own
local opts = { pacing = "200ms" }
local own = quern.property("own_stages", "")
if own ~= "" then
  opts.stages = {}
  for s in own:gmatch("[^,]+") do opts.stages[#opts.stages + 1] = s end
end
local sc = quern.scenario("STAGES", opts)
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

if quern.property("with_api", "") ~= "" then
  local api = quern.scenario("API", { pacing = "200ms" })
  local call = api:step(1, "Call")
  function api.run(vu)
    call:get(base .. "/api", vu_header(vu)):expect(200)
  end
end

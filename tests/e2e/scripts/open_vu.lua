-- The open model (tests/e2e/open.sh): each arrival plays one run, a request
-- to /hit naming its VU (X-VU); init makes a request of its own, so the VUs
-- created can be counted in the server's log.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("OPEN")
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

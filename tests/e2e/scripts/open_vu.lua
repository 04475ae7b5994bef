-- The open model (tests/e2e/open.sh): each arrival plays one run, a request
-- to /hit naming its VU (X-VU); init makes a request of its own, so the VUs
-- created can be counted in the server's log.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
-- -p own_rate=100/s gives the scenario a rate of its own, -p
-- own_rate_stages=2s:100/s,2s:100/s rate stages; -p second_weight=N adds a scenario SECOND
-- of weight N (hitting /second) beside OPEN's -p open_weight (default 1)
local opts = { weight = tonumber(quern.property("open_weight", "1")) }
if quern.property("own_rate", "") ~= "" then opts.rate = quern.property("own_rate", "") end
local own = quern.property("own_rate_stages", "")
if own ~= "" then
  opts.rate_stages = {}
  for s in own:gmatch("[^,]+") do opts.rate_stages[#opts.rate_stages + 1] = s end
end
local sc = quern.scenario("OPEN", opts)
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


-- -p closed=1 adds CLOSED, paced at 100 ms, hitting /closed: with -p own_rate
-- it plays --vus beside the open OPEN (a mixed run)
if quern.property("closed", "") ~= "" then
  local closed = quern.scenario("CLOSED", { pacing = "100ms" })
  local c = closed:step(1, "Closed")
  function closed.run(vu)
    c:get(base .. "/closed", vu_header(vu)):expect(200)
  end
end

if quern.property("second_weight", "") ~= "" then
  local second = quern.scenario("SECOND", { weight = tonumber(quern.property("second_weight", "1")) })
  local hit2 = second:step(1, "Second")
  function second.run(vu)
    hit2:get(base .. "/second", vu_header(vu)):expect(200)
  end
end

-- W3C traceparent headers (tests/e2e/traceparent.sh): /ok and /slow go to
-- an nginx that logs each request's traceparent; VU 1 sends one /err (a
-- 500) and one slow /slow in its first run; /echo (the demo target) shows
-- what a request carried, so the script checks r.trace_id against it and
-- that a header of its own is sent alone. VU 1's first two runs load a
-- page with two resources.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local target = quern.property("target_url", "http://127.0.0.1:8080")
local opts = { think = "10ms" }
if quern.property("scenario_option", "") ~= "" then opts.traceparent = true end
local sc = quern.scenario("TP", opts)
local ok = sc:step(1, "Ok")
local slow = sc:step(2, "Slow")
local err = sc:step(3, "Err")
local echo = sc:step(4, "Echo")
local page = sc:step(5, "Page")
local expect = quern.property("expect_tp", "") ~= "" -- tracing on: a header must come
local own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

function sc.run(vu)
  ok:get(base .. "/ok"):expect(200)
  local ms = (vu.id == 1 and vu.run == 2) and 600 or 5
  slow:get(base .. "/slow?ms=" .. ms):expect(200)
  if vu.id == 1 and vu.run == 1 then err:get(base .. "/err") end
  if vu.id == 1 and vu.run <= 2 then page:get(base .. "/page", { resources = true, cache = false }) end
  if vu.run > 3 then return end
  local r = echo:get(target .. "/echo", { headers = { ["X-Case"] = "own list" } })
  local sent = r:json().headers.traceparent
  if (sent ~= nil) ~= expect then error("traceparent sent: " .. tostring(sent)) end
  if sent == nil then
    if r.trace_id ~= nil then error("r.trace_id without a header") end
  elseif sent:sub(4, 35) ~= r.trace_id then
    error("r.trace_id " .. tostring(r.trace_id) .. " is not the one sent: " .. sent)
  end
  r = echo:get(target .. "/echo", { headers = { traceparent = own } })
  if r:json().headers.traceparent ~= own then
    error("own traceparent not sent alone: " .. tostring(r:json().headers.traceparent))
  end
  if r.trace_id ~= "0af7651916cd43dd8448eb211c80319c" then
    error("r.trace_id of an own header: " .. tostring(r.trace_id))
  end
end

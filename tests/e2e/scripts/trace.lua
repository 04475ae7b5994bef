-- --trace: what each request sends and gets (tests/e2e/trace.sh).
local quern = require "quern"
local http = require "quern.http"
local base = quern.property("base_url")
local sc = quern.scenario("TRACE")
local css = sc:step(1, "css")
local big = sc:step(2, "big body")

function sc.run(vu)
  css:get(base .. "/static/app.css", { headers = { ["X-Trace-Test"] = "vu" .. vu.id } }):expect(200)
  big:get(base .. "/bytes/5000"):expect(200)
  http.get(base .. "/status/404")
end

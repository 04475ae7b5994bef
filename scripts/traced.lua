-- Requests a server's traces know: with traceparent = true (or `quern run
-- --traceparent`) each request carries a fresh W3C traceparent header, so
-- the server's tracing (OpenTelemetry, Jaeger, Zipkin, Tempo) records it
-- under that trace id. The run keeps each step's 10 slowest samples with
-- their trace ids (the summary's tests[i].slowest, the database, the
-- report) and the trace id of each error sample; a script reads a
-- response's own as r.trace_id, here to log the slow ones.
-- Run it against the demo target:  quern run scripts/traced.lua -p base_url=http://127.0.0.1:PORT
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("TRACED", {
  traceparent = true,
  pacing = quern.property("pacing", "1s"),
})
local search = sc:step(1, "Search")

function sc.run(vu)
  local r = search:get(base .. "/slow?ms=20"):expect(200)
  if r.time > 500 then
    quern.log("slow search:", r.time, "ms, trace id", r.trace_id)
  end
end

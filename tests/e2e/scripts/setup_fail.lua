-- A setup that fails, as -p how= says: "status" (a request answered 500),
-- "error" (a Lua error), "expect" (a failed check), "big" (more than 1 MiB
-- to send). No VU may start.
local quern = require "quern"
local http  = require "quern.http"
local base = quern.property("base_url", "http://127.0.0.1:8080")
local how = quern.property("how", "status")
local sc = quern.scenario("SETUP-FAIL", {})
local hit = sc:step(1, "Hit")

function sc.setup()
  if how == "status" then
    hit:post(base .. "/fail")
  elseif how == "error" then
    error("no token for this run")
  elseif how == "expect" then
    http.get(base .. "/login"):expect(201)
  else
    return { blob = string.rep("x", 2 << 20) }
  end
  return { token = "never" }
end

function sc.run(vu) hit:get(base .. "/hit") end

function sc.teardown(data) http.post(base .. "/logout") end

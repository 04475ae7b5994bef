-- The gRPC row: each VU makes CALLS unary calls demo.Echo/Say
-- (scripts/grpc/echo.proto) one after the other on its HTTP/2 connection,
-- each a sample of its own; with -p ca=FILE (in the script's folder) over
-- https://, the server's certificate checked against it. bench/run.sh runs
-- it from a folder where it put this file beside a copy of echo.proto:
--
--   bin/quern run DIR/grpc.lua --vus 10 --runs 1 -q -p grpc_target=http://127.0.0.1:PORT
local quern = require "quern"
local grpc = require "quern.grpc"

grpc.load("echo.proto")

local target = quern.property("grpc_target", "http://127.0.0.1:50051")
local n = tonumber(quern.property("calls", "1000"))
local sc = quern.scenario("BENCH-GRPC")
local say = sc:step(1, "Say")
local ca = quern.property("ca", "")
local opts = ca ~= "" and { tls = { ca = ca } } or nil

function sc.run()
  for i = 1, n do
    local r = say:grpc(target, "demo.Echo/Say", { name = "b", times = i }, opts)
    assert(r.message.text == "hello b", r.status_name)
  end
end

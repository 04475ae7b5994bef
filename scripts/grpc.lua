-- A gRPC client: a unary call with metadata (text and binary), a call whose
-- status is expected not to be OK, a server stream read message by message,
-- a client stream and a bidirectional one (its messages gzipped).
--
--   quern run scripts/grpc.lua --vus 10 --duration 30s -p grpc_target=http://127.0.0.1:PORT
--
-- The console compiles scripts/grpc/echo.proto with protoc (protobuf-compiler)
-- and ships the descriptor set to the agents. tests/tools/grpc_server.py is
-- such a server: python3 tests/tools/grpc_server.py /tmp/port, then
-- grpc_target=http://127.0.0.1:$(cat /tmp/port).
local quern = require "quern"
local grpc = require "quern.grpc"

grpc.load("grpc/echo.proto")

local target = quern.property("grpc_target", "http://127.0.0.1:50051")

local sc = quern.scenario("GRPC-ECHO", { pacing = quern.property("pacing", "100ms") })

local say = sc:step(1, "Say")
local missing = sc:step(2, "Not found")
local count = sc:step(3, "Count (a server stream)")
local collect = sc:step(4, "Collect (a client stream)")
local chat = sc:step(5, "Chat (bidirectional)")

function sc.run(vu)
  -- a key ending in -bin carries bytes: base64 on the wire, bytes in the script
  local blob = string.pack(">I4", vu.id) .. "\0\255"
  local r = say:grpc(target, "demo.Echo/Say", { name = "vu" .. vu.id, times = vu.run },
                     { metadata = { ["x-vu"] = tostring(vu.id), ["x-blob-bin"] = blob },
                       timeout = "2s" })
  assert(r.message.text == "hello vu" .. vu.id, r.message.text)
  assert(r.message.count == (1 << 40) + vu.run)
  assert(r.trailers["echo-x-vu"] == tostring(vu.id))
  assert(r.trailers["echo-x-blob-bin"] == blob, "the -bin trailer, decoded")

  -- an error status the step expects is no error
  local nf = missing:grpc(target, "demo.Echo/Abort", { code = 5, message = "no such user" })
  nf:expect("NOT_FOUND")

  -- a server stream, live: the sample is the time to its headers, each
  -- message comes to the loop as it arrives and is counted
  local s = count:grpc_stream(target, "demo.Echo/Count", { name = "n", times = 3 })
  local i = 0
  for m in s:messages() do
    i = i + 1
    assert(m.text == "n " .. i and m.count == i, m.text)
  end
  assert(i == 3 and s.status_name == "OK", s.status_name)

  -- a client stream: messages sent without waiting, one reply at the end
  local c = collect:grpc_stream(target, "demo.Echo/Collect", nil)
  for _, name in ipairs({ "a", "b", "c" }) do c:send({ name = name }) end
  local reply = c:finish()                      -- half-close, wait for the reply
  assert(c.status_name == "OK" and reply.text == "hello a, b, c" and reply.count == 3)

  -- bidirectional: each reply read before the next message is sent
  local b = chat:grpc_stream(target, "demo.Echo/Chat", { name = "first" }, { compression = "gzip" })
  assert(b:next().text == "hello first")
  b:send({ name = "second" })
  assert(b:next().text == "hello second")
  b:finish()
  assert(b.status_name == "OK", b.status_name)
end

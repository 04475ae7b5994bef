-- tests/e2e/grpc.sh: every field type round-tripped through
-- tests/tools/grpc_server.py's qt.Types/Echo, a deadline that passes, a
-- status the step does not expect, and one it does.
local quern = require "quern"
local grpc = require "quern.grpc"

grpc.load("types.proto")

local target = quern.property("grpc_target", "http://127.0.0.1:50051")
local sc = quern.scenario("GRPC-TYPES", {})
local echo = sc:step(1, "Echo every type")
local slow = sc:step(2, "Deadline")
local abort = sc:step(3, "Unexpected status")
local nf = sc:step(4, "Expected status")
local stream = sc:step(5, "Stream every type")

local function same(a, b, path)
  if type(a) ~= type(b) then error(path .. ": " .. tostring(a) .. " vs " .. tostring(b)) end
  if type(a) ~= "table" then
    if a ~= b then error(path .. ": " .. tostring(a) .. " vs " .. tostring(b)) end
    return
  end
  for k, v in pairs(a) do same(v, b[k], path .. "." .. tostring(k)) end
end

local all = {
  f_double = -1.25e300, f_float = 0.5, f_int64 = math.mininteger, f_uint64 = -1,
  f_int32 = -2147483648, f_fixed64 = math.maxinteger, f_fixed32 = 4294967295,
  f_bool = true, f_string = "héllo\0x", f_bytes = "\0\1\255", f_uint32 = 4294967295,
  f_enum = "NEG", f_sfixed32 = -7, f_sfixed64 = math.mininteger, f_sint32 = -2147483648,
  f_sint64 = math.maxinteger, inner = { s = "in", i = -1 },
  r_int32 = { 1, -1, 300 }, r_unpacked = { 4, 5 }, r_string = { "a", "", "c" },
  r_inner = { { s = "x", i = 1 }, { s = "", i = 2 } }, r_enum = { "RED", "GREEN", "NEG" },
  r_double = { 0.25, -3.5 }, m_str = { a = 1, b = math.mininteger },
  m_inner = { [3] = { s = "three", i = 0 }, [-1] = { s = "", i = 9 } },
  o_inner = { s = "picked", i = 4 }, opt = 0,
  child = { f_string = "deep", child = { f_int32 = 7 } },
}

function sc.run(vu)
  local r = echo:grpc(target, "qt.Types/Echo", all, { metadata = { ["x-vu"] = tostring(vu.id) } })
  assert(r.status == 0 and r.status_name == "OK")
  same(all, r.message, "message")
  assert(r.message.o_name == nil and r.message.o_id == nil)
  assert(r.headers["content-type"]:find("application/grpc", 1, true))
  assert(r.trailers["grpc-status"] == "0")

  -- the server sleeps 600 ms past a 200 ms deadline: DEADLINE_EXCEEDED
  local d = slow:grpc(target, "qt.Types/Sleep", { i = 600 }, { timeout = "200ms" })
  assert(d.status_name == "DEADLINE_EXCEEDED", d.status_name)

  -- an abort no step expects: a technical error, the script goes on
  local a = abort:grpc(target, "qt.Types/Abort", { i = 9, s = "not now" })
  assert(a.status == 9 and a.error == "not now", tostring(a.error))

  nf:grpc(target, "qt.Types/Abort", { i = 5, s = "gone" }):expect({ "OK", 5 })

  local s = stream:grpc_stream(target, "qt.Types/Stream", all)
  s:expect("OK")
  local n = 0
  for m in s:messages() do
    same(all, m, "stream " .. n)
    n = n + 1
  end
  assert(n == 2 and s.count == 2, "messages: " .. n)
  -- a unary method is not a stream, and the other way round
  assert(not pcall(stream.grpc_stream, stream, target, "qt.Types/Echo", {}))
  local ok, err = pcall(echo.grpc, echo, target, "qt.Types/Echo", { nope = 1 })
  assert(not ok and err:find("types.lua:%d+: grpc: unknown field 'nope' in qt.All"), err)
end

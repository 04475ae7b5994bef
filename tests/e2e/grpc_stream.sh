# A gRPC server stream is live (tests/tools/grpc_server.py's qt.Types/Drip:
# headers, then 5 messages 200 ms apart): the script gets the first message
# well before the stream ends, the rest as they come; a loop left with break
# and streams left open at the run's end cancel the call, which the server
# sees; a unary call and a second stream of the VU meanwhile are unharmed;
# a deadline passed mid-stream ends it as a technical error. quern's counts must equal the server's own, printed by it at exit.
. "$(dirname "$0")/grpc_lib.bash"
grpc_start g
mkdir -p "$TMP/d"
cp tests/e2e/scripts/grpc/types.proto "$TMP/d/"
cat >"$TMP/d/drip.lua" <<LUA
local quern = require "quern"
local grpc = require "quern.grpc"
grpc.load("types.proto")
local target = "http://127.0.0.1:$(cat "$TMP/g.port")"
local sc = quern.scenario("DRIP", {})
local open, first, rest = sc:step(1, "open"), sc:step(2, "first message"), sc:step(3, "the rest")
local early, left, echo = sc:step(4, "break"), sc:step(5, "left open"), sc:step(6, "echo")
local late = sc:step(7, "deadline")
function sc.run()
  local s = open:grpc_stream(target, "qt.Types/Drip", { i = 5 })
  assert(s.status == nil, "the stream is open")
  local it, m = s:messages(), nil
  first:time(function() m = it() end)
  assert(m.s == "1" and m.i == 1, tostring(m.s))
  local n = 1
  rest:time(function()
    for x in it do
      n = n + 1
      assert(x.i == n)
    end
  end)
  assert(n == 5 and s.count == 5 and s.status_name == "OK", s.status_name)
  assert(s.trailers["grpc-status"] == "0")

  -- a deadline that passes mid-stream: the end's status, a technical error
  local d = late:grpc_stream(target, "qt.Types/Drip", { i = 5 }, { timeout = "300ms" })
  local k = 0
  for _ in d:messages() do k = k + 1 end
  assert(k == 1 and d.status_name == "DEADLINE_EXCEEDED", k .. " " .. tostring(d.status_name))

  -- break after the first message: the loop's end cancels the call
  local b = early:grpc_stream(target, "qt.Types/Drip", { i = 5 })
  for _ in b:messages() do break end
  assert(b.status_name == "CANCELLED", b.status_name)

  -- left open: the run's end cancels it; meanwhile the same VU makes a
  -- unary call and opens a second stream
  local l = left:grpc_stream(target, "qt.Types/Drip", { i = 5 })
  assert(l:next().s == "1")
  local e = echo:grpc(target, "qt.Types/Echo", { f_string = "x" })
  assert(e.message.f_string == "x", e.status_name)
  local l2 = left:grpc_stream(target, "qt.Types/Drip", { i = 5 })
  assert(l2:next().s == "1" and l:next().s == "2")
end
LUA
timeout 30 "$QUERN" run "$TMP/d/drip.lua" --vus 2 --runs 2 -q --allow-errors \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "grpc_stream: the run ends (the deadline's errors allowed)" "$?" 0
sleep 0.5 # the server notices a cancel within 200 ms
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
S=$TMP/s.json G=$TMP/g.out
s() { sj "$S" ".tests[] | select(.id == \"SC-DRIP-STEP-$1\") | $2"; }
ms() { s "$1" '.mean_ms | floor'; }
eq "grpc_stream: samples, no error" "$(s 1 .count)/$(s 1 .errors.technical)/$(s 4 .count)/$(s 4 .errors.technical)/$(s 5 .count)/$(s 5 .errors.technical)/$(s 6 .errors.technical)" 4/0/4/0/8/0/0
# the stream lasts 1 s: its headers and first message come in 200 ms
between "grpc_stream: the first message is waited for (ms)" "$(ms 2)" 150 450
check "grpc_stream: the first message comes before half the stream ($(ms 1) + $(ms 2) ms)" \
  test "$(($(ms 1) + $(ms 2)))" -lt 500
check "grpc_stream: the whole stream lasts its 1 s ($(ms 1) + $(ms 2) + $(ms 3) ms)" \
  test "$(($(ms 1) + $(ms 2) + $(ms 3)))" -ge 900
eq "grpc_stream: messages received = the server's sent" \
  "$(($(s 1 .messages.received) + $(s 4 .messages.received) + $(s 5 .messages.received) + $(s 7 .messages.received)))" "$(jq .drip_sent "$G")"
eq "grpc_stream: a deadline passed mid-stream is a technical error" "$(s 7 .count)/$(s 7 .errors.technical)/$(s 7 .messages.received)" 4/4/4
check "grpc_stream: its sample says so" grep -q "DEADLINE_EXCEEDED" <<<"$(s 7 .errors.samples.technical)"
eq "grpc_stream: messages before break, and before the run's end" "$(s 4 .messages.received)/$(s 5 .messages.received)" 4/12
# the server counts the deadline's calls too: they did not end as it wanted
eq "grpc_stream: the server saw the break and the run's end cancel" "$(jq .drip_cancelled "$G")" 16
eq "grpc_stream: Drip's calls = the server's" "$(jq .calls.TypesDrip "$G")" 20

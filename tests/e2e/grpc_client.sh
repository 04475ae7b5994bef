# gRPC client and bidirectional streams against tests/tools/grpc_server.py
# (qt.Types/Sum, Chat and Batch): messages sent as the script sends them,
# one reply after the half-close, echoes read between two sends on the same
# stream (full duplex), replies that wait for N messages, a server's error
# mid-stream (the upload paused when it came), a cancel and a deadline the
# server sees, the bound on messages waiting to be sent, and both kinds over
# TLS. quern's counts must equal the server's own, printed by it at exit.
. "$(dirname "$0")/grpc_lib.bash"
grpc_start g
mkdir -p "$TMP/d"
cp tests/e2e/scripts/grpc/types.proto "$TMP/d/"
cat >"$TMP/d/client.lua" <<LUA
local quern = require "quern"
local grpc = require "quern.grpc"
grpc.load("types.proto")
local target = "http://127.0.0.1:$(cat "$TMP/g.port")"
local sc = quern.scenario("CS", {})
local sum, chat, batch = sc:step(1, "sum"), sc:step(2, "chat"), sc:step(3, "batch")
local abort, chat_abort = sc:step(4, "sum aborted"), sc:step(5, "chat aborted")
local cancel, late, bound = sc:step(6, "cancel"), sc:step(7, "deadline"), sc:step(8, "bound")
function sc.run()
  -- client streaming: the first message with the open, four more, one reply
  local s = sum:grpc_stream(target, "qt.Types/Sum", { i = 10 })
  for k = 1, 4 do assert(s:send({ i = k }) == true) end
  local r = s:finish()
  assert(r and r.i == 5 and r.s == "20", r and r.s)
  assert(s.status_name == "OK" and s.sent == 5 and s.count == 1, s.status_name)
  local ok = pcall(s.send, s, { i = 1 })
  assert(not ok, "a send after finish is refused")

  -- bidirectional, in lock-step: each echo read before the next send
  local c = chat:grpc_stream(target, "qt.Types/Chat", nil, { metadata = { ["x-t"] = "1" } })
  for k = 1, 5 do
    c:send({ i = k, s = "m" .. k })
    local m = c:next()
    assert(m and m.i == k and m.s == "m" .. k, "echo " .. k)
  end
  assert(select("#", c:finish()) == 0 and c.status_name == "OK", c.status_name)

  -- replies only after 4 messages: all sent first, then read
  local b = batch:grpc_stream(target, "qt.Types/Batch", { i = 4 })
  for k = 2, 4 do b:send({ i = k }) end
  b:close_send()
  local n = 0
  for m in b:messages() do n = n + 1; assert(m.i == (n == 1 and 4 or n)) end
  assert(n == 4 and b.status_name == "OK", n .. " " .. tostring(b.status_name))

  -- the server's error at message 3: the step's technical error
  local a = abort:grpc_stream(target, "qt.Types/Sum", nil)
  a:send({ i = 1 }); a:send({ i = 2 }); a:send({ s = "abort" })
  assert(a:finish() == nil and a.status_name == "INVALID_ARGUMENT", a.status_name)
  assert(a.error == "abort at message 3", a.error)

  -- the same in a bidirectional stream, whose upload is paused when it comes
  local x = chat_abort:grpc_stream(target, "qt.Types/Chat", nil)
  x:send({ i = 1 }); assert(x:next().i == 1)
  x:send({ i = 2 }); assert(x:next().i == 2)
  x:send({ s = "abort" })
  assert(x:next() == nil and x.status_name == "INVALID_ARGUMENT", tostring(x.status_name))
  assert(x:send({ i = 4 }) == false, "a send after the end is not sent")

  -- a cancel the server sees
  local y = cancel:grpc_stream(target, "qt.Types/Chat", { i = 1 })
  assert(y:next().i == 1)
  y:cancel()
  assert(y.status_name == "CANCELLED")

  -- a deadline that passes while the stream is open
  local z = late:grpc_stream(target, "qt.Types/Chat", { i = 1 }, { timeout = "300ms" })
  assert(z:next().i == 1)
  quern.sleep("600ms")
  assert(z:next() == nil and z.status_name == "DEADLINE_EXCEEDED", tostring(z.status_name))

  -- more than 1024 messages waiting to be sent: a technical error, raised
  local q = bound:grpc_stream(target, "qt.Types/Sum", nil)
  for _ = 1, 1100 do q:send({ i = 1 }) end
  error("not reached")
end
LUA
timeout 60 "$QUERN" run "$TMP/d/client.lua" --vus 2 --runs 2 -q --allow-errors \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "grpc_client: the run ends (the errors allowed)" "$?" 0
check "grpc_client: no sanitizer report" test "$(grep -c 'runtime error\|AddressSanitizer' "$TMP/err")" = 0
sleep 0.5
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
S=$TMP/s.json G=$TMP/g.out
s() { sj "$S" ".tests[] | select(.id == \"SC-CS-STEP-$1\") | $2"; }
sum_of() { local t=0; for i in 1 2 3 4 5 6 7 8; do t=$((t + $(s "$i" ".messages.$1"))); done; echo "$t"; }
eq "grpc_client: samples without error" "$(s 1 .count)/$(s 1 .errors.technical)/$(s 2 .count)/$(s 2 .errors.technical)/$(s 3 .count)/$(s 3 .errors.technical)/$(s 6 .errors.technical)" 4/0/4/0/4/0/0
eq "grpc_client: messages sent, step by step" "$(s 1 .messages.sent)/$(s 2 .messages.sent)/$(s 3 .messages.sent)/$(s 4 .messages.sent)/$(s 5 .messages.sent)/$(s 6 .messages.sent)/$(s 7 .messages.sent)/$(s 8 .messages.sent)" 20/20/16/12/12/4/4/0
eq "grpc_client: messages sent = the server's received" "$(sum_of sent)" "$(jq .streamed_in "$G")"
eq "grpc_client: messages received = the server's sent (and Sum's replies)" \
  "$(sum_of received)" "$(($(jq .streamed_back "$G") + $(s 1 .count)))"
eq "grpc_client: Sum's and Chat's calls = the server's" "$(jq .calls.TypesSum "$G")/$(jq .calls.TypesChat "$G")" 12/16
eq "grpc_client: a server's error mid-stream is the step's technical error" "$(s 4 .errors.technical)/$(s 5 .errors.technical)" 4/4
check "grpc_client: its sample names the status and message" grep -q "INVALID_ARGUMENT: abort at message 3" <<<"$(s 4 .errors.samples.technical) $(s 5 .errors.samples.technical)"
eq "grpc_client: aborts = the server's" "$(jq .aborted "$G")" 8
eq "grpc_client: the server saw the cancels" "$(jq .chat_cancelled "$G")" 4
eq "grpc_client: a deadline passed mid-stream, seen by the server" "$(s 7 .errors.technical)/$(jq .chat_deadline "$G")" 4/4
check "grpc_client: its sample says DEADLINE_EXCEEDED" grep -q "DEADLINE_EXCEEDED" <<<"$(s 7 .errors.samples.technical)"
eq "grpc_client: the send queue's bound is a technical error" "$(s 8 .errors.technical)" 4
check "grpc_client: which says so" grep -q "waiting to be sent" <<<"$(s 8 .errors.samples.technical)"

# --- over TLS (ALPN h2): a client stream and a bidirectional one ----------------
grpc_tls "$TMP/tls"
grpc_start gs "$TMP/tls/ca.pem" "$TMP/tls/key.pem"
cat >"$TMP/tls/tls.lua" <<LUA
local grpc = require "quern.grpc"
grpc.load("types.proto")
local sc = require("quern").scenario("TLS", {})
local sum, chat = sc:step(1, "sum"), sc:step(2, "chat")
local target, opts = "https://127.0.0.1:$(cat "$TMP/gs.port")", { tls = { ca = "ca.pem" } }
function sc.run()
  local s = sum:grpc_stream(target, "qt.Types/Sum", nil, opts)
  for k = 1, 3 do s:send({ i = k }) end
  local r = s:finish()
  assert(r.i == 3 and r.s == "6", s.status_name)
  local c = chat:grpc_stream(target, "qt.Types/Chat", nil, opts)
  for k = 1, 3 do c:send({ i = k }); assert(c:next().i == k) end
  c:finish()
  assert(c.status_name == "OK", c.status_name)
end
LUA
timeout 30 "$QUERN" run "$TMP/tls/tls.lua" --vus 2 --runs 1 -q --summary-json "$TMP/tls.json" >"$TMP/tlsout" 2>"$TMP/tlserr"
eq "grpc_client: streams over TLS, no error" "$?" 0
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
eq "grpc_client: over TLS, messages sent = the server's received" \
  "$(($(sj "$TMP/tls.json" '[.tests[].messages.sent] | add')))" "$(jq .streamed_in "$TMP/gs.out")"

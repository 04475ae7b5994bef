# gRPC message compression against tests/tools/grpc_server.py (qt.Types/Zip
# and ZipChat, which gzip their replies when the client accepts gzip): a
# unary call and a bidirectional stream with compression = "gzip" both ways
# (the bytes on the wire a fraction of the messages', the server's decoded
# lengths those sent), and a reply that inflates past 4 MiB refused as
# RESOURCE_EXHAUSTED, unary and streamed.
. "$(dirname "$0")/grpc_lib.bash"
grpc_start g
mkdir -p "$TMP/d"
cp tests/e2e/scripts/grpc/types.proto "$TMP/d/"
cat >"$TMP/d/zip.lua" <<LUA
local quern = require "quern"
local grpc = require "quern.grpc"
grpc.load("types.proto")
local target = "http://127.0.0.1:$(cat "$TMP/g.port")"
local sc = quern.scenario("Z", {})
local zip, chat, bomb, sbomb = sc:step(1, "zip"), sc:step(2, "chat"), sc:step(3, "bomb"), sc:step(4, "stream bomb")
local gz = { compression = "gzip" }
function sc.run()
  local big = string.rep("a", 100000)
  local r = zip:grpc(target, "qt.Types/Zip", { s = big, i = 200000 }, gz)
  assert(r.status_name == "OK", r.status_name .. " " .. tostring(r.error))
  assert(r.message.i == 100000 and r.message.s == string.rep("z", 200000))
  assert(r.headers["grpc-encoding"] == "gzip", "the reply came gzipped")
  assert(not pcall(zip.grpc, zip, target, "qt.Types/Zip", {}, { compression = "br" }))

  local c = chat:grpc_stream(target, "qt.Types/ZipChat", nil, gz)
  for _ = 1, 3 do
    c:send({ s = big, i = 300000 })
    local m = c:next()
    assert(m and m.i == 100000 and #m.s == 300000, tostring(c.error))
  end
  c:finish()
  assert(c.status_name == "OK", c.status_name)

  -- 5 MiB of "z" in a few KiB: refused at 4 MiB, not held
  local b = bomb:grpc(target, "qt.Types/Zip", { i = 5 << 20 })
  assert(b.status_name == "RESOURCE_EXHAUSTED", b.status_name)
  local s = sbomb:grpc_stream(target, "qt.Types/ZipChat", { i = 5 << 20 })
  assert(s:next() == nil and s.status_name == "RESOURCE_EXHAUSTED", tostring(s.status_name))
end
LUA
timeout 60 "$QUERN" run "$TMP/d/zip.lua" --vus 2 --runs 2 -q --allow-errors \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "grpc_zip: the run ends (the bombs' errors allowed)" "$?" 0
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
S=$TMP/s.json G=$TMP/g.out
s() { sj "$S" ".tests[] | select(.id == \"SC-Z-STEP-$1\") | $2"; }
eq "grpc_zip: compressed calls without error" "$(s 1 .count)/$(s 1 .errors.technical)/$(s 2 .count)/$(s 2 .errors.technical)" 4/0/4/0
eq "grpc_zip: the server decoded what was sent (unary, stream, bombs)" \
  "$(jq -c '.zip_lengths | group_by(.) | map([.[0], length])' "$G")" '[[0,8],[100000,16]]'
eq "grpc_zip: messages sent and received in the stream" "$(s 2 .messages.sent)/$(s 2 .messages.received)" 12/12
# 100,000 bytes of "a" sent, 300,000 of "z" received, a message: gzip makes each a few hundred
check "grpc_zip: the messages sent were gzipped ($(s 2 .messages.bytes_sent) bytes for 12)" \
  test "$(s 2 .messages.bytes_sent)" -lt 12000
check "grpc_zip: the replies came gzipped ($(s 2 .messages.bytes_received) bytes for 12)" \
  test "$(s 2 .messages.bytes_received)" -lt 24000
eq "grpc_zip: a reply past 4 MiB once inflated is a technical error" "$(s 3 .errors.technical)/$(s 4 .errors.technical)" 4/4
check "grpc_zip: which says so" grep -q "RESOURCE_EXHAUSTED: a compressed message of more than 4194304 bytes once inflated" <<<"$(s 3 .errors.samples.technical)"
check "grpc_zip: a stream's too" grep -q "once inflated" <<<"$(s 4 .errors.samples.technical)"
check "grpc_zip: no sanitizer report" test "$(grep -c 'runtime error\|AddressSanitizer' "$TMP/err")" = 0

# gRPC steps against a real server (tests/tools/grpc_server.py, on
# python3-grpcio): scripts/grpc.lua's unary calls with metadata (-bin
# values base64 on the wire, decoded in the trailers echoed), an
# expected NOT_FOUND and a server stream over two workers, every field type
# round-tripped (unary and streamed), a
# deadline the server lets pass, an abort no step expects, https:// with a
# self-signed certificate (verified against it, refused without), the .proto
# compiled once by the console (agents need no protoc), and a .proto with a
# syntax error refused before any load. quern's counts must equal the
# server's own, printed by it at exit.
. "$(dirname "$0")/grpc_lib.bash"
grpc_start g
GT="http://127.0.0.1:$(cat "$TMP/g.port")"

# protoc through a wrapper that counts its calls: the console's check of the
# script compiles each .proto, the workers read the set from the bundle
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho x >>"%s"\nexec "%s" "$@"\n' "$TMP/protoc.calls" "$(command -v protoc)" >"$TMP/bin/protoc"
chmod +x "$TMP/bin/protoc"

# --- the example, two workers --------------------------------------------------
PATH="$TMP/bin:$PATH" timeout 60 "$QUERN" run scripts/grpc.lua --vus 4 --runs 5 --workers 2 -q \
  -p grpc_target="$GT" -p pacing=0s --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "grpc: the example runs without error" "$?" 0
eq "grpc: protoc ran once, in the console" "$(wc -l <"$TMP/protoc.calls")" 1
# --- every field type, deadline, statuses ------------------------------------------
timeout 60 "$QUERN" run tests/e2e/scripts/grpc/types.lua --vus 2 --runs 3 --workers 2 -q \
  --allow-errors -p grpc_target="$GT" --summary-json "$TMP/t.json" >"$TMP/tout" 2>"$TMP/terr"
eq "grpc: the types run ends (errors allowed)" "$?" 0
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
S=$TMP/s.json T=$TMP/t.json G=$TMP/g.out
s() { sj "$1" ".tests[] | select(.id == \"$2\") | $3"; }
eq "grpc: Say's samples, no error" "$(s "$S" SC-GRPC-ECHO-STEP-1 .count)/$(s "$S" SC-GRPC-ECHO-STEP-1 .errors.technical)" 20/0
eq "grpc: Say's calls = the server's" "$(s "$S" SC-GRPC-ECHO-STEP-1 .count)" "$(jq .calls.Say "$G")"
eq "grpc: metadata seen by the server (x-vu of each VU, 5 runs)" "$(jq -cS '.x_vu' "$G")" '{"1":5,"2":5,"3":5,"4":5}'
eq "grpc: -bin metadata seen by the server as the bytes sent" "$(jq -cS '.bin' "$G")" \
  '{"0000000100ff":5,"0000000200ff":5,"0000000300ff":5,"0000000400ff":5}'
eq "grpc: an expected NOT_FOUND is no error" "$(s "$S" SC-GRPC-ECHO-STEP-2 .count)/$(s "$S" SC-GRPC-ECHO-STEP-2 .errors.technical)/$(s "$S" SC-GRPC-ECHO-STEP-2 .errors.functional)" 20/0/0
eq "grpc: every field type round-tripped equal" "$(s "$T" SC-GRPC-TYPES-STEP-1 .count)/$(s "$T" SC-GRPC-TYPES-STEP-1 .errors.technical)/$(s "$T" SC-GRPC-TYPES-STEP-1 .errors.functional)" 6/0/0
eq "grpc: Echo's calls = the server's" "$(s "$T" SC-GRPC-TYPES-STEP-1 .count)" "$(jq .calls.TypesEcho "$G")"
eq "grpc: DEADLINE_EXCEEDED is a technical error" "$(s "$T" SC-GRPC-TYPES-STEP-2 .count)/$(s "$T" SC-GRPC-TYPES-STEP-2 .errors.technical)" 6/6
check "grpc: the deadline's sample says so" grep -q "DEADLINE_EXCEEDED" <<<"$(s "$T" SC-GRPC-TYPES-STEP-2 .errors.samples.technical)"
between "grpc: the deadline's calls last about 200 ms" "$(s "$T" SC-GRPC-TYPES-STEP-2 .mean_ms)" 190 450
eq "grpc: an unexpected status is a technical error" "$(s "$T" SC-GRPC-TYPES-STEP-3 .errors.technical)" 6
check "grpc: its sample names the status and message" grep -q "FAILED_PRECONDITION: not now" <<<"$(s "$T" SC-GRPC-TYPES-STEP-3 .errors.samples.technical)"
eq "grpc: a status in expect's list is no error" "$(s "$T" SC-GRPC-TYPES-STEP-4 .errors.technical)/$(s "$T" SC-GRPC-TYPES-STEP-4 .errors.functional)" 0/0
eq "grpc: streams are samples, no error" "$(s "$S" SC-GRPC-ECHO-STEP-3 .count)/$(s "$S" SC-GRPC-ECHO-STEP-3 .errors.technical)/$(s "$T" SC-GRPC-TYPES-STEP-5 .count)/$(s "$T" SC-GRPC-TYPES-STEP-5 .errors.technical)" 20/0/6/0
eq "grpc: streams' messages received = the server's streamed" \
  "$(($(s "$S" SC-GRPC-ECHO-STEP-3 .messages.received) + $(s "$T" SC-GRPC-TYPES-STEP-5 .messages.received)))" "$(jq .streamed "$G")"
eq "grpc: Count's messages (3 a call)" "$(s "$S" SC-GRPC-ECHO-STEP-3 .messages.received)/$(s "$S" SC-GRPC-ECHO-STEP-3 .messages.sent)" 60/20
eq "grpc: client and bidirectional streams, no error" "$(s "$S" SC-GRPC-ECHO-STEP-4 .count)/$(s "$S" SC-GRPC-ECHO-STEP-4 .errors.technical)/$(s "$S" SC-GRPC-ECHO-STEP-5 .count)/$(s "$S" SC-GRPC-ECHO-STEP-5 .errors.technical)" 20/0/20/0
eq "grpc: their messages sent = the server's received" "$(($(s "$S" SC-GRPC-ECHO-STEP-4 .messages.sent) + $(s "$S" SC-GRPC-ECHO-STEP-5 .messages.sent)))" "$(jq .streamed_in "$G")"
eq "grpc: Chat's replies = the server's sent" "$(s "$S" SC-GRPC-ECHO-STEP-5 .messages.received)" "$(jq .streamed_back "$G")"
eq "grpc: aborted calls = the server's" "$(($(s "$S" SC-GRPC-ECHO-STEP-2 .count) + $(s "$T" SC-GRPC-TYPES-STEP-3 .count) + $(s "$T" SC-GRPC-TYPES-STEP-4 .count)))" "$(jq .aborted "$G")"

# --- https://: TLS with ALPN h2, the certificate checked against its CA --------
grpc_tls "$TMP/tls"
grpc_start gs "$TMP/tls/ca.pem" "$TMP/tls/key.pem"
cat >"$TMP/tls/tls.lua" <<LUA
local grpc = require "quern.grpc"
grpc.load("types.proto")
local sc = require("quern").scenario("TLS", {})
local echo, bad = sc:step(1, "echo"), sc:step(2, "unverified")
function sc.run()
  local r = echo:grpc("https://127.0.0.1:$(cat "$TMP/gs.port")", "qt.Types/Echo",
                      { f_string = "over tls", r_int32 = { 1, 2 } }, { tls = { ca = "ca.pem" } })
  assert(r.message.f_string == "over tls" and r.message.r_int32[2] == 2)
  -- without the CA the certificate is refused: UNAVAILABLE, a technical error
  local u = bad:grpc("https://127.0.0.1:$(cat "$TMP/gs.port")", "qt.Types/Echo", {})
  assert(u.status_name == "UNAVAILABLE", u.status_name)
end
LUA
timeout 30 "$QUERN" run "$TMP/tls/tls.lua" --vus 2 --runs 2 -q --allow-errors \
  --summary-json "$TMP/tls.json" >"$TMP/tlsout" 2>"$TMP/tlserr"
eq "grpc: the TLS run ends" "$?" 0
kill -TERM "$G_PID"; wait "$G_PID"; G_PID=""
eq "grpc: https:// calls verified against the CA, no error" "$(s "$TMP/tls.json" SC-TLS-STEP-1 .count)/$(s "$TMP/tls.json" SC-TLS-STEP-1 .errors.technical)" 4/0
eq "grpc: https:// calls = the TLS server's" "$(jq .calls.TypesEcho "$TMP/gs.out")" 4
eq "grpc: an unverified certificate is a technical error" "$(s "$TMP/tls.json" SC-TLS-STEP-2 .errors.technical)" 4

# --- a .proto that does not compile: refused before any load --------------------------
mkdir -p "$TMP/bad"
printf 'syntax = "proto3";\nmessage A {\n  int32 x = 1\n}\n' >"$TMP/bad/svc.proto"
printf 'local grpc = require "quern.grpc"\ngrpc.load("svc.proto")\nlocal sc = require("quern").scenario("B", {})\nlocal s = sc:step(1, "x")\nfunction sc.run() s:grpc("http://127.0.0.1:1", "A/B", {}) end\n' >"$TMP/bad/bad.lua"
timeout 30 "$QUERN" run "$TMP/bad/bad.lua" --vus 1 --runs 1 >"$TMP/bout" 2>"$TMP/berr"
eq "grpc: a broken .proto stops the run before any load" "$?" 2
check "grpc: the error gives the script's line and protoc's file:line" \
  grep -q 'bad.lua:2: grpc.load: svc.proto:4:1: Expected ";"' "$TMP/berr"

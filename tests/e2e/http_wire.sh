# Wire checks against a real nginx (tests/e2e/http_lib.bash): tls.min = "1.3"
# against a TLSv1.2-only server, and connect_timeout against a listener that
# never completes the handshake (its backlog full): both technical errors,
# the refused ones never in nginx's log, the timeout's samples within bounds.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/http_lib.bash"
http_nginx

# ---- wire checks: tls.min against a TLSv1.2-only nginx; connect_timeout against
# a listener whose backlog is full (the kernel drops the SYNs: connect never completes)
python3 - "$TMP/hang.port" <<'EOF' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)  # never accepted: one connection fills the queue
port = s.getsockname()[1]
held = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    held.append(c)
time.sleep(0.5)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(port))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
EOF
HANG_PID=$!
for _ in $(seq 50); do [ -s "$TMP/hang.port" ] && break; sleep 0.1; done
HANG=$(cat "$TMP/hang.port" 2>/dev/null)
curl -s -o /dev/null --connect-timeout 1 "http://127.0.0.1:$HANG/"
eq "the full listener really blocks a connect (curl: timeout, 28)" "$?" 28
cat >"$S/wire.lua" <<'EOF'
local quern = require "quern"
local p5, hang = quern.property("p5"), quern.property("hang")
local sc = quern.scenario("WIRE", { request = { resolve = { "quern.test:" .. p5 .. ":127.0.0.1" } } })
local t13, t12, cto = sc:step(1, "tls13"), sc:step(2, "tls12"), sc:step(3, "connect_timeout")
function sc.run(vu)
  t13:get("https://quern.test:" .. p5 .. "/min13", { tls = { ca = "ca.crt", min = "1.3" } })
  t12:get("https://quern.test:" .. p5 .. "/min12", { tls = { ca = "ca.crt", min = "1.2" } }):expect(200)
  cto:get("http://127.0.0.1:" .. hang .. "/", { connect_timeout = "300ms" })
end
EOF
"$QUERN" run "$S/wire.lua" --vus 2 --runs 2 -q --allow-errors -p p5=$P5 -p hang="$HANG" \
  --summary-json "$TMP/wire.json" >/dev/null 2>"$TMP/werr"
eq "wire: the run ends" "$?" 0
wn() { jq -r --arg s "$1" ".tests[] | select(.name | endswith(\")\" + \$s)) | $2" "$TMP/wire.json"; }
eq "tls.min 1.3 against TLSv1.2 only: a technical error each time" "$(wn tls13 '"\(.count) \(.errors.technical)"')" "4 4"
check "its message is the TLS refusal" grep -qi 'protocol version\|unsupported protocol\|SSL' \
  <(wn tls13 '.. | strings')
eq "tls.min 1.2: served (TLSv1.2), the refused ones never logged" \
  "$(lines "$P5" /min12 | awk '{print $4}' | sort | uniq -c | awk '{print $1, $2}') $(lines "$P5" /min13 | wc -l)" "4 TLSv1.2 0"
eq "connect_timeout: a technical error each time" "$(wn connect_timeout '"\(.count) \(.errors.technical)"')" "4 4"
# (libcurl words it two ways, by which of its timers fired first: the
# connect's own, or the multi handle's once the machine was busy)
check "its message says the connect timed out" \
  grep -Eq 'Failed to connect .* after [0-9]* ms: Timeout was reached|Connection timed out after [0-9]* milliseconds' \
  <(wn connect_timeout '.. | strings')
between "connect_timeout 300ms: the fastest sample waited for it (ms)" "$(wn connect_timeout .min_ms)" 290 2500
between "connect_timeout 300ms: the slowest within its bound (ms)" "$(wn connect_timeout .max_ms)" 290 2500
kill "$HANG_PID" 2>/dev/null


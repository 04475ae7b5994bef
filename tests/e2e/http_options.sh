# Request options against a real nginx with TLS and HTTP/2
# (tests/e2e/http_lib.bash), one scenario of twelve steps, nginx's access log
# the judge: HTTP/2 by ALPN and h2c with prior knowledge, proven by nginx's
# $server_protocol; one connection per VU ($connection); an untrusted
# certificate refused without ca, accepted with insecure or ca; a client
# certificate with a pass phrase verified by nginx; gzip bodies checked after
# decoding; basic and bearer auth accepted by nginx; --trace showing the
# Authorization scheme only, and the credentials in no output file.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/http_lib.bash"
http_nginx
check "test CA and certificates made" test -s "$S/cli.crt"

# ---- the scenario: every option, each step on its own server or path
cat >"$S/http.lua" <<'EOF'
local quern = require "quern"
local p1, p2, p3, p4 = quern.property("p1"), quern.property("p2"), quern.property("p3"), quern.property("p4")
local sc = quern.scenario("HTTP", {
  request = {
    resolve = { "quern.test:" .. p1 .. ":127.0.0.1", "quern.test:" .. p3 .. ":127.0.0.1",
                "quern.test:" .. p4 .. ":127.0.0.1" },
    http2 = true,
    connect_timeout = "2s",
  },
})
local h2, h2c, h1 = sc:step(1, "h2"), sc:step(2, "h2c"), sc:step(3, "http1")
local untrusted, insecure, trusted = sc:step(4, "untrusted"), sc:step(5, "insecure"), sc:step(6, "ca")
local mtls, gz, plain, auth, noauth = sc:step(7, "mtls"), sc:step(8, "gzip"), sc:step(9, "identity"),
  sc:step(10, "auth"), sc:step(11, "noauth")
local bearer = sc:step(12, "bearer")
local base1, base2 = "https://quern.test:" .. p1, "https://quern.test:" .. p2
local r2 = { "quern.test:" .. p2 .. ":127.0.0.1" }
local T = { ca = "ca.crt" } -- relative to this script's folder

local function proto(r, want)
  if r.protocol ~= want then error("protocol " .. tostring(r.protocol) .. ", want " .. want) end
end

function sc.run(vu)
  local hv = { ["X-VU"] = vu.id }
  proto(h2:get(base1 .. "/", { headers = hv, tls = T }):expect(200):contains("hello"), "HTTP/2")
  proto(h2c:get("http://quern.test:" .. p4 .. "/", { headers = hv }):expect(200), "HTTP/2")
  proto(h1:get(base2 .. "/", { headers = hv, resolve = r2, http1 = true, tls = T }):expect(200), "HTTP/1.1")
  untrusted:get(base2 .. "/untrusted", { headers = hv, resolve = r2 }) -- the system's CAs
  insecure:get(base2 .. "/insecure", { headers = hv, resolve = r2, tls = { insecure = true } })
  trusted:get(base2 .. "/trusted", { headers = hv, resolve = r2, tls = T }):expect(200)
  mtls:get("https://quern.test:" .. p3 .. "/mtls", { headers = hv, tls = { ca = "ca.crt", cert = "cli.crt", key = "cli.key",
    password = quern.property("key_password") } }):expect(200)
  local g = gz:get(base1 .. "/gz/big.txt", { headers = hv, tls = T }):expect(200):contains("quern gzip line")
  if g.headers["content-encoding"] ~= "gzip" then error("not gzip") end
  if vu.id == 1 and vu.run == 1 then quern.log("gzip body " .. #g.body .. " bytes, r.size " .. g.size) end
  local i = plain:get(base1 .. "/gz/big.txt", { headers = hv, compressed = false, tls = T }):expect(200)
  if i.headers["content-encoding"] then error("encoded") end
  if vu.id == 1 and vu.run == 1 then quern.log("identity body " .. #i.body .. " bytes, r.size " .. i.size) end
  auth:get(base1 .. "/auth/", { headers = hv, tls = T, auth = { user = "alice", password = quern.property("password") } })
    :expect(200):contains("authed")
  noauth:get(base1 .. "/auth/", { headers = hv, tls = T }):expect(401)
  bearer:get(base1 .. "/bearer", { headers = hv, tls = T, auth = { type = "bearer", token = quern.property("token") } })
    :expect(200):contains("bearer")
end
EOF

VUS=4
RUNS=3
"$QUERN" run "$S/http.lua" --vus $VUS --runs $RUNS -q --allow-errors -p p1=$P1 -p p2=$P2 -p p3=$P3 \
  -p p4=$P4 -p password="$PW" -p key_password="$KPW" -p token="$TOKEN" --jtl "$TMP/r.jtl" --grinder-logs "$TMP/g" \
  --summary-json "$TMP/s.json" --db "$TMP/r.db" >"$TMP/out" 2>"$TMP/err"
rc=$?
eq "the run passes (errors allowed: the untrusted step's)" "$rc" 0
[ "$rc" = 0 ] || grep -E '^(Verdict|Injector|Load)' "$TMP/out" | sed 's/^/# /'
[ "$rc" = 0 ] || sed -n 1,30p "$TMP/err"
n() { jq -r --arg s "$1" ".tests[] | select(.name | endswith(\")\" + \$s)) | $2" "$TMP/s.json"; }
for s in h2 h2c http1 insecure ca mtls gzip identity auth noauth bearer; do
  eq "step $s: $((VUS * RUNS)) samples, no error" \
    "$(n "$s" '"\(.count) \(.errors.technical) \(.errors.functional)"')" "$((VUS * RUNS)) 0 0"
done
eq "untrusted certificate: a technical error each time" \
  "$(n untrusted '"\(.count) \(.errors.technical)"')" "$((VUS * RUNS)) $((VUS * RUNS))"
check "its message names the certificate problem" grep -qi "certificate" <(jq -r '.tests[] | .. | strings' "$TMP/s.json")
echo "# $(grep -o 'gzip body.*' "$TMP/err"); $(grep -o 'identity body.*' "$TMP/err")"

# nginx's log is the judge
eq "h2: nginx saw HTTP/2.0 on every request" "$(lines "$P1" / | awk '{print $2}' | sort | uniq -c | awk '{print $1, $2}')" \
  "$((VUS * RUNS)) HTTP/2.0"
eq "h2c: HTTP/2.0 with prior knowledge" "$(lines "$P4" / | awk '{print $2}' | sort -u)" "HTTP/2.0"
eq "http1 = true: HTTP/1.1" "$(lines "$P2" / | awk '{print $2}' | sort -u)" "HTTP/1.1"
eq "h2: one connection per VU ($VUS VUs: $VUS connections)" \
  "$(awk -v p="$P1" '$1 == p {print $3}' "$LOG" | sort -u | wc -l)" "$VUS"
eq "h2: each VU used one connection" \
  "$(awk -v p="$P1" '$1 == p {print $6, $3}' "$LOG" | sort -u | awk '{print $1}' | uniq -d | wc -l)" 0
eq "untrusted: never reached nginx" "$(lines "$P2" /untrusted | wc -l)" 0
eq "insecure and ca: reached nginx" "$(lines "$P2" /insecure | wc -l) $(lines "$P2" /trusted | wc -l)" \
  "$((VUS * RUNS)) $((VUS * RUNS))"
eq "client certificate verified by nginx" "$(lines "$P3" /mtls | awk '{print $8, $5}' | sort -u)" "SUCCESS 200"
eq "TLS 1.2 or 1.3 everywhere" "$(awk '$4 != "" && $4 != "-" {print $4}' "$LOG" | grep -vc 'TLSv1\.[23]')" 0
eq "gzip asked for" "$(lines "$P1" /gz/big.txt | grep -c 'gzip')" "$((VUS * RUNS))"
# the Accept-Encoding field is the third from the end (then Cookie, Set-Cookie)
eq "compressed = false: no Accept-Encoding" \
  "$(lines "$P1" /gz/big.txt | grep -c '"-" "[^"]*" "[^"]*"$')" "$((VUS * RUNS))"
eq "basic auth accepted by nginx (alice, 200)" "$(lines "$P1" /auth/ | awk '$5 == 200 {print $9}' | sort | uniq -c | awk '{print $1, $2}')" \
  "$((VUS * RUNS)) alice"
eq "without auth: 401" "$(lines "$P1" /auth/ | awk '$5 == 401' | wc -l)" "$((VUS * RUNS))"

# ---- --trace, and the secrets in no output file
"$QUERN" run "$S/http.lua" --vus 1 --runs 1 -q --allow-errors --trace -p p1=$P1 -p p2=$P2 -p p3=$P3 \
  -p p4=$P4 -p password="$PW" -p key_password="$KPW" -p token="$TOKEN" >"$TMP/tout" 2>"$TMP/terr"
check "trace shows the Authorization scheme, not the credentials" grep -qi "Authorization: Basic \*\*\*" "$TMP/terr"
sqlite3 "$TMP/r.db" .dump >"$TMP/db.sql"
for f in "$TMP/r.jtl" "$TMP/g" "$TMP/out" "$TMP/err" "$TMP/s.json" "$TMP/db.sql" "$TMP"/r.db* \
  "$TMP/tout" "$TMP/terr"; do
  if grep -rqaF -e "$PW" -e "$KPW" -e "$TOKEN" -e "$(printf 'alice:%s' "$PW" | base64)" "$f"; then
    notok "no credential in $(basename "$f")"
  else
    ok "no credential in $(basename "$f")"
  fi
done


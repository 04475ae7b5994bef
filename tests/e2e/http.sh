# Request options against a real nginx with TLS and HTTP/2 configured here:
# a test CA and a certificate for quern.test made with openssl, reached
# through resolve (no DNS); HTTP/2 by ALPN and h2c with prior knowledge,
# proven by nginx's $server_protocol; one connection per VU ($connection);
# an untrusted certificate refused without ca, accepted with insecure or
# ca; a client certificate with a pass phrase verified by nginx; gzip
# bodies checked after decoding; basic auth accepted by nginx and its
# password in no output file; quern run --resolve; a page's embedded
# resources fetched once per VU, then revalidated (304) or not requested,
# as nginx's cache headers say; tls.min = "1.3" against a TLSv1.2-only
# server and connect_timeout against a peer that never completes the
# handshake, both technical errors; digest auth against the demo target
# (3 VUs, no nonce carried between them); a step's requests = nginx's lines.
. "$(dirname "$0")/lib.bash"

NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ] || ! command -v openssl >/dev/null; then
  echo "not ok - nginx and openssl are installed (scripts/install-deps.sh installs them)"
  exit 0
fi
S=$TMP/s # the script's folder: the certificates are beside it
NG=$TMP/nginx
mkdir -p "$S" "$NG/www/auth" "$NG/www/gz"
PW='S3cret-pw-4711'
KPW='key-pass-0815'
TOKEN='tok-4242-bearer'

# ---- a test CA, a server certificate for quern.test, a client certificate
(
  cd "$S" || exit 1
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
  openssl req -x509 "${ec[@]}" -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=quern-test-ca
  openssl req "${ec[@]}" -nodes -keyout srv.key -out srv.csr -subj /CN=quern.test
  printf 'subjectAltName=DNS:quern.test\n' >srv.ext
  openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 \
    -extfile srv.ext
  openssl req "${ec[@]}" -keyout cli.key -passout "pass:$KPW" -out cli.csr -subj /CN=vu-client
  openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out cli.crt -days 2
) >"$TMP/openssl.log" 2>&1
check "test CA and certificates made" test -s "$S/cli.crt"
printf 'alice:%s\n' "$(openssl passwd -apr1 "$PW")" >"$NG/htpasswd"
echo "authed" >"$NG/www/auth/index.html"
for _ in $(seq 400); do echo "quern gzip line: the body is long enough to be compressed"; done \
  >"$NG/www/gz/big.txt"
echo "hello" >"$NG/www/index.html"
# a page and what it embeds: fresh/ for an hour, nostore/ never kept, the
# rest revalidated each time (nginx's ETag and Last-Modified)
mkdir -p "$NG/www/page/fresh" "$NG/www/page/nostore" "$NG/www/page/img"
cat >"$NG/www/page/index.html" <<'EOF'
<!doctype html><html><head><title>page</title>
<link rel="stylesheet" href="site.css"><script src="nostore/app.js"></script></head>
<body><img src="fresh/a.png"><img src="b.png" srcset="b1.png 1x, b2.png 2x">
<img src="https://thirdparty.test/x.png"><img src="missing.png"><a href="other.html">x</a></body></html>
EOF
printf 'body { background: url(img/bg.png) }\n' >"$NG/www/page/site.css"
printf '<html><body><img src="missing.png"><img src="fresh/a.png"></body></html>\n' >"$NG/www/page/broken.html"
printf '<html><body><img src="fresh/c.png"></body></html>\n' >"$NG/www/page/nocache.html"
for f in fresh/a.png fresh/c.png b1.png b2.png img/bg.png nostore/app.js; do
  head -c 3000 /dev/urandom >"$NG/www/page/$f"
done

P1=$(free_port_py) # TLS + HTTP/2
P2=$(free_port_py) # TLS, HTTP/1.1 (trust checks)
P3=$(free_port_py) # TLS, client certificate required
P4=$(free_port_py) # h2c
P5=$(free_port_py) # TLSv1.2 only
user_line=
[ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
cat >"$NG/nginx.conf" <<EOF
# written by tests/e2e/http.sh
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log warn;
events { worker_connections 1024; }
http {
    log_format t '\$server_port \$server_protocol \$connection \$ssl_protocol \$status '
                 '\$http_x_vu \$request_uri \$ssl_client_verify \$remote_user \$bytes_sent "\$http_accept_encoding"';
    access_log $NG/access.log t;
    client_body_temp_path $NG/body;
    proxy_temp_path $NG/proxy;
    fastcgi_temp_path $NG/fastcgi;
    uwsgi_temp_path $NG/uwsgi;
    scgi_temp_path $NG/scgi;
    root $NG/www;
    keepalive_requests 100000;
    gzip on;
    gzip_types text/plain;
    gzip_min_length 100;
    ssl_certificate $S/srv.crt;
    ssl_certificate_key $S/srv.key;
    server { listen 127.0.0.1:$P1 ssl http2; server_name quern.test;
             location / { try_files \$uri \$uri/index.html /index.html; }
             location /auth/ { auth_basic "quern"; auth_basic_user_file $NG/htpasswd; }
             location /page/ { add_header Cache-Control no-cache; }
             location = /page/go { return 302 /page/nocache.html; }
             location /page/fresh/ { expires 1h; }
             location /page/nostore/ { add_header Cache-Control no-store; etag off;
                                       if_modified_since off; }
             location /bearer { if (\$http_authorization != "Bearer $TOKEN") { return 401; }
                                return 200 "bearer"; } }
    server { listen 127.0.0.1:$P2 ssl; server_name quern.test;
             location / { try_files \$uri /index.html; } }
    server { listen 127.0.0.1:$P3 ssl; server_name quern.test;
             ssl_verify_client on; ssl_client_certificate $S/ca.crt;
             location / { try_files \$uri /index.html; } }
    server { listen 127.0.0.1:$P5 ssl; server_name quern.test; ssl_protocols TLSv1.2;
             location / { return 200 "tls12"; } }
    server { listen 127.0.0.1:$P4 http2; server_name quern.test;
             location / { try_files \$uri /index.html; } }
}
EOF
"$NGINX" -e "$NG/error.log" -c "$NG/nginx.conf" -p "$NG" 2>"$TMP/nginx.err" &
NGINX_PID=$!
trap 'kill "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$P4/" --http2-prior-knowledge && break; sleep 0.1; done
LOG=$NG/access.log

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
lines() { awk -v p="$1" -v u="$2" '$1 == p && $7 == u' "$LOG"; }
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
eq "compressed = false: no Accept-Encoding" "$(lines "$P1" /gz/big.txt | grep -c '"-"$')" "$((VUS * RUNS))"
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

# ---- quern run --resolve reaches the name
cat >"$S/cli.lua" <<'EOF'
local quern = require "quern"
local sc = quern.scenario("CLI", { request = { tls = { ca = "ca.crt" } } })
local s = sc:step(1, "resolved")
function sc.run(vu) s:get("https://quern.test:" .. quern.property("p2") .. "/cli"):expect(200) end
EOF
"$QUERN" run "$S/cli.lua" --vus 2 --runs 2 -q -p p2=$P2 --resolve "quern.test:$P2:127.0.0.1" \
  >"$TMP/cout" 2>"$TMP/cerr"
eq "--resolve: the run passes" "$?" 0
eq "--resolve: nginx got every request" "$(lines "$P2" /cli | wc -l)" 4
"$QUERN" run "$S/cli.lua" --vus 1 --runs 1 -q -p p2=$P2 --resolve "quern.test:nope" >/dev/null 2>"$TMP/cerr"
eq "--resolve with a malformed entry: a usage error" "$?" 2

# ---- no ca: $SSL_CERT_FILE (and $CURL_CA_BUNDLE, which wins) name the CA bundle
cat >"$S/env.lua" <<'EOF'
local quern = require "quern"
local p2 = quern.property("p2")
local sc = quern.scenario("ENV", { request = { resolve = { "quern.test:" .. p2 .. ":127.0.0.1" } } })
local s = sc:step(1, "env")
function sc.run(vu) s:get("https://quern.test:" .. p2 .. "/env"):expect(200) end
EOF
env -u CURL_CA_BUNDLE SSL_CERT_FILE="$S/ca.crt" "$QUERN" run "$S/env.lua" --runs 1 -q -p p2=$P2 >/dev/null 2>"$TMP/eerr"
eq "SSL_CERT_FILE trusted" "$?" 0
CURL_CA_BUNDLE=$S/ca.crt SSL_CERT_FILE=/nonexistent "$QUERN" run "$S/env.lua" --runs 1 -q -p p2=$P2 \
  >/dev/null 2>"$TMP/eerr"
eq "CURL_CA_BUNDLE trusted (before SSL_CERT_FILE)" "$?" 0
env -u CURL_CA_BUNDLE -u SSL_CERT_FILE "$QUERN" run "$S/env.lua" --runs 1 -q -p p2=$P2 >/dev/null \
  2>"$TMP/eerr"
eq "neither: the system's CAs, which refuse it" "$?" 1
eq "nginx saw the two trusted runs" "$(lines "$P2" /env | wc -l)" 2

# ---- multipart: a file read once per worker, received whole by the demo target
start_target
head -c 6000 /dev/urandom | base64 -w 76 >"$S/up.txt"
cat >"$S/mp.lua" <<'EOF'
local quern = require "quern"
local sc = quern.scenario("MP")
local up = sc:step(1, "upload")
local f = io.open(quern.property("dir") .. "/up.txt", "rb")
local want = f:read("a")
f:close()
function sc.run(vu)
  local r = up:post(quern.property("base") .. "/echo", { multipart = {
    who = "vu" .. vu.id, n = vu.run,
    file = { path = "up.txt", type = "text/plain", name = "report.txt" } } }):expect(200)
  local e = r:json()
  if not e.headers["content-type"]:find("^multipart/form%-data; boundary=") then error("content-type") end
  if not e.body:find(want, 1, true) then error("the file is not whole") end
  if not e.body:find('name="file"; filename="report.txt"\r\nContent-Type: text/plain\r\n\r\n', 1, true) then
    error("file part header")
  end
  if not e.body:find('name="who"\r\n\r\nvu' .. vu.id .. "\r\n", 1, true) then error("field who") end
end
EOF
"$QUERN" run "$S/mp.lua" --vus 2 --runs 3 --workers 1 -q -p base="$BASE" -p dir="$S" \
  --summary-json "$TMP/mp.json" >/dev/null 2>"$TMP/mperr"
eq "multipart: the run passes" "$?" 0
eq "multipart: 6 uploads, each checked" "$(sj "$TMP/mp.json" '"\(.tests[0].count) \(.tests[0].errors.functional) \(.tests[0].errors.technical)"')" "6 0 0"
eq "multipart: the target got them" "$(stat '.by_method_path["POST /echo"]')" 6

# ---- a missing file of a scenario's defaults: a load-time error, file:line
cat >"$S/missing.lua" <<'EOF'
local quern = require "quern"
local sc = quern.scenario("M", { request = { tls = { ca = "nope.pem" } } })
function sc.run(vu) end
EOF
"$QUERN" run "$S/missing.lua" -q >/dev/null 2>"$TMP/merr"
eq "missing ca: exit 2" "$?" 2
check "missing ca: file:line and the file named" grep -q "missing.lua:2: .*tls.ca: cannot read .*nope.pem" "$TMP/merr"
printf 'local quern = require "quern"\nlocal sc = quern.scenario("R", { request = {\n  resources = { inlude = { "*" } } } })\nfunction sc.run(vu) end\n' \
  >"$S/badres.lua"
"$QUERN" run "$S/badres.lua" -q >/dev/null 2>"$TMP/rerr"
eq "a misspelt resources key: exit 2" "$?" 2
check "... with file:line and the keys known" grep -q 'badres.lua:2: resources: unknown key "inlude" (known: include, exclude)' "$TMP/rerr"

# ---- a page step: its resources fetched, then revalidated or cached (nginx's log the judge)
cat >"$S/page.lua" <<'EOF'
local quern = require "quern"
local p1 = quern.property("p1")
local sc = quern.scenario("PAGE", { request = { resolve = { "quern.test:" .. p1 .. ":127.0.0.1" },
  http2 = true, tls = { ca = "ca.crt" }, resources = { exclude = { "*/missing.png" } } } })
local home, broken, nocache = sc:step(1, "page"), sc:step(2, "broken"), sc:step(3, "nocache")
local base = "https://quern.test:" .. p1 .. "/page/"
function sc.run(vu)
  local r = home:get(base .. "index.html"):expect(200):contains("<title>page</title>")
  local n = r.resources
  if vu.run == 1 and (n.fetched ~= 5 or n.cached ~= 0) then error("first run: " .. n.fetched .. " fetched") end
  if vu.run > 1 and (n.fetched ~= 1 or n.revalidated ~= 3 or n.cached ~= 1) then
    error(("run %d: %d fetched, %d revalidated, %d cached"):format(vu.run, n.fetched, n.revalidated, n.cached))
  end
  broken:get(base .. "broken.html", { resources = true })
  nocache:get(base .. "go", { cache = false, redirects = true })
end
EOF
VUS=3
RUNS=3
LOG0=$(wc -l <"$LOG")
"$QUERN" run "$S/page.lua" --vus $VUS --runs $RUNS -q --allow-errors -p p1=$P1 --jtl "$TMP/page.jtl" \
  --summary-json "$TMP/page.json" >/dev/null 2>"$TMP/perr"
eq "page: the run ends (errors allowed: the broken page's)" "$?" 0
pn() { jq -r --arg s "$1" ".tests[] | select(.name | endswith(\")\" + \$s)) | $2" "$TMP/page.json"; }
eq "page: 9 samples, no error" "$(pn page '"\(.count) \(.errors.technical) \(.errors.functional)"')" "9 0 0"
[ "$(pn page '.errors.functional')" = 0 ] || grep -m3 'error' "$TMP/perr"
eq "broken: a 404 on a resource not excluded is a technical error" \
  "$(pn broken '"\(.count) \(.errors.technical)"')" "9 9"
check "its message names the resource" grep -q 'resource https://quern.test:[0-9]*/page/missing.png: HTTP status 404' \
  <(jq -r '.tests[] | .. | strings' "$TMP/page.json")
# by URI and status; each VU is one HTTP/2 connection ($3)
pl() { awk -v p="$P1" -v u="$1" -v s="$2" '$1 == p && $7 == u && $5 == s' "$LOG" | wc -l; }
eq "the page itself: 9 times" "$(pl /page/index.html 200)" 9
eq "fresh/ (max-age): once per VU, then from the cache" "$(pl /page/fresh/a.png 200) $(pl /page/fresh/a.png 304)" "$VUS 0"
eq "fresh/: by $VUS connections, one each" \
  "$(awk -v p="$P1" '$1 == p && $7 == "/page/fresh/a.png" {print $3}' "$LOG" | sort | uniq -c | awk '{print $1}' | sort -u) $(awk -v p="$P1" '$1 == p && $7 == "/page/fresh/a.png" {print $3}' "$LOG" | sort -u | wc -l)" "1 $VUS"
eq "no-cache + ETag: fetched once per VU, then 304" "$(pl /page/site.css 200) $(pl /page/site.css 304)" "$VUS $((VUS * (RUNS - 1)))"
eq "url() of the stylesheet: the same, through the 304s" "$(pl /page/img/bg.png 200) $(pl /page/img/bg.png 304)" "$VUS $((VUS * (RUNS - 1)))"
eq "no-store: every time in full" "$(pl /page/nostore/app.js 200) $(pl /page/nostore/app.js 304)" "$((VUS * RUNS)) 0"
eq "srcset: the 1x image only" "$(pl /page/b1.png 304) $(pl /page/b1.png 200) $(awk '$7 == "/page/b2.png" || $7 == "/page/b.png"' "$LOG" | wc -l)" "$((VUS * (RUNS - 1))) $VUS 0"
eq "excluded and links: never requested" "$(awk '$7 == "/page/other.html" || ($7 == "/page/missing.png" && $5 != 404)' "$LOG" | wc -l) $(pl /page/missing.png 404)" "0 9"
eq "cache = false: every time in full" "$(pl /page/fresh/c.png 200)" 9
# a step's requests: every line nginx wrote for it (redirects, 304s, 404s
# included), resources served from the cache not
tail -n +$((LOG0 + 1)) "$LOG" | awk -v p="$P1" '$1 == p' >"$TMP/page.log"
preq() { awk -v re="$1" '$7 ~ re' "$TMP/page.log" | wc -l; }
eq "requests: the page step, nginx's lines (9 pages, 15 first fetches, 6 fetched and 18 revalidated)" \
  "$(pn page .requests) $(grep -cvE ' /page/(broken.html|missing.png|go|nocache.html|fresh/c.png) ' "$TMP/page.log")" "48 48"
eq "requests: the broken page's step, its 404s counted" \
  "$(pn broken .requests) $(preq '^/page/(broken.html|missing.png)$')" "18 18"
eq "requests: a redirect is a request (302, page, image)" \
  "$(pn nocache .requests) $(preq '^/page/(go|nocache.html|fresh/c.png)$')" "27 27"
eq "requests: every line of the run counted" "$(jq '[.tests[].requests] | add' "$TMP/page.json")" \
  "$(wc -l <"$TMP/page.log")"
eq "page resources on the VU's connection (HTTP/2): $VUS connections" \
  "$(awk -v p="$P1" '$1 == p && $7 ~ /^\/page\// {print $3}' "$LOG" | sort -u | wc -l)" "$VUS"
# the JTL: a parent line per sample, its requested resources as sub-results before it
sub=$(awk -F, '$3 ~ /\)page-[0-9]+$/' "$TMP/page.jtl" | wc -l)
eq "JTL: page sub-results (5 the first run, 4 then, per VU)" "$sub" "$((VUS * (5 + 4 * (RUNS - 1))))"
eq "JTL: 9 parent lines" "$(awk -F, '$3 ~ /\)page$/' "$TMP/page.jtl" | wc -l)" 9
eq "JTL: a page's sample ends after each of its sub-results (the step's latency is the page's)" \
  "$(awk -F, '$3 ~ /\)page-/ {if ($1 + $2 > m[$6]) m[$6] = $1 + $2}
              $3 ~ /\)page$/ {if ($1 + $2 + 2 < m[$6]) bad++; m[$6] = 0} END {print bad + 0}' "$TMP/page.jtl")" 0

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
trap 'kill "$NGINX_PID" "$HANG_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; cleanup' EXIT
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
check "its message says the connect timed out" grep -q 'Failed to connect .* after [0-9]* ms: Timeout was reached' \
  <(wn connect_timeout '.. | strings')
between "connect_timeout 300ms: the fastest sample waited for it (ms)" "$(wn connect_timeout .min_ms)" 290 2500
between "connect_timeout 300ms: the slowest within its bound (ms)" "$(wn connect_timeout .max_ms)" 290 2500
kill "$HANG_PID" 2>/dev/null

# ---- digest auth against the demo target (libmicrohttpd's digest API, MD5):
# 3 VUs, each its own user and password. libcurl keeps a digest nonce in the
# easy handle and the engine's pool passes handles between VUs. Each VU asks
# for its own path, whose nonces the target issues for that path only: a
# handle carried over with another VU's nonce shows as a stale answer.
cat >"$S/digest.lua" <<'EOF'
local quern = require "quern"
-- a think time gives the handle back to the pool after each request, so
-- the VUs take each other's
local sc = quern.scenario("DIGEST", { think = "30ms" })
local good, wrong = sc:step(1, "digest"), sc:step(2, "wrong")
local users = { "alice", "bob", "carol" }
function sc.run(vu)
  local user = users[vu.id]
  local url = quern.property("base") .. "/digest/" .. user
  wrong:get(url, { auth = { type = "digest", user = user, password = "not-it" } })
  good:get(url, { auth = { type = "digest", user = user, password = quern.property("pw_" .. user) } })
    :expect(200):contains("digest ok " .. user)
end
EOF
reset_target
"$QUERN" run "$S/digest.lua" --vus 3 --runs 6 -q --allow-errors -p base="$BASE" -p pw_alice=wonderland \
  -p pw_bob=builder -p pw_carol=singer --jtl "$TMP/d.jtl" --summary-json "$TMP/d.json" >"$TMP/dout" 2>"$TMP/derr"
eq "digest: the run ends" "$?" 0
dn() { jq -r --arg s "$1" ".tests[] | select(.name | endswith(\")\" + \$s)) | $2" "$TMP/d.json"; }
eq "digest, 3 VUs: 18 samples accepted, each as its own user" \
  "$(dn digest '"\(.count) \(.errors.technical) \(.errors.functional)"')" "18 0 0"
[ "$(dn digest '.errors.technical + .errors.functional')" = 0 ] || jq -c '.tests[0].errors' "$TMP/d.json"
eq "digest, wrong password: 18 technical errors" "$(dn wrong '"\(.count) \(.errors.technical)"')" "18 18"
# a challenge then an answer, or the nonce the handle kept from the last one
eq "the target accepted 18, refused the rest" \
  "$(stat '"\(.by_status["200"]) \(.by_path["/digest"] - .by_status["200"] - .by_status["401"])"')" "18 0"
between "the target: 36 to 72 digest requests" "$(stat '.by_path["/digest"]')" 36 72
eq "digest: no VU answered with another VU's nonce" "$(stat .digest_stale)" 0
eq "digest: the steps' requests are the target's, round trips included" \
  "$(jq '[.tests[].requests] | add' "$TMP/d.json")" "$(stat '.by_path["/digest"]')"
if grep -rqaE 'wonderland|builder|singer' "$TMP/d.jtl" "$TMP/dout" "$TMP/derr" "$TMP/d.json"; then
  notok "digest: the passwords in no output"
else
  ok "digest: the passwords in no output"
fi

# ---- 6 resources at once per host: 12 images that take 300 ms each, on the demo
# target (another origin, included by pattern), load in two waves on 6 connections
{
  printf '<html><body>'
  for i in $(seq 12); do printf '<img src="%s/slow?ms=300&amp;i=%d">' "$BASE" "$i"; done
  printf '</body></html>\n'
} >"$NG/www/page/wave.html"
cat >"$S/wave.lua" <<'EOF'
local quern = require "quern"
local p1 = quern.property("p1")
local sc = quern.scenario("WAVE", { request = { resolve = { "quern.test:" .. p1 .. ":127.0.0.1" },
  tls = { ca = "ca.crt" }, resources = { include = { quern.property("base") .. "/*" } } } })
local s = sc:step(1, "wave")
function sc.run(vu)
  local r = s:get("https://quern.test:" .. p1 .. "/page/wave.html"):expect(200)
  if r.resources.fetched ~= 12 then error(r.resources.fetched .. " fetched") end
end
EOF
reset_target
"$QUERN" run "$S/wave.lua" --vus 1 --runs 1 -q -p p1=$P1 -p base="$BASE" --summary-json "$TMP/wave.json" \
  >/dev/null 2>"$TMP/waverr"
eq "6 per host: the page loads" "$?" 0
eq "6 per host: the target got 12 images on 6 connections" "$(stat '"\(.by_path["/slow"]) \(.connections)"')" "12 6"
between "6 per host: two waves of 300 ms (ms; three would be 900)" "$(sj "$TMP/wave.json" '.tests[0].min_ms')" 595 895

# Where the CA and the names come from, against a real nginx with TLS
# (tests/e2e/http_lib.bash): quern run --resolve reaches the name, a malformed
# entry is a usage error; without ca, $CURL_CA_BUNDLE then $SSL_CERT_FILE name
# the CA bundle; a missing tls.ca file and a misspelt resources key are
# load-time errors with file:line.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/http_lib.bash"
http_nginx

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


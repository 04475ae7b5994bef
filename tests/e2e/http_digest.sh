# Digest auth against the demo target (libmicrohttpd's digest API, MD5): 3
# VUs, each its own user and password, no nonce carried between them; the
# steps' requests are the target's, round trips included; the passwords in
# no output.
. "$(dirname "$0")/lib.bash"

S=$TMP/s
mkdir -p "$S"
start_target

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


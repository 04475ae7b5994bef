# quern.json and quern.crypto as the server sees them: JSON null and an
# empty array sent as the script says, an HMAC-SHA256 header and a SHA-256
# of the body that openssl computes alike from what the server received.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
KEY='k3y with spaces'

"$QUERN" run $D/luahelp.lua --vus 2 --runs 2 -q -p base_url="$BASE" -p hmac_key="$KEY" \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>&1
eq "run exits 0" "$?" 0
eq "no errors" "$(sj "$TMP/s.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "samples = the server's /echo requests" "$(sj "$TMP/s.json" '[.tests[].count] | add')" \
  "$(stat '.by_path["/echo"]')"
eq "4 runs of 2 requests" "$(stat '.by_path["/echo"]')" 8

# ECHO1: json = { a = quern.json.null, b = quern.json.array{} }
grep -o 'ECHO1 .*' "$TMP/out" | cut -c7- >"$TMP/echo1"
eq "4 json bodies echoed" "$(wc -l <"$TMP/echo1")" 4
eq "the server received {\"a\":null,\"b\":[]}" \
  "$(jq -r '.body | fromjson | tojson' "$TMP/echo1" | jq -cS . | sort -u)" '{"a":null,"b":[]}'
eq "sent as application/json" "$(jq -r '.headers["content-type"]' "$TMP/echo1" | sort -u)" \
  application/json

# ECHO2: the signature and digest, checked by openssl over the bytes received
grep -o 'ECHO2 .*' "$TMP/out" | cut -c7- >"$TMP/echo2"
eq "4 signed bodies echoed" "$(wc -l <"$TMP/echo2")" 4
good=0 uuids=0 i=0
while IFS= read -r line; do
  i=$((i + 1))
  jq -j .body <<<"$line" >"$TMP/body$i"
  sig=$(jq -r '.headers["x-signature"]' <<<"$line")
  sha=$(jq -r '.headers["x-body-sha256"]' <<<"$line")
  want_sig=$(openssl dgst -sha256 -hmac "$KEY" "$TMP/body$i" | awk '{print $NF}')
  want_sha=$(openssl dgst -sha256 "$TMP/body$i" | awk '{print $NF}')
  [ "$sig" = "$want_sig" ] && [ "$sha" = "$want_sha" ] && good=$((good + 1))
  jq -r '.body | fromjson | .id' <<<"$line" |
    grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' && uuids=$((uuids + 1))
done <"$TMP/echo2"
eq "HMAC-SHA256 and SHA-256 headers = openssl's over the received body" "$good" 4
eq "each body's id is a version 4 UUID" "$uuids" 4
eq "4 distinct UUIDs" "$(jq -r '.body | fromjson | .id' "$TMP/echo2" | sort -u | wc -l)" 4
eq "null and [] in the signed body" \
  "$(jq -c '.body | fromjson | [.none, .tags]' "$TMP/echo2" | sort -u)" '[null,[]]'
eq "the signed body is sorted and compact" \
  "$(jq -r '.body' "$TMP/echo2" | grep -c '^{"id":"[^"]*","nonce":"[0-9a-f]\{16\}","none":null,"run":[12],"tags":\[\],"vu":[12]}$')" 4

# a function in a json body: refused, its path named
eq "an unencodable value names its path" \
  "$(grep -c 'ERRPATH json: \$\.list\[2\]: cannot encode a function' "$TMP/out")" 4

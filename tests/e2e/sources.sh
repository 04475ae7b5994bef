# --source-addrs: VU i's connections leave from the ((i-1) mod n)-th address,
# as the target sees them.
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run tests/e2e/scripts/pacing.lua --vus 4 --runs 2 -q -p base_url="$BASE" -p pacing=0 \
  --source-addrs 127.0.0.2,127.0.0.3 --summary-json "$TMP/s.json" >/dev/null 2>&1
eq "source addresses: run exits 0" "$?" 0
eq "source addresses: no errors" "$(sj "$TMP/s.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "source addresses: spread over the VUs" "$(stat '.by_client | to_entries | map("\(.key)=\(.value)") | join(" ")')" \
  "127.0.0.2=4 127.0.0.3=4"
eq "without them: the system's address" "$(reset_target; "$QUERN" run tests/e2e/scripts/pacing.lua --vus 2 --runs 1 -q \
  -p base_url="$BASE" >/dev/null 2>&1; stat '.by_client | keys | join(" ")')" "127.0.0.1"
eq "a bad address: exit 2" "$("$QUERN" run tests/e2e/scripts/pacing.lua --source-addrs 127.0.0.2,nope 2>"$TMP/err"; echo $?)" 2
check "a bad address: names it" grep -q -- '--source-addrs: "nope" is not an IP address' "$TMP/err"

# Every example under scripts/ runs against the demo target without an error,
# and what it counts is what the server saw.
. "$(dirname "$0")/lib.bash"
start_target
for s in scripts/*.lua; do
  reset_target
  "$QUERN" run "$s" --vus 4 --runs 2 -q -p base_url="$BASE" -p pacing=200ms \
    --summary-json "$TMP/s.json" >"$TMP/out" 2>&1
  rc=$?
  eq "$s: exits 0" "$rc" 0
  [ "$rc" = 0 ] || { tail -5 "$TMP/out"; continue; }
  eq "$s: no errors" "$(sj "$TMP/s.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
  eq "$s: every step ran" "$(sj "$TMP/s.json" '[.tests[] | select(.count == 0)] | length')" 0
  samples=$(sj "$TMP/s.json" '[.tests[].count] | add')
  # the login form is fetched for its token, untimed or in the login's
  # time block: the server's login_forms are no samples
  served=$(stat '.requests - .login_forms')
  if grep -v 'http\.[a-z]*(base \.\. "/login"\|login:time(' "$s" | grep -q 'http\.[a-z]*(\|:time('; then
    # untimed requests and time blocks: more requests than samples
    between "$s: samples <= server requests" "$samples" 1 "$served"
  else
    eq "$s: samples = server requests" "$samples" "$served"
  fi
done

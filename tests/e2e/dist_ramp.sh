# Ramp-up and scenario weights are computed on the global VU index: 10 VUs over
# a 2 s ramp start one every 200 ms whatever agent plays them.
. "$(dirname "$0")/dist_lib.bash"
start_target

start_console r tests/e2e/scripts/dist_hit.lua --vus 10 --ramp-up 2s --duration 3s --agents 2 \
  --wait 20s -p base_url="$BASE" -p pacing=10s --summary-json "$TMP/r.json"
start_agent r1 1
start_agent r2 2
wait_exit $CONSOLE_PID 40
eq "console exits 0" "$WAIT_RC" 0
eq "one request per VU" "$(stat .requests)" 10
eq "every VU once" "$(stat '[.by_path | keys[] | select(startswith("/vu/"))] | length')" 10
stat '.request_times_us | map(. / 1000) | . as $t | [range(1; length) | $t[.] - $t[.-1]]' >"$TMP/gaps"
between "ramp across agents: smallest gap (ms)" "$(jq min "$TMP/gaps")" 140 260
between "ramp across agents: largest gap (ms)" "$(jq max "$TMP/gaps")" 140 260
between "ramp across agents: spread over the ramp (ms)" "$(stat '(.request_times_us | max - min) / 1000')" 1650 1950

# A 50/25/25 mix is exact across agents.
reset_target
start_console w scripts/mix.lua --vus 100 --runs 1 --agents 2 --wait 20s -p base_url="$BASE" \
  -p pacing=0 --summary-json "$TMP/w.json"
start_agent w1 1
start_agent w2 2
wait_exit $CONSOLE_PID 60
eq "mix across agents: console exits 0" "$WAIT_RC" 0
eq "mix across agents: 50/25/25 runs" "$(sj "$TMP/w.json" '[.scenarios[].runs] | map(tostring) | join("/")')" 50/25/25
eq "mix across agents: no errors" "$(sj "$TMP/w.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0

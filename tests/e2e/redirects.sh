# Redirects: followed when asked (relative Location, chains), each counted once
# by the server; the requests after them on the same VU go where their own
# URLs say; a redirect not followed is returned as it is.
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run tests/e2e/scripts/redirects.lua --vus 2 --runs 3 -q -p base_url="$BASE" \
  --summary-json "$TMP/r.json" >"$TMP/out" 2>&1
eq "redirects: run exits 0" "$?" 0
eq "redirects: no errors" "$(sj "$TMP/r.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "redirects: 6 runs" "$(sj "$TMP/r.json" '.scenarios[0].runs')" 6
eq "redirects: GET /redirect, 4 per run" "$(stat '.by_method_path["GET /redirect"]')" 24
eq "redirects: relative Location followed" "$(stat '.by_method_path["GET /static/*"]')" 6
eq "redirects: the end of the chain reached" "$(stat '.by_method_path["GET /status/204"]')" 6
eq "redirects: the plain request after them" "$(stat '.by_method_path["GET /status/200"]')" 6
eq "redirects: not followed unless asked" "$(stat '.by_method_path["GET /status/201"] // 0')" 0
eq "redirects: one sample per call, its redirects included" "$(sj "$TMP/r.json" '[.tests[].count] | add')" 24
eq "redirects: the server saw 7 requests a run" "$(stat .requests)" 42

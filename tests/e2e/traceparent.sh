# --traceparent and a scenario's traceparent = true, judged by a real nginx
# that logs each request's traceparent header: ids well formed, one per
# request (nginx's count is quern's), none repeated, none sent without the
# flag; the trace id of the one 500 in the error samples (summary JSON,
# database, JTL) and of the slowest request in `slowest` are the ones nginx
# logged for those requests; r.trace_id is the id sent, and a script's own
# traceparent is sent alone (the demo target's /echo shows what came).
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_target
start_nginx 256 "log_format tp '\$request_uri \$status \$request_time \"\$http_traceparent\"';" \
  "access_log $TMP/nginx/tp.log tp; location /err { return 500 \"no\"; }
   location /slow { proxy_pass $BASE; }
   location = /page { default_type text/html;
     return 200 '<html><body><img src=\"/res.png\"><script src=\"/app.js\"></script></body></html>'; }"
TPLOG=$TMP/nginx/tp.log
WELL='^00-[0-9a-f]{32}-[0-9a-f]{16}-01$'
# fields of the log: URI STATUS SECONDS "TRACEPARENT" (- when none)
tp_of() { awk '{ gsub(/"/, "", $4); print $4 }' "$TPLOG"; }
# clear_log: a new log, once nginx logged every request before (it logs a
# request after its answer: a mark's line comes after the others')
clear_log() {
  curl -s -o /dev/null "$NGBASE/mark"
  for _ in $(seq 50); do grep -q '^/mark ' "$TPLOG" && break; sleep 0.1; done
  : >"$TPLOG"
}

# ---- --traceparent
clear_log
"$QUERN" run $D/traceparent.lua --traceparent --vus 4 --duration 3s --allow-errors -q \
  -p expect_tp=1 -p base_url="$NGBASE" -p target_url="$BASE" --db "$TMP/tp.db" \
  --jtl "$TMP/tp.jtl" --junit "$TMP/tp.xml" \
  --summary-json "$TMP/tp.json" >"$TMP/tp.out" 2>"$TMP/tp.err"
eq "--traceparent: exit 0" "$?" 0
J=$TMP/tp.json
nlog=$(wc -l <"$TPLOG")
nq=$(sj "$J" '[.tests[0,1,2,4].requests] | add')
eq "--traceparent: nginx saw quern's requests ($nq)" "$nlog" "$nq"
eq "--traceparent: every request carried a well-formed traceparent" \
  "$(tp_of | grep -Ec "$WELL")" "$nlog"
eq "--traceparent: no all-zero trace or parent id" \
  "$(tp_of | grep -Ec '^00-0{32}-|-0{16}-01$')" 0
eq "--traceparent: no trace id repeated" "$(tp_of | cut -d- -f2 | sort | uniq -d | wc -l)" 0
eq "--traceparent: no parent id repeated" "$(tp_of | cut -d- -f3 | sort | uniq -d | wc -l)" 0
eq "--traceparent: r.trace_id is the id sent, an own header goes alone (no failed check)" \
  "$(sj "$J" '.tests[3].errors.functional')" 0
check "--traceparent: the /echo steps ran" test "$(sj "$J" '.tests[3].count')" -gt 0
eq "--traceparent: a page's resources were loaded (nginx)" \
  "$(grep -Ec '^/(res.png|app.js) ' "$TPLOG")" 4
# the one 500
err_id=$(awk '$1 == "/err" { gsub(/"/, "", $4); split($4, f, "-"); print f[2] }' "$TPLOG")
eq "--traceparent: one /err in nginx's log" "$(grep -c '^/err ' "$TPLOG")" 1
check "--traceparent: the 500's trace id is well formed ($err_id)" grep -Eq '^[0-9a-f]{32}$' <<<"$err_id"
eq "--traceparent: the summary's error sample names nginx's trace id" \
  "$(sj "$J" '.tests[2].errors.samples.technical_trace_id')" "$err_id"
eq "--traceparent: the error message is not changed" \
  "$(sj "$J" '.tests[2].errors.samples.technical')" "HTTP status 500"
eq "--traceparent: the database's error sample names nginx's trace id" \
  "$(sqlite3 "$TMP/tp.db" "SELECT trace_id FROM errors WHERE kind = 'technical' AND step_index = 2")" "$err_id"
# the slowest /slow, by nginx's clock
slow_id=$(awk '$1 ~ /^\/slow/ { gsub(/"/, "", $4); if ($3 + 0 > m) { m = $3 + 0; id = $4 } } END { split(id, f, "-"); print f[2] }' "$TPLOG")
eq "--traceparent: slowest[0] is the request nginx took longest over" \
  "$(sj "$J" '.tests[1].slowest[0].trace_id')" "$slow_id"
between "--traceparent: slowest[0]'s latency (ms)" "$(sj "$J" '.tests[1].slowest[0].latency_ms')" 600 3000
eq "--traceparent: slowest[0] is VU 1's" "$(sj "$J" '.tests[1].slowest[0].vu')" 1
eq "--traceparent: 10 slowest per step by default" "$(sj "$J" '.tests[1].slowest | length')" 10
eq "--traceparent: slowest sorted, slowest first" \
  "$(sj "$J" '.tests[0].slowest | map(.latency_ms) | . == (sort | reverse)')" true
eq "--traceparent: every slowest of /ok has a trace id nginx logged" \
  "$(sj "$J" '.tests[0].slowest[].trace_id' | while read -r id; do grep -c "^/ok .*-$id-" "$TPLOG"; done | grep -c '^1$')" 10
eq "--traceparent: the database's slowest rank 1 is nginx's" \
  "$(sqlite3 "$TMP/tp.db" 'SELECT trace_id FROM slowest WHERE step_index = 1 AND rank = 1')" "$slow_id"
eq "--traceparent: the database keeps 10 slowest per step" \
  "$(sqlite3 "$TMP/tp.db" 'SELECT count(*) FROM slowest WHERE step_index = 0')" 10
# the JTL: JMeter's columns, then traceId
eq "--traceparent: the JTL's header ends with traceId" \
  "$(head -1 "$TMP/tp.jtl" | awk -F, '{ print $NF }')" traceId
eq "--traceparent: the JTL line of the 500 has nginx's trace id" \
  "$(python3 -c 'import csv,sys; print(" ".join(r["traceId"] for r in csv.DictReader(open(sys.argv[1])) if r["responseCode"] == "500"))' "$TMP/tp.jtl")" "$err_id"
check "--traceparent: the JUnit step's output names nginx's trace id" \
  grep -q "HTTP status 500 (trace $err_id)" "$TMP/tp.xml"
"$QUERN" report --db "$TMP/tp.db" -o "$TMP/tp.html" >/dev/null 2>&1
check "--traceparent: the report lists the slowest with nginx's trace id" grep -q "$slow_id" "$TMP/tp.html"
check "--traceparent: the report's error names nginx's trace id" grep -q "trace <code>$err_id" "$TMP/tp.html"
check "--traceparent: no sanitizer report" no_sanitizer_report "$TMP/tp.err"

# ---- without: no header, the slowest kept anyway
clear_log
"$QUERN" run $D/traceparent.lua --vus 2 --duration 1s --slowest 3 --allow-errors -q \
  -p base_url="$NGBASE" -p target_url="$BASE" --jtl "$TMP/no.jtl" \
  --summary-json "$TMP/no.json" >"$TMP/no.out" 2>"$TMP/no.err"
eq "without: exit 0" "$?" 0
check "without: nginx saw requests" test "$(wc -l <"$TPLOG")" -gt 10
eq "without: no request carried a traceparent" "$(tp_of | grep -vc '^-$')" 0
eq "without: r.trace_id is nil (no failed check)" "$(sj "$TMP/no.json" '.tests[3].errors.functional')" 0
eq "without: --slowest 3 keeps 3" "$(sj "$TMP/no.json" '.tests[0].slowest | length')" 3
eq "without: the slowest have no trace id (but the script's own header's)" "$(sj "$TMP/no.json" '[.tests[0,1,2].slowest[] | select(.trace_id)] | length')" 0
eq "without: the error sample has no trace id" "$(sj "$TMP/no.json" '.tests[2].errors.samples.technical_trace_id')" null
eq "without: the JTL has JMeter's header alone" "$(head -1 "$TMP/no.jtl" | awk -F, '{ print $NF }')" Connect

# ---- the scenario's option, and --slowest 0
clear_log
"$QUERN" run $D/traceparent.lua --vus 2 --duration 1s --slowest 0 --allow-errors -q \
  -p base_url="$NGBASE" -p target_url="$BASE" -p scenario_option=1 -p expect_tp=1 \
  --summary-json "$TMP/sc.json" >"$TMP/sc.out" 2>"$TMP/sc.err"
eq "traceparent = true: exit 0" "$?" 0
nlog=$(wc -l <"$TPLOG")
check "traceparent = true: nginx saw requests" test "$nlog" -gt 10
eq "traceparent = true: every request carried one" "$(tp_of | grep -Ec "$WELL")" "$nlog"
eq "traceparent = true: no trace id repeated" "$(tp_of | cut -d- -f2 | sort | uniq -d | wc -l)" 0
eq "traceparent = true: checks passed" "$(sj "$TMP/sc.json" '.tests[3].errors.functional')" 0
eq "--slowest 0: no slowest" "$(sj "$TMP/sc.json" '.tests[0].slowest')" null

# ---- --trace prints each request's trace id
clear_log
"$QUERN" run $D/traceparent.lua --traceparent --trace --runs 1 --allow-errors \
  -p base_url="$NGBASE" -p target_url="$BASE" >"$TMP/tr.out" 2>"$TMP/tr.err"
eq "--trace: exit 0" "$?" 0
ok_id=$(awk '$1 == "/ok" { gsub(/"/, "", $4); split($4, f, "-"); print f[2] }' "$TPLOG")
check "--trace: the /ok request's line names nginx's trace id ($ok_id)" \
  grep -q "STEP-1)Ok: GET $NGBASE/ok, trace $ok_id\$" "$TMP/tr.err"

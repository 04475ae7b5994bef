# --profile on a real server: nginx gzipping a 6 MB text file at level 9
# for every request spends its CPU in zlib's deflate; the profile of its
# worker process (pid:N) names zlib's library (Debian's libz keeps no symbol
# of deflate's inner functions, so the module is the name it shows), and
# the diagnosis calls the worker CPU-bound in it. Without a results
# database the profile cannot be kept, and the run says so.
# e2e: heavy (nginx compresses on a CPU for 5 s)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
mkdir -p "$TMP/www"
seq 1 200000 | awk '{ print "line " $1 " of the file, " ($1 * 7919) % 1000003 }' >"$TMP/www/big.txt"
start_nginx 64 'gzip on; gzip_comp_level 9; gzip_min_length 0; gzip_types text/plain;' \
  "location /big.txt { root $TMP/www; default_type text/plain; }"
W=$(pgrep -P "$NGINX_PID" | head -1)
check "nginx: its worker" test -n "$W"
eq "nginx: the file comes gzipped" \
  "$(curl -s -H 'Accept-Encoding: gzip' -D - -o /dev/null "$NGBASE/big.txt" | tr -d '\r' | sed -n 's/^Content-Encoding: //Ip')" gzip
"$QUERN" run tests/e2e/scripts/gzip_big.lua --vus 2 --duration 4s -p base_url="$NGBASE" \
  --profile "pid:$W" --db "$TMP/g.db" --summary-json "$TMP/g.json" >"$TMP/g.out" 2>"$TMP/g.err"
eq "gzip: the run completed" "$?" 0
sed -n '/^Profile of/,/Diagnosis/p' "$TMP/g.out" | sed 's/^/# /'
eq "gzip: the worker profiled, one process" "$(sj "$TMP/g.json" '.profile.targets[0] | [.ok, .target] | map(tostring) | join(" ")')" "true pid:$W"
check "gzip: zlib holds the CPU" grep -q '^libz\.so' <<<"$(sj "$TMP/g.json" '.profile.targets[0].top_cpu[0].name' | tr -d '[]')"
between "gzip: its own share of the samples" "$(sj "$TMP/g.json" '.profile.targets[0].top_cpu[0].self')" 0.6 1
check "gzip: the diagnosis: CPU-bound in zlib" grep -q '^CPU-bound: \[libz\.so[^]]*\] holds [0-9]* % of the samples' <<<"$(sj "$TMP/g.json" .profile.diagnosis)"
"$QUERN" run tests/e2e/scripts/gzip_big.lua --vus 1 --duration 1s -p base_url="$NGBASE" \
  --profile "pid:$W" --db none >"$TMP/n.out" 2>"$TMP/n.err"
eq "no database: the run completed" "$?" 0
check "no database: said" grep -q 'profile: the profile is kept in the results database, and this run has none (--db none)' "$TMP/n.err"

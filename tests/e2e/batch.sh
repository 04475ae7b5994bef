# http.batch and step:batch, judged by a real nginx's log ($connection and
# the request's start and end): one VU batching 12 requests to one origin
# opens exactly 6 connections and has 6 requests in flight at once (/slow:
# 64 KiB at 128 KiB/s, half a second each); the samples are one per request
# or one for the batch, as asked, the requests those nginx saw; error
# statuses count per request (an r:expect accepts one); the VU's cookies go
# with every request; a bad entry raises at its line before anything is sent.
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
mkdir -p "$TMP/www"
head -c 65536 /dev/zero >"$TMP/www/slow.bin"
H2PORT=$(free_port_py)
start_nginx 256 "log_format batch '\$msec \$request_time \$connection \$status \$request_method \$request_uri \$cookie_sid \$cookie_b2 \$server_protocol';
   server { listen 127.0.0.1:$H2PORT http2; access_log $TMP/nginx/batch.log batch; location = /fast { return 200 'fast'; } }" \
  "access_log $TMP/nginx/batch.log batch;
   location = /slow { limit_rate 128k; default_type application/octet-stream; alias $TMP/www/slow.bin; }
   location = /fast { return 200 'fast'; }
   location = /login { add_header Set-Cookie 'sid=s1; Path=/'; return 200 'in'; }
   location = /setc { add_header Set-Cookie 'b2=yes; Path=/'; return 200 'set'; }
   location = /fail { return 500; }
   location = /missing { return 404; }"
BL=$TMP/nginx/batch.log
run() { # run WHAT [OPTIONS]: one VU, one run unless the options say
  local w=$1
  shift
  : >"$BL"
  "$QUERN" run $D/batch.lua -q --db none --allow-errors -p base_url="$NGBASE" \
    -p what="$w" --summary-json "$TMP/$w.json" "${@:---runs=1}" >"$TMP/$w.out" 2>"$TMP/$w.err"
}
t() { sj "$TMP/$1.json" ".tests[] | select(.id == \"SC-B-STEP-$2\") | $3"; }
# conns PATH: distinct connections of the requests to PATH (start_nginx's
# probe may be logged late)
conns() { awk -v p="$1" 'index($6, p "?") == 1 {print $3}' "$BL" | sort -u | wc -l; }
# The most requests in flight at once: at 10 ms into each, those begun and not over.
peak() {
  awk '$6 ~ /^\/slow/ { e[NR] = $1; s[NR] = $1 - $2 }
       END { for (i in s) { n = 0; for (j in s) if (s[j] <= s[i] + 0.01 && e[j] > s[i] + 0.01) n++; if (n > m) m = n } print m + 0 }' "$BL"
}

# ---- a sample each: 12 samples, 12 requests on 6 connections, 6 at once
run each
eq "each: exit 0" "$?" 0
eq "each: nginx saw 12 requests" "$(grep -c ' /slow?i=' "$BL")" 12
eq "each: 12 samples, no error" "$(t each 1 .count)/$(t each 1 .errors.technical)/$(t each 1 .errors.functional)" 12/0/0
eq "each: the samples' requests are nginx's" "$(t each 1 .requests)" "$(grep -c ' /slow?i=' "$BL")"
eq "each: 6 connections (distinct \$connection)" "$(conns /slow)" 6
eq "each: 6 requests in flight at once" "$(peak)" 6
RT=$(awk '$6 ~ /^\/slow/ && $2 > m {m = $2} END {printf "%d", m * 1000}' "$BL")
between "each: a sample is one request's time, as nginx's longest ($RT ms)" "$(t each 1 .max_ms)" $((RT - 50)) $((RT + 300))

# ---- one sample for the batch: from the first start to the last end
run batch
eq "batch: exit 0" "$?" 0
eq "batch: nginx saw 12 requests" "$(grep -c ' /slow?i=' "$BL")" 12
eq "batch: one sample, 12 requests" "$(t batch 2 .count)/$(t batch 2 .requests)" 1/12
eq "batch: 6 connections" "$(conns /slow)" 6
eq "batch: 6 in flight at once" "$(peak)" 6
SPAN=$(awk '$6 ~ /^\/slow/ {e = $1; s = $1 - $2; if (min == "" || s < min) min = s; if (e > max) max = e} END {printf "%d", (max - min) * 1000}' "$BL")
between "batch: its time is nginx's span, two rounds of 6 (span $SPAN ms)" "$(t batch 2 .max_ms)" $((SPAN - 100)) $((SPAN + 400))

# ---- errors per request, an entry's own step, cookies, untimed batches
run mixed --runs 1 --jtl "$TMP/m.jtl"
eq "mixed: exit 0" "$?" 0
eq "mixed: each: 4 samples, the 404 not expected technical" \
  "$(t mixed 1 .count)/$(t mixed 1 .errors.technical)/$(t mixed 1 .errors.functional)" 4/1/0
check "mixed: its message is the status" grep -q "HTTP status 404" <<<"$(t mixed 1 .errors.samples.technical)"
eq "mixed: the entry naming its step: a sample of it" "$(t mixed 3 .count)/$(t mixed 3 .errors.technical)" 1/0
eq "mixed: one sample, its 404 accepted, its 500 not" \
  "$(t mixed 4 .count)/$(t mixed 4 .requests)/$(t mixed 4 .errors.technical)" 1/3/1
check "mixed: the batch's error is the 500" grep -q "HTTP status 500" <<<"$(t mixed 4 .errors.samples.technical)"
eq "mixed: samples of timed batches = nginx's requests of them" \
  "$(( $(t mixed 1 .requests) + $(t mixed 3 .requests) + $(t mixed 4 .requests) ))" \
  "$(grep -c -e ' /fast?[abd] ' -e ' /missing?' -e ' /setc ' -e ' /fail ' "$BL")"
eq "mixed: the untimed batch: nginx saw both, no sample" "$(grep -c ' /fast?u' "$BL")/$(sj "$TMP/mixed.json" '[.tests[].count] | add')" 2/6
eq "mixed: every batched request had the VU's cookie" "$(grep -e ' /fast?' -e ' /missing?' -e ' /setc ' -e ' /fail ' "$BL" | awk '$7 != "s1"' | wc -l)" 0
eq "mixed: a cookie a batch response set goes with the next batch" "$(grep ' /fast?u' "$BL" | awk '$8 == "yes"' | wc -l)" 2
check "mixed: the POST had its body" grep -q ' POST /setc ' "$BL"
J=$(cut -d, -f3,4,8,14 "$TMP/m.jtl")
check "mixed: JTL: a line per sample, its own status and URL" grep -q "a sample each,404,false,.*/missing?no$" <<<"$J"
check "mixed: JTL: the accepted 404 a success" grep -q "a sample each,404,true,.*/missing?ok$" <<<"$J"
check "mixed: JTL: the one sample's status is its error's" grep -q "error statuses in one sample,500,false," <<<"$J"
eq "mixed: JTL: 8 lines (6 samples, 2 untimed requests, no /login header line)" "$(grep -vc -e '^timeStamp' -e '/login' "$TMP/m.jtl")" 8

# ---- per-VU connections, kept across runs: 2 VUs x 2 runs, 12 connections
run reuse --vus 2 --runs 2
eq "reuse: 48 samples, nginx's 48 requests" "$(t reuse 1 .count)/$(grep -c ' /fast?i=' "$BL")" 48/48
eq "reuse: each VU its 6 connections, for both its runs" "$(conns /fast)" 12

# ---- the end of a run with batches in flight: finished within the grace,
# or cut when it is over (no sample for those)
run loop --duration 1s
eq "stopped: exit 0" "$?" 0
eq "stopped: the batch in flight finished: samples = nginx's requests" "$(t loop 1 .count)" "$(grep -c ' /slow?i=' "$BL")"
run loop --duration 1s --grace 100ms
check "cut by the grace: the run ends" test -s "$TMP/loop.json"

# ---- HTTP/2 (h2c): each request answered (before libcurl 8.0, a connection each)
run h2c --runs 1 -p h2c_url="http://127.0.0.1:$H2PORT"
eq "h2c: 12 samples, no error" "$(t h2c 1 .count)/$(t h2c 1 .errors.technical)/$(t h2c 1 .errors.functional)" 12/0/0
eq "h2c: nginx saw 12 HTTP/2 requests" "$(grep -c ' /fast?i=.* HTTP/2.0$' "$BL")" 12

# ---- setup: a request of a batch that fails ends it, no load
run setup
eq "setup: a failed request of a batch: exit 2" "$?" 2
check "setup: file:line, the request and its status" \
  grep -q "batch.lua:[0-9]*: GET http://127.0.0.1:[0-9]*/fail: HTTP status 500 (setup of scenario B)" "$TMP/setup.err"
eq "setup: both requests sent, then no run" "$(cut -d' ' -f6 "$BL" | sort | tr '\n' ' ')" "/fail /fast?s1 "

# ---- bad entries: an error at the script's line, nothing sent
for w in bad badopt toomany; do run $w; done
check "no URL: file:line" grep -q "batch.lua:[0-9]*: batch entry 2: no URL" "$TMP/bad.err"
check "unknown option: file:line" grep -q 'batch.lua:[0-9]*: batch entry 2: unknown request option "nope"' "$TMP/badopt.err"
check "101 requests: file:line" grep -q "batch.lua:[0-9]*: batch: 101 requests, at most 100" "$TMP/toomany.err"
eq "bad entries: nothing was sent" "$(grep -c ' /fast' "$BL")" 0
check "no sanitizer report" no_sanitizer_report "$TMP"/*.err

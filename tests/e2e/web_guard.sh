# --web and --metrics against the browser of the user running quern: the
# cookie that "/?token=" sets is a secret made for the run, never the token
# (a browser sends a host's cookies to every port of it); on loopback, a
# Host that does not name the server (a DNS name rebound to 127.0.0.1) gets
# 421 and nothing of the run; a token with '+' works typed as is after
# "/?token="; a token under 16 bytes is refused, naming its file.
. "$(dirname "$0")/lib.bash"
PIDS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  cleanup
}
trap stop_all EXIT
start_target
S=tests/e2e/scripts/prom.lua
# code [CURL ARGS...]: the status of a GET
code() { curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }

printf 'a+token+with+plus+%s%s\n' "$RANDOM" "$RANDOM" >"$TMP/tok"
chmod 600 "$TMP/tok"
TOK=$(cat "$TMP/tok")
HEX=$(printf '%s' "$TOK" | od -An -tx1 | tr -d ' \n')
ENC=$(printf '%s' "$TOK" | sed 's/+/%2B/g')

# Three runs at once: two on a non-loopback address with the token, one on
# loopback with --web and --metrics. Paced at 1 s: a second or two of a run
# whose first request is slow would miss a 100 ms slot, which is load not
# sent (an inconclusive verdict), and not what this test judges.
for n in 1 2; do
  "$QUERN" run $S --vus 1 --duration 30s -p base_url="$BASE" -p pacing=1s --allow-errors --stopped-ok --db none -q \
    --web 0.0.0.0:0 --token-file "$TMP/tok" --web-port-file "$TMP/wport$n" \
    --metrics-linger 0s >"$TMP/run$n.out" 2>"$TMP/run$n.err" &
  PIDS+=($!)
done
"$QUERN" run $S --vus 1 --duration 30s -p base_url="$BASE" -p pacing=1s --allow-errors --stopped-ok --db none -q \
  --web 127.0.0.1:0 --web-port-file "$TMP/wport3" --metrics 127.0.0.1:0 \
  --metrics-port-file "$TMP/mport3" --metrics-linger 0s >"$TMP/run3.out" 2>"$TMP/run3.err" &
PIDS+=($!)
for f in wport1 wport2 wport3 mport3; do check "port file $f written" wait_file "$TMP/$f"; done

# --- the cookie: a secret of the run's
cookie_of() {  # cookie_of N: "NAME=VALUE" of the Set-Cookie that run N sends
  curl -s --max-time 5 -D "$TMP/h$1" -o /dev/null "http://127.0.0.1:$(cat "$TMP/wport$1")/?token=$ENC"
  tr -d '\r' <"$TMP/h$1" | sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p'
}
C1=$(cookie_of 1)
C2=$(cookie_of 2)
U1="http://127.0.0.1:$(cat "$TMP/wport1")"
check "the token percent-encoded after /?token=: 303" grep -q '^HTTP/1.1 303' "$TMP/h1"
V1=${C1#*=}
V2=${C2#*=}
N1=${C1%%=*}
eq "the cookie is named after the port" "$N1" "quern_web_$(cat "$TMP/wport1")"
check "its value: 64 hex digits ($(printf '%s' "$V1" | wc -c) chars)" \
  sh -c "printf '%s' '$V1' | grep -Eqx '[0-9a-f]{64}'"
check "  not the token, nor the token in hex" test "$V1" != "$TOK" -a "$V1" != "$HEX"
check "  nor holding either" sh -c "! printf '%s' '$V1' | grep -qF -e '$HEX' -e '$TOK'"
check "  another in another run" test -n "$V2" -a "$V1" != "$V2"
eq "the cookie grants /state.json" "$(code -H "Cookie: $C1" "$U1/state.json")" 200
eq "  and the page" "$(code -H "Cookie: $C1" "$U1/")" 200
eq "another run's cookie does not" "$(code -H "Cookie: $N1=$V2" "$U1/state.json")" 401
eq "the token in hex as the cookie is refused" "$(code -H "Cookie: $N1=$HEX" "$U1/state.json")" 401
eq "  the token itself too" "$(code -H "Cookie: $N1=$TOK" "$U1/state.json")" 401
curl -s --max-time 5 -D "$TMP/hplus" -o /dev/null "$U1/?token=$TOK"
check "a token with '+' typed as is after /?token=: 303" grep -q '^HTTP/1.1 303' "$TMP/hplus"
check "  with a cookie that grants /state.json" sh -c "test \"\$(curl -s -o /dev/null -w '%{http_code}' \
  -H \"Cookie: \$(tr -d '\r' <'$TMP/hplus' | sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p')\" '$U1/state.json')\" = 200"
eq "  a '+' changed elsewhere does not match" \
  "$(code "$U1/?token=$(printf '%s' "$TOK" | sed 's/+/-/')")" 401
eq "non-loopback: any Host, with the token" \
  "$(code -H "Host: evil.example:1" -H "Authorization: Bearer $TOK" "$U1/state.json")" 200

# --- loopback: only a Host that names the server
WP=$(cat "$TMP/wport3")
MP=$(cat "$TMP/mport3")
for pair in "state.json $WP" "metrics $MP"; do
  set -- $pair
  U="http://127.0.0.1:$2/$1"
  eq "/$1, Host evil.example:PORT: 421" "$(code -H "Host: evil.example:$2" "$U")" 421
  eq "/$1, Host evil.example: 421" "$(code -H "Host: evil.example" "$U")" 421
  eq "/$1, Host 127.0.0.1:OTHER: 421" "$(code -H "Host: 127.0.0.1:$(($2 + 1))" "$U")" 421
  eq "/$1, Host 127.0.0.1:PORT: 200" "$(code -H "Host: 127.0.0.1:$2" "$U")" 200
  eq "/$1, Host localhost:PORT: 200" "$(code -H "Host: localhost:$2" "$U")" 200
  eq "/$1, Host [::1]:PORT: 200" "$(code -H "Host: [::1]:$2" "$U")" 200
done
curl -s --max-time 5 -H "Host: evil.example:$WP" -o "$TMP/body" "http://127.0.0.1:$WP/state.json"
check "the 421 says why, in one short line, and nothing of the run" \
  sh -c "grep -q '^misdirected request' '$TMP/body' && test \$(wc -c <'$TMP/body') -lt 100 && ! grep -q steps '$TMP/body'"
eq "the page, Host localhost: 200" "$(code -H "Host: localhost" "http://127.0.0.1:$WP/")" 200

# a run stopped before its first sample is merged fails, rightly ("nothing
# completed"): stop each only once its live page has counted a request
served() {  # served N: requests that run N's live page has counted
  local a=()
  [ "$1" != 3 ] && a=(-H "Authorization: Bearer $TOK")
  curl -s --max-time 5 "${a[@]}" "http://127.0.0.1:$(cat "$TMP/wport$1")/state.json" |
    jq '[.agents[].requests] | add // 0' 2>/dev/null || echo 0
}
for n in 1 2 3; do
  for _ in $(seq 200); do [ "$(served $n)" -ge 1 ] && break; sleep 0.1; done
  check "run $n counted a request before it is stopped" test "$(served $n)" -ge 1
done
for p in "${PIDS[@]}"; do kill -INT "$p"; done
for i in 0 1 2; do
  wait "${PIDS[$i]}"
  st=$?
  # three sanitizer builds at once on a loaded machine may not send all of
  # a second's load: that verdict (inconclusive, exit 1) is right, and is
  # not what this test judges; any other end is
  why=$(grep -h '^Verdict: ' "$TMP/run$((i + 1)).out" "$TMP/run$((i + 1)).err" 2>/dev/null | head -1)
  [ "$st" = 1 ] && case $why in "Verdict: inconclusive: "*) st=0 ;; esac
  echo "# run $((i + 1)): $why"
  eq "run $((i + 1)) stopped: exit 0 (or inconclusive)" "$st" 0
done
PIDS=()
check "the token and the cookies are in no output" \
  sh -c "! grep -qF -e '$TOK' -e '$HEX' -e '$V1' -e '$V2' '$TMP'/run*.out '$TMP'/run*.err"

# --- a short token
reset_target
printf '0123456789abcde\n' >"$TMP/short"
chmod 600 "$TMP/short"
timeout 10 "$QUERN" run $S --duration 1s --db none -q -p base_url="$BASE" --web 0.0.0.0:0 --token-file "$TMP/short" \
  >"$TMP/out" 2>"$TMP/err"
check "a 15-byte token: refused ($?)" test "$?" -ne 0
check "  naming the file and the minimum" sh -c "grep -qF '$TMP/short' '$TMP/err' && grep -q 'minimum of 16' '$TMP/err'"
eq "  no request sent" "$(stat .requests)" 0
timeout 10 "$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/short" >"$TMP/out" 2>"$TMP/err"
check "the agent refuses it too ($?)" test "$?" -ne 0
check "  naming the file and the minimum" sh -c "grep -qF '$TMP/short' '$TMP/err' && grep -q 'minimum of 16' '$TMP/err'"

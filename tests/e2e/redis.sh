# quern.redis against a real Redis (Debian's redis-server): the example
# scripts/redis.lua with a password (percent-encoded in the URL), judged by
# the server's own INFO commandstats; a RESP3 client on database 2 whose
# unknown command is a functional error with the server's text while the
# connection goes on; a wrong password, a functional error of the connect.
. "$(dirname "$0")/lib.bash"
for b in /usr/bin/redis-server /usr/bin/redis-cli; do
  [ -x "$b" ] || { notok "$b is installed (Debian's redis-server, redis-tools)"; exit 1; }
done
REDIS_PIDS=()
redis_cleanup() {
  for p in "${REDIS_PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  cleanup
}
trap redis_cleanup EXIT

# start_redis PORT [ARGS...]: a server on 127.0.0.1:PORT that writes nothing
start_redis() {
  local port=$1; shift
  mkdir -p "$TMP/redis-$port"
  /usr/bin/redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$TMP/redis-$port" --daemonize no "$@" >"$TMP/redis-$port.log" 2>&1 &
  REDIS_PIDS+=($!)
}
# pong CLI...: the server answers PING
pong() { [ "$("$@" ping 2>/dev/null)" = PONG ]; }
# calls FILE CMD: a command's calls in an INFO commandstats dump (0: none)
calls() { tr -d '\r' <"$1" | sed -n "s/^cmdstat_$2:calls=\([0-9]*\),.*/\1/p" | grep . || echo 0; }
# errstat FILE PREFIX: the error replies of a kind in an INFO errorstats dump
errstat() { tr -d '\r' <"$1" | sed -n "s/^errorstat_$2:count=\([0-9]*\).*/\1/p" | grep . || echo 0; }

# A: with a password that a URL must percent-encode
PASS='s3cr@t:pw'
PASS_URL='s3cr%40t%3Apw'
PA=$(free_port_py)
start_redis "$PA" --requirepass "$PASS"
ra() { REDISCLI_AUTH=$PASS /usr/bin/redis-cli -p "$PA" "$@"; }
await "redis-server A answers" 10 pong ra || exit 1

# --- the example: every command the server counts is a sample --------------
ra CONFIG RESETSTAT >/dev/null
# The run ends on --duration: a VU stops at its next think time or pacing,
# before it sends; a command it already sent completes with its sample.
timeout 30 "$QUERN" run scripts/redis.lua --vus 5 --duration 3s -q -p pacing=100ms \
  -p redis_url="redis://:$PASS_URL@127.0.0.1:$PA" --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
eq "example: run exits 0" "$rc" 0
[ "$rc" = 0 ] || tail -5 "$TMP/err"
# one redis-cli from here on, which sends an AUTH of its own: counted below
ra INFO commandstats >"$TMP/stats"
S=$TMP/s.json
t() { sj "$S" ".tests[] | select(.id == \"SC-REDIS-CACHE-STEP-$1\") | $2"; }
eq "example: no errors" "$(sj "$S" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
between "example: connects, several runs per VU" "$(t 1 .count)" 10 1000
eq "example: SET samples = the server's SETs" "$(t 2 .count)" "$(calls "$TMP/stats" set)"
eq "example: GET samples = the server's GETs" "$(t 3 .count)" "$(calls "$TMP/stats" get)"
eq "example: a GET per SET" "$(t 3 .count)" "$(t 2 .count)"
eq "example: 10 INCR a pipeline sample" "$((10 * $(t 4 .count)))" "$(calls "$TMP/stats" incr)"
eq "example: an AUTH a connect (and redis-cli's)" "$(($(t 1 .count) + 1))" "$(calls "$TMP/stats" auth)"
eq "example: no SELECT on database 0, no HELLO in RESP2" \
  "$(calls "$TMP/stats" select)/$(calls "$TMP/stats" hello)" 0/0
eq "example: the counters add up to the INCRs" \
  "$(ra EVAL "local s = 0 for _, k in ipairs(redis.call('KEYS', 'counter:*')) do s = s + tonumber(redis.call('GET', k)) end return s" 0)" \
  "$(calls "$TMP/stats" incr)"
eq "example: a counter per VU" "$(ra EVAL "return #redis.call('KEYS', 'counter:*')" 0)" 5

# --- a wrong password: the server's error reply fails the connect ----------
timeout 30 "$QUERN" run scripts/redis.lua --vus 2 --runs 2 -q --allow-errors \
  -p redis_url="redis://:wrong@127.0.0.1:$PA" --summary-json "$TMP/w.json" >/dev/null 2>"$TMP/werr"
eq "wrong password: run exits 0" "$?" 0
S=$TMP/w.json
eq "wrong password: a functional error a connect" \
  "$(t 1 .count)/$(t 1 .errors.functional)/$(t 1 .errors.technical)" 4/4/0
check "wrong password: the server's message" grep -Eq "Redis: (WRONGPASS|ERR invalid password)" \
  <<<"$(t 1 .errors.samples.functional)"
eq "wrong password: the run ends there" "$(t 2 .count)/$(t 3 .count)/$(t 4 .count)" 0/0/0

# --- B: no password; RESP3 on database 2; an unknown command ---------------
PB=$(free_port_py)
start_redis "$PB"
rb() { /usr/bin/redis-cli -p "$PB" "$@"; }
await "redis-server B answers" 10 pong rb || exit 1
cat >"$TMP/odd.lua" <<'EOF'
local quern = require "quern"
local redis = require "quern.redis"
local url = quern.property("redis_url")
local sc = quern.scenario("REDIS-ODD", {})
local connect = sc:step(1, "Connect")
local odd     = sc:step(2, "Unknown command")
local types   = sc:step(3, "RESP3 types")

function sc.run(vu)
  local c = redis.connect(connect, url, { resp = 3 })
  -- a failed step, caught: the connection is still in step after it
  local ok, err = pcall(odd.time, odd, function() return c:call("NOSUCHCMD", vu.id) end)
  assert(not ok and tostring(err):find("^Redis: ERR unknown command"), "no error: " .. tostring(err))
  types:time(function()
    local h = "h:" .. vu.id
    assert(c:call("PING") == "PONG", "PING")
    assert(c:call("HSET", h, "f", "v", "n", 7) == 2, "HSET")
    local m = c:call("HGETALL", h)                     -- a map
    assert(type(m) == "table" and m.f == "v" and m.n == "7", "HGETALL")
    assert(c:call("ZADD", "z:" .. vu.id, 1.5, "m") == 1, "ZADD")
    local d = c:call("ZSCORE", "z:" .. vu.id, "m")     -- a double
    assert(math.type(d) == "float" and d == 1.5, "ZSCORE " .. tostring(d))
    assert(c:call("SADD", "s:" .. vu.id, "a") == 1, "SADD")
    local s = c:call("SMEMBERS", "s:" .. vu.id)        -- a set
    assert(#s == 1 and s[1] == "a", "SMEMBERS")
    assert(c:call("GET", "missing:" .. vu.id) == nil, "GET of no key")  -- null
    c:call("DEL", h, "z:" .. vu.id, "s:" .. vu.id)
    assert(c:call("SET", "mark:" .. vu.id, "x") == "OK", "SET")
  end)
  c:close()
end
EOF
rb CONFIG RESETSTAT >/dev/null
timeout 30 "$QUERN" run "$TMP/odd.lua" --vus 2 --runs 2 -q --allow-errors \
  -p redis_url="redis://127.0.0.1:$PB/2" --summary-json "$TMP/o.json" >/dev/null 2>"$TMP/oerr"
eq "unknown command: run exits 0" "$?" 0
rb INFO commandstats >"$TMP/ostats"
rb INFO errorstats >"$TMP/oerrs"
S=$TMP/o.json
o() { sj "$S" ".tests[] | select(.id == \"SC-REDIS-ODD-STEP-$1\") | $2"; }
eq "unknown command: a functional error each" "$(o 2 .count)/$(o 2 .errors.functional)/$(o 2 .errors.technical)" 4/4/0
check "unknown command: the server's message" grep -q "Redis: ERR unknown command 'NOSUCHCMD'" \
  <<<"$(o 2 .errors.samples.functional)"
eq "unknown command: = the server's error replies" "$(o 2 .errors.functional)" "$(errstat "$TMP/oerrs" ERR)"
eq "unknown command: the connection goes on, RESP3 replies as Lua values" \
  "$(o 1 .count)/$(o 1 .errors.functional)/$(o 3 .count)/$(o 3 .errors.functional)/$(o 3 .errors.technical)" 4/0/4/0/0
eq "resp 3: a HELLO a connect, no AUTH without a password" \
  "$(calls "$TMP/ostats" hello)/$(calls "$TMP/ostats" auth)" "$(o 1 .count)/0"
eq "/2: a SELECT a connect" "$(calls "$TMP/ostats" select)" "$(o 1 .count)"
eq "/2: the keys went to database 2" "$(rb -n 2 EXISTS mark:1 mark:2)/$(rb -n 0 EXISTS mark:1 mark:2)" 2/0

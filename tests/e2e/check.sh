# quern check: every example passes, a HAR's conversion passes once its
# secret is given and names it when it is not, each kind of mistake exits 2
# naming its line, warnings leave the exit at 0 and show in quern run too,
# quern new writes a scenario that passes and plays against the demo target,
# and a check sends nothing (a listener that counts its connections sees 0).
. "$(dirname "$0")/lib.bash"
D="$TMP/s"
mkdir -p "$D"

# A listener that counts the connections it accepts (and closes them).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" - "$TMP/lport" "$TMP/conns" <<'EOF' >/dev/null 2>&1 &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
n = 0
open(sys.argv[2], "w").write("0\n")
s.settimeout(30)
while True:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    n += 1
    open(sys.argv[2], "w").write("%d\n" % n)
    c.close()
EOF
LPID=$!
trap 'kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null; cleanup' EXIT
start_target

# --- the examples ----------------------------------------------------------------
for s in scripts/*.lua; do
  "$QUERN" check "$s" -p base_url="$BASE" -p ws_url=ws://127.0.0.1:1 -p sse_url=http://127.0.0.1:1 \
    -p grpc_target=http://127.0.0.1:1 >"$TMP/ex.out" 2>"$TMP/ex.err"
  eq "$s: quern check exits 0" "$?" 0
  check "$s: no warning" test ! -s "$TMP/ex.err"
done
"$QUERN" check scripts/consultation_profil.lua --vus 50 --ramp-up 5s --duration 20s \
  -p base_url="$BASE" >"$TMP/cp.out" 2>&1
check "the steps with their test ids" grep -qE '^  SC-CONSULTATION-PROFIL-STEP-2 +Consultation du profil +scripts/consultation_profil.lua:15$' "$TMP/cp.out"
check "the load's shape: 50 VUs over 20 s" grep -q "load: 50 VUs, ramp-up 5s for 20s" "$TMP/cp.out"
check "its chart: a top line labelled 50 VUs" grep -qE '^  50 VUs \|  *#+$' "$TMP/cp.out"
check "its time axis ends at 20s" grep -qE '^ +0s +20s$' "$TMP/cp.out"
check "the scenario's pacing and think time" grep -q "weight 1, pacing 2s, think 100ms..300ms" "$TMP/cp.out"
check "the default thresholds" grep -qE '^  errors<=0% +default$' "$TMP/cp.out"
check "a property given" grep -qE "^  base_url += $BASE +given" "$TMP/cp.out"
check "a property at its default" grep -qE '^  pacing += 2s +the default' "$TMP/cp.out"
"$QUERN" check scripts/mix.lua --rate-stages 2s:10/s,3s:10/s >"$TMP/rate.out" 2>&1
check "the open model: arrivals a second" grep -qE '^  10/s \|' "$TMP/rate.out"

# --- a HAR's conversion ------------------------------------------------------------
"$QUERN" har2lua tests/unit/data/har/shop.har -o "$D/shop.lua" >/dev/null 2>&1
"$QUERN" check "$D/shop.lua" >"$TMP/har.out" 2>"$TMP/har.err"
eq "har2lua's script without its password: exit 2" "$?" 2
eq "it names the property, the line and the flag" "$(head -1 "$TMP/har.err")" \
  "$D/shop.lua:13: property \"password\" has no value: give it with -p password=..."
"$QUERN" check "$D/shop.lua" -p password=hunter2 >"$TMP/har.out" 2>&1
eq "with -p password=...: exit 0" "$?" 0
check "the password is shown masked" grep -qE '^  password += \*\*\* +given' "$TMP/har.out"
check "its value is not shown" bash -c "! grep -q hunter2 '$TMP/har.out'"

# --- mistakes: exit 2, the line named ------------------------------------------------
# mistake NAME LINE WHAT SCRIPT: quern check exits 2 with "FILE:LINE: ...WHAT..."
mistake() {
  printf '%s\n' "$4" >"$D/$1.lua"
  "$QUERN" check "$D/$1.lua" >"$TMP/m.out" 2>"$TMP/m.err"
  eq "$1: exit 2" "$?" 2
  check "$1: $D/$1.lua:$2 named" grep -qF "$D/$1.lua:$2: " "$TMP/m.err"
  check "$1: says what" grep -qF "$3" "$TMP/m.err"
  check "$1: nothing printed as runnable" test ! -s "$TMP/m.out"
}
HEAD='local quern = require "quern"
local sc = quern.scenario("M")'
mistake syntax 3 "unexpected symbol" "$HEAD
local a = = 1"
mistake noprop 3 'property "token" has no value: give it with -p token=...' "$HEAD
local t = quern.property(\"token\")
local a = sc:step(1, \"A\")
function sc.run(vu) a:get(\"http://127.0.0.1:1/\" .. t) end"
mistake scenopt 2 'unknown option "pacng"' 'local quern = require "quern"
local sc = quern.scenario("M", { pacng = "1s" })
local a = sc:step(1, "A")
function sc.run(vu) a:get("http://127.0.0.1:1/") end'
mistake threshold 4 'no step matches "SC-NOPE-STEP-*"' "$HEAD
local a = sc:step(1, \"A\")
quern.threshold(\"SC-NOPE-STEP-*: p95<1s\")
function sc.run(vu) a:get(\"http://127.0.0.1:1/\") end"
mistake csv 3 "nope.csv" "$HEAD
local rows = quern.csv(\"nope.csv\")
function sc.run(vu) end"
mistake norun 2 "has no run function" "$HEAD"

"$QUERN" check scripts/mix.lua -p "long=$(head -c 70000 /dev/zero | tr '\0' a)" >/dev/null 2>"$TMP/long.err"
eq "a property longer than an agent takes: exit 2" "$?" 2
check "it is named before the load" grep -q "^quern check: property long: longer than an agent takes" "$TMP/long.err"

# --- optional properties, and the worker given what the console was ---------------------
cat >"$D/opt.lua" <<'EOF'
local quern = require "quern"
local token = quern.property("token", nil, { optional = true })
local base = quern.property("base")
local sc = quern.scenario("OPT")
local a = sc:step(1, "A")
function sc.run(vu) a:get(base .. "/status/200", { headers = { ["X-T"] = token or "none" } }):expect(200) end
EOF
"$QUERN" check "$D/opt.lua" -p base="$BASE" >"$TMP/opt.out" 2>&1
eq "an optional property without a value: exit 0" "$?" 0
check "it is listed as missing" grep -qE '^  token +\(optional: no value\) +missing' "$TMP/opt.out"
reset_target
"$QUERN" run "$D/opt.lua" -p base="$BASE" --vus 2 --runs 3 -q --db none >"$TMP/optrun.out" 2>&1
eq "the workers load it with the console's properties: the run exits 0" "$?" 0
eq "the server saw its 6 requests" "$(stat '.by_method_path["GET /status/200"] // 0')" 6

# --- warnings: exit 0, and quern run prints them too ----------------------------------
printf 'user,password,unused_col\nalice,a,x\n' >"$D/users.csv"
cat >"$D/warn.lua" <<'EOF'
local quern = require "quern"
local http = require "quern.http"
local base = quern.property("base_url", "http://127.0.0.1:1")
local users = quern.csv("users.csv")
local sc = quern.scenario("W")
local a = sc:step(1, "A")
local b = sc:step(2, "B") -- b: named in this comment only
sc:step(3, "C")
function sc.run(vu)
  local row = users:next()
  a:get(base .. "/status/200", { headers = { x = "1" }, tiemout = "2s", query = { q = row.user } })
  http.post(base .. "/echo", { form = { p = row["password"] } })
end
EOF
"$QUERN" check "$D/warn.lua" >"$TMP/w.out" 2>"$TMP/w.err"
eq "warnings: exit 0" "$?" 0
check "a step never used" grep -qF "$D/warn.lua:7: warning: step SC-W-STEP-2 (\"B\") is declared and never used" "$TMP/w.err"
check "a step kept nowhere" grep -qF "$D/warn.lua:8: warning: step SC-W-STEP-3" "$TMP/w.err"
check "an unknown request option" grep -qF "$D/warn.lua:11: warning: unknown request option \"tiemout\"" "$TMP/w.err"
check "a CSV column never read" grep -qF "$D/warn.lua:4: warning: column \"unused_col\" of users.csv is never read" "$TMP/w.err"
eq "no other warning (step A, the columns read)" "$(grep -c warning: "$TMP/w.err")" 4
check "the count of them" grep -qx "4 warnings" "$TMP/w.out"
"$QUERN" run "$D/warn.lua" --runs 1 -q --db none -p base_url="$BASE" >"$TMP/wr.out" 2>&1
check "quern run prints them before the load" grep -qF "$D/warn.lua:7: warning: step SC-W-STEP-2" "$TMP/wr.out"

# --- quern new ----------------------------------------------------------------------
(cd "$D" && "$QUERN" new first --url "$BASE") >"$TMP/new.out" 2>&1
eq "quern new: exit 0" "$?" 0
check "it wrote first.lua" test -s "$D/first.lua"
(cd "$D" && "$QUERN" new first.lua) >"$TMP/new2.out" 2>&1
eq "an existing file: exit 2" "$?" 2
check "it says it is not overwritten" grep -q "first.lua: File exists (not overwritten)" "$TMP/new2.out"
"$QUERN" check "$D/first.lua" >"$TMP/nc.out" 2>"$TMP/nc.err"
eq "its scenario passes quern check" "$?" 0
check "without a warning" test ! -s "$TMP/nc.err"
check "luacheck finds nothing in it" luacheck --config .luacheckrc --formatter plain "$D/first.lua"
check "with its two steps" grep -qE '^  SC-FIRST-STEP-2 +Profile' "$TMP/nc.out"
check "its thresholds" grep -qE '^  SC-FIRST-STEP-\*: p95<500ms' "$TMP/nc.out"
reset_target
"$QUERN" run "$D/first.lua" --vus 2 --duration 2s -q --db none --summary-json "$TMP/new.json" \
  >"$TMP/nr.out" 2>&1
eq "it plays against the demo target: exit 0" "$?" 0
eq "the target saw both VUs log in" "$(stat '.sessions_created')" 2
eq "quern counted the profile pages the target served" \
  "$(sj "$TMP/new.json" '.tests[] | select(.id == "SC-FIRST-STEP-2") | .count')" \
  "$(stat '.by_method_path["GET /profile"]')"

# --- nothing sent -----------------------------------------------------------------------
wait_file "$TMP/lport" || notok "the counting listener starts"
LBASE="http://127.0.0.1:$(cat "$TMP/lport")"
"$QUERN" check "$D/first.lua" -p base_url="$LBASE" --vus 5 --duration 10s >/dev/null 2>&1
eq "quern check: exit 0" "$?" 0
eq "quern check opened no connection" "$(cat "$TMP/conns")" 0
"$QUERN" run "$D/first.lua" -p base_url="$LBASE" --vus 1 --runs 1 -q --db none >/dev/null 2>&1
check "the same script run does connect (the count works)" test "$(cat "$TMP/conns")" -ge 1
check "no sanitizer report" bash -c "! grep -qs Sanitizer '$TMP'/*.out '$TMP'/*.err"

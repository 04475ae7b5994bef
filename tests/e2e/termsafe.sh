# Names from the results database reach the terminal shown, never acted on:
# two runs named with an escape sequence (retitle the window, clear the
# screen), of a script whose step label holds ESC and a bidi override, are
# listed by `quern runs` and compared by `quern compare` with no ESC, BEL or
# U+202E byte in what they print, the name shown as "\x1b]0;pwned...".
. "$(dirname "$0")/lib.bash"
unset QUERN_DB
start_target
DB=$TMP/results.db
NAME=$'\e]0;pwned\a\e[2J'
cat >"$TMP/evil.lua" <<'LUA'
local quern = require "quern"
local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("EVIL", { pacing = "100ms" })
local hit = sc:step(1, "Hit\27[31m\u{202e}red")
function sc.run(vu) hit:get(base .. "/vu/" .. vu.id):expect(404) end
LUA
for i in 1 2; do
  "$QUERN" run "$TMP/evil.lua" --vus 2 --duration 1s -q --db "$DB" --name "$NAME" \
    -p base_url="$BASE" >"$TMP/run$i.out" 2>"$TMP/run$i.err"
  eq "run $i exits 0" "$?" 0
done
# bad BYTES FILE: how many lines of FILE hold ESC, BEL or U+202E.
bad() { LC_ALL=C grep -c $'\e\\|\a\\|\xe2\x80\xae' "$1"; }

"$QUERN" runs --db "$DB" >"$TMP/runs.out" 2>&1
eq "quern runs exits 0" "$?" 0
eq "quern runs: no ESC, BEL or U+202E" "$(bad "$TMP/runs.out")" 0
eq "quern runs: both runs listed, the name escaped" \
  "$(grep -cF '\x1b]0;pwned\x07\x1b[2J' "$TMP/runs.out")" 2

"$QUERN" compare --db "$DB" -o "$TMP/cmp.html" >"$TMP/cmp.out" 2>&1
eq "quern compare exits 0" "$?" 0
eq "quern compare: no ESC, BEL or U+202E" "$(bad "$TMP/cmp.out")" 0
eq "quern compare: both runs named, escaped" "$(grep -cF '"\x1b]0;pwned\x07\x1b[2J"' "$TMP/cmp.out")" 2
check "quern compare: the step label escaped" grep -qF 'Hit\x1b[31m\u202ered' "$TMP/cmp.out"

# The console's own summary of a run shows the label the same way.
eq "the run's summary: no ESC, BEL or U+202E" "$(bad "$TMP/run1.out")" 0
check "the run's summary: the step label escaped" grep -qF 'Hit\x1b[31m\u202ered' "$TMP/run1.out"

# quern report and quern compare on a database made by real runs against the
# demo target: the report is one self-contained HTML file whose step table
# counts equal the server's, it renders in headless Chromium with its SVG
# charts (screenshot kept as an artifact), text from the database is escaped;
# compare finds a real regression (GET /slow?ms=N made slower), exits 1 with
# --fail-on-regression, sees no change between a run and itself, and exits 2
# on an unknown run.
. "$(dirname "$0")/lib.bash"
unset QUERN_DB
start_target
DB=$TMP/r.db
ART=${QUERN_TEST_ARTIFACTS:-}
q() { sqlite3 -batch -noheader "$DB" "$1" 2>/dev/null; }
# recorded NAME: the run NAME has a second in the database
recorded() { [ "$(q "SELECT count(*) FROM intervals i JOIN runs r ON r.id = i.run_id WHERE r.name = '$1'")" -ge 1 ]; }
# counts NAME FILE: the data-count of each step row of a report, one a line
step_counts() { grep '<tr class="step">' "$1" | grep -o 'data-count="[0-9]*"' | tr -dc '0-9\n'; }
sum_lines() { awk '{s += $1} END {print s + 0}'; }

# --- run 1: the Grinder article's scenario ---------------------------------
reset_target
"$QUERN" run scripts/consultation_profil.lua --vus 10 --duration 3s -q -p base_url="$BASE" \
  -p pacing=300ms --db "$DB" >"$TMP/run1.out" 2>"$TMP/run1.err"
eq "run 1 exits 0" "$?" 0
REQS=$(stat '.requests - .login_forms')  # the login forms are fetched untimed
LOGINS=$(stat '.by_method_path["POST /login"]')
PROFILES=$(stat '.by_method_path["GET /profile"]')

"$QUERN" report --db "$DB" -o "$TMP/report.html" >"$TMP/report.out" 2>"$TMP/report.err"
eq "report exits 0" "$?" 0
check "report says where it wrote" grep -q "report of run 1 written to $TMP/report.html" "$TMP/report.out"
check "report file written" test -s "$TMP/report.html"
H=$TMP/report.html
eq "report: three step rows" "$(step_counts "$H" | wc -l)" 3
eq "report: step counts add up to the server's requests" "$(step_counts "$H" | sum_lines)" "$REQS"
eq "report: Login count = server POST /login" "$(step_counts "$H" | sed -n 1p)" "$LOGINS"
eq "report: profile count = server GET /profile" "$(step_counts "$H" | sed -n 2p)" "$PROFILES"
eq "report: total row = server requests" \
  "$(grep '<tr class="total">' "$H" | grep -o 'data-count="[0-9]*"' | tr -dc '0-9')" "$REQS"
eq "report: step counts = step_totals" "$(step_counts "$H" | paste -sd' ')" \
  "$(q 'SELECT group_concat(count, " ") FROM (SELECT count FROM step_totals WHERE run_id = 1 ORDER BY step_index)')"
nsvg=$(grep -o '<svg class="chart"' "$H" | wc -l)
between "report: SVG charts (6 for the run, Little's law the sixth, 2 of the injector's own load, 2 per step)" "$nsvg" 14 14
check "report: the injector's own load" grep -q '<section id="injector">' "$H"
for t in "Throughput" "Response time percentiles" "Errors per second" "Active virtual users"; do
  check "report: chart \"$t\"" grep -q "<figcaption>$t" "$H"
done
check "report: charts have lines" grep -q '<path fill="none" stroke=' "$H"
check "report: axes have labelled ticks" grep -Eq '>[0-9]+s</text>' "$H"
check "report: legends" grep -q '<text x="[0-9.]*" y="[0-9.]*">p95</text>' "$H"
check "report: error table section" grep -q '<section id="errors">' "$H"
check "report: agent table" grep -q '<table class="agents">' "$H"
check "report: settings show the script hash" \
  grep -q "$(sha256sum scripts/consultation_profil.lua | cut -d' ' -f1)" "$H"
check "report: settings show the properties" grep -q '<code>pacing</code></dt><dd><code>300ms</code>' "$H"
check "report: quern version" grep -q "$("$QUERN" version | cut -d' ' -f2)" "$H"
check "report: self-contained (no script, link, import or remote URL)" \
  bash -c "! grep -Eiq '<script|<link|@import|url\\(|(src|href)=\"(https?:)?//' '$H'"
check "report: no NaN or infinity printed" bash -c "! grep -Eiwq 'nan|inf' '$H'"
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$QUERN" report 1 --db "$DB" >/dev/null 2>>"$TMP/report.err")
check "report: default file quern-report-1.html" test -s "$TMP/cwd/quern-report-1.html"

# --- runs 2 and 3: same name, the slow step made slower: a regression ------
"$QUERN" run tests/e2e/scripts/report_slow.lua --vus 10 --duration 3s -q -p base_url="$BASE" \
  -p pacing=300ms -p ms=5 --db "$DB" --name slowcheck --tag 'note=<script>alert(1)</script>' \
  >/dev/null 2>"$TMP/run2.err"
eq "run 2 (slow step 5 ms) exits 0" "$?" 0
"$QUERN" run tests/e2e/scripts/report_slow.lua --vus 10 --duration 3s -q -p base_url="$BASE" \
  -p pacing=300ms -p ms=80 --db "$DB" --name slowcheck >/dev/null 2>"$TMP/run3.err"
eq "run 3 (slow step 80 ms) exits 0" "$?" 0

"$QUERN" report 2 --db "$DB" -o "$TMP/report2.html" >/dev/null 2>>"$TMP/report.err"
eq "report of run 2 exits 0" "$?" 0
check "report: a tag is escaped" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$TMP/report2.html"
check "report: a step label is escaped" \
  grep -q 'steady &lt;static&gt; &amp; &quot;quoted&quot;' "$TMP/report2.html"
check "report: nothing from the database unescaped" bash -c "! grep -Eq '<script|<static>' '$TMP/report2.html'"

"$QUERN" compare --db "$DB" --fail-on-regression 10% -o "$TMP/compare.html" \
  >"$TMP/cmp.out" 2>"$TMP/cmp.err"
eq "compare (latest against the previous run of its name): exit 1 on a regression" "$?" 1
check "compare: new is run 3, baseline run 2" \
  bash -c "grep -q '^new: *run 3 \"slowcheck\"' '$TMP/cmp.out' && grep -q '^baseline: *run 2 \"slowcheck\"' '$TMP/cmp.out'"
check "compare: names the slow step as worse" grep -q '^SC-SLOWCHECK-STEP-2 (slow): worse' "$TMP/cmp.out"
check "compare: p95 of the slow step worse" \
  bash -c "sed -n '/^SC-SLOWCHECK-STEP-2/,/^\$/p' '$TMP/cmp.out' | grep -Eq '^  p95 ms .*\\+[0-9.]+%  worse'"
check "compare: the regression line names the step" \
  grep -Eq '^regression beyond 10%:.* SC-SLOWCHECK-STEP-2 \([^)]*p95 \+' "$TMP/cmp.out"
check "compare: HTML written" test -s "$TMP/compare.html"
check "compare: HTML marks the step worse" \
  grep -q 'data-step="SC-SLOWCHECK-STEP-2" data-verdict="worse"' "$TMP/compare.html"
between "compare: overlaid charts (2 for the run, 2 per step)" \
  "$(grep -o '<svg class="chart"' "$TMP/compare.html" | wc -l)" 6 6
check "compare: both runs on a chart (solid and dashed)" \
  bash -c "grep -q 'stroke=\"#2563eb\" stroke-width=\"1.8\"' '$TMP/compare.html' && grep -q 'stroke-dasharray=\"6 4\"' '$TMP/compare.html'"
check "compare: self-contained" \
  bash -c "! grep -Eiq '<script|<link|@import|url\\(|(src|href)=\"(https?:)?//' '$TMP/compare.html'"

# (the steady step's verdict is left out: sub-millisecond latencies under
# ASan are noise)
"$QUERN" compare 2 3 --db "$DB" -o "$TMP/compare23.html" >"$TMP/cmp23.out" 2>>"$TMP/cmp.err"
eq "compare: the faster run against the slower one: exit 0" "$?" 0
check "compare: ... and the slow step is better" grep -q '^SC-SLOWCHECK-STEP-2 (slow): better' "$TMP/cmp23.out"

"$QUERN" compare 3 3 --db "$DB" --fail-on-regression 10% -o "$TMP/self.html" \
  >"$TMP/self.out" 2>>"$TMP/cmp.err"
eq "compare: a run with itself: exit 0" "$?" 0
eq "compare: a run with itself: no significant change" \
  "$(grep -c '^SC-SLOWCHECK-STEP-[12] (.*): no significant change$' "$TMP/self.out")" 2
check "compare: a run with itself: all deltas zero" \
  bash -c "! grep -E '^  (TPS|mean|p[0-9]+)' '$TMP/self.out' | grep -vq ' +0.0%\$'"
"$QUERN" compare 1 1 --db "$DB" -o "$TMP/self1.html" >"$TMP/self1.out" 2>>"$TMP/cmp.err"
eq "compare: run 1 with itself: exit 0" "$?" 0
check "compare: run 1 with itself: nothing better or worse" \
  bash -c "! grep -Eq ': (better|worse)\$' '$TMP/self1.out'"
(cd "$TMP/cwd" && "$QUERN" compare 3 --db "$DB" >/dev/null 2>>"$TMP/cmp.err")
eq "compare: without --fail-on-regression a regression exits 0" "$?" 0
check "compare: default file quern-compare-3-2.html" test -s "$TMP/cwd/quern-compare-3-2.html"

# --- usage errors: exit 2, one clear line ----------------------------------
"$QUERN" compare 99 --db "$DB" >"$TMP/u.out" 2>"$TMP/u.err"
eq "compare: unknown run: exit 2" "$?" 2
eq "compare: unknown run: one line" "$(wc -l <"$TMP/u.err")" 1
check "compare: unknown run: says so" grep -q '^quern compare: no run 99 in ' "$TMP/u.err"
"$QUERN" compare 3 77 --db "$DB" >/dev/null 2>"$TMP/u2.err"
eq "compare: unknown baseline: exit 2" "$?" 2
check "compare: unknown baseline: says so" grep -q 'no run 77' "$TMP/u2.err"
"$QUERN" compare 1 --db "$DB" >/dev/null 2>"$TMP/u3.err"
eq "compare: no earlier run of the name: exit 2" "$?" 2
check "compare: no earlier run: says to give B" grep -q 'give the baseline run B' "$TMP/u3.err"
"$QUERN" compare 3 --fail-on-regression ten --db "$DB" >/dev/null 2>"$TMP/u4.err"
eq "compare: a bad threshold: exit 2" "$?" 2
"$QUERN" compare --db "$TMP/missing.db" >/dev/null 2>&1
eq "compare: no database: exit 2" "$?" 2
"$QUERN" report 99 --db "$DB" -o "$TMP/none.html" >/dev/null 2>"$TMP/u5.err"
eq "report: unknown run: exit 2" "$?" 2
eq "report: unknown run: one line" "$(wc -l <"$TMP/u5.err")" 1
check "report: unknown run: no file" test ! -e "$TMP/none.html"
"$QUERN" report abc --db "$DB" >/dev/null 2>&1
eq "report: not a run id: exit 2" "$?" 2
"$QUERN" report --db "$TMP/missing.db" >/dev/null 2>&1
eq "report: no database: exit 2" "$?" 2
"$QUERN" report 1 --db "$DB" -o "$TMP/no/such/dir/r.html" >/dev/null 2>&1
eq "report: cannot write: exit 3" "$?" 3
check "quern help report" "$QUERN" help report
check "quern help compare" "$QUERN" help compare

# --- a run still going: reported from its recorded seconds -----------------
"$QUERN" run scripts/consultation_profil.lua --vus 4 --duration 60s -q -p base_url="$BASE" \
  -p pacing=200ms --db "$DB" --name live >/dev/null 2>"$TMP/live.err" &
pid=$!
# once its first second is recorded
check "report of a running run: its first second recorded" wait_until 20 recorded live
"$QUERN" report --db "$DB" -o "$TMP/live.html" >/dev/null 2>>"$TMP/report.err"
eq "report of a running run: exit 0" "$?" 0
check "report of a running run: status running" grep -q 'badge st-running' "$TMP/live.html"
check "report of a running run: says it did not end" grep -q 'The run did not end' "$TMP/live.html"
check "report of a running run: counts = its intervals" test \
  "$(step_counts "$TMP/live.html" | sum_lines)" -ge 1
kill -INT $pid
wait $pid

# --- the HTML in a real browser --------------------------------------------
if command -v chromium >/dev/null 2>&1; then
  chrome() {
    timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --hide-scrollbars --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" "$@" 2>>"$TMP/chromium.log"
  }
  chrome --dump-dom "file://$H" >"$TMP/dom.html"
  eq "chromium renders the report" "$?" 0
  between "chromium: the rendered DOM has the SVG charts" "$(grep -o '<svg class="chart"' "$TMP/dom.html" | wc -l)" 14 14
  check "chromium: the charts have drawn paths" grep -q '<path fill="none"' "$TMP/dom.html"
  check "chromium: the page rendered to its end" grep -q '<footer>quern ' "$TMP/dom.html"
  check "chromium: no error text in the page" \
    bash -c "! grep -Eiq 'This page contains the following errors|error on line|cannot read the database' '$TMP/dom.html'"
  chrome --dump-dom "file://$TMP/compare.html" >"$TMP/cdom.html"
  between "chromium: the comparison has its SVG charts" "$(grep -o '<svg class="chart"' "$TMP/cdom.html" | wc -l)" 6 6
  if [ -n "$ART" ]; then
    mkdir -p "$ART"
    cp "$H" "$ART/report.html"; cp "$TMP/compare.html" "$ART/compare.html"
    chrome --screenshot="$ART/report.png" --window-size=1280,2000 "file://$H" >/dev/null
    check "chromium: report screenshot kept in \$QUERN_TEST_ARTIFACTS" test -s "$ART/report.png"
    chrome --screenshot="$ART/compare.png" --window-size=1280,2000 "file://$TMP/compare.html" >/dev/null
    check "chromium: compare screenshot kept" test -s "$ART/compare.png"
  fi
else
  ok "the report renders in headless Chromium # SKIP chromium is not installed (apt-get install chromium)"
fi

check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.err"

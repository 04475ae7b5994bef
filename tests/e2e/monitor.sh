# --monitor: a real prometheus-node-exporter on a loopback port, scraped by
# the console once a second during a staged run of the demo target; a CPU
# burner started in the middle stage must show in the host's CPU figures in
# the database and in the report, read in a real headless Chromium. Also:
# bad flags (exit 2, nothing sent), and an unreachable and a malformed
# endpoint, each reported once, that do not disturb the run.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/browser_lib.bash"
NE=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
NE_PID=""
BURN_PIDS=""
stop_all() {
  for p in $BURN_PIDS; do kill "$p" 2>/dev/null; done
  [ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null && wait "$NE_PID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
start_target
S=tests/e2e/scripts/monitor.lua
DB=$TMP/mon.db
q() { sqlite3 "$DB" "$1"; }

if [ ! -x "$NE" ]; then
  notok "prometheus-node-exporter is installed (scripts/install-deps.sh installs Debian's)"
  exit 0
fi
# Only the collectors quern reads: a light exporter.
NP=$(free_port_py)
"$NE" --web.listen-address="127.0.0.1:$NP" --collector.disable-defaults --collector.cpu \
  --collector.loadavg --collector.meminfo --collector.netdev --collector.diskstats \
  >"$TMP/ne.log" 2>&1 &
NE_PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$NP/metrics" >/dev/null && break; sleep 0.1; done
NEURL="http://127.0.0.1:$NP/metrics"
check "node exporter serves its metrics" curl -sf "$NEURL"

# --- bad flags: one line naming the flag, exit 2, nothing sent
"$QUERN" run $S --db none -q -p base_url="$BASE" --monitor ftp://127.0.0.1/ >/dev/null 2>"$TMP/err"
eq "--monitor ftp://: exit 2" "$?" 2
check "  one line naming --monitor" bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q -- '--monitor: expected an http' '$TMP/err'"
"$QUERN" run $S --db none -q -p base_url="$BASE" --monitor "$NEURL" --monitor-metric 'm{mode=user}' \
  >/dev/null 2>"$TMP/err"
eq "--monitor-metric with a bad selector: exit 2" "$?" 2
check "  naming the flag and why" grep -q -- "--monitor-metric: 'm{mode=user}': a quoted label value expected" "$TMP/err"
eq "  no request sent" "$(stat .requests)" 0

# --- a staircase (2, 4, then 8 VUs) scraped each second; a CPU burner in
# its middle stage
"$QUERN" run $S -q --stages 0s:2,3s:2,0s:4,4s:4,0s:8,3s:8 -p base_url="$BASE" --db "$DB" --name mon \
  --monitor "$NEURL" --monitor-metric 'node_cpu_seconds_total{mode="user"}' \
  --monitor-metric node_memory_MemTotal_bytes >"$TMP/run.out" 2>"$TMP/run.err" &
QPID=$!
wait_requests 1 20
sleep 3.5 # the burner in the middle of the 4-VU stage (3 s to 7 s)
B0=$(date +%s%6N)
for _ in $(seq "$(nproc)"); do
  timeout 2 bash -c 'while :; do :; done' &
  BURN_PIDS="$BURN_PIDS $!"
done
wait $BURN_PIDS 2>/dev/null
BURN_PIDS=""
B1=$(date +%s%6N)
wait $QPID
eq "the monitored run passes" "$?" 0
eq "  every request quern counted reached the target" "$(stat .requests)" \
  "$(q "SELECT sum(count) FROM step_totals")"
check "  no warning about the monitor" bash -c "! grep -q -- '--monitor' '$TMP/run.err'"
RUN=$(q "SELECT id FROM runs WHERE name = 'mon'")
eq "  the host recorded, without a problem" \
  "$(q "SELECT host || ' ' || ifnull(problem, 'none') FROM monitor_hosts WHERE run_id = $RUN")" \
  "127.0.0.1:$NP none"
between "  cpu_busy: a figure a second" \
  "$(q "SELECT count(*) FROM monitor_samples WHERE run_id = $RUN AND metric = 'cpu_busy'")" 8 11
eq "  every CPU fraction within 0..1" \
  "$(q "SELECT count(*) FROM monitor_samples WHERE run_id = $RUN AND metric LIKE 'cpu_%' AND (value < 0 OR value > 1)")" 0
eq "  user, system, iowait, steal, busy, run queue, memory, disk all there" \
  "$(q "SELECT count(DISTINCT metric) FROM monitor_samples WHERE run_id = $RUN AND metric IN ('cpu_user','cpu_system','cpu_iowait','cpu_steal','cpu_busy','load1','mem_used_bytes','disk_busy')")" 8
check "  memory used is below MemTotal (a --monitor-metric gauge)" test "$(q "SELECT (SELECT max(value) FROM monitor_samples WHERE run_id = $RUN AND metric = 'mem_used_bytes') < (SELECT min(value) FROM monitor_samples WHERE run_id = $RUN AND metric = 'node_memory_MemTotal_bytes')")" = 1
# The user-mode CPU-seconds per second (a counter's rate) is the user
# fraction times the CPUs.
eq "  a --monitor-metric counter is a rate: user CPU-s/s = cpu_user x CPUs" \
  "$(q "SELECT count(*) FROM monitor_samples a JOIN monitor_samples b USING (run_id, host_index, second) WHERE a.run_id = $RUN AND a.metric = 'cpu_user' AND b.metric = 'node_cpu_seconds_total{mode=\"user\"}' AND abs(a.value * $(nproc) - b.value) > 0.05 * $(nproc)")" 0
# A figure covers the time between two scrapes a second apart, and is
# dated by its middle: the burner's seconds are those whose middle is half a
# second inside the burn, so that all of their time was burning.
START=$(q "SELECT started_us FROM runs WHERE id = $RUN")
BS=$(( (B0 - START + 500000) / 1000000 ))
BE=$(( (B1 - START - 500000) / 1000000 ))
busy() { q "SELECT ifnull(round($1(value), 3), -1) FROM monitor_samples WHERE run_id = $RUN AND metric = 'cpu_busy' AND $2"; }
BEFORE=$(busy avg "second < $((BS - 1))")
DURING=$(busy max "second BETWEEN $BS AND $BE")
echo "# cpu_busy: before the burner $BEFORE, during it $DURING (seconds $BS..$BE)"
# A machine already saturated cannot get busier: then the burner's seconds
# must stay saturated.
if awk -v b="$BEFORE" 'BEGIN{exit !(b >= 0.85)}'; then
  between "  the burner's seconds stay busy (the host was already saturated: $BEFORE)" "$DURING" 0.85 1
else
  check "  the burner raises cpu_busy by 15 points or more ($BEFORE -> $DURING)" \
    awk -v b="$BEFORE" -v d="$DURING" 'BEGIN{exit !(d >= b + 0.15)}'
fi

# --- an unreachable and a malformed endpoint (the exporter's HTML home page): reported once each, run undisturbed
reset_target
"$QUERN" run $S -q --stages 3s:4 -p base_url="$BASE" --db "$DB" --name mon \
  --monitor "http://user:s3cret@127.0.0.1:1/metrics" --monitor "http://127.0.0.1:$NP/" \
  --monitor "$NEURL" >"$TMP/run2.out" 2>"$TMP/run2.err"
eq "a run with failing endpoints passes" "$?" 0
eq "  the unreachable one reported once" "$(grep -c -- '--monitor http://user:\*\*\*@127.0.0.1:1/metrics: cannot scrape it' "$TMP/run2.err")" 1
eq "  the malformed one reported once, with the line" "$(grep -c -- "--monitor http://127.0.0.1:$NP/: not Prometheus text: line 1" "$TMP/run2.err")" 1
check "  no password in any output" bash -c "! grep -q s3cret '$TMP/run2.err' '$TMP/run2.out' && ! sqlite3 '$DB' .dump | grep -q s3cret"
eq "  every request quern counted reached the target" "$(stat .requests)" \
  "$(q "SELECT sum(count) FROM step_totals WHERE run_id = (SELECT max(id) FROM runs)")"
RUN2=$(q "SELECT max(id) FROM runs")
eq "  problems recorded for the two, not the exporter" \
  "$(q "SELECT group_concat(host_index || ':' || (problem IS NOT NULL), ',') FROM monitor_hosts WHERE run_id = $RUN2")" "0:1,1:1,2:0"
check "  the exporter still scraped" test "$(q "SELECT count(*) FROM monitor_samples WHERE run_id = $RUN2 AND host_index = 2 AND metric = 'cpu_busy'")" -ge 1

# --- the report and the comparison, read in a real Chromium
"$QUERN" report "$RUN" --db "$DB" -o "$TMP/report.html" >/dev/null 2>"$TMP/report.err"
eq "quern report: exit 0" "$?" 0
"$QUERN" compare "$RUN2" "$RUN" --db "$DB" -o "$TMP/compare.html" >/dev/null 2>"$TMP/compare.err"
check "quern compare writes its page" test -s "$TMP/compare.html"
browser_setup
cat >"$TMP/look.js" <<'JS'
const { chromium } = require('playwright-core');
(async () => {
  const b = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox'] });
  const p = await b.newPage();
  const out = {};
  await p.goto('file://' + process.argv[2]);
  out.report = await p.evaluate(() => {
    const sec = document.querySelector('#resources');
    if (!sec) return null;
    const figs = [...sec.querySelectorAll('figure')];
    const cap = f => f.querySelector('figcaption').textContent;
    const busy = figs.find(f => cap(f).startsWith('CPU busy, %'));
    const modes = figs.find(f => cap(f).startsWith('CPU busy by mode'));
    // the hover zones' titles hold each second's value: "at 0:03\nbusy (...): 95.2 %"
    const vals = busy ? [...busy.querySelectorAll('rect.hz title')].map(t => {
      const m = t.textContent.match(/busy[^:]*: ([0-9.]+)/);
      return m ? parseFloat(m[1]) : null;
    }) : [];
    return {
      host: sec.querySelector('.mon-host h3').textContent,
      captions: figs.map(cap),
      modeBars: modes ? modes.querySelectorAll('svg rect:not(.hz)').length : 0,
      busy: vals,
      windows: [...sec.querySelectorAll('#bottleneck tbody tr')].map(r => r.dataset.kind),
      nav: !!document.querySelector('nav a[href="#resources"]'),
    };
  });
  await p.goto('file://' + process.argv[3]);
  out.compare = await p.evaluate(() => [...document.querySelectorAll('figcaption')]
    .map(c => c.textContent).filter(t => t.startsWith('CPU busy of')));
  console.log(JSON.stringify(out));
  await b.close();
})().catch(e => { console.error(e); process.exit(1); });
JS
browser_node "$TMP/look.js" "$TMP/report.html" "$TMP/compare.html" >"$TMP/look.json" 2>"$TMP/look.err"
eq "chromium reads the report and the comparison" "$?" 0
J=$TMP/look.json
eq "report: a section for the host" "$(jq -r '.report.host | split(" ")[0]' "$J")" "127.0.0.1:$NP"
check "report: its CPU-by-mode chart has drawn bars" test "$(jq -r '.report.modeBars' "$J")" -ge 8
eq "report: run queue, memory, network, disk and the two --monitor-metric charts" \
  "$(jq -r '[.report.captions[] | select(test("^(Run queue|Memory used|Network|Disk busy|node_)"))] | length' "$J")" 6
NPTS=$(jq -r '.report.busy | length' "$J")
eq "report: the CPU busy chart has a value a second, as in the database" \
  "$(jq -r '[.report.busy[] | select(. != null)] | length' "$J")" \
  "$(q "SELECT count(*) FROM monitor_samples WHERE run_id = $RUN AND metric = 'cpu_busy' AND second < $NPTS")"
PAGE_MAX=$(jq -r "[.report.busy[$BS:$((BE + 1))][] | select(. != null)] | max" "$J")
between "report: the burner's seconds show the busy CPU the database has (%)" "$PAGE_MAX" \
  "$(awk -v d="$DURING" 'BEGIN{print d * 100 - 0.5}')" "$(awk -v d="$DURING" 'BEGIN{print d * 100 + 0.5}')"
eq "report: a bottleneck signature per step of the staircase" "$(jq -r '.report.windows | length' "$J")" 3
eq "report: the first step is not judged" "$(jq -r '.report.windows[0]' "$J")" "not judged"
eq "report: the next two, whose load doubled, are" \
  "$(jq -r '[.report.windows[1:][] | select(. != "not judged")] | length' "$J")" 2
echo "# signatures: $(jq -c '.report.windows' "$J")"
check "report: the navigation links the section" test "$(jq -r '.report.nav' "$J")" = true
eq "compare: the host's CPU of both runs overlaid" "$(jq -r '.compare | length' "$J")" 1
check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.err"

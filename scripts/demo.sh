#!/bin/bash
# make demo: start the demo target on a free loopback port, play the Grinder
# article's scenario (login, profile, logout) with 50 VUs for about 20 s, and
# hold quern's counts against the server's own.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/quern-demo.XXXXXX)
bin/quern-target --port 0 --port-file "$tmp/port" >"$tmp/target.log" 2>&1 &
target=$!
trap 'kill $target 2>/dev/null; wait $target 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$tmp/port")"
echo "demo target listening on $base"
echo "quern run scripts/consultation_profil.lua --vus 50 --ramp-up 5s --duration 20s -p base_url=$base"
bin/quern run scripts/consultation_profil.lua --vus 50 --ramp-up 5s --duration 20s \
  -p base_url="$base" --summary-json "$tmp/summary.json" --db "$tmp/results.db"
echo
echo "What the server saw (its own counts, GET $base/__stats):"
curl -s "$base/__stats" | jq -r '"  requests \(.requests): " + ([.by_method_path | to_entries[] | "\(.key) \(.value)"] | join(", ")),
  "  sessions created \(.sessions_created), connections \(.connections)"'
echo "What quern counted: $(jq -r '[.tests[] | "\(.id) \(.count)"] | join(", ")' "$tmp/summary.json")"
bin/quern report --db "$tmp/results.db" -o quern-demo-report.html >/dev/null &&
  echo "HTML report (charts, per-step table): $(pwd)/quern-demo-report.html"
